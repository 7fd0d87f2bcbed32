"""Every example script runs (on its small --quick settings), so none rots."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py")) if EXAMPLES.exists() else []
NEEDS_DATA = {"splice_promoters.py", "mutag.py"}


def _env(**changes):
    """The current environment with PYTHONPATH made absolute (scripts run elsewhere)."""
    env = dict(os.environ, **changes)
    paths = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


#: Examples whose --quick run takes more than a few seconds (real data sets).
SLOW = {"mutag.py", "splice_promoters.py"}


@pytest.mark.parametrize(
    "script",
    [pytest.param(s, marks=[pytest.mark.slow] if s.name in SLOW else []) for s in SCRIPTS],
    ids=lambda p: p.name,
)
def test_example_runs(script, request, tmp_path):
    if script.name in NEEDS_DATA:
        request.getfixturevalue("structk_data")  # skips with a reason when unset
    out = subprocess.run(
        [sys.executable, str(script), "--quick"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert out.stdout.strip(), f"{script.name} printed nothing"


def test_real_data_examples_explain_missing_data(tmp_path):
    env = _env()
    env.pop("STRUCTK_DATA", None)
    for name in sorted(NEEDS_DATA):
        script = EXAMPLES / name
        if not script.exists():
            continue
        out = subprocess.run(
            [sys.executable, str(script), "--quick"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=120,
        )
        assert out.returncode != 0
        assert "STRUCTK_DATA" in out.stderr + out.stdout
