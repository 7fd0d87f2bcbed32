"""The weighted-degree kernel without shifts in NumPy, for small batches.

The values of :func:`._numba.wd_function`'s loops for ``shift = 0``, bit for
bit: along the aligned diagonal of a pair, ``count_l`` is the number of
positions ending a run of at least ``l`` matching known symbols (the
popcount of ``M_l`` there), and the value is ``beta_1 count_1``, then
``+ beta_l count_l`` for ``l = 2 .. d`` in that order, in float64: the same
operations on the same numbers. :mod:`structk.algorithms.weighted_degree`
picks between the forms.
"""

from __future__ import annotations

import numpy as np


def weighted_degree(S, T, part, A, beta):
    """``part`` 0: the upper triangle and diagonal of the Gram of the rows
    of ``S`` (n, L) of codes (zeros below; the caller mirrors it); 1: the
    cross-Gram against the rows of ``T``; 2: the diagonal, shape (n, 1).
    Codes ``>= A`` match nothing."""
    if part == 2:
        return _values((S < A)[:, None, :], beta)  # a sequence against itself
    if part == 1:
        X = S[:, None, :]
        return _values((X == T[None, :, :]) & (X < A), beta)
    n = S.shape[0]
    upper = np.triu_indices(n)
    X = S[upper[0]]
    out = np.zeros((n, n))
    out[upper] = _values((X == S[upper[1]]) & (X < A), beta)
    return out


def _values(match, beta):
    """``sum_l beta_l count_l`` over the last axis of the boolean ``match``
    (positions), for every leading index: ``M_1 = match``, ``M_l`` the
    positions ending ``l`` matches in a row (``M_{l-1}`` there and one
    before), ``count_l`` the number of them."""
    total = beta[0] * np.count_nonzero(match, axis=-1).astype(np.float64)
    runs = match
    for l in range(1, beta.shape[0]):
        runs = runs[..., 1:] & runs[..., :-1]
        total += beta[l] * np.count_nonzero(runs, axis=-1).astype(np.float64)
    return total
