"""k-mer ids, counts, mismatch neighbourhoods and gappy pairs (numba).

Sequences arrive as flat ``uint8`` codes plus ``int64`` offsets; a code
``>= A`` (the alphabet size) marks an unknown symbol, which no k-mer may
contain.
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@numba.njit(cache=True, nogil=True)
def _power(A, e):
    out = 1
    for _ in range(e):
        out *= A
    return out


@numba.njit(cache=True, nogil=True)
def _rolling_kmers(codes, start, length, k, A, out, starts, t, compact):
    """The base-``A`` index of each k-mer free of unknown symbols in
    ``codes[start:start + length]``, by a rolling hash: with ``compact``
    written to ``out[t], out[t + 1], ...`` in order of position (and, when
    ``starts`` is not empty, its position in the sequence to ``starts[t]``;
    returns the next ``t``), else to ``out[p]`` for the k-mer starting at
    ``p`` (the other entries are left as they are)."""
    top = _power(A, k - 1)  # the weight of the leading symbol
    keep = starts.shape[0] > 0
    run = 0
    value = 0
    for p in range(length):
        c = codes[start + p]
        if c >= A:
            run = 0
            value = 0
            continue
        value = (value % top) * A + c
        run += 1
        if run >= k:
            if compact:
                out[t] = value
                if keep:
                    starts[t] = p - k + 1
                t += 1
            else:
                out[p - k + 1] = value
    return t


@numba.njit(cache=True, nogil=True)
def kmer_ids(codes, offsets, k, A, positions):
    """Base-``A`` index of every k-mer free of unknown symbols, row by row.

    Returns ``(ids, starts, ptr)``: the k-mers of sequence ``i`` are
    ``ids[ptr[i]:ptr[i + 1]]``, in order of position; with ``positions``
    ``starts`` holds the position of each in its sequence (else it is
    empty).
    """
    n = offsets.shape[0] - 1
    cap = 0
    for i in range(n):
        cap += max(0, offsets[i + 1] - offsets[i] - k + 1)
    ids = np.empty(cap, dtype=np.int64)
    starts = np.empty(cap if positions else 0, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        ptr[i + 1] = _rolling_kmers(
            codes, offsets[i], offsets[i + 1] - offsets[i], k, A, ids, starts, ptr[i], True
        )
    return ids[: ptr[n]], starts[: ptr[n] if positions else 0], ptr


@numba.njit(cache=True, nogil=True)
def kmer_chunks(codes, offsets, k, A, c):
    """Every k-mer free of unknown symbols as ``ceil(k / c)`` base-``A`` integers.

    For k-mer spaces beyond int64: chunk ``j`` holds symbols ``j c ..
    min((j + 1) c, k) - 1`` of the k-mer (``A ** c`` must fit in int64).
    Returns ``(chunks, ptr)`` with one row per k-mer, rows of sequence ``i``
    at ``ptr[i]:ptr[i + 1]``.
    """
    n = offsets.shape[0] - 1
    n_chunks = (k + c - 1) // c
    cap = 0
    for i in range(n):
        cap += max(0, offsets[i + 1] - offsets[i] - k + 1)
    out = np.empty((cap, n_chunks), dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    t = 0
    for i in range(n):
        run = 0
        for p in range(offsets[i], offsets[i + 1]):
            if codes[p] >= A:
                run = 0
                continue
            run += 1
            if run >= k:
                start = p - k + 1
                for j in range(n_chunks):
                    value = 0
                    for q in range(start + j * c, min(start + (j + 1) * c, start + k)):
                        value = value * A + codes[q]
                    out[t, j] = value
                t += 1
        ptr[i + 1] = t
    return out[:t], ptr


@numba.njit(cache=True, nogil=True)
def _count_sorted(buf, m, indices, data, t, presence):
    """Run-length count the sorted ``buf[:m]`` into ``indices/data`` from ``t``."""
    j = 0
    while j < m:
        v = buf[j]
        e = j + 1
        while e < m and buf[e] == v:
            e += 1
        indices[t] = v
        data[t] = 1.0 if presence else e - j
        t += 1
        j = e
    return t


@numba.njit(cache=True, nogil=True)
def count_rows(ids, ptr, presence, space, direct):
    """CSR count matrix from per-row k-mer ids.

    Returns ``(indptr, indices, data)``; with ``presence`` every stored
    value is 1. With ``direct`` (for ``space`` small enough to hold one
    counter per k-mer) counts go through a counter array and columns come
    out in order of first occurrence; otherwise each row is sorted and
    columns come out sorted.
    """
    n = ptr.shape[0] - 1
    indices = np.empty(ids.shape[0], dtype=np.int64)
    data = np.empty(ids.shape[0], dtype=np.float64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    t = 0
    if direct:
        counter = np.zeros(space, dtype=np.int32)
        for i in range(n):
            start = t
            for p in range(ptr[i], ptr[i + 1]):
                v = ids[p]
                if counter[v] == 0:
                    indices[t] = v
                    t += 1
                counter[v] += 1
            for q in range(start, t):
                v = indices[q]
                data[q] = 1.0 if presence else counter[v]
                counter[v] = 0
            indptr[i + 1] = t
    else:
        for i in range(n):
            row = np.sort(ids[ptr[i] : ptr[i + 1]])
            t = _count_sorted(row, row.shape[0], indices, data, t, presence)
            indptr[i + 1] = t
    return indptr, indices[:t], data[:t]


@numba.njit(cache=True, nogil=True)
def _emit_neighbours(kid, k, A, m, powers, pos_idx, digits, subst, out, t):
    """Write every k-mer within Hamming distance ``m`` of ``kid`` into ``out[t:]``."""
    out[t] = kid
    t += 1
    for i in range(1, m + 1):
        for j in range(i):
            pos_idx[j] = j
        while True:  # over the sets of i positions, in lexicographic order
            for j in range(i):
                digits[j] = (kid // powers[pos_idx[j]]) % A
                subst[j] = 1
            while True:  # over the (A - 1) ** i substitutions at those positions
                value = kid
                for j in range(i):
                    value += ((digits[j] + subst[j]) % A - digits[j]) * powers[pos_idx[j]]
                out[t] = value
                t += 1
                j = 0
                while j < i:
                    subst[j] += 1
                    if subst[j] < A:
                        break
                    subst[j] = 1
                    j += 1
                if j == i:
                    break
            j = i - 1
            while j >= 0 and pos_idx[j] == k - i + j:
                j -= 1
            if j < 0:
                break
            pos_idx[j] += 1
            for q in range(j + 1, i):
                pos_idx[q] = pos_idx[q - 1] + 1
    return t


@numba.njit(cache=True, nogil=True)
def _powers(k, A):
    powers = np.empty(k, dtype=np.int64)
    powers[0] = 1
    for j in range(1, k):
        powers[j] = powers[j - 1] * A
    return powers


@numba.njit(cache=True, nogil=True)
def mismatch_neighbours(ids, k, A, m, size):
    """Row ``j``: the ``size`` k-mers within Hamming distance ``m`` of
    ``ids[j]`` (itself first), ``size`` their number."""
    powers = _powers(k, A)
    out = np.empty((ids.shape[0], size), dtype=np.int64)
    pos_idx = np.empty(max(m, 1), dtype=np.int64)
    digits = np.empty(max(m, 1), dtype=np.int64)
    subst = np.empty(max(m, 1), dtype=np.int64)
    flat = out.reshape(-1)
    for j in range(ids.shape[0]):
        _emit_neighbours(ids[j], k, A, m, powers, pos_idx, digits, subst, flat, j * size)
    return out


@numba.njit(cache=True, nogil=True)
def mismatch_rows(ids, ptr, k, A, m, size, space):
    """CSR matrix of the (k, m)-mismatch features.

    Feature ``b`` of a sequence counts its k-mers within Hamming distance
    ``m`` of ``b`` (``size`` of them per k-mer, :func:`_emit_neighbours`).
    ``space = A ** k`` bounds the distinct columns of a row. Returns
    ``(indptr, indices, data)`` with sorted columns.
    """
    n = ptr.shape[0] - 1
    powers = _powers(k, A)
    cap = 0
    longest = 0
    for i in range(n):
        nk = ptr[i + 1] - ptr[i]
        cap += min(nk * size, space)
        longest = max(longest, nk)
    buf = np.empty(longest * size, dtype=np.int64)
    indices = np.empty(cap, dtype=np.int64)
    data = np.empty(cap, dtype=np.float64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    pos_idx = np.empty(max(m, 1), dtype=np.int64)
    digits = np.empty(max(m, 1), dtype=np.int64)
    subst = np.empty(max(m, 1), dtype=np.int64)
    t = 0
    for i in range(n):
        b = 0
        for p in range(ptr[i], ptr[i + 1]):
            b = _emit_neighbours(ids[p], k, A, m, powers, pos_idx, digits, subst, buf, b)
        buf[:b].sort()
        t = _count_sorted(buf, b, indices, data, t, False)
        indptr[i + 1] = t
    return indptr, indices[:t].copy(), data[:t].copy()  # release the bound-sized arrays


@numba.njit(cache=True, nogil=True)
def gappy_ids(codes, offsets, k, m, A, positions):
    """Feature index of every gappy pair free of unknown symbols, row by row.

    The pair of k-mers ``u`` at position ``p`` and ``v`` at ``p + k + g``
    (``0 <= g <= m``) is feature ``g A^(2k) + index(u) A^k + index(v)``
    (``index`` the base-``A`` k-mer number, leading symbol most significant).
    Returns ``(ids, starts, ptr)``: the pairs of sequence ``i`` are
    ``ids[ptr[i]:ptr[i + 1]]``; with ``positions`` ``starts`` holds the
    position ``p`` of each (else it is empty).
    """
    n = offsets.shape[0] - 1
    block = _power(A, k)
    plane = block * block  # A ** (2k)
    cap = 0
    longest = 0
    for i in range(n):
        length = offsets[i + 1] - offsets[i]
        longest = max(longest, length)
        for g in range(m + 1):
            cap += max(0, length - 2 * k - g + 1)
    ids = np.empty(cap, dtype=np.int64)
    starts = np.empty(cap if positions else 0, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    kid = np.empty(longest, dtype=np.int64)  # k-mer starting at p, or -1
    unused = np.empty(0, dtype=np.int64)
    t = 0
    for i in range(n):
        length = offsets[i + 1] - offsets[i]
        for p in range(length):
            kid[p] = -1
        _rolling_kmers(codes, offsets[i], length, k, A, kid, unused, 0, False)
        for p in range(length - 2 * k + 1):
            u = kid[p]
            if u < 0:
                continue
            for g in range(m + 1):
                q = p + k + g
                if q + k > length:
                    break
                v = kid[q]
                if v >= 0:
                    ids[t] = g * plane + u * block + v
                    if positions:
                        starts[t] = p
                    t += 1
        ptr[i + 1] = t
    return ids[:t], starts[: t if positions else 0], ptr
