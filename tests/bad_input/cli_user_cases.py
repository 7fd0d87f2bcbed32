"""Bad-input cases of the command line as a new user meets them (issue 36):
outputs over inputs, inputs that mean nothing, messages naming nothing.

Each case runs the real ``structk`` command in-process (``cli.main``) and
uses :class:`bad_input_cases.Case`: a refusal must be exit status 2 with one
line on standard error naming the items listed; a ``"result"`` case checks
what the command did (the files it left, the rows it wrote).
"""

from __future__ import annotations

import contextlib
import gzip
from pathlib import Path

from bad_input_cases import Case, CLIRefused, SetupError, _cli, _fitted, run_cli

SEQS = [
    "ACGTGACTCAGT",
    "TTGACTCATTAA",
    "GGGCCCGGGAAA",
    "CCCGGGTTTAAA",
    "ATGACTCAGCAT",
    "GCGCGCAAATTT",
]


def _fasta(path, seqs, labels=None):
    lines = []
    for i, s in enumerate(seqs):
        lines.append(f">s{i}" + (f" class={labels[i]}" if labels is not None else ""))
        lines.append(s)
    path.write_text("\n".join(lines) + "\n")
    return path


def _model(tmp, name, kernel, classes=(1, 1, 0, 0, 1, 0)):
    """A model file fitted by ``structk fit`` once."""
    path = tmp / name
    if not path.exists():
        train = _fasta(tmp / f"{name}.train.fa", SEQS * 2, list(classes) * 2)
        code, err = run_cli(
            "fit",
            train,
            "--label-pattern",
            r"class=(\S+)",
            "--kernel",
            kernel,
            "--learner",
            "KernelSVM(C=1)",
            "-o",
            path,
            "--quiet",
        )
        if code != 0:
            raise SetupError(f"structk fit failed: {err.strip()}")
    return path


def _unchanged(path, call):
    """A ``"result"`` check: the refused call left ``path``'s bytes as they were."""

    def run():
        before = Path(path).read_bytes()
        with contextlib.suppress(CLIRefused):
            call()
        return Path(path).read_bytes() == before

    return run


def _rows(path):
    return [line.split("\t") for line in Path(path).read_text().splitlines()]


