"""Project metadata: one version, a license file matching the declared license."""

import re
import tomllib
from pathlib import Path

import pytest

import structk

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

pytestmark = pytest.mark.skipif(not PYPROJECT.exists(), reason="needs the source checkout")


def _project():
    return tomllib.loads(PYPROJECT.read_text())


def test_version_is_written_once():
    meta = _project()
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    source = ROOT / meta["tool"]["hatch"]["version"]["path"]
    assert (
        re.search(r'^__version__ = "([^"]+)"$', source.read_text(), re.M).group(1)
        == structk.__version__
    )


def test_license_file_matches_the_declared_license():
    meta = _project()["project"]
    assert meta["license"]["text"] == "BSD-3-Clause"
    text = (ROOT / meta["license-files"][0]).read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text  # the third clause


def test_structk_version_prints_the_version(capsys):
    from structk.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"structk {structk.__version__}"


def test_python_m_structk_version_in_a_fresh_process():
    import os
    import subprocess
    import sys

    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    out = subprocess.run(
        [sys.executable, "-m", "structk", "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    assert out.stdout.strip() == f"structk {structk.__version__}"


CHANGELOG_SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_changelog_keeps_a_changelog_up_to_this_version():
    """CHANGELOG.md in Keep a Changelog form: releases newest first, each
    ``## [X.Y.Z] - YYYY-MM-DD`` with its sections among the six kinds; the
    newest is this version."""
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)
    assert len(releases) == len(re.findall(r"^## ", text, re.M))  # every release so headed
    versions = [tuple(int(p) for p in v.split(".")) for v, _ in releases]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert releases[0][0] == structk.__version__ and releases[-1][0] == "0.1.0"
    dates = [d for _, d in releases]
    assert dates == sorted(dates, reverse=True)
    assert set(re.findall(r"^### (.+)$", text, re.M)) <= CHANGELOG_SECTIONS
    for body in re.split(r"^## .*$", text, flags=re.M)[1:]:
        assert re.search(r"^### ", body, re.M), "a release without a section"


def test_the_wheel_ships_py_typed_and_the_sdist_the_changelog(tmp_path):
    """Built as pip builds them (hatchling, the build backend): the wheel
    holds the py.typed marker beside every module, and this version."""
    import subprocess
    import sys
    import tarfile
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-d", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    (sdist,) = tmp_path.glob("*.tar.gz")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "structk/py.typed" in names
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "structk").rglob("*.py")}
    assert modules <= names
    assert wheel.name.startswith(f"structk-{structk.__version__}-")
    # the project URLs reach the package metadata (pip show, PyPI's sidebar)
    (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    urls = re.findall(
        r"^Project-URL: ([^,]+), (\S+)$", zipfile.ZipFile(wheel).read(meta).decode(), re.M
    )
    assert [label for label, _ in urls] == ["Homepage", "Documentation", "Source", "Issues"]
    assert all(url.startswith("https://") for _, url in urls)
    assert dict(urls) == _project()["project"]["urls"]
    with tarfile.open(sdist) as tar:
        top = f"structk-{structk.__version__}"
        assert {f"{top}/CHANGELOG.md", f"{top}/structk/py.typed"} <= set(tar.getnames())
