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
the pool; the search goes on without them. When that leaves nothing (or
too little) evaluated, the result is *inconclusive* and says so first;
:func:`find_psd_counterexample` and :func:`assert_kernel_psd` then raise
:class:`~structk.testing.verdict.InconclusiveCheckError`.

A kernel that learns from data (``kernel.needs_fit``) is cloned and fitted
on each pool, and that fitted kernel is the function checked (and shrunk)
on the pool. ``time_limit`` bounds the whole search: the cost of one
evaluation is measured first and each pool is cut to what fits the time
left; the clock is read between evaluations.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import math
import os
import random
import time
from contextlib import contextmanager

import numpy as np

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from ..kernels.base import Kernel

from .shrink import reduce_indices, simplify_objects
from .verdict import (
    NEGATIVE_EIGENVALUE,
    Counterexample,
    InconclusiveCheckError,
    KernelCheck,
    KernelError,
    eigenvalue_tolerance,
    entry_tolerance,
    error_text,
    judge,
    min_eigenvalue,
)

#: Default pool sizes: a small pool first (cheap failures are found at once),
#: then larger ones.
POOL_SIZES = (32, 256, 1024)
#: Objects of each pool also evaluated as ``k(X, X)`` and ``k.diag(X)``.
CONSISTENCY_SIZE = 48
#: At most this many errors are kept (all are counted).
MAX_ERRORS_KEPT = 10
#: Without a time limit, the shrink stops after this many seconds.
SHRINK_SECONDS = 30.0


# ------------------------------------------------------------------ drawing
def object_key(x: Any) -> Hashable:
    """A hashable identity for an object, to drop repeats from a pool."""
    import networkx as nx

    if isinstance(x, np.ndarray):
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, nx.Graph):
        nodes = tuple(sorted((repr(v), repr(sorted(d.items()))) for v, d in x.nodes(data=True)))
        edges = tuple(
            sorted((repr(u), repr(v), repr(sorted(d.items()))) for u, v, d in x.edges(data=True))
        )
        return ("graph", type(x).__name__, nodes, edges)
    try:
        hash(x)
    except TypeError:
        return ("repr", type(x).__name__, repr(x))
    return ("value", type(x).__name__, x)


def draw_objects(objects: SearchStrategy[Any], n: int, seed: int) -> list[Any]:
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
    @_storage_outside_cwd()
    @hypothesis_seed(seed)
    @settings(
        max_examples=n,
        database=None,
        derandomize=False,
        deadline=None,
        phases=[Phase.generate],
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
    )
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


@contextmanager
def _storage_outside_cwd():
    """Keep hypothesis from creating ``.hypothesis/`` in the working directory.

    With ``database=None`` hypothesis still caches some tables (the Unicode
    character map that ``st.text`` needs) under its home directory, by
    default ``./.hypothesis``. During the draw that directory is structk's
    own cache folder (``$XDG_CACHE_HOME/structk/hypothesis``), unless the
    user chose one with ``HYPOTHESIS_STORAGE_DIRECTORY``.
    """
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    from hypothesis import configuration

    previous = getattr(configuration, "__hypothesis_home_directory", None)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    configuration.set_hypothesis_home_dir(os.path.join(cache, "structk", "hypothesis"))
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(previous)


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
def as_kernel(kernel: Kernel | Callable[[Any, Any], float], name: str | None = None) -> Kernel:
    """A structk kernel as is; any other callable of two objects wrapped as a kernel.

    Parameters
    ----------
    kernel : Kernel or callable
        A :class:`~structk.kernels.Kernel` instance, or a function
        ``f(x, y) -> float`` (wrapped in :class:`~structk.kernels.FunctionKernel`).
    name : str, optional
        Name shown for a wrapped function (default: its own name).

    Raises
    ------
    TypeError
        For a class, a non-callable, or a function that cannot take two
        positional arguments.
    """
    import inspect

    from ..kernels import FunctionKernel, Kernel

    if isinstance(kernel, Kernel):
        return kernel
    shown = name or getattr(kernel, "__name__", None) or type(kernel).__name__
    if isinstance(kernel, type):
        raise TypeError(
            f"kernel {shown} is a class: give an instance (e.g. {shown}()) "
            "or a function f(x, y) of two objects"
        )
    if not callable(kernel):
        raise TypeError(
            f"kernel must be a structk kernel or a function f(x, y) of two "
            f"objects, got {type(kernel).__name__} ({kernel!r:.60})"
        )
    try:
        signature = inspect.signature(kernel)
    except (TypeError, ValueError):  # builtins without a signature: try them
        signature = None
    if signature is not None:
        try:
            signature.bind(None, None)
        except TypeError:
            raise TypeError(
                f"kernel {shown}{signature} cannot be called with two objects f(x, y)"
            ) from None
    return FunctionKernel(kernel, name=name)


