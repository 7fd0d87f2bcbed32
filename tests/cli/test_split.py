"""``--split FILE``: ``fit``, ``cv``, ``gram`` and ``predict`` use only the
objects a split file lists (0-based positions or names), e.g. a TU folder's
training and test graphs, and refuse a bad entry naming its line."""

import json

import numpy as np
import pytest

import structk
from structk import cli
from structk.datasets import bundled_path
from structk.kernels import WeisfeilerLehman
from structk.learners import KernelSVM

FOLDER = bundled_path("graph_families")


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def tu():
    graphs, y = structk.datasets.load_tu(FOLDER)
    rng = np.random.default_rng(3)
    order = rng.permutation(len(graphs))
    return graphs, y, np.sort(order[:80]), np.sort(order[80:])


def _write(path, lines):
    path.write_text("\n".join(str(v) for v in lines) + "\n")
    return path


def test_fit_and_predict_on_a_tu_split_equal_python(tu, tmp_path, capsys):
    graphs, y, train, test = tu
    # positions in any order, a comment and a blank line; names for the test graphs
    train_file = _write(tmp_path / "train.txt", ["# training graphs", *train[::-1], ""])
    test_file = _write(tmp_path / "test.txt", [f"graph{i}" for i in test])
    model = tmp_path / "m.structk"
    code, out, _ = run(
        capsys,
        "fit",
        FOLDER,
        "--split",
        train_file,
        "--kernel",
        "WeisfeilerLehman(h=2)",
        "--learner",
        "KernelSVM(C=0.1)",
        "-o",
        model,
        "--quiet",
    )
    assert code == 0 and "80 objects" in out
    code, out, _ = run(
        capsys,
        "predict",
        model,
        FOLDER,
        "--split",
        test_file,
        "--format",
        "json",
        "--chunk-size",
        "7",
    )
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in rows] == [f"graph{i}" for i in test]
    ref = KernelSVM(kernel=WeisfeilerLehman(h=2), C=0.1).fit([graphs[i] for i in train], y[train])
    tested = [graphs[i] for i in test]
    np.testing.assert_allclose(
        [r["score"] for r in rows], ref.decision_function(tested), rtol=1e-10, atol=1e-10
    )
    assert [r["label"] for r in rows] == ref.predict(tested).tolist()


def test_cv_and_gram_use_the_split(tu, tmp_path, capsys):
    graphs, _, train, _ = tu
    train_file = _write(tmp_path / "train.txt", train)
    code, out, _ = run(
        capsys,
        "cv",
        FOLDER,
        "--split",
        train_file,
        "--kernel",
        "WeisfeilerLehman(h=1)",
        "--learner",
        "KernelSVM(C=1)",
        "--cv",
        "4",
        "--quiet",
    )
    assert code == 0 and "80 objects" in out
    K_file = tmp_path / "K.npy"
    code, _, _ = run(
        capsys,
        "gram",
        FOLDER,
        "--split",
        train_file,
        "--kernel",
        "WeisfeilerLehman(h=1)",
        "-o",
        K_file,
        "--quiet",
    )
    assert code == 0
    ref = WeisfeilerLehman(h=1)([graphs[i] for i in train])
    np.testing.assert_array_equal(np.load(K_file), ref)


def test_split_of_a_fasta_file_by_record_name(tmp_path, capsys):
    fa = tmp_path / "s.fa"
    fa.write_text("".join(f">r{i} c={i % 2}\n{'ACGT' * (i + 1)}\n" for i in range(6)))
    split = _write(tmp_path / "keep.txt", ["r4", "1"])
    K_file = tmp_path / "K.npy"
    code, _, _ = run(
        capsys,
        "gram",
        fa,
        "--split",
        split,
        "--kernel",
        "Spectrum(k=2)",
        "-o",
        K_file,
        "--quiet",
    )
    assert code == 0
    ref = structk.kernels.Spectrum(k=2)(["ACGT" * 2, "ACGT" * 5])  # input order: r1, r4
    np.testing.assert_array_equal(np.load(K_file), ref)


