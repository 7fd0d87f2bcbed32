"""k-mers of sequences: where they occur, their counts, their mismatch
neighbourhoods and the gappy pairs; the forms and the rules that pick one.

=======================  ====================================================
module                   what
=======================  ====================================================
:mod:`._numpy`           ids (with positions), counts and the mismatch
                         features of small batches by whole-array
                         operations (NumPy)
:mod:`._numba`           the same, and the mismatch neighbourhoods, the
                         gappy pairs and the k-mer chunks beyond int64
                         (numba)
=======================  ====================================================

These functions are the feature maps of :class:`~structk.kernels.Spectrum`,
:class:`~structk.kernels.Mismatch` and :class:`~structk.kernels.GappyPair`:
the kernels count what they return, and :mod:`structk.explain` places the
same occurrences on the positions of a sequence (``positions=True``).

:func:`kmer_occurrences` and :func:`count_kmers` use NumPy for batches of at
most ``_tuning.KMERS_NUMPY_MAX_SYMBOLS`` symbols (k-mers), which needs
nothing compiled and, for a data set of a few hundred sequences, costs less
than loading the compiled loops into a fresh process; larger batches go to
the compiled loops, and so do the blocks of a tiled Gram
(:func:`structk._threads.in_tile`), which repeat the work tile after tile.
Both forms give the same ids and counts (NumPy's columns
sorted within each row, the compiled ones in order of first occurrence when
counted through a counter array), so the Gram matrices do not depend on the
path. Importing this folder loads no numba.

Sequences arrive as flat codes plus ``int64`` offsets; a code ``>= A`` (the
alphabet size) marks an unknown symbol, which no k-mer may contain. k-mer
``s_1 .. s_k`` has the base-``A`` index ``sum_j s_j A^(k - j)`` (leading
symbol most significant).
"""

from __future__ import annotations

import math

import numpy as np

from ... import _memory, _threads, _tuning, defaults
from . import _numpy

#: Largest k-mer index space (A ** k) held in int64 column indices.
MAX_SPACE = 2**62


def kmer_occurrences(codes, offsets, k, A, positions=False):
    """Every k-mer free of unknown symbols, row by row, in order of position.

    Returns
    -------
    ids : ndarray of int64
        The base-``A`` index of each k-mer; those of sequence ``i`` are
        ``ids[ptr[i]:ptr[i + 1]]``.
    starts : ndarray of int64
        With ``positions``: the position of each k-mer's first symbol in its
        sequence (0-based); else empty.
    ptr : ndarray of int64, shape (n + 1,)
    """
    if codes.shape[0] <= _tuning.KMERS_NUMPY_MAX_SYMBOLS and not _threads.tiled():
        return _numpy.kmer_ids(codes, offsets, k, A, positions)
    from ._numba import kmer_ids as compiled

    return _threads.compiled_call(compiled, codes, offsets, k, A, positions)


def count_kmers(ids, ptr, presence, space, jitted=False):
    """CSR ``(indptr, indices, data)`` counting each row's ids in ``range(space)``
    (with ``presence`` every stored value is 1).

    ``jitted``: the caller runs compiled code anyway (so loading the compiled
    count costs little); use it at every size. The compiled count goes
    through one counter per possible id when ``space`` is at most
    ``_tuning.KMER_COUNTER_SPACE`` or the number of ids, else sorts each row.
    """
    if ids.shape[0] <= _tuning.KMERS_NUMPY_MAX_SYMBOLS and not (jitted or _threads.tiled()):
        return _numpy.count_rows(ids, ptr, presence)
    from ._numba import count_rows

    direct = space <= max(_tuning.KMER_COUNTER_SPACE, ids.shape[0])
    return _threads.compiled_call(count_rows, ids, ptr, presence, space, direct)


def present_kmer_ids(codes, offsets, k, A):
    """The k-mers numbered by their order among the k-mers present, for
    spaces of ``A ** k`` beyond int64: ``(ids, ptr, space)`` as
    :func:`kmer_occurrences` (``space`` the number of distinct k-mers, at
    least 1). Each k-mer is read as ``ceil(k / c)`` base-``A`` integers of
    ``c`` symbols (``A ** c`` within int64) and the rows numbered by
    ``np.unique``."""
    from ._numba import kmer_chunks

    n = offsets.shape[0] - 1
    lengths = np.diff(offsets)
    if n == 0 or int(lengths.max()) < k:  # no k-mer anywhere
        return np.zeros(0, np.int64), np.zeros(n + 1, np.int64), 1
    c = 1
    while A ** (c + 1) <= MAX_SPACE:
        c += 1
    chunks, ptr = _threads.compiled_call(kmer_chunks, codes, offsets, k, A, c)
    if chunks.shape[0] == 0:
        return np.zeros(0, np.int64), ptr, 1
    _, ids = np.unique(chunks, axis=0, return_inverse=True)
    ids = np.ascontiguousarray(ids.ravel(), dtype=np.int64)
    return ids, ptr, int(ids.max()) + 1


