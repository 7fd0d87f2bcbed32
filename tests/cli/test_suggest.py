"""Gaussian processes on the command line: ``structk fit --learner
'GaussianProcessRegressor(...)'``, ``structk predict`` writing the mean and
std, and ``structk suggest`` proposing what structk.optimize.suggest
proposes with the model file's GP."""

import json

import numpy as np
import pytest

import structk
from structk import cli
from structk.learners import GaussianProcessRegressor
from structk.optimize import suggest


def run(capsys, *argv):
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _tsv(text):
    """``(header, rows as dicts)`` of a TSV with a header line."""
    import csv
    import io

    reader = csv.DictReader(io.StringIO(text), delimiter="\t")
    return reader.fieldnames, list(reader)


def _suggest(capsys, model, pool, n, *options):
    """``structk suggest MODEL POOL --n N`` on the candidates named by their
    ``name`` column."""
    return run(capsys, "suggest", model, pool, "--id-column", "name", "--n", n, *options)


@pytest.fixture
def vectors(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 5, size=(30, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.05 * rng.normal(size=30)
    pool = rng.uniform(0, 5, size=(20, 2))
    train = tmp_path / "train.csv"
    train.write_text(
        "a,b,y\n" + "".join(f"{u!r},{v!r},{t!r}\n" for (u, v), t in zip(X.tolist(), y.tolist()))
    )
    candidates = tmp_path / "pool.csv"
    candidates.write_text(
        "name,b,a\n" + "".join(f"c{i},{v!r},{u!r}\n" for i, (u, v) in enumerate(pool.tolist()))
    )
    return train, candidates, X, y, pool


def _fit_gp(capsys, train, model, learner="GaussianProcessRegressor(noise=0.1)"):
    return run(
        capsys,
        "fit",
        train,
        "--target-column",
        "y",
        "--kernel",
        "1.0 * Gaussian(sigma=1.0)",
        "--learner",
        learner,
        "-o",
        model,
        "--quiet",
    )


def test_fit_gp_and_predict_mean_and_std(vectors, tmp_path, capsys):
    train, candidates, X, y, pool = vectors
    model = tmp_path / "gp.structk"
    code, out, err = _fit_gp(capsys, train, model)
    assert code == 0, err
    assert "learned by the marginal likelihood:" in out and "noise" in out
    ref = GaussianProcessRegressor(1.0 * structk.Gaussian(sigma=1.0), noise=0.1).fit(X, y)
    loaded = structk.load(model)
    np.testing.assert_allclose(loaded.noise_, ref.noise_, rtol=1e-8)
    code, out, _ = run(capsys, "predict", model, candidates, "--id-column", "name")
    assert code == 0
    header, rows = _tsv(out)
    assert header == ["id", "mean", "std"]
    mean, std = ref.predict(pool, return_std=True)
    assert [r["id"] for r in rows] == [f"c{i}" for i in range(20)]
    np.testing.assert_allclose([float(r["mean"]) for r in rows], mean, rtol=1e-8)
    np.testing.assert_allclose([float(r["std"]) for r in rows], std, rtol=1e-6)
    code, out, _ = run(
        capsys, "predict", model, candidates, "--id-column", "name", "--format", "json"
    )
    first = json.loads(out.splitlines()[0])
    assert set(first) == {"id", "mean", "std"}
    assert first["std"] == float(rows[0]["std"])


@pytest.mark.parametrize(
    "acquisition, extra",
    [
        ("ei", []),
        ("logei", ["--minimize"]),
        ("ucb", ["--beta", "1"]),
        ("thompson", ["--seed", "3"]),
    ],
)
def test_suggest_equals_the_library(vectors, tmp_path, capsys, acquisition, extra):
    train, candidates, X, y, pool = vectors
    model = tmp_path / "gp.structk"
    assert _fit_gp(capsys, train, model)[0] == 0
    code, out, err = _suggest(capsys, model, candidates, 4, "--acquisition", acquisition, *extra)
    assert code == 0, err
    header, rows = _tsv(out)
    assert header == ["rank", "id", "mean", "std", acquisition]
    ref = suggest(
        structk.load(model),
        pool,
        n=4,
        acquisition=acquisition,
        maximize="--minimize" not in extra,
        beta=1.0 if "--beta" in extra else 4.0,
        random_state=3 if "--seed" in extra else 0,
    )
    assert [r["id"] for r in rows] == [f"c{i}" for i in ref.index]
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4"]
    for column, values in (("mean", ref.mean), ("std", ref.std), (acquisition, ref.acquisition)):
        np.testing.assert_array_equal([float(r[column]) for r in rows], values)
    assert "4 of 20 candidates proposed by" in err


def test_suggest_output_file_json_and_quiet(vectors, tmp_path, capsys):
    train, candidates, X, y, pool = vectors
    model = tmp_path / "gp.structk"
    assert _fit_gp(capsys, train, model)[0] == 0
    out_file = tmp_path / "next.jsonl"
    code, out, err = _suggest(
        capsys, model, candidates, 3, "--format", "json", "-o", out_file, "--quiet"
    )
    assert code == 0 and out == "" and err == ""
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [set(r) for r in rows] == [{"rank", "id", "mean", "std", "ei"}] * 3
    ref = suggest(structk.load(model), pool, n=3)
    assert [r["id"] for r in rows] == [f"c{i}" for i in ref.index]


def test_suggest_on_sequences_from_fasta(tmp_path, capsys):
    rng = np.random.default_rng(2)
    seqs = list(dict.fromkeys("".join(rng.choice(list("ACGT"), size=12)) for _ in range(40)))
    y = np.array([s.count("GC") + 0.25 * s.count("T") for s in seqs])
    train = tmp_path / "train.fa"
    train.write_text(
        "".join(f">s{i} y={t!r}\n{s}\n" for i, (s, t) in enumerate(zip(seqs[:25], y.tolist())))
    )
    pool = tmp_path / "pool.fa"
    pool.write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(seqs[25:])))
    model = tmp_path / "seq.structk"
    code, _, err = run(
        capsys,
        "fit",
        train,
        "--label-pattern",
        r"y=(\S+)",
        "--task",
        "regression",
        "--kernel",
        "1.0 * Normalize(Spectrum(k=2))",
        "--learner",
        "GaussianProcessRegressor(noise=0.1, normalize_y=True)",
        "-o",
        model,
        "--quiet",
    )
    assert code == 0, err
    code, out, err = run(capsys, "suggest", model, pool, "--n", 5, "--acquisition", "ucb")
    assert code == 0, err
    _, rows = _tsv(out)
    ref = suggest(structk.load(model), seqs[25:], n=5, acquisition="ucb")
    assert [r["id"] for r in rows] == [f"p{i}" for i in ref.index]
    # the training sequences as the pool: refused naming a record, or skipped
    code, _, err = run(capsys, "suggest", model, train, "--n", 2)
    assert code == 2 and "record 's0' is training object X[0]" in err
    assert "--in-training skip" in err
    code, _, err = run(capsys, "suggest", model, train, "--n", 2, "--in-training", "skip")
    assert code == 2 and "--n 2 but the pool has 0 candidates (25 skipped" in err