def user_cases(tmp):
    """Every case; ``tmp`` is a folder for the files they need."""
    tmp = Path(tmp)
    fa = _fasta(tmp / "u.fa", SEQS, [1, 1, 0, 0, 1, 0])
    fit = (
        "fit",
        fa,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "KernelSVM(C=1)",
        "--quiet",
    )
    model = lambda: _model(tmp, "u.structk", "Spectrum(k=3)")  # noqa: E731
    gkm = lambda: _model(tmp, "gkm.structk", "GappedKmer(l=6, k=4)")  # noqa: E731

    def three():
        return _model(tmp, "three.structk", "Spectrum(k=2)", classes=("a", "b", "c", "a", "b", "c"))

    link = tmp / "link.structk"
    ref = tmp / "ref.fa"
    ref.write_text(">chr1\n" + "ACGTGACTCAGTTTGACTCATTAAGGGCCC" + "\n")
    table = tmp / "variants.tsv"
    table.write_text("v1\tchr1\t9\tC\tA\n")
    multi = tmp / "multi.tsv"
    multi.write_text("v1\tchr1\t9\tC\tA,T\n")
    symbolic = tmp / "symbolic.tsv"
    symbolic.write_text("v1\tchr1\t9\tC\t<DEL>\n")
    empty_label = tmp / "empty_label.csv"
    empty_label.write_text("a,b,label\n0,1,x\n1,0,\n2,2,x\n3,1,y\n")
    labels_blank = tmp / "labels_blank.txt"
    labels_blank.write_text("s0\t1\ns1\t\ns2\t0\ns3\t0\ns4\t1\ns5\t0\n")
    latin = tmp / "latin.csv"
    latin.write_bytes("a,b,label\n0,1,x\n1,0,caf\xe9\n".encode("latin-1"))
    zipped = tmp / "points.csv.gz"
    zipped.write_bytes(gzip.compress(b"a,b\n0,1\n1,0\n2,2\n"))
    split_past = tmp / "split_past.txt"
    split_past.write_text("0\n5\n6\n")
    split_twice = tmp / "split_twice.txt"
    split_twice.write_text("s1\n# test\n1\n")
    vec_csv = tmp / "vec.csv"
    vec_csv.write_text("a,b,label\n0,1,x\n1,0,y\n2,2,x\n3,1,y\n")

    def vec_model():
        path = tmp / "vec.structk"
        if not path.exists():
            code, err = run_cli(
                "fit",
                vec_csv,
                "--label-column",
                "label",
                "--kernel",
                "Gaussian()",
                "--learner",
                "KernelSVM(C=1)",
                "-o",
                path,
                "--quiet",
            )
            if code != 0:
                raise SetupError(err)
        return path

    def kernel_file():
        import structk
        from structk.kernels import Spectrum

        path = tmp / "kernel.structk"
        structk.save(Spectrum(k=2), path)
        return path

    def predict_over_model():
        return _cli("predict", model(), fa, "-o", model())()

    def predict_over_link():
        if not link.exists():
            link.symlink_to(model())
        return _cli("predict", model(), fa, "-o", link)()

    def later(*argv):
        """``_cli`` with the callables in ``argv`` (model files) made first."""

        def call():
            return _cli(*[a() if callable(a) else a for a in argv])()

        return call

    def gzipped_gram():
        code, err = run_cli("gram", zipped, "--kernel", "Linear()", "-o", tmp / "Kz.npy", "--quiet")
        import numpy as np

        return code == 0 and np.allclose(np.load(tmp / "Kz.npy"), [[1, 0, 2], [0, 1, 2], [2, 2, 8]])

    def multi_allelic():
        out = tmp / "multi_scores.tsv"
        code, err = run_cli("score-variants", gkm(), multi, ref, "--flank", "5", "-o", out)
        rows = _rows(out) if code == 0 else []
        return [r[0] for r in rows[1:]] == ["v1:A", "v1:T"] and rows[1][3] != rows[2][3]

    def gp_model():
        """A GaussianProcessRegressor on the sequences of u.fa (targets in
        their headers)."""
        train = tmp / "gp_train.fa"
        train.write_text("".join(f">s{i} y={0.5 * i}\n{s}\n" for i, s in enumerate(SEQS)))
        learner = "GaussianProcessRegressor(noise=0.1)"
        regression = ("--label-pattern", r"y=(\S+)", "--task", "regression")
        return _fitted(
            tmp, "gp.structk", train, *regression, "--kernel", "1.0 * Spectrum(k=2)",
            "--learner", learner,
        )  # fmt: skip

    empty_pool = tmp / "empty_pool.fa"
    empty_pool.write_text("")
    out = tmp / "out.tsv"
    return [
        # ------------------------------------------------- structk suggest
        Case(
            "cli-suggest-model-not-a-gp",
            later("suggest", model, fa),
            CLIRefused,
            ("u.structk", "KernelSVM", "GaussianProcessRegressor"),
        ),
        Case(
            "cli-suggest-n-zero",
            later("suggest", gp_model, fa, "--n", "0"),
            CLIRefused,
            ("--n", "at least 1", "0"),
        ),
        Case(
            "cli-suggest-n-above-the-pool",
            later("suggest", gp_model, fa, "--n", "7", "--in-training", "skip"),
            CLIRefused,
            ("u.fa", "--n 7", "0 candidates", "6 skipped"),
        ),
        Case(
            "cli-suggest-pool-is-the-training-data",
            later("suggest", gp_model, fa),
            CLIRefused,
            ("u.fa", "record 's0'", "training object", "--in-training skip"),
        ),
        Case(
            "cli-suggest-empty-pool",
            later("suggest", gp_model, empty_pool),
            CLIRefused,
            ("empty_pool.fa",),
        ),
        Case(
            "cli-suggest-unreadable-pool",
            later("suggest", gp_model, tmp / "no_such_pool.fa"),
            CLIRefused,
            ("no_such_pool.fa",),
        ),
        # ------------------------------------------ files lost without a word
        Case(
            "cli-predict-output-is-the-model",
            predict_over_model,
            CLIRefused,
            ("-o/--output", "u.structk", "model file"),
        ),
        Case(
            "cli-predict-output-is-the-model-kept",
            _unchanged(tmp / "u.structk", predict_over_model),
            None,
            kind="result",
            check=bool,
        ),
        Case(
            "cli-predict-output-is-a-symlink-to-the-model",
            predict_over_link,
            CLIRefused,
            ("link.structk", "u.structk", "model file"),
        ),
        Case(
            "cli-predict-output-is-the-input",
            later("predict", model, fa, "-o", fa),
            CLIRefused,
            ("-o/--output", "u.fa", "the input"),
        ),
        Case(
            "cli-predict-output-is-the-input-relative",
            later("predict", model, fa, "-o", tmp / ".." / tmp.name / "u.fa"),
            CLIRefused,
            ("u.fa", "the input"),
        ),
        Case(
            "cli-fit-output-is-the-input", _cli(*fit, "-o", fa), CLIRefused, ("-o/--output", "u.fa")
        ),
        Case(
            "cli-fit-output-is-the-input-kept",
            _unchanged(fa, _cli(*fit, "-o", fa)),
            None,
            kind="result",
            check=bool,
        ),
        Case(
            "cli-gram-output-is-the-input",
            _cli("gram", fa, "--kernel", "Spectrum()", "-o", fa),
            CLIRefused,
            ("-o/--output", "u.fa"),
        ),
        Case(
            "cli-gram-tsv-is-the-output",
            _cli("gram", fa, "--kernel", "Spectrum()", "-o", tmp / "K.npy", "--tsv", tmp / "K.npy"),
            CLIRefused,
            ("--tsv", "-o/--output", "K.npy", "same file"),
        ),
        Case(
            "cli-explain-tsv-is-the-model",
            later("explain", model, fa, "--tsv", model),
            CLIRefused,
            ("--tsv", "u.structk", "model file"),
        ),
        Case(
            "cli-explain-plot-is-the-input",
            later("explain", model, fa, "--plot", fa),
            CLIRefused,
            ("--plot", "u.fa", "the input"),
        ),
        Case(
            "cli-explain-ism-is-the-tsv",
            later("explain", model, fa, "--tsv", out, "--ism", out),
            CLIRefused,
            ("--ism", "--tsv", "out.tsv"),
        ),
        Case(
            "cli-score-variants-output-is-the-table",
            later("score-variants", gkm, table, ref, "-o", table),
            CLIRefused,
            ("-o/--output", "variants.tsv"),
        ),
        Case(
            "cli-score-variants-old-out-is-the-fasta",
            later("score-variants", gkm, table, ref, "--out", ref),
            CLIRefused,
            ("--out", "ref.fa"),
        ),
        # ----------------------------------------- inputs that mean nothing
        Case(
            "cli-fit-positive-is-negative",
            _cli(
                "fit",
                "--positive",
                fa,
                "--negative",
                fa,
                "--kernel",
                "Spectrum()",
                "-o",
                tmp / "pn.structk",
            ),
            CLIRefused,
            ("--positive", "--negative", "u.fa", "same file"),
        ),
        Case(
            "cli-cv-positive-is-negative",
            _cli("cv", "--positive", fa, "--negative", fa, "--kernel", "Spectrum()"),
            CLIRefused,
            ("--positive", "--negative", "same file"),
        ),
        Case(
            "cli-fit-empty-label-cell",
            _cli(
                "fit",
                empty_label,
                "--label-column",
                "label",
                "--kernel",
                "Gaussian()",
                "-o",
                tmp / "e.structk",
            ),
            CLIRefused,
            ("empty_label.csv", "row 1", "empty label", "'label'"),
        ),
        Case(
            "cli-cv-empty-label-last-column",
            _cli("cv", empty_label, "--kernel", "Gaussian()"),
            CLIRefused,
            ("empty_label.csv", "row 1", "empty label"),
        ),
        Case(
            "cli-fit-labels-file-blank-entry",
            _cli(
                "fit",
                fa,
                "--labels",
                labels_blank,
                "--kernel",
                "Spectrum()",
                "-o",
                tmp / "b.structk",
            ),
            CLIRefused,
            ("labels_blank.txt", "'s1'", "empty"),
        ),
        Case(
            "cli-explain-top-negative",
            later("explain", model, fa, "--top", "-1"),
            CLIRefused,
            ("--top", "at least 1"),
        ),
        Case(
            "cli-explain-top-zero",
            later("explain", model, fa, "--top", "0"),
            CLIRefused,
            ("--top", "at least 1"),
        ),
        Case(
            "cli-explain-index-negative",
            later("explain", model, fa, "--index", "-1"),
            CLIRefused,
            ("--index", "at least 0"),
        ),
        Case(
            "cli-score-variants-flank-negative",
            later("score-variants", gkm, table, ref, "--flank", "-1"),
            CLIRefused,
            ("--flank", "at least 0"),
        ),
        Case(
            "cli-score-variants-flank-zero-gkm",
            later("score-variants", gkm, table, ref, "--flank", "0"),
            CLIRefused,
            ("--flank 0", "GappedKmer", "--flank 5"),
        ),
        Case(
            "cli-score-variants-flank-short-spectrum",
            later("score-variants", model, table, ref, "--flank", "1"),
            CLIRefused,
            ("--flank 1", "Spectrum", "--flank 2"),
        ),
        Case(
            "cli-score-variants-multi-allelic-split", multi_allelic, None, kind="result", check=bool
        ),
        Case(
            "cli-score-variants-symbolic-allele",
            later("score-variants", gkm, symbolic, ref),
            CLIRefused,
            ("symbolic.tsv, line 1", "'<DEL>'"),
        ),
        Case(
            "cli-score-variants-three-classes-needs-class",
            later("score-variants", three, table, ref),
            CLIRefused,
            ("three.structk", "3 decision functions", "--class"),
        ),
        Case(
            "cli-score-variants-unknown-class",
            later("score-variants", three, table, ref, "--class", "z"),
            CLIRefused,
            ("--class 'z'", "0 (a)"),
        ),
        Case(
            "cli-explain-three-classes-needs-class",
            later("explain", three, fa),
            CLIRefused,
            ("3 outputs", "output"),
        ),
        Case(
            "cli-explain-old-output-index",
            later("explain", model, fa, "--output", "0"),
            CLIRefused,
            ("-o/--output", "--class 0"),
        ),
        Case(
            "cli-score-variants-negative-class-of-binary",
            later("score-variants", model, table, ref, "--class", "0"),
            CLIRefused,
            ("--class 0", "favour 1", "--class 1"),
        ),
        # ------------------------------------- messages that name the thing
        Case(
            "cli-fit-latin1-csv",
            _cli(
                "fit",
                latin,
                "--label-column",
                "label",
                "--kernel",
                "Gaussian()",
                "-o",
                tmp / "l.structk",
            ),
            CLIRefused,
            ("latin.csv", "line 3", "column 8", "0xe9", "UTF-8"),
        ),
        Case("cli-gram-gzipped-csv-read", gzipped_gram, None, kind="result", check=bool),
        Case(
            "cli-explain-kernel-file",
            later("explain", kernel_file, fa),
            CLIRefused,
            ("kernel.structk", "Spectrum", "not a fitted learner"),
        ),
        Case(
            "cli-score-variants-kernel-file",
            later("score-variants", kernel_file, table, ref),
            CLIRefused,
            ("kernel.structk", "not a fitted learner"),
        ),
        Case(
            "cli-score-variants-vector-model",
            later("score-variants", vec_model, table, ref),
            CLIRefused,
            ("vec.structk", "numeric vectors", "sequences"),
        ),
        Case(
            "cli-cv-nystroem-names-the-kernel",
            _cli(
                "cv",
                fa,
                "--label-pattern",
                r"class=(\S+)",
                "--kernel",
                "Spectrum(k=3)",
                "--learner",
                "KernelSVM(solver='nystroem', n_components=[5, 10])",
            ),
            CLIRefused,
            ("--kernel 'Spectrum(k=3)'", "solver='nystroem'", "structk fit"),
        ),
        Case(
            "cli-fit-split-past-the-end",
            _cli(*fit, "--split", split_past, "-o", tmp / "sp.structk"),
            CLIRefused,
            ("split_past.txt", "line 3", "position 6", "0..5"),
        ),
        Case(
            "cli-cv-split-listed-twice",
            _cli(
                "cv",
                fa,
                "--label-pattern",
                r"class=(\S+)",
                "--kernel",
                "Spectrum(k=2)",
                "--split",
                split_twice,
            ),
            CLIRefused,
            ("split_twice.txt", "line 3", "listed already on line 1"),
        ),
    ]
