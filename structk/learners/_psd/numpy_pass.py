"""The necessary PSD pass in NumPy (the twin of :mod:`.numba_pass`).

Same conditions, same weights, same symmetry test by weighted row and
column sums, same first reported violation; nothing to compile or load.
"""

from __future__ import annotations

import numpy as np


def golden_weights(n):
    """The weights of the row sums that compare ``K`` with ``K^T``:
    ``1 + frac(0.618 i)`` (no two alike, so swapping entries of a row changes
    its sum)."""
    return 1.0 + ((np.arange(n) * 0.6180339887498949) % 1.0)


def necessary_psd_violation(K, tol, sym_tol):
    """The first failing ``(i, j)`` of the necessary conditions, else ``(-1, -1)``
    (see :func:`structk.learners._psd.numba_pass.necessary_psd_violation`).

    Works on blocks of rows so that the temporaries stay in cache.
    """
    n = K.shape[0]
    s = np.sqrt(np.maximum(np.diag(K), 0.0))
    w = golden_weights(n)
    r = np.empty(n)
    c = np.zeros(n)
    a = np.empty(n)
    step = max(1, 16384 // max(n, 1))
    for start in range(0, n, step):
        rows = K[start : start + step]
        absK = np.abs(rows)
        bound = np.multiply.outer(s[start : start + step], s)
        bound += tol
        with np.errstate(invalid="ignore"):
            ok = absK <= bound  # False for NaN and infinity
        if not ok.all():
            i, j = divmod(int(np.argmin(ok)), n)
            return start + i, j
        # einsum rather than a BLAS product: OpenBLAS would run these small
        # products on its threads, which then spin on the core the solver needs
        r[start : start + step] = np.einsum("ij,j->i", rows, w)
        c += np.einsum("i,ij->j", w[start : start + step], rows)
        a[start : start + step] = absK.sum(axis=1)
    eps = np.finfo(np.float64).eps
    with np.errstate(invalid="ignore"):  # inf - inf (an infinite diagonal)
        suspect = np.flatnonzero(np.abs(r - c) > sym_tol + 8.0 * n * eps * a)
    for i in suspect:
        far = np.flatnonzero(np.abs(K[i] - K[:, i]) > sym_tol)
        if far.size:
            return int(i), int(far[0])
    return -1, -1


def first_nonfinite(K):
    """Flat index of the first NaN or infinity in the 2-D array ``K``, or -1."""
    finite = np.isfinite(K).ravel()
    return -1 if finite.all() else int(np.argmin(finite))