@pytest.mark.parametrize(
    "lines, words",
    [
        (["3", "5", "120"], ["line 3", "position 120", "0..119", "subtract 1"]),
        (["3", "-1"], ["line 2", "position -1", "0..119"]),
        (["3", "5", "graph3"], ["line 3", "'graph3'", "listed already on line 1"]),
        (["# a comment", "7", "7"], ["line 3", "'7'", "(graph7)", "line 2"]),
        (["3", "g12"], ["line 2", "'g12'", "neither a 0-based position", "graph0"]),
        (["3 4"], ["line 1", "several entries", "one per line"]),
        (["# nothing", ""], ["lists no objects"]),
    ],
)
@pytest.mark.parametrize("command", ["fit", "predict"])
def test_bad_split_entries_are_refused_naming_the_line(lines, words, command, tmp_path, capsys):
    split = _write(tmp_path / "split.txt", lines)
    if command == "fit":
        argv = ["fit", FOLDER, "--kernel", "WeisfeilerLehman(h=1)", "-o", tmp_path / "m.structk"]
    else:
        model = tmp_path / "model.structk"
        structk.save(
            KernelSVM(kernel=WeisfeilerLehman(h=1), C=1).fit(*structk.datasets.load_tu(FOLDER)),
            model,
        )
        argv = ["predict", model, FOLDER]
    code, out, err = run(capsys, *argv, "--split", split, "--quiet")
    assert code == 2 and out == ""
    assert "split.txt" in err and len(err.strip().splitlines()) == 1
    for word in words:
        assert word in err, (word, err)
    assert not (tmp_path / "m.structk").exists()


def test_split_does_not_apply_to_a_positive_negative_pair(tmp_path, capsys):
    fa = tmp_path / "p.fa"
    fa.write_text(">a\nACGT\n")
    neg = tmp_path / "n.fa"
    neg.write_text(">b\nTTTT\n")
    split = _write(tmp_path / "s.txt", [0])
    code, _, err = run(
        capsys,
        "fit",
        "--positive",
        fa,
        "--negative",
        neg,
        "--split",
        split,
        "--kernel",
        "Spectrum(k=2)",
        "-o",
        tmp_path / "m.structk",
    )
    assert code == 2 and "--split does not apply to --positive/--negative" in err


def test_tu_subset_writes_the_split_as_a_tu_folder(tu, tmp_path, capsys):
    graphs, y, train, _ = tu
    split = _write(tmp_path / "train.txt", train)
    out = tmp_path / "TRAIN"
    code, _, err = run(capsys, "tu-subset", FOLDER, "--split", split, "-o", out)
    assert code == 0 and f"80 of 120 graphs written to {out}" in err
    again, y2 = structk.datasets.load_tu(out)
    np.testing.assert_array_equal(y2, y[train])
    kept = [graphs[i] for i in train]
    assert [list(G.nodes(data=True)) for G in again] == [list(G.nodes(data=True)) for G in kept]
    assert [list(G.edges) for G in again] == [list(G.edges) for G in kept]
    # the README's label names come along
    assert structk.datasets.tu_label_names(out)[0] == {0: "C", 1: "N", 2: "O"}
    # cv on the new folder is cv --split on the old one
    common = ["--kernel", "WeisfeilerLehman(h=1)", "--learner", "KernelSVM(C=1)", "--cv", "4"]
    common += ["--format", "tsv", "--quiet"]
    code, whole, _ = run(capsys, "cv", out, *common)
    code2, part, _ = run(capsys, "cv", FOLDER, "--split", split, *common)
    assert code == code2 == 0
    cut = [line.split("\t")[:8] for line in whole.splitlines()]
    assert cut == [line.split("\t")[:8] for line in part.splitlines()]
    # a folder holding a dataset is not written over; a bad split writes nothing
    code, _, err = run(capsys, "tu-subset", FOLDER, "--split", split, "-o", out)
    assert code == 2 and "already holds a TU dataset" in err
    bad = _write(tmp_path / "bad.txt", [0, 0])
    code, _, err = run(capsys, "tu-subset", FOLDER, "--split", bad, "-o", tmp_path / "B")
    assert code == 2 and "line 2" in err and not (tmp_path / "B").exists()
