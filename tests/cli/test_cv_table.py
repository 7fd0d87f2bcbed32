"""``structk cv``'s table keeps to 100 columns (issue 38): a kernel cell
longer than 32 characters is shortened to ``[N] start…`` and the whole
expression is given in a footnote; the baseline is one row, the Gram times
and PSD status one line (they belong to the table and the kernel, not to
each row); long learner cells and the chosen grid points wrap onto
continuation lines. Nothing is lost: every chosen grid point is named with
its number of folds, as the JSON output has them."""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from structk import cli

ROOT = Path(__file__).resolve().parents[2]
MOTIFS = ROOT / "data" / "motifs.fasta"
GRAPHS = ROOT / "data" / "graph_families"
LONG = "Normalize(Spectrum(k=2) + Spectrum(k=3) + 0.5 * Spectrum(k=4, normalize=True))"
OTHER = "Normalize(Spectrum(k=1) + Spectrum(k=2) + Spectrum(k=3) + Spectrum(k=4))"


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _cv(capsys, *argv):
    common = [MOTIFS, "--label-pattern", r"class=(\S+)", "--cv", "3", "--quiet"]
    code, out, _ = run(capsys, "cv", *common, *argv)
    assert code == 0
    return out


def _footnotes(lines):
    """``{label: expression}`` from the footnote lines (wrapped lines joined)."""
    notes, label = {}, None
    for line in lines:
        if line.startswith("["):
            label, _, text = line.partition(" ")
            notes[label] = text
        elif label is not None and line.startswith(" "):
            notes[label] += " " + line.strip()
    return notes


def test_long_kernels_are_footnoted_and_the_table_fits_100_columns(capsys):
    out = _cv(
        capsys,
        "--kernel",
        LONG,
        "--kernel",
        "Spectrum(k=3)",
        "--kernel",
        OTHER,
        "--learner",
        "KernelSVM(C=1)",
        "--learner",
        "NearestClassMean()",
    )
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("kernel "))
    rows = lines[start + 2 : start + 8]
    assert all(len(line) <= 100 for line in lines[start:]), max(map(len, lines[start:]))
    kernels = [row.split("  ")[0] for row in rows]
    # each learner's row of a long kernel carries the same label
    assert kernels[0] == kernels[1] and kernels[0].startswith("[1] Normalize(Spectrum(k=2)")
    assert kernels[0].endswith("…") and len(kernels[0]) <= 32
    assert kernels[2] == kernels[3] == "Spectrum(k=3)"
    assert kernels[4] == kernels[5] and kernels[4].startswith("[2] ")
    # the footnotes give the expressions whole, each once
    assert _footnotes(lines[start + 8 :]) == {"[1]": LONG, "[2]": OTHER}
    # TSV and JSON keep the whole expressions
    tsv = _cv(capsys, "--kernel", LONG, "--learner", "KernelSVM(C=1)", "--format", "tsv")
    assert tsv.splitlines()[1].split("\t")[0] == LONG
    js = _cv(capsys, "--kernel", LONG, "--learner", "KernelSVM(C=1)", "--format", "json")
    assert json.loads(js.splitlines()[-1])["kernel"] == LONG


def test_short_kernels_are_left_whole(capsys):
    out = _cv(capsys, "--kernel", "Normalize(Spectrum(k=3))", "--learner", "KernelSVM(C=1)")
    assert "[1]" not in out and "Normalize(Spectrum(k=3))  KernelSVM(C=1)" in out


