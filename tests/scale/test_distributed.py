"""Dask Gram (structk.dask_gram) on a real 2-process LocalCluster on loopback."""

import os
import sys
import threading
import time

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")
threadpoolctl = pytest.importorskip("threadpoolctl")

from scale_util import process_cluster  # noqa: E402

from structk import dask_gram, gram  # noqa: E402
from structk.kernels import (  # noqa: E402
    FunctionKernel,
    Gaussian,
    Linear,
    Normalize,
    Polynomial,
)

# classes defined here travel to the worker processes by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])

RNG = np.random.default_rng(5)
X = RNG.normal(size=(91, 12))
Y = RNG.normal(size=(30, 12))
STRINGS = ["".join(RNG.choice(list("ACGT"), size=RNG.integers(1, 9))) for _ in range(23)]


def local_gram(*args, **kwargs):
    """In-memory reference, with BLAS single-threaded like Dask's workers."""
    with threadpoolctl.threadpool_limits(1):
        return gram(*args, **kwargs)


@pytest.fixture(scope="module")
def client():
    # Dask's active memory manager, which drops extra copies of data, runs
    # every 2 s by default; every 50 ms here, so a test sees what it does
    amm = {"distributed.scheduler.active-memory-manager.interval": "50ms"}
    with process_cluster(amm) as c:
        yield c


def test_no_client_is_a_clear_error(monkeypatch):
    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", no_client)
    with pytest.raises(ValueError, match="dask_gram needs a Dask client"):
        dask_gram(Linear(), X)


def test_missing_dask_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.array", None)
    with pytest.raises(ImportError, match=r"pip install 'structk\[dask\]'"):
        dask_gram(Linear(), X)


@pytest.mark.parametrize(
    "kernel",
    [
        Linear(),
        Gaussian(sigma=3.0),
        Normalize(Polynomial(degree=3) + Gaussian()),
    ],
    ids=repr,
)
def test_equals_in_memory_gram_exactly(client, kernel):
    K = dask_gram(kernel, X, block_size=20, client=client)
    assert K.chunks == ((20, 20, 20, 20, 11),) * 2
    # 15 upper tiles become tasks; the 10 lower ones are transposes of them
    tile_tasks = [k for k in K.__dask_graph__() if "structk-gram-tile" in str(k)]
    assert len(tile_tasks) == 15
    A = K.compute()
    assert np.array_equal(A, local_gram(kernel, X, block_size=20))
    np.testing.assert_allclose(A, kernel(X), rtol=1e-12, atol=1e-13)
    C = dask_gram(kernel, X, Y, block_size=20, client=client).compute()
    assert np.array_equal(C, local_gram(kernel, X, Y, block_size=20))


def test_gapped_kmer_tiles_equal_the_whole_gram(client):
    from structk.kernels import GappedKmer

    seqs = ["".join(RNG.choice(list("ACGT"), size=RNG.integers(3, 40))) for _ in range(33)]
    seqs += ["ACGTNNACGTACGGT", "acgtacgtAC", "ACG"]  # an N, soft-masked, shorter than l
    for kernel in (
        GappedKmer(l=5, k=3, d=2),
        GappedKmer(
            l=5,
            k=3,
            d=2,
            kind="count",
            reverse_complement=False,
            center_weighted=True,
            M=9,
            H=4.0,
            normalize=False,
        ),
    ):
        K = dask_gram(kernel, seqs, block_size=10, client=client).compute()
        assert np.array_equal(K, local_gram(kernel, seqs, block_size=10))
        np.testing.assert_allclose(K, kernel(seqs), rtol=1e-12, atol=1e-12)
        C = dask_gram(kernel, seqs, seqs[:7], block_size=10, client=client).compute()
        np.testing.assert_allclose(C, kernel(seqs, seqs[:7]), rtol=1e-12, atol=1e-12)


def test_function_kernel_with_lambda_on_strings(client):
    k = FunctionKernel(lambda a, b: float(len(set(a) & set(b))), name="shared letters")
    brute = np.array([[len(set(a) & set(b)) for b in STRINGS] for a in STRINGS])
    np.testing.assert_array_equal(dask_gram(k, STRINGS, block_size=6).compute(), brute)


class Locked:
    """A callable holding a lock: cannot be pickled, even by cloudpickle."""

    def __init__(self):
        self.lock = threading.Lock()

    def __call__(self, a, b):
        with self.lock:
            return float(len(a) * len(b))


