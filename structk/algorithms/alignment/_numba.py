"""Dynamic programmes of the alignment kernels (numba): the local alignment
(LA) kernel of Saigo et al. and the Smith-Waterman score.

Sequences arrive as flat ``uint8`` codes plus ``int64`` offsets (CSR style,
:class:`structk.sequences.EncodedSequences`); substitution scores as an
``A x A`` float64 table indexed by code.

The LA kernel (affine gaps, zero borders)::

    M(i, j)  = e^{beta S[x_i, y_j]} (1 + X(i-1, j-1) + Y(i-1, j-1) + M(i-1, j-1))
    X(i, j)  = e^{-beta o} M(i-1, j) + e^{-beta e} X(i-1, j)
    Y(i, j)  = e^{-beta o} (M(i, j-1) + X(i, j-1)) + e^{-beta e} Y(i, j-1)
    X2(i, j) = M(i-1, j) + X2(i-1, j)
    Y2(i, j) = M(i, j-1) + X2(i, j-1) + Y2(i, j-1)
    K        = 1 + X2(n, m) + Y2(n, m) + M(n, m)

Unrolling the last three lines, ``X2(i, j) = sum_{i' < i} M(i', j)`` and
``Y2(i, j) = sum_{j' < j, i' <= i} M(i', j')``, so ``K = 1 + sum_{i, j}
M(i, j)``: the loops keep a running sum of ``M`` instead of the ``X2, Y2``
tables (the same numbers, two states fewer per cell).

Every pair is first computed in plain float64, which is exact up to rounding
whenever nothing overflows: values only grow from the ``1`` that starts an
alignment, and a value below ``eps`` of that ``1`` is negligible in every sum
it enters. When ``K > e^709`` (``beta`` times the best score beyond about
709: a 250-residue protein against itself at ``beta = 0.5``), the pair is
computed again with every value scaled by ``e^-700`` (the ``1`` is stored as
``e^-700``, still a normal float64, and true values below ``e^-8`` lose
precision only far below ``eps`` of that ``1``), which holds ``K`` up to
``e^1409``. Beyond that the pair is computed in log space, cell by cell
(``logaddexp``), which cannot overflow; it is about 70 times slower but
only needed for long, similar sequences. A single scale per row would not
do: one row can hold a finished high-scoring alignment and the start of a
later, even better one more than ``e^709`` apart.
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice

NEG_INF = -np.inf
#: Scale of the second float64 pass: values are stored times ``e^-SHIFT``, so
#: ``K`` up to ``e^(709 + SHIFT)`` fits while the ``1`` starting an alignment
#: (stored as ``e^-SHIFT``) is still a normal float64.
SHIFT = 700.0


@numba.njit(cache=True, nogil=True)
def _la_linear(a, b, E, go, ge, c):
    """``log K(a, b)`` from float64 values scaled by ``e^-c`` (``inf`` or
    ``nan`` when they overflow).

    ``E = exp(beta S)``, ``go = exp(-beta gap_open)``, ``ge = exp(-beta gap_extend)``.
    Every stored value is the true one times ``e^-c``: the ``1`` that starts
    an alignment is stored as ``e^-c``, a normal float64 for ``c < 708``.
    """
    m = b.shape[0]
    one = np.exp(-c)
    # D[j] = 1 + X + Y + M of the previous row at column j; Mp, Xp: previous row
    D = np.full(m + 1, one)
    Mp = np.zeros(m + 1)
    Xp = np.zeros(m + 1)
    total = 0.0
    for i in range(a.shape[0]):
        Erow = E[a[i]]
        ml = 0.0
        xl = 0.0
        yl = 0.0
        diag = D[0]
        row = 0.0
        for j in range(1, m + 1):
            mv = Erow[b[j - 1]] * diag
            xv = go * Mp[j] + ge * Xp[j]
            yv = go * (ml + xl) + ge * yl
            diag = D[j]
            D[j] = one + mv + xv + yv
            Mp[j] = mv
            Xp[j] = xv
            ml = mv
            xl = xv
            yl = yv
            row += mv
        total += row
    return np.log(one + total) + c


@numba.njit(cache=True, nogil=True)
def _lae(a, b):
    """``log(e^a + e^b)``, exact for ``-inf`` arguments."""
    if a < b:
        a, b = b, a
    if b == NEG_INF:
        return a
    return a + np.log1p(np.exp(b - a))


@numba.njit(cache=True, nogil=True)
def _la_log(a, b, L, lgo, lge):
    """``log K(a, b)`` in log space (``L = beta S``, ``lgo = -beta gap_open``, ...)."""
    m = b.shape[0]
    Mp = np.full(m + 1, NEG_INF)
    Xp = np.full(m + 1, NEG_INF)
    Yp = np.full(m + 1, NEG_INF)
    Mc = np.full(m + 1, NEG_INF)
    Xc = np.full(m + 1, NEG_INF)
    Yc = np.full(m + 1, NEG_INF)
    total = NEG_INF
    for i in range(a.shape[0]):
        Lrow = L[a[i]]
        rowmax = NEG_INF
        for j in range(1, m + 1):
            x_, y_, m_ = Xp[j - 1], Yp[j - 1], Mp[j - 1]
            top = max(0.0, x_, y_, m_)
            s = np.exp(-top) + np.exp(x_ - top) + np.exp(y_ - top) + np.exp(m_ - top)
            mv = Lrow[b[j - 1]] + top + np.log(s)
            Mc[j] = mv
            Xc[j] = _lae(lgo + Mp[j], lge + Xp[j])
            Yc[j] = _lae(lgo + _lae(Mc[j - 1], Xc[j - 1]), lge + Yc[j - 1])
            rowmax = max(rowmax, mv)
        if rowmax > NEG_INF:
            acc = 0.0
            for j in range(1, m + 1):
                acc += np.exp(Mc[j] - rowmax)
            total = _lae(total, rowmax + np.log(acc))
        Mp, Mc = Mc, Mp
        Xp, Xc = Xc, Xp
        Yp, Yc = Yc, Yp
    return _lae(0.0, total)


@numba.njit(cache=True, nogil=True)
def la_log_pair(a, b, E, L, go, ge, lgo, lge):
    """``log K(a, b)``: in float64 when it fits (scaled by ``e^-SHIFT`` when
    ``K > e^709``), else in log space."""
    lk = _la_linear(a, b, E, go, ge, 0.0)
    if np.isfinite(lk):
        return lk
    lk = _la_linear(a, b, E, go, ge, SHIFT)
    if np.isfinite(lk):
        return lk
    return _la_log(a, b, L, lgo, lge)


@numba.njit(cache=True, nogil=True)
def _la_gram_task(codes, offsets, E, L, go, ge, lgo, lge, out, p):
    """Rows ``p`` and ``n - 1 - p`` of the upper triangle: ``n + 1`` pairs in all,
    so equal tasks keep the threads balanced."""
    n = offsets.shape[0] - 1
    for t in range(2):
        i = p if t == 0 else n - 1 - p
        if t == 1 and i == p:
            break
        a = codes[offsets[i] : offsets[i + 1]]
        for j in range(i, n):
            b = codes[offsets[j] : offsets[j + 1]]
            out[i, j] = la_log_pair(a, b, E, L, go, ge, lgo, lge)


@numba.njit(cache=True, nogil=True)
def la_log_gram(codes, offsets, E, L, go, ge, lgo, lge, out, q0, q1):
    """``log K`` on the upper triangle and diagonal of ``out`` (the lower
    triangle is left alone), tasks ``q0:q1`` of :func:`_la_gram_task` (there
    are ``(n + 1) // 2``). Serial, without the GIL: the caller runs ranges of
    tasks on threads (:func:`structk._threads.run_chunks`)."""
    for q in range(q0, q1):
        _la_gram_task(codes, offsets, E, L, go, ge, lgo, lge, out, q)


@numba.njit(cache=True, nogil=True)
def _la_cross_row(codes_x, off_x, codes_y, off_y, E, L, go, ge, lgo, lge, out, i):
    a = codes_x[off_x[i] : off_x[i + 1]]
    for j in range(off_y.shape[0] - 1):
        out[i, j] = la_log_pair(a, codes_y[off_y[j] : off_y[j + 1]], E, L, go, ge, lgo, lge)


@numba.njit(cache=True, nogil=True)
def la_log_cross(codes_x, off_x, codes_y, off_y, E, L, go, ge, lgo, lge, out, i0, i1):
    """``log K`` of the sequences ``i0:i1`` of X against every sequence of Y,
    into those rows of ``out``."""
    for i in range(i0, i1):
        _la_cross_row(codes_x, off_x, codes_y, off_y, E, L, go, ge, lgo, lge, out, i)


@numba.njit(cache=True, nogil=True)
def la_log_diag(codes, offsets, E, L, go, ge, lgo, lge, out, i0, i1):
    """``log K(x, x)`` for the sequences ``i0:i1``, into ``out``."""
    for i in range(i0, i1):
        a = codes[offsets[i] : offsets[i + 1]]
        out[i] = la_log_pair(a, a, E, L, go, ge, lgo, lge)


@numba.njit(cache=True, nogil=True)
def sw_pair(a, b, S, gap_open, gap_extend):
    """Smith-Waterman score with affine gaps (Gotoh): a gap of length ``n``
    costs ``gap_open + (n - 1) gap_extend``."""
    m = b.shape[0]
    H = np.zeros(m + 1)  # best alignment ending at (i, j), previous row then current
    F = np.full(m + 1, NEG_INF)  # ending with a gap in b (vertical)
    best = 0.0
    for i in range(a.shape[0]):
        Srow = S[a[i]]
        diag = 0.0  # H(i-1, j-1)
        left = 0.0  # H(i, j-1)
        e = NEG_INF  # ending with a gap in a (horizontal), this row
        for j in range(1, m + 1):
            e = max(left - gap_open, e - gap_extend)
            F[j] = max(H[j] - gap_open, F[j] - gap_extend)
            h = max(0.0, diag + Srow[b[j - 1]], e, F[j])
            diag = H[j]
            H[j] = h
            left = h
            best = max(best, h)
    return best


@numba.njit(cache=True, nogil=True)
def _sw_row(codes_x, off_x, codes_y, off_y, S, gap_open, gap_extend, out, i):
    a = codes_x[off_x[i] : off_x[i + 1]]
    for j in range(off_y.shape[0] - 1):
        out[i, j] = sw_pair(a, codes_y[off_y[j] : off_y[j + 1]], S, gap_open, gap_extend)


@numba.njit(cache=True, nogil=True)
def sw_cross(codes_x, off_x, codes_y, off_y, S, gap_open, gap_extend, out, i0, i1):
    """Smith-Waterman scores of the sequences ``i0:i1`` of X against every
    sequence of Y, into those rows of ``out``."""
    for i in range(i0, i1):
        _sw_row(codes_x, off_x, codes_y, off_y, S, gap_open, gap_extend, out, i)
