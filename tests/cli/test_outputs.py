"""Output files of every command: never over an input, always whole, and a
failed write named (issue 36); the vocabulary the commands share (issue 38)."""

import errno
import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import structk
from structk import cli
from structk.cli import outputs
from structk.cli.evaluation import compact_learner, grid_summary
from structk.cli.model_commands import describe
from structk.kernels import GappedKmer, Spectrum
from structk.learners import KernelSVM

ROOT = Path(__file__).resolve().parents[2]
SEQS = [
    "ACGTGACTCAGT",
    "TTGACTCATTAA",
    "GGGCCCGGGAAA",
    "CCCGGGTTTAAA",
    "ATGACTCAGCAT",
    "GCGCGCAAATTT",
]
LABELS = ["site", "site", "none", "none", "site", "none"]


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("outputs")
    fa = tmp / "train.fa"
    fa.write_text(
        "".join(f">s{i} class={y}\n{s}\n" for i, (s, y) in enumerate(zip(SEQS * 2, LABELS * 2)))
    )
    code = cli.main(
        [
            "fit",
            str(fa),
            "--label-pattern",
            r"class=(\S+)",
            "--kernel",
            "Spectrum(k=3)",
            "--learner",
            "KernelSVM(C=1)",
            "-o",
            str(tmp / "m.structk"),
            "--quiet",
        ]
    )
    assert code == 0
    return tmp, fa, tmp / "m.structk"


def _full_disk(monkeypatch):
    """Make every file the command line opens for writing fail as a full disk
    does, after some bytes."""
    real_open = open

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            self.fh.write(data[:3])
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    def fake(path, mode="r", *args, **kwargs):
        fh = real_open(path, mode, *args, **kwargs)
        return Full(fh) if "w" in mode else fh

    monkeypatch.setattr(outputs, "open", fake, raising=False)


def _partials(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.endswith(".partial")]


@pytest.mark.parametrize("command", ["explain-tsv", "predict", "gram-tsv", "score-variants"])
def test_a_full_disk_leaves_nothing_and_names_the_path(
    files, tmp_path, monkeypatch, capsys, command
):
    tmp, fa, model = files
    target = tmp_path / "out.tsv"
    argv = {
        "explain-tsv": ["explain", model, fa, "--tsv", target],
        "predict": ["predict", model, fa, "-o", target],
        "gram-tsv": [
            "gram",
            fa,
            "--kernel",
            "Spectrum(k=2)",
            "-o",
            tmp_path / "K.npy",
            "--tsv",
            target,
        ],
        "score-variants": ["score-variants", model, fa, fa, "-o", target],
    }[command]
    _full_disk(monkeypatch)
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert str(target) in err and "no space left" in err
    assert not target.exists() and not _partials(tmp_path)


def test_a_failed_write_keeps_the_old_file(files, tmp_path, monkeypatch, capsys):
    tmp, fa, model = files
    target = tmp_path / "pred.tsv"
    target.write_text("yesterday's predictions\n")
    _full_disk(monkeypatch)
    code, _, err = run(capsys, "predict", model, fa, "-o", target)
    assert code == 2 and str(target) in err
    assert target.read_text() == "yesterday's predictions\n"


def test_devices_are_written_directly_never_replaced(files, tmp_path, capsys):
    """/dev/full (always full) is written in place and its error named; the
    device stays a device (renaming a temporary file over it would replace
    it); a model file, only written by renaming, is refused there."""
    import stat

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    tmp, fa, model = files
    before = set(os.listdir("/dev"))
    code, _, err = run(capsys, "predict", model, fa, "-o", "/dev/full")
    assert code == 2 and "/dev/full" in err and "no space left" in err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    code, _, err = run(
        capsys,
        "fit",
        fa,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum()",
        "-o",
        "/dev/null",
    )
    assert code == 2 and "/dev/null" in err and "not a regular file" in err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert set(os.listdir("/dev")) == before
    code, _, err = run(capsys, "explain", model, fa, "--tsv", "/dev/null", "-o", "/dev/null")
    assert code == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_outputs_are_written_whole_under_the_final_name_only(files, tmp_path, capsys):
    tmp, fa, model = files
    code, _, _ = run(
        capsys,
        "explain",
        model,
        fa,
        "--tsv",
        tmp_path / "c.tsv",
        "--ism",
        tmp_path / "ism.tsv",
        "-o",
        tmp_path / "report.txt",
        "--top",
        "2",
    )
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.tsv", "ism.tsv", "report.txt"]
    report = (tmp_path / "report.txt").read_text()
    assert report.startswith("model: KernelSVM with Spectrum(k=3)")
    assert "positive weights and contributions favour site (negative ones none)" in report
    rows = (tmp_path / "c.tsv").read_text().splitlines()
    assert len(rows) == 1 + sum(len(s) for s in SEQS * 2)


