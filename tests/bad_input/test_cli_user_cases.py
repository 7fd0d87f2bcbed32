"""The command line's new-user bad-input cases (``cli_user_cases.py``)."""

from pathlib import Path

import pytest
from bad_input_cases import EXPECTED, outcome
from cli_user_cases import user_cases

_CASE_DIR = Path(__import__("tempfile").mkdtemp(prefix="structk-cli-user-"))
CASES = user_cases(_CASE_DIR)


def test_case_ids_are_distinct():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_bad_input_is_refused_clearly(case):
    result, detail = outcome(case)
    assert result == EXPECTED[case.kind], f"{result}: {detail}"
