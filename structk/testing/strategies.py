"""Hypothesis strategies for the objects structk kernels take.

Each strategy draws *one* object and takes explicit size bounds, so that a
failing example shrinks to something a person can read: a short string, a
two-element set, a three-node graph. Lists of objects are built by
:func:`object_lists` (or directly by ``hypothesis.strategies.lists``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..alphabets import resolve_alphabet

if TYPE_CHECKING:
    import networkx as nx


def vectors(
    dim: int, *, min_value: float = -10.0, max_value: float = 10.0
) -> st.SearchStrategy[np.ndarray]:
    """Real vectors of length ``dim`` with finite entries in ``[min_value, max_value]``.

    Returns
    -------
    SearchStrategy[numpy.ndarray]
        float64 arrays of shape ``(dim,)``; shrinks towards zeros.
    """
    if int(dim) < 1:
        raise ValueError(f"dim must be >= 1, got {dim!r}")
    elements = st.floats(
        min_value,
        max_value,
        allow_nan=False,
        allow_infinity=False,
        allow_subnormal=False,
    )
    return hnp.arrays(np.float64, (int(dim),), elements=elements)


def token_sets(
    tokens: Iterable[Hashable] | st.SearchStrategy[Any] = "abcdefgh",
    *,
    min_size: int = 0,
    max_size: int = 6,
) -> st.SearchStrategy[frozenset[Any]]:
    """Finite sets (``frozenset``) of hashable tokens.

    Parameters
    ----------
    tokens : sequence or SearchStrategy
        The universe to draw tokens from (a sequence is sampled from), or a
        strategy for single tokens.
    """
    if not isinstance(tokens, st.SearchStrategy):
        tokens = st.sampled_from(list(tokens))
    return st.frozensets(tokens, min_size=min_size, max_size=max_size)


def strings(
    alphabet: str | Sequence[str] = "dna", *, min_size: int = 0, max_size: int = 8
) -> st.SearchStrategy[str]:
    """Strings over an alphabet: ``"dna"``, ``"rna"``, ``"protein"`` or given symbols.

    Shrinks towards short strings of the alphabet's first symbol.
    """
    symbols = resolve_alphabet(alphabet)
    if not all(isinstance(s, str) and len(s) == 1 for s in symbols):
        raise ValueError("strings() needs one-character symbols")
    return st.text(alphabet="".join(symbols), min_size=min_size, max_size=max_size)


@st.composite
def _graphs(draw, min_nodes, max_nodes, node_labels, edge_labels, directed, node_label, edge_label):
    import networkx as nx

    n = draw(st.integers(min_nodes, max_nodes))
    G = nx.DiGraph() if directed else nx.Graph()
    for v in range(n):
        if node_labels is None:
            G.add_node(v)
        else:
            G.add_node(v, **{node_label: draw(st.sampled_from(node_labels))})
    if directed:
        pairs = [(u, v) for u in range(n) for v in range(n) if u != v]
    else:
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    if pairs:
        chosen = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
        for (u, v), keep in zip(pairs, chosen):
            if keep:
                if edge_labels is None:
                    G.add_edge(u, v)
                else:
                    G.add_edge(u, v, **{edge_label: draw(st.sampled_from(edge_labels))})
    return G


def graphs(
    *,
    min_nodes: int = 0,
    max_nodes: int = 6,
    node_labels: Sequence[Any] | None = None,
    edge_labels: Sequence[Any] | None = None,
    directed: bool = False,
    node_label: Hashable = "label",
    edge_label: Hashable = "label",
) -> st.SearchStrategy[nx.Graph]:
    """networkx graphs with optional node and edge labels.

    Shrinks towards few nodes, no edges and the first label.

    Parameters
    ----------
    min_nodes, max_nodes : int
        Bounds on the number of nodes (nodes are ``0 .. n-1``).
    node_labels, edge_labels : sequence, optional
        Labels to draw from, stored under the attributes ``node_label`` /
        ``edge_label``; ``None`` for unlabelled.
    directed : bool
        Draw ``networkx.DiGraph`` instead of ``networkx.Graph``.
    node_label, edge_label : str
        Attribute names of the labels, as the graph kernels' parameters of
        the same names (``WeisfeilerLehman(node_label=...)``,
        ``RandomWalk(node_label=..., edge_label=...)``).
    """
    if not 0 <= min_nodes <= max_nodes:
        raise ValueError(f"need 0 <= min_nodes <= max_nodes, got {min_nodes}, {max_nodes}")
    node_labels = None if node_labels is None else list(node_labels)
    edge_labels = None if edge_labels is None else list(edge_labels)
    return _graphs(
        min_nodes, max_nodes, node_labels, edge_labels, bool(directed), node_label, edge_label
    )


def object_lists(
    objects: st.SearchStrategy[Any], *, min_size: int = 1, max_size: int = 6
) -> st.SearchStrategy[list[Any]]:
    """Lists of objects drawn from ``objects`` (the input of one Gram matrix)."""
    return st.lists(objects, min_size=min_size, max_size=max_size)
