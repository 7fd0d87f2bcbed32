"""structk fit / structk predict: the model the command writes predicts what
the same learner fitted in Python predicts, on every input format."""

import json
import re
import shutil

import numpy as np
import pytest

import structk
from structk import cli
from structk.datasets import bundled_path
from structk.learners import KernelLogisticRegression, KernelRidge, KernelSVM


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _tsv(text):
    lines = text.strip().splitlines()
    header = lines[0].split("\t")
    return header, [dict(zip(header, line.split("\t"))) for line in lines[1:]]


@pytest.fixture
def seqs(tmp_path):
    rng = np.random.default_rng(0)
    motif = "TGACTCA"
    out = []
    for i in range(40):
        s = "".join(rng.choice(list("ACGT"), size=40))
        if i % 2:
            s = s[:15] + motif + s[22:]
        out.append(s)
    path = tmp_path / "train.fa"
    path.write_text(
        "".join(f">s{i} class={'site' if i % 2 else 'none'}\n{s}\n" for i, s in enumerate(out))
    )
    return path, out, np.array(["site" if i % 2 else "none" for i in range(40)])


def test_fasta_fit_predict_equals_python(seqs, tmp_path, capsys):
    path, X, y = seqs
    model = tmp_path / "m.structk"
    code, out, _ = run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Normalize(Spectrum(k=3))",
        "--learner",
        "KernelSVM(C=2)",
        "-o",
        model,
        "--quiet",
    )
    assert code == 0
    assert "40 objects (none 20, site 20)" in out and f"model written to {model}" in out
    reference = KernelSVM(
        kernel=structk.kernels.Normalize(structk.kernels.Spectrum(k=3, alphabet="dna")), C=2
    ).fit(X, y)
    code, out, _ = run(capsys, "predict", model, path, "--quiet")
    assert code == 0
    header, rows = _tsv(out)
    assert header == ["id", "label", "score"]
    assert [r["id"] for r in rows] == [f"s{i}" for i in range(40)]
    np.testing.assert_array_equal([float(r["score"]) for r in rows], reference.decision_function(X))
    assert [r["label"] for r in rows] == reference.predict(X).tolist()


def test_positive_negative_pair_as_gkmtrain(seqs, tmp_path, capsys):
    _, X, y = seqs
    pos, neg = tmp_path / "pos.fa", tmp_path / "neg.fa"
    pos.write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(X[1::2])))
    neg.write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(X[0::2])))
    model = tmp_path / "pair.structk"
    code, out, _ = run(
        capsys,
        "fit",
        "--positive",
        pos,
        "--negative",
        neg,
        "--kernel",
        "Spectrum(k=4)",
        "--learner",
        "KernelSVM(C=1)",
        "-o",
        model,
    )
    assert code == 0 and "negative 20, positive 20" in out
    code, out, _ = run(capsys, "predict", model, pos, "--format", "json")
    rows = [json.loads(line) for line in out.splitlines()]
    ref = KernelSVM(kernel=structk.kernels.Spectrum(k=4, alphabet="dna"), C=1).fit(
        X[1::2] + X[0::2], ["positive"] * 20 + ["negative"] * 20
    )
    np.testing.assert_array_equal([r["score"] for r in rows], ref.decision_function(X[1::2]))
    # the score is positive for "positive", as gkmpredict's
    assert all((r["score"] > 0) == (r["label"] == "positive") for r in rows)


