"""The structk command line: every command, exit codes, one-line errors."""

import gzip
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from signal_util import wait_for_handler

from structk import cli
from structk.cli import commands
from structk.datasets import bundled_path, load_moons
from structk.kernels import Jaccard, Normalize, Spectrum, WeisfeilerLehman


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bundled_moons():
    X, y = load_moons()
    assert X.shape == (200, 2) and np.bincount(y).tolist() == [100, 100]
    assert bundled_path("moons.csv").name == "moons.csv"


@pytest.fixture
def fasta(tmp_path):
    path = tmp_path / "seqs.fa.gz"
    seqs = ["ACGTACGTAA", "ACGTTTTTGA", "GGGGACGTAC", "TTTTACGACG"] * 3
    with gzip.open(path, "wt") as fh:
        for i, s in enumerate(seqs):
            fh.write(f">s{i} class={'a' if i % 2 else 'b'}\n{s}\n")
    return path, seqs


def test_gram_from_gzipped_fasta_matches_the_library(tmp_path, fasta, capsys):
    path, seqs = fasta
    out, tsv = tmp_path / "K.npy", tmp_path / "K.tsv"
    code, stdout, _ = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Normalize(Spectrum(k=3))",
        "-o",
        str(out),
        "--tsv",
        str(tsv),
        "--quiet",
    )
    assert code == 0
    np.testing.assert_allclose(np.load(out), Normalize(Spectrum(k=3))(seqs), rtol=1e-12)
    assert "is positive semi-definite" in stdout and "12 x 12" in stdout
    header = tsv.read_text().splitlines()[0].split("\t")
    assert header[1:3] == ["s0", "s1"]


def test_gram_from_sets_file(tmp_path, capsys):
    path = tmp_path / "baskets.sets"
    path.write_text("# one basket per line\napple pear\npear,plum\n\napple plum kiwi\n")
    out = tmp_path / "K.npy"
    assert run(capsys, "gram", str(path), "--kernel", "Jaccard()", "-o", str(out))[0] == 0
    sets = [{"apple", "pear"}, {"pear", "plum"}, set(), {"apple", "plum", "kiwi"}]
    np.testing.assert_allclose(np.load(out), Jaccard()(sets), rtol=1e-12)


def test_gram_from_tu_folder(tmp_path, capsys):
    from structk.datasets import load_tu

    out = tmp_path / "K.npy"
    folder = bundled_path("graph_families")
    code, _, _ = run(
        capsys, "gram", str(folder), "--kernel", "WeisfeilerLehman(h=2)", "-o", str(out)
    )
    assert code == 0
    graphs, _ = load_tu(folder)
    np.testing.assert_array_equal(np.load(out), WeisfeilerLehman(h=2)(graphs))


def test_gram_from_csv_with_label_column(tmp_path, capsys):
    from structk.kernels import Gaussian

    X, y = load_moons()
    path = tmp_path / "pts.csv"
    np.savetxt(path, np.c_[X, y], delimiter=",", header="x1,x2,label", comments="")
    out = tmp_path / "K.npy"
    code, *_ = run(
        capsys,
        "gram",
        str(path),
        "--label-column",
        "label",
        "--kernel",
        "Gaussian(sigma=0.5)",
        "-o",
        str(out),
    )
    assert code == 0
    np.testing.assert_allclose(np.load(out), Gaussian(sigma=0.5)(X), rtol=1e-12)


def test_cv_table_on_fasta_labels(fasta, capsys):
    path, _ = fasta
    code, stdout, _ = run(
        capsys,
        "cv",
        str(path),
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--kernel",
        "Normalize(Spectrum(k=3))",
        "--learner",
        "KernelSVM(C=1)",
        "--learner",
        "NearestClassMean()",
        "--folds",
        "3",
        "--quiet",
    )
    assert code == 0
    lines = stdout.splitlines()
    assert "3-fold CV" in lines[0] and "['a', 'b']" in lines[0]
    assert (
        lines[1]
        == "note: alphabet dna detected from the records (give --alphabet to choose another)"
    )
    assert lines[2].split()[:3] == ["kernel", "learner", "accuracy"]
    assert sum("±" in line for line in lines) == 4


def test_cv_on_bundled_graphs_in_parallel(capsys):
    code, stdout, _ = run(
        capsys,
        "cv",
        str(bundled_path("graph_families")),
        "--kernel",
        "Normalize(WeisfeilerLehman(h=3))",
        "--jobs",
        "2",
    )
    assert code == 0
    row = next(line for line in stdout.splitlines() if "±" in line)  # the one kernel's row
    acc = float(row.split("±")[0].split()[-1])
    assert acc > 0.9  # triangles vs long chords: WL sees the difference


def test_cv_without_labels_is_a_clear_error(fasta, capsys):
    path, _ = fasta
    code, _, err = run(capsys, "cv", str(path), "--kernel", "Spectrum(k=2)")
    assert code == 2 and "has no labels: give --label-pattern" in err


