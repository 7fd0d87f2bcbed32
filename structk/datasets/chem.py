"""Molecules from SMILES strings (RDKit): graphs and count fingerprints.

:func:`from_smiles` turns SMILES into networkx graphs that every structk
graph kernel accepts: node attribute ``"label"`` is the element symbol and
edge attribute ``"label"`` the bond type, so label-aware kernels
(Weisfeiler-Lehman, shortest path, random walk) see atoms and bonds.

:func:`morgan_environments`, :func:`fragment_counts` and
:func:`smiles_ngrams` turn SMILES into multisets ``{token: count}``, the
objects of :class:`~structk.kernels.MinMax` (Tanimoto on counts) and, as
sets, of :class:`~structk.kernels.Jaccard`: exact, unhashed Morgan
environments, RDKit's functional-group counts, and character n-grams of
the canonical SMILES.

RDKit is an optional dependency: ``pip install structk[chem]``.

References
----------
D. Weininger, "SMILES, a chemical language and information system. 1.
Introduction to methodology and encoding rules", J. Chem. Inf. Comput. Sci.
28 (1988).
RDKit: open-source cheminformatics, https://www.rdkit.org.
"""

from __future__ import annotations


def _rdkit():
    try:
        from rdkit import Chem, RDLogger
    except ImportError:
        raise ImportError("reading SMILES needs RDKit: pip install 'structk[chem]'") from None
    return Chem, RDLogger


def from_smiles(smiles, *, hydrogens=False):
    """Molecular graphs from SMILES strings.

    Parameters
    ----------
    smiles : str or sequence of str
        One SMILES string or several. Surrounding white space is ignored.
    hydrogens : bool, default False
        Add the hydrogens as nodes (by default they are implicit, counted in
        the ``hydrogens`` node attribute).

    Returns
    -------
    list of networkx.Graph
        One undirected graph per SMILES, nodes ``0..n_atoms-1`` in RDKit's
        atom order, with node attributes

        - ``label``: element symbol (``"C"``, ``"N"``, ``"Cl"``, ...);
        - ``aromatic``: bool;
        - ``charge``: formal charge (int);
        - ``hydrogens``: total number of attached hydrogens (int);

        and edge attributes

        - ``label``: bond type, ``"SINGLE"``, ``"DOUBLE"``, ``"TRIPLE"`` or
          ``"AROMATIC"`` (RDKit's names);
        - ``aromatic``: bool.

        Graph attribute ``smiles`` keeps the input string.

    Raises
    ------
    ImportError
        RDKit is not installed (names the ``structk[chem]`` extra).
    ValueError
        A SMILES string RDKit cannot parse (names its index).
    TypeError
        An input that is not a string (names its index).

    Examples
    --------
    >>> from structk.datasets import from_smiles
    >>> g = from_smiles("C(=O)O")[0]
    >>> [g.nodes[i]["label"] for i in g], [g.edges[e]["label"] for e in g.edges]
    (['C', 'O', 'O'], ['DOUBLE', 'SINGLE'])
    """
    import networkx as nx

    graphs = []
    for text, mol in _molecules(smiles):
        if hydrogens:
            mol = _rdkit()[0].AddHs(mol)
        g = nx.Graph(smiles=text)
        for atom in mol.GetAtoms():
            g.add_node(
                atom.GetIdx(),
                label=atom.GetSymbol(),
                aromatic=atom.GetIsAromatic(),
                charge=atom.GetFormalCharge(),
                hydrogens=atom.GetTotalNumHs(),
            )
        for bond in mol.GetBonds():
            g.add_edge(
                bond.GetBeginAtomIdx(),
                bond.GetEndAtomIdx(),
                label=str(bond.GetBondType()),
                aromatic=bond.GetIsAromatic(),
            )
        graphs.append(g)
    return graphs


def _molecules(smiles):
    """``(text, molecule)`` for each SMILES string, ``text`` stripped of
    surrounding white space; an unparsable string or a non-string is an
    error naming its index and its value."""
    Chem, RDLogger = _rdkit()
    if isinstance(smiles, str):
        smiles = [smiles]
    out = []
    RDLogger.DisableLog("rdApp.*")
    try:
        for i, text in enumerate(smiles):
            if not isinstance(text, str):
                raise TypeError(f"smiles[{i}] is not a string: {text!r}")
            mol = Chem.MolFromSmiles(text.strip())
            if mol is None or not text.strip():
                raise ValueError(
                    f"smiles[{i}] = {text!r} is not a SMILES string RDKit can parse: "
                    "correct or remove it"
                )
            out.append((text.strip(), mol))
    finally:
        RDLogger.EnableLog("rdApp.*")
    return out


