"""Jitted loops of the string kernels: k-mer encoding, counting, mismatch
neighbourhoods, weighted-degree matches (with shifts), gappy pairs.

Sequences arrive as flat ``uint8`` codes plus ``int64`` offsets; a code
``>= A`` (the alphabet size) marks an unknown symbol, which no k-mer may
contain.
"""

import numba
import numpy as np
from numba.core import types
from numba.extending import intrinsic


@numba.njit(cache=True, nogil=True)
def _power(A, e):
    out = 1
    for _ in range(e):
        out *= A
    return out


@numba.njit(cache=True, nogil=True)
def _rolling_kmers(codes, start, length, k, A, out, t, compact):
    """The base-``A`` index of each k-mer free of unknown symbols in
    ``codes[start:start + length]``, by a rolling hash: with ``compact``
    written to ``out[t], out[t + 1], ...`` in order of position (returns
    the next ``t``), else to ``out[p]`` for the k-mer starting at ``p``
    (the other entries are left as they are)."""
    top = _power(A, k - 1)  # the weight of the leading symbol
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
                t += 1
            else:
                out[p - k + 1] = value
    return t


@numba.njit(cache=True, nogil=True)
def kmer_ids(codes, offsets, k, A):
    """Base-``A`` index of every k-mer free of unknown symbols, row by row.

    Returns ``(ids, ptr)``: the k-mers of sequence ``i`` are
    ``ids[ptr[i]:ptr[i + 1]]``, in order of position.
    """
    n = offsets.shape[0] - 1
    cap = 0
    for i in range(n):
        cap += max(0, offsets[i + 1] - offsets[i] - k + 1)
    ids = np.empty(cap, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        ptr[i + 1] = _rolling_kmers(codes, offsets[i], offsets[i + 1] - offsets[i], k, A,
                                    ids, ptr[i], True)
    return ids[:ptr[n]], ptr


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
            row = np.sort(ids[ptr[i]:ptr[i + 1]])
            t = _count_sorted(row, row.shape[0], indices, data, t, presence)
            indptr[i + 1] = t
    return indptr, indices[:t], data[:t]


@numba.njit(cache=True, nogil=True)
def neighbourhood_size(k, A, m):
    """``sum_{i <= m} C(k, i) (A - 1) ** i``: k-mers within Hamming distance m."""
    total = 0
    binom = 1
    power = 1
    for i in range(m + 1):
        total += binom * power
        binom = binom * (k - i) // (i + 1)
        power *= A - 1
    return total


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
def mismatch_rows(ids, ptr, k, A, m, space):
    """CSR matrix of the (k, m)-mismatch features.

    Feature ``b`` of a sequence counts its k-mers within Hamming distance
    ``m`` of ``b``. ``space = A ** k`` bounds the distinct columns of a row.
    Returns ``(indptr, indices, data)`` with sorted columns.
    """
    n = ptr.shape[0] - 1
    size = neighbourhood_size(k, A, m)
    powers = np.empty(k, dtype=np.int64)
    powers[0] = 1
    for j in range(1, k):
        powers[j] = powers[j - 1] * A
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


# ----------------------------------------------------------- weighted degree
#
# Bit-parallel: each sequence is held as bit planes (bit p of plane j is bit
# j of the code at position p; a last plane marks the known symbols), so the
# positions where two sequences match are a few word operations per 64
# positions. A run of at least k matches ends at p exactly when bit p of
# M_k = M_{k-1} & (M_{k-1} << 1) is set (M_1 the match mask), and the kernel
# along one diagonal is sum_k beta_k popcount(M_k).

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a ``uint64`` (LLVM's ``ctpop``: one instruction
    where the CPU has it)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@numba.njit(cache=True)
def _runs(x, beta):
    """``sum_k beta[k - 1] popcount(M_k)`` for one word of matches ``x = M_1``."""
    total = 0.0
    for k in range(beta.shape[0]):
        if x == _ZERO:
            break
        total += beta[k] * np.float64(_popcount(x))
        x &= x << _ONE
    return total


def wd_weights(d):
    """``beta_k = 2 (d - k + 1) / (d (d + 1))`` for ``k = 1 .. d``."""
    k = np.arange(1, d + 1, dtype=np.float64)
    return 2.0 * (d - k + 1.0) / (d * (d + 1.0))


@numba.njit(cache=True, nogil=True)
def wd_planes(S, A):
    """Bit planes of the rows of ``S`` (n, L) of codes and the words per
    plane: ``(F, W)`` with ``F`` of shape ``(n, (nbits + 1) W)`` ``uint64``,
    ``W = max(1, ceil(L / 64))``; plane ``j < nbits`` (words
    ``j W .. j W + W - 1``) holds bit ``j`` of every code, plane ``nbits``
    marks the known symbols (codes ``< A``)."""
    n, L = S.shape
    nbits = 1
    while (1 << nbits) < A:
        nbits += 1
    W = max(1, (L + 63) // 64)
    out = np.zeros((n, (nbits + 1) * W), dtype=np.uint64)
    for i in range(n):
        for p in range(L):
            c = np.int64(S[i, p])
            if c >= A:
                continue
            w = p >> 6
            bit = _ONE << np.uint64(p & 63)
            out[i, nbits * W + w] |= bit
            for j in range(nbits):
                if (c >> j) & 1:
                    out[i, j * W + w] |= bit
    return out, W


@numba.njit(cache=True)
def _word(F, a, base, W, w, q, r):
    """Word ``w`` of the plane at ``F[a, base:base + W]`` shifted down by
    ``64 q + r`` bits."""
    lo = F[a, base + w + q] if w + q < W else _ZERO
    if r == 0:
        return lo
    hi = F[a, base + w + q + 1] if w + q + 1 < W else _ZERO
    return (lo >> np.uint64(r)) | (hi << np.uint64(64 - r))


@numba.njit(cache=True)
def _match_word(FA, a, FB, b, W, w, q, r):
    """Word ``w`` of the positions ``p`` where ``x_a[p + 64 q + r]`` and
    ``y_b[p]`` hold the same known symbol."""
    known = FA.shape[1] // W - 1
    x = _word(FA, a, known * W, W, w, q, r) & FB[b, known * W + w]
    for j in range(known):
        x &= ~(_word(FA, a, j * W, W, w, q, r) ^ FB[b, j * W + w])
    return x


@numba.njit(cache=True)
def _wd_diagonal(FA, a, FB, b, W, s, beta, m):
    """``sum_k beta_k #{p : x_a[p+s-k+1 .. p+s] = y_b[p-k+1 .. p]}`` over
    known symbols, for sequences of several words (:func:`_wd_row_word`
    does single words inline); ``m`` is scratch of ``W`` words."""
    q = s >> 6
    r = s & 63
    count = _ZERO
    for w in range(W):
        x = _match_word(FA, a, FB, b, W, w, q, r)
        m[w] = x
        count += _popcount(x)
    total = beta[0] * np.float64(count)
    for k in range(1, beta.shape[0]):
        if count == _ZERO:
            break
        count = _ZERO
        carry = _ZERO
        for w in range(W):
            x = m[w]
            y = x & ((x << _ONE) | carry)
            carry = x >> np.uint64(63)
            m[w] = y
            count += _popcount(y)
        total += beta[k] * np.float64(count)
    return total


@numba.njit(cache=True, nogil=True)
def _wd_row_word(FA, i, FB, lo, hi, W, beta, shift, m, out):
    """``out[j - lo] = k(x_i, y_j)`` for ``j`` in ``lo .. hi - 1``, for
    sequences of at most 64 symbols (one word a plane; ``W`` and the
    scratch ``m`` are unused): the plain kernel along the aligned diagonal,
    plus for every shift ``s <= shift`` the k-mers of ``x`` at ``l + s``
    against those of ``y`` at ``l`` and vice versa, weighted
    ``1 / (2 (s + 1))``.

    One diagonal at a time over all partners: measured 3x faster than all
    diagonals of a pair in one call.
    """
    for j in range(lo, hi):
        out[j - lo] = _runs(_match_word(FA, i, FB, j, 1, 0, 0, 0), beta)
    for s in range(1, shift + 1):  # s < 64: one word shifted by s
        delta = 1.0 / (2.0 * (s + 1))
        for j in range(lo, hi):
            out[j - lo] += delta * (_runs(_match_word(FA, i, FB, j, 1, 0, 0, s), beta)
                                    + _runs(_match_word(FB, j, FA, i, 1, 0, 0, s), beta))


@numba.njit(cache=True, nogil=True)
def _wd_row_words(FA, i, FB, lo, hi, W, beta, shift, m, out):
    """:func:`_wd_row_word` for sequences of any length (``W`` words a
    plane, ``m`` scratch of ``W`` words)."""
    for j in range(lo, hi):
        out[j - lo] = _wd_diagonal(FA, i, FB, j, W, 0, beta, m)
    for s in range(1, shift + 1):
        delta = 1.0 / (2.0 * (s + 1))
        for j in range(lo, hi):
            out[j - lo] += delta * (_wd_diagonal(FA, i, FB, j, W, s, beta, m)
                                    + _wd_diagonal(FB, j, FA, i, W, s, beta, m))


@numba.njit(cache=True)
def _span(i, n, part):
    """Partners ``lo .. hi - 1`` of row ``i`` and where they start in the
    output row: the upper triangle and diagonal of a Gram (``part`` 0), a
    whole cross-Gram row (1), the diagonal entry alone (2)."""
    if part == 0:
        return i, n, i
    if part == 1:
        return 0, n, 0
    return i, i + 1, 0


# One entry point per row function, rather than one row function choosing
# by W: a call compiles only the path it takes, so an empty cache compiles
# the general path (~1 s: a first Gram 2.6 -> 1.6 s) only for sequences of
# more than 64 symbols. Pick one with wd_function(W).


@numba.njit(cache=True, nogil=True)
def _wd_block_word(FA, FB, W, beta, shift, part, out):
    m = np.empty(W, dtype=np.uint64)
    for i in range(FA.shape[0]):
        lo, hi, at = _span(i, FB.shape[0], part)
        _wd_row_word(FA, i, FB, lo, hi, W, beta, shift, m, out[i, at:at + hi - lo])


@numba.njit(cache=True, nogil=True)
def _wd_block_words(FA, FB, W, beta, shift, part, out):
    m = np.empty(W, dtype=np.uint64)
    for i in range(FA.shape[0]):
        lo, hi, at = _span(i, FB.shape[0], part)
        _wd_row_words(FA, i, FB, lo, hi, W, beta, shift, m, out[i, at:at + hi - lo])


def wd_function(W):
    """The weighted-degree entry point for bit planes of ``W`` words
    (:func:`wd_planes`): ``f(FA, FB, W, beta, shift, part, out)`` writes
    ``k(x_i, y_j)`` for the sequences of planes ``FA`` against those of
    ``FB`` into ``out``, with ``beta`` from :func:`wd_weights`:

    * ``part=0``: the upper triangle and diagonal of the Gram (``FB`` is
      ``FA``, ``out`` of shape (n, n));
    * ``part=1``: the whole cross-Gram, ``out`` of shape (n, m);
    * ``part=2``: ``k(x_i, x_i)`` into ``out[i, 0]`` (``FB`` is ``FA``).

    The caller allocates ``out``: an array numba allocates is not marked as
    owning its data, so the kernel interface would copy it before mirroring.
    Serial: ``parallel=True`` over rows measured no faster on 2 cores
    (benchmarks/bench_strings.py).
    """
    return _wd_block_word if W == 1 else _wd_block_words


@numba.njit(cache=True, nogil=True)
def gappy_ids(codes, offsets, k, m, A):
    """Feature index of every gappy pair free of unknown symbols, row by row.

    The pair of k-mers ``u`` at position ``p`` and ``v`` at ``p + k + g``
    (``0 <= g <= m``) is feature ``g A^(2k) + index(u) A^k + index(v)``
    (``index`` the base-``A`` k-mer number, leading symbol most significant).
    Returns ``(ids, ptr)``: the pairs of sequence ``i`` are
    ``ids[ptr[i]:ptr[i + 1]]``.
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
    ptr = np.zeros(n + 1, dtype=np.int64)
    kid = np.empty(longest, dtype=np.int64)  # k-mer starting at p, or -1
    t = 0
    for i in range(n):
        length = offsets[i + 1] - offsets[i]
        for p in range(length):
            kid[p] = -1
        _rolling_kmers(codes, offsets[i], length, k, A, kid, 0, False)
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
                    t += 1
        ptr[i + 1] = t
    return ids[:t], ptr
