"""Leave-one-out of kernel ridge regression for many penalties from one
tridiagonal reduction ``K = Q T Q^T`` (numba)."""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@numba.njit(cache=True, nogil=True)
def tridiagonal_loo(P, d, e, alphas, Z, G, X, block):
    """For every ``alpha``: ``diag((K + alpha I)^{-1})`` and ``(T + alpha I)^{-1} Z``.

    ``K = Q T Q^T`` with ``T`` symmetric tridiagonal (diagonal ``d``,
    off-diagonal ``e``) and ``P = Q^T`` (C-ordered: row ``k`` is column ``k``
    of ``Q``). With ``T + alpha I = L D L^T`` (``L`` unit lower bidiagonal)
    and ``W = L^{-1} P``, ``((K + alpha I)^{-1})_ii = sum_k W_ki^2 / D_k``:
    a forward sweep over the rows of ``P``, O(n^2) per penalty.

    ``G`` (n_alphas, n) receives the diagonals and ``X`` (n, n_alphas, m) the
    solutions (so ``Q X`` are the dual coefficients). ``block`` penalties
    are swept together: their rows of ``L^{-1} Q^T`` share one pass over
    ``P`` (read from memory once per block, not once per penalty); the
    results do not depend on it. Returns the index of
    the first penalty for which ``T + alpha I`` has a pivot ``<= 0`` (not
    numerically positive definite; nothing more is written), else ``-1``.
    """
    n = P.shape[0]
    n_alphas = alphas.shape[0]
    block = max(1, block)
    W = np.empty((block, n))
    D = np.empty((block, n))
    L = np.zeros((block, n))  # L[b, k]: the multiplier below D[b, k - 1]
    for a0 in range(0, n_alphas, block):
        nb = min(block, n_alphas - a0)
        for b in range(nb):
            alpha = alphas[a0 + b]
            D[b, 0] = d[0] + alpha
            if not D[b, 0] > 0.0:  # also NaN
                return a0 + b
            for k in range(1, n):
                L[b, k] = e[k - 1] / D[b, k - 1]
                D[b, k] = d[k] + alpha - L[b, k] * e[k - 1]
                if not D[b, k] > 0.0:
                    return a0 + b
        for b in range(nb):
            g = G[a0 + b]
            w = W[b]
            inv = 1.0 / D[b, 0]
            for i in range(n):
                w[i] = P[0, i]
                g[i] = w[i] * w[i] * inv
        for k in range(1, n):
            Pk = P[k]
            for b in range(nb):
                lk = L[b, k]
                inv = 1.0 / D[b, k]
                w = W[b]
                g = G[a0 + b]
                for i in range(n):
                    v = Pk[i] - lk * w[i]
                    w[i] = v
                    g[i] += v * v * inv
        for b in range(nb):
            x = X[:, a0 + b, :]
            x[0] = Z[0]
            for k in range(1, n):
                x[k] = Z[k] - L[b, k] * x[k - 1]
            x[n - 1] /= D[b, n - 1]
            for k in range(n - 2, -1, -1):
                x[k] = x[k] / D[b, k] - L[b, k + 1] * x[k + 1]
    return -1
