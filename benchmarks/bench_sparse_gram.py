"""The Gram ``F F^T`` of sparse count features: structk's product against
SciPy's sparse product, and against the same split with its dense columns
multiplied the plain way.

Usage: python benchmarks/bench_sparse_gram.py [--quick] [--repeat R]

structk splits the columns by occupancy (``structk.algorithms.sparse_gram``):
the columns most rows hold go to BLAS, the dense triangle added into the
result in place by ``dsyrk``. The "plain dense" column is that split with
the dense blocks multiplied as ``D @ D.T`` (the first block's product
becomes the result, each further one an n x n temporary added to it), what
the in-place call replaced; the peer is SciPy's
``(F @ F.T).toarray()``. All three give the same integers. Cases: spectrum
features of random DNA and, when ``STRUCTK_DATA`` is set, Weisfeiler-Lehman
features of ENZYMES repeated ten times. Medians, runs alternated in one
process.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import alternating, print_table  # noqa: E402


def plain_dense(F):
    """structk's split, with the dense blocks multiplied as ``D @ D.T``."""
    from structk import _tuning
    from structk.algorithms import sparse_gram as sg
    from structk.algorithms.dense import mirror_upper

    n = F.shape[0]
    indptr, indices, data = sg._csr_arrays(F)
    (cols,), n_cols = sg._compact([indices], F.shape[1])
    csc = sg._to_csc(indptr, cols, data, n_cols)
    counts = np.diff(csc[0]).astype(np.float64)
    dense = counts**2 * _tuning.SPARSE_DENSE_RATIO > float(n) * n
    K = None
    for (D,) in sg._dense_blocks(np.flatnonzero(dense), n_cols, [(indptr, cols, data)]):
        if K is None:
            K = sg._product(D, D.T)  # the first block's product is the result
        else:
            K += sg._product(D, D.T)
    K = np.zeros((n, n)) if K is None else K
    sg._row_products(K, indptr, cols, data, csc, counts, dense, True)
    mirror_upper(K)
    return K


def compact(F):
    """``F`` with only its used columns (k-mer features live in a space of
    4^k or hashed columns, more than SciPy's product can index)."""
    import scipy.sparse as sp

    used, cols = np.unique(F.indices, return_inverse=True)
    return sp.csr_matrix((F.data, cols.ravel(), F.indptr), shape=(F.shape[0], used.size))


def cases(quick):
    from structk.kernels import Spectrum, WeisfeilerLehman

    rng = np.random.default_rng(0)
    sizes = [(1500, 300, 4)] if quick else [(5000, 1000, 5), (8000, 300, 4), (3000, 1000, 7)]
    for n, length, k in sizes:
        X = ["".join(rng.choice(list("ACGT"), length)) for _ in range(n)]
        kernel = Spectrum(k=k)
        yield (
            f"Spectrum(k={k}), {n} x {length} nt",
            compact(kernel.features_prepared(kernel.prepare(X))),
        )
    root = os.environ.get("STRUCTK_DATA")
    if root and not quick:
        from structk.datasets import load_tu

        graphs = load_tu(os.path.join(root, "graphs", "ENZYMES"))[0] * 10
        kernel = WeisfeilerLehman(h=3)
        yield (
            f"WeisfeilerLehman(h=3), ENZYMES x 10 ({len(graphs)} graphs)",
            compact(kernel.features_prepared(kernel.prepare(graphs))),
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small case")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    from structk.algorithms.sparse_gram import sparse_gram

    rows = []
    for name, F in cases(args.quick):
        K = sparse_gram(F, jitted=True)
        if not (np.array_equal(K, plain_dense(F)) and np.array_equal(K, (F @ F.T).toarray())):
            raise AssertionError(f"{name}: the three products differ")
        ours, plain, scipy = alternating(
            [
                lambda: sparse_gram(F, jitted=True),
                lambda: plain_dense(F),
                lambda: (F @ F.T).toarray(),
            ],
            args.repeat,
        )
        rows.append(
            [
                name,
                f"{ours:.3f}",
                f"{plain:.3f}",
                f"{plain / ours:.2f}x",
                f"{scipy:.3f}",
                f"{scipy / ours:.1f}x",
            ]
        )
    print(f"F F^T of sparse counts (medians of {args.repeat}, alternated; {os.cpu_count()} cores)")
    print_table(
        rows,
        ["case", "structk s", "plain dense s", "plain / structk", "SciPy s", "SciPy / structk"],
    )


if __name__ == "__main__":
    main()