@pytest.mark.parametrize("fold", [True, False])
@pytest.mark.parametrize(
    "kernel",
    [
        "GappedKmer(l=6, k=3, d=2)",
        "GappedKmer(l=6, k=4, d=2, kind='count', center_weighted=True, normalize=False)",
    ],
)
def test_gapped_kmer_predict_equals_the_learner(
    seqs, tmp_path, capsys, tuning, monkeypatch, fold, kernel
):
    """``structk predict`` of a two-class gapped k-mer SVM folds the support
    vectors into one l-mer table (or compares with each of them): the same
    scores, labels and probabilities as the loaded model's own methods, in
    chunks of 7 (the table built once)."""
    path, X, _ = seqs
    model = tmp_path / "gkm.structk"
    code, _, _ = run(capsys, "fit", path, "--label-pattern", r"class=(\S+)", "--kernel", kernel,
                     "--learner", "KernelSVM(C=1, probability=True, random_state=0)", "-o", model,
                     "--quiet")  # fmt: skip
    assert code == 0
    tuning.set(GKM_PROFILE_PAIRS_PER_ENTRY=0.0 if fold else 1e12)
    from structk.algorithms import gapped_kmers

    built = []
    profile = gapped_kmers.lmer_profile
    monkeypatch.setattr(gapped_kmers, "lmer_profile", lambda *a: built.append(1) or profile(*a))
    code, out, _ = run(capsys, "predict", model, path, "--quiet", "--chunk-size", 7)
    assert code == 0 and len(built) == (1 if fold else 0)
    header, rows = _tsv(out)
    assert header == ["id", "label", "score", "probability"]
    ref = structk.load(model)
    score = ref.decision_function(X)
    np.testing.assert_allclose([float(r["score"]) for r in rows], score, rtol=1e-10, atol=1e-12)
    assert [r["label"] for r in rows] == ref.predict(X).tolist()
    np.testing.assert_allclose(
        [float(r["probability"]) for r in rows], ref.predict_proba(X)[:, 1], rtol=1e-10
    )


def test_inner_cv_chooses_c_as_cv_does(seqs, tmp_path, capsys):
    from structk.cli.evaluation import learner_spec, scaled_spec
    from structk.kernels import Spectrum
    from structk.learners import KernelSVM

    path, X, _ = seqs
    model = tmp_path / "m.structk"
    code, out, _ = run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=3)",
        "-o",
        model,
        "--format",
        "json",
    )
    summary = json.loads(out)
    assert code == 0 and set(summary["chosen"]) == {"C"}
    C = summary["chosen"]["C"]
    # the default grid, moved to the Gram's scale as cv moves it
    assert C in scaled_spec(learner_spec(KernelSVM(), {}, set()), [Spectrum(k=3)(X)]).grid["C"]
    assert structk.load(model).C == C
    info = structk.load_metadata(model)
    assert info["objects"] == "sequences" and info["metadata"]["input"]["alphabet"] == "dna"


@pytest.mark.parametrize(
    "learner, param", [("KernelSVM()", "C"), ("KernelLogisticRegression()", "alpha")]
)
def test_inner_cv_and_final_fit_share_one_gram(seqs, tmp_path, capsys, monkeypatch, learner, param):
    """The training objects are prepared once and their Gram computed once:
    the inner folds slice it, and the final fit is handed it."""
    from structk.kernels import Spectrum

    path, X, y = seqs
    counts = {"prepared": 0, "entries": 0}
    prepare, gram, cross = Spectrum._prepare, Spectrum._gram, Spectrum._cross

    def spy_prepare(self, objects, name="X"):
        counts["prepared"] += len(objects)
        return prepare(self, objects, name)

    def spy_gram(self, P):
        K = gram(self, P)
        counts["entries"] += K.size
        return K

    def spy_cross(self, P, Q):
        K = cross(self, P, Q)
        counts["entries"] += K.size
        return K

    monkeypatch.setattr(Spectrum, "_prepare", spy_prepare)
    monkeypatch.setattr(Spectrum, "_gram", spy_gram)
    monkeypatch.setattr(Spectrum, "_cross", spy_cross)
    model = tmp_path / "m.structk"
    code, out, _ = run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=3)",
        "--learner",
        learner,
        "-o",
        model,
        "--format",
        "json",
    )
    assert code == 0
    assert counts == {"prepared": len(X), "entries": len(X) ** 2}
    # the model is the one an ordinary fit with the chosen value gives
    chosen = json.loads(out)["chosen"][param]
    ref = type(structk.load(model))(kernel=Spectrum(k=3, alphabet="dna"), **{param: chosen})
    ref.fit(X, y)
    np.testing.assert_allclose(
        structk.load(model).decision_function(X), ref.decision_function(X), rtol=1e-10, atol=1e-10
    )


