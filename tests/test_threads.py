"""structk._threads: small dense linear algebra runs on one BLAS thread; chunked
loops run on threads."""

import threading

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from structk._threads import cost_bounds, even_bounds, num_threads, run_chunks, small_blas
from structk._tuning import ONE_BLAS_THREAD_MAX_N


def blas_threads():
    return {
        lib["filepath"]: lib["num_threads"]
        for lib in threadpool_info()
        if lib["user_api"] == "blas"
    }


@pytest.fixture
def limits_set(monkeypatch):
    """The list that gets one entry per one-thread limit entered."""
    import structk._threads as threads_module

    entered = []
    real = threads_module._one_thread

    def spy():
        entered.append(True)
        return real()

    monkeypatch.setattr(threads_module, "_one_thread", spy)
    return entered


@pytest.mark.blas_threads
def test_small_calls_run_on_one_thread_and_the_limit_is_restored():
    import scipy.linalg  # noqa: F401 - load SciPy's BLAS as the learners do

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        assert before
        with small_blas(ONE_BLAS_THREAD_MAX_N):
            assert all(v == 1 for v in blas_threads().values())
            # the results are those of the default pool
            A = np.random.default_rng(0).normal(size=(50, 50))
            S = A @ A.T + 50 * np.eye(50)
            L = np.linalg.cholesky(S)
        assert blas_threads() == before
        np.testing.assert_allclose(L @ L.T, S, rtol=1e-12, atol=1e-10)


@pytest.mark.blas_threads
def test_a_nested_limit_keeps_the_outer_one(monkeypatch):
    # a product's limit inside a fit's: threadpoolctl is asked once, the pool
    # stays at one thread until the outer block ends, then is restored
    import scipy.linalg  # noqa: F401
    import structk._threads as threads_module

    controller = threads_module._get_controller()
    calls = []
    real = type(controller).limit
    monkeypatch.setattr(
        type(controller), "limit", lambda self, **kw: calls.append(kw) or real(self, **kw)
    )
    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        with small_blas(3):
            with small_blas(3):
                assert all(v == 1 for v in blas_threads().values())
            assert all(v == 1 for v in blas_threads().values())
        assert blas_threads() == before
        assert len(calls) == 1
        with small_blas(3):  # a fresh outer block sets the limit again
            pass
        assert len(calls) == 2


@pytest.mark.blas_threads
def test_large_calls_keep_the_users_thread_pool():
    import scipy.linalg  # noqa: F401

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        with small_blas(ONE_BLAS_THREAD_MAX_N + 1):
            assert blas_threads() == before


@pytest.mark.blas_threads
def test_limit_is_restored_when_the_block_raises():
    import scipy.linalg  # noqa: F401

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        try:
            with small_blas(3):
                raise KeyError("boom")
        except KeyError:
            pass
        assert blas_threads() == before


def test_even_bounds_cover_the_range_without_empty_chunks():
    assert even_bounds(10, 3) == [0, 3, 6, 10]
    assert even_bounds(2, 8) == [0, 1, 2]
    assert even_bounds(0, 4) == [0, 0]


def test_cost_bounds_cap_each_chunk_and_give_the_threads_their_parts():
    costs = np.array([1.0, 1, 1, 1, 10, 1, 1, 1, 1, 1, 1])
    for parts, cap in [(1, 4.0), (3, 100.0), (2, 2.5), (1, 0.5), (50, 1.0), (4, 3.0)]:
        bounds = cost_bounds(costs, parts, cap)
        assert bounds[0] == 0 and bounds[-1] == len(costs)
        assert (np.diff(bounds) > 0).all()
        step = min(cap, costs.sum() / parts)
        for lo, hi in zip(bounds[:-1], bounds[1:]):  # over the step by its last item at most
            assert costs[lo : hi - 1].sum() < step
    assert cost_bounds(costs, 1, 0.5) == list(range(12))  # every item a chunk
    assert len(cost_bounds(np.ones(12), 3, 100.0)) - 1 == 3  # the threads' parts
    assert cost_bounds(costs, 1, 1e9) == [0, len(costs)]  # one call when it is cheap
    assert cost_bounds([], 4, 1.0) == [0, 0]
    assert cost_bounds([0.0, 0.0], 1, 1.0) == [0, 2]


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_run_chunks_calls_every_chunk_once(threads):
    seen, used = [], set()

    def fn(lo, hi):
        seen.append((lo, hi))
        used.add(threading.get_ident())

    run_chunks(fn, even_bounds(100, 7), threads)
    assert sorted(seen) == list(zip(even_bounds(100, 7)[:-1], even_bounds(100, 7)[1:]))
    if threads == 1:
        assert used == {threading.get_ident()}  # inline


