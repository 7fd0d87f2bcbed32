"""``structk cv``: nested cross-validation, baselines, folds, output formats."""

import json
import re

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from structk import cli
from structk.cli.evaluation import CVResult, edge_notes, learner_spec, make_splits
from structk.kernels import Normalize
from structk.cli.spec import parse_learner
from structk.datasets import load_moons
from structk.kernels import Gaussian
from structk.learners import KernelSVM


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def moons_csv(tmp_path):
    X, y = load_moons()
    path = tmp_path / "moons.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="x1,x2,label", comments="", fmt="%.17g")
    return path, X, y


def test_a_list_in_the_learner_is_the_grid_a_value_fixes_it():
    svm, grid, given = parse_learner("KernelSVM(C=[0.1, 1, 10], tol=1e-4)")
    assert grid == {"C": [0.1, 1, 10]} and given == {"C", "tol"}
    assert svm.C == 0.1 and svm.tol == 1e-4
    ridge, grid, _ = parse_learner("KernelRidgeCV(alphas=[0.1, 1])")
    assert grid == {} and ridge.alphas == (0.1, 1)  # a sequence parameter takes the list
    assert learner_spec(*parse_learner("KernelSVM(C=3)")).grid == {}
    assert learner_spec(*parse_learner("KernelSVM()")).grid["C"][0] == 0.01
    with pytest.raises(ValueError, match="list of values for C is empty"):
        parse_learner("KernelSVM(C=[])")


