"""The necessary PSD pass compiled by numba (the twin of :mod:`.numpy_pass`):
finiteness, symmetry and Cauchy-Schwarz in one pass over the rows."""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice

# reassociation lets LLVM vectorise the sums; no "nnan"/"ninf": NaN must be seen
_FAST = {"reassoc", "contract", "nsz", "arcp"}


@numba.njit(cache=True)
def first_nonfinite(K):
    """Flat index of the first NaN or infinity in the 2-D array ``K``, or -1."""
    m = K.shape[1]
    for i in range(K.shape[0]):
        row = K[i]
        bad = False
        for j in range(m):
            bad |= not np.isfinite(row[j])
        if bad:
            for j in range(m):
                if not np.isfinite(row[j]):
                    return i * m + j
    return -1


@numba.njit(cache=True, fastmath=_FAST)
def _scan_rows(K, s, w, tol, r, c, a):
    """Row pass: Cauchy-Schwarz/finiteness per row, weighted row and column sums.

    Returns the first row with a failing entry, or -1.
    """
    n = K.shape[0]
    for i in range(n):
        row = K[i]
        si = s[i]
        wi = w[i]
        ok = True
        acc = 0.0
        acc_abs = 0.0
        for j in range(n):
            v = row[j]
            ok &= abs(v) <= si * s[j] + tol  # False for NaN and infinity
            acc += v * w[j]
            acc_abs += abs(v)
            c[j] += wi * v
        if not ok:
            return i
        r[i] = acc
        a[i] = acc_abs
    return -1


@numba.njit(cache=True)
def necessary_psd_violation(K, tol, sym_tol):
    """First ``(i, j)`` where a necessary condition for PSD fails, else ``(-1, -1)``.

    The conditions: every entry finite; ``|K_ij| <= sqrt(K_ii K_jj) + tol``
    (Cauchy-Schwarz, the 2 x 2 principal minors); ``|K_ij - K_ji| <= sym_tol``.
    Negative diagonal entries must be checked by the caller. One contiguous
    pass over the rows does the first two and compares the weighted row sums
    ``K w`` with the column sums ``K^T w`` (equal for a symmetric ``K``); only
    when they differ are the entries compared pairwise.
    """
    n = K.shape[0]
    s = np.empty(n)
    w = np.empty(n)
    for i in range(n):
        s[i] = np.sqrt(max(K[i, i], 0.0))
        w[i] = 1.0 + ((i * 0.6180339887498949) % 1.0)  # in [1, 2), no pattern
    r = np.zeros(n)
    c = np.zeros(n)
    a = np.zeros(n)
    bad = _scan_rows(K, s, w, tol, r, c, a)
    if bad >= 0:
        row = K[bad]
        for j in range(n):
            if not abs(row[j]) <= s[bad] * s[j] + tol:
                return bad, j
    eps = np.finfo(np.float64).eps
    for i in range(n):
        # rounding of both sums is below 4 n eps sum_j |K_ij| w_j (w < 2)
        if abs(r[i] - c[i]) > sym_tol + 8.0 * n * eps * a[i]:
            for j in range(n):
                if abs(K[i, j] - K[j, i]) > sym_tol:
                    return i, j
    return -1, -1
