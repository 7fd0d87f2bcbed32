"""Local alignment: the LA kernel's and Smith-Waterman's dynamic programmes,
and how they are run (tasks, chunks, threads).

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     Gram, cross-Gram and diagonal of the LA kernel (plain,
                   scaled and log-space passes) and Smith-Waterman scores,
                   a range of rows per call (numba)
=================  ==========================================================

Compiled only: there is no NumPy form. Sequences arrive as flat codes plus
offsets; ``tables`` is ``(E, L, go, ge, lgo, lge)``: the substitution
matrix scaled by ``beta`` (``L``) and exponentiated (``E``), the gap costs
as factors and their logarithms. Every function below fills its result in
chunks of rows of at most about ``_tuning.ALIGNMENT_CHUNK_CELLS``
dynamic-programming cells (a Ctrl-C is answered between them), on
:func:`structk._threads.num_threads` threads from
``_tuning.ALIGNMENT_PARALLEL_CELLS`` cells in all. Every entry depends only
on its pair, so the result is the same for any chunks and thread count.
Called by :class:`structk.kernels.LocalAlignment` and
:func:`structk.kernels.alignment.smith_waterman`.
"""

from __future__ import annotations

import numpy as np

from ... import _threads, _tuning


def la_log_gram(codes, offsets, tables):
    """``log k(x_i, x_j)`` of the LA kernel, the upper triangle and diagonal
    filled (the caller mirrors it), shape ``(n, n)``."""
    from ._numba import la_log_gram as loop

    n = offsets.shape[0] - 1
    return _run(loop, _gram_task_cells(np.diff(offsets)), np.zeros((n, n)), codes, offsets, *tables)


def la_log_cross(codes_x, off_x, codes_y, off_y, tables):
    """``log k(x_i, y_j)`` of the LA kernel, shape ``(n, m)``."""
    from ._numba import la_log_cross as loop

    return _run(
        loop,
        _cross_task_cells(off_x, off_y),
        np.empty((off_x.shape[0] - 1, off_y.shape[0] - 1)),
        codes_x,
        off_x,
        codes_y,
        off_y,
        *tables,
    )


def la_log_diag(codes, offsets, tables):
    """``log k(x_i, x_i)`` of the LA kernel, shape ``(n,)``."""
    from ._numba import la_log_diag as loop

    lengths = np.diff(offsets).astype(np.float64)
    return _run(loop, lengths**2, np.empty(offsets.shape[0] - 1), codes, offsets, *tables)


def sw_cross(codes_x, off_x, codes_y, off_y, scores, gap_open, gap_extend):
    """Smith-Waterman scores of every pair (affine gaps), shape ``(n, m)``."""
    from ._numba import sw_cross as loop

    return _run(
        loop,
        _cross_task_cells(off_x, off_y),
        np.empty((off_x.shape[0] - 1, off_y.shape[0] - 1)),
        codes_x,
        off_x,
        codes_y,
        off_y,
        scores,
        float(gap_open),
        float(gap_extend),
    )


def _run(loop, task_cells, out, *args):
    """``out`` filled by the compiled ``loop`` over tasks (rows) of
    ``task_cells`` dynamic-programming cells each (see the module's
    docstring for the chunks and threads)."""
    threads = _threads.threads_for(float(np.sum(task_cells)), _tuning.ALIGNMENT_PARALLEL_CELLS)

    def chunk(lo, hi):
        loop(*args, out, lo, hi)

    parts = 1 if threads == 1 else _tuning.ALIGNMENT_CHUNKS_PER_THREAD * threads
    bounds = _threads.cost_bounds(task_cells, parts, _tuning.ALIGNMENT_CHUNK_CELLS)
    _threads.run_chunks(chunk, bounds, threads)
    return out


def _gram_task_cells(lengths):
    """Cells of each task of :func:`._numba.la_log_gram`: task ``q`` aligns
    row ``q`` and row ``n - 1 - q`` of the upper triangle."""
    lx = lengths.astype(np.float64)
    n = lx.shape[0]
    rows = lx * np.cumsum(lx[::-1])[::-1]  # row i: x_i against x_i .. x_{n-1}
    q = np.arange((n + 1) // 2)
    return rows[q] + np.where(n - 1 - q != q, rows[n - 1 - q], 0.0)


def _cross_task_cells(off_x, off_y):
    return np.diff(off_x).astype(np.float64) * float(off_y[-1] - off_y[0])
