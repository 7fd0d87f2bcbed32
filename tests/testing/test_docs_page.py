"""The command outputs shown in docs/testing.md are what the commands print."""

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

import structk.testing
from structk.cli import main
from structk.testing import check_kernel as kit_check_kernel
from structk.testing import non_kernels as nk

PAGE = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def _console_blocks():
    if not PAGE.exists():  # tests run from an installed package without the repo
        return []
    return re.findall(r"```console\n\$ (.*?)\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)


def _normalise(text):
    return re.sub(r"\(\d+\.\d s\)", "(... s)", text.strip())


BLOCKS = _console_blocks()


def test_page_shows_commands():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        pytest.param(
            c, s, marks=[pytest.mark.slow] if "strings:ACGT" in c and "exp_edit" in c else []
        )
        for c, s in BLOCKS
    ],
    ids=[c.split()[2] + " " + c.split()[-1] for c, _ in BLOCKS],
)
def test_shown_output_is_real(command, shown, tmp_path, monkeypatch, assert_negative_eigenvalue):
    # the page's own file of similarities, for the my_sims.py example
    code = re.findall(r"```python\n(def overlap.*?)```", PAGE.read_text(), flags=re.DOTALL)[0]
    (tmp_path / "my_sims.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    results = []

    def recorded(*args, **kwargs):  # what the command found, to check it apart from its text
        results.append(kit_check_kernel(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(structk.testing, "check_kernel", recorded)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(shlex.split(command)[1:])
    assert _normalise(out.getvalue()) == _normalise(shown)
    assert status == (0 if "no counterexample found" in shown else 1)
    (result,) = results
    target = shlex.split(command)[2]
    if target.startswith("structk.testing.non_kernels:") and "negative eigenvalue" in shown:
        # the witness is a true one: its Gram recomputed from the plain function
        func = getattr(nk, target.partition(":")[2])
        assert_negative_eigenvalue(result.counterexample, func)
        assert result.n_errors == 0
    if target.endswith(":exp_edit") and "strings:ACGT" in command:
        # over DNA the witness needs the large pool: ~50 strings of length <= 4
        # (a generous time limit: a cut search would depend on the machine's load)
        assert max(len(s) for s in result.counterexample.objects) <= 5
        assert "1024 strings" in result.searched