def test_run_chunks_raises_the_chunks_error():
    def fn(lo, hi):
        if lo == 2:
            raise KeyError("chunk")

    with pytest.raises(KeyError, match="chunk"):
        run_chunks(fn, [0, 1, 2, 3, 4], 2)


def test_num_threads_follows_numba():
    """Without set_num_threads: NUMBA_NUM_THREADS; with it: the setting of
    the calling thread, as for numba's own parallel loops."""
    assert 1 <= num_threads() <= numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        assert num_threads() == 1
    finally:
        numba.set_num_threads(before)
    assert num_threads() == before


def test_num_threads_does_not_start_numbas_threading_layer():
    import os
    import subprocess
    import sys

    code = (
        "from structk._threads import num_threads\n"
        "from numba.np.ufunc import parallel\n"
        "print(num_threads(), parallel._is_initialized)"
    )
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["1", "False"]


@pytest.mark.blas_threads
@pytest.mark.parametrize(
    "shape, limited",
    [
        ((400, 400, 1), False),
        ((700, 700, 3), True),
        ((2, 10**6, 2), True),
        ((None, 800, 800), True),
        ((None, 1200, 1200), True),
        ((30, 3000, 3000), False),
    ],
)
def test_small_products_run_on_one_blas_thread(shape, limited, limits_set, tuning):
    """Products of more than THREADED_PRODUCT and at most SMALL_PRODUCT
    multiply-adds are computed under the one-thread limit; the result is
    the plain product."""
    from structk._threads import small_matmul

    seen = limits_set
    m, k, cols = shape  # m None: a vector times a matrix
    rng = np.random.default_rng(0)
    A = rng.normal(size=k if m is None else (m, k))
    B = rng.normal(size=(k, cols)) if cols > 1 else rng.normal(size=k)
    np.testing.assert_allclose(small_matmul(A, B), A @ B, rtol=1e-12, atol=1e-12)
    assert bool(seen) is limited
    work = (m or 1) * k * cols
    assert (tuning.THREADED_PRODUCT < work <= tuning.SMALL_PRODUCT) is limited