def test_fit_with_gram_equals_fit_and_checks_the_shape(seqs):
    from sklearn.base import clone

    from structk.kernels import Normalize, Spectrum
    from structk.learners._base import fit_with_gram

    _, X, y = seqs
    for learner in (
        KernelSVM(kernel=Normalize(Spectrum(k=3)), C=3.0),
        KernelRidge(kernel=Normalize(Spectrum(k=3)), alpha=0.5),
    ):
        targets = (y == "site").astype(float) if isinstance(learner, KernelRidge) else y
        kernel = clone(learner.kernel).fit(X)
        P = kernel.prepare(X)
        given = fit_with_gram(clone(learner), X, targets, kernel, P, kernel.gram_prepared(P))
        plain = clone(learner).fit(X, targets)
        np.testing.assert_array_equal(
            given.decision_function(X) if hasattr(given, "decision_function") else given.predict(X),
            plain.decision_function(X) if hasattr(plain, "decision_function") else plain.predict(X),
        )
        assert not hasattr(given, "_given_gram")
    with pytest.raises(ValueError, match=r"shape \(3, 3\), but X has 40 objects"):
        fit_with_gram(KernelSVM(kernel=kernel), X, y, kernel, P, np.eye(3))


def test_no_default_grid_search_past_the_gram(seqs, tmp_path, capsys, tuning):
    path, _, _ = seqs
    tuning.set(NESTED_MAX_N=30)
    model = tmp_path / "m.structk"
    code, out, _ = run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=3)",
        "-o",
        model,
    )
    assert code == 0 and "no inner CV over 40 objects" in out and "chosen by" not in out
    assert structk.load(model).C == 1.0
    code, out, _ = run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=3)",
        "--learner",
        "KernelSVM(C=[0.1, 10])",
        "-o",
        model,
    )
    assert code == 0 and "chosen by inner 5-fold CV: C=" in out


def test_chunks_give_the_same_rows_and_output_file(seqs, tmp_path, capsys):
    path, _, _ = seqs
    model = tmp_path / "m.structk"
    run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "KernelLogisticRegression(alpha=0.1)",
        "-o",
        model,
    )
    _, whole, _ = run(capsys, "predict", model, path)
    out = tmp_path / "pred.tsv"
    code, stdout, err = run(capsys, "predict", model, path, "--chunk-size", "7", "-o", out)
    assert code == 0 and stdout == "" and "40 predictions written" in err
    # the same rows; the scores to rounding (BLAS products of 7 rows and of
    # 40 may sum in another order)
    chunked_header, chunked = _tsv(out.read_text())
    header, rows = _tsv(whole)
    assert chunked_header == header
    assert [(r["id"], r["label"]) for r in chunked] == [(r["id"], r["label"]) for r in rows]
    for key in ("score", "probability"):
        np.testing.assert_allclose(
            [float(r[key]) for r in chunked], [float(r[key]) for r in rows], rtol=1e-12, atol=1e-10
        )
    assert header == ["id", "label", "score", "probability"]
    p = np.array([float(r["probability"]) for r in rows])
    s = np.array([float(r["score"]) for r in rows])
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-s)), rtol=1e-12)


def test_csv_vectors_by_column_name(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] + X[:, 1] > 0, "up", "down")
    train = tmp_path / "train.csv"
    train.write_text(
        "a,b,c,label\n" + "".join(f"{u},{v},{w},{lab}\n" for (u, v, w), lab in zip(X, y))
    )
    model = tmp_path / "v.structk"
    code, _, _ = run(
        capsys,
        "fit",
        train,
        "--label-column",
        "label",
        "--kernel",
        "Gaussian(sigma=2)",
        "--learner",
        "KernelSVM(C=1)",
        "-o",
        model,
    )
    assert code == 0
    # columns in another order, an id column, no label column
    new = tmp_path / "new.csv"
    new.write_text("name,c,a,b\n" + "".join(f"x{i},{w},{u},{v}\n" for i, (u, v, w) in enumerate(X)))
    code, out, _ = run(capsys, "predict", model, new, "--id-column", "name")
    assert code == 0
    _, rows = _tsv(out)
    ref = KernelSVM(kernel=structk.Gaussian(sigma=2), C=1).fit(X, y)
    assert [r["id"] for r in rows] == [f"x{i}" for i in range(30)]
    np.testing.assert_array_equal([float(r["score"]) for r in rows], ref.decision_function(X))
    missing = tmp_path / "missing.csv"
    missing.write_text("a,c\n1,2\n")
    code, _, err = run(capsys, "predict", model, missing)
    assert code == 2 and "no column 'b'" in err and "missing.csv" in err


