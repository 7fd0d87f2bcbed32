"""Blockwise Gram (structk.gram) and the Kernel._take hook it relies on."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from structk import KernelOverflowError, gram
from structk.kernels.base import TakeNotImplemented
from structk.kernels import (
    Constant,
    Exp,
    FunctionKernel,
    FunctionScaled,
    Gaussian,
    Kernel,
    Laplace,
    Linear,
    Normalize,
    Polynomial,
)
from scale_util import LetterCounts

RNG = np.random.default_rng(3)
X = RNG.normal(size=(53, 4))
Y = RNG.normal(size=(21, 4))

KERNELS = [
    Gaussian(sigma=1.3),
    Laplace(sigma=2.0),
    Linear() + 3.0,
    Normalize(Polynomial(degree=3) * Gaussian()),
    FunctionScaled(Gaussian(), lambda x: 1 + x[0] ** 2),
    Exp(0.1 * Linear()) ** 2,
    Normalize(Exp(Linear())) + Constant(0.5),
]
IDS = [repr(k) for k in KERNELS]


def shared_kmers(a, b, k=2):
    """Spectrum kernel by its definition: sum over k-mers of count products."""
    ca = [a[i : i + k] for i in range(len(a) - k + 1)]
    cb = [b[i : i + k] for i in range(len(b) - k + 1)]
    return float(sum(ca.count(s) * cb.count(s) for s in set(ca)))


STRINGS = ["".join(RNG.choice(list("ACGT"), size=RNG.integers(2, 12))) for _ in range(19)]


# ----------------------------------------------------------------- _take hook
@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
@given(
    rows=st.lists(st.integers(0, 52), min_size=1, max_size=8),
    cols=st.lists(st.integers(0, 20), min_size=1, max_size=8),
)
def test_take_selects_the_same_entries(kernel, rows, cols):
    P, Q = kernel.prepare(X, "X"), kernel.prepare(Y, "Y")
    a, b = np.array(rows), np.array(cols)
    full = kernel(X, Y)
    np.testing.assert_allclose(
        kernel.cross_prepared(kernel.take(P, a), kernel.take(Q, b)),
        full[np.ix_(a, b)],
        rtol=1e-12,
        atol=1e-13,
    )
    np.testing.assert_allclose(
        kernel.diag_prepared(kernel.take(P, a)), kernel.diag(X)[a], rtol=1e-12, atol=1e-13
    )


def test_take_on_lists_slices_and_constant():
    k = FunctionKernel(shared_kmers)
    P = k.prepare(STRINGS, "X")
    assert k.take(P, slice(2, 5)) == STRINGS[2:5]
    assert k.take(P, np.array([4, 0])) == [STRINGS[4], STRINGS[0]]
    c = Constant(2.0)
    assert c.take(c.prepare(STRINGS, "X"), slice(3, 7)) == 4
    assert c.take(10, np.array([1, 1, 2])) == 3


def test_take_default_refuses_unknown_prepared_data():
    k = LetterCounts()
    with pytest.raises(
        TakeNotImplemented,
        match=r"LetterCounts._prepare returns Encoded"
        r".*implement LetterCounts._take",
    ):
        k.take(k.prepare(["ab"], "X"), slice(0, 1))
    assert issubclass(TakeNotImplemented, TypeError)


def test_kernels_without_take_are_prepared_block_by_block_once():
    k = LetterCounts()
    LetterCounts.prepared = 0
    K = gram(k, STRINGS, block_size=4)
    assert LetterCounts.prepared == 1 + len(STRINGS)  # a 1-object probe, then each once
    np.testing.assert_array_equal(K, k(STRINGS))
    np.testing.assert_array_equal(
        gram(k, STRINGS, STRINGS[:7], block_size=3), k(STRINGS, STRINGS[:7])
    )
    np.testing.assert_array_equal(
        gram(Normalize(k) + 1.0, STRINGS, block_size=5), (Normalize(k) + 1.0)(STRINGS)
    )
    with pytest.raises(ValueError, match=r"X\[8:12\]\[1\] is not a string"):
        gram(k, STRINGS[:9] + [5] + STRINGS[9:], block_size=4)


def test_gram_of_prepared_objects_prepares_nothing_more():
    """``prepared=``: the caller's prepared data, sliced per block; a kernel
    that cannot slice prepares each block of the list once (slices of a list)."""
    from structk.kernels import Spectrum

    k = Spectrum(k=2)
    P = k.prepare(STRINGS)
    np.testing.assert_array_equal(gram(k, STRINGS, block_size=4, prepared=P), k(STRINGS))
    plain = LetterCounts()
    LetterCounts.prepared = 0
    P = plain.prepare(STRINGS)
    K = gram(plain, STRINGS, block_size=4, prepared=P)
    assert LetterCounts.prepared == 2 * len(STRINGS)  # once whole, once block by block
    np.testing.assert_array_equal(K, plain(STRINGS))


# -------------------------------------------------------------- correctness
@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
@pytest.mark.parametrize("block_size", [1, 7, 53, 1000])
def test_gram_equals_kernel_call(kernel, block_size):
    K = gram(kernel, X, block_size=block_size)
    np.testing.assert_allclose(K, kernel(X), rtol=1e-12, atol=1e-13)
    assert np.array_equal(K, K.T)
    C = gram(kernel, X, Y, block_size=block_size)
    np.testing.assert_allclose(C, kernel(X, Y), rtol=1e-12, atol=1e-13)


def test_gram_on_strings_and_sets_with_function_kernels():
    k = FunctionKernel(shared_kmers)
    brute = np.array([[shared_kmers(a, b) for b in STRINGS] for a in STRINGS])
    np.testing.assert_array_equal(gram(k, STRINGS, block_size=4), brute)
    sets = [frozenset(s) for s in STRINGS]
    jac = FunctionKernel(lambda a, b: len(a & b) / len(a | b), name="jaccard")
    np.testing.assert_allclose(gram(jac, sets, sets[:5], block_size=3), jac(sets, sets[:5]))


@given(
    strings=st.lists(st.text("ACGT", max_size=10), min_size=1, max_size=15),
    block_size=st.integers(1, 16),
    n_jobs=st.integers(1, 2),
)
def test_gram_of_strings_matches_brute_force(strings, block_size, n_jobs):
    k = FunctionKernel(shared_kmers)
    brute = np.array([[shared_kmers(a, b) for b in strings] for a in strings])
    np.testing.assert_array_equal(gram(k, strings, block_size=block_size, n_jobs=n_jobs), brute)
    np.testing.assert_array_equal(
        gram(k, strings, strings[:3], block_size=block_size), brute[:, :3]
    )


def test_gram_on_sparse_features():
    class SparseLinear(Kernel):
        has_features = True

        def _features(self, P):
            return P

    A = sp.random(40, 30, density=0.1, format="csr", random_state=0)
    K = gram(SparseLinear(), A, block_size=9)
    np.testing.assert_allclose(K, (A @ A.T).toarray(), rtol=1e-12, atol=1e-14)


def test_threads_give_identical_tiles():
    k = Normalize(Polynomial(degree=2) + Gaussian())
    one = gram(k, X, block_size=8, n_jobs=1)
    two = gram(k, X, block_size=8, n_jobs=2)
    assert np.array_equal(one, two)


def test_progress_callback_counts_upper_tiles():
    seen = []
    gram(Linear(), X, block_size=10, progress=lambda done, total: seen.append((done, total)))
    blocks = 6  # ceil(53 / 10)
    total = blocks * (blocks + 1) // 2
    assert seen == [(d, total) for d in range(1, total + 1)]
    seen.clear()
    gram(Linear(), X, Y, block_size=10, progress=lambda d, t: seen.append(t))
    assert seen == [6 * 3] * 18
    with pytest.raises(TypeError, match="progress must be"):
        gram(Linear(), X, progress="yes")


def test_progress_bar_uses_tqdm(capsys):
    pytest.importorskip("tqdm")
    gram(Linear(), X, block_size=20, progress=True)
    assert "6/6" in capsys.readouterr().err


def test_overflow_names_the_global_entry():
    Z = np.zeros((30, 1))
    Z[25, 0] = 1e200
    # named at its global row before any block is computed
    with pytest.raises(KernelOverflowError, match=r"X\[25\] overflows float64"):
        gram(Linear(), Z, block_size=8)
    Z[25, 0] = 40.0
    with pytest.raises(
        KernelOverflowError, match=r"entry \(1, 1\).*block of rows 24:30 and columns 24:30"
    ):
        gram(Exp(Linear()), Z, block_size=8)


# ---------------------------------------------------------------- out=array
def test_fills_a_given_array_and_memmap(tmp_path):
    K = np.empty((53, 21))
    assert gram(Gaussian(), X, Y, block_size=5, out=K) is K
    np.testing.assert_allclose(K, Gaussian()(X, Y), rtol=1e-12)
    M = np.memmap(tmp_path / "K.dat", dtype=np.float64, mode="w+", shape=(53, 53))
    gram(Gaussian(), X, block_size=5, out=M)
    np.testing.assert_allclose(M, Gaussian()(X), rtol=1e-12)


@pytest.mark.parametrize(
    "out, match",
    [
        (np.empty((3, 3)), "out has shape"),
        (np.empty((53, 53), dtype=np.float32), "dtype float64"),
        ([[0.0]], "out must be None, a path or a float64 ndarray"),
    ],
)
def test_bad_out_array(out, match):
    with pytest.raises((ValueError, TypeError), match=match):
        gram(Linear(), X, out=out)


def test_read_only_out_array():
    out = np.empty((53, 53))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        gram(Linear(), X, out=out)


# ------------------------------------------------------------------- out=path
def test_writes_an_npy_file(tmp_path):
    path = tmp_path / "K.npy"
    K = gram(Normalize(Polynomial(degree=3)), X, block_size=6, out=path)
    assert isinstance(K, np.memmap) and Path(K.filename) == path
    np.testing.assert_allclose(np.load(path), Normalize(Polynomial(degree=3))(X), rtol=1e-12)
    assert os.listdir(tmp_path) == ["K.npy"]
    assert gram(Linear(), X, Y, block_size=6, out=str(tmp_path / "C.npy")).shape == (53, 21)


class Failing(Kernel):
    """Linear kernel that raises on the tile containing row ``fail_row``."""

    has_features = True

    def __init__(self, fail_row=40):
        self.fail_row = fail_row

    def _prepare(self, X, name):
        return np.column_stack([np.arange(len(X)), X])

    def _features(self, P):
        return P[:, 1:]

    def _cross(self, P, Q):
        if self.fail_row in P[:, 0] or self.fail_row in Q[:, 0]:
            raise RuntimeError("injected failure")
        return P[:, 1:] @ Q[:, 1:].T


def test_failed_run_leaves_no_file_and_keeps_an_old_one(tmp_path):
    path = tmp_path / "K.npy"
    with pytest.raises(RuntimeError, match="injected failure"):
        gram(Failing(), X, block_size=7, out=path)
    assert os.listdir(tmp_path) == []
    np.save(path, np.arange(3.0))
    with pytest.raises(RuntimeError, match="injected failure"):
        gram(Failing(), X, block_size=7, out=path, n_jobs=2)
    assert os.listdir(tmp_path) == ["K.npy"]
    np.testing.assert_array_equal(np.load(path), np.arange(3.0))


def test_failed_run_poisons_a_given_array(tmp_path):
    M = np.memmap(tmp_path / "K.dat", dtype=np.float64, mode="w+", shape=(53, 53))
    with pytest.raises(RuntimeError, match="injected failure"):
        gram(Failing(), X, block_size=7, out=M)
    assert np.isnan(np.memmap(tmp_path / "K.dat", dtype=np.float64, mode="r")).all()


def test_path_in_missing_folder_or_a_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        gram(Linear(), X, out=tmp_path / "nope" / "K.npy")
    with pytest.raises(IsADirectoryError, match="it is a folder"):
        gram(Linear(), X, out=tmp_path)


def _unwritable_folder(tmp_path):
    """A folder this process cannot create files in (root ignores chmod)."""
    if os.geteuid() != 0:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    return Path("/sys")


def test_unwritable_path_is_a_clear_error(tmp_path):
    folder = _unwritable_folder(tmp_path)
    try:
        probe = folder / ".structk_probe"
        probe.touch()
        probe.unlink()
        pytest.fail(f"{folder} is writable here; the test needs an unwritable folder")
    except OSError:
        pass
    with pytest.raises(PermissionError, match=r"cannot write the Gram matrix to .*K\.npy"):
        gram(Linear(), X, out=folder / "K.npy")


# --------------------------------------------------------------------- memory
def test_block_that_does_not_fit_memory():
    with pytest.raises(MemoryError, match=r"block_size=50 .* use block_size <= 35"):
        gram(Linear(), X, block_size=50, out=np.empty((53, 53)), memory_limit=40_000)
    with pytest.raises(MemoryError, match=r"n_jobs=2 .* use block_size <= 25"):
        gram(Linear(), X, block_size=50, out=np.empty((53, 53)), memory_limit=40_000, n_jobs=2)
    K = gram(Linear(), X, block_size=30, out=np.empty((53, 53)), memory_limit=40_000)
    np.testing.assert_allclose(K, Linear()(X))


def test_whole_matrix_that_does_not_fit_memory():
    with pytest.raises(MemoryError, match=r"matrix alone needs .*out='path/to/K.npy'"):
        gram(Linear(), X, block_size=4, memory_limit=20_000)


def test_default_limit_refuses_absurd_blocks():
    with pytest.raises(MemoryError, match="available memory"):
        gram(Linear(), np.zeros((2_000_000, 1)), block_size=2_000_000, out="/nonexistent/K.npy")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"block_size": 0}, "block_size must be >= 1"),
        ({"block_size": 2.5}, "block_size must be an integer"),
        ({"n_jobs": 0}, "n_jobs must be >= 1"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gram(Linear(), X, **kwargs)


def test_bad_kernel_and_inputs():
    with pytest.raises(TypeError, match="kernel must be a structk Kernel"):
        gram(lambda a, b: 0.0, X)
    with pytest.raises(
        ValueError, match="Y has 3 features but X has 4|X has 4 features but Y has 3"
    ):
        gram(Linear(), X, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"X\[1\] holds a non-finite value"):
        gram(Linear(), [[0.0], [np.nan]])


def test_progress_without_tqdm_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match=r"progress=True needs tqdm"):
        gram(Linear(), X, progress=True)


def test_processes_backend_runs_python_kernels_in_parallel(tmp_path):
    k = FunctionKernel(lambda a, b: shared_kmers(a, b), name="spectrum2 lambda")
    brute = np.array([[shared_kmers(a, b) for b in STRINGS] for a in STRINGS])
    K = gram(k, STRINGS, block_size=4, n_jobs=2, backend="processes")
    np.testing.assert_array_equal(K, brute)
    C = gram(
        Normalize(Polynomial(degree=2)),
        X,
        Y,
        block_size=9,
        n_jobs=2,
        backend="processes",
        out=tmp_path / "C.npy",
    )
    np.testing.assert_allclose(C, Normalize(Polynomial(degree=2))(X, Y), rtol=1e-12)
    with pytest.raises(RuntimeError, match="injected failure"):
        gram(Failing(), X, block_size=7, n_jobs=2, backend="processes", out=tmp_path / "F.npy")
    assert sorted(os.listdir(tmp_path)) == ["C.npy"]
    with pytest.raises(ValueError, match="backend must be one of"):
        gram(Linear(), X, backend="dask")


def test_memmapped_gram_feeds_a_learner(tmp_path):
    """A Gram written to disk tile by tile is used by KernelRidge without loading it."""
    from structk.kernels import Gaussian
    from structk.learners import KernelRidge

    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(300, 3)), rng.normal(size=300)
    K_disk = gram(Gaussian(), X, block_size=64, out=tmp_path / "K.npy")
    K_disk = np.load(tmp_path / "K.npy", mmap_mode="r")
    assert isinstance(K_disk, np.memmap)
    np.testing.assert_allclose(K_disk, Gaussian()(X), rtol=1e-14)  # equal up to rounding
    on_disk = KernelRidge(alpha=0.1).fit(K_disk, y)
    in_memory = KernelRidge(alpha=0.1).fit(Gaussian()(X), y)
    # the solve amplifies the tiles' rounding differences by cond(K + alpha I)
    np.testing.assert_allclose(on_disk.dual_coef_, in_memory.dual_coef_, rtol=1e-9)


# --------------------------------------------------- killed while writing
_SLOW_GRAM = """
import sys, time
from structk import gram
from structk.kernels import FunctionKernel
k = FunctionKernel(lambda x, y: (time.sleep(0.002), 1.0)[1])
gram(k, list(range(400)), out=sys.argv[1], block_size=20)
"""


def _start_slow_gram(tmp_path):
    out = tmp_path / "K.npy"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_GRAM, str(out)], env=env, stderr=subprocess.PIPE, text=True
    )
    for _ in range(600):  # until the temporary file exists (at most a minute)
        if list(tmp_path.glob(".K.npy.*.partial")) or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert list(tmp_path.glob(f".K.npy.{proc.pid}.*.partial")), proc.communicate()[1]
    return proc


def test_sigterm_removes_the_partial_file(tmp_path):
    proc = _start_slow_gram(tmp_path)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGTERM  # dies as SIGTERM would have it die
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_partial_file_left_by_sigkill_is_removed_by_the_next_run(tmp_path):
    proc = _start_slow_gram(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=120)
    assert len(list(tmp_path.glob(".K.npy.*.partial"))) == 1  # SIGKILL leaves it
    alive = tmp_path / f".K.npy.{os.getpid()}.abcd.partial"  # a running process's
    alive.write_bytes(b"")
    other = tmp_path / ".L.npy.1.abcd.partial"  # another output's
    other.write_bytes(b"")
    gram(Linear(), np.eye(3), out=tmp_path / "K.npy")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["K.npy", alive.name, other.name])
