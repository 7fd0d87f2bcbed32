"""Searching for a counterexample to the validity of a kernel.

How the search works (chosen by measurement, see ``docs/testing.md`` and
``benchmarks/bench_testing.py``):

1. **Pools.** hypothesis draws a pool of objects from the strategy
   (deterministically for a seed); repeats are dropped. The kernel is
   evaluated once on the pool (``k(X)``), and on its first
   :data:`CONSISTENCY_SIZE` objects also as ``k(X, X)`` and ``k.diag(X)``, to
   expose asymmetry and inconsistent evaluations.
2. **Verdict.** :func:`structk.testing.verdict.judge` decides, with
   tolerances relative to the matrix scale and dtype, whether asymmetry, a
   negative self-similarity or a negative eigenvalue is present.
3. **Shrinking.** A failing pool is reduced to a small witness set
   (eigenvector-guided removal), and its objects are simplified while the
   failure persists; the witness is then evaluated afresh and judged again.

Negative eigenvalues of many non-kernels need tens of objects at once (the
smallest known witness for ``exp(-edit distance)`` over two letters has 30
strings), out of reach of a search over short lists, but a pool of a few
hundred objects contains them and one eigendecomposition finds them.

Inputs on which the kernel raises, or returns a non-finite value, are
recorded as :class:`~structk.testing.verdict.KernelError` and left out of
the pool; the search goes on without them.
"""

from __future__ import annotations

import random
import time
from contextlib import contextmanager

import numpy as np

from .shrink import reduce_indices, simplify_objects
from .verdict import (
    NEGATIVE_EIGENVALUE,
    KernelCheck,
    KernelError,
    eigenvalue_tolerance,
    entry_tolerance,
    error_text,
    judge,
)

#: Default pool sizes: a small pool first (cheap failures are found at once),
#: then larger ones.
POOL_SIZES = (32, 256, 1024)
#: Objects of each pool also evaluated as ``k(X, X)`` and ``k.diag(X)``.
CONSISTENCY_SIZE = 48
#: At most this many errors are kept (all are counted).
MAX_ERRORS_KEPT = 10


# ------------------------------------------------------------------ drawing
def object_key(x):
    """A hashable identity for an object, to drop repeats from a pool."""
    import networkx as nx

    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, nx.Graph):
        nodes = tuple(sorted((repr(v), repr(sorted(d.items()))) for v, d in x.nodes(data=True)))
        edges = tuple(sorted((repr(u), repr(v), repr(sorted(d.items())))
                             for u, v, d in x.edges(data=True)))
        return ("graph", type(x).__name__, nodes, edges)
    try:
        hash(x)
    except TypeError:
        return ("repr", type(x).__name__, repr(x))
    return ("value", type(x).__name__, x)


def draw_objects(objects, n, seed):
    """Draw ``n`` objects from a hypothesis strategy, reproducibly for ``seed``.

    hypothesis runs a test drawing one object per example, with a fixed seed
    and no example database, so the draws are the same on every run; it
    never repeats a choice sequence, so repeats are rare (they come from
    different choices giving the same object). Fewer than ``n`` objects come
    back when the strategy is exhausted (e.g. all strings of length <= 5
    over two letters).
    """
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

    out = []

    @_without_local_constants()
    @hypothesis_seed(seed)
    @settings(max_examples=n, database=None, derandomize=False, deadline=None,
              phases=[Phase.generate], verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck))
    @given(objects)
    def run(x):
        out.append(x)

    run()
    return out


@contextmanager
def _without_local_constants():
    """Keep hypothesis from mixing constants of the loaded modules into the draws.

    Recent hypothesis versions sometimes draw constants found in the source
    of every loaded non-library module, so the same seed gave different pools
    depending on what the process had imported. During the draw the set of
    such constants is empty, which makes a pool depend on the seed (and the
    hypothesis version) only. Older versions have no such constants.
    """
    try:
        from hypothesis.internal.conjecture import providers

        original, empty = providers._get_local_constants, providers.Constants
        cache = providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError):
        yield
        return
    providers._get_local_constants = empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()


