"""Gram matrices of sparse non-negative feature matrices: the loops (numba).

Features arrive as CSR arrays (``indptr``, column ids ``cols`` already
compacted to ``0 .. n_cols - 1``, ``vals``). :func:`to_csc` regroups them
by column with rows kept sorted. The rare columns' products are added row
by row of ``K`` (:func:`add_row_products`); the common columns are copied
into dense blocks for BLAS (:func:`fill_block`).
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@numba.njit(cache=True, nogil=True)
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


@numba.njit(cache=True, nogil=True)
def add_row_products(K, indptr, cols, vals, colptr, rows, cvals, skip, upper, start, i0, i1):
    """``K[i, j] += sum_c F[i, c] G[j, c]`` over the columns not in ``skip``,
    for the rows ``i0 <= i < i1``.

    ``F`` is given as CSR (``indptr, cols, vals``), ``G`` as CSC
    (``colptr, rows, cvals``, rows sorted) with the same column numbering;
    each update lands in row ``i`` of ``K``, so the writes stay in cache.
    With ``upper`` (``G`` is ``F``), only ``j >= i`` is computed: row ``i``
    meets each of its columns at a cursor ``start[c]`` (``colptr[:-1]``
    before row 0) that advances as the rows are processed in order, which
    leaves the lower triangle untouched (this needs at most one stored entry
    per row and column, as canonical CSR). Calls over consecutive row
    ranges in order, sharing ``start``, add what one call over their union
    adds, in the same order.
    """
    for i in range(i0, i1):
        for e in range(indptr[i], indptr[i + 1]):
            c = cols[e]
            if skip[c]:
                continue
            v = vals[e]
            for a in range(start[c], colptr[c + 1]):
                K[i, rows[a]] += v * cvals[a]
            if upper:
                start[c] += 1


@numba.njit(cache=True, nogil=True)
def fill_block(D, colptr, rows, vals, columns):
    """``D[:, j] = F[:, columns[j]]`` for a zeroed dense block ``D``."""
    for j in range(columns.shape[0]):
        c = columns[j]
        for a in range(colptr[c], colptr[c + 1]):
            D[rows[a], j] = vals[a]
