"""The main job on bundled data: build Gram matrices, time them, check them.

Run with ``structk demo``. Every Gram matrix is checked with
:func:`structk.check_psd`; a deliberately invalid "kernel" (the sigmoid
``tanh(x.y - 1)``) shows what a caught violation looks like.
"""

from __future__ import annotations

import time

import numpy as np


def _gram_rows(named_kernels, X):
    from .psd import check_psd

    rows = []
    for name, kernel in named_kernels:
        t0 = time.perf_counter()
        K = kernel(X)
        seconds = time.perf_counter() - t0
        report = check_psd(K, method="eigh")
        rows.append((name, K.shape[0], seconds, report))
    return rows


def _format_table(rows):
    header = f"{'kernel':<44} {'n':>5} {'Gram ms':>8}  {'PSD':<4} {'lambda_min':>11}"
    lines = [header, "-" * len(header)]
    for name, n, seconds, report in rows:
        lines.append(
            f"{name:<44} {n:>5} {seconds * 1e3:>8.1f}  "
            f"{'yes' if report.is_psd else 'NO':<4} {report.min_eigenvalue:>11.3g}"
        )
    return "\n".join(lines)


def run(out=print):
    """Run the demo and print its report through ``out``."""
    from .datasets import load_moons
    from .kernels import (
        Exp, FunctionKernel, Gaussian, Laplace, Linear, Normalize, Polynomial,
    )

    X, y = load_moons()
    out(f"structk demo: {len(X)} two-moons points from the bundled data (classes "
        f"{np.bincount(y).tolist()})\n")
    kernels = [
        ("Linear()", Linear()),
        ("Polynomial(degree=3)", Polynomial(degree=3)),
        ("Gaussian(sigma=0.5)", Gaussian(sigma=0.5)),
        ("Laplace(sigma=1.0)", Laplace(sigma=1.0)),
        ("Normalize(Polynomial(3) + Gaussian(0.5))",
         Normalize(Polynomial(degree=3) + Gaussian(sigma=0.5))),
        ("Exp(0.5 * Linear())", Exp(0.5 * Linear())),
        ("sigmoid tanh(x.y - 1)  [not a kernel]",
         FunctionKernel(lambda a, b: np.tanh(a @ b - 1.0), name="sigmoid")),
    ]
    rows = _gram_rows(kernels, X)
    out(_format_table(rows))
    bad = [r for r in rows if not r[3].is_psd]
    for name, _, _, report in bad:
        out(f"\ncheck_psd caught {name}:\n{report}")
    out("\nOn your own data: K = kernel(objects); structk.check_psd(K). "
        "See README.md for string, set and graph kernels.")
    return rows