# ------------------------------------------ callers that must not wake the pool
def _spy_threads(monkeypatch, module, name):
    """Record (order, BLAS thread counts) at each call of ``module.name``."""
    original = getattr(module, name)
    seen = []

    def spy(A, *args, **kwargs):
        seen.append((A.shape[-1], set(blas_threads().values())))
        return original(A, *args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


@pytest.fixture
def matmul_calls(monkeypatch):
    """Record ``(A.shape, B.shape, largest)`` of every small_matmul call
    (also through the name the vector kernels import)."""
    from structk import _threads
    from structk.kernels import vectors

    calls = []
    original = _threads.small_matmul

    def spy(A, B, largest=None):
        calls.append((A.shape, B.shape, largest))
        return original(A, B, largest=largest)

    monkeypatch.setattr(_threads, "small_matmul", spy)
    monkeypatch.setattr(vectors, "small_matmul", spy)
    return calls


def _ring(n, labels=2):
    import networkx as nx

    G = nx.cycle_graph(n)
    nx.set_node_attributes(G, {v: v % labels for v in G}, "label")
    return G


@pytest.mark.blas_threads
def test_a_product_limit_does_not_import_scipy_and_a_later_limit_covers_it():
    """A NumPy product under the one-thread limit builds threadpoolctl's
    controller without importing SciPy (a spectrum prediction needs NumPy's
    BLAS only); once SciPy's linear algebra is imported, the next limit
    covers its BLAS too (a controller built before it would not see it)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import numpy as np\n"
        "from threadpoolctl import threadpool_info, threadpool_limits\n"
        "from structk import _threads, _tuning\n"
        "def counts():\n"
        "    return {l['filepath']: l['num_threads'] for l in threadpool_info()\n"
        "            if l['user_api'] == 'blas'}\n"
        "with threadpool_limits(2, user_api='blas'):\n"
        "    seen = []\n"
        "    real = _threads._one_thread\n"
        "    def spy():\n"
        "        seen.append(True)\n"
        "        return real()\n"
        "    _threads._one_thread = spy\n"
        "    rng = np.random.default_rng(0)\n"
        "    A, B = rng.normal(size=(700, 700)), rng.normal(size=(700, 3))\n"
        "    assert _tuning.THREADED_PRODUCT < A.size * 3 <= _tuning.SMALL_PRODUCT\n"
        "    np.testing.assert_allclose(_threads.small_matmul(A, B), A @ B, rtol=1e-12)\n"
        "    assert seen, 'the product ran without the limit'\n"
        "    assert 'scipy.linalg' not in sys.modules, 'the limit imported SciPy'\n"
        "    import scipy.linalg\n"
        "    before = counts()\n"
        "    assert len(before) >= 1\n"
        "    with _threads.small_blas(10):\n"
        "        inside = counts()\n"
        "    assert set(inside) == set(before), (inside, before)\n"
        "    assert all(v == 1 for v in inside.values()), inside\n"
        "    assert counts() == before\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok"]


@pytest.mark.blas_threads
def test_graph_eigendecompositions_above_64_nodes_run_on_one_blas_thread(monkeypatch):
    """NumPy's eigvalsh uses OpenBLAS's threads from about 80 rows; their
    spinning afterwards slowed the random walks that follow (ENZYMES: 210
    against 155 ms). Smaller batches set no limit (the first costs ~7 ms)."""
    import scipy.linalg  # noqa: F401

    from structk.kernels import RandomWalk

    seen = _spy_threads(monkeypatch, np.linalg, "eigvalsh")
    with threadpool_limits(2, user_api="blas"):
        RandomWalk(lam=0.01)([_ring(12), _ring(70), _ring(20)])
        assert sorted(n for n, _ in seen) == [12, 20, 70]
        assert all(threads == {1} for _, threads in seen)
        seen.clear()
        RandomWalk(lam=0.01)([_ring(12), _ring(20)])
        assert seen and all(threads == {2} for _, threads in seen)


@pytest.mark.blas_threads
@pytest.mark.parametrize("learner", ["pca", "cca"])
def test_kernel_pca_and_cca_eigendecompositions_run_on_one_blas_thread(monkeypatch, learner):
    import scipy.linalg

    from structk import Gaussian
    from structk.learners import KernelCCA, KernelPCA

    seen = _spy_threads(monkeypatch, scipy.linalg, "eigh")
    X = np.random.default_rng(0).normal(size=(120, 4))
    with threadpool_limits(2, user_api="blas"):
        if learner == "pca":
            KernelPCA(kernel=Gaussian(sigma=2.0), n_components=3).fit(X)
        else:
            KernelCCA(Gaussian(sigma=2.0), Gaussian(sigma=1.0), n_components=2).fit(X, X[:, :2])
    assert seen and all(n == 120 and threads == {1} for n, threads in seen)


@pytest.mark.blas_threads
def test_vector_kernel_products_go_through_small_matmul(matmul_calls):
    """The Gram product of a few hundred vectors is a small BLAS call: on one
    thread, so that no OpenBLAS thread spins on after it (KernelPCA at
    n = 800: 62 against 40 ms)."""
    from structk import Gaussian, Linear, Polynomial

    calls = matmul_calls
    X = np.random.default_rng(1).normal(size=(30, 3))
    for kernel in (Gaussian(sigma=1.0), Linear(), Polynomial(degree=2)):
        calls.clear()
        K = kernel(X)
        assert [(a, b) for a, b, _ in calls] == [((30, 3), (3, 30))]
        np.testing.assert_allclose(K, kernel(X, X), rtol=1e-12)


@pytest.mark.blas_threads
def test_the_product_rule_ignores_the_process_history(monkeypatch, limits_set, tuning):
    """Whether a product runs on one thread depends on its shapes only: the
    same before the process's first thread limit (no controller yet) and
    after it."""
    from structk import _threads

    entered = limits_set
    rng = np.random.default_rng(0)
    a, K = rng.normal(size=(1, 800)), rng.normal(size=(800, 800))  # 640,000 multiply-adds
    tiny = rng.normal(size=(1, 400)), rng.normal(size=(400, 400))  # 160,000
    assert a.size * 800 > tuning.THREADED_PRODUCT >= 400 * 400
    decisions = []
    for history in ("fresh", "after a limit"):
        if history == "fresh":
            monkeypatch.setattr(_threads, "_controller", None)
        else:
            with small_blas(10):
                pass
        entered.clear()
        np.testing.assert_allclose(_threads.small_matmul(a, K), a @ K, rtol=1e-12)
        _threads.small_matmul(*tiny)
        decisions.append(list(entered))
    assert decisions == [[True], [True]]


@pytest.mark.blas_threads
def test_sparse_gram_dense_columns_go_through_small_blas(matmul_calls, tuning, monkeypatch):
    """Columns shared by most rows are multiplied as a dense block by BLAS
    (a Gram's in place by dsyrk, a cross-Gram's by small_matmul); up to
    SPARSE_THREADED_FROM multiply-adds on one thread (on a busy core
    OpenBLAS's hand-over costs more than the product)."""
    import scipy.sparse as sp

    from structk import _threads
    from structk.algorithms import sparse_gram as _sparse_gram

    works = []
    original = _threads.product_threads
    monkeypatch.setattr(
        _threads,
        "product_threads",
        lambda work, largest=None: (works.append((work, largest)), original(work, largest))[1],
    )
    calls = matmul_calls
    rng = np.random.default_rng(0)
    F = sp.random(60, 40, density=0.1, random_state=1, format="lil")
    F[:, 3] = rng.random((60, 1)) + 1.0  # a column in every row: dense
    F = sp.csr_matrix(F)
    K = _sparse_gram.sparse_gram(F, jitted=True)
    np.testing.assert_allclose(K, (F @ F.T).toarray(), rtol=1e-12)
    # one block of the dense columns (column 3 and any other held by most rows)
    assert len(works) == 1 and works[0][1] == tuning.SPARSE_THREADED_FROM
    assert works[0][0] % (60 * 60 // 2) == 0 and works[0][0] > 0
    G = sp.csr_matrix(F[:25])
    np.testing.assert_allclose(
        _sparse_gram.sparse_cross(F, G, jitted=True), (F @ G.T).toarray(), rtol=1e-12
    )
    assert calls and all(
        a[0] == 60 and largest == tuning.SPARSE_THREADED_FROM for a, _, largest in calls
    )


def test_sparse_gram_dense_blocks_add_in_place_exactly(tuning):
    """Integer counts with many dense columns, gathered one column per
    block: the in-place dsyrk sums give F F^T exactly, symmetric, the same
    bit for bit as one block of all the columns."""
    import scipy.sparse as sp

    from structk.algorithms import sparse_gram as _sparse_gram

    rng = np.random.default_rng(5)
    dense = rng.integers(0, 6, (70, 12))  # held by almost every row
    rare = sp.random(70, 50, density=0.05, random_state=6) * 7
    F = sp.csr_matrix(sp.hstack([sp.csr_matrix(dense), rare.astype(np.int64)]))
    reference = (F @ F.T).toarray().astype(np.float64)
    whole = _sparse_gram.sparse_gram(F, jitted=True)
    tuning.set(SPARSE_BLOCK_BYTES=8 * 70)  # one column per block
    cut = _sparse_gram.sparse_gram(F, jitted=True)
    np.testing.assert_array_equal(whole, reference)
    np.testing.assert_array_equal(cut, reference)


def test_sparse_products_in_chunks_of_rows_equal_one_call(tuning, monkeypatch):
    """The sparse part of a Gram product cut into calls of rows of
    ``SPARSE_CHUNK_WORK`` (a Ctrl-C is answered between them) gives the
    values of one call bit for bit, and the products are exact."""
    import scipy.sparse as sp

    from structk.algorithms import sparse_gram as _sparse_gram
    from structk.algorithms.sparse_gram import _numba

    rng = np.random.default_rng(2)
    F = sp.random(50, 30, density=0.2, random_state=3, format="lil")
    F[:, 7] = rng.integers(1, 4, (50, 1))  # a dense column: BLAS, the rest scattered
    F = sp.csr_matrix(F)
    G = sp.csr_matrix(F[:20] + sp.random(20, 30, density=0.1, random_state=4))
    whole = _sparse_gram.sparse_gram(F, jitted=True), _sparse_gram.sparse_cross(F, G, jitted=True)
    calls = []
    real = _numba.add_row_products
    monkeypatch.setattr(
        _numba,
        "add_row_products",
        lambda *args: (calls.append(args[-1] - args[-2]), real(*args))[1],
    )
    tuning.set(SPARSE_CHUNK_WORK=1e-9)  # every row with work a call of its own
    cut = _sparse_gram.sparse_gram(F, jitted=True), _sparse_gram.sparse_cross(F, G, jitted=True)
    assert len(calls) > 60 and max(calls) <= 50
    for a, b, ref in zip(whole, cut, ((F @ F.T).toarray(), (F @ G.T).toarray())):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, ref, rtol=1e-12)
