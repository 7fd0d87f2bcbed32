"""The tiling shared by the scale tools.

:func:`~structk.scale.gram` (one machine), :func:`~structk.scale.dask_gram`
(a Dask cluster) and :class:`~structk.scale.Nystroem` (landmark columns)
cut a Gram matrix into the same square tiles: the objects are prepared
(validated and encoded) once, each tile is computed from slices of the
prepared data (:meth:`~structk.kernels.base.Kernel.take`), checked finite
and written into its place. This module holds that plan, the checked tile,
the output writers (in memory, an array, or an atomically written ``.npy``),
the memory estimate and the progress counter.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import tempfile
import threading
from pathlib import Path

import numpy as np

from .. import _tuning, defaults
from .._memory import available_memory
from .._validation import check_objects, check_scalar
from ..kernels.base import Kernel, TakeNotImplemented, take_prepared


def write_tiles(plan, out, tiles, progress=False):
    """Write computed tiles into ``out`` (as in :func:`gram`) and return it.

    ``tiles`` is an iterable (typically a generator, started only after
    ``out`` is checked) of ``((i, j), tile)`` covering ``plan.tiles`` in
    any order; tiles of a symmetric plan are mirrored below the diagonal.
    Or a callable ``tiles(target)`` returning that iterable, called once
    the output exists: ``target`` is the :class:`FileTarget` of the
    partial ``.npy`` file for a path, ``None`` for an array. A tile given
    as ``None`` was written in place (into ``target``, mirror included)
    by whoever computed it.
    """
    if not (out is None or isinstance(out, (np.ndarray, str, os.PathLike))):
        raise TypeError(f"out must be None, a path or a float64 ndarray, got {type(out).__name__}")
    if isinstance(out, np.ndarray):
        _check_out(out, plan.shape)
    tick = Progress(progress, len(plan.tiles))
    try:
        if isinstance(out, (str, os.PathLike)):
            return _fill_file(plan, Path(out), tiles, tick)
        K = np.empty(plan.shape) if out is None else out
        try:
            _store(plan, K, tiles(None) if callable(tiles) else tiles, tick)
        except BaseException:
            if out is not None:
                _poison(K)
            raise
        return K
    finally:
        tick.close()


# --------------------------------------------------------------- the tiling
class Plan:
    """Validated kernel, prepared blocks of objects and the tiles to compute."""

    def __init__(self, kernel, X, Y, block_size, prepared=None):
        if not isinstance(kernel, Kernel):
            raise TypeError(
                f"kernel must be a structk Kernel, got {type(kernel).__name__}; "
                "wrap a Python function with structk.kernels.FunctionKernel"
            )
        self.block_size = check_scalar(block_size, "block_size", lower=1, integer=True)
        self.kernel = kernel.validate()
        self.symmetric = Y is None
        X = check_objects(X, "X")
        self.rows = _bounds(_length(X), self.block_size)
        if prepared is None:
            self.row_blocks = prepared_blocks(kernel, X, self.rows, "X")
        else:  # X prepared by the caller: sliced, prepared anew only if it cannot be
            self.row_blocks = [
                take_prepared(kernel, X, prepared, slice(a, b), "X") for a, b in self.rows
            ]
        if self.symmetric:
            self.cols, self.col_blocks = self.rows, self.row_blocks
            n = len(self.rows)
            self.tiles = [(i, j) for i in range(n) for j in range(i, n)]
        else:
            Y = check_objects(Y, "Y")
            self.cols = _bounds(_length(Y), self.block_size)
            self.col_blocks = prepared_blocks(kernel, Y, self.cols, "Y")
            # X and Y must pair (vector dimensions, sequence lengths, ...):
            # checked on one object of each before any tile is computed
            kernel.cross_prepared(
                prepared_blocks(kernel, X[:1], [(0, 1)], "X")[0],
                prepared_blocks(kernel, Y[:1], [(0, 1)], "Y")[0],
            )
            self.tiles = [(i, j) for i in range(len(self.rows)) for j in range(len(self.cols))]
        self.shape = (self.rows[-1][1], self.cols[-1][1])

    def row_block(self, i):
        return self.row_blocks[i]

    def col_block(self, j):
        return self.col_blocks[j]

    def compute(self, i, j):
        """Tile ``(i, j)`` as a float64 array, checked finite."""
        diagonal = self.symmetric and i == j
        return checked_tile(
            self.kernel,
            self.row_block(i),
            None if diagonal else self.col_block(j),
            (self.rows[i], self.cols[j]),
        )


def prepared_blocks(kernel, objects, bounds, name):
    """Prepared data of each block ``objects[a:b]`` for ``(a, b)`` in ``bounds``.

    The whole collection is prepared once (so invalid input is reported
    before any tile is computed) and sliced with ``kernel.take``. A kernel
    whose prepared data cannot be sliced (``TakeNotImplemented``) has each
    block prepared on its own instead, still up front and still once per
    object; its errors then name the block, e.g. ``X[1000:2000][17]``.
    """
    if _takes(kernel, objects, name):
        P = kernel.prepare(objects, name)
        return [kernel.take(P, slice(a, b)) for a, b in bounds]
    return [kernel.prepare(objects[a:b], f"{name}[{a}:{b}]") for a, b in bounds]


def _takes(kernel, objects, name):
    """Whether ``kernel.take`` slices its prepared data (probed on 1 object)."""
    try:
        kernel.take(kernel.prepare(objects[:1], name), slice(0, 1))
    except TakeNotImplemented:
        return False
    return True


def checked_tile(kernel, Pi, Pj, bounds):
    """One tile from prepared blocks, checked finite.

    ``Pj=None`` asks for the diagonal tile ``gram_prepared(Pi)`` (exactly
    symmetric); otherwise the tile is ``cross_prepared(Pi, Pj)``. ``bounds``
    are the tile's ``((row_start, row_stop), (col_start, col_stop))`` in the
    whole matrix, used to name the offending entry of a non-finite value.
    """
    if Pj is None:
        return kernel.gram_prepared(Pi, block=bounds)
    return kernel.cross_prepared(Pi, Pj, block=bounds)


def _length(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _bounds(n, block_size):
    return [(s, min(s + block_size, n)) for s in range(0, n, block_size)]


def _store(plan, K, tiles, tick):
    for (i, j), T in tiles:
        if T is not None:  # None: written in place (see write_tiles)
            (r0, r1), (c0, c1) = plan.rows[i], plan.cols[j]
            K[r0:r1, c0:c1] = T
            if plan.symmetric and i != j:
                K[c0:c1, r0:r1] = T.T
        tick()


class FileTarget:
    """The ``.npy`` file a Gram matrix is being written to, as another
    process on the same machine can write tiles into it directly.

    A Dask worker that computes a tile of :func:`~structk.scale.dask_gram`
    writes it here (:meth:`write`) instead of sending it to the client
    (a socket transfer, a copy in the client and the client's own write);
    on another machine, or where the file is not the one the client
    opened (same host name, device and inode), :meth:`write` declines and
    the tile travels as before. Mapped files on one machine share the page
    cache, so the client's final flush and rename cover these writes.
    """

    def __init__(self, path, offset, shape):
        info = os.stat(path)
        self.path, self.offset, self.shape = str(path), int(offset), tuple(shape)
        self.host, self.identity = socket.gethostname(), (info.st_dev, info.st_ino)

    def _rows(self, a, b):
        """Rows ``a:b`` of the matrix as a writable memmap, or ``None``
        when this process does not see the client's file."""
        if socket.gethostname() != self.host:
            return None
        try:
            info = os.stat(self.path)
            if (info.st_dev, info.st_ino) != self.identity:
                return None
            return np.memmap(
                self.path,
                dtype=np.float64,
                mode="r+",
                offset=self.offset + 8 * a * self.shape[1],
                shape=(b - a, self.shape[1]),
            )
        except OSError:  # removed meanwhile, not writable by this user, ...
            return None

    def write(self, T, bounds, mirror):
        """Write tile ``T`` at ``bounds`` (and ``T.T`` at the mirrored
        place when ``mirror``); ``False`` when this process cannot."""
        (r0, r1), (c0, c1) = bounds
        band = self._rows(r0, r1)
        other = band if band is None or not mirror else self._rows(c0, c1)
        if band is None or other is None:
            return False
        band[:, c0:c1] = T
        if mirror:
            other[:, r0:r1] = T.T
        return True


# ------------------------------------------------------------------ outputs
def _check_out(out, shape):
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape} but the Gram matrix is {shape}")
    if out.dtype != np.float64:
        raise ValueError(f"out must have dtype float64, got {out.dtype}")
    if not out.flags.writeable:
        raise ValueError("out is read-only (open a memmap with mode 'r+' or 'w+')")
    return out


