"""Weighted-degree matches (with shifts), bit-parallel (numba).

Sequences arrive as one ``uint8`` code array per row (equal lengths); a code
``>= A`` (the alphabet size) marks an unknown symbol, which matches nothing.
Used by :class:`structk.kernels.strings.WeightedDegree`; small batches
without shifts take the NumPy form :mod:`._numpy` (the same values).
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice
from ..popcount._numba import popcount as _popcount

# Bit-parallel: each sequence is held as bit planes (bit p of plane j is bit
# j of the code at position p; a last plane marks the known symbols), so the
# positions where two sequences match are a few word operations per 64
# positions. A run of at least k matches ends at p exactly when bit p of
# M_k = M_{k-1} & (M_{k-1} << 1) is set (M_1 the match mask), and the kernel
# along one diagonal is sum_k beta_k popcount(M_k).

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


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

    One diagonal at a time over all partners: faster than all diagonals of
    a pair in one call (benchmarks/bench_sequence_kernels.py).
    """
    for j in range(lo, hi):
        out[j - lo] = _runs(_match_word(FA, i, FB, j, 1, 0, 0, 0), beta)
    for s in range(1, shift + 1):  # s < 64: one word shifted by s
        delta = 1.0 / (2.0 * (s + 1))
        for j in range(lo, hi):
            out[j - lo] += delta * (
                _runs(_match_word(FA, i, FB, j, 1, 0, 0, s), beta)
                + _runs(_match_word(FB, j, FA, i, 1, 0, 0, s), beta)
            )


@numba.njit(cache=True, nogil=True)
def _wd_row_words(FA, i, FB, lo, hi, W, beta, shift, m, out):
    """:func:`_wd_row_word` for sequences of any length (``W`` words a
    plane, ``m`` scratch of ``W`` words)."""
    for j in range(lo, hi):
        out[j - lo] = _wd_diagonal(FA, i, FB, j, W, 0, beta, m)
    for s in range(1, shift + 1):
        delta = 1.0 / (2.0 * (s + 1))
        for j in range(lo, hi):
            out[j - lo] += delta * (
                _wd_diagonal(FA, i, FB, j, W, s, beta, m)
                + _wd_diagonal(FB, j, FA, i, W, s, beta, m)
            )


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
# the general path only for sequences of more than 64 symbols. Pick one
# with wd_function(W).


@numba.njit(cache=True, nogil=True)
def _wd_block_word(FA, FB, W, beta, shift, part, out, i0, i1):
    m = np.empty(W, dtype=np.uint64)
    for i in range(i0, i1):
        lo, hi, at = _span(i, FB.shape[0], part)
        _wd_row_word(FA, i, FB, lo, hi, W, beta, shift, m, out[i, at : at + hi - lo])


@numba.njit(cache=True, nogil=True)
def _wd_block_words(FA, FB, W, beta, shift, part, out, i0, i1):
    m = np.empty(W, dtype=np.uint64)
    for i in range(i0, i1):
        lo, hi, at = _span(i, FB.shape[0], part)
        _wd_row_words(FA, i, FB, lo, hi, W, beta, shift, m, out[i, at : at + hi - lo])


def wd_function(W):
    """The weighted-degree entry point for bit planes of ``W`` words
    (:func:`wd_planes`): ``f(FA, FB, W, beta, shift, part, out, i0, i1)``
    writes ``k(x_i, y_j)`` for the sequences ``i0 <= i < i1`` of planes
    ``FA`` against those of ``FB`` into rows ``i`` of ``out``, with ``beta``
    from :func:`structk.algorithms.weighted_degree.wd_weights`:

    * ``part=0``: the upper triangle and diagonal of the Gram (``FB`` is
      ``FA``, ``out`` of shape (n, n));
    * ``part=1``: the whole cross-Gram, ``out`` of shape (n, m);
    * ``part=2``: ``k(x_i, x_i)`` into ``out[i, 0]`` (``FB`` is ``FA``).

    The caller allocates ``out``: an array numba allocates is not marked as
    owning its data, so the kernel interface would copy it before mirroring.
    Serial: ``parallel=True`` over rows was no faster on 2 cores
    (benchmarks/bench_sequence_kernels.py).
    """
    return _wd_block_word if W == 1 else _wd_block_words