def _table(out):
    """The table's lines (header to the Gram line, which is included), and its
    rows: each a list of cells, continuation lines joined to their row."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("kernel "))
    end = next(i for i, line in enumerate(lines) if line.startswith("Gram matri"))
    # column starts, from the rule of dashes under the header
    starts = [m.start() for m in re.finditer(r"-+", lines[start + 1])]
    rows = []
    for line in lines[start + 2 : end]:
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None])]
        if line.startswith(" "):  # a continuation line of the row above
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    header = lines[start].split()
    return lines[start : end + 1], header, rows


USUAL = {
    "gapped k-mers": [
        MOTIFS,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "GappedKmer(l=11, k=7, d=3)",
    ],
    "spectrum": [MOTIFS, "--label-pattern", r"class=(\S+)", "--kernel", "Spectrum(k=5)"],
    "WL on a TU folder": [GRAPHS, "--kernel", "Normalize(WeisfeilerLehman(h=3))"],
    "two kernels, three learners": [
        MOTIFS,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "GappedKmer(l=11, k=7, d=3)",
        "--kernel",
        "Normalize(Spectrum(k=5))",
        "--learner",
        "KernelSVM()",
        "--learner",
        "KernelLogisticRegression()",
        "--learner",
        "KernelSVM(C=1)",
    ],
}


@pytest.mark.parametrize("argv", list(USUAL.values()), ids=list(USUAL))
def test_usual_tables_fit_100_columns_and_say_everything(argv, capsys):
    """The documented commands (default learner: a nested C grid): every
    line of the table, its Gram line and notes within 100 characters; each
    row names the kernel, the learner with its grid, the score ± std and
    every grid point chosen on an outer fold with its number of folds,
    most often first -- the same as the JSON output of the same run."""
    common = ["--cv", "3", "--inner-folds", "3", "--quiet"]
    code, out, _ = run(capsys, "cv", *argv, *common)
    assert code == 0
    lines, header, rows = _table(out)
    after = out.splitlines()[out.splitlines().index(lines[-1]) :]
    assert all(len(line) <= 100 for line in lines + after), max(map(len, lines + after))
    assert header == ["kernel", "learner", "accuracy", "chosen"]
    code, js, _ = run(capsys, "cv", *argv, *common, "--format", "json")
    assert code == 0
    records = [json.loads(line) for line in js.splitlines()]
    assert len(rows) == len(records) + 1
    for cells, rec in zip(rows, records):
        kernel, learner, score, chosen = cells
        assert kernel == rec["kernel"]
        assert learner.replace(" ", "") == _compact(rec).replace(" ", "")
        assert score == f"{rec['mean']:.3f} ± {rec['std']:.3f}"
        counts = Counter(tuple(sorted(f["params"].items())) for f in rec["folds"]).most_common()
        counts = [(p, n) for p, n in counts if p]
        if not counts:
            assert chosen == "-"
            continue
        named = re.findall(r"(?:(\w+)=)?([-\d.e]+)(?: \((\d+)\))?", chosen)
        assert len(named) == len(counts)  # every chosen grid point, none hidden
        (name,) = {k for p, _ in counts for k, _ in p}  # one parameter in these grids
        assert named[0][0] == name
        got = [(float(v), int(n or 3)) for _, v, n in named]
        assert sorted(got, key=lambda t: -t[1]) == got  # most often first
        assert sorted(got) == sorted((float(p[0][1]), n) for p, n in counts)
    # the grid points that tied with the chosen one in the inner CV, named in a note
    notes = _notes(after)
    for rec in records:
        tied = Counter(tuple(sorted(p.items())) for f in rec["folds"] for p in f.get("tied", ()))
        head = f"note: {rec['kernel']}, {_compact(rec)}: the choice tied in the inner CV on "
        note = [n for n in notes if n.startswith(head)]
        if not tied:
            assert note == []
            continue
        (note,) = note
        folds = sum(bool(f.get("tied")) for f in rec["folds"])
        assert f"on {folds}/{len(rec['folds'])} folds (the first in grid order is kept)" in note
        named = re.findall(r"(?:\w+=)?([-\d.e]+) \((\d+)\)", note.partition(" kept) with ")[2])
        assert sorted((float(v), int(n)) for v, n in named) == sorted(
            (float(p[0][1]), n) for p, n in tied.items()
        )
    if argv[0] == GRAPHS:  # WL separates them: every C from some value on ties (not vacuous)
        assert any(f.get("tied") for rec in records for f in rec["folds"])
    # the baseline row, the Gram line
    baseline = records[0]["baseline"]
    assert rows[-1][:3] == ["baseline", "majority class", f"{baseline['mean']:.3f}"]
    n_gram = next((i for i, line in enumerate(after) if line.startswith("note:")), len(after))
    gram = " ".join(line.strip() for line in after[:n_gram])
    assert gram.startswith("Gram matri") and gram.endswith("positive semi-definite")
    kernels = {r["kernel"] for r in records}
    assert len(kernels) == 1 or all(f"{k} " in gram for k in kernels)  # each named once
    assert len(re.findall(r"\d\.\d\d s\b", gram)) == len(kernels)


def _notes(lines):
    """The ``note:`` lines, each joined with its continuation lines."""
    notes = []
    for line in lines:
        if line.startswith("note: "):
            notes.append(line)
        elif line.startswith("  ") and notes:
            notes[-1] += " " + line.strip()
    return notes


def _compact(record):
    """The learner as the table summarises it, from the JSON record."""
    from structk.cli.evaluation import compact_learner

    return compact_learner(record["learner"], record["grid"])


def test_wrapped_cells_keep_their_text():
    """A learner cell and a list of chosen grid points wrap at their commas
    (and the learner after its parenthesis) and lose no character."""
    from structk.cli.evaluation import _wrap_cell

    text = "KernelLogisticRegression(alpha∈10^-8..10^2, tol=0.01)"
    wrapped = _wrap_cell(text, 28, r"(?<=[(,])")
    assert wrapped.split("\n") == ["KernelLogisticRegression(", " alpha∈10^-8..10^2,", " tol=0.01)"]
    assert all(len(line) <= 28 for line in wrapped.split("\n"))
    chosen = "C=0.01 (4), 10 (3), 1000 (2), 1e7 (1)"
    wrapped = _wrap_cell(chosen, 20, r"(?<=,)")
    assert wrapped.split("\n") == ["C=0.01 (4), 10 (3),", " 1000 (2), 1e7 (1)"]
    assert " ".join(w.strip() for w in wrapped.split("\n")) == chosen
    assert _wrap_cell(chosen, 100, r"(?<=,)") == chosen