def _poison(K, rows=None):
    """Fill a failed output with NaN, in row blocks (no n^2 temporary)."""
    rows = rows or _tuning.POISON_BLOCK_ROWS
    for start in range(0, K.shape[0], rows):
        K[start : start + rows] = np.nan
    if isinstance(K, np.memmap):
        K.flush()


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fill_file(plan, path, tiles, tick):
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise IsADirectoryError(f"cannot write the Gram matrix to {path}: it is a folder")
    if not folder.is_dir():
        raise FileNotFoundError(
            f"cannot write the Gram matrix to {path}: folder {folder} does not exist"
        )
    remove_stale_partial_files(path)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".partial", dir=folder
        )
    except OSError as exc:
        raise PermissionError(
            f"cannot write the Gram matrix to {path}: {exc.strerror or exc}"
        ) from exc
    os.close(fd)
    _PARTIAL_FILES.add(tmp)
    try:
        need = 8 * plan.shape[0] * plan.shape[1]
        free = shutil.disk_usage(folder).free
        if need > free:
            raise OSError(
                f"cannot write the Gram matrix to {path}: it needs {_gib(need)} on disk "
                f"but {folder} has {_gib(free)} free"
            )
        with _removed_on_sigterm():
            K = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float64, shape=plan.shape)
            if callable(tiles):
                tiles = tiles(FileTarget(tmp, K.offset, plan.shape))
            _store(plan, K, tiles, tick)
            K.flush()
            del K
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp made it 0600; a result is not secret
            os.replace(tmp, path)
            _PARTIAL_FILES.discard(tmp)
    finally:
        remove_partial_files({tmp})
    return np.load(path, mmap_mode="r")