# ---------------------------------------------------------------- mismatch
def neighbourhood_size(k, A, m):
    """``sum_{i <= m} C(k, i) (A - 1) ** i``: the k-mers within Hamming
    distance ``m`` of one k-mer, itself included."""
    return sum(math.comb(k, i) * (A - 1) ** i for i in range(m + 1))


def mismatch_neighbours(ids, k, A, m):
    """Row ``j``: the :func:`neighbourhood_size` k-mers within Hamming
    distance ``m`` of ``ids[j]`` (itself first); the occurrences of the
    mismatch kernel's features at a k-mer (compiled)."""
    from ._numba import mismatch_neighbours as compiled

    ids = np.ascontiguousarray(ids, dtype=np.int64)
    size = neighbourhood_size(k, A, m)
    return _threads.compiled_call(compiled, ids, int(k), int(A), int(m), size)


def mismatch_features(ids, ptr, k, A, m):
    """CSR ``(indptr, indices, data)`` of the (k, m)-mismatch features of
    the k-mers ``(ids, ptr)`` (:func:`kmer_occurrences`): feature ``b`` of a
    row counts its k-mers within Hamming distance ``m`` of ``b``; sorted
    columns.

    Rows in chunks of about ``_tuning.MISMATCH_CHUNK_NEIGHBOURS`` neighbours,
    so that a Ctrl-C is answered between them (the rows do not depend on
    each other). At most ``_tuning.MISMATCH_NUMPY_MAX_NEIGHBOURS``
    neighbours in all are counted in NumPy (the same arrays, nothing
    compiled)."""
    size = neighbourhood_size(k, A, m)
    if ids.shape[0] * size <= _tuning.MISMATCH_NUMPY_MAX_NEIGHBOURS and not _threads.tiled():
        return _numpy.mismatch_rows(ids, ptr, k, A, m)
    from ._numba import mismatch_rows

    bounds = _threads.cost_bounds(np.diff(ptr) * float(size), 1, _tuning.MISMATCH_CHUNK_NEIGHBOURS)
    return _threads.join_row_parts(
        [
            _threads.compiled_call(
                mismatch_rows,
                ids[ptr[lo] : ptr[hi]],
                ptr[lo : hi + 1] - ptr[lo],
                k,
                A,
                m,
                size,
                A**k,
            )
            for lo, hi in zip(bounds[:-1], bounds[1:])
        ]
    )


def check_mismatch_memory(kmers_per_row, k, A, m, name):
    """Refuse, naming ``m`` and ``name`` (the kernel), an expansion of
    ``kmers_per_row`` k-mers (an upper bound) into their mismatch
    neighbourhoods that would not fit in memory
    (:func:`structk._memory.available_memory`, else
    ``defaults.MISMATCH_MEMORY_FALLBACK``)."""
    size = neighbourhood_size(k, A, m)
    counts = [int(c) for c in kmers_per_row]
    space = A**k
    need = 8 * max(counts, default=0) * size + 16 * sum(min(c * size, space) for c in counts)
    available = _memory.available_memory() or defaults.MISMATCH_MEMORY_FALLBACK
    if need > available:
        raise MemoryError(
            f"{name} would need {need / 2**30:.3g} GiB (available: "
            f"{available / 2**30:.3g} GiB): each of the {sum(counts)} k-mers is "
            f"expanded into its {size:.4g} neighbours within m={m} mismatches "
            f"(sum over i <= m of C(k, i) (A - 1)^i, A = {A}); lower m or k"
        )


# -------------------------------------------------------------- gappy pairs
def gappy_pair_occurrences(codes, offsets, k, m, A, positions=False):
    """Every gappy pair free of unknown symbols, row by row (compiled).

    The pair of k-mers ``u`` at position ``p`` and ``v`` at ``p + k + g``
    (``0 <= g <= m``; the ``g`` symbols between them may be anything) is
    feature ``g A^(2k) + index(u) A^k + index(v)`` (:func:`gappy_pair_parts`
    splits it). Returns ``(ids, starts, ptr)`` as :func:`kmer_occurrences`,
    ``starts`` the positions ``p`` with ``positions``.
    """
    from ._numba import gappy_ids

    return _threads.compiled_call(gappy_ids, codes, offsets, k, m, A, positions)


def gappy_pair_parts(ids, k, A):
    """``(g, u, v)``: the gap and the two k-mers' indices of gappy pair
    features ``ids`` (:func:`gappy_pair_occurrences`)."""
    g, rest = np.divmod(np.asarray(ids, dtype=np.int64), A ** (2 * k))
    u, v = np.divmod(rest, A**k)
    return g, u, v
