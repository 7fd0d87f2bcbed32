"""Shared test configuration.

Hypothesis profiles
-------------------
``ci`` (the default): derandomized, no example database, bounded example
counts, so every run of the suite tries the same examples and never flakes.
``dev``: random and longer, for hunting counterexamples locally
(``HYPOTHESIS_PROFILE=dev pytest``); a failure found that way becomes an
explicit ``@example`` in the test.

Real data
---------
Tests that need the benchmark datasets read them from ``$STRUCTK_DATA``
through the ``structk_data`` fixture: skipped with a reason when the
variable is unset, failed when it is set but the file is missing.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=40,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=400, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def structk_data():
    """Return a function mapping a path relative to ``$STRUCTK_DATA`` to a Path."""
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        pytest.skip("STRUCTK_DATA is not set: real benchmark data not available")

    def path(relative):
        p = Path(root) / relative
        if not p.exists():
            pytest.fail(f"STRUCTK_DATA={root} is set but {relative} is missing")
        return p

    return path


@pytest.fixture
def factorisations(monkeypatch):
    """Record ``(n, shift)`` of every Cholesky factorisation that certifies a
    Gram matrix PSD (``structk._linalg.cholesky_ok``); returns the list."""
    import structk._linalg

    calls = []
    cholesky_ok = structk._linalg.cholesky_ok

    def counting(K, shift):
        calls.append((K.shape[0], shift))
        return cholesky_ok(K, shift)

    monkeypatch.setattr(structk._linalg, "cholesky_ok", counting)
    return calls


@pytest.fixture
def tuning():
    """Override entries of :mod:`structk._tuning` (speed) and
    :mod:`structk.defaults` (results) for one test: ``tuning.set(NAME=value,
    ...)`` finds each name in the module that holds it; read them as
    ``tuning.NAME``. Unknown names raise (:func:`structk._tuning.override`),
    so a renamed entry cannot leave a test overriding nothing. Everything is
    restored after the test."""
    from contextlib import ExitStack

    from structk import _tuning

    class Tuning:
        def set(self, **values):
            stack.enter_context(_tuning.override(**values))

        def __getattr__(self, name):
            return getattr(_tuning._home(name), name)

    with ExitStack() as stack:
        yield Tuning()


@pytest.fixture
def chunk_counts(monkeypatch):
    """The list that gets, for every :func:`structk._threads.run_chunks`
    call, its number of chunks (a test clears it when it starts counting)."""
    import structk._threads as threads_module

    counts = []
    real = threads_module.run_chunks

    def spy(fn, bounds, threads):
        counts.append(len(bounds) - 1)
        return real(fn, bounds, threads)

    monkeypatch.setattr(threads_module, "run_chunks", spy)
    return counts


def pytest_collection_modifyitems(config, items):
    """Run the tests marked ``slow`` first (otherwise in collection order):
    under pytest-xdist both workers then begin with the long tests and the
    short ones fill in around them, instead of one worker finishing a
    minutes-long test alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