# ------------------------------------------------ interrupted file outputs
#: Temporary ``.partial`` files this process is writing (see :func:`_fill_file`).
_PARTIAL_FILES = set()


def remove_partial_files(which=None):
    """Delete this process's unfinished ``.partial`` outputs (all, or ``which``).

    Called when a write fails, on SIGTERM, and by the command line when it
    is interrupted.
    """
    for tmp in list(_PARTIAL_FILES if which is None else which & _PARTIAL_FILES):
        _PARTIAL_FILES.discard(tmp)
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def partial_file(path, what):
    """A new, empty ``.NAME.PID.XXXX.partial`` file beside ``path``, for
    writing ``what`` (e.g. "the model") and renaming into place when
    complete; removed by :func:`remove_partial_files` if the run fails or is
    interrupted first. Readable as ordinary output is (0666 less the umask).
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise IsADirectoryError(f"cannot write {what} to {path}: it is a folder")
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot write {what} to {path}: folder {folder} does not exist")
    remove_stale_partial_files(path)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".partial", dir=folder
        )
    except OSError as exc:
        raise PermissionError(f"cannot write {what} to {path}: {exc.strerror or exc}") from exc
    os.close(fd)
    _PARTIAL_FILES.add(tmp)
    os.chmod(tmp, 0o666 & ~_umask())
    return Path(tmp)


def remove_stale_partial_files(path):
    """Delete the ``.partial`` files left beside ``path`` by dead processes.

    A process killed by SIGKILL (or a power cut) cannot clean up; its file
    ``.NAME.PID.XXXX.partial`` names its process id, so the next run writing
    to the same path removes it when that process no longer exists.
    """
    folder = path.parent if str(path.parent) else Path(".")
    prefix = f".{path.name}."
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(".partial")):
                continue
            pid = name[len(prefix) :].split(".", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process
        return True
    return True


@contextlib.contextmanager
def _removed_on_sigterm():
    """While writing, let SIGTERM delete the partial files before the process
    dies as it would have (only where SIGTERM has its default action and only
    in the main thread, where Python can install a handler)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def terminate(signum, frame):
        remove_partial_files()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


# ------------------------------------------------------------------- memory
def check_memory(plan, n_jobs, out, memory_limit):
    if memory_limit is None:
        available, source = _available_memory(), "the available memory"
        if available is None:
            return
    else:
        available = check_scalar(memory_limit, "memory_limit", lower=1, integer=True)
        source = "memory_limit"
    b = min(plan.block_size, max(plan.shape))
    tiles = defaults.TILE_WORK_FACTOR * 8 * b * b * n_jobs
    whole = 8 * plan.shape[0] * plan.shape[1] if out is None else 0
    if tiles + whole <= available:
        return
    if whole:
        hint = (
            f"the {plan.shape[0]} x {plan.shape[1]} matrix alone needs {_gib(whole)}; "
            "pass out='path/to/K.npy' to build it on disk"
        )
    else:
        fits = int((available / (defaults.TILE_WORK_FACTOR * 8 * n_jobs)) ** 0.5)
        hint = f"use block_size <= {fits}" if fits >= 1 else "reduce n_jobs"
    raise MemoryError(
        f"gram with block_size={plan.block_size} and n_jobs={n_jobs} needs about "
        f"{_gib(tiles + whole)} ({n_jobs} x {b} x {b} float64 tiles x "
        f"{defaults.TILE_WORK_FACTOR} for working copies"
        + (", plus the full matrix in memory" if whole else "")
        + f") but {source} is {_gib(available)}: {hint}"
    )


def _available_memory():
    """:func:`structk._memory.available_memory` (looked up here at call time,
    so that a test can pretend the machine is small)."""
    return available_memory()


def _gib(nbytes):
    if nbytes >= 2**30:
        return f"{nbytes / 2**30:.2f} GiB"
    return f"{nbytes / 2**20:.1f} MiB"


# ----------------------------------------------------------------- progress
class Progress:
    """Thread-safe tile counter feeding a tqdm bar or a user callback."""

    def __init__(self, progress, total, desc="gram", unit="tile"):
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
            self.bar = tqdm(total=total, unit=unit, desc=desc)
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
