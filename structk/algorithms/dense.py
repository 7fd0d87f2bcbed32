"""Dense-matrix primitives shared by the algorithms and the kernels (NumPy,
no numba)."""

from __future__ import annotations

import functools

import numpy as np

from .. import _tuning


def mirror_upper(K, block=None):
    """Copy the upper triangle of square ``K`` onto its lower one, in place.

    Works in row blocks so no n^2 temporary is allocated; the small
    diagonal blocks use cached index arrays (making ``tril_indices`` for a
    large block costs more than the copy). ``block`` rows at a time
    (``None``: ``_tuning.MIRROR_BLOCK_ROWS``).

    A kernel's ``_gram`` may fill the upper triangle only and leave the rest
    to this (the base class mirrors every Gram it returns). Also importable
    as ``structk.kernels.base.mirror_upper``.
    """
    n = K.shape[0]
    block = block or _tuning.MIRROR_BLOCK_ROWS
    for start in range(0, n, block):
        stop = min(start + block, n)
        K[start:stop, :start] = K[:start, start:stop].T
        B = K[start:stop, start:stop]
        lower = _strict_lower(stop - start)
        B[lower] = B.T[lower]


@functools.lru_cache(maxsize=128)
def _strict_lower(b):
    rows, cols = np.tril_indices(b, -1)
    rows.flags.writeable = cols.flags.writeable = False
    return rows, cols
