"""Gram matrices of sparse non-negative feature matrices: the loops (numba).

Features arrive as CSR arrays (``indptr``, column ids ``cols`` already
compacted to ``0 .. n_cols - 1``, ``vals``). :func:`to_csc` regroups them
by column with rows kept sorted. The rare columns' products are added row
by row of ``K`` (:func:`add_row_products`); the common columns are copied
into dense blocks for BLAS (:func:`fill_rows`).
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@numba.njit(cache=True, nogil=True)
def to_csc(indptr, cols, vals, n_cols, digit_bits):
    """CSC arrays ``(colptr, rows, vals)`` of a CSR matrix, rows sorted per column.

    A stable least-significant-digit radix sort of the entries by column,
    ``digit_bits`` bits a pass: each pass scatters into ``2^digit_bits``
    runs, which stay in cache, where one scatter into ``n_cols`` columns
    misses the cache at every entry once there are a million columns (the
    k-mers of k = 10). The entries start in row order and every pass is
    stable, so each column's rows come out sorted.
    """
    nnz = cols.shape[0]
    key = cols.copy()
    rows = np.empty(nnz, dtype=np.int64)
    out = vals.copy()
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            rows[e] = i
    key2 = np.empty_like(key)
    rows2 = np.empty_like(rows)
    out2 = np.empty_like(out)
    radix = 1 << digit_bits
    mask = radix - 1
    shift = 0
    while (n_cols - 1) >> shift > 0:
        count = np.zeros(radix + 1, dtype=np.int64)
        for e in range(nnz):
            count[((key[e] >> shift) & mask) + 1] += 1
        for d in range(radix):
            count[d + 1] += count[d]
        for e in range(nnz):
            d = (key[e] >> shift) & mask
            t = count[d]
            count[d] = t + 1
            key2[t] = key[e]
            rows2[t] = rows[e]
            out2[t] = out[e]
        key, key2 = key2, key
        rows, rows2 = rows2, rows
        out, out2 = out2, out
        shift += digit_bits
    colptr = np.zeros(n_cols + 1, dtype=np.int64)
    for e in range(nnz):  # keys now ascend: colptr by one sequential walk
        colptr[key[e] + 1] = e + 1
    for c in range(n_cols):
        colptr[c + 1] = max(colptr[c + 1], colptr[c])
    return colptr, rows, out


@numba.njit(cache=True, nogil=True)
def add_column_pairs(K, fptr, frows, fvals, gptr, grows, gvals, chosen, upper):
    """``K[i, j] += F[i, c] G[j, c]`` for the columns ``c`` in ``chosen``,
    a column at a time: what the rare columns cost when they are very rare
    (a column held by a few rows adds a few products, where the row loop of
    :func:`add_row_products` pays a cache miss per entry to find them).
    With ``upper`` (``G`` is ``F``), only ``j >= i``: each column's rows are
    sorted, so the pairs ``a <= b`` of its entries are those."""
    for t in range(chosen.shape[0]):
        c = chosen[t]
        g1 = gptr[c + 1]
        for a in range(fptr[c], fptr[c + 1]):
            i = frows[a]
            v = fvals[a]
            for b in range(a if upper else gptr[c], g1):
                K[i, grows[b]] += v * gvals[b]


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
def fill_rows(D, indptr, cols, vals, position):
    """``D[i, position[c]] = F[i, c]`` for a zeroed dense block ``D``, over
    the entries of the CSR matrix ``F`` whose column has a position
    (``>= 0``)."""
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            j = position[cols[e]]
            if j >= 0:
                D[i, j] = vals[e]


@numba.njit(cache=True, nogil=True)
def rare_entries(indptr, cols, vals, dense):
    """The CSR arrays ``(indptr, cols, vals)`` of the entries whose column
    is not ``dense`` (rows kept in order), in one pass over the entries."""
    n = indptr.shape[0] - 1
    kept = 0
    for e in range(cols.shape[0]):
        if not dense[cols[e]]:
            kept += 1
    rptr = np.empty(n + 1, dtype=np.int64)
    rcols = np.empty(kept, dtype=np.int64)
    rvals = np.empty(kept, dtype=np.float64)
    rptr[0] = 0
    t = 0
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            c = cols[e]
            if not dense[c]:
                rcols[t] = c
                rvals[t] = vals[e]
                t += 1
        rptr[i + 1] = t
    return rptr, rcols, rvals
