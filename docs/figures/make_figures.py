"""Make the figures of the documentation (matplotlib, from the `docs` extra).

    python docs/figures/make_figures.py [NAME ...]

With no name, makes every figure; each is written next to this script.
Figures that need the public benchmark data read it from $STRUCTK_DATA.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent


def gram_heatmap():
    """Gram matrix of the bundled two-moons data, ordered by class."""
    from structk.datasets import load_moons
    from structk.kernels import Gaussian, Normalize, Polynomial

    X, y = load_moons()
    order = np.lexsort((X[:, 0], y))  # by class, then left to right
    K = Normalize(Polynomial(degree=3) + Gaussian(sigma=0.5))(X[order])
    fig, ax = plt.subplots(figsize=(4.6, 4))
    im = ax.imshow(K, cmap="viridis", interpolation="nearest")
    n0 = int(np.sum(y == 0))
    for pos in (n0 - 0.5,):
        ax.axhline(pos, color="w", lw=1)
        ax.axvline(pos, color="w", lw=1)
    ax.set_title("Normalize(Polynomial(3) + Gaussian(0.5))\ntwo moons, ordered by class",
                 fontsize=9)
    ax.set_xticks([n0 / 2, n0 + (len(y) - n0) / 2], ["class 0", "class 1"])
    ax.set_yticks([n0 / 2, n0 + (len(y) - n0) / 2], ["class 0", "class 1"])
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.tight_layout()
    return fig


def psd_spectrum():
    """Eigenvalues of a valid Gram matrix and of a non-kernel, with the tolerance band."""
    from structk import check_psd
    from structk.datasets import load_moons
    from structk.kernels import FunctionKernel, Gaussian

    X, _ = load_moons()
    cases = [
        ("Gaussian(sigma=2): valid", Gaussian(sigma=2.0)(X)),
        ("tanh(x.y - 1): not a kernel",
         FunctionKernel(lambda a, b: np.tanh(a @ b - 1.0))(X)),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), sharey=True)
    for ax, (title, K) in zip(axes, cases):
        w = np.linalg.eigvalsh(K)
        tol = check_psd(K).tol
        idx = np.arange(len(w))
        neg = w < 0
        ax.semilogy(idx[~neg], w[~neg], ".", ms=3, color="tab:blue", label="lambda >= 0")
        ax.semilogy(idx[neg], -w[neg], ".", ms=3, color="tab:red", label="|lambda|, lambda < 0")
        ax.axhline(tol, color="tab:green", ls="--", lw=1, label="tolerance")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("eigenvalue index (ascending)")
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_ylabel("|eigenvalue|")
    fig.tight_layout()
    return fig


FIGURES = {"gram_heatmap": gram_heatmap, "psd_spectrum": psd_spectrum}


def main(names):
    for name in names or FIGURES:
        fig = FIGURES[name]()
        out = HERE / f"{name}.png"
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
