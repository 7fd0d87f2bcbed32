"""Molecular graphs from SMILES strings (RDKit).

:func:`from_smiles` turns SMILES into networkx graphs that every structk
graph kernel accepts: node attribute ``"label"`` is the element symbol and
edge attribute ``"label"`` the bond type, so label-aware kernels
(Weisfeiler-Lehman, shortest path, random walk) see atoms and bonds.

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

    Chem, RDLogger = _rdkit()
    if isinstance(smiles, str):
        smiles = [smiles]
    graphs = []
    RDLogger.DisableLog("rdApp.*")
    try:
        for i, text in enumerate(smiles):
            if not isinstance(text, str):
                raise TypeError(f"smiles[{i}] is not a string: {text!r}")
            mol = Chem.MolFromSmiles(text.strip())
            if mol is None or not text.strip():
                raise ValueError(f"smiles[{i}] = {text!r} is not a SMILES string RDKit can parse")
            if hydrogens:
                mol = Chem.AddHs(mol)
            g = nx.Graph(smiles=text.strip())
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
    finally:
        RDLogger.EnableLog("rdApp.*")
    return graphs
