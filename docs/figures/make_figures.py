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


def xor_perceptron():
    """The XOR problem separated by a kernel perceptron with a polynomial kernel."""
    from structk.kernels import Polynomial
    from structk.learners import KernelPerceptron

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(120, 2))
    X = X[np.abs(X).min(axis=1) > 0.1]
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    model = KernelPerceptron(kernel=Polynomial(degree=2), random_state=0).fit(X, y)
    mistakes = int(np.sum(model.predict(X) != y))
    fig, ax = plt.subplots(figsize=(4, 4))
    _regions(ax, model, X, y)
    ax.set_title(f"XOR: kernel perceptron, Polynomial(degree=2)\n"
                 f"{mistakes} training mistakes", fontsize=9)
    fig.tight_layout()
    return fig


def _regions(ax, model, X, y, levels=None):
    xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 0.3, X[:, 0].max() + 0.3, 160),
                         np.linspace(X[:, 1].min() - 0.3, X[:, 1].max() + 0.3, 160))
    grid = np.c_[xx.ravel(), yy.ravel()]
    f = np.asarray(model.decision_function(grid))
    f = f.reshape(xx.shape) if f.ndim == 1 else (f[:, 1] - f[:, 0]).reshape(xx.shape)
    ax.contourf(xx, yy, f, levels=20, cmap="RdBu", alpha=0.6)
    ax.contour(xx, yy, f, levels=[0], colors="k", linewidths=1)
    classes = np.unique(y)
    for c, m in zip(classes, ("o", "s")):
        ax.scatter(*X[y == c].T, marker=m, s=14, edgecolor="k", linewidth=0.4,
                   color="tab:red" if c == classes[0] else "tab:blue")
    ax.set_xticks([])
    ax.set_yticks([])


def decision_regions():
    """SVM vs logistic regression vs class means, Gaussian kernel, two moons."""
    from structk.datasets import load_moons
    from structk.kernels import Gaussian
    from structk.learners import KernelLogisticRegression, KernelSVM, NearestClassMean

    X, y = load_moons()
    k = Gaussian(sigma=0.5)
    models = [("KernelSVM(C=1)", KernelSVM(kernel=k, C=1.0)),
              ("KernelLogisticRegression", KernelLogisticRegression(kernel=k, alpha=1e-2)),
              ("NearestClassMean", NearestClassMean(kernel=k))]
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.4))
    for ax, (name, model) in zip(axes, models):
        model.fit(X, y)
        acc = float(np.mean(model.predict(X) == y))
        _regions(ax, model, X, y)
        ax.set_title(f"{name}\nGaussian(sigma=0.5), training accuracy {acc:.2f}", fontsize=9)
    fig.tight_layout()
    return fig


def spectrum_accuracy():
    """5-fold accuracy of the spectrum kernel vs k on UCI splice (needs $STRUCTK_DATA)."""
    import os

    from structk.datasets import load_splice
    from structk.cli.evaluation import cross_validate_grams
    from structk.kernels import Normalize, Spectrum, WeightedDegree
    from structk.learners import KernelSVM

    root = os.environ.get("STRUCTK_DATA")
    if not root:
        raise SystemExit("spectrum_accuracy needs STRUCTK_DATA (the UCI splice data)")
    data = load_splice(os.path.join(root, "sequences", "splice", "splice.data"))
    ks = list(range(1, 9))
    kernels = [Normalize(Spectrum(k=k, unknown="skip")) for k in ks]
    kernels.append(Normalize(WeightedDegree(d=8, unknown="skip")))
    rows = cross_validate_grams(kernels, [KernelSVM(C=1.0)], data.sequences, data.target,
                                folds=5, gram=lambda kern, objs: (kern(objs), 0.0))
    means = np.array([r.mean for r in rows])
    stds = np.array([r.std for r in rows])
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.errorbar(ks, means[:-1], yerr=stds[:-1], marker="o", capsize=3,
                label="Normalize(Spectrum(k))")
    ax.axhline(means[-1], color="tab:green", ls="--",
               label=f"Normalize(WeightedDegree(d=8)): {means[-1]:.3f}")
    ax.set_xlabel("k")
    ax.set_ylabel("5-fold CV accuracy (KernelSVM, C=1)")
    ax.set_title("UCI splice (3 classes, 3190 x 60 nt)", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


FIGURES = {
    "gram_heatmap": gram_heatmap,
    "psd_spectrum": psd_spectrum,
    "xor_perceptron": xor_perceptron,
    "decision_regions": decision_regions,
    "spectrum_accuracy": spectrum_accuracy,
}

from methods_figures import FIGURES as _METHOD_FIGURES  # noqa: E402

FIGURES.update(_METHOD_FIGURES)


def main(names):
    for name in names or FIGURES:
        fig = FIGURES[name]()
        out = HERE / f"{name}.png"
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