def test_tu_folder_json_and_wrong_kind(tmp_path, capsys):
    folder = bundled_path("graph_families")
    model = tmp_path / "g.structk"
    code, _, _ = run(
        capsys,
        "fit",
        folder,
        "--kernel",
        "WeisfeilerLehman(h=2)",
        "--learner",
        "KernelLogisticRegression(alpha=0.01)",
        "-o",
        model,
    )
    assert code == 0
    code, out, _ = run(capsys, "predict", model, folder, "--format", "json", "--chunk-size", "16")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    graphs, y = structk.datasets.load_tu(folder)
    ref = KernelLogisticRegression(kernel=structk.kernels.WeisfeilerLehman(h=2), alpha=0.01).fit(
        graphs, y
    )
    assert [r["label"] for r in rows] == ref.predict(graphs).tolist()
    np.testing.assert_allclose(
        [r["probability"] for r in rows], ref.predict_proba(graphs)[:, 1], rtol=1e-12, atol=1e-12
    )
    # new graphs come without labels
    unlabelled = tmp_path / "new"
    shutil.copytree(folder, unlabelled)
    for path in unlabelled.glob("*_graph_labels.txt"):
        path.unlink()
    code, again, _ = run(capsys, "predict", model, unlabelled, "--format", "json")
    assert code == 0 and again == out
    fa = tmp_path / "x.fa"
    fa.write_text(">a\nACGT\n")
    code, _, err = run(capsys, "predict", model, fa)
    assert code == 2 and re.search(r"g\.structk predicts from graphs.*x\.fa holds sequences", err)


def test_multiclass_scores_and_probabilities(seqs, tmp_path, capsys):
    _, X, _ = seqs
    y = [("a", "b", "c")[i % 3] for i in range(len(X))]
    path = tmp_path / "three.fa"
    path.write_text("".join(f">s{i} class={c}\n{s}\n" for i, (s, c) in enumerate(zip(X, y))))
    model = tmp_path / "m.structk"
    code, _, _ = run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "KernelLogisticRegression(alpha=0.1)",
        "-o",
        model,
    )
    assert code == 0
    code, out, _ = run(capsys, "predict", model, path)
    header, rows = _tsv(out)
    assert header == [
        "id",
        "label",
        "score_a",
        "score_b",
        "score_c",
        "probability_a",
        "probability_b",
        "probability_c",
    ]
    ref = KernelLogisticRegression(
        kernel=structk.kernels.Spectrum(k=2, alphabet="dna"), alpha=0.1
    ).fit(X, y)
    assert [r["label"] for r in rows] == ref.predict(X).tolist()
    P = np.array([[float(r[f"probability_{c}"]) for c in "abc"] for r in rows])
    np.testing.assert_array_equal(P, ref.predict_proba(X))


