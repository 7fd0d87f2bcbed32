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
    assert re.search(r'^__version__ = "([^"]+)"$', source.read_text(), re.M).group(1) \
        == structk.__version__


def test_license_file_matches_the_declared_license():
    meta = _project()["project"]
    assert meta["license"]["text"] == "BSD-3-Clause"
    text = (ROOT / meta["license-files"][0]).read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text  # the third clause
