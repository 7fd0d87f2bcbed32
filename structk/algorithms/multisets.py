"""Multisets written out as sets of ``(token, level)`` pairs, in NumPy.

A multiset with count ``c_t`` of token ``t`` is the set
``{(t, 1), ..., (t, c_t)}``; the intersection and union of two such sets
have sizes ``sum_t min(a_t, b_t)`` and ``sum_t max(a_t, b_t)`` (the MinMax
kernel, :class:`structk.kernels.MinMax`). Each pair is coded as one
integer, ``token_id * 2^32 + level - 1``; the columns of the indicator
matrix are the distinct codes in increasing order, so lining up two
collections is a sorted search, not a look-up per pair.
"""

from __future__ import annotations

import numpy as np

from .. import _tuning

#: Levels take the low 32 bits of a pair's code.
LEVEL_BITS = 32
#: The largest count a code holds (and the most token ids: 2^31).
MAX_COUNT = 2**LEVEL_BITS - 1


def level_indicator(indptr, token_ids, counts):
    """The 0/1 indicator matrix of multisets written out as sets of
    ``(token, level)`` pairs, and the code of each of its columns.

    Parameters
    ----------
    indptr : int array of shape (n + 1,)
        Multiset ``i`` holds the entries ``indptr[i]:indptr[i + 1]``.
    token_ids : int array of shape (nnz,)
        The token of each entry, as an id in ``[0, 2^31)``; a token appears
        at most once in a multiset.
    counts : int array of shape (nnz,)
        Its count, in ``[1, MAX_COUNT]``.

    Returns
    -------
    F : scipy.sparse.csr_matrix of shape (n, max(m, 1))
        Row ``i`` has a 1 in the column of each pair ``(t, l)``,
        ``1 <= l <= c_t``, of multiset ``i``.
    codes : int64 array of shape (m,)
        ``token_id << 32 | (level - 1)`` of each column, increasing.
    """
    import scipy.sparse as sp

    counts = np.asarray(counts, dtype=np.int64)
    ends = np.cumsum(counts)
    entry = np.repeat(np.arange(counts.size), counts)  # the entry of each pair
    level = np.arange(entry.size, dtype=np.int64) - (ends - counts)[entry]  # from 0
    token_ids = np.asarray(token_ids, dtype=np.int64)
    levels = int(counts.max(initial=0))
    space = (int(token_ids.max(initial=0)) + 1) * levels  # a Python int: no overflow
    if level.size and _direct(space, level.size):
        # the pairs numbered token * levels + level in a small space: the
        # codes' sorted distinct values without sorting them
        dense, columns = distinct_sorted(token_ids[entry] * levels + level, space)
        codes = ((dense // levels) << LEVEL_BITS) | (dense % levels)
    else:
        codes, columns = np.unique((token_ids[entry] << LEVEL_BITS) | level, return_inverse=True)
    rows = np.concatenate([[0], ends])[np.asarray(indptr, dtype=np.int64)]
    F = sp.csr_matrix(
        (np.ones(columns.size), columns.ravel().astype(np.int64), rows),
        shape=(len(rows) - 1, max(codes.size, 1)),
    )
    return F, codes


def recode(codes, token_map):
    """``codes`` with their token ids replaced by ``token_map[id]``."""
    low = codes & MAX_COUNT
    return (token_map[codes >> LEVEL_BITS] << LEVEL_BITS) | low


def aligned(F, codes, G, other_codes):
    """The indicator matrices ``F`` and ``G`` over one column space: the
    columns of ``G`` (codes ``other_codes``, in the token ids of ``F``)
    moved to the columns of ``F`` with the same code, the others numbered
    after them in order."""
    import scipy.sparse as sp

    n = max(codes.size, 1)
    at = np.searchsorted(codes, other_codes)
    found = at < codes.size
    found[found] = codes[at[found]] == other_codes[found]
    new = ~found
    column = np.where(found, at, n + np.cumsum(new) - 1)
    width = n + int(new.sum())
    G = sp.csr_matrix((G.data, column[G.indices], G.indptr), shape=(G.shape[0], width))
    if width != F.shape[1]:
        F = sp.csr_matrix((F.data, F.indices, F.indptr), shape=(F.shape[0], width))
    return F, G


def distinct_sorted(values, space):
    """``np.unique(values, return_inverse=True)`` of non-negative integers
    below ``space``: by marking the values present when the space is small
    (at most ``_tuning.SPARSE_DIRECT_SPACE`` or twice the values; the same
    arrays, in O(n + space) instead of a sort), else by ``np.unique``."""
    values = np.asarray(values)
    if not _direct(space, values.size):
        distinct, inverse = np.unique(values, return_inverse=True)
        return distinct, inverse.ravel()
    present = np.zeros(space, dtype=bool)
    present[values] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[values]


def _direct(space, size):
    """Whether ``size`` integers below ``space`` are numbered by marking
    (:func:`distinct_sorted`) rather than sorted."""
    return space <= max(_tuning.SPARSE_DIRECT_SPACE, 2 * size)