def _distinct(objs, n):
    seen, out = set(), []
    for x in objs:
        k = object_key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
            if len(out) == n:
                break
    return out


# --------------------------------------------------------------- evaluation
class _Errors:
    """Inputs the kernel raised on, kept (a few) and counted (all)."""

    def __init__(self):
        self.kept, self.count = [], 0

    def add(self, objs, error):
        self.count += 1
        if len(self.kept) < MAX_ERRORS_KEPT:
            self.kept.append(KernelError(list(objs), error))


def _call(kernel, X, Y=None):
    """``kernel(X[, Y])`` as a float array; raises on non-finite values."""
    with np.errstate(all="ignore"):
        K = kernel(X) if Y is None else kernel(X, Y)
    K = np.asarray(K)
    if K.dtype.kind not in "biuf":
        raise TypeError(f"the kernel returned a {K.dtype} matrix")
    if not np.isfinite(K).all():
        i, j = np.argwhere(~np.isfinite(K))[0]
        raise FloatingPointError(f"non-finite value {K[i, j]} at ({i}, {j})")
    return K


def _fails(kernel, X, Y=None):
    try:
        _call(kernel, X, Y)
    except Exception as exc:  # noqa: BLE001 - any error of the kernel is a finding
        return exc
    return None


def _failing_pair(kernel, pool, errors):
    """Indices that make ``kernel(pool)`` raise; each failure is recorded."""
    bad = []
    for i, x in enumerate(pool):
        exc = _fails(kernel, [x])
        if exc is not None:
            errors.add([x], error_text(exc))
            bad.append(i)
    if bad:
        return bad
    # no single object fails: bisect for a failing pair
    idx = list(range(len(pool)))
    while len(idx) > 2:
        half = len(idx) // 2
        left, right = idx[:half], idx[half:]
        if _fails(kernel, [pool[i] for i in left]) is not None:
            idx = left
        elif _fails(kernel, [pool[i] for i in right]) is not None:
            idx = right
        else:
            a, b = left, right
            while len(a) > 1:
                h = len(a) // 2
                a = a[:h] if _fails(kernel, [pool[i] for i in a[:h]],
                                    [pool[i] for i in b]) is not None else a[h:]
            while len(b) > 1:
                h = len(b) // 2
                b = b[:h] if _fails(kernel, [pool[a[0]]],
                                    [pool[i] for i in b[:h]]) is not None else b[h:]
            idx = [a[0], b[0]]
            break
    exc = _fails(kernel, [pool[i] for i in idx])
    errors.add([pool[i] for i in idx],
               error_text(exc) if exc is not None else "fails only in a larger Gram matrix")
    return idx


def _pool_gram(kernel, pool, errors, max_rounds=30):
    """``k(pool)`` after leaving out the inputs the kernel raises on."""
    pool = list(pool)
    for _ in range(max_rounds):
        if not pool:
            break
        try:
            return pool, _call(kernel, pool)
        except Exception:  # noqa: BLE001
            bad = set(_failing_pair(kernel, pool, errors))
            pool = [x for i, x in enumerate(pool) if i not in bad]
    return [], None


# ---------------------------------------------------------------- shrinking
class _EigenWitness:
    """Accepts a changed witness while its smallest eigenvalue stays below ``-tol``."""

    def __init__(self, kernel, K, tol):
        self.kernel, self.K, self.tol = kernel, K, tol

    def __call__(self, candidate, i):
        try:
            row = _call(self.kernel, [candidate[i]], candidate)[0]
        except Exception:  # noqa: BLE001 - a candidate the kernel refuses is skipped
            return False
        K = self.K.copy()
        K[i, :] = row
        K[:, i] = row
        if np.linalg.eigvalsh(K)[0] < -self.tol:
            self.K = K
            return True
        return False


def _still(kernel, prop):
    def accept(candidate, i):
        cx = _judge_list(kernel, candidate)
        return cx is not None and cx.property == prop
    return accept