def test_unpicklable_kernel_names_the_kernel(client, tmp_path):
    k = FunctionKernel(Locked(), name="locked")
    with pytest.raises(
        TypeError,
        match=r"the kernel FunctionKernel\(locked\) cannot be sent "
        r"to Dask workers.*_thread.lock",
    ):
        dask_gram(k, STRINGS, client=client)
    with open(tmp_path / "f.txt", "w") as handle:
        k = FunctionKernel(lambda a, b: 1.0 if handle else 0.0, name="file")
        with pytest.raises(TypeError, match=r"FunctionKernel\(file\) cannot be sent"):
            dask_gram(k, STRINGS, client=client)


def test_unpicklable_objects_are_named(client):
    k = FunctionKernel(lambda a, b: 1.0, name="one")
    with pytest.raises(TypeError, match=r"objects of X as prepared by FunctionKernel\(one\)"):
        dask_gram(k, [threading.Lock(), threading.Lock()], client=client)


MARK = 1234.5


class KillOnce(Linear):
    """Linear kernel whose task kills its worker process the first time it
    meets the row holding ``MARK`` (claimed atomically through ``marker``)."""

    def __init__(self, marker):
        self.marker = marker

    def _hit(self, P):
        if MARK in P[:, 0]:
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            time.sleep(0.5)  # the memory manager has dropped extra copies by now
            os._exit(1)

    def _gram(self, P):
        self._hit(P)
        return super()._gram(P)

    def _cross(self, P, Q):
        self._hit(P)
        self._hit(Q)
        return super()._cross(P, Q)


def test_worker_killed_mid_computation_loses_nothing(client, tmp_path):
    Z = X.copy()
    Z[75, 0] = MARK  # in the fourth of five row blocks
    marker = tmp_path / "killed"
    K = dask_gram(KillOnce(str(marker)), Z, block_size=20, client=client).compute()
    assert marker.exists(), "no worker was killed: the test did not test recovery"
    pid = int(marker.read_text())
    assert pid != os.getpid()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the worker process really died
    assert np.array_equal(K, local_gram(Linear(), Z, block_size=20))
    client.wait_for_workers(2, timeout=30)  # the nanny restarted it


def test_out_path_is_written_tile_by_tile(client, tmp_path):
    k = Normalize(Gaussian(sigma=2.0) + Linear())
    seen = []
    K = dask_gram(
        k,
        X,
        block_size=16,
        client=client,
        out=tmp_path / "K.npy",
        progress=lambda done, total: seen.append((done, total)),
    )
    assert isinstance(K, np.memmap)
    assert np.array_equal(np.load(tmp_path / "K.npy"), local_gram(k, X, block_size=16))
    assert seen == [(d, 21) for d in range(1, 22)]
    C = np.empty((91, 30))
    assert dask_gram(k, X, Y, block_size=16, client=client, out=C) is C
    assert np.array_equal(C, local_gram(k, X, Y, block_size=16))


def _arrivals(monkeypatch):
    """Record, in the client, which tiles reach it as data and which as
    ``None`` (written into the file by the worker)."""
    from structk.scale import _tiling

    seen, store = [], _tiling._store

    def recording(plan, K, tiles, tick):
        def tap():
            for ij, T in tiles:
                seen.append(T is None)
                yield ij, T

        return store(plan, K, tap(), tick)

    monkeypatch.setattr(_tiling, "_store", recording)
    return seen


@pytest.mark.parametrize("Y_", [None, Y])
def test_workers_on_this_machine_write_their_tiles_into_the_file(client, tmp_path, monkeypatch, Y_):
    seen = _arrivals(monkeypatch)
    k = Normalize(Gaussian(sigma=2.0) + Linear())
    K = dask_gram(k, X, Y_, block_size=16, client=client, out=tmp_path / "K.npy")
    n_tiles = 21 if Y_ is None else 6 * 2
    assert seen == [True] * n_tiles  # no tile crossed a socket
    assert np.array_equal(K, local_gram(k, X, Y_, block_size=16))  # mirrors included
    assert os.listdir(tmp_path) == ["K.npy"]


def test_tiles_travel_when_the_file_is_elsewhere(client, tmp_path, monkeypatch):
    from structk.scale import _tiling

    made = _tiling.FileTarget.__init__

    def on_another_host(self, *args):
        made(self, *args)
        self.host = "some-other-machine"

    monkeypatch.setattr(_tiling.FileTarget, "__init__", on_another_host)
    seen = _arrivals(monkeypatch)
    k = Normalize(Gaussian(sigma=2.0) + Linear())
    K = dask_gram(k, X, block_size=16, client=client, out=tmp_path / "K.npy")
    assert seen == [False] * 21  # every tile came back to the client, which wrote it
    assert np.array_equal(K, local_gram(k, X, block_size=16))


