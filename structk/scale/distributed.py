"""Gram matrices as Dask arrays, computed on a Dask cluster.

:func:`dask_gram` cuts the Gram matrix into the same square tiles as
:func:`structk.gram` and makes each tile one Dask task. The objects are
prepared (validated and encoded) once, on the client; the kernel object and
the encoded blocks are then pickled and each becomes one small Dask task
that returns its bytes (:func:`_send`); the tiles depend on those tasks,
so no tile task carries data and a worker fetches each block once.
Written to a ``.npy`` file (``out=path``), a tile goes into the file
straight from the worker that computed it when that worker runs on the
client's machine (a ``LocalCluster``; :class:`~structk.scale._tiling.FileTarget`
checks the host and the file's identity); from other machines it travels
to the client, which writes it.
For a symmetric Gram only the tiles on and above the diagonal are tasks: a
tile below the diagonal is the transpose of its mirror image, and Dask
computes the mirror once.

If a worker dies mid-computation, Dask recomputes the tiles it held on the
surviving or restarted workers, and the input blocks it held too: a block
is a task whose specification (its bytes) stays on the scheduler, so no
input is lost with a worker. (Data sent with ``client.scatter`` could be:
Dask's active memory manager drops the extra copies of broadcast data, and
a block whose last copy dies with its worker cannot be recovered.)

Needs ``dask.distributed`` (``pip install structk[dask]``).

References
----------
M. Rocklin, "Dask: Parallel Computation with Blocked algorithms and Task
Scheduling", Proceedings of the 14th Python in Science Conference, 2015.
"""

from __future__ import annotations

import collections
import pickle
import threading
import uuid

import numpy as np

from .. import _tuning
from .._validation import check_objects
from ._tiling import Plan, _length, check_memory, checked_tile, write_tiles


def dask_gram(kernel, X, Y=None, *, block_size=None, client=None, out=None, progress=False):
    """Gram matrix ``K[i, j] = kernel(X[i], Y[j])`` as a lazy ``dask.array``.

    Parameters
    ----------
    kernel : Kernel
        Any structk kernel that can be pickled (with cloudpickle: lambdas are
        fine, locks and open files are not).
    X : sequence of objects
    Y : sequence of objects, optional
        Second collection; ``Y = X`` when omitted, and then only the tiles on
        and above the diagonal are computed.
    block_size : int >= 1, optional
        Side of the square tiles, i.e. the chunk size of the result. Each
        task needs about ``4 * 8 * block_size**2`` bytes of worker memory.
        Default: chosen from the number of objects and of the cluster's
        worker threads (:func:`default_block_size`), larger than
        :func:`structk.gram`'s 1024 when that leaves every thread a few
        tiles: on a cluster each tile costs a task, a transfer and the
        kernel's per-block work again.
    client : distributed.Client, optional
        Where to compute; default: the current client
        (``distributed.get_client()``). A ``Client(LocalCluster())`` uses all
        the cores of this machine; ``Client("tcp://scheduler:8786")`` a
        cluster.
    out : None, str, os.PathLike or ndarray, default None
        ``None`` returns the lazy dask array. Otherwise the tiles are
        computed at once and written into ``out`` on the client as they
        arrive, exactly as :func:`structk.gram` does (a path gives a ``.npy``
        memmap renamed into place only when complete; an array is filled in
        place, with NaN if the computation fails). The client holds a few
        tiles at a time, never the whole matrix. Into a path, workers on
        the client's machine write their tiles into the file themselves,
        so those tiles never cross a socket.
    progress : bool or callable, default False
        With ``out``: a tqdm bar (``True``) or ``progress(done, total)``.

    Returns
    -------
    K : dask.array.Array, or ndarray / np.memmap when ``out`` is given
        float64, shape (len(X), len(Y)), in chunks of
        ``block_size x block_size`` (``K.chunks[0][0]`` is the block size
        chosen). Each tile equals the tile
        :func:`structk.gram` computes with the same ``block_size`` on a
        machine with the same BLAS, bit for bit when BLAS runs single-threaded
        (as it does in Dask workers). ``K.compute()`` gives an ndarray,
        ``K.to_zarr(...)`` writes to chunked storage.

    Raises
    ------
    TypeError
        When the kernel (or the prepared objects) cannot be pickled; the
        message names the kernel.
    ImportError, ValueError
        Without ``dask.distributed`` installed, or without a client.

    Examples
    --------
    >>> from dask.distributed import Client, LocalCluster   # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2))          # doctest: +SKIP
    >>> K = dask_gram(Gaussian(), X, block_size=2000)       # doctest: +SKIP
    >>> K.compute()                                         # doctest: +SKIP
    """
    da, delayed, client = _dask_and_client(client, array=out is None)
    if block_size is None:
        X = check_objects(X, "X")
        Y = None if Y is None else check_objects(Y, "Y")
        sizes = (_length(X),) if Y is None else (_length(X), _length(Y))
        block_size = default_block_size(sizes, sum(client.nthreads().values()))
    plan = Plan(kernel, X, Y, block_size)
    if out is not None:
        check_memory(plan, 1, out, None)
    kernel_f = _send(client, kernel, f"the kernel {kernel!r}")
    rows_f = [
        _send(client, plan.row_block(i), f"the objects of X as prepared by {kernel!r}")
        for i in range(len(plan.rows))
    ]
    cols_f = (
        rows_f
        if plan.symmetric
        else [
            _send(client, plan.col_block(j), f"the objects of Y as prepared by {kernel!r}")
            for j in range(len(plan.cols))
        ]
    )

    def tasks(target=None):
        token = uuid.uuid4().hex
        tiles = {}
        for i, j in plan.tiles:
            diagonal = plan.symmetric and i == j
            tiles[i, j] = delayed(_tile_task, pure=False)(
                kernel_f,
                rows_f[i],
                None if diagonal else cols_f[j],
                (plan.rows[i], plan.cols[j]),
                None if target is None else (target, plan.symmetric and i != j),
                dask_key_name=f"structk-gram-tile-{token}-{i}-{j}",
            )
        return tiles

    if out is None:
        return _assemble(da, plan, tasks())
    return write_tiles(plan, out, lambda target: _gathered(client, tasks(target)), progress)


