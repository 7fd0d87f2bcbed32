"""``structk cv``'s table with long kernel expressions: a kernel cell longer
than 32 characters is shortened to ``[N] start…`` and the whole expression
is given in a footnote, so the table keeps to 100 columns (issue 38)."""

import json
from pathlib import Path

from structk import cli

ROOT = Path(__file__).resolve().parents[2]
MOTIFS = ROOT / "data" / "motifs.fasta"
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