def test_suggest_bad_input(vectors, tmp_path, capsys):
    train, candidates, X, y, pool = vectors
    model = tmp_path / "gp.structk"
    assert _fit_gp(capsys, train, model)[0] == 0
    ridge = tmp_path / "ridge.structk"
    assert _fit_gp(capsys, train, ridge, "KernelRidge(alpha=1.0)")[0] == 0
    code, _, err = run(capsys, "suggest", ridge, candidates)
    assert code == 2 and "holds a KernelRidge" in err and "GaussianProcessRegressor" in err
    code, _, err = run(capsys, "suggest", model, candidates, "--n", 0)
    assert code == 2 and "--n: must be at least 1, got 0" in err
    code, _, err = run(capsys, "suggest", model, candidates, "--n", 21)
    assert code == 2 and "--n 21 but the pool has 20 candidates" in err
    code, _, err = run(capsys, "suggest", model, tmp_path / "missing.csv")
    assert code == 2 and "missing.csv" in err
    empty = tmp_path / "empty.fa"
    empty.write_text("")
    code, _, err = run(capsys, "suggest", model, empty)
    assert code == 2 and "empty.fa" in err
    header_only = tmp_path / "header.csv"
    header_only.write_text("a,b\n")
    code, _, err = run(capsys, "suggest", model, header_only)
    assert code == 2 and "header.csv" in err and "no objects" in err
    code, _, err = run(capsys, "suggest", model, candidates, "--acquisition", "pi")
    assert code == 2 and "--acquisition" in err
    code, _, err = run(capsys, "suggest", model, candidates, "--maximize", "--minimize")
    assert code == 2 and "--minimize" in err
    code, _, err = run(capsys, "suggest", model, candidates, "-o", candidates)
    assert code == 2 and "pool.csv" in err
    nan_pool = tmp_path / "nan.csv"
    nan_pool.write_text("a,b\n1,2\nnan,3\n")
    code, _, err = run(capsys, "suggest", model, nan_pool)
    assert code == 2 and "nan.csv" in err and "nan" in err.lower()