def default_block_size(sizes, threads):
    """The default tile side of :func:`dask_gram` for ``sizes`` = ``(n,)``
    (a symmetric Gram) or ``(n_x, n_y)``, on ``threads`` worker threads.

    The largest side from ``_tuning.DASK_BLOCK_MIN`` to ``DASK_BLOCK_MAX``
    whose tiles (only those on and above the diagonal of a symmetric Gram)
    number at least ``_tuning.DASK_TILES_PER_THREAD`` per thread; the
    smallest allowed side when none does. Fewer, larger tiles mean fewer
    tasks and transfers, and less per-block work repeated (a k-mer kernel
    counts both blocks' k-mers for every tile).
    """
    want = _tuning.DASK_TILES_PER_THREAD * max(1, int(threads))
    lo, hi = _tuning.DASK_BLOCK_MIN, _tuning.DASK_BLOCK_MAX
    longest = max(max(sizes), 1)
    blocks = 1
    while True:
        side = -(-longest // blocks)
        if side <= lo:
            return max(1, min(lo, longest))
        if side <= hi and _tile_count(sizes, side) >= want:
            return side
        blocks += 1


def _tile_count(sizes, side):
    counts = [-(-n // side) for n in sizes]
    if len(counts) == 1:
        return counts[0] * (counts[0] + 1) // 2
    return counts[0] * counts[1]


def _assemble(da, plan, tasks):
    """The tiles as one dask array; a tile below the diagonal is a transpose."""
    grid = [[None] * len(plan.cols) for _ in plan.rows]
    for (i, j), task in tasks.items():
        shape = (plan.rows[i][1] - plan.rows[i][0], plan.cols[j][1] - plan.cols[j][0])
        grid[i][j] = da.from_delayed(task, shape=shape, dtype=np.float64)
        if plan.symmetric and i != j:
            grid[j][i] = grid[i][j].T
    return da.block(grid)


def _gathered(client, tasks):
    """Yield ``((i, j), tile)`` as the cluster finishes them; cancel on exit."""
    from distributed import as_completed

    futures = client.compute(list(tasks.values()))
    where = {f.key: ij for f, ij in zip(futures, tasks)}
    try:
        for future, tile in as_completed(futures, with_results=True):
            yield where[future.key], tile
            future.release()
    finally:
        client.cancel(futures)


def _dask_and_client(client, array=False):
    """``(dask.array or None, dask.delayed, client)``: ``client``, or the
    current one. ``dask.array`` is imported only when ``array`` is true: its
    import alone cost 0.4-0.9 s of CPU in a process that had imported
    ``distributed`` (a Nystroem fit through ``client=`` paid it, 2026-11-28),
    and only the lazy array of :func:`dask_gram` needs it."""
    try:
        from dask import delayed
        from distributed import get_client

        da = None
        if array:
            import dask.array as da
    except ImportError:
        raise ImportError("dask_gram needs dask.distributed: pip install 'structk[dask]'") from None
    if client is None:
        try:
            client = get_client()
        except ValueError:
            raise ValueError(
                "dask_gram needs a Dask client: start one with "
                "`from dask.distributed import Client; client = Client()` (a local "
                "cluster) or `Client('tcp://scheduler:8786')`, or pass client=..."
            ) from None
    return da, delayed, client


def _send(client, obj, what, worker=None):
    """Pickle ``obj`` (or raise a clear TypeError) and send it as a task.

    Each object is pickled and sent on its own, so the client holds one
    pickled block at a time. The future is that of a task returning the
    bytes: unlike ``client.scatter``, whose data Dask cannot rebuild once the
    last worker holding it dies (and its active memory manager drops the
    extra copies of broadcast data), a task is recomputed from its
    specification, which the scheduler keeps. Tasks receive pickled bytes
    rather than the objects: Dask deserialises numpy arrays into frames at
    arbitrary byte offsets, and numpy falls back from BLAS to slow loops
    (with different rounding) on such unaligned arrays; ``pickle.loads`` in
    the worker rebuilds aligned arrays (see :func:`_loads`). ``worker``: a
    list of worker addresses to prefer (:func:`_spread`), never required.
    """
    where = {} if worker is None else {"workers": worker, "allow_other_workers": True}
    return _held_task(client, _pickled(obj, what), **where)


def _held_task(client, blob, **where):
    """The future of a task returning the pickled ``blob`` (:func:`_held`)."""
    return client.submit(_held, blob, key=f"structk-block-{uuid.uuid4().hex}", **where)


def _spread(client, count):
    """``count`` worker addresses, round robin (or ``None`` each without
    workers): where to put blocks that tasks will use again and again, as a
    preference (:func:`_send`'s ``allow_other_workers``), so that a worker
    that dies takes no block with it. Dask would put all of blocks sent at
    once on one idle worker, and the tasks follow their data."""
    workers = sorted(client.nthreads())
    if not workers:
        return [None] * count
    return [[workers[i % len(workers)]] for i in range(count)]


def _shipped(client, obj, what):
    """``obj`` pickled, as bytes to put in a task's own specification when
    at most ``_tuning.DASK_INLINE_MAX_BYTES`` long, else as :func:`_send`'s
    task. Inline, the tasks using it need no other task first (no scheduler
    step, no fetch from another worker); each carries a copy, so large
    objects go once, as a task. Either way a task receives bytes."""
    blob = _pickled(obj, what)
    if len(blob) <= _tuning.DASK_INLINE_MAX_BYTES:
        return blob
    return _held_task(client, blob)


def _pickled(obj, what):
    """``cloudpickle.dumps(obj)``, or a TypeError naming ``what``."""
    import cloudpickle

    try:
        return cloudpickle.dumps(obj, protocol=5)
    except Exception as exc:  # pickling raises TypeError, PicklingError, ...
        raise TypeError(
            f"{what} cannot be sent to Dask workers: pickling failed with "
            f"{type(exc).__name__}: {exc}. Everything a kernel holds must be "
            "picklable (no locks, open files, sockets or database handles); "
            "compute on one machine with structk.gram(kernel, X, n_jobs=...) "
            "instead, or keep such state out of the kernel."
        ) from exc


def _held(blob):
    """One Dask task: the pickled block it was given (see :func:`_send`)."""
    return blob


#: Per worker process: the last few unpickled blocks, keyed by the identity
#: of their pickled bytes (held too, so an id is never reused while cached).
_DECODED = collections.OrderedDict()
_DECODED_LOCK = threading.Lock()


def _loads(blob, token=None):
    """``pickle.loads(blob)``, reusing the result for the same bytes object,
    or for the same ``token`` (a string naming the bytes uniquely, for bytes
    that come inside each task's own specification, a new object each time).

    A worker holds one bytes object per scattered block and the tiles of a
    row share their row block, so most tasks find their blocks decoded.
    """
    key = id(blob) if token is None else token
    with _DECODED_LOCK:
        hit = _DECODED.get(key)
        if hit is not None and (token is not None or hit[0] is blob):
            _DECODED.move_to_end(key)
            return hit[1]
    obj = pickle.loads(blob)
    with _DECODED_LOCK:
        _DECODED[key] = (blob, obj)
        while len(_DECODED) > _tuning.DISTRIBUTED_DECODED_MAX:
            _DECODED.popitem(last=False)
    return obj


def _tile_task(kernel_blob, rows_blob, cols_blob, bounds, into=None):
    """One Dask task: decode the kernel and the two blocks, compute the tile.

    ``into = (target, mirror)``: write the tile into the output file
    ``target`` (a :class:`~structk.scale._tiling.FileTarget`) when this
    worker sees it, and return ``None`` instead of the tile.
    """
    cols = None if cols_blob is None else _loads(cols_blob)
    T = checked_tile(_loads(kernel_blob), _loads(rows_blob), cols, bounds)
    if into is not None and into[0].write(T, bounds, into[1]):
        return None
    return T
