"""Gram matrices computed block by block, in memory or into a file on disk.

``k(X)`` builds the whole ``n x n`` matrix at once, and a kernel may need
several temporaries of that size. :func:`gram` computes the same matrix in
square tiles of ``block_size x block_size``: each object is prepared
(validated and encoded) once, each tile is computed from slices of the
prepared data (:meth:`~structk.kernels.base.Kernel.take`) and written into
its place, so the working memory is bounded by the tile size, not by ``n^2``.
The result can be a numpy ``memmap`` on disk, which makes Gram matrices
larger than memory possible (50 000 objects need 20 GB in float64).

For a symmetric Gram only the tiles on and above the diagonal are computed;
each is mirrored into its transposed place. The tiles of one run are the same
whatever the number of threads, so results are reproducible bit for bit, and
:func:`structk.scale.dask_gram` computes exactly the same tiles on a
Dask cluster.
"""

from __future__ import annotations

import pickle
from concurrent.futures import (
    FIRST_COMPLETED,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)

from .._validation import check_scalar
from ._tiling import Plan, check_memory, write_tiles  # noqa: F401


def gram(
    kernel,
    X,
    Y=None,
    *,
    block_size=1024,
    out=None,
    n_jobs=1,
    backend="threads",
    progress=False,
    memory_limit=None,
    prepared=None,
):
    """Gram matrix ``K[i, j] = kernel(X[i], Y[j])`` computed tile by tile.

    Parameters
    ----------
    kernel : Kernel
        Any structk kernel.
    X : sequence of objects
    Y : sequence of objects, optional
        Second collection for a cross-Gram; ``Y = X`` when omitted, and then
        only the tiles on and above the diagonal are computed.
    block_size : int >= 1, default 1024
        Side of the square tiles. Working memory is about
        ``TILE_WORK_FACTOR * 8 * block_size**2`` (``structk.defaults``) bytes per thread, plus the
        kernel's encoding of the objects.
    out : None, str, os.PathLike or ndarray, default None
        Where the matrix goes:

        - ``None``: a new in-memory array;
        - a path: a new ``.npy`` file, memory-mapped while it is filled and
          returned as a read-only ``np.memmap`` (reopen it with
          ``np.load(path, mmap_mode="r")``). It is written under a temporary
          name in the same folder and renamed into place only once complete,
          so a failed or interrupted run never leaves a file at ``path`` that
          looks like a result (an existing file there is replaced only on
          success). The temporary ``.NAME.PID.XXXX.partial`` file is deleted
          on failure, Ctrl-C and SIGTERM; one left by a SIGKILL is deleted
          by the next run writing to ``path``;
        - an ndarray or ``np.memmap`` of shape ``(len(X), len(Y))`` and dtype
          float64, filled in place. If the computation fails it is filled
          with NaN, so it cannot be mistaken for a result.
    n_jobs : int >= 1, default 1
        Tiles computed at once.
    backend : {"threads", "processes"}, default "threads"
        How ``n_jobs > 1`` runs. Threads share the prepared objects and gain
        when the kernel's work releases the GIL (numpy, BLAS, numba compiled
        with ``nogil=True``). Processes gain for any kernel, including a
        pure-Python ``FunctionKernel``; each worker process receives the
        kernel and the prepared objects once (pickled, with cloudpickle when
        installed so lambdas work), and every tile travels back pickled.
    progress : bool or callable, default False
        ``True`` shows a tqdm progress bar over tiles (needs ``tqdm``:
        ``pip install structk[progress]``); a callable is called as
        ``progress(done, total)`` after each tile.
    memory_limit : int, optional
        Bytes of memory the computation may use; default: the memory the
        operating system reports available. Exceeding it is an error raised
        before anything is computed.
    prepared : prepared data, optional
        ``kernel.prepare(X)`` when the caller already holds it (a learner
        that computes the Gram of its training objects, say): its blocks are
        sliced from it (:func:`~structk.kernels.base.take_prepared`) instead
        of preparing ``X`` again.

    Returns
    -------
    K : ndarray or np.memmap of float64, shape (len(X), len(Y))
        ``out`` itself when an array was given. Equal to ``kernel(X, Y)`` up
        to floating-point rounding (each tile may be summed in a different
        order), and exactly symmetric when ``Y`` is omitted.

    Raises
    ------
    MemoryError
        When a tile (times ``n_jobs``), or the whole matrix for ``out=None``,
        does not fit ``memory_limit``; the message suggests a block size.
    OSError
        When ``out`` is a path that cannot be written or whose disk is too
        small.

    Examples
    --------
    >>> import numpy as np
    >>> from structk import gram
    >>> from structk.kernels import Gaussian
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> K = gram(Gaussian(sigma=2.0), X, block_size=128)
    >>> bool(np.allclose(K, Gaussian(sigma=2.0)(X)))
    True
    """
    plan = Plan(kernel, X, Y, block_size, prepared=prepared)
    n_jobs = check_scalar(n_jobs, "n_jobs", lower=1, integer=True)
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {_BACKENDS}, got {backend!r}")
    check_memory(plan, n_jobs, out, memory_limit)
    return write_tiles(plan, out, _local_tiles(plan, n_jobs, backend), progress)


_BACKENDS = ("threads", "processes")


def _local_tiles(plan, n_jobs, backend="threads"):
    """Compute the plan's tiles on this machine, ``n_jobs`` at once.

    At most ``2 * n_jobs`` finished or running tiles exist at any time, so
    memory stays bounded whatever the number of tiles.
    """
    if n_jobs == 1:
        for i, j in plan.tiles:
            yield (i, j), plan.compute(i, j)
        return
    if backend == "threads":
        pool, compute = ThreadPoolExecutor(max_workers=n_jobs), plan.compute
    else:
        pool = ProcessPoolExecutor(
            max_workers=n_jobs, initializer=_set_worker_plan, initargs=(_dumps(plan),)
        )
        compute = _worker_tile
    with pool:
        pending, todo = {}, iter(plan.tiles)
        try:
            while True:
                for tile in todo:
                    pending[pool.submit(compute, *tile)] = tile
                    if len(pending) >= 2 * n_jobs:
                        break
                if not pending:
                    return
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield pending.pop(future), future.result()
        finally:
            for future in pending:
                future.cancel()


def _dumps(obj):
    """Pickle with cloudpickle when installed (lambdas), else with pickle."""
    try:
        import cloudpickle
    except ImportError:
        return pickle.dumps(obj, protocol=5)
    return cloudpickle.dumps(obj, protocol=5)


_WORKER_PLAN = None  # set in each worker process of backend="processes"


def _set_worker_plan(blob):
    global _WORKER_PLAN
    _WORKER_PLAN = pickle.loads(blob)


def _worker_tile(i, j):
    return _WORKER_PLAN.compute(i, j)
