"""docs/cli.md shows real outputs: every ``console`` block is run and compared.

A block is a command (``$ structk ...``, continued with ``\\``) and its
output. Times (numbers with exactly two decimals, JSON ``gram_seconds``) and
runs of spaces are not compared. Blocks reading ``$STRUCTK_DATA`` run only
when it is set.
"""

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from structk import cli

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"


def _blocks():
    """Each console block as a list of (command, expected output) run in turn."""
    if not DOC.exists():
        return []
    out = []
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(), flags=re.S):
        steps = []
        lines = block.splitlines()
        while lines:
            command = lines.pop(0)
            assert command.startswith("$ structk "), command
            while command.endswith("\\"):
                command = command[:-1] + lines.pop(0)
            output = []
            while lines and not lines[0].startswith("$ "):
                output.append(lines.pop(0))
            steps.append((command[2:], "\n".join(output)))
        out.append(steps)
    return out


def _normalise(text):
    text = re.sub(r"(?<![\d.])\d+\.\d{2}(?![\d])", "T", text)
    return [re.sub(r"\s+", " ", line).strip() for line in text.strip().splitlines()]


def _compare(got, expected):
    if expected.lstrip().startswith("{"):
        got_rows = [json.loads(line) for line in got.splitlines()]
        expected_rows = [json.loads(line) for line in expected.splitlines()]
        for row in got_rows + expected_rows:
            row.pop("gram_seconds")
        assert got_rows == expected_rows
    else:
        assert _normalise(got) == _normalise(expected)


@pytest.mark.parametrize("steps", _blocks(), ids=[b[0][0][:60] for b in _blocks()])
def test_docs_output_is_real(steps, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").symlink_to(ROOT / "data")
    for command, expected in steps:
        if "$STRUCTK_DATA" in command:
            if not os.environ.get("STRUCTK_DATA"):
                pytest.skip("STRUCTK_DATA is not set: real benchmark data not available")
            data = os.environ["STRUCTK_DATA"].rstrip("/")
            command = command.replace("$STRUCTK_DATA", data)
            expected = expected.replace("$STRUCTK_DATA", data)
        code = cli.main(shlex.split(command)[1:])
        assert code in (0, 1), command
        _compare(capsys.readouterr().out, expected)


def test_the_docs_have_checked_examples():
    assert len(_blocks()) >= 4


def test_every_command_is_documented_with_a_checked_example():
    """Each sub-command is in the synopsis of docs/cli.md and in the README's
    command-line section, and (but the slow demo) has a console block above."""
    from structk.cli.commands import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    readme = (ROOT / "README.md").read_text().partition("## Command line")[2]
    readme = readme.partition("\n## ")[0]
    text = DOC.read_text()
    checked = {command.split()[1] for steps in _blocks() for command, _ in steps}
    for name in sub.choices:
        assert f"structk {name} " in text.partition("```text")[2].partition("```")[0], name
        assert f"structk {name}" in readme, name
        if name != "demo":
            assert name in checked, name
