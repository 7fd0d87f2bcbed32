"""Every bad input gets the right exception type and a message naming the item.

The cases live in ``bad_input_cases.py`` (shared with ``audit.py``, which
counts outcomes against any checkout). Kernels and learners are discovered
from ``structk.kernels.__all__`` and ``structk.learners.__all__``: a new
kernel class fails :func:`test_every_public_kernel_has_a_factory` until it
gets a factory, and is then covered by every shared case.
"""

import inspect
from pathlib import Path

import pytest
from bad_input_cases import EXPECTED, KERNELS, all_cases, outcome

import structk.kernels
from structk.kernels import Kernel

_CASE_DIR = Path(__import__("tempfile").mkdtemp(prefix="structk-bad-input-"))
CASES = all_cases(_CASE_DIR)


def test_at_least_200_distinct_cases():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(ids) >= 200


def test_every_public_kernel_has_a_factory():
    public = {
        name
        for name in structk.kernels.__all__
        if inspect.isclass(getattr(structk.kernels, name))
        and issubclass(getattr(structk.kernels, name), Kernel)
        and name != "Kernel"
    }
    missing = public - set(KERNELS)
    assert not missing, f"add a factory for {sorted(missing)} to bad_input_cases.KERNELS"
    for name, (make, _) in KERNELS.items():
        assert type(make()).__name__ == name


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_clearly(case):
    """An error naming the item, or the warning or right answer the case wants."""
    result, detail = outcome(case)
    assert result == EXPECTED[case.kind], f"{result}: {detail}"