class _Errors:
    """Inputs the kernel raised on, kept (a few) and counted (all)."""

    def __init__(self):
        self.kept, self.count = [], 0

    def add(self, objs, error, call=""):
        self.count += 1
        if len(self.kept) < MAX_ERRORS_KEPT:
            self.kept.append(KernelError(list(objs), error, call))


class _Clock:
    """The time budget of a search and the measured cost of one kernel evaluation.

    The cost is measured in seconds per pair of objects evaluated, on the
    largest evaluation timed so far (small evaluations overestimate it: the
    per-call overhead is shared by fewer pairs, so pools come out smaller,
    never larger, than the budget allows).
    """

    def __init__(self, limit):
        self.start = time.perf_counter()
        self.limit = limit
        self.pair_seconds = None
        self.draw_seconds = None
        self._pairs = 0

    def elapsed(self):
        return time.perf_counter() - self.start

    def left(self, grace=0.0):
        return math.inf if self.limit is None else self.limit + grace - self.elapsed()

    def expired(self, grace=0.0):
        return self.left(grace) <= 0

    def affords(self, pairs, grace=0.0):
        """Whether ``pairs`` evaluations are expected to end within the budget."""
        return self.pair_seconds is None or pairs * self.pair_seconds <= self.left(grace)

    def affords_pool(self, n):
        """Whether drawing a pool of ``n`` objects and evaluating it would end in time."""
        seconds = 1.25 * n * (self.draw_seconds or 0.0)
        if self.pair_seconds is not None:
            seconds += _pool_pairs(n) * self.pair_seconds
        return seconds <= self.left()

    def timed(self, pairs, func, *args):
        t = time.perf_counter()
        out = func(*args)
        if pairs >= self._pairs:
            self._pairs = pairs
            self.pair_seconds = (time.perf_counter() - t) / max(pairs, 1)
        return out


def _pool_pairs(n):
    """Pairs evaluated for a pool of ``n``: ``k(X)``, and ``k(X, X)``, ``k.diag(X)`` on its head."""
    s = min(CONSISTENCY_SIZE, n)
    return n * (n + 1) // 2 + s * s + s


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


def _failing_pair(kernel, pool, errors, clock):
    """Indices that make ``kernel(pool)`` raise; each failure is recorded.

    ``None`` when the time limit ran out before they were found.
    """
    bad = []
    for i, x in enumerate(pool):
        if clock.expired():
            return None
        exc = _fails(kernel, [x])
        if exc is not None:
            errors.add([x], error_text(exc))
            bad.append(i)
    if bad:
        return bad
    # no single object fails: bisect for a failing pair
    idx = list(range(len(pool)))
    while len(idx) > 2:
        if clock.expired():
            return None
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
                a = (
                    a[:h]
                    if _fails(kernel, [pool[i] for i in a[:h]], [pool[i] for i in b]) is not None
                    else a[h:]
                )
            while len(b) > 1:
                h = len(b) // 2
                b = (
                    b[:h]
                    if _fails(kernel, [pool[a[0]]], [pool[i] for i in b[:h]]) is not None
                    else b[h:]
                )
            idx = [a[0], b[0]]
            break
    exc = _fails(kernel, [pool[i] for i in idx])
    errors.add(
        [pool[i] for i in idx],
        error_text(exc) if exc is not None else "fails only in a larger Gram matrix",
    )
    return idx


