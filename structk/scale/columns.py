"""Feature matrices of many objects, block by block: on threads or on Dask.

The learners past the Gram matrix (the primal and Nyström solvers of
:mod:`structk.learners.primal` and :mod:`structk.learners.falkon`) and
:class:`~structk.scale.Nystroem` need, for ``n`` objects, either a kernel's
own feature map or the landmark features ``k(X, landmarks) @ V`` of the
Nyström method: ``n x d`` numbers, never the ``n x n`` Gram. Both are
computed here in blocks of rows from the prepared objects (the public seam
of :mod:`structk.kernels.base`: ``prepare``, ``take``, ``cross_prepared``,
``features_prepared``), so memory holds the result plus a block or two of
work per thread, and the blocks run

* inline, or on ``n_jobs`` threads (kernels whose loops release the GIL
  gain: NumPy and BLAS products, compiled k-mer counting), or
* on a Dask cluster (``client=``): the kernel, the landmarks and ``V`` are
  pickled together and sent once (inside each task when at most
  ``_tuning.DASK_INLINE_MAX_BYTES``), each block of prepared objects is sent to one worker
  and its block of features comes back (as :func:`~structk.scale.dask_gram`
  ships tiles).

A tqdm bar (``progress=True``) or a callback ``progress(done, total)``
counts the blocks.
"""

from __future__ import annotations

import uuid

import numpy as np

from .. import _tuning
from .._threads import one_blas_thread
from ..kernels._memo import remembering
from ..kernels.base import take_prepared
from ._tiling import Progress, _length


def block_bounds(n, block_rows):
    """``[(start, stop), ...]`` covering ``range(n)`` in blocks."""
    return [(s, min(s + block_rows, n)) for s in range(0, n, block_rows)]


def exact_features(kernel, objects, P, *, block_rows=None, n_jobs=None, progress=False, align=None):
    """The kernel's own feature matrix of prepared objects, block by block.

    Returns a CSR matrix (float64) when the kernel's features are sparse,
    else a C-ordered float64 array; the blocks are stacked once at the end.
    ``align(Pb, F)``: puts each block's features ``F`` (prepared ``Pb``) in
    common columns, for kernels whose columns are numbered per call.
    """
    n = _length(objects)
    bounds = block_bounds(n, block_rows or _tuning.FEATURE_BLOCK_ROWS)

    def block(a, b):
        Pb = P if (a, b) == (0, n) else take_prepared(kernel, objects, P, slice(a, b), "X")
        F = kernel.features_prepared(Pb)
        return F if align is None else align(Pb, F)

    blocks = _run(block, bounds, n_jobs, progress, "features")
    return stack(blocks)


def landmark_features(
    kernel, objects, P, landmarks, V, *, block_rows=None, n_jobs=None, client=None, progress=False
):
    """``k(objects, landmarks) @ V`` (float64, ``n x V.shape[1]``), block by block.

    ``P`` is the prepared ``objects`` (``None``: each block is prepared on
    its own, as prediction does for new objects), ``landmarks`` the
    prepared landmarks. The ``n x m`` kernel columns are never held whole:
    each block of ``k(X_block, landmarks)`` is multiplied by ``V`` at once.
    """
    n = _length(objects)
    bounds = block_bounds(n, block_rows or _tuning.LANDMARK_BLOCK_ROWS)
    out = np.empty((n, V.shape[1]))

    def rows(a, b):
        if P is None:
            return kernel.prepare(_slice(objects, a, b), f"X[{a}:{b}]")
        return take_prepared(kernel, objects, P, slice(a, b), "X")

    columns = _Columns(kernel, landmarks, V)
    if client is not None:
        for (a, b), F in _dask_blocks(client, columns, rows, bounds, progress):
            out[a:b] = F
        return out

    def block(a, b):
        out[a:b] = columns(rows(a, b))

    with one_blas_thread():
        _run(block, bounds, n_jobs, progress, "kernel columns")
    return out


class _Columns:
    """What every block of landmark columns needs: the kernel, the prepared
    landmarks and ``V``; called on a block of prepared objects, its
    ``k(block, landmarks) @ V``.

    What the kernel derives from the landmarks (a k-mer kernel's counts) is
    computed for the first block and kept for the next ones
    (:mod:`structk.kernels._memo`) in ``memo``, which is not pickled: on a
    Dask cluster each worker derives it once from the landmarks it decoded
    once (:func:`~structk.scale.distributed._loads`), and keeps it as long
    as it keeps them.
    """

    def __init__(self, kernel, landmarks, V):
        self.kernel, self.landmarks, self.V = kernel, landmarks, V
        self.memo = {}

    def __getstate__(self):
        return self.kernel, self.landmarks, self.V

    def __setstate__(self, state):
        self.__init__(*state)

    def __call__(self, Pb):
        """``k(Pb, landmarks) @ V`` for one block, the same on every machine.

        The product runs on one BLAS thread (the caller holds
        :func:`~structk._threads.one_blas_thread`), as in Dask's workers,
        which pin BLAS to one thread: a threaded product may split its sums
        differently, and the learners downstream (conjugate gradients,
        L-BFGS) turn last-bit differences of the features into differences
        of 1e-12 to 1e-3 in the model. The block's own derived data is kept
        for the block's call (a normalised kernel needs it twice).
        """
        with remembering(self.landmarks, self.memo), remembering(Pb):
            return self.kernel.cross_prepared(Pb, self.landmarks) @ self.V