def _judge_list(kernel, objs, noise=0.0):
    """Evaluate ``objs`` afresh (``k(X)``, ``k(X, X)``, ``k.diag(X)``) and judge."""
    try:
        K = _call(kernel, objs)
        K_full = _call(kernel, objs, objs)
        diag = kernel.diag(objs)
    except Exception:  # noqa: BLE001
        return None
    return judge(kernel, objs, K, K_full, diag, noise)


def _shrink(kernel, cx, time_limit):
    """Simplify the objects of a counterexample; return the re-judged one."""
    if cx.property == NEGATIVE_EIGENVALUE:
        accept = _EigenWitness(kernel, 0.5 * (cx.gram + cx.gram.T), cx.tol)
    else:
        accept = _still(kernel, cx.property)
    objs = simplify_objects(cx.objects, accept, key=object_key, time_limit=time_limit)
    if cx.property == NEGATIVE_EIGENVALUE:
        keep = reduce_indices(accept.K, cx.tol)
        objs = [objs[i] for i in keep]
    final = _judge_list(kernel, objs)
    return final if final is not None else cx


def _witness_from_pool(kernel, objs, K, noise):
    """The counterexample hidden in a pool Gram ``K``, reduced, or None."""
    d = np.diagonal(K)
    i = int(np.argmin(d))
    if d[i] < -entry_tolerance(K):
        return _judge_list(kernel, [objs[i]])
    S = 0.5 * (K + K.T)
    lam = float(np.linalg.eigvalsh(S)[0])
    tol = eigenvalue_tolerance(K, noise)
    if lam >= -tol:
        return None
    keep = reduce_indices(S, tol)
    witness = [objs[i] for i in keep]
    cx = _judge_list(kernel, witness, noise)
    if cx is not None and cx.property == NEGATIVE_EIGENVALUE:
        cx.tol = max(cx.tol, tol)
    return cx


def _noun(objs):
    import networkx as nx

    kinds = {type(x) for x in objs}
    for types, noun in ((str, "strings"), ((set, frozenset), "sets"),
                        (np.ndarray, "vectors"), (nx.Graph, "graphs")):
        if kinds and all(issubclass(t, types) for t in kinds):
            return noun
    return "objects"


def check_kernel(kernel, objects, *, pool_sizes=POOL_SIZES, seed=0, time_limit=60.0,
                 shrink=True):
    """Search for a counterexample to the validity of a kernel.

    Parameters
    ----------
    kernel : Kernel
        The kernel under test, e.g. ``FunctionKernel(my_similarity)``.
    objects : hypothesis SearchStrategy
        Draws one object: :func:`~structk.testing.strings`,
        :func:`~structk.testing.token_sets`, :func:`~structk.testing.vectors`,
        :func:`~structk.testing.graphs`, or a strategy of your own.
    pool_sizes : sequence of int
        Number of distinct objects in each pool; one Gram matrix per pool.
    seed : int or None
        The search is reproducible for a given seed; ``None`` draws a fresh
        random seed.
    time_limit : float or None
        Seconds after which no new pool is started (a running evaluation
        is not interrupted). Only when it cuts the search short does the
        result depend on the machine's speed; ``searched`` says so.
    shrink : bool
        Simplify the objects of a counterexample (the witness set is always
        reduced).

    Returns
    -------
    KernelCheck
        With ``counterexample`` (or ``None``), the ``errors`` the kernel
        raised on generated inputs, and a description of what was searched.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.kernels import FunctionKernel
    >>> from structk.testing import check_kernel, vectors
    >>> k = FunctionKernel(lambda x, y: -np.sum((x - y) ** 2), name="neg_sq_dist")
    >>> result = check_kernel(k, vectors(dim=2))
    >>> result.counterexample.property, len(result.counterexample.objects)
    ('negative eigenvalue', 2)
    """
    from hypothesis.strategies import SearchStrategy
    from threadpoolctl import threadpool_limits

    if not isinstance(objects, SearchStrategy):
        raise TypeError(f"objects must be a hypothesis strategy (e.g. structk.testing."
                        f"strings()), got {type(objects).__name__}")
    sizes = [int(s) for s in pool_sizes]
    if not sizes or min(sizes) < 1:
        raise ValueError(f"pool_sizes must be positive integers, got {pool_sizes!r}")
    if seed is None:
        seed = random.SystemRandom().getrandbits(32)
    # one BLAS thread: the matrices are small (threads were measured to cost
    # 10-60x on a busy machine) and the rounding does not depend on threads
    with threadpool_limits(1, user_api="blas"):
        return _search(kernel, objects, sizes, seed, time_limit, shrink)