def morgan_environments(smiles, radius=2, *, redundant=False):
    """Exact, unhashed Morgan count fingerprints: each circular environment
    of each molecule written out as a canonical string, with its count.

    The Morgan (ECFP) algorithm describes atom ``a`` at radius ``r`` by its
    environment: the atoms within ``r`` bonds of ``a`` and the bonds with
    an end within ``r - 1`` bonds of it (RDKit's
    ``FindAtomEnvironmentOfRadiusN``). RDKit hashes each environment to a
    32-bit identifier and usually folds it further to 1024 or 2048 bits, so
    distinct environments can share a bit. Here an environment's token is
    the environment itself: the canonical SMILES (RDKit's canonical
    ranking) of its atoms and bonds, each atom written with the invariants
    that RDKit's Morgan generator uses by default (atomic number ``#6``,
    total number of connections ``X4``, attached hydrogens ``H3``, formal
    charge ``+0``, ring membership ``R``/``!R``, and the mass number
    where RDKit's invariant sees the isotope: when the integer part of the
    atom's mass minus the element's average weight is not 0, as for 2H but
    not 13C) and the central atom marked by the atom
    map ``:1``; bonds are written explicitly (``-``, ``=``, ``#``, ``:``
    for aromatic), and the radius is prefixed: ``"1:[#6;X4;H3;+0;!R:1]-
    [#8;X2;H1;+0;!R]"`` is the carbon of methanol at radius 1. A SMILES
    string determines its labelled graph, so two different environments
    never share a token (no hash, no folding); the canonical ranking gives
    one environment one token whatever the input's spelling or atom order
    (tested on the ESOL molecules). RDKit's unfolded identifiers were not
    used as tokens: they are 32-bit hashes, so distinctness would be a
    matter of luck, and the Morgan iteration behind them does not see the
    bonds among an atom's neighbours, so environments that differ only in
    where a ring closes share an identifier (2 identifiers of ESOL's 5281
    at radius 2 hold two or three environments each). The tokens refine
    RDKit's identifiers: on ESOL no token was given two identifiers. And
    they can be read: each is a SMARTS pattern of its environment.

    Counts follow RDKit's ``GetMorganGenerator(radius)`` sparse count
    fingerprint (Rogers and Hahn's removal of duplicate substructures): at
    radius 0 every atom counts; at radius ``r >= 1`` an environment is left
    out, and its atom not grown further, when its bond set is that of an
    environment already kept (at a smaller radius, or at radius ``r`` from
    another atom: then the one with the smaller token is kept, where RDKit
    keeps the smaller hash). An atom without bonds contributes at radius 0
    only. With ``redundant=True`` every atom counts at every radius up to
    ``radius`` at which it has bonds (RDKit's
    ``includeRedundantEnvironments=True``).

    Parameters
    ----------
    smiles : str or sequence of str
        One SMILES string or several. Surrounding white space is ignored.
        Stereochemistry is ignored (as in RDKit's default Morgan
        fingerprint); charges and isotopes are not.
    radius : int, default 2
        The largest radius (2 gives ECFP4's environments).
    redundant : bool, default False
        Keep environments whose bond set repeats one already counted.

    Returns
    -------
    list of dict
        One ``{token: count}`` per molecule (counts are positive ints).

    Raises
    ------
    ImportError
        RDKit is not installed.
    ValueError
        A SMILES string RDKit cannot parse (names its index and the
        string), or a negative or non-integer ``radius``.
    TypeError
        An input that is not a string (names its index).

    See Also
    --------
    fragment_counts, smiles_ngrams, structk.kernels.MinMax

    References
    ----------
    H. L. Morgan, "The generation of a unique machine description for
    chemical structures", J. Chem. Doc. 5(2), 1965, 107-113.
    D. Rogers and M. Hahn, "Extended-connectivity fingerprints", J. Chem.
    Inf. Model. 50(5), 2010, 742-754.
    W. Virany and A. Tripp, "Hash collisions in molecular fingerprints:
    effects on property prediction and Bayesian optimization", arXiv
    2511.17078, 2025 (exact fingerprints give a small, consistent gain in
    GP regression).

    Examples
    --------
    >>> from structk.datasets import morgan_environments
    >>> from structk.kernels import MinMax
    >>> ethanol, spelt_backwards = morgan_environments(["CCO", "OCC"], radius=1)
    >>> ethanol == spelt_backwards, sum(ethanol.values())
    (True, 6)
    >>> sorted(ethanol)[:2]
    ['0:[#6;X4;H2;+0;!R:1]', '0:[#6;X4;H3;+0;!R:1]']
    >>> MinMax()(morgan_environments(["CCO", "CCN"], radius=1)).round(3)
    array([[1.   , 0.333],
           [0.333, 1.   ]])
    """
    import numbers

    if isinstance(radius, bool) or not isinstance(radius, numbers.Integral) or radius < 0:
        raise ValueError(f"radius must be an integer >= 0, got {radius!r}")
    from collections import Counter

    Chem = _rdkit()[0]
    out = []
    for _, mol in _molecules(smiles):
        kept = _environments(Chem, mol, int(radius), redundant)
        out.append(dict(Counter(key for _, _, key in kept)))
    return out


