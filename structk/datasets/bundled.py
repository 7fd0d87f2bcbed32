"""The small data sets that ship with structk (made by the scripts in ``data/``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def bundled_path(name):
    """Path of a bundled data file.

    Installed wheels carry the project's ``data/`` folder as ``structk/_data``;
    in a source checkout it is read from ``data/`` at the repository root.
    """
    here = Path(__file__).resolve().parent.parent
    for folder in (here / "_data", here.parent / "data"):
        path = folder / name
        if path.exists():
            return path
    raise FileNotFoundError(
        f"bundled data file {name!r} not found in {here / '_data'} or "
        f"{here.parent / 'data'}; reinstall structk or regenerate it with the "
        "scripts in data/"
    )


def load_moons():
    """Two interleaved half-moons (200 points in 2-D) and their 0/1 labels.

    Returns
    -------
    X : ndarray of shape (200, 2)
    y : ndarray of shape (200,)
    """
    table = np.loadtxt(bundled_path("moons.csv"), delimiter=",", skiprows=2)
    return table[:, :2], table[:, 2].astype(int)