def test_sets_and_smiles_regression(tmp_path, capsys):
    sets = tmp_path / "b.sets"
    sets.write_text("apple pear\npear plum\napple plum kiwi\nkiwi\npear kiwi\napple\n")
    labels = tmp_path / "y.txt"
    labels.write_text("a\nb\na\nb\nb\na\n")
    model = tmp_path / "s.structk"
    code, _, _ = run(
        capsys,
        "fit",
        sets,
        "--labels",
        labels,
        "--kernel",
        "Jaccard()",
        "--learner",
        "NearestClassMean()",
        "-o",
        model,
    )
    assert code == 0
    code, out, _ = run(capsys, "predict", model, sets)
    _, rows = _tsv(out)
    assert [r["id"] for r in rows][:2] == ["line1", "line2"]
    pytest.importorskip("rdkit")
    smiles = [
        "CCO",
        "CCCO",
        "CCCCO",
        "c1ccccc1",
        "c1ccccc1O",
        "CC(=O)O",
        "CCN",
        "CCCN",
        "CCCCCC",
        "CCOCC",
        "OCCO",
        "CC(C)O",
    ]
    target = np.linspace(-2, 1.5, len(smiles)) ** 2
    csv = tmp_path / "mol.csv"
    csv.write_text("smiles,logS\n" + "".join(f"{s},{float(t)!r}\n" for s, t in zip(smiles, target)))
    model = tmp_path / "r.structk"
    code, _, _ = run(
        capsys,
        "fit",
        csv,
        "--smiles-column",
        "smiles",
        "--target-column",
        "logS",
        "--kernel",
        "WeisfeilerLehman(h=2)",
        "--learner",
        "KernelRidge(alpha=0.1)",
        "-o",
        model,
    )
    assert code == 0
    new = tmp_path / "new.csv"
    new.write_text("id,smiles\nm1,CCCCCO\nm2,c1ccccc1C\n")
    code, out, _ = run(capsys, "predict", model, new, "--id-column", "id")
    assert code == 0
    header, rows = _tsv(out)
    assert header == ["id", "prediction"]
    from structk.datasets import from_smiles

    ref = KernelRidge(kernel=structk.kernels.WeisfeilerLehman(h=2), alpha=0.1).fit(
        from_smiles(smiles), target
    )
    np.testing.assert_array_equal(
        [float(r["prediction"]) for r in rows], ref.predict(from_smiles(["CCCCCO", "c1ccccc1C"]))
    )


@pytest.mark.parametrize(
    "learner",
    ["KernelPerceptron()", "KernelSVM(C=1)", "NearestClassMean()", "KernelLogisticRegression()"],
)
def test_binary_labels_follow_the_learners_predict(seqs, tmp_path, capsys, learner):
    path, X, _ = seqs
    model = tmp_path / "m.structk"
    run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        learner,
        "-o",
        model,
    )
    _, out, _ = run(capsys, "predict", model, path)
    _, rows = _tsv(out)
    assert [r["label"] for r in rows] == structk.load(model).predict(X).tolist()


def test_a_closed_pipe_ends_predict_quietly(seqs, tmp_path, capsys):
    """``structk predict ... | head``: exit 0, nothing on standard error."""
    import subprocess
    import sys

    path, X, _ = seqs
    model = tmp_path / "m.structk"
    run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "KernelSVM(C=1)",
        "-o",
        model,
    )
    many = tmp_path / "many.fa"
    many.write_text("".join(f">r{i}\n{X[i % len(X)]}\n" for i in range(20000)))  # > 64 kB out
    proc = subprocess.Popen(
        [sys.executable, "-m", "structk", "predict", str(model), str(many), "--chunk-size", "2000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout.readline().decode().startswith("id\tlabel")
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, err
    assert "Error" not in err and "error" not in err, err


def test_prediction_errors_name_the_item(seqs, tmp_path, capsys):
    path, _, _ = seqs
    model = tmp_path / "m.structk"
    run(
        capsys,
        "fit",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "KernelSVM(C=1)",
        "-o",
        model,
    )
    odd = tmp_path / "odd.fa"
    odd.write_text(">ok\nACGTACGT\n>bad\nACGNNACG\n")
    out = tmp_path / "pred.tsv"
    code, _, err = run(capsys, "predict", model, odd, "-o", out)
    assert code == 2 and "record 1 (bad) has symbol 'N' at position 3" in err
    assert "never saw" in err and not out.exists()
    assert not list(tmp_path.glob(".*partial")), "a partial file was left behind"
    code, _, err = run(capsys, "fit", "--positive", path, "--kernel", "Spectrum()", "-o", model)
    assert code == 2 and "--positive needs --negative" in err
    folder = bundled_path("graph_families")
    code, _, err = run(capsys, "predict", model, folder)
    assert code == 2 and "m.structk predicts from sequences" in err and "holds graphs" in err
    junk = tmp_path / "junk.structk"
    junk.write_bytes(b"\x80\x04K\x01.")
    code, _, err = run(capsys, "predict", junk, path)
    assert code == 2 and "junk.structk" in err and "pickle" in err
