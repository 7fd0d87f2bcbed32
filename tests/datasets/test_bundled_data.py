"""The bundled data in data/ is exactly what its seeded scripts make."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).resolve().parents[2] / "data"
pytestmark = pytest.mark.skipif(not DATA.exists(), reason="tests run outside a source checkout")


def _script(name):
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_moons():
    from structk.datasets import load_moons

    X, y = _script("make_vectors").make_moons()
    X_file, y_file = load_moons()
    np.testing.assert_allclose(X_file, X, atol=5e-7)  # written with 6 decimals
    np.testing.assert_array_equal(y_file, y)


def test_motif_sequences():
    from structk.sequences import read_fasta

    records = _script("make_sequences").make_motif_sequences()
    _, headers, seqs = read_fasta(DATA / "motifs.fasta", descriptions=True)
    assert seqs == [s for s, _ in records]
    assert [h.split("class=")[1] for h in headers] == [label for _, label in records]


def test_graph_families(tmp_path):
    make = _script("make_graphs")
    graphs, targets = make.make_graph_families()
    make.write_tu(graphs, targets, tmp_path)
    for path in sorted((DATA / "graph_families").iterdir()):
        assert (tmp_path / path.name).read_text() == path.read_text(), path.name
