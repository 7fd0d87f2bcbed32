"""Compiled loops of structk.explain: sums over pairs of l-mers by mismatches.

l-mers are packed two bits a base (int64); the number of mismatches of two
is the popcount of the base-wise difference.
"""

import numba
import numpy as np

from .. import _jit  # noqa: F401 - registers the first-compilation notice

_LOW = 0x5555555555555555


@numba.njit(cache=True, nogil=True)
def _mismatches(a, b):
    x = a ^ b
    x = (x | (x >> 1)) & _LOW
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@numba.njit(cache=True, nogil=True)
def profile(queries, keys, vals, w):
    """``R[q] = sum_j vals[j] w[mm(queries[q], keys[j])]`` (``w`` zero beyond
    its length)."""
    d = w.shape[0] - 1
    out = np.zeros(queries.shape[0])
    for i in range(queries.shape[0]):
        q = queries[i]
        s = 0.0
        for j in range(keys.shape[0]):
            m = _mismatches(q, keys[j])
            if m <= d:
                s += vals[j] * w[m]
        out[i] = s
    return out


@numba.njit(cache=True, nogil=True)
def pair_sums(keys, vals, ptr, w):
    """``sum_{a, b in group g} vals[a] vals[b] w[mm(a, b)]`` for each group
    ``keys[ptr[g]:ptr[g + 1]]``."""
    d = w.shape[0] - 1
    n = ptr.shape[0] - 1
    out = np.zeros(n)
    for g in range(n):
        s = 0.0
        for a in range(ptr[g], ptr[g + 1]):
            for b in range(ptr[g], ptr[g + 1]):
                m = _mismatches(keys[a], keys[b])
                if m <= d:
                    s += vals[a] * vals[b] * w[m]
        out[g] = s
    return out
