"""docs/cli.md shows real outputs: every ``console`` block is run and compared.

A block is a command (``$ structk ...``, continued with ``\\``) and its
output. Times (numbers with exactly two decimals, JSON ``gram_seconds``) and
runs of spaces are not compared. Blocks reading ``$STRUCTK_DATA`` run only
when it is set.

A block on a data set that takes minutes (``SLOW_DATA``: ENZYMES' nested
cross-validation, 224 s on the 2-core machine) is compared in full only in
the tests marked ``slow`` (CI runs them); unmarked, the same command runs
on a slice of the data set (ten objects of each class) and its output must
have the block's format: the same lines and columns, every number where
the block has one.
"""

import json
import os
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from structk import cli

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
#: Data sets whose docs blocks take minutes: compared in full in slow tests only.
SLOW_DATA = ("graphs/ENZYMES/",)


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


def _slow(steps):
    return any(data in command for command, _ in steps for data in SLOW_DATA)


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param(b, marks=[pytest.mark.slow] if _slow(b) else [], id=b[0][0][:60])
        for b in _blocks()
    ],
)
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


def _tu_slice(source, target, per_class):
    """Write the first ``per_class`` graphs of each class of the TU data set
    in folder ``source`` to folder ``target`` (same name, same files)."""
    name = source.name
    target.mkdir()

    def lines(suffix):
        return (source / f"{name}_{suffix}.txt").read_text().splitlines()

    labels = np.array([int(v) for v in lines("graph_labels")])
    graph_of = np.array([int(v) for v in lines("graph_indicator")])  # node -> graph, 1-based
    kept = (
        np.sort(
            np.concatenate([np.flatnonzero(labels == c)[:per_class] for c in np.unique(labels)])
        )
        + 1
    )
    nodes = np.flatnonzero(np.isin(graph_of, kept))  # 0-based, in file order
    new_id = np.zeros(len(graph_of) + 1, dtype=np.int64)
    new_id[nodes + 1] = np.arange(1, len(nodes) + 1)
    edges = []
    for line in lines("A"):
        u, v = (int(x) for x in line.split(","))
        if new_id[u] and new_id[v]:
            edges.append(f"{new_id[u]}, {new_id[v]}")
    graph_id = np.zeros(len(labels) + 1, dtype=np.int64)
    graph_id[kept] = np.arange(1, len(kept) + 1)
    files = {
        "A": edges,
        "graph_indicator": [str(graph_id[g]) for g in graph_of[nodes]],
        "graph_labels": [str(labels[g - 1]) for g in kept],
    }
    for suffix in ("node_labels", "node_attributes"):
        if (source / f"{name}_{suffix}.txt").exists():
            rows = lines(suffix)
            files[suffix] = [rows[i] for i in nodes]
    for suffix, rows in files.items():
        (target / f"{name}_{suffix}.txt").write_text("\n".join(rows) + "\n")
    return len(kept)


def _shape(text, paths):
    """``text`` with ``paths`` as ``DATA``, a table row's continuation lines
    (indented past the first columns) joined to it, every number as ``N``,
    the choices of a parameter (``C=N (N), N (N)``, ``C=N (N), C=N (N)`` or
    ``C=N``) as one, rules of dashes and runs of spaces as one."""
    for path in paths:
        text = text.replace(path, "DATA")
    text = re.sub(r"\n {10,}", " ", text)
    text = re.sub(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", "N", text)
    text = re.sub(r"(\w+)=N(?: \(N\))?(?:,\s*(?:\1=)?N(?: \(N\))?)*", r"\1=N", text)
    text = re.sub(r"-{2,}", "--", text)
    return [re.sub(r"\s+", " ", line).strip() for line in text.strip().splitlines()]


@pytest.mark.parametrize("data", SLOW_DATA)
def test_slow_docs_example_has_its_format_on_a_slice(data, structk_data, tmp_path, capsys, request):
    """The command of a slow block (ENZYMES' ``structk cv``), on ten graphs of
    each class: the same header, columns and row as the docs show, every
    number where the docs have one. It stands in for the full block when
    the slow tests are deselected (``-m "not slow"``); when the full block
    runs in the same session (CI), that checks more than this could."""
    full = [
        item.nodeid
        for item in request.session.items
        if "test_docs_output_is_real" in item.nodeid and data in item.nodeid
    ]
    if full:
        pytest.skip(f"the full docs example runs in this session: {full[0]}")
    block = next(b for b in _blocks() if _slow(b) and data in b[0][0])
    ((command, expected),) = block
    root = os.environ["STRUCTK_DATA"].rstrip("/")
    folder = tmp_path / Path(data).name
    n = _tu_slice(structk_data(data), folder, per_class=10)
    command = command.replace(f"$STRUCTK_DATA/{data}", f"{folder}/")
    assert cli.main(shlex.split(command)[1:]) == 0, command
    got = capsys.readouterr().out
    assert f"{folder}/: {n} objects" in got

    def choices(lines):  # how many other grid points were chosen depends on the data
        return [re.sub(r", N others?\b", "", line) for line in lines]

    def untied(text):  # so do the ties of the inner CV: their notes (wrapped) go
        text = re.sub(r"\n  (?=\S)", " ", text)
        return "\n".join(x for x in text.splitlines() if "tied in the inner CV" not in x)

    assert choices(_shape(untied(got), [f"{folder}/"])) == choices(
        _shape(untied(expected), [f"$STRUCTK_DATA/{data}", root])
    )


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