def _atom_code(atom, table):
    """RDKit's default Morgan invariants of an atom but the element and the
    charge, packed into one positive integer (see :func:`_atom_text`)."""
    z = atom.GetAtomicNum()
    delta = int(atom.GetMass() - table.GetAtomicWeight(z)) if z else 0
    degree, hydrogens = atom.GetTotalDegree(), atom.GetTotalNumHs()
    if degree >= 64 or hydrogens >= 64:
        raise ValueError(f"atom {atom.GetIdx()} has {degree} connections: at most 63 are supported")
    mass = atom.GetIsotope() if delta else 0
    return 1 + degree + 64 * (hydrogens + 64 * (int(atom.IsInRing()) + 4 * mass))


def _atom_text(match, table):
    """A bracket atom of the packed fragment written out as the SMARTS of
    its invariants, the centre (code bit 2 of the ring field) as ``:1``."""
    code, symbol, charge = int(match.group(1)) - 1, match.group(2), match.group(3)
    degree, code = code % 64, code // 64
    hydrogens, code = code % 64, code // 64
    ring, centre, mass = code % 2, (code // 2) % 2, code // 4
    z = 0 if symbol == "*" else table.GetAtomicNumber(symbol.capitalize())
    charge = int(charge + ("1" if charge in "+-" else "")) if charge else 0
    return (
        f"[{mass or ''}#{z};X{degree};H{hydrogens};{charge:+d};{'R' if ring else '!R'}"
        f"{':1' if centre else ''}]"
    )


def _environments(Chem, mol, radius, redundant):
    """The Morgan environments of one molecule that count, as
    ``(radius, atom index, token)``.

    An environment's token is the canonical SMILES of a new molecule made
    of its atoms and bonds alone, each atom carrying its element, its
    charge and, packed into the isotope field, the rest of its invariants
    and whether it is the centre: RDKit's canonical ranking of a whole
    molecule then sees every invariant (its ranking of a fragment of a
    larger molecule does not: the order of branches could depend on the
    atoms left out). The packed isotopes are then written out as SMARTS.
    """
    import re

    table = Chem.GetPeriodicTable()
    atoms = list(mol.GetAtoms())
    codes = [_atom_code(atom, table) for atom in atoms]
    bonds = list(mol.GetBonds())
    ends = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in bonds]
    bracket = re.compile(r"\[(\d+)(\*|[A-Za-z][a-z]?)([+-]\d*)?\]")

    def token(r, centre, bond_set):
        members = sorted({centre}.union(*(ends[b] for b in bond_set)))
        where = {a: i for i, a in enumerate(members)}
        fragment = Chem.RWMol()
        for a in members:
            new = Chem.Atom(atoms[a].GetAtomicNum())
            new.SetFormalCharge(atoms[a].GetFormalCharge())
            new.SetIsotope(codes[a] + (2 * 64 * 64 if a == centre else 0))
            new.SetNoImplicit(True)
            fragment.AddAtom(new)
        for b in sorted(bond_set):
            fragment.AddBond(where[ends[b][0]], where[ends[b][1]], bonds[b].GetBondType())
        fragment.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(fragment)
        text = Chem.MolToSmiles(fragment, allBondsExplicit=True, canonical=True)
        return f"{r}:" + bracket.sub(lambda m: _atom_text(m, table), text)

    kept = [(0, a, token(0, a, ())) for a in range(len(atoms))]
    seen = set()
    alive = list(range(len(atoms)))
    for r in range(1, radius + 1):
        found = []
        for a in alive:
            bond_set = frozenset(
                Chem.FindAtomEnvironmentOfRadiusN(mol, r, a, enforceSize=False, useHs=True)
            )
            if bond_set:
                found.append((sorted(bond_set), token(r, a, bond_set), a, bond_set))
        found.sort(key=lambda f: f[:2])
        alive = []
        for _, key, a, bond_set in found:
            if redundant or bond_set not in seen:
                seen.add(bond_set)
                kept.append((r, a, key))
                alive.append(a)
    return kept


