"""k-mer ids, counts and mismatch features in NumPy, for small batches of
sequences.

The same results as the numba loops :func:`._numba.kmer_ids`,
:func:`._numba.count_rows` (with columns sorted within each row) and
:func:`._numba.mismatch_rows`, computed by whole-array operations;
:mod:`structk.algorithms.kmers` picks between them.
"""

from __future__ import annotations

from itertools import combinations, product

import numpy as np


def kmer_ids(codes, offsets, k, A, positions):
    """Base-``A`` index of every k-mer free of unknown symbols (codes >= A),
    row by row, in order of position: ``(ids, starts, ptr)``, ``starts``
    the positions in their sequences with ``positions`` (else empty)."""
    n = offsets.shape[0] - 1
    N = codes.shape[0]
    if N < k:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy(), np.zeros(n + 1, dtype=np.int64)
    starts = np.arange(N - k + 1)
    seq = np.searchsorted(offsets, starts, side="right") - 1
    unknown = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(codes >= A, out=unknown[1:])
    ok = (starts + k <= offsets[seq + 1]) & (unknown[starts + k] == unknown[starts])
    first = starts[ok]
    ids = np.zeros(first.shape[0], dtype=np.int64)
    for j in range(k):  # Horner: the leading symbol has weight A ** (k - 1)
        ids *= A
        ids += codes[first + j]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(seq[ok], minlength=n), out=ptr[1:])
    starts = first - offsets[seq[ok]] if positions else np.zeros(0, dtype=np.int64)
    return ids, starts.astype(np.int64), ptr


def count_rows(ids, ptr, presence, space=None):
    """CSR ``(indptr, indices, data)`` counting each row's ids (sorted columns;
    with ``presence`` every stored value is 1). ``space``: a bound on the
    ids; when row and id then fit in one int64 key (``n * space < 2^62``),
    the entries are ordered by one sort of those keys instead of a
    lexsort (the same order)."""
    n = ptr.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    if space is not None and n * int(space) < 2**62:
        key = rows * int(space) + ids
        key.sort()  # by row, then id: one sort of whole numbers
        r, v = np.divmod(key, int(space))
    else:
        order = np.lexsort((ids, rows))
        r, v = rows[order], ids[order]
    first = np.ones(r.shape[0], dtype=bool)
    first[1:] = (r[1:] != r[:-1]) | (v[1:] != v[:-1])
    at = np.flatnonzero(first)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r[at], minlength=n), out=indptr[1:])
    if presence:
        data = np.ones(at.shape[0])
    else:
        data = np.diff(np.append(at, r.shape[0])).astype(np.float64)
    return indptr, np.ascontiguousarray(v[at]), data


def mismatch_rows(ids, ptr, k, A, m):
    """CSR ``(indptr, indices, data)`` of the (k, m)-mismatch features of
    the k-mers ``(ids, ptr)``, sorted columns: what
    :func:`._numba.mismatch_rows` returns. Each k-mer's neighbourhood (every
    k-mer within Hamming distance ``m``, itself included, each once) is
    built one pattern of positions and substitutions at a time over all
    k-mers, then the rows are counted by :func:`count_rows`."""
    powers = np.asarray(A, dtype=np.int64) ** np.arange(k, dtype=np.int64)
    digits = (ids[:, None] // powers) % A  # digit p has weight A ** p
    columns = [ids]
    for i in range(1, m + 1):
        for where in combinations(range(k), i):
            for shifts in product(range(1, A), repeat=i):
                value = ids.copy()
                for p, s in zip(where, shifts):
                    value += ((digits[:, p] + s) % A - digits[:, p]) * powers[p]
                columns.append(value)
    neighbours = np.stack(columns, axis=1)  # row j: the neighbourhood of ids[j]
    space = int(A) ** int(k)
    return count_rows(neighbours.ravel(), ptr * neighbours.shape[1], False, space)