def stack(blocks):
    """Stack blocks of rows (all sparse or all dense) into one matrix."""
    import scipy.sparse as sp

    if len(blocks) == 1:
        F = blocks[0]
        return F.tocsr() if sp.issparse(F) else np.ascontiguousarray(F, dtype=np.float64)
    if sp.issparse(blocks[0]):
        return _stack_csr([F.tocsr() for F in blocks])
    return np.ascontiguousarray(np.vstack(blocks), dtype=np.float64)


def _stack_csr(blocks):
    """CSR blocks of rows stacked by concatenating their arrays (scipy's
    ``vstack`` also re-checks and re-casts them: 4x the time)."""
    import scipy.sparse as sp

    nnz = np.cumsum([0] + [F.nnz for F in blocks])
    small = nnz[-1] < 2**31 - 1 and blocks[0].shape[1] < 2**31 - 1  # hashed columns: 2^62
    index_dtype = np.int32 if small else np.int64
    indptr = np.empty(sum(F.shape[0] for F in blocks) + 1, dtype=index_dtype)
    indptr[0], row = 0, 0
    for F, offset in zip(blocks, nnz):
        indptr[row + 1 : row + 1 + F.shape[0]] = F.indptr[1:] + offset
        row += F.shape[0]
    data = np.concatenate([np.asarray(F.data, dtype=np.float64) for F in blocks])
    indices = np.concatenate([F.indices.astype(index_dtype, copy=False) for F in blocks])
    return sp.csr_matrix((data, indices, indptr), shape=(row, blocks[0].shape[1]), copy=False)


# ------------------------------------------------------------------ workers
def _run(fn, bounds, n_jobs, progress, what):
    """``fn(a, b)`` for every block, inline or on ``n_jobs`` threads, in order
    of the results; ticks a progress bar per block."""
    tick = Progress(progress, len(bounds), desc=what, unit="block")
    try:
        threads = _threads(n_jobs, len(bounds))
        if threads <= 1:
            results = []
            for a, b in bounds:
                results.append(fn(a, b))
                tick()
            return results
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = [pool.submit(fn, a, b) for a, b in bounds]
            try:
                results = []
                for f in futures:
                    results.append(f.result())
                    tick()
                return results
            finally:
                for f in futures:
                    f.cancel()
    finally:
        tick.close()


def _threads(n_jobs, blocks):
    if n_jobs is None or n_jobs == 1:
        return 1
    if (
        not isinstance(n_jobs, (int, np.integer))
        or isinstance(n_jobs, bool)
        or n_jobs == 0
        or n_jobs < -1
    ):
        raise ValueError(
            f"n_jobs must be a positive integer, -1 (all cores) or None, got {n_jobs!r}"
        )
    if n_jobs == -1:
        import os

        n_jobs = os.cpu_count() or 1
    return max(1, min(int(n_jobs), blocks))


def _dask_blocks(client, columns, rows, bounds, progress):
    """Yield ``((a, b), features)`` computed on the Dask cluster
    (``columns``: a :class:`_Columns`)."""
    from distributed import as_completed

    from .distributed import _dask_and_client, _shipped

    _, delayed, client = _dask_and_client(client)
    kernel = columns.kernel
    # one object that every block needs: inside each task when small, else
    # one task that each worker fetches once (one fetch, not two)
    shared = _shipped(client, columns, f"the kernel {kernel!r} and its landmarks")
    token = f"structk-columns-{uuid.uuid4().hex}"  # decoded once per worker, even inline
    futures, where = [], {}
    for a, b in bounds:
        blob = _pickled(rows(a, b), kernel)
        f = client.submit(_columns_task, shared, blob, token, pure=False)
        futures.append(f)
        where[f.key] = (a, b)
    tick = Progress(progress, len(bounds), desc="kernel columns", unit="block")
    try:
        for future, F in as_completed(futures, with_results=True):
            yield where[future.key], F
            future.release()
            tick()
    finally:
        tick.close()
        client.cancel(futures)


def _pickled(obj, kernel):
    import cloudpickle

    try:
        return cloudpickle.dumps(obj, protocol=5)
    except Exception as exc:
        raise TypeError(
            f"the objects as prepared by {kernel!r} cannot be sent to Dask workers: "
            f"pickling failed with {type(exc).__name__}: {exc}"
        ) from exc


def _columns_task(shared_blob, rows_blob, token):
    """One Dask task: ``k(rows, landmarks) @ V`` from pickled inputs
    (``shared_blob``: a :class:`_Columns`, decoded once per worker and
    ``token``)."""
    import pickle

    from .distributed import _loads

    columns = _loads(shared_blob, token)
    with one_blas_thread():
        return columns(pickle.loads(rows_blob))


def _slice(X, a, b):
    return X[a:b]
