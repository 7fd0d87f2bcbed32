"""Exact Morgan environments, fragment counts and SMILES n-grams (RDKit),
against hand counts, RDKit's own fingerprints and scikit-learn."""

import csv
import random
from collections import Counter, defaultdict

import numpy as np
import pytest

pytest.importorskip("rdkit", reason="the chem extra (RDKit) is not installed")

from rdkit import Chem
from rdkit.Chem import Fragments
from rdkit.Chem import rdFingerprintGenerator as generators

from structk.datasets import fragment_counts, morgan_environments, smiles_ngrams
from structk.datasets.chem import _environments
from structk.kernels import Jaccard, MinMax

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
SMALL = [
    "CCO",
    "c1ccccc1",
    ASPIRIN,
    "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",
    "C1CC1",
    "CO",
    "CC",
    "C.C",
    "[Na+].[Cl-]",
    "[2H]C([2H])([2H])O",
    "c1cc[se]c1",
    "F[P-](F)(F)(F)(F)F",
    "c1ccc2ccccc2c1",
]


def _esol(structk_data, n=None):
    path = structk_data("molecules/esol/delaney-processed.csv")
    with open(path, newline="") as f:
        smiles = [row["smiles"].strip() for row in csv.DictReader(f)]
    return smiles[:n]


def test_ethanol_by_hand():
    (radius1,) = morgan_environments("CCO", radius=1)
    methyl, methylene, hydroxyl = (
        "[#6;X4;H3;+0;!R]",
        "[#6;X4;H2;+0;!R]",
        "[#8;X2;H1;+0;!R]",
    )

    def centre(label):
        return label[:-1] + ":1]"

    assert radius1 == {
        f"0:{centre(methyl)}": 1,
        f"0:{centre(methylene)}": 1,
        f"0:{centre(hydroxyl)}": 1,
        f"1:{methylene}-{centre(methyl)}": 1,
        f"1:{methyl}-{centre(methylene)}-{hydroxyl}": 1,
        f"1:{methylene}-{centre(hydroxyl)}": 1,
    }
    # at radius 2 every atom's environment is the whole molecule, the bond
    # set of the CH2's radius-1 environment: nothing new counts
    assert morgan_environments("CCO", radius=2) == [radius1]
    # redundant: the 3 atoms at radius 2 count too, with new tokens
    redundant = morgan_environments("CCO", radius=2, redundant=True)[0]
    assert sum(redundant.values()) == 9 and set(radius1) < set(redundant)


def test_benzene_by_hand():
    (benzene,) = morgan_environments("c1ccccc1", radius=2)
    ch = "[#6;X3;H1;+0;R]"
    assert benzene == {
        "0:[#6;X3;H1;+0;R:1]": 6,
        f"1:{ch}:[#6;X3;H1;+0;R:1]:{ch}": 6,
        f"2:{ch}:{ch}:[#6;X3;H1;+0;R:1]:{ch}:{ch}": 6,
    }


@pytest.mark.parametrize("redundant", [False, True])
@pytest.mark.parametrize("smiles", SMALL)
def test_environments_are_rdkits_unhashed(smiles, redundant):
    """The (atom, radius) environments counted are those of RDKit's
    unfolded Morgan count fingerprint (its bitInfo), each RDKit identifier
    holds one token (up to the ties RDKit breaks by hash), and the counts
    agree."""
    mol = Chem.MolFromSmiles(smiles)
    gen = generators.GetMorganGenerator(radius=3, includeRedundantEnvironments=redundant)
    out = generators.AdditionalOutput()
    out.AllocateBitInfoMap()
    fp = gen.GetSparseCountFingerprint(mol, additionalOutput=out)
    mine = _environments(Chem, mol, 3, redundant)
    theirs = [(r, a) for envs in out.GetBitInfoMap().values() for a, r in envs]
    assert len(mine) == len(theirs) == sum(fp.GetNonzeroElements().values())
    assert Counter(r for r, _, _ in mine) == Counter(r for r, _ in theirs)
    if redundant:  # no ties to break: the same (atom, radius) pairs
        assert {(r, a) for r, a, _ in mine} == set(theirs)
    token = {(r, a): key for r, a, key in mine}
    for envs in out.GetBitInfoMap().values():
        keys = {token[r, a] for a, r in envs if (r, a) in token}
        assert len(keys) <= 1
    counted = morgan_environments(smiles, radius=3, redundant=redundant)[0]
    assert sorted(counted.values()) == sorted(fp.GetNonzeroElements().values())


def test_esol_tokens_refine_rdkits_identifiers(structk_data):
    """Across ESOL no token is given two RDKit identifiers (one environment,
    one identifier), and the same count per molecule."""
    ids_of = defaultdict(set)
    gen = generators.GetMorganGenerator(radius=2, includeRedundantEnvironments=True)
    for smiles in _esol(structk_data, 300):
        mol = Chem.MolFromSmiles(smiles)
        out = generators.AdditionalOutput()
        out.AllocateBitInfoMap()
        fp = gen.GetSparseCountFingerprint(mol, additionalOutput=out)
        token = {(r, a): key for r, a, key in _environments(Chem, mol, 2, True)}
        assert len(token) == sum(fp.GetNonzeroElements().values())
        for bit, envs in out.GetBitInfoMap().items():
            for a, r in envs:
                ids_of[token[r, a]].add(bit)
    assert len(ids_of) > 1000
    assert all(len(ids) == 1 for ids in ids_of.values())


