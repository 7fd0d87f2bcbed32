"""Molecular graphs from SMILES (RDKit)."""

import builtins
import sys
from collections import Counter

import pytest

pytest.importorskip("rdkit", reason="the chem extra (RDKit) is not installed")

from rdkit import Chem

from structk.datasets import from_smiles
from structk.kernels import WeisfeilerLehman

SMILES = ["CCO", "c1ccccc1O", "C[N+](C)(C)C", "OC(=O)C#N", "[O-]C(=O)c1ccccc1", "Cl/C=C/Cl"]


@pytest.mark.parametrize("smiles", SMILES)
def test_atoms_and_bonds_match_rdkit(smiles):
    g = from_smiles(smiles)[0]
    mol = Chem.MolFromSmiles(smiles)
    assert g.number_of_nodes() == mol.GetNumAtoms() and g.number_of_edges() == mol.GetNumBonds()
    formula = Counter(a.GetSymbol() for a in mol.GetAtoms())
    assert Counter(label for _, label in g.nodes(data="label")) == formula
    assert sum(charge for _, charge in g.nodes(data="charge")) == Chem.GetFormalCharge(mol)
    for bond in mol.GetBonds():
        edge = g.edges[bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()]
        assert edge["label"] == str(bond.GetBondType())
    assert g.graph["smiles"] == smiles


def test_labels_aromaticity_and_charges():
    phenol, ammonium = from_smiles(["c1ccccc1O", "C[N+](C)(C)C"])
    assert [phenol.nodes[i]["aromatic"] for i in range(7)] == [True] * 6 + [False]
    assert {phenol.edges[e]["label"] for e in phenol.edges} == {"AROMATIC", "SINGLE"}
    assert ammonium.nodes[1] == {"label": "N", "aromatic": False, "charge": 1, "hydrogens": 0}
    assert from_smiles("C", hydrogens=True)[0].number_of_nodes() == 5


def test_graphs_feed_the_graph_kernels():
    graphs = from_smiles(["CCO", "OCC", "CCC"])
    K = WeisfeilerLehman(h=2)(graphs)
    assert K[0, 1] == K[0, 0] and K[0, 2] < K[0, 0]  # same molecule written twice


@pytest.mark.parametrize("bad, index", [(["CC", "C1CC", "CCC"], 1), (["CC", ""], 1), (["XyZ"], 0)])
def test_unparsable_smiles_name_their_index(bad, index):
    with pytest.raises(ValueError, match=rf"smiles\[{index}\] = .* not a SMILES string"):
        from_smiles(bad)


def test_non_strings_are_rejected():
    with pytest.raises(TypeError, match=r"smiles\[1\] is not a string"):
        from_smiles(["CC", 3])


def test_missing_rdkit_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def no_rdkit(name, *args, **kwargs):
        if name == "rdkit" or name.startswith("rdkit."):
            raise ImportError("No module named 'rdkit'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "rdkit", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_rdkit)
    with pytest.raises(ImportError, match=r"pip install 'structk\[chem\]'"):
        from_smiles("CC")
