"""Blocks of a Gram matrix: ``K[np.ix_(rows, cols)]`` copied fast.

=================  ==========================================================
module             what
=================  ==========================================================
this one           :func:`take_block` and its rule: blocks of at most
                   ``_tuning.GRAM_BLOCK_NUMPY_MAX`` entries by NumPy's fancy
                   indexing (nothing to compile or load), larger ones by the
                   compiled gather
:mod:`._numba`     the row gather (numba, without the GIL)
=================  ==========================================================

Used by the learners (one-vs-one and multi-class machines copy class
blocks) and by cross-validation (train and test blocks of one Gram), through
:mod:`structk._linalg`.
"""

from __future__ import annotations

import numpy as np

from ... import _tuning
from ..._threads import compiled_call


def take_block(K, rows, cols=None, out=None):
    """``K[np.ix_(rows, cols)]`` (``cols`` defaults to ``rows``) as a new
    C-ordered float64 array, or written into ``out``.

    Large blocks are copied by a compiled row gather
    (:func:`._numba.take_block`), faster than NumPy's fancy
    indexing; small ones (``_tuning.GRAM_BLOCK_NUMPY_MAX``) by NumPy. The
    indices must be valid and
    non-negative: the compiled gather does not check them (its callers pass
    indices they made themselves: folds, classes, support vectors).
    """
    rows = np.asarray(rows, dtype=np.intp)
    cols = rows if cols is None else np.asarray(cols, dtype=np.intp)
    shape = (len(rows), len(cols))
    K = np.asarray(K)
    if (
        K.dtype != np.float64
        or not K.flags.c_contiguous
        or K.ndim != 2
        or shape[0] * shape[1] <= _tuning.GRAM_BLOCK_NUMPY_MAX
    ):
        block = K[np.ix_(rows, cols)]
        if out is None:
            return np.ascontiguousarray(block, dtype=np.float64)
        out[...] = block
        return out
    from ._numba import take_block as gather

    if out is None:
        out = np.empty(shape)
    compiled_call(gather, K, rows, cols, out)
    return out