def test_same_file_refusal_happens_before_any_work(files, tmp_path, capsys):
    tmp, fa, model = files
    before = model.read_bytes()
    alias = tmp_path / "alias.structk"
    alias.symlink_to(model)
    for argv in (
        ["predict", model, fa, "-o", model],
        ["predict", model, fa, "-o", alias],
        ["explain", alias, fa, "--plot", model],
        ["fit", fa, "--label-pattern", r"class=(\S+)", "--kernel", "Spectrum()", "-o", fa],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and "writing it would destroy it" in err
    assert model.read_bytes() == before
    assert fa.read_text().startswith(">s0 class=site")


def test_refuse_overwrites_compares_files_not_spellings(tmp_path):
    a = tmp_path / "a.fa"
    a.write_text(">x\nACGT\n")
    (tmp_path / "sub").mkdir()

    class Args:
        input = str(a)
        output = str(tmp_path / "sub" / ".." / "a.fa")

    with pytest.raises(ValueError, match="a.fa is the input"):
        outputs.refuse_overwrites(Args)
    Args.output = str(tmp_path / "b.fa")
    outputs.refuse_overwrites(Args)  # a new file: fine


def test_gram_output_is_the_file_named(files, tmp_path, capsys):
    tmp, fa, _ = files
    code, out, _ = run(
        capsys, "gram", fa, "--kernel", "Spectrum(k=2)", "-o", tmp_path / "K", "--quiet"
    )
    assert code == 0 and f"written to {tmp_path / 'K'}" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["K"]
    K = np.load(tmp_path / "K")
    assert np.allclose(K, Spectrum(k=2)(SEQS * 2))


def test_broken_pipe_is_quiet():
    """``structk explain ... | head -1``: one line, status 0, nothing on stderr."""
    fa = ROOT / "data" / "motifs.fasta"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    script = (
        "import structk; from structk.kernels import Spectrum; "
        "from structk.learners import KernelSVM; from structk.sequences import read_fasta; "
        f"ids, s = read_fasta({str(fa)!r}); "
        "structk.save(KernelSVM(kernel=Spectrum(k=3)).fit(s[:60], [i % 2 for i in range(60)]),"
        " 'm.structk')"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-c", script], cwd=tmp, env=env, check=True)
        shell = (
            f"{sys.executable} -m structk explain m.structk {fa} --top 200 | head -1; "
            "echo status=${PIPESTATUS[0]}"
        )
        done = subprocess.run(
            ["bash", "-c", shell], cwd=tmp, env=env, capture_output=True, text=True, timeout=300
        )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("model: KernelSVM") and lines[-1] == "status=0"
    assert "Broken pipe" not in done.stderr and "Error" not in done.stderr


def test_plot_without_matplotlib_fails_before_any_work(files, tmp_path):
    tmp, fa, model = files
    script = (
        "import sys; sys.modules['matplotlib'] = None; from structk.cli import main; "
        f"sys.exit(main(['explain', {str(model)!r}, {str(fa)!r}, '--tsv', "
        f"{str(tmp_path / 'c.tsv')!r}, '--plot', {str(tmp_path / 'p.png')!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=300,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--plot" in done.stderr and "structk[plot]" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_plot_extra_in_pyproject():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'plot = ["matplotlib>=3.7"]' in text
    test_line = next(line for line in text.splitlines() if line.startswith("test = "))
    assert "plot" in test_line.split("structk[")[1]


def test_quiet_is_accepted_by_every_command():
    from structk.cli.commands import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        assert "--quiet" in parser._option_string_actions, name


def test_output_is_a_file_in_every_command():
    from structk.cli.commands import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name, parser in sub.choices.items():
        action = parser._option_string_actions.get("--output")
        if action is not None:
            assert "-o" in action.option_strings and action.type is None, name
            # a file everywhere; tu-subset writes a TU dataset, a folder
            allowed = ("FOLDER",) if name == "tu-subset" else ("FILE", "FILE.npy", "MODEL")
            assert action.metavar in allowed, name


def test_class_chooses_a_decision_function_by_label_or_index(tmp_path, capsys):
    seqs = SEQS * 2
    y = ["a", "b", "c"] * 4
    model = KernelSVM(kernel=Spectrum(k=2), C=1).fit(seqs, y)
    structk.save(model, tmp_path / "three.structk")
    fa = tmp_path / "x.fa"
    fa.write_text(">x\nACGTGACTCAGT\n")
    ref = tmp_path / "ref.fa"
    ref.write_text(">chr1\nACGTGACTCAGT\n")
    table = tmp_path / "v.tsv"
    table.write_text("v1\tchr1\t3\tG\tT\n")
    expected = (
        model.decision_function(["ACTTGACTCAGT"])[0] - model.decision_function(["ACGTGACTCAGT"])[0]
    )
    for choice, column in (("b", 1), ("2", 2), ("c", 2)):
        code, out, err = run(
            capsys, "score-variants", tmp_path / "three.structk", table, ref, "--class", choice
        )
        assert code == 0, err
        assert float(out.splitlines()[1].split("\t")[3]) == pytest.approx(expected[column])
    code, out, _ = run(capsys, "explain", tmp_path / "three.structk", fa, "--class", "a vs c")
    assert code == 0 and "(a vs c)" in out.splitlines()[0]


def test_score_variants_old_out_spelling_still_writes(files, tmp_path, capsys):
    tmp, fa, model = files
    code, _, err = run(capsys, "score-variants", model, fa, fa, "--out", tmp_path / "s.tsv")
    assert code == 0 and "--out is deprecated" in err
    assert len((tmp_path / "s.tsv").read_text().splitlines()) == 1 + len(SEQS) * 2


def test_multi_allelic_alt_is_one_row_per_allele(tmp_path):
    from structk.explain.variants import read_variants

    (tmp_path / "ref.fa").write_text(">chr1\nACGTACGTAC\n")
    (tmp_path / "v.tsv").write_text("v\tchr1\t3\tG\tT,CA\nw\tchr1\t5\tA\tC\n")
    names, ref, alt = read_variants(tmp_path / "v.tsv", tmp_path / "ref.fa")
    assert names == ["v:T", "v:CA", "w"]
    assert ref == ["ACGTACGTAC"] * 3
    assert alt == ["ACTTACGTAC", "ACCATACGTAC", "ACGTCCGTAC"]


def test_min_flank_is_the_longest_feature_minus_one():
    from structk.explain.variants import min_flank
    from structk.kernels import Normalize

    seqs, y = SEQS, [0, 0, 1, 1, 0, 1]
    for kernel, need in (
        (GappedKmer(l=6, k=4), 5),
        (Normalize(Spectrum(k=3)), 2),
        (Spectrum(k=2) + GappedKmer(l=5, k=3), 4),
    ):
        assert min_flank(KernelSVM(kernel=kernel).fit(seqs, y))[0] == need


def test_min_flank_keeps_every_changed_feature(tmp_path):
    """At the minimum flank the delta is the whole sequence's; one base less
    loses features (a brute-force check of the rule)."""
    from structk.explain.variants import min_flank, read_variants, score_variants

    rng = np.random.default_rng(1)
    seqs = ["".join(rng.choice(list("ACGT"), 30)) for _ in range(12)]
    model = KernelSVM(kernel=Spectrum(k=4), C=1).fit(seqs, [i % 2 for i in range(12)])
    need = min_flank(model)[0]
    record = "".join(rng.choice(list("ACGT"), 40))
    (tmp_path / "ref.fa").write_text(f">chr1\n{record}\n")
    alt = "A" if record[19] != "A" else "C"
    (tmp_path / "v.tsv").write_text(f"v\tchr1\t20\t{record[19]}\t{alt}\n")
    whole = score_variants(model, *read_variants(tmp_path / "v.tsv", tmp_path / "ref.fa")[1:])
    at = score_variants(
        model, *read_variants(tmp_path / "v.tsv", tmp_path / "ref.fa", flank=need)[1:]
    )
    # a linear kernel without normalisation: the delta is local, exactly
    assert at[2][0] == pytest.approx(whole[2][0], abs=1e-12)


def test_gzipped_csv_reads_as_the_plain_one(tmp_path, capsys):
    text = "a,b,label\n0,1,x\n1,0,y\n2,2,x\n3,1,y\n0,2,x\n2,0,y\n"
    (tmp_path / "p.csv").write_text(text)
    (tmp_path / "z.csv.gz").write_bytes(gzip.compress(text.encode()))
    for name in ("p.csv", "z.csv.gz"):
        code, _, _ = run(
            capsys,
            "gram",
            tmp_path / name,
            "--label-column",
            "label",
            "--kernel",
            "Linear()",
            "-o",
            tmp_path / f"{name}.npy",
        )
        assert code == 0
    assert np.array_equal(np.load(tmp_path / "p.csv.npy"), np.load(tmp_path / "z.csv.gz.npy"))


def test_explain_id_column_names_the_rows(tmp_path, capsys):
    pytest.importorskip("rdkit")
    from structk.datasets.chem import from_smiles
    from structk.kernels import WeisfeilerLehman

    smiles = ["CCO", "CCN", "c1ccccc1", "CC(=O)O", "CCCl", "c1ccncc1"]
    model = KernelSVM(kernel=WeisfeilerLehman(h=1), C=1).fit(
        from_smiles(smiles), [0, 0, 1, 0, 0, 1]
    )
    structk.save(model, tmp_path / "mol.structk")
    (tmp_path / "m.csv").write_text("name,smiles\nethanol,CCO\nbenzene,c1ccccc1\n")
    code, out, err = run(
        capsys,
        "explain",
        tmp_path / "mol.structk",
        tmp_path / "m.csv",
        "--smiles-column",
        "smiles",
        "--id-column",
        "name",
    )
    assert code == 0, err
    rows = [
        line.split()[0]
        for line in out.splitlines()
        if line.split() and line.split()[0] in ("ethanol", "benzene", "row0", "row1")
    ]
    assert rows == ["ethanol", "benzene"]


def test_inner_folds_clamped_says_so(tmp_path, capsys):
    fa = tmp_path / "t.fa"
    fa.write_text(
        "".join(f">s{i} class={y}\n{s}\n" for i, (s, y) in enumerate(zip(SEQS * 2, LABELS * 2)))
    )
    code, out, _ = run(
        capsys,
        "fit",
        fa,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--inner-folds",
        "100",
        "-o",
        tmp_path / "m.structk",
        "--quiet",
    )
    assert code == 0
    # 6 objects per class: stratified folds cannot be more than 6
    assert (
        "chosen by inner 6-fold CV (--inner-folds 100 clamped to the size of the "
        "smallest class in the training data)" in out
    )
    assert "100-fold" not in out
    code, out, _ = run(
        capsys,
        "cv",
        fa,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--inner-folds",
        "100",
        "--cv",
        "3",
        "--quiet",
    )
    assert code == 0
    assert (
        "parameters chosen by inner 4-fold CV (--inner-folds 100 clamped to the size "
        "of the smallest class in a training part)" in out.splitlines()[0]
    )


def test_fit_names_the_tied_grid_points_and_key_parameters(tmp_path, capsys):
    fa = tmp_path / "t.fa"
    fa.write_text(
        "".join(f">s{i} class={y}\n{s}\n" for i, (s, y) in enumerate(zip(SEQS * 2, LABELS * 2)))
    )
    code, out, _ = run(
        capsys,
        "fit",
        fa,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "GappedKmer(l=4, k=3)",
        "--learner",
        "KernelSVM(C=[1, 10, 100])",
        "-o",
        tmp_path / "m.structk",
        "--quiet",
    )
    assert code == 0
    # separable: every C is right on every inner fold
    assert (
        "chosen by inner 5-fold CV: C=1; 2 other grid points tied (C=10; C=100), "
        "the first in grid order is kept" in out
    )
    assert "fitted KernelSVM(C=1, kernel=GappedKmer(l=4, k=3, d=3, kind='truncated'))" in out


def test_describe_shows_key_parameters_at_their_defaults():
    assert (
        describe(KernelSVM(kernel=GappedKmer()))
        == "KernelSVM(C=1.0, kernel=GappedKmer(l=11, k=7, d=3, kind='truncated'))"
    )
    assert describe(Spectrum(k=3, presence=True)) == "Spectrum(k=3, presence=True)"


def test_grid_summary():
    assert grid_summary([0.01, 0.1, 1, 10, 100, 1000, 10000]) == "10^-2..10^4"
    assert grid_summary([0.5, 1, 2, 4, 8]) == "0.5..8 (5)"
    assert grid_summary([1, 10]) == "[1, 10]"
    assert (
        compact_learner("KernelSVM(C=[0.1, 1, 10, 100], tol=0.01)", {"C": [0.1, 1, 10, 100]})
        == "KernelSVM(C∈10^-1..10^2, tol=0.01)"
    )
    assert (
        compact_learner("KernelRidgeCV(alphas=(0.1, 1, 10, 100))", {"alpha": [0.1, 1, 10, 100]})
        == "KernelRidgeCV(alphas∈10^-1..10^2)"
    )


def test_cv_table_fits_100_columns(tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "cv",
        ROOT / "data" / "motifs.fasta",
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=3)",
        "--cv",
        "3",
        "--quiet",
    )
    assert code == 0
    table = out.splitlines()[2:]
    assert table[0].split()[:2] == ["kernel", "learner"]
    assert "KernelSVM(C∈10^" in table[2]
    assert max(len(line) for line in table[:3]) <= 100


def test_cv_takes_positive_and_negative_as_fit_does(tmp_path, capsys):
    pos, neg, both = tmp_path / "pos.fa", tmp_path / "neg.fa", tmp_path / "both.fa"
    pos.write_text("".join(f">p{i}\n{s}\n" for i, s in enumerate(SEQS[::2] * 2)))
    neg.write_text("".join(f">n{i}\n{s}\n" for i, s in enumerate(SEQS[1::2] * 2)))
    both.write_text(
        "".join(f">p{i} class=positive\n{s}\n" for i, s in enumerate(SEQS[::2] * 2))
        + "".join(f">n{i} class=negative\n{s}\n" for i, s in enumerate(SEQS[1::2] * 2))
    )
    common = [
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "KernelSVM(C=1)",
        "--cv",
        "3",
        "--format",
        "tsv",
        "--quiet",
    ]
    code, pair, _ = run(capsys, "cv", "--positive", pos, "--negative", neg, *common)
    assert code == 0
    code, single, _ = run(capsys, "cv", both, "--label-pattern", r"class=(\S+)", *common)
    assert code == 0
    strip = [line.split("\t")[:7] for line in pair.splitlines()]
    assert strip == [line.split("\t")[:7] for line in single.splitlines()]


@pytest.mark.parametrize(
    "task,grouped", [("classification", False), ("regression", False), ("classification", True)]
)
def test_inner_fold_counts_are_the_folds_made(task, grouped):
    """The count printed in cv's header is the number of inner splits that
    _inner_splits makes, on every outer fold."""
    from structk.cli.evaluation import _inner_splits, inner_fold_counts, make_splits

    rng = np.random.default_rng(3)
    y = np.array(["a"] * 9 + ["b"] * 23) if task == "classification" else rng.normal(size=32)
    groups = rng.integers(0, 4, size=32).astype(str) if grouped else None
    splits = make_splits("grouped" if grouped else "4", y, task, groups=groups, inner_folds=100)
    made = [len(_inner_splits(splits, np.asarray(train), y, task)) for train, _ in splits.folds]
    assert inner_fold_counts(splits, y, task) == made
