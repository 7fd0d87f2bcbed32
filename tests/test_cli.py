"""The structk command line: demo and check-psd, exit codes, one-line errors."""

import subprocess
import sys

import numpy as np

from structk import cli
from structk.datasets import bundled_path, load_moons


def test_bundled_moons():
    X, y = load_moons()
    assert X.shape == (200, 2) and np.bincount(y).tolist() == [100, 100]
    assert bundled_path("moons.csv").name == "moons.csv"


def test_demo_prints_table_and_catches_the_sigmoid(capsys):
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "Gaussian(sigma=0.5)" in out
    assert "check_psd caught sigmoid" in out
    rows = [line for line in out.splitlines() if line.startswith(("Linear()", "Gaussian"))]
    assert rows and all(" yes " in line for line in rows)


def test_check_psd_exit_codes(tmp_path, capsys):
    good, bad = tmp_path / "good.npy", tmp_path / "bad.npy"
    np.save(good, np.eye(3))
    np.save(bad, np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert cli.main(["check-psd", str(good)]) == 0
    assert "is positive semi-definite" in capsys.readouterr().out
    assert cli.main(["check-psd", str(bad), "--eigenvalues"]) == 1
    assert "NOT positive semi-definite" in capsys.readouterr().out


def test_check_psd_bad_file_is_one_line_error(tmp_path, capsys):
    np.save(tmp_path / "rect.npy", np.ones((2, 3)))
    assert cli.main(["check-psd", str(tmp_path / "rect.npy")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "square matrix" in err
    assert cli.main(["check-psd", str(tmp_path / "missing.npy")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_console_script_entry_point_runs_as_module():
    out = subprocess.run([sys.executable, "-m", "structk.cli", "--help"],
                         capture_output=True, text=True, check=True)
    assert "check-psd" in out.stdout and "demo" in out.stdout
