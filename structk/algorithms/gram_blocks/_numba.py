"""The copy of a block of a Gram matrix (numba)."""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@numba.njit(cache=True, nogil=True)
def take_block(K, rows, cols, out):
    """``out[:] = K[np.ix_(rows, cols)]``, a row at a time.

    Faster than NumPy's fancy indexing for the large blocks of a Gram
    matrix that cross-validation and one-vs-one machines copy, and it
    releases the GIL.
    """
    for i in range(rows.shape[0]):
        src = K[rows[i]]
        dst = out[i]
        for j in range(cols.shape[0]):
            dst[j] = src[cols[j]]


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def mirror_scan(K, s, tile, lo, hi, out):
    """Mirror the upper triangle of the rows ``lo:hi`` of ``K`` onto the
    lower one, tile by tile, and scan what it copies.

    For every entry ``K[i, j]`` with ``lo <= i < hi`` and ``j > i``:
    ``K[j, i] = K[i, j]``. Writes ``out[0]`` = 1 when every entry read (and
    ``K[i, i]``) is finite, ``out[1]`` = the largest ``|K_ij| - s_i s_j``
    (the Cauchy-Schwarz excess; ``s`` holds ``sqrt(max(K_ii, 0))``) and
    ``out[2]`` = the sum of ``K_ij^2`` over those entries. Rows ``lo:hi``
    start at a multiple of ``tile``; the sums follow the tiles only, so
    they do not depend on the thread that runs the call.
    """
    n = K.shape[0]
    finite = True
    excess = -np.inf
    total = 0.0
    for i in range(lo, hi):
        finite &= np.isfinite(K[i, i])
    for j0 in range(lo, n, tile):
        j1 = min(j0 + tile, n)
        for i in range(lo, hi):
            row = K[i]
            si = s[i]
            start = max(j0, i + 1)
            acc = 0.0
            worst = -np.inf
            ok = True
            for j in range(start, j1):
                v = row[j]
                K[j, i] = v
                ok &= np.isfinite(v)
                worst = max(worst, abs(v) - si * s[j])
                acc += v * v
            finite &= ok
            excess = max(excess, worst)
            total += acc
    out[0] = 1.0 if finite else 0.0
    out[1] = excess
    out[2] = total


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "arcp"})
def mirror_rows_scan(K, s, lo, hi, tile, out):
    """:func:`mirror_scan` for a block of a few rows ``lo:hi`` just written
    (still in cache): scan them row by row, then copy them onto the lower
    triangle in ``tile`` x ``tile`` squares.

    The same ``out`` as :func:`mirror_scan`, its sums taken row by row. A
    row's finiteness is read from its sum of squares (an infinite or NaN
    entry makes it infinite or NaN) and checked entry by entry only when
    that sum is not finite, so the scan's inner loop is three vectorised
    operations.
    """
    n = K.shape[0]
    finite = True
    excess = -np.inf
    total = 0.0
    for i in range(lo, hi):
        row = K[i]
        si = s[i]
        worst = -np.inf
        acc = 0.0
        for j in range(i + 1, n):
            v = row[j]
            worst = max(worst, abs(v) - si * s[j])
            acc += v * v
        if not (np.isfinite(acc) and np.isfinite(row[i])):
            for j in range(i, n):
                finite &= np.isfinite(row[j])
        excess = max(excess, worst)
        total += acc
    for j0 in range(lo + 1, n, tile):
        j1 = min(j0 + tile, n)
        for i0 in range(lo, hi, tile):
            i1 = min(i0 + tile, hi)
            for j in range(j0, j1):
                dst = K[j]
                for i in range(i0, min(i1, j)):
                    dst[i] = K[i, j]
    out[0] = 1.0 if finite else 0.0
    out[1] = excess
    out[2] = total


@numba.njit(cache=True, nogil=True)
def neg_scaled_sq_dist(G, p2, a, c):
    """Turn the inner products ``G = Pc[a:a+h] @ Pc[a:].T`` of centred rows
    into ``c * max(0, |x|^2 + |y|^2 - 2 <x, y>)``, in place, with ``0`` for
    each row's own pair (``G[i, i]``): the arithmetic of
    ``structk.kernels.vectors._expanded`` and the Gaussian's scaling in
    the same order (no fused multiply-add), so the same values, in one pass
    instead of six."""
    h, w = G.shape
    q = p2[a : a + w]
    for i in range(h):
        pi = p2[a + i]
        row = G[i]
        for j in range(w):
            row[j] = max(row[j] * -2.0 + pi + q[j], 0.0) * c
        row[i] = 0.0 * c