def _pool_gram(kernel, pool, errors, clock, max_rounds=30):
    """``k(pool)`` after leaving out the inputs the kernel raises on."""
    pool = list(pool)
    for _ in range(max_rounds):
        if not pool or clock.expired():
            break
        n = len(pool)
        try:
            return pool, clock.timed(n * (n + 1) // 2, _call, kernel, pool)
        except Exception:  # noqa: BLE001
            bad = _failing_pair(kernel, pool, errors, clock)
            if bad is None:
                break
            bad = set(bad)
            pool = [x for i, x in enumerate(pool) if i not in bad]
    return pool, None


def _fit_on(kernel, pool, errors, noun):
    """The kernel to check on ``pool``: a clone fitted on it when it learns from data."""
    if not getattr(kernel, "needs_fit", False):
        return kernel
    from sklearn.base import clone

    try:
        return clone(kernel).fit(pool)
    except Exception as exc:  # noqa: BLE001 - a kernel that cannot fit is a finding
        errors.add([], error_text(exc), f"k.fit(a pool of {len(pool)} {noun})")
        return None


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
        if min_eigenvalue(K) < -self.tol:
            self.K = K
            return True
        return False


def _still(kernel, prop, clock, grace):
    def accept(candidate, i):
        cx = _judge_list(kernel, candidate, clock=clock, grace=grace)
        return cx is not None and cx.property == prop

    return accept


def _judge_list(kernel, objs, noise=0.0, clock=None, grace=0.0):
    """Evaluate ``objs`` afresh (``k(X)``, ``k(X, X)``, ``k.diag(X)``) and judge.

    ``None`` when the kernel raises, or when ``clock`` says the evaluation
    would not end in time.
    """
    n = len(objs)
    if clock is not None and not clock.affords(n * (n + 1) // 2 + n * n + n, grace):
        return None
    try:
        K = _call(kernel, objs)
        K_full = _call(kernel, objs, objs)
        diag = kernel.diag(objs)
    except Exception:  # noqa: BLE001
        return None
    return judge(kernel, objs, K, K_full, diag, noise)


def _shrink(kernel, cx, clock, grace, notes):
    """Simplify the objects of a counterexample; return the re-judged one.

    Appends to ``notes`` when the time limit stopped the shrink.
    """
    budget = SHRINK_SECONDS if clock.limit is None else max(clock.left(grace), 0.0)
    if cx.property == NEGATIVE_EIGENVALUE:
        accept = _EigenWitness(kernel, 0.5 * (cx.gram + cx.gram.T), cx.tol)
    else:
        accept = _still(kernel, cx.property, clock, grace)
    objs, finished = simplify_objects(cx.objects, accept, key=object_key, time_limit=budget)
    if not finished:
        notes.append(
            "time limit reached while simplifying the witness (more time may give a simpler one)"
        )
    if cx.property == NEGATIVE_EIGENVALUE:
        keep = reduce_indices(accept.K, cx.tol)
        objs = [objs[i] for i in keep]
    final = _judge_list(kernel, objs, clock=clock, grace=grace)
    if final is None and cx.property == NEGATIVE_EIGENVALUE:
        # no time to evaluate afresh: the witness's Gram from the shrink's own rows
        notes.append(
            "the witness's Gram matrix is the one built while shrinking "
            "(no time left to evaluate it afresh)"
        )
        final = judge(kernel, objs, None, accept.K[np.ix_(keep, keep)], None)
    return final if final is not None else cx


def _witness_from_pool(kernel, objs, K, noise, clock, grace):
    """The counterexample hidden in a pool Gram ``K``, reduced, or None."""
    d = np.diagonal(K)
    i = int(np.argmin(d))
    if d[i] < -entry_tolerance(K):
        return _judge_list(kernel, [objs[i]], clock=clock, grace=grace) or judge(
            kernel, [objs[i]], None, K[i : i + 1, i : i + 1], None
        )
    S = 0.5 * (K + K.T)
    lam = min_eigenvalue(S)
    tol = eigenvalue_tolerance(K, noise)
    if lam >= -tol:
        return None
    keep = reduce_indices(S, tol)
    witness = [objs[i] for i in keep]
    cx = _judge_list(kernel, witness, noise, clock=clock, grace=grace)
    if cx is None:
        # the kernel refused the witness evaluated afresh, or there is no
        # time left to evaluate it: judge the pool's own entries
        cx = judge(kernel, witness, None, S[np.ix_(keep, keep)], None, noise)
    if cx is not None and cx.property == NEGATIVE_EIGENVALUE:
        cx.tol = max(cx.tol, tol)
    return cx


def _noun(objs):
    import networkx as nx

    kinds = {type(x) for x in objs}
    for types, noun in (
        (str, "strings"),
        ((set, frozenset), "sets"),
        (np.ndarray, "vectors"),
        (nx.Graph, "graphs"),
    ):
        if kinds and all(issubclass(t, types) for t in kinds):
            return noun
    return "objects"


def check_kernel(
    kernel: Kernel | Callable[[Any, Any], float],
    objects: SearchStrategy[Any],
    *,
    pool_sizes: Sequence[int] = POOL_SIZES,
    seed: int = 0,
    time_limit: float | None = 60.0,
    shrink: bool = True,
) -> KernelCheck:
    """Search for a counterexample to the validity of a kernel.

    Parameters
    ----------
    kernel : Kernel or callable
        The kernel under test: a structk kernel, or any function
        ``f(x, y) -> float`` of two objects (wrapped in
        :class:`~structk.kernels.FunctionKernel`). A kernel that learns from
        data (``kernel.needs_fit``) is cloned and fitted on each pool.
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
        Seconds the whole search may take. The cost of one evaluation is
        measured first, each pool is cut to what the time left allows, the
        clock is read between evaluations, and the shrink uses the rest
        (plus a grace of a quarter of the limit, at most 5 s); a single
        evaluation of the kernel is never interrupted. Only when the limit
        cuts the search short does the result depend on the machine's
        speed; ``searched`` says so.
    shrink : bool
        Simplify the objects of a counterexample (the witness set is always
        reduced).

    Returns
    -------
    KernelCheck
        With ``counterexample`` (or ``None``), the ``errors`` the kernel
        raised on generated inputs, a description of what was searched, and
        ``conclusive``: False when nothing, or too little, was evaluated.

    Raises
    ------
    TypeError
        When ``kernel`` is not callable with two objects, or ``objects`` is
        not a hypothesis strategy.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.testing import check_kernel, vectors
    >>> def neg_sq_dist(x, y):
    ...     return -np.sum((x - y) ** 2)
    >>> result = check_kernel(neg_sq_dist, vectors(dim=2))
    >>> result.counterexample.property, len(result.counterexample.objects)
    ('negative eigenvalue', 2)
    """
    from hypothesis.strategies import SearchStrategy
    from threadpoolctl import threadpool_limits

    kernel = as_kernel(kernel)
    if not isinstance(objects, SearchStrategy):
        raise TypeError(
            f"objects must be a hypothesis strategy (e.g. structk.testing."
            f"strings()), got {type(objects).__name__}"
        )
    sizes = [int(s) for s in pool_sizes]
    if not sizes or min(sizes) < 1:
        raise ValueError(f"pool_sizes must be positive integers, got {pool_sizes!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds or None, got {time_limit!r}")
    if seed is None:
        seed = random.SystemRandom().getrandbits(32)
    # one BLAS thread: the matrices are small (threads were measured to cost
    # 10-60x on a busy machine)
    with threadpool_limits(1, user_api="blas"):
        return _search(kernel, objects, sizes, seed, time_limit, shrink)


def _search(kernel, objects, sizes, seed, time_limit, shrink):
    clock = _Clock(time_limit)
    grace = 0.0 if time_limit is None else min(5.0, 0.25 * time_limit)
    errors = _Errors()
    drawn, checked, largest, n_pools, n_left_out = [], [], 0, 0, 0
    notes = []
    cx = None
    for p, size in enumerate(sizes):
        if clock.expired():
            notes.append(
                f"time limit {time_limit:g} s reached after {n_pools} of {len(sizes)} pools"
            )
            break
        # the largest pool (draws and evaluation) expected to end in time
        n = size
        while n > 1 and not clock.affords_pool(n):
            n = int(n * 0.9)
        # a quarter more draws than needed: a few draws repeat an object
        t = time.perf_counter()
        drawn_pool = draw_objects(objects, n + n // 4, seed=seed * 1009 + p)
        clock.draw_seconds = (time.perf_counter() - t) / max(len(drawn_pool), 1)
        pool = _distinct(drawn_pool, n)
        k = _fit_on(kernel, pool, errors, _noun(pool))
        if k is None:
            drawn.extend(pool)
            n_left_out += len(pool)
            continue
        # the cost of one evaluation, on two objects (after one warm-up call,
        # which may compile)
        if clock.pair_seconds is None and len(pool) >= 2 and _fails(k, pool[:1]) is None:
            clock.timed(3, _fails, k, pool[:2])
        m = len(pool)
        while m > 1 and not clock.affords(_pool_pairs(m)):
            m = int(m * 0.9)
        if min(n, m) < 2 <= len(pool):
            notes.append(
                f"time limit {time_limit:g} s reached after {n_pools} of {len(sizes)} pools"
            )
            break
        if n < size or m < len(pool):
            notes.append(f"time limit: pool of {size} cut to {m}")
        pool = pool[:m]
        drawn.extend(pool)
        objs, K = _pool_gram(k, pool, errors, clock)
        n_left_out += len(pool) - len(objs)
        if K is None:
            if len(pool) >= 16 and not objs:
                notes.append(
                    f"stopped after the kernel failed on every object of a pool of {len(pool)}"
                )
                break
            continue
        n_pools += 1
        checked.extend(objs)
        largest = max(largest, len(objs))
        # asymmetry, self-similarity and consistency on the first objects
        s = min(CONSISTENCY_SIZE, len(objs))
        head = objs[:s]
        try:
            K_full = _call(k, head, head)
            diag = k.diag(head)
        except Exception as exc:  # noqa: BLE001
            errors.add(head, error_text(exc))
            K_full, diag = K[:s, :s], None
        cx = judge(k, head, K[:s, :s], K_full, diag)
        noise = max(float(np.abs(K[:s, :s] - K_full).max()), float(np.abs(K_full - K_full.T).max()))
        if cx is not None and cx.property == NEGATIVE_EIGENVALUE:
            cx = None  # found again, and reduced, on the whole pool below
        elif cx is not None:
            cx = _judge_list(k, [head[i] for i in sorted(set(cx.entry))]) or cx
        if cx is None:
            cx = _witness_from_pool(k, objs, K, noise, clock, grace)
        if cx is not None:
            break
    if cx is not None and shrink:
        cx = _shrink(cx.kernel, cx, clock, grace, notes)
    noun = _noun(drawn)
    n_checked = len(_distinct(checked, len(checked)))
    searched = (
        f"{n_pools} Gram matrices of up to {largest} {noun} "
        f"({n_checked} distinct {noun}, seed {seed})"
    )
    if notes:
        searched += "; " + "; ".join(notes)
    result = KernelCheck(
        kernel,
        cx,
        errors.kept,
        errors.count,
        searched,
        clock.elapsed(),
        n_pools,
        n_checked=n_checked,
        n_left_out=n_left_out,
        time_limited=any("time" in note for note in notes),
    )
    if not result.conclusive and n_pools == 0 and not errors.count and clock.expired():
        result.inconclusive = (
            f"the time limit of {time_limit:g} s was reached before a Gram matrix was computed"
        )
    return result


def find_psd_counterexample(
    kernel: Kernel | Callable[[Any, Any], float], objects: SearchStrategy[Any], **kwargs: Any
) -> Counterexample | None:
    """The shrunk counterexample found by :func:`check_kernel`, or ``None``.

    ``None`` is evidence, not proof, that the kernel is valid; errors the
    kernel raised on generated inputs are in :func:`check_kernel`'s result.
    Keyword arguments are those of :func:`check_kernel`.

    Raises
    ------
    InconclusiveCheckError
        When nothing, or too little, was evaluated (e.g. the kernel raised
        on every generated input): ``None`` would claim evidence there is
        not. The message names the first error seen.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.testing import find_psd_counterexample, vectors
    >>> def sigmoid(x, y):
    ...     return np.tanh(x @ y - 1.0)
    >>> cx = find_psd_counterexample(sigmoid, vectors(dim=2))
    >>> cx.property, cx.objects
    ('negative self-similarity', [array([0., 0.])])
    """
    result = check_kernel(kernel, objects, **kwargs)
    if result.counterexample is None and not result.conclusive:
        raise InconclusiveCheckError(result)
    return result.counterexample


def assert_kernel_psd(
    kernel: Kernel | Callable[[Any, Any], float],
    objects: SearchStrategy[Any],
    *,
    allow_errors: bool = False,
    **kwargs: Any,
) -> KernelCheck:
    """Assert that :func:`check_kernel` finds no counterexample (and no errors).

    For use in a pytest test of your own kernel::

        def test_my_kernel_is_valid():
            assert_kernel_psd(MyKernel(), structk.testing.strings("dna"))

    Raises ``AssertionError`` with the shrunk counterexample in the message,
    or, unless ``allow_errors``, with the inputs the kernel raised on; and
    :class:`InconclusiveCheckError` (even with ``allow_errors``) when
    nothing, or too little, was evaluated. Keyword arguments are those of
    :func:`check_kernel`.
    """
    result = check_kernel(kernel, objects, **kwargs)
    if result.found:
        raise AssertionError(str(result))
    if not result.conclusive:
        raise InconclusiveCheckError(result)
    if result.n_errors and not allow_errors:
        raise AssertionError(str(result))
    return result