def test_check_psd_exit_codes(tmp_path, capsys):
    good, bad = tmp_path / "good.npy", tmp_path / "bad.npy"
    np.save(good, np.eye(3))
    np.save(bad, np.array([[0.0, 1.0], [1.0, 0.0]]))
    code, out, _ = run(capsys, "check-psd", str(good))
    assert code == 0 and "is positive semi-definite" in out
    code, out, _ = run(capsys, "check-psd", str(bad), "--eigenvalues")
    assert code == 1 and "NOT positive semi-definite" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check-psd", "{tmp}/rect.npy"], "square matrix"),
        (["check-psd", "{tmp}/missing.npy"], "(?i)no such file"),
        (
            ["gram", "{tmp}/rect.npy", "--kernel", "Linear()", "-o", "{tmp}/K.npy"],
            "cannot tell the format",
        ),
        (
            ["gram", "{fasta}", "--kernel", "Spectrm(k=3)", "-o", "{tmp}/K.npy"],
            "unknown kernel 'Spectrm'; did you mean 'Spectrum'",
        ),
        (["gram", "{fasta}", "--kernel", "Spectrum(k=0)", "-o", "{tmp}/K.npy"], "k must be >= 1"),
        (
            ["gram", "{fasta}", "--kernel", "Spectrum(k=2, alphabet='ab')", "-o", "{tmp}/K.npy"],
            r"X\[0\]",
        ),
        (
            ["cv", "{fasta}", "--label-pattern", "nomatch=(x)", "--kernel", "Spectrum(k=2)"],
            "does not match the header of record 0",
        ),
        (
            [
                "cv",
                "{fasta}",
                "--label-pattern",
                r"class=(\S+)",
                "--kernel",
                "Spectrum(k=2)",
                "--learner",
                "KernelPCA(n_components=2)",
            ],
            "KernelPCA is a transformer",
        ),
    ],
)
def test_errors_are_one_line(tmp_path, fasta, capsys, argv, message):
    np.save(tmp_path / "rect.npy", np.ones((2, 3)))
    argv = [a.format(tmp=tmp_path, fasta=fasta[0]) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"structk {argv[0]}: error:")
    assert re.search(message, err), err


def test_every_command_has_help_with_examples():
    parser = commands.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        assert "example" in (p.epilog or ""), name


def test_console_script_entry_point_runs_as_module():
    out = subprocess.run(
        [sys.executable, "-m", "structk.cli", "--help"], capture_output=True, text=True, check=True
    )
    for cmd in ("demo", "gram", "check-psd", "cv"):
        assert cmd in out.stdout


def test_python_m_structk_is_the_command_with_its_exit_status(tmp_path):
    """``python -m structk`` runs the same parser and passes the exit status on."""
    out = subprocess.run(
        [sys.executable, "-m", "structk", "--help"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("usage: structk ")
    for cmd in ("demo", "gram", "check-psd", "cv", "check-kernel"):
        assert cmd in out.stdout
    matrix = tmp_path / "K.csv"
    matrix.write_text("1,2\n2,1\n")  # eigenvalues 3 and -1
    out = subprocess.run(
        [sys.executable, "-m", "structk", "check-psd", str(matrix)], capture_output=True, text=True
    )
    assert out.returncode == 1 and "NOT positive semi-definite" in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "structk", "check-psd", str(tmp_path / "no.npy")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("structk check-psd: error: ") and "no.npy" in out.stderr


def test_demo_quick_prints_tables_and_catches_the_sigmoid(capsys):
    code, out, _ = run(capsys, "demo", "--quick")
    assert code == 0
    assert out.count("accuracy") == 4  # one table per bundled data set
    assert "A sigmoid 'kernel' does not" in out and "NOT positive semi-definite" in out
    assert "structk cv my.fasta" in out


# ------------------------------------------------------------- signals
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize(
    "signame, code, word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]
)
def test_ctrl_c_and_sigterm_stop_at_once_with_one_line(tmp_path, signame, code, word):
    import os
    import signal
    import time
    from pathlib import Path

    rng = np.random.default_rng(0)
    path = tmp_path / "big.fa"
    path.write_text(
        "".join(f">s{i}\n{''.join(rng.choice(list('ACGT'), 3000))}\n" for i in range(600))
    )
    # (no first-run compile notice on a cold cache: it has its own test)
    env = dict(
        os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), STRUCTK_QUIET_COMPILE="1"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "structk.cli",
            "gram",
            str(path),
            "--kernel",
            "Mismatch(k=8, m=2)",
            "-o",
            str(tmp_path / "K.npy"),
            "--quiet",
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        # a shell's background jobs ignore SIGINT; a terminal's Ctrl-C does not
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    # ready when the command's main thread catches SIGTERM: it sets that
    # handler as it starts the worker thread that computes the Gram
    assert wait_for_handler(proc, signal.SIGTERM, timeout=30), "the command never started"
    time.sleep(0.3)
    proc.send_signal(getattr(signal, signame))
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == code
    assert err.strip() == f"structk gram: {word}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.fa"]


def test_check_psd_tolerance_follows_the_file_dtype(tmp_path, capsys):
    from structk.kernels import Gaussian

    K = Gaussian()(np.random.default_rng(0).normal(size=(300, 2)))
    np.save(tmp_path / "K32.npy", K.astype(np.float32))
    np.save(tmp_path / "K16.npy", K.astype(np.float16))
    assert run(capsys, "check-psd", str(tmp_path / "K32.npy"))[0] == 0
    code, _, err = run(capsys, "check-psd", str(tmp_path / "K16.npy"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "float16" in err
