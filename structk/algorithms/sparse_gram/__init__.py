"""Gram matrices ``F F^T`` and ``F G^T`` of sparse non-negative feature matrices.

Used by the k-mer (spectrum, mismatch) and set kernels, whose feature
matrices are sparse counts or indicators. A general sparse product
(``(F @ F.T).toarray()``) spends most of its time on the few columns that
almost every row holds (common k-mers, frequent tokens), one scalar update
at a time. Here the columns are split by occupancy:

* *dense* columns (held by ``c`` rows with ``c^2 SPARSE_DENSE_RATIO > n^2``) are
  gathered, a bounded block at a time, into a dense matrix and multiplied
  by BLAS, which does the same arithmetic tens of times faster per
  product (``F G^T``: ``D_F @ D_G.T``; ``F F^T``: ``dsyrk`` adding the
  triangle of ``D D^T`` into the result in place, with no n x n
  temporary per block);
* *rare* columns add their few products ``K[i, j] += F[i, c] F[j, c]``
  directly into the dense result in a jitted loop, row by row of ``K`` so
  that the writes stay in cache, with no sparse intermediate;
* *very rare* columns (held by at most ``_tuning.SPARSE_PAIRS_MAX_ROWS``
  rows: almost every 10-mer of DNA) add theirs a column at a time, which
  reads each column once where the row loop would look it up from every
  row that holds it.

Both parts are exact for integer features (float64 holds integers up to
2^53 exactly), so the result does not depend on the split. Only the rare
columns' entries are regrouped by column (a radix sort); the dense blocks
are filled from the rows directly.

===========================  ================================================
module                       what
===========================  ================================================
this one                     the split, the BLAS blocks, and the rule: results
                             of at most ``_tuning.SPARSE_SCIPY_MAX_RESULT``
                             entries come from SciPy's sparse product for
                             the rare columns and BLAS for the dense ones
                             (nothing to compile or load), larger ones from
                             the above
:mod:`._numba`               the CSC regrouping, the rare columns' updates and
                             the dense-block copies (numba)
===========================  ================================================
"""

from __future__ import annotations

import numpy as np

from ... import _tuning
from ..._threads import compiled_call
from ..dense import mirror_upper


def _csr_arrays(F):
    F = F.tocsr()
    return (
        np.asarray(F.indptr, dtype=np.int64),
        np.asarray(F.indices, dtype=np.int64),
        np.asarray(F.data, dtype=np.float64),
    )


def _compact_csr(matrices):
    """CSR matrices over shared columns, renumbered as :func:`_compact` does
    (SciPy's product needs arrays as long as the column space)."""
    import scipy.sparse as sp

    space = max(M.shape[1] for M in matrices)
    total = sum(M.nnz for M in matrices)
    if all(M.shape[1] == space for M in matrices) and space <= max(
        _tuning.SPARSE_DIRECT_SPACE, 2 * total
    ):
        return [M.tocsr() for M in matrices]  # nothing to renumber: no copies
    arrays = [_csr_arrays(M) for M in matrices]
    cols, n_cols = _compact([a[1] for a in arrays], space)
    return [
        sp.csr_matrix((d, c, p), shape=(M.shape[0], n_cols))
        for M, (p, _, d), c in zip(matrices, arrays, cols)
    ]


def _compact(index_arrays, space):
    """Column ids numbered ``0 .. n_cols - 1`` for CSR index arrays sharing columns."""
    total = sum(a.size for a in index_arrays)
    if total == 0:  # no features at all (every sequence shorter than k, say)
        return index_arrays, 0
    if space <= max(_tuning.SPARSE_DIRECT_SPACE, 2 * total):
        return index_arrays, int(space)
    return _renumbered(index_arrays)


def _renumbered(index_arrays):
    """``(parts, n_cols)``: the column ids of the index arrays (not all
    empty) numbered ``0 .. n_cols - 1`` in order of the ids present."""
    _, inverse = np.unique(np.concatenate(index_arrays), return_inverse=True)
    bounds = np.cumsum([0] + [a.size for a in index_arrays])
    parts = [inverse[a:b].astype(np.int64) for a, b in zip(bounds, bounds[1:])]
    return parts, int(inverse.max()) + 1


