"""Gram matrices computed block by block, in memory or into a file on disk.

``k(X)`` builds the whole ``n x n`` matrix at once, and a kernel may need
several temporaries of that size. :func:`gram` computes the same matrix in
square tiles of ``block_size x block_size``: each object is prepared
(validated and encoded) once, each tile is computed from slices of the
prepared data (:meth:`~structk.kernels.base.Kernel._take`) and written into
its place, so the working memory is bounded by the tile size, not by ``n^2``.
The result can be a numpy ``memmap`` on disk, which makes Gram matrices
larger than memory possible (50 000 objects need 20 GB in float64).

For a symmetric Gram only the tiles on and above the diagonal are computed;
each is mirrored into its transposed place. The tiles of one run are the same
whatever the number of threads, so results are reproducible bit for bit, and
:func:`structk.distributed.dask_gram` computes exactly the same tiles on a
Dask cluster.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import threading
from concurrent.futures import (
    FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait,
)
from pathlib import Path

import numpy as np

from ._validation import check_objects, check_scalar
from .exceptions import KernelOverflowError
from .kernels.base import Kernel, TakeNotImplemented, _check_finite, mirror_upper

#: Working memory of one tile, in tiles of float64: the tile itself, its
#: mirrored copy and a kernel's own temporaries (distances, powers, ...).
TILE_WORK_FACTOR = 4


def gram(kernel, X, Y=None, *, block_size=1024, out=None, n_jobs=1,
         backend="threads", progress=False, memory_limit=None):
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
        ``TILE_WORK_FACTOR * 8 * block_size**2`` bytes per thread, plus the
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
          success);
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
    plan = _Plan(kernel, X, Y, block_size)
    n_jobs = check_scalar(n_jobs, "n_jobs", lower=1, integer=True)
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {_BACKENDS}, got {backend!r}")
    _check_memory(plan, n_jobs, out, memory_limit)
    return write_tiles(plan, out, _local_tiles(plan, n_jobs, backend), progress)


def write_tiles(plan, out, tiles, progress=False):
    """Write computed tiles into ``out`` (as in :func:`gram`) and return it.

    ``tiles`` is an iterable (typically a generator, started only after
    ``out`` is checked) of ``((i, j), tile)`` covering ``plan.tiles`` in
    any order; tiles of a symmetric plan are mirrored below the diagonal.
    """
    if not (out is None or isinstance(out, (np.ndarray, str, os.PathLike))):
        raise TypeError(
            f"out must be None, a path or a float64 ndarray, got {type(out).__name__}"
        )
    if isinstance(out, np.ndarray):
        _check_out(out, plan.shape)
    tick = _Progress(progress, len(plan.tiles))
    try:
        if isinstance(out, (str, os.PathLike)):
            return _fill_file(plan, Path(out), tiles, tick)
        K = np.empty(plan.shape) if out is None else out
        try:
            _store(plan, K, tiles, tick)
        except BaseException:
            if out is not None:
                _poison(K)
            raise
        return K
    finally:
        tick.close()


# --------------------------------------------------------------- the tiling
class _Plan:
    """Validated kernel, prepared blocks of objects and the tiles to compute."""

    def __init__(self, kernel, X, Y, block_size):
        if not isinstance(kernel, Kernel):
            raise TypeError(
                f"kernel must be a structk Kernel, got {type(kernel).__name__}; "
                "wrap a Python function with structk.kernels.FunctionKernel"
            )
        self.block_size = check_scalar(block_size, "block_size", lower=1, integer=True)
        kernel._validate()
        self.kernel = kernel
        self.symmetric = Y is None
        X = check_objects(X, "X")
        self.rows = _bounds(_length(X), self.block_size)
        self.row_blocks = prepared_blocks(kernel, X, self.rows, "X")
        if self.symmetric:
            self.cols, self.col_blocks = self.rows, self.row_blocks
            n = len(self.rows)
            self.tiles = [(i, j) for i in range(n) for j in range(i, n)]
        else:
            Y = check_objects(Y, "Y")
            self.cols = _bounds(_length(Y), self.block_size)
            self.col_blocks = prepared_blocks(kernel, Y, self.cols, "Y")
            kernel._check_pair(self.row_blocks[0], self.col_blocks[0])
            self.tiles = [(i, j) for i in range(len(self.rows))
                          for j in range(len(self.cols))]
        self.shape = (self.rows[-1][1], self.cols[-1][1])

    def row_block(self, i):
        return self.row_blocks[i]

    def col_block(self, j):
        return self.col_blocks[j]

    def compute(self, i, j):
        """Tile ``(i, j)`` as a float64 array, checked finite."""
        diagonal = self.symmetric and i == j
        return checked_tile(
            self.kernel, self.row_block(i), None if diagonal else self.col_block(j),
            (self.rows[i], self.cols[j]),
        )


def prepared_blocks(kernel, objects, bounds, name):
    """Prepared data of each block ``objects[a:b]`` for ``(a, b)`` in ``bounds``.

    The whole collection is prepared once (so invalid input is reported
    before any tile is computed) and sliced with ``kernel._take``. A kernel
    whose prepared data cannot be sliced (``TakeNotImplemented``) has each
    block prepared on its own instead, still up front and still once per
    object; its errors then name the block, e.g. ``X[1000:2000][17]``.
    """
    if _takes(kernel, objects, name):
        P = kernel._prepare(objects, name)
        return [kernel._take(P, slice(a, b)) for a, b in bounds]
    return [kernel._prepare(objects[a:b], f"{name}[{a}:{b}]") for a, b in bounds]


def take(kernel, objects, P, index, name):
    """``kernel._take(P, index)``, or ``objects[index]`` prepared anew."""
    try:
        return kernel._take(P, index)
    except TakeNotImplemented:
        subset = objects[index] if hasattr(objects, "shape") else [
            objects[i] for i in np.asarray(index).tolist()
        ]
        return kernel._prepare(subset, name)


def _takes(kernel, objects, name):
    """Whether ``kernel._take`` slices its prepared data (probed on 1 object)."""
    try:
        kernel._take(kernel._prepare(objects[:1], name), slice(0, 1))
    except TakeNotImplemented:
        return False
    return True


def checked_tile(kernel, Pi, Pj, bounds):
    """One tile from prepared blocks, checked finite.

    ``Pj=None`` asks for the diagonal tile ``_gram(Pi)``, made exactly
    symmetric; otherwise the tile is ``_cross(Pi, Pj)``. ``bounds`` are the
    tile's ``((row_start, row_stop), (col_start, col_stop))`` in the whole
    matrix, used to name the offending entry of a non-finite value.
    """
    (r0, r1), (c0, c1) = bounds
    try:
        with np.errstate(over="ignore"):  # overflow is reported by _check_finite
            if Pj is None:
                T = np.array(kernel._gram(Pi), dtype=np.float64, copy=True)
                mirror_upper(T)
            else:
                T = np.asarray(kernel._cross(Pi, Pj), dtype=np.float64)
    except KernelOverflowError as exc:
        raise KernelOverflowError(
            f"{exc} (positions within the block of rows {r0}:{r1} and "
            f"columns {c0}:{c1})"
        ) from None
    _check_finite(T, kernel, offset=(r0, c0))
    return T


def _length(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _bounds(n, block_size):
    return [(s, min(s + block_size, n)) for s in range(0, n, block_size)]


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


def _store(plan, K, tiles, tick):
    for (i, j), T in tiles:
        (r0, r1), (c0, c1) = plan.rows[i], plan.cols[j]
        K[r0:r1, c0:c1] = T
        if plan.symmetric and i != j:
            K[c0:c1, r0:r1] = T.T
        tick()


# ------------------------------------------------------------------ outputs
def _check_out(out, shape):
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape} but the Gram matrix is {shape}")
    if out.dtype != np.float64:
        raise ValueError(f"out must have dtype float64, got {out.dtype}")
    if not out.flags.writeable:
        raise ValueError("out is read-only (open a memmap with mode 'r+' or 'w+')")
    return out


def _poison(K, rows=4096):
    """Fill a failed output with NaN, in row blocks (no n^2 temporary)."""
    for start in range(0, K.shape[0], rows):
        K[start:start + rows] = np.nan
    if isinstance(K, np.memmap):
        K.flush()


def _fill_file(plan, path, tiles, tick):
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise IsADirectoryError(f"cannot write the Gram matrix to {path}: it is a folder")
    if not folder.is_dir():
        raise FileNotFoundError(
            f"cannot write the Gram matrix to {path}: folder {folder} does not exist"
        )
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
    except OSError as exc:
        raise PermissionError(
            f"cannot write the Gram matrix to {path}: {exc.strerror or exc}"
        ) from exc
    os.close(fd)
    need = 8 * plan.shape[0] * plan.shape[1]
    free = shutil.disk_usage(folder).free
    if need > free:
        os.unlink(tmp)
        raise OSError(
            f"cannot write the Gram matrix to {path}: it needs {_gib(need)} on disk "
            f"but {folder} has {_gib(free)} free"
        )
    try:
        K = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float64, shape=plan.shape)
        _store(plan, K, tiles, tick)
        K.flush()
        del K
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return np.load(path, mmap_mode="r")


# ------------------------------------------------------------------- memory
def _check_memory(plan, n_jobs, out, memory_limit):
    if memory_limit is None:
        available, source = _available_memory(), "the available memory"
        if available is None:
            return
    else:
        available = check_scalar(memory_limit, "memory_limit", lower=1, integer=True)
        source = "memory_limit"
    b = min(plan.block_size, max(plan.shape))
    tiles = TILE_WORK_FACTOR * 8 * b * b * n_jobs
    whole = 8 * plan.shape[0] * plan.shape[1] if out is None else 0
    if tiles + whole <= available:
        return
    if whole:
        hint = (
            f"the {plan.shape[0]} x {plan.shape[1]} matrix alone needs {_gib(whole)}; "
            "pass out='path/to/K.npy' to build it on disk"
        )
    else:
        fits = int((available / (TILE_WORK_FACTOR * 8 * n_jobs)) ** 0.5)
        hint = f"use block_size <= {fits}" if fits >= 1 else "reduce n_jobs"
    raise MemoryError(
        f"gram with block_size={plan.block_size} and n_jobs={n_jobs} needs about "
        f"{_gib(tiles + whole)} ({n_jobs} x {b} x {b} float64 tiles x "
        f"{TILE_WORK_FACTOR} for working copies"
        + (", plus the full matrix in memory" if whole else "")
        + f") but {source} is {_gib(available)}: {hint}"
    )


def _available_memory():
    """Bytes the OS can give without swapping (Linux MemAvailable), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _gib(nbytes):
    if nbytes >= 2**30:
        return f"{nbytes / 2**30:.2f} GiB"
    return f"{nbytes / 2**20:.1f} MiB"


# ----------------------------------------------------------------- progress
class _Progress:
    """Thread-safe tile counter feeding a tqdm bar or a user callback."""

    def __init__(self, progress, total):
        self.total, self.done, self.bar, self.callback = total, 0, None, None
        self.lock = threading.Lock()
        if progress is True:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                raise ImportError(
                    "progress=True needs tqdm: pip install tqdm (or structk[progress]); "
                    "or pass a callable progress(done, total)"
                ) from None
            self.bar = tqdm(total=total, unit="tile", desc="gram")
        elif callable(progress):
            self.callback = progress
        elif progress is not False and progress is not None:
            raise TypeError(f"progress must be a bool or a callable, got {progress!r}")

    def __call__(self):
        with self.lock:
            self.done += 1
            if self.bar is not None:
                self.bar.update(1)
            if self.callback is not None:
                self.callback(self.done, self.total)

    def close(self):
        if self.bar is not None:
            self.bar.close()