def test_nested_cv_equals_sklearn_grid_search_in_cross_validation(moons_csv, capsys):
    path, X, y = moons_csv
    grid = [0.01, 0.1, 1.0, 10.0, 100.0]
    code, out, _ = run(
        capsys,
        "cv",
        str(path),
        "--label-column",
        "label",
        "--kernel",
        "Gaussian(sigma=0.3)",
        "--learner",
        f"KernelSVM(C={grid})",
        "--cv",
        "4",
        "--inner-folds",
        "3",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    row = json.loads(out)
    # reference: the same folds, scikit-learn's GridSearchCV over structk's SVM
    K = Gaussian(sigma=0.3)(X)
    labels = y.astype(float).astype(str)
    outer = make_splits(4, labels, "classification").folds
    for fold, (tr, te) in zip(row["folds"], outer):
        inner = StratifiedKFold(3, shuffle=True, random_state=0)
        search = GridSearchCV(KernelSVM(psd_check="none"), {"C": grid}, cv=inner)
        search.fit(K[np.ix_(tr, tr)], labels[tr])
        assert fold["params"] == {"C": search.best_params_["C"]}
        assert fold["score"] == pytest.approx(search.score(K[np.ix_(te, tr)], labels[te]))
        dummy = DummyClassifier(strategy="most_frequent").fit(tr[:, None], labels[tr])
        assert fold["baseline"] == pytest.approx(dummy.score(te[:, None], labels[te]))
    assert row["mean"] == pytest.approx(np.mean([f["score"] for f in row["folds"]]))
    assert row["baseline"]["name"] == "majority class"
    assert set(row) >= {
        "kernel",
        "learner",
        "folds",
        "mean",
        "std",
        "baseline",
        "gram_seconds",
        "psd",
        "one_class_folds",
        "cv",
        "n",
    }
    assert row["psd"]["is_psd"] is True and row["n"] == 200


# ------------------------------------------------------- the grid's edge
@pytest.fixture
def flat_kernel_csv(tmp_path):
    """Two classes (24 and 12 points) under a kernel whose values all lie
    near 1, as normalised graph kernels on MUTAG: small C cannot separate."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(24, 2)), rng.normal(size=(12, 2)) + [3, 0]]
    y = np.r_[np.zeros(24, int), np.ones(12, int)]
    path = tmp_path / "flat.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="a,b,label", comments="", fmt="%.17g")
    return path, X, y.astype(float).astype(str)


def _cv_json(capsys, path, learner):
    code, out, err = run(
        capsys,
        "cv",
        str(path),
        "--label-column",
        "label",
        "--kernel",
        "Normalize(Gaussian(sigma=20))",
        "--learner",
        learner,
        "--cv",
        "4",
        "--inner-folds",
        "3",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    return json.loads(out), err


def test_largest_c_winning_on_most_folds_is_noted_on_stderr(flat_kernel_csv, capsys):
    path, X, labels = flat_kernel_csv
    grid = [0.1, 1.0, 10.0]
    row, err = _cv_json(capsys, path, f"KernelSVM(C={grid})")
    assert err == (
        "note: Normalize(Gaussian(sigma=20)), KernelSVM: C = 10, the largest value of its "
        "grid, was chosen on 4/4 outer folds; the best C may lie above the grid: try a wider "
        "grid, e.g. --learner 'KernelSVM(C=[0.1, 1, 10, 100, 1000])'\n"
    )
    # reference: on each outer training part, scikit-learn's grid search over the
    # same inner folds finds C = 10 strictly best
    K = Normalize(Gaussian(sigma=20))(X)
    for fold, (tr, _) in zip(row["folds"], make_splits(4, labels, "classification").folds):
        inner = StratifiedKFold(3, shuffle=True, random_state=0)
        search = GridSearchCV(KernelSVM(psd_check="none"), {"C": grid}, cv=inner)
        search.fit(K[np.ix_(tr, tr)], labels[tr])
        scores = search.cv_results_["mean_test_score"]
        assert scores[2] > max(scores[:2])
        assert fold["params"] == {"C": 10.0} and fold["ties"] == 0


def test_edge_chosen_by_ties_or_on_few_folds_is_not_noted(flat_kernel_csv, capsys):
    path, _, _ = flat_kernel_csv
    # every C too small: all predict the majority class, the first C wins the tie
    row, err = _cv_json(capsys, path, "KernelSVM(C=[0.01, 0.1, 1])")
    # (tied choices are no edge: the same holds on separable data, where every C
    # from some value on has zero inner error)
    assert row["grid_edge_folds"] == {} and row["one_class_folds"] == 4
    assert all(f["ties"] == 2 for f in row["folds"]) and err == ""
    # which points tied, named: the two other Cs, whose SVMs predict the same majority class
    assert all(f["params"] == {"C": 0.01} for f in row["folds"])
    assert all(f["tied"] == [{"C": 0.1}, {"C": 1.0}] for f in row["folds"])
    # a grid wide enough: the edge wins on 1 fold of 4 only
    row, err = _cv_json(capsys, path, "KernelSVM(C=[0.1, 1, 10, 100, 1000])")
    assert row["grid_edge_folds"] == {"C": 1} and err == ""


def _row(grid, chosen, ties=0, learner=None):
    folds = [
        {
            "params": {name: v for name, v in zip(grid, values)},
            "ties": ties,
            "score": 1.0,
            "baseline": 0.5,
            "one_class": False,
        }
        for values in chosen
    ]
    learner = (
        learner
        or "KernelRidge("
        + ", ".join(f"{k}=[{', '.join(f'{v:g}' for v in vals)}]" for k, vals in grid.items())
        + ")"
    )
    return CVResult("Linear()", learner, "regression", folds, 0.0, None, grid)


@pytest.mark.parametrize(
    "grid, chosen, expected",
    [
        # the smallest end, in decades: two more decades below
        (
            {"alpha": [0.001, 0.01, 0.1, 1]},
            [[0.001]] * 3 + [[0.01]],
            "alpha = 0.001, the smallest value of its grid, was chosen on 3/4 outer folds; the best "
            "alpha may lie below the grid: try a wider grid, e.g. "
            "--learner 'KernelRidge(alpha=[1e-05, 0.0001, 0.001, 0.01, 0.1])'",
        ),
        # a grid written in any order, with a ratio of 2
        (
            {"alpha": [4, 1, 2]},
            [[4]] * 2,
            "try a wider grid, e.g. --learner 'KernelRidge(alpha=[1, 2, 4, 8, 16])'",
        ),
        # zero in the grid: no ratio to extend by
        ({"alpha": [0, 1, 2]}, [[2]] * 3, "try a wider grid for alpha in the --learner expression"),
        # exactly half the folds is not most of them
        ({"alpha": [1, 10, 100]}, [[100]] * 2 + [[10]] * 2, None),
        # a grid of 2 values has no inside
        ({"alpha": [1, 10]}, [[10]] * 4, None),
    ],
)
def test_edge_note_direction_and_wider_grid(grid, chosen, expected):
    notes = edge_notes([_row(grid, chosen)])
    if expected is None:
        assert notes == []
    else:
        assert len(notes) == 1 and notes[0].startswith("Linear(), KernelRidge: ")
        assert expected in notes[0]


def test_edge_note_counts_only_untied_choices():
    assert edge_notes([_row({"C": [1, 10, 100]}, [[1]] * 4, ties=1)]) == []
    # a learner choosing its own alpha (KernelRidgeCV) has no grid and no "ties"
    row = _row({}, [[]] * 4)
    for f in row.folds:
        del f["ties"]
    assert edge_notes([row]) == []


def test_top_C_of_a_hard_margin_svm_is_no_edge():
    """A fold whose SVM at the top C has no dual variable at C (a hard
    margin) would get the very same model from any larger C: its choice
    says nothing about a better C above the grid (the bottom still does)."""
    grid = {"C": [1, 10, 100]}
    row = _row(grid, [[100]] * 4, learner="KernelSVM(C=[1, 10, 100])")
    for f in row.folds[:3]:
        f["same_above"] = ["C"]
    assert row.edge_folds() == {"C": 1} and edge_notes([row]) == []
    row = _row(grid, [[1]] * 4, learner="KernelSVM(C=[1, 10, 100])")
    for f in row.folds:
        f["same_above"] = ["C"]
    assert row.edge_folds() == {"C": 4} and len(edge_notes([row])) == 1


@pytest.mark.parametrize("gap, hard", [(3.0, True), (0.0, False)])
def test_same_model_above_means_what_it_says(gap, hard):
    """With ``same_above`` a larger C gives the same SVM; without it (here:
    overlapping classes, a Gaussian kernel) a larger C changes it."""
    from structk.cli.evaluation import _same_model_above
    from structk.learners import KernelSVM

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    X[:, 0] += gap * y  # separated by a margin, or overlapping
    X[:, 0] += (gap == 0.0) * 0.8 * rng.normal(size=60)
    K = X @ X.T if hard else np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    small = KernelSVM(C=1e3, tol=1e-6).fit(K, y)
    large = KernelSVM(C=1e5, tol=1e-6).fit(K, y)
    assert _same_model_above(small) == (["C"] if hard else [])
    same = np.allclose(small.decision_function(K), large.decision_function(K), rtol=1e-4, atol=1e-4)
    assert same == hard


def test_one_class_predictions_are_flagged(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.r_[np.zeros(30), np.ones(10)]
    path = tmp_path / "unbalanced.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="a,b,y", comments="")
    code, out, _ = run(
        capsys,
        "cv",
        str(path),
        "--label-column",
        "y",
        "--kernel",
        "Linear()",
        "--learner",
        "KernelSVM(C=1e-4)",
        "--cv",
        "5",
        "--quiet",
    )
    assert code == 0
    assert "predicts one class on 5/5 folds" in out
    # the learner is the majority-class baseline (the table's baseline row)
    assert "Linear()  KernelSVM(C=0.0001)  0.750 ± 0.000" in out
    assert re.search(r"\nbaseline +majority class +0\.750 ", out)


def test_regression_reports_rmse_r2_and_the_mean_predictor(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    t = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=60)
    path = tmp_path / "reg.csv"
    np.savetxt(path, np.c_[X, t], delimiter=",", header="a,b,c,target", comments="", fmt="%.17g")
    code, out, _ = run(
        capsys,
        "cv",
        str(path),
        "--target-column",
        "target",
        "--kernel",
        "Linear()",
        "--learner",
        "KernelRidge(alpha=0.5)",
        "--cv",
        "5",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    row = json.loads(out)
    assert row["task"] == "regression" and row["metric"] == "RMSE"
    K = X @ X.T
    for fold, (tr, te) in zip(row["folds"], make_splits(5, t, "regression").folds):
        pred = (
            SkKernelRidge(alpha=0.5, kernel="precomputed")
            .fit(K[np.ix_(tr, tr)], t[tr])
            .predict(K[np.ix_(te, tr)])
        )
        assert fold["score"] == pytest.approx(mean_squared_error(t[te], pred) ** 0.5)
        assert fold["r2"] == pytest.approx(r2_score(t[te], pred))
        mean = DummyRegressor().fit(X[tr], t[tr]).predict(X[te])
        assert fold["baseline"] == pytest.approx(mean_squared_error(t[te], mean) ** 0.5)
    assert row["baseline"]["name"] == "mean predictor" and row["r2"]["mean"] > 0.99
    code, out, _ = run(
        capsys,
        "cv",
        str(path),
        "--target-column",
        "target",
        "--kernel",
        "Linear()",
        "--cv",
        "3",
        "--quiet",
    )
    header, table = out.splitlines()[0], out.splitlines()[1]
    assert "regression, targets in" in header and "3-fold CV" in header
    assert table.split()[:4] == ["kernel", "learner", "RMSE", "R²"]
    assert "KernelRidgeCV" in out
    assert re.search(r"\nbaseline +mean predictor +\d+\.\d{3} +- +- *\n", out)


def test_tsv_output_has_one_line_per_pair(moons_csv, capsys):
    path, *_ = moons_csv
    code, out, _ = run(
        capsys,
        "cv",
        str(path),
        "--label-column",
        "label",
        "--kernel",
        "Linear()",
        "--kernel",
        "Gaussian(sigma=0.3)",
        "--learner",
        "NearestClassMean()",
        "--cv",
        "3",
        "--format",
        "tsv",
        "--quiet",
    )
    assert code == 0
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0][:5] == ["kernel", "learner", "metric", "mean", "std"]
    assert len(lines) == 3 and all(len(row) == len(lines[0]) for row in lines)
    assert [row[0] for row in lines[1:]] == ["Linear()", "Gaussian(sigma=0.3)"]
    assert float(lines[2][3]) > float(lines[1][3])


def test_leave_one_out_and_grouped_folds(tmp_path, capsys):
    rows = []
    for i in range(12):
        rows.append(f">s{i} class={'a' if i % 2 else 'b'} src={i // 4}\n")
        rows.append(("ACGTACGTAA" if i % 2 else "GGGGCCCCTA") + "ACGT"[i % 4] * 3 + "\n")
    path = tmp_path / "seqs.fa"
    path.write_text("".join(rows))
    base = [
        "cv",
        str(path),
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "NearestClassMean()",
        "--quiet",
    ]
    code, out, _ = run(capsys, *base, "--cv", "loo", "--format", "json")
    assert code == 0 and json.loads(out)["cv"] == "leave-one-out CV (12 folds)"
    assert len(json.loads(out)["folds"]) == 12
    code, out, _ = run(capsys, *base, "--cv", "grouped", "--groups", r"src=(\d+)")
    assert code == 0 and "leave-one-group-out CV (3 groups)" in out
    groups = tmp_path / "groups.txt"
    groups.write_text("".join(f"s{i}\tg{i % 3}\n" for i in range(12)))
    code, out, _ = run(capsys, *base, "--cv", "grouped", "--groups", str(groups))
    assert code == 0 and "(3 groups)" in out
    code, _, err = run(capsys, *base, "--cv", "grouped")
    assert code == 2 and "--cv grouped needs --groups" in err


def test_grouped_folds_never_split_a_group():
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 25, size=200)
    y = rng.integers(0, 2, size=200)
    splits = make_splits("grouped", y, "classification", groups=groups)
    assert len(splits.folds) == 10
    for train, test in splits.folds:
        assert not set(groups[train]) & set(groups[test])


def test_grouped_csv_column(tmp_path, capsys):
    X, y = load_moons()
    path = tmp_path / "pts.csv"
    src = np.arange(200) % 4
    with open(path, "w") as fh:
        fh.write("x1,x2,source,label\n")
        fh.writelines(f"{a},{b},batch{s},{int(c)}\n" for (a, b), s, c in zip(X, src, y))
    code, out, _ = run(
        capsys,
        "cv",
        str(path),
        "--label-column",
        "label",
        "--groups",
        "source",
        "--cv",
        "grouped",
        "--kernel",
        "Gaussian(sigma=0.3)",
        "--learner",
        "NearestClassMean()",
        "--quiet",
    )
    assert code == 0 and "leave-one-group-out CV (4 groups)" in out  # not a feature
    code, _, err = run(
        capsys, "cv", str(path), "--label-column", "label", "--kernel", "Linear()", "--quiet"
    )
    assert code == 2 and "non-numeric value 'batch0' in column 'source', row 0" in err


def test_the_header_is_printed_before_the_work(tmp_path, capsys):
    path = tmp_path / "seqs.fa"
    path.write_text(">a class=x\nACGT\n>b class=y\nACGA\n>c class=x\nACGG\n>d class=y\nACCA\n")
    code, out, err = run(
        capsys,
        "cv",
        str(path),
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2, alphabet='AC')",
        "--cv",
        "2",
    )
    assert code == 2 and "X[0]" in err  # failed while computing the Gram matrix...
    assert out.startswith(f"{path}: 4 objects, classes ['x', 'y'], stratified 2-fold CV")


def test_bad_cv_values_are_one_line_errors(moons_csv, capsys):
    path, *_ = moons_csv
    for value, message in [
        ("1", "between 2 and the number of objects"),
        ("tenfold", "number of folds, 'loo' or 'grouped'"),
    ]:
        code, _, err = run(
            capsys,
            "cv",
            str(path),
            "--label-column",
            "label",
            "--kernel",
            "Linear()",
            "--cv",
            value,
        )
        assert code == 2 and message in err and err.count("\n") == 1


def test_readme_command_on_mutag_beats_the_majority_class(structk_data, capsys):
    mutag = structk_data("graphs/MUTAG")
    code, out, err = run(
        capsys,
        "cv",
        f"{mutag}/",
        "--kernel",
        "Normalize(RandomWalk(lam=0.01))",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    row = json.loads(out)
    assert row["mean"] >= 0.85 and row["baseline"]["mean"] == pytest.approx(0.665, abs=0.01)
    assert row["one_class_folds"] == 0 and len(row["folds"]) == 10
    # the default grid, moved to the Gram's scale (entries in [0.79, 1]) and
    # three decades wider on a small Gram, holds the optimum inside (C = 1e4
    # on most folds): no edge, no note
    chosen = [f["params"]["C"] for f in row["folds"]]
    assert chosen.count(1e4) >= 5 and max(chosen) < 1e8
    assert row["grid"]["C"][-1] == 1e8 and not row["grid_edge_folds"] and "note" not in err
    # the unmoved grid stops at C = 1e4, which wins on every fold: a note says so
    code, out, err = run(
        capsys,
        "cv",
        f"{mutag}/",
        "--kernel",
        "Normalize(RandomWalk(lam=0.01))",
        "--learner",
        "KernelSVM(C=[0.01, 0.1, 1, 10, 100, 1000, 10000])",
        "--quiet",
    )
    assert err.startswith(
        "note: Normalize(RandomWalk(lam=0.01)), KernelSVM: C = 10000, the "
        "largest value of its grid, was chosen on 10/10 outer folds"
    )
    # the old default (C=1 fixed) predicted the majority class on every fold
    code, out, _ = run(
        capsys,
        "cv",
        f"{mutag}/",
        "--kernel",
        "Normalize(RandomWalk(lam=0.01))",
        "--learner",
        "KernelSVM(C=1)",
        "--quiet",
    )
    assert "predicts one class on 10/10 folds" in out


@pytest.fixture
def molecules(tmp_path):
    rng = np.random.default_rng(0)
    chains = (
        ["C" * n for n in range(1, 9)]
        + ["C" * n + "O" for n in range(1, 9)]
        + ["OC" + "C" * n + "O" for n in range(8)]
    )
    size = np.array([len(s) for s in chains], dtype=float)
    path = tmp_path / "mols.csv"
    with open(path, "w") as fh:
        fh.write("name,smiles,logS,kind\n")
        for i, s in enumerate(chains):
            kind = "alcohol" if "O" in s else "alkane"
            fh.write(f'"mol {i}, test",{s} ,{-0.5 * size[i] + 0.1 * rng.normal():.4f},{kind}\n')
    return path


def test_smiles_regression_and_classification(molecules, capsys):
    base = [
        "cv",
        str(molecules),
        "--smiles-column",
        "smiles",
        "--kernel",
        "WeisfeilerLehman(h=1)",
        "--cv",
        "4",
        "--quiet",
    ]
    code, out, _ = run(capsys, *base, "--target-column", "logS", "--format", "json")
    assert code == 0
    row = json.loads(out)
    assert row["task"] == "regression" and row["n"] == 24
    assert row["mean"] < 0.5 * row["baseline"]["mean"]  # size is all that matters here
    assert all("alpha" in f["params"] for f in row["folds"])  # KernelRidgeCV's choice
    code, out, _ = run(capsys, *base, "--target-column", "kind")
    assert code == 0 and "classes ['alcohol', 'alkane']" in out
    code, out, _ = run(capsys, *base, "--target-column", "kind", "--format", "json")
    row = json.loads(out)
    assert row["task"] == "classification" and row["mean"] > 0.9 > row["baseline"]["mean"]


def test_unparsable_smiles_name_the_row(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("smiles,y\nCC,1\nC1CC,2\n")
    code, _, err = run(
        capsys,
        "gram",
        str(path),
        "--smiles-column",
        "smiles",
        "--kernel",
        "WeisfeilerLehman(h=1)",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 2 and "row 1 of --smiles-column: 'C1CC' is not a SMILES string" in err
    code, _, err = run(
        capsys,
        "gram",
        str(path),
        "--smiles-column",
        "SMILES",
        "--kernel",
        "WeisfeilerLehman(h=1)",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 2 and "--smiles-column 'SMILES' is not a column" in err


@pytest.mark.slow
def test_esol_beats_delaneys_linear_model(structk_data, capsys):
    path = structk_data("molecules/esol/delaney-processed.csv")
    code, out, _ = run(
        capsys,
        "cv",
        str(path),
        "--smiles-column",
        "smiles",
        "--target-column",
        "measured log solubility in mols per litre",
        "--kernel",
        "WeisfeilerLehman(h=3)",
        "--learner",
        "KernelRidgeCV(alphas=[0.001, 0.01, 0.1, 1, 10, 100])",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    row = json.loads(out)
    assert row["n"] == 1128 and row["mean"] < 0.91  # Delaney's ESOL: RMSE 0.91
    assert row["baseline"]["mean"] > 2.0 and row["r2"]["mean"] > 0.8


def test_kernel_ridge_cv_alpha_at_its_edge_is_noted(tmp_path, capsys):
    # targets independent of the inputs: the largest penalty (the mean
    # predictor) wins the leave-one-out on every fold
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    path = tmp_path / "noise.csv"
    np.savetxt(
        path,
        np.c_[X, rng.normal(size=60)],
        delimiter=",",
        header="a,b,c,target",
        comments="",
        fmt="%.17g",
    )
    code, out, err = run(
        capsys,
        "cv",
        str(path),
        "--label-column",
        "target",
        "--task",
        "regression",
        "--kernel",
        "Linear()",
        "--learner",
        "KernelRidgeCV(alphas=(0.01, 0.1, 1))",
        "--cv",
        "3",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    row = json.loads(out)
    assert [f["params"]["alpha"] for f in row["folds"]] == [1.0] * 3
    assert row["grid_edge_folds"] == {"alpha": 3}
    assert "alpha = 1, the largest value of its grid, was chosen on 3/3 outer folds" in err
    assert "--learner 'KernelRidgeCV(alphas=[0.01, 0.1, 1, 10, 100])'" in err


def test_kernel_ridge_cv_default_alphas_in_cv():
    from structk.cli.evaluation import DEFAULT_RIDGE_CV_ALPHAS
    from structk.learners import KernelRidgeCV

    spec = learner_spec(KernelRidgeCV())
    assert spec.estimator.alphas == DEFAULT_RIDGE_CV_ALPHAS
    assert learner_spec(KernelRidgeCV(alphas=(1.0, 2.0)), given={"alphas"}).estimator.alphas == (
        1.0,
        2.0,
    )


# ------------------------------------------------ kernel parameters as a grid
def test_kernel_grid_parsing():
    from structk.cli.spec import kernel_grid

    assert kernel_grid("WeisfeilerLehman(h=3)") is None
    grid, variants = kernel_grid("Normalize(WeisfeilerLehman(h=[1, 2]))")
    assert grid == {"h": [1, 2]}
    assert variants == [
        ({"h": 1}, "Normalize(WeisfeilerLehman(h=1))"),
        ({"h": 2}, "Normalize(WeisfeilerLehman(h=2))"),
    ]
    # a list for a parameter that is not a number (landmarks) is a value
    assert kernel_grid("EmpiricalKernelMap(smith_waterman, landmarks=['AC', 'GT'])") is None
    grid, variants = kernel_grid("Spectrum(k=[2, 3]) + Gaussian(sigma=[0.5, -1])")
    assert grid == {"k": [2, 3], "sigma": [0.5, -1]} and len(variants) == 4


def test_kernel_grid_is_chosen_with_the_learner_on_inner_folds(moons_csv, capsys):
    path, X, y = moons_csv
    sigmas, Cs = [0.1, 0.3, 3.0], [0.1, 10.0]
    code, out, err = run(
        capsys,
        "cv",
        str(path),
        "--label-column",
        "label",
        "--kernel",
        f"Gaussian(sigma={sigmas})",
        "--learner",
        f"KernelSVM(C={Cs})",
        "--cv",
        "3",
        "--inner-folds",
        "3",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    row = json.loads(out)
    assert row["grid"] == {"sigma": sigmas, "C": Cs}
    labels = y.astype(float).astype(str)
    Ks = [Gaussian(sigma=s)(X) for s in sigmas]
    for fold, (tr, te) in zip(row["folds"], make_splits(3, labels, "classification").folds):
        inner = StratifiedKFold(3, shuffle=True, random_state=0)
        best = None
        for s, K in zip(sigmas, Ks):  # reference: scikit-learn's grid search per sigma
            search = GridSearchCV(KernelSVM(psd_check="none"), {"C": Cs}, cv=inner)
            search.fit(K[np.ix_(tr, tr)], labels[tr])
            if best is None or search.best_score_ > best[0] + 1e-12:
                best = (search.best_score_, s, search)
        _, s, search = best
        assert fold["params"] == {"sigma": s, "C": search.best_params_["C"]}
        assert fold["score"] == pytest.approx(
            search.score(Ks[sigmas.index(s)][np.ix_(te, tr)], labels[te])
        )


def test_default_c_grid_goes_higher_on_small_grams(tuning):
    """Three more decades of C where every inner fit is small enough for the
    interior point; the shorter grid on larger Grams and other losses."""
    from structk.cli.evaluation import learner_spec, scaled_spec
    from structk.learners import KernelSVM

    K = np.eye(40) + 1.0  # gram_scale = 1 - 1/40: no decade moved
    wide = scaled_spec(learner_spec(KernelSVM(), {}, set()), [K])
    assert wide.grid["C"] == [0.01, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7]
    assert "1e+07" in wide.name
    squared = scaled_spec(learner_spec(KernelSVM(loss="squared_hinge"), {}, set()), [K])
    assert squared.grid["C"][-1] == 1e4
    tuning.set(CV_SVM_WIDE_C_MAX_N=39)
    assert scaled_spec(learner_spec(KernelSVM(), {}, set()), [K]).grid["C"][-1] == 1e4


def test_default_c_grid_moves_to_the_gram_scale():
    """The default C grid moves by decades with the Gram's scale (what C
    multiplies: the SVM on t K with C is the SVM on K with t C); a grid
    written in the expression stays as written."""
    from structk.cli.evaluation import gram_scale, learner_spec, scaled_spec
    from structk.learners import KernelSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1, -1)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    H = np.eye(40) - 1 / 40
    assert gram_scale(K) == pytest.approx(np.trace(H @ K @ H) / 40)
    base = learner_spec(KernelSVM(), {}, set())
    wide = base.grid["C"] + [1e5, 1e6, 1e7]  # a small Gram (test above)
    assert scaled_spec(base, [K / gram_scale(K)]).grid["C"] == wide  # s = 1
    moved = scaled_spec(base, [1e-3 * K / gram_scale(K)]).grid["C"]
    # (a Gram of 40 objects: three more decades, DEFAULT_SVM_C_ABOVE)
    assert moved == [10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10]
    assert scaled_spec(base, [0.05 * K / gram_scale(K)]).grid["C"][0] == 0.1  # 10^round(1.3)
    given = learner_spec(KernelSVM(), {"C": [1.0, 2.0]}, {"C"})
    assert scaled_spec(given, [1e-3 * K]).grid == {"C": [1.0, 2.0]}
    # the premise: scaling K by t is scaling C by t
    t = 1e-3
    a = KernelSVM(kernel="precomputed", C=10.0).fit(t * K, y).decision_function(t * K)
    b = KernelSVM(kernel="precomputed", C=10.0 * t).fit(K, y).decision_function(K)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["KernelRidge", "KernelLogisticRegression", "KernelRidgeCV"])
def test_default_penalty_grids_move_against_the_gram_scale(name):
    """A penalty divides the Gram's scale where C multiplies it: kernel ridge
    and logistic regression on t K with alpha are those on K with alpha / t,
    so their default grids (and KernelRidgeCV's alphas) move by the decades
    of s, the other way from C; written grids stay."""
    from structk import learners
    from structk.cli.evaluation import gram_scale, learner_spec, scaled_spec

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1, -1)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    K /= gram_scale(K)
    cls = getattr(learners, name)
    base = learner_spec(cls(), {}, set())

    def penalties(spec):
        return list(spec.estimator.alphas) if name == "KernelRidgeCV" else spec.grid["alpha"]

    assert penalties(scaled_spec(base, [K])) == [float(a) for a in penalties(base)]
    assert penalties(scaled_spec(base, [1e-3 * K])) == [
        float(f"{1e-3 * a:.12g}") for a in penalties(base)
    ]
    assert penalties(scaled_spec(base, [300.0 * K])) == [
        float(f"{1e2 * a:.12g}") for a in penalties(base)
    ]  # 10^round(2.48)
    if name != "KernelRidgeCV":
        given = learner_spec(cls(), {"alpha": [1.0, 2.0]}, {"alpha"})
        assert scaled_spec(given, [1e-3 * K]).grid == {"alpha": [1.0, 2.0]}
        # the premise: scaling K by t is scaling alpha by t
        t = 1e-3
        a = cls(kernel="precomputed", alpha=0.1 * t).fit(t * K, y)
        b = cls(kernel="precomputed", alpha=0.1).fit(K, y)
        logistic = name == "KernelLogisticRegression"  # L-BFGS: to its tolerance
        out = "decision_function" if logistic else "predict"
        np.testing.assert_allclose(
            getattr(a, out)(t * K),
            getattr(b, out)(K),
            rtol=1e-4 if logistic else 1e-7,
            atol=1e-4 if logistic else 1e-9,
        )
    else:
        given = learner_spec(cls(alphas=(1.0, 2.0)), {}, {"alphas"})
        assert scaled_spec(given, [1e-3 * K]).estimator.alphas == (1.0, 2.0)


def test_logistic_alpha_at_its_edge_is_noted(flat_kernel_csv, capsys):
    """The smallest penalty wins strictly on every fold (the flat kernel needs
    little regularisation, as large C for the SVM): the note says below."""
    path, _, _ = flat_kernel_csv
    row, err = _cv_json(capsys, path, "KernelLogisticRegression(alpha=[0.01, 0.1, 1])")
    assert row["grid_edge_folds"] == {"alpha": 4} and all(f["ties"] == 0 for f in row["folds"])
    assert err == (
        "note: Normalize(Gaussian(sigma=20)), KernelLogisticRegression: alpha = 0.01, the "
        "smallest value of its grid, was chosen on 4/4 outer folds; the best alpha may lie "
        "below the grid: try a wider grid, e.g. --learner "
        "'KernelLogisticRegression(alpha=[0.0001, 0.001, 0.01, 0.1, 1])'\n"
    )


@pytest.mark.parametrize("scale", [1e-4, 1e-2, 1.0])
def test_lazy_grid_values_are_searched_while_the_top_wins(scale):
    """The last ``lazy`` values of a grid are searched one by one while the
    largest searched so far is strictly best (or all tie): the losses are
    those of the whole grid searched at once, cut where the rule says."""
    from structk.cli.evaluation import LearnerSpec, _inner_losses, _inner_splits, make_splits
    from structk.learners import KernelSVM

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=60) > 0, 1, -1)
    K = scale * np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 3.0)
    grid = [0.1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5]
    splits = make_splits(3, y, "classification")
    train = splits.folds[0][0]
    inner = list(_inner_splits(splits, train, y, "classification"))
    svm = KernelSVM(kernel="precomputed", psd_check="none")
    _, full, _ = _inner_losses(LearnerSpec(svm, {"C": grid}), K, y, train, inner, "classification")
    cands, lazy, ok = _inner_losses(
        LearnerSpec(svm, {"C": grid}, lazy=3), K, y, train, inner, "classification"
    )
    m = len(cands)
    assert [c["C"] for c in cands] == grid[:m] and ok == list(range(m)) and m >= 4
    np.testing.assert_allclose(lazy, full[:m], atol=1e-12)

    def asks_for_more(k):  # the top of the first k values strictly best, or all tie
        return full[k - 1] < full[: k - 1].min() or np.all(full[:k] == full[0])

    assert all(asks_for_more(k) for k in range(4, m))
    assert m == len(grid) or not asks_for_more(m)
    if scale == 1e-4:  # every C up to 1e3 predicts the majority class: up to 1e5
        assert m == len(grid) and lazy[-1] < lazy[0]