def _dense_blocks(columns, n_cols, csr_list):
    """Yield, per block of the column ids ``columns``, the dense Fortran
    blocks ``F[:, block]`` of each CSR matrix ``(indptr, cols, vals)``
    (``n_cols`` columns), filled from the rows in one pass over the entries:
    no regrouping by column is needed for the columns BLAS multiplies."""
    from ._numba import fill_rows

    n_rows = max(len(indptr) - 1 for indptr, _, _ in csr_list)
    width = max(1, _tuning.SPARSE_BLOCK_BYTES // (8 * max(n_rows, 1)))
    position = np.full(n_cols, -1, dtype=np.int64)
    for start in range(0, columns.size, width):
        block = columns[start : start + width]
        position[block] = np.arange(block.size)
        out = []
        for indptr, cols, vals in csr_list:
            D = np.zeros((len(indptr) - 1, block.size), dtype=np.float64, order="F")
            fill_rows(D, indptr, cols, vals, position)
            out.append(D)
        position[block] = -1
        yield out


def _rare_csc(indptr, cols, data, n_cols, dense):
    """CSC arrays (:func:`_to_csc`) of the entries outside the ``dense``
    columns, which BLAS multiplies from dense blocks instead: the
    regrouping by column costs what the entries it moves cost, so the
    common columns are left out of it (one compiled pass picks the others,
    :func:`._numba.rare_entries`)."""
    if dense.any():
        from ._numba import rare_entries

        indptr, cols, data = compiled_call(rare_entries, indptr, cols, data, dense)
    return _to_csc(indptr, cols, data, n_cols)


def sparse_gram(F, jitted=False):
    """Dense ``F @ F.T`` (full symmetric matrix) of a sparse non-negative ``F``.

    ``jitted``: the caller runs compiled code anyway (so loading the jitted
    product costs little); use it at every size.
    """
    n = F.shape[0]
    if n * n <= _tuning.SPARSE_SCIPY_MAX_RESULT and not jitted:
        (F,) = _compact_csr([F])
        K = _scipy_product(F, None)
        mirror_upper(K)
        return K
    indptr, indices, data = _csr_arrays(F)
    if data.size == 0:
        return np.zeros((n, n), dtype=np.float64)
    (cols,), n_cols = _compact([indices], F.shape[1])
    counts = np.bincount(cols, minlength=n_cols).astype(np.float64)
    dense = counts**2 * _tuning.SPARSE_DENSE_RATIO > float(n) * n
    csc = _rare_csc(indptr, cols, data, n_cols, dense)
    K = np.zeros((n, n), dtype=np.float64)
    for (D,) in _dense_blocks(np.flatnonzero(dense), n_cols, [(indptr, cols, data)]):
        _add_upper_gram(K, D)
    pairs = _column_pairs(K, csc, csc, counts, counts, True, dense)  # upper triangle
    _row_products(K, indptr, cols, data, csc, counts, dense | pairs, True)
    mirror_upper(K)
    return K


def sparse_cross(F, G, jitted=False):
    """Dense ``F @ G.T`` of sparse non-negative matrices with the same columns
    (``jitted`` as in :func:`sparse_gram`)."""
    n, m = F.shape[0], G.shape[0]
    if n * m <= _tuning.SPARSE_SCIPY_MAX_RESULT and not jitted:
        F, G = _compact_csr([F, G])
        return _scipy_product(F, G)
    K = np.zeros((n, m), dtype=np.float64)
    fp, fi, fd = _csr_arrays(F)
    gp, gi, gd = _csr_arrays(G)
    if fd.size == 0 or gd.size == 0:
        return K
    (fc, gc), n_cols = _compact([fi, gi], max(F.shape[1], G.shape[1]))
    f_counts = np.bincount(fc, minlength=n_cols).astype(np.float64)
    g_counts = np.bincount(gc, minlength=n_cols).astype(np.float64)
    dense = f_counts * g_counts * _tuning.SPARSE_DENSE_RATIO > float(n) * m
    csc_f = _rare_csc(fp, fc, fd, n_cols, dense)
    csc_g = _rare_csc(gp, gc, gd, n_cols, dense)
    pairs = _column_pairs(K, csc_f, csc_g, f_counts, g_counts, False, dense)
    _row_products(K, fp, fc, fd, csc_g, f_counts, dense | pairs, False)
    csr = [(fp, fc, fd), (gp, gc, gd)]
    for DF, DG in _dense_blocks(np.flatnonzero(dense), n_cols, csr):
        K += _product(DF, DG.T)
    return K


def whole_number_product(F, G=None):
    """Dense ``F @ G.T`` (``G`` None: ``F @ F.T``) of CSR arrays ``(indptr,
    indices, data, n_columns)`` by one dense BLAS product, without SciPy,
    or None where that does not apply.

    It applies to whole numbers (counts) whose row sums (of magnitudes)
    multiply to at most ``2^53``: every partial sum is then a whole number
    that float64 holds exactly, so the product is exact and equals SciPy's
    sparse product and the compiled form bit for bit, whatever the order of
    summation. And to small products: a result of at most
    ``_tuning.SPARSE_SCIPY_MAX_RESULT`` entries (the rule of the SciPy
    form) whose dense product over the columns present takes at most
    ``_tuning.SPARSE_NUMPY_MAX_WORK`` multiply-adds. A prediction of a few
    hundred sequences with a spectrum model then imports no
    ``scipy.sparse`` (0.3-0.4 s of CPU in a fresh process).
    """
    from ..._threads import small_matmul

    fp, fi, fd, space = F
    gp, gi, gd, _ = F if G is None else G
    n, m = fp.shape[0] - 1, gp.shape[0] - 1
    if n * m > _tuning.SPARSE_SCIPY_MAX_RESULT:
        return None
    parts = [fd] if G is None else [fd, gd]
    if not all(np.array_equal(d, np.floor(d)) for d in parts):
        return None
    top = [_largest_row_sum(fp, fd), _largest_row_sum(gp, gd)]
    if top[0] * top[1] > 2.0**53:
        return None
    index_arrays = [fi] if G is None else [fi, gi]
    total = sum(a.size for a in index_arrays)
    cols, width = index_arrays, int(space)
    if space > total:  # renumber onto the columns present (none: one empty column)
        cols, width = _renumbered(index_arrays) if total else (index_arrays, 1)
    width = max(width, 1)
    if float(n) * m * width > _tuning.SPARSE_NUMPY_MAX_WORK:
        return None
    DF = _dense_rows(fp, cols[0], fd, width)
    DG = DF if G is None else _dense_rows(gp, cols[1], gd, width)
    return np.asarray(small_matmul(DF, DG.T), dtype=np.float64)


def whole_number_sq_norms(F):
    """``sum_c F[i, c]^2`` of each row of CSR arrays ``(indptr, indices,
    data, n_columns)`` of whole numbers (exact: summed in float64 below
    ``2^53``), or None where :func:`whole_number_product` would not apply."""
    indptr, _, data, _ = F
    if not np.array_equal(data, np.floor(data)):
        return None
    if _largest_row_sum(indptr, data) ** 2 > 2.0**53:
        return None
    rows = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    return np.bincount(rows, weights=data * data, minlength=indptr.shape[0] - 1)


def _largest_row_sum(indptr, data):
    """The largest sum of magnitudes of a row of CSR arrays (0 without rows)."""
    totals = np.concatenate([[0.0], np.cumsum(np.abs(data))])[indptr]  # at the row bounds
    return float(np.diff(totals).max(initial=0.0))


def _dense_rows(indptr, cols, data, width):
    """The dense float64 rows of CSR arrays (repeated columns added)."""
    n = indptr.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    flat = np.bincount(rows * width + cols, weights=data, minlength=n * width)
    return flat.reshape(n, width)


def _scipy_product(F, G):
    """Dense ``F @ G.T`` (``G`` None: ``F @ F.T``) of CSR matrices over the
    same columns without compiled code: the dense columns (the rule of the
    compiled form) by one BLAS product, the others by SciPy's sparse
    product. For whole numbers every sum is exact, so the values are
    SciPy's product's bit for bit; the common columns, one scalar update per pair in SciPy's
    product, cost a few BLAS multiply-adds here (a 313-molecule MinMax Gram
    on fingerprint bits: 4 ms instead of 11)."""
    from ..._threads import small_matmul

    other = F if G is None else G
    f_counts = np.bincount(F.indices, minlength=F.shape[1]).astype(np.float64)
    g_counts = f_counts if G is None else np.bincount(G.indices, minlength=G.shape[1])
    dense = f_counts * g_counts * _tuning.SPARSE_DENSE_RATIO > float(F.shape[0]) * other.shape[0]
    if not dense.any():
        return np.asarray((F @ other.T).toarray(), dtype=np.float64)
    columns, rest = np.flatnonzero(dense), np.flatnonzero(~dense)
    DF = F[:, columns].toarray()
    DG = DF if G is None else G[:, columns].toarray()
    K = np.asarray(small_matmul(DF, DG.T), dtype=np.float64)  # syrk for F F^T
    RF = F[:, rest]
    RG = RF if G is None else G[:, rest]
    K += (RF @ RG.T).toarray()
    return K


def _to_csc(indptr, cols, data, n_cols):
    """CSC arrays of CSR ones (:func:`._numba.to_csc`), radix digits of
    about half the column ids' bits, at most ``_tuning.SPARSE_RADIX_BITS``."""
    from ._numba import to_csc

    bits = max(1, int(n_cols - 1).bit_length())
    passes = -(-bits // _tuning.SPARSE_RADIX_BITS)
    return compiled_call(to_csc, indptr, cols, data, n_cols, -(-bits // passes))


def _column_pairs(K, csc_f, csc_g, f_counts, g_counts, upper, dense):
    """Add the products of the very rare columns (held by at most
    ``_tuning.SPARSE_PAIRS_MAX_ROWS`` rows of each matrix, not ``dense``) a
    column at a time (:func:`._numba.add_column_pairs`), in calls of about
    ``_tuning.SPARSE_CHUNK_WORK`` products; returns the mask of those
    columns (the row loop skips them)."""
    from ..._threads import cost_bounds, run_chunks
    from ._numba import add_column_pairs

    limit = _tuning.SPARSE_PAIRS_MAX_ROWS
    mask = (f_counts <= limit) & (g_counts <= limit) & (f_counts > 0) & (g_counts > 0) & ~dense
    chosen = np.flatnonzero(mask)
    work = f_counts[chosen].astype(np.float64) * g_counts[chosen]
    bounds = cost_bounds(work, 1, _tuning.SPARSE_CHUNK_WORK)
    run_chunks(
        lambda lo, hi: add_column_pairs(K, *csc_f, *csc_g, chosen[lo:hi], upper), bounds, 1
    )  # in order
    return mask


def _row_products(K, indptr, cols, data, csc, f_counts, skip, upper):
    """:func:`._numba.add_row_products` over the rows of ``F`` in order, in
    calls of about ``_tuning.SPARSE_CHUNK_WORK`` scattered multiply-adds
    (estimated from each row's number of entries), so that a Ctrl-C is
    answered between them (the same additions in the same order as one
    call). ``f_counts``: the entries of ``F`` in each column."""
    from ..._threads import cost_bounds, run_chunks
    from ._numba import add_row_products

    colptr = csc[0]
    entries = np.diff(indptr).astype(np.float64)
    work = float(np.dot(np.where(skip, 0.0, f_counts), np.diff(colptr)))
    if upper:
        work *= 0.5  # about half of each column lies above the diagonal
    per_entry = work / max(1.0, float(entries.sum()))
    start = colptr[:-1].copy()
    bounds = cost_bounds(entries * per_entry, 1, _tuning.SPARSE_CHUNK_WORK)
    run_chunks(
        lambda lo, hi: add_row_products(K, indptr, cols, data, *csc, skip, upper, start, lo, hi),
        bounds,
        1,
    )  # in order


def _add_upper_gram(K, D):
    """Add the upper triangle of ``D @ D.T`` to that of ``K`` (C order), in
    place: BLAS ``dsyrk`` on the lower triangle of ``K.T`` (Fortran order).
    NumPy's ``D @ D.T`` runs ``dsyrk`` too, so the arithmetic is the same;
    what goes is its n x n result, mirrored, and the addition of it to
    ``K`` (1.40 against 2.04 s for 12,000 rows and 349 columns). One BLAS
    thread up to ``_tuning.SPARSE_THREADED_FROM`` multiply-adds, as
    :func:`_product`."""
    from scipy.linalg import blas

    from ..._threads import product_threads

    n, width = D.shape
    with product_threads(n * n * width // 2, largest=_tuning.SPARSE_THREADED_FROM):
        out = blas.dsyrk(1.0, D, beta=1.0, c=K.T, lower=1, overwrite_c=1)
        if not np.shares_memory(out, K):  # SciPy copied the output after all
            K[...] = out.T


def _product(A, B):
    """``A @ B``, on one BLAS thread up to ``_tuning.SPARSE_THREADED_FROM``
    multiply-adds (:func:`structk._threads.small_matmul`)."""
    from ..._threads import small_matmul

    return small_matmul(A, B, largest=_tuning.SPARSE_THREADED_FROM)
