"""Jitted loops for Gram matrices of sparse non-negative feature matrices.

Features arrive as CSR arrays (``indptr``, column ids ``cols`` already
compacted to ``0 .. n_cols - 1``, ``vals``). :func:`to_csc` regroups them
by column with rows kept sorted; a rare column then adds ``vals[a] *
vals[b]`` to ``K[rows[a], rows[b]]`` for each of its pairs, and a common one
is copied into a dense block for BLAS (:func:`fill_block`).
"""

import numba
import numpy as np


@numba.njit(cache=True)
def to_csc(indptr, cols, vals, n_cols):
    """CSC arrays ``(colptr, rows, vals)`` of a CSR matrix, rows sorted per column."""
    colptr = np.zeros(n_cols + 1, dtype=np.int64)
    for e in range(cols.shape[0]):
        colptr[cols[e] + 1] += 1
    for c in range(n_cols):
        colptr[c + 1] += colptr[c]
    fill = colptr[:-1].copy()
    rows = np.empty(cols.shape[0], dtype=np.int64)
    out = np.empty(cols.shape[0], dtype=np.float64)
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            c = cols[e]
            rows[fill[c]] = i
            out[fill[c]] = vals[e]
            fill[c] += 1
    return colptr, rows, out


@numba.njit(cache=True)
def add_column_pairs(K, colptr, rows, vals, skip):
    """``K += F F^T`` over the columns not in ``skip`` (both triangles)."""
    for c in range(colptr.shape[0] - 1):
        if skip[c]:
            continue
        lo, hi = colptr[c], colptr[c + 1]
        for a in range(lo, hi):
            ra = rows[a]
            va = vals[a]
            K[ra, ra] += va * va
            for b in range(a + 1, hi):
                x = va * vals[b]
                K[ra, rows[b]] += x
                K[rows[b], ra] += x


@numba.njit(cache=True)
def add_column_pairs_cross(K, colptr_x, rows_x, vals_x, colptr_y, rows_y, vals_y, skip):
    """``K += F G^T`` over the columns (shared numbering) not in ``skip``."""
    for c in range(colptr_x.shape[0] - 1):
        if skip[c]:
            continue
        for a in range(colptr_x[c], colptr_x[c + 1]):
            ra = rows_x[a]
            va = vals_x[a]
            for b in range(colptr_y[c], colptr_y[c + 1]):
                K[ra, rows_y[b]] += va * vals_y[b]


@numba.njit(cache=True)
def fill_block(D, colptr, rows, vals, columns):
    """``D[:, j] = F[:, columns[j]]`` for a zeroed dense block ``D``."""
    for j in range(columns.shape[0]):
        c = columns[j]
        for a in range(colptr[c], colptr[c + 1]):
            D[rows[a], j] = vals[a]


@numba.njit(cache=True)
def column_counts(cols, n_cols):
    """Number of stored entries in each column."""
    counts = np.zeros(n_cols, dtype=np.int64)
    for e in range(cols.shape[0]):
        counts[cols[e]] += 1
    return counts