def _search(kernel, objects, sizes, seed, time_limit, shrink):
    start = time.perf_counter()
    errors = _Errors()
    drawn, largest, n_pools, cut = [], 0, 0, False
    cx = None
    for p, size in enumerate(sizes):
        if time_limit is not None and time.perf_counter() - start > time_limit:
            cut = True
            break
        # a quarter more draws than needed: a few draws repeat an object
        drawn_pool = draw_objects(objects, size + size // 4, seed=seed * 1009 + p)
        pool = _distinct(drawn_pool, size)
        objs, K = _pool_gram(kernel, pool, errors)
        drawn.extend(objs)
        if K is None:
            continue
        n_pools += 1
        largest = max(largest, len(objs))
        # asymmetry, self-similarity and consistency on the first objects
        s = min(CONSISTENCY_SIZE, len(objs))
        head = objs[:s]
        try:
            K_full = _call(kernel, head, head)
            diag = kernel.diag(head)
        except Exception as exc:  # noqa: BLE001
            errors.add(head, error_text(exc))
            K_full, diag = K[:s, :s], None
        cx = judge(kernel, head, K[:s, :s], K_full, diag)
        noise = max(float(np.abs(K[:s, :s] - K_full).max()),
                    float(np.abs(K_full - K_full.T).max()))
        if cx is not None and cx.property == NEGATIVE_EIGENVALUE:
            cx = None  # found again, and reduced, on the whole pool below
        elif cx is not None:
            cx = _judge_list(kernel, [head[i] for i in sorted(set(cx.entry))]) or cx
        if cx is None:
            cx = _witness_from_pool(kernel, objs, K, noise)
        if cx is not None:
            break
    if cx is not None and shrink:
        remaining = 30.0 if time_limit is None else max(
            5.0, time_limit - (time.perf_counter() - start))
        cx = _shrink(kernel, cx, remaining)
    noun = _noun(drawn)
    searched = (f"{n_pools} Gram matrices of up to {largest} {noun} "
                f"({len(_distinct(drawn, len(drawn)))} distinct {noun}, seed {seed})")
    if cut:
        searched += f"; time limit {time_limit:g} s reached after {n_pools} of {len(sizes)} pools"
    return KernelCheck(kernel, cx, errors.kept, errors.count, searched,
                       time.perf_counter() - start, n_pools)


def find_psd_counterexample(kernel, objects, **kwargs):
    """The shrunk counterexample found by :func:`check_kernel`, or ``None``.

    ``None`` is evidence, not proof, that the kernel is valid; errors the
    kernel raised on generated inputs are in :func:`check_kernel`'s result.
    Keyword arguments are those of :func:`check_kernel`.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.kernels import FunctionKernel
    >>> from structk.testing import find_psd_counterexample, vectors
    >>> k = FunctionKernel(lambda x, y: np.tanh(x @ y - 1.0), name="sigmoid")
    >>> cx = find_psd_counterexample(k, vectors(dim=2))
    >>> cx.property, cx.objects
    ('negative self-similarity', [array([0., 0.])])
    """
    return check_kernel(kernel, objects, **kwargs).counterexample


def assert_kernel_psd(kernel, objects, *, allow_errors=False, **kwargs):
    """Assert that :func:`check_kernel` finds no counterexample (and no errors).

    For use in a pytest test of your own kernel::

        def test_my_kernel_is_valid():
            assert_kernel_psd(MyKernel(), structk.testing.strings("dna"))

    Raises ``AssertionError`` with the shrunk counterexample in the message,
    or, unless ``allow_errors``, with the inputs the kernel raised on.
    Keyword arguments are those of :func:`check_kernel`.
    """
    result = check_kernel(kernel, objects, **kwargs)
    if result.found or (result.n_errors and not allow_errors):
        raise AssertionError(str(result))
    return result