def test_file_target_writes_only_into_the_clients_file(tmp_path):
    from structk.scale._tiling import FileTarget

    path = tmp_path / "K.npy"
    K = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(5, 7))
    target = FileTarget(path, K.offset, (5, 7))
    T = np.arange(6.0).reshape(2, 3)
    assert target.write(T, ((1, 3), (4, 7)), mirror=False)
    expected = np.zeros((5, 7))
    expected[1:3, 4:7] = T
    assert np.array_equal(np.load(path), expected)
    square = FileTarget(path, K.offset, (5, 7))  # mirrored: T at rows 0:2, T.T at rows 2:5
    assert square.write(T, ((0, 2), (2, 5)), mirror=True)
    expected[0:2, 2:5], expected[2:5, 0:2] = T, T.T
    assert np.array_equal(np.load(path), expected)
    # another file at the same path (a new inode): the target declines
    del K
    np.save(tmp_path / "new.npy", np.zeros((5, 7)))
    os.replace(tmp_path / "new.npy", path)
    assert not target.write(T, ((1, 3), (4, 7)), mirror=False)
    assert not np.load(path).any()
    path.unlink()  # and a removed file
    assert not target.write(T, ((1, 3), (4, 7)), mirror=False)


class Fails(Linear):
    def _cross(self, P, Q):
        raise RuntimeError("injected failure on a worker")


def test_failure_on_a_worker_leaves_no_file(client, tmp_path):
    with pytest.raises(RuntimeError, match="injected failure on a worker"):
        dask_gram(Fails(), X, block_size=30, client=client, out=tmp_path / "K.npy")
    assert os.listdir(tmp_path) == []


def test_worker_side_decoding_cache_is_by_identity(tuning):
    from structk.scale.distributed import _loads

    blob = cloudpickle.dumps(np.arange(5.0))
    first = _loads(blob)
    assert _loads(blob) is first and first.flags.aligned
    twin = bytes(bytearray(blob))  # equal content, another object: decoded anew
    assert _loads(twin) is not first and np.array_equal(_loads(twin), first)
    for k in range(tuning.DISTRIBUTED_DECODED_MAX + 1):  # evicted after that many newer blocks
        _loads(cloudpickle.dumps(k))
    assert _loads(blob) is not first


def test_default_tiles_are_larger_on_few_threads(tuning):
    from structk.scale.distributed import default_block_size

    # 5 000 objects on 2 threads: 3 row blocks of 1667, 6 upper tiles (>= 3
    # per thread), where 1024 would make 15 tiles
    assert default_block_size((5000,), 2) == 1667
    # the largest side capped at DASK_BLOCK_MAX: 20 000 in 5 blocks of 4000
    assert default_block_size((20000,), 2) == 4000
    # many threads: the smallest side, as structk.gram's default
    assert default_block_size((5000,), 64) == 1024
    assert default_block_size((91,), 2) == 91  # one tile
    assert default_block_size((5000, 300), 2) == 1024  # 5 x 1 tiles at 1024
    assert default_block_size((0,), 2) == 1
    tuning.set(DASK_TILES_PER_THREAD=1, DASK_BLOCK_MIN=10, DASK_BLOCK_MAX=40)

    def tiles(sizes, side):
        c = [-(-n // side) for n in sizes]
        return c[0] * (c[0] + 1) // 2 if len(sizes) == 1 else c[0] * c[1]

    for sizes, threads in (((91,), 2), ((91, 30), 3), ((500,), 4), ((7, 200), 5)):
        side = default_block_size(sizes, threads)
        assert 10 <= side <= 40 and tiles(sizes, side) >= threads
        # one block fewer along the longest side: too large, or too few tiles
        blocks = -(-max(sizes) // side)
        fewer = -(-max(sizes) // (blocks - 1))
        assert fewer > 40 or tiles(sizes, fewer) < threads


def test_default_block_size_gives_the_gram_of_that_block_size(client, tuning):
    tuning.set(DASK_TILES_PER_THREAD=2, DASK_BLOCK_MIN=10, DASK_BLOCK_MAX=40)
    k = Normalize(Gaussian(sigma=2.0) + Linear())
    K = dask_gram(k, X, client=client)  # 2 threads, 4 tiles wanted: 3 blocks of 31
    assert K.chunks == ((31, 31, 29),) * 2
    assert np.array_equal(K.compute(), local_gram(k, X, block_size=31))
    C = dask_gram(k, X, Y, client=client)  # 91 x 30: 3 x 1 tiles of 31 < 4, 4 x 1 of 23
    assert C.chunks == ((23, 23, 23, 22), (23, 7))
    assert np.array_equal(C.compute(), local_gram(k, X, Y, block_size=23))
