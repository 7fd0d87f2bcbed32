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

:func:`mirror_and_scan` finishes a kernel's Gram: it copies the upper
triangle onto the lower one and, in the same pass, collects what the
learners' PSD check needs (finiteness, the Cauchy-Schwarz excess, the
Frobenius norm), so that a Gram structk computed is read once more, not
four times (mirror, finiteness, necessary conditions, norm). A kernel that
writes its Gram a block of rows at a time (the Gaussian) mirrors and scans
each block as soon as it is written, while it is in cache
(:func:`._numba.mirror_rows_scan`), and assembles the same summary with
:func:`gram_scan`.
"""

from __future__ import annotations

import numpy as np

from dataclasses import dataclass

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


@dataclass(frozen=True)
class GramScan:
    """What :func:`mirror_and_scan` saw in a symmetric Gram ``K``.

    ``finite``: every entry is finite. ``cs_excess``: the largest
    ``|K_ij| - sqrt(K_ii^+ K_jj^+)`` over ``i != j`` (``K_ii^+`` is
    ``max(K_ii, 0)``; ``-inf`` for one object): Cauchy-Schwarz holds for
    every 2 x 2 principal minor when it is at most 0, to rounding.
    ``sum_sq``: ``sum_ij K_ij^2``, whose square root is ``||K||_F``
    (meaningful when ``finite``).
    """

    finite: bool
    cs_excess: float
    sum_sq: float


def mirror_and_scan(K):
    """Copy the upper triangle of ``K`` onto its lower one, in place, and
    return a :class:`GramScan` of it; ``None`` (after mirroring by
    :func:`structk.algorithms.dense.mirror_upper`) for a Gram of fewer than
    ``_tuning.GRAM_SCAN_MIN_N`` objects or one that is not a C-ordered
    float64 array: the learners check those themselves.

    One compiled pass over tiles of ``_tuning.GRAM_SCAN_TILE`` columns,
    chunks of rows on threads (:func:`structk._threads.run_chunks`); the
    chunks depend on the order of ``K`` alone, so the scan's sums do not
    depend on the number of threads.
    """
    from ..dense import mirror_upper

    n = K.shape[0]
    if n < _tuning.GRAM_SCAN_MIN_N or K.dtype != np.float64 or not K.flags.c_contiguous:
        mirror_upper(K)
        return None
    from ... import _threads
    from ._numba import mirror_scan

    tile = _tuning.GRAM_SCAN_TILE
    d = K.diagonal()
    with np.errstate(invalid="ignore"):
        s = np.sqrt(np.maximum(d, 0.0))
    # rows in multiples of the tile, each chunk about equal work (n - i)
    starts = np.arange(0, n, tile)
    bounds = [min(int(b) * tile, n) for b in _threads.cost_bounds(n - starts, 16, np.inf)]
    bounds[-1] = n
    out = np.zeros((len(bounds) - 1, 3))
    chunks = {lo: c for c, lo in enumerate(bounds[:-1])}
    threads = _threads.threads_for(n * n, _tuning.GRAM_SCAN_THREADED_MIN_ENTRIES)
    _threads.run_chunks(
        lambda lo, hi: mirror_scan(K, s, tile, lo, hi, out[chunks[lo]]), bounds, threads
    )
    return gram_scan(d, out)


def gram_scan(d, out):
    """The :class:`GramScan` of a Gram of diagonal ``d`` from the rows of
    ``out`` that its chunks' compiled scans wrote (finite, excess, sum of
    squares of the upper triangle)."""
    with np.errstate(over="ignore", invalid="ignore"):
        sum_sq = 2.0 * float(out[:, 2].sum()) + float(np.dot(d, d))
    return GramScan(
        finite=bool(out[:, 0].all() and np.isfinite(sum_sq)),
        cs_excess=float(out[:, 1].max()),
        sum_sq=sum_sq,
    )


def exp_neg_sq_dist_mirrored(Pc, p2, scale, rows, tile):
    """``(K, scan)``: the whole Gram ``exp(-||x_i - x_j||^2 / scale)`` of the
    (centred) rows of ``Pc``, whose squared norms are ``p2``, and its
    :class:`GramScan`, written a block of ``rows`` rows at a time: the
    block's inner products in one BLAS product into a reused buffer (one
    BLAS thread), the distances' arithmetic in one compiled pass, NumPy's
    ``exp`` into the upper part of the block's rows, then one compiled pass
    (tiles of ``tile``) copying the block onto the lower triangle and
    scanning it while it is in cache. The entries equal those of the upper
    triangle computed by :func:`structk.kernels.vectors._exp_sq_dist_upper`
    and mirrored afterwards; the scan's sums are grouped by block."""
    from ..._threads import compiled_call, product_threads
    from ._numba import mirror_rows_scan, neg_scaled_sq_dist

    n = Pc.shape[0]
    K = np.empty((n, n))
    buffer = np.empty(min(rows, n) * n)
    s = np.ones(n)  # sqrt(K_ii): exp(0) = 1 on the diagonal
    out = np.zeros((-(-n // rows), 3))
    with product_threads(buffer.size * Pc.shape[1]):  # the largest block's product
        for c, a in enumerate(range(0, n, rows)):
            b = min(a + rows, n)
            G = buffer[: (b - a) * (n - a)].reshape(b - a, n - a)
            np.matmul(Pc[a:b], Pc[a:].T, out=G)
            compiled_call(neg_scaled_sq_dist, G, p2, a, -1.0 / scale)
            np.exp(G, out=K[a:b, a:])
            compiled_call(mirror_rows_scan, K, s, a, b, tile, out[c])
    return K, gram_scan(s, out)