def test_spelling_and_atom_order_do_not_matter(structk_data):
    rng = random.Random(0)
    for smiles in _esol(structk_data, 150):
        mol = Chem.MolFromSmiles(smiles)
        spelt = Chem.MolToSmiles(mol, doRandom=True, canonical=False)
        order = list(range(mol.GetNumAtoms()))
        rng.shuffle(order)
        shuffled = Chem.MolToSmiles(Chem.RenumberAtoms(mol, order), canonical=False)
        a, b, c = morgan_environments([smiles, spelt, shuffled], radius=3)
        assert a == b == c, (smiles, spelt, shuffled)


def test_distinct_molecules_distinct_multisets():
    # constitutional isomers: propanol and isopropanol, o- and p-xylene
    pairs = [("CCCO", "CC(C)O"), ("Cc1ccccc1C", "Cc1ccc(C)cc1")]
    for x, y in pairs:
        a, b = morgan_environments([x, y], radius=2)
        assert a != b
        assert MinMax()([a, b])[0, 1] < 1


def test_folded_fingerprint_collides_where_tokens_do_not(structk_data):
    """RDKit's 2048-bit folded count fingerprint puts distinct environments
    of ESOL into one bit; the tokens keep them apart, so the folded MinMax
    similarity overestimates the exact one for some pair."""
    smiles = _esol(structk_data, 200)
    gen = generators.GetMorganGenerator(radius=2, fpSize=2048)
    tokens_in_bit = defaultdict(set)
    folded = np.zeros((len(smiles), 2048), dtype=np.int64)
    for i, s in enumerate(smiles):
        mol = Chem.MolFromSmiles(s)
        out = generators.AdditionalOutput()
        out.AllocateBitInfoMap()
        folded[i] = gen.GetCountFingerprintAsNumPy(mol, additionalOutput=out)
        token = {(r, a): key for r, a, key in _environments(Chem, mol, 2, True)}
        for bit, envs in out.GetBitInfoMap().items():
            tokens_in_bit[bit].update(token[r, a] for a, r in envs)
    shared = [keys for keys in tokens_in_bit.values() if len(keys) > 1]
    assert shared, "no collision of the 2048-bit fingerprint among 200 ESOL molecules"
    exact = morgan_environments(smiles, radius=2)
    assert all(any(key in m for m in exact) for key in shared[0])
    K_exact, K_folded = MinMax()(exact), MinMax()(folded)
    assert (K_folded - K_exact).max() > 0.05


def test_fragment_counts_are_rdkits():
    (aspirin,) = fragment_counts(ASPIRIN)
    mol = Chem.MolFromSmiles(ASPIRIN)
    expected = {
        name: getattr(Fragments, name)(mol) for name in dir(Fragments) if name.startswith("fr_")
    }
    assert aspirin == {name: c for name, c in expected.items() if c}
    assert aspirin["fr_ester"] == 1 and aspirin["fr_benzene"] == 1
    assert fragment_counts(["OC(=O)c1ccccc1OC(C)=O"]) == [aspirin]  # another spelling
    assert fragment_counts("C") == [{}]


def test_smiles_ngrams_are_countvectorizers():
    from sklearn.feature_extraction.text import CountVectorizer

    smiles = ["CCO", ASPIRIN, "c1ccccc1Cl"]
    canonical = [Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s in smiles]
    vec = CountVectorizer(analyzer="char", ngram_range=(2, 4), lowercase=False)
    counts = vec.fit_transform(canonical).toarray()
    names = vec.get_feature_names_out()
    expected = [{names[j]: int(c) for j, c in enumerate(row) if c} for row in counts]
    assert smiles_ngrams(smiles, ngram_range=(2, 4)) == expected
    assert smiles_ngrams(["OCC", "C(O)C"]) == smiles_ngrams(["CCO", "CCO"])
    assert smiles_ngrams(" OCC ", ngram_range=(1, 1), canonical=False) == [{"O": 1, "C": 2}]


def test_multisets_feed_minmax_and_jaccard():
    morgan = morgan_environments(["CCO", "OCC", "CCN"], radius=2)
    frags = fragment_counts(["CCO", "OCC", "CCN"])
    joined = [{**m, **f} for m, f in zip(morgan, frags)]
    for objects in (morgan, joined):
        K = MinMax()(objects)
        assert K[0, 1] == 1.0 and K[0, 2] < 1.0
        assert Jaccard()([set(o) for o in objects])[0, 1] == 1.0


@pytest.mark.parametrize("function", [morgan_environments, fragment_counts, smiles_ngrams])
def test_bad_smiles_named_by_index_and_string(function):
    with pytest.raises(ValueError, match=r"smiles\[2\] = 'C1CC' is not a SMILES string"):
        function(["CC", "CO", "C1CC"])
    with pytest.raises(TypeError, match=r"smiles\[1\] is not a string"):
        function(["CC", None])


@pytest.mark.parametrize("radius", [-1, 1.5, True, "2"])
def test_bad_radius(radius):
    with pytest.raises(ValueError, match=r"radius must be an integer >= 0"):
        morgan_environments("CC", radius=radius)


@pytest.mark.parametrize("ngram_range", [(0, 2), (3, 2), 3, (1.5, 2), ("a", 2)])
def test_bad_ngram_range(ngram_range):
    with pytest.raises(ValueError, match=r"ngram_range must be two integers"):
        smiles_ngrams("CC", ngram_range=ngram_range)