def fragment_counts(smiles):
    """RDKit's functional-group counts of each molecule: the ``fr_*``
    descriptors (``fr_benzene``, ``fr_ester``, ``fr_halogen``, ..., 85 in
    RDKit 2023-2026), each a count of SMARTS matches.

    These are the "fragments" of GAUCHE and of the Photoswitch benchmark,
    which join them with Morgan counts ("fragprints") under a Tanimoto
    kernel; here they are a multiset, to join with
    :func:`morgan_environments` (``{**morgan, **fragments}``: the tokens
    cannot clash) for :class:`~structk.kernels.MinMax`.

    Parameters
    ----------
    smiles : str or sequence of str
        One SMILES string or several.

    Returns
    -------
    list of dict
        One ``{"fr_...": count}`` per molecule, the non-zero counts only.

    Raises
    ------
    ImportError, ValueError, TypeError
        As :func:`morgan_environments` (no RDKit; a SMILES string RDKit
        cannot parse, named by index and value; a non-string).

    References
    ----------
    R.-R. Griffiths, J. L. Greenfield, A. R. Thawani et al., "Data-driven
    discovery of molecular photoswitches with multioutput Gaussian
    processes", Chem. Sci. 13, 2022, 13541-13551 (fragprints).
    R.-R. Griffiths, L. Klarner, H. B. Moss et al., "GAUCHE: a library for
    Gaussian processes in chemistry", NeurIPS 2023.
    RDKit, ``rdkit.Chem.Fragments`` (the SMARTS of each count).

    Examples
    --------
    >>> from structk.datasets import fragment_counts
    >>> fragment_counts("CC(=O)Oc1ccccc1C(=O)O")[0]["fr_ester"]
    1
    """
    from rdkit.Chem import Descriptors

    functions = [(name, fn) for name, fn in Descriptors.descList if name.startswith("fr_")]
    out = []
    for _, mol in _molecules(smiles):
        counts = {name: int(fn(mol)) for name, fn in functions}
        out.append({name: c for name, c in counts.items() if c})
    return out


def smiles_ngrams(smiles, ngram_range=(1, 5), *, canonical=True):
    """Character n-gram counts of each SMILES string: GAUCHE's "bag of
    characters" SMILES representation.

    Parameters
    ----------
    smiles : str or sequence of str
        One SMILES string or several.
    ngram_range : (int, int), default (1, 5)
        The shortest and longest n-gram, as scikit-learn's
        ``CountVectorizer(analyzer="char", ngram_range=...)``.
    canonical : bool, default True
        Count the n-grams of RDKit's canonical SMILES of the molecule, so
        two spellings of one molecule give one multiset (stereochemistry
        kept). ``False`` counts the string as given (stripped), still
        checked to parse.

    Returns
    -------
    list of dict
        One ``{ngram: count}`` per molecule.

    Raises
    ------
    ImportError, ValueError, TypeError
        As :func:`morgan_environments`; a ``ngram_range`` that is not two
        integers ``1 <= low <= high`` is a ``ValueError``.

    References
    ----------
    R.-R. Griffiths, L. Klarner, H. B. Moss et al., "GAUCHE: a library for
    Gaussian processes in chemistry", NeurIPS 2023.

    Examples
    --------
    >>> from structk.datasets import smiles_ngrams
    >>> smiles_ngrams("OCC", ngram_range=(1, 2))[0]
    {'C': 2, 'O': 1, 'CC': 1, 'CO': 1}
    """
    from collections import Counter

    try:
        low, high = (int(v) for v in ngram_range)
        valid = 1 <= low <= high and tuple(ngram_range) == (low, high)
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise ValueError(f"ngram_range must be two integers 1 <= low <= high, got {ngram_range!r}")
    Chem = _rdkit()[0]
    out = []
    for text, mol in _molecules(smiles):
        if canonical:
            text = Chem.MolToSmiles(mol)
        out.append(
            dict(
                Counter(
                    text[i : i + n] for n in range(low, high + 1) for i in range(len(text) - n + 1)
                )
            )
        )
    return out
