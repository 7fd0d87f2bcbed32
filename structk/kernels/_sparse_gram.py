"""Gram matrices ``F F^T`` and ``F G^T`` of sparse non-negative feature matrices.

Used by the k-mer (spectrum, mismatch) and set kernels, whose feature
matrices are sparse counts or indicators. A general sparse product
(``(F @ F.T).toarray()``) spends most of its time on the few columns that
almost every row holds (common k-mers, frequent tokens), one scalar update
at a time. Here the columns are split by occupancy:

* *dense* columns (held by more than ``1 / DENSE_RATIO`` of the rows' worth
  of pairs) are gathered, a bounded block at a time, into a dense matrix
  and added by one BLAS rank-k update (``dsyrk``), which does the same
  arithmetic tens of times faster;
* *rare* columns add their few pairs ``K[i, j] += F[i, c] F[j, c]``
  directly into the dense result in a jitted loop, with no sparse
  intermediate.

Both parts are exact for integer features (float64 holds integers up to
2^53 exactly), so the result does not depend on the split.
"""

from __future__ import annotations

import numpy as np

from .base import mirror_upper

#: A column goes to BLAS when its pair count times this exceeds n * m.
DENSE_RATIO = 30.0
#: Upper bound on the bytes of one dense block of columns.
BLOCK_BYTES = 32 * 2**20


def _entries(F):
    """Row, column and value of every stored entry of a CSR matrix."""
    F = F.tocsr()
    rows = np.repeat(np.arange(F.shape[0], dtype=np.int64), np.diff(F.indptr))
    return rows, np.asarray(F.indices, dtype=np.int64), np.asarray(F.data, np.float64)


def _csc(rows, cols, vals, n_cols):
    """CSC arrays (rows kept sorted within a column) of the given entries."""
    order = np.argsort(cols, kind="stable")
    colptr = np.zeros(n_cols + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols, minlength=n_cols), out=colptr[1:])
    return colptr, rows[order], vals[order]


def _block_width(n_rows):
    return max(1, BLOCK_BYTES // (8 * max(n_rows, 1)))


def _blocks(rows, cols, vals, n_cols, n_rows, width):
    """Yield dense Fortran-ordered blocks ``(n_rows, width)`` over the columns."""
    colptr, r, v = _csc(rows, cols, vals, n_cols)
    c_sorted = np.repeat(np.arange(n_cols, dtype=np.int64), np.diff(colptr))
    for start in range(0, n_cols, width):
        stop = min(start + width, n_cols)
        lo, hi = colptr[start], colptr[stop]
        D = np.zeros((n_rows, stop - start), dtype=np.float64, order="F")
        D[r[lo:hi], c_sorted[lo:hi] - start] = v[lo:hi]
        yield start, stop, D


def sparse_gram(F):
    """Dense ``F @ F.T`` (full symmetric matrix) of a sparse non-negative ``F``."""
    from scipy.linalg.blas import dsyrk

    from .._jit.sparse import add_column_pairs

    n = F.shape[0]
    K = np.zeros((n, n), dtype=np.float64)
    rows, cols, vals = _entries(F)
    if vals.size:
        _, cols = np.unique(cols, return_inverse=True)
        counts = np.bincount(cols)
        dense = counts.astype(np.float64) ** 2 * DENSE_RATIO > float(n) * n
        where_dense = dense[cols]
        light = ~where_dense
        if light.any():
            remap = np.cumsum(~dense) - 1
            colptr, r, v = _csc(rows[light], remap[cols[light]], vals[light],
                                int((~dense).sum()))
            add_column_pairs(K, colptr, r, v)
        if where_dense.any():
            remap = np.cumsum(dense) - 1
            # K.T is Fortran-ordered; its lower triangle is K's upper one
            Kt = K.T
            for _, _, D in _blocks(rows[where_dense], remap[cols[where_dense]],
                                   vals[where_dense], int(dense.sum()), n,
                                   _block_width(n)):
                dsyrk(1.0, D, beta=1.0, c=Kt, trans=0, lower=1, overwrite_c=1)
    mirror_upper(K)
    return K


def sparse_cross(F, G):
    """Dense ``F @ G.T`` of sparse non-negative matrices with the same columns."""
    from .._jit.sparse import add_column_pairs_cross

    n, m = F.shape[0], G.shape[0]
    K = np.zeros((n, m), dtype=np.float64)
    rf, cf, vf = _entries(F)
    rg, cg, vg = _entries(G)
    if vf.size == 0 or vg.size == 0:
        return K
    _, inverse = np.unique(np.concatenate([cf, cg]), return_inverse=True)
    cf, cg = inverse[: cf.size], inverse[cf.size:]
    n_cols = int(inverse.max()) + 1
    cost = np.bincount(cf, minlength=n_cols).astype(np.float64)
    cost *= np.bincount(cg, minlength=n_cols)
    dense = cost * DENSE_RATIO > float(n) * m
    light = ~dense
    remap = np.cumsum(light) - 1
    lf, lg = light[cf], light[cg]
    add_column_pairs_cross(
        K, *_csc(rf[lf], remap[cf[lf]], vf[lf], int(light.sum())),
        *_csc(rg[lg], remap[cg[lg]], vg[lg], int(light.sum())),
    )
    if dense.any():
        remap = np.cumsum(dense) - 1
        n_dense = int(dense.sum())
        df, dg = dense[cf], dense[cg]
        width = _block_width(max(n, m))
        for (_, _, DF), (_, _, DG) in zip(
            _blocks(rf[df], remap[cf[df]], vf[df], n_dense, n, width),
            _blocks(rg[dg], remap[cg[dg]], vg[dg], n_dense, m, width),
        ):
            K += DF @ DG.T
    return K
