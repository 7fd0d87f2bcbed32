"""Graphs in, flat arrays out: the encoding every graph kernel shares.

Graphs are ``networkx.Graph`` or ``networkx.DiGraph`` objects (not
multigraphs). Node labels are read from a node attribute (``node_label``,
``"label"`` by default, as written by :func:`structk.datasets.load_tu`),
edge labels from an edge attribute (``edge_label``). Two labels are equal
when they are equal numbers (``1 == 1.0``), equal strings or equal tuples of
those; other objects are compared by ``repr``. Labels are encoded by a
64-bit hash of that canonical form, so a graph's encoding never depends on
the other graphs it is compared with (two distinct labels collide with
probability about 2^-64).

:func:`parse_graphs` validates a collection once (errors name the graph,
the node or edge and the attribute) and returns a :class:`Graphs`: CSR
adjacency over all nodes of all graphs, label hashes per node and per arc.
"""

from __future__ import annotations

import hashlib
import numbers
from dataclasses import dataclass, field, replace
from itertools import chain

import numpy as np

from ..._validation import check_objects


@dataclass
class Graphs:
    """A batch of graphs as flat arrays (the layout the compiled loops read, see
    :mod:`structk.algorithms`)."""

    directed: bool
    node_ptr: np.ndarray  # (n_graphs + 1,)
    adj_ptr: np.ndarray  # (n_nodes + 1,) CSR over all nodes
    adj_idx: np.ndarray  # local index of each successor
    node_keys: np.ndarray | None  # uint64 label hash per node
    edge_keys: np.ndarray | None  # uint64 label hash per CSR entry
    graphs: list  # the networkx graphs
    orders: list  # node order used for graph g
    cache: dict = field(default_factory=dict)

    @property
    def n_graphs(self):
        return len(self.node_ptr) - 1

    def sizes(self):
        return np.diff(self.node_ptr)

    def dense_adjacency(self, g):
        a, b = self.node_ptr[g], self.node_ptr[g + 1]
        A = np.zeros((b - a, b - a))
        rows = np.repeat(np.arange(b - a), np.diff(self.adj_ptr[a : b + 1]))
        A[rows, self.adj_idx[self.adj_ptr[a] : self.adj_ptr[b]]] = 1.0
        return A

    def take(self, index):
        """The graphs at ``index`` (a slice or integer positions), as a new
        batch with an empty cache; also returns the positions of the kept
        graphs and of their nodes in this batch, to slice cached arrays."""
        index = np.arange(self.n_graphs)[index]
        sizes = self.sizes()[index]
        nodes = ranges(self.node_ptr[index], sizes)
        degrees = np.diff(self.adj_ptr)[nodes]
        arcs = ranges(self.adj_ptr[nodes], degrees)
        part = Graphs(
            directed=self.directed,
            node_ptr=offsets(sizes),
            adj_ptr=offsets(degrees),
            adj_idx=self.adj_idx[arcs],
            node_keys=None if self.node_keys is None else self.node_keys[nodes],
            edge_keys=None if self.edge_keys is None else self.edge_keys[arcs],
            graphs=[self.graphs[g] for g in index.tolist()],
            orders=[self.orders[g] for g in index.tolist()],
        )
        return part, index, nodes

    def by_size(self, max_size=None):
        """Yield ``(graph indices, stacked dense adjacency matrices)`` per size > 0."""
        sizes = self.sizes()
        for n in np.unique(sizes):
            if n == 0 or (max_size is not None and n > max_size):
                continue
            gs = np.flatnonzero(sizes == n)
            yield gs, np.stack([self.dense_adjacency(g) for g in gs])


def ranges(starts, lengths):
    """Concatenated ``arange(start, start + length)`` for each pair (int64)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - offsets(lengths)[:-1], lengths)
    return np.arange(total, dtype=np.int64) + shift


def offsets(lengths):
    out = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    return out


def _canonical(value):
    # equal labels get equal keys as Python compares them (1 == 1.0 == True):
    # integers exactly (not through float, which merges 2**53 and 2**53 + 1),
    # integral floats as the integer they equal
    if isinstance(value, (numbers.Integral, np.bool_)):
        return ("n", int(value))
    if isinstance(value, numbers.Real):
        f = float(value)
        if f.is_integer():
            return ("n", int(f))
        return ("n", f)
    if isinstance(value, (str, np.str_)):
        return ("s", str(value))
    if isinstance(value, bytes):
        return ("y", value)
    if isinstance(value, tuple):
        return ("t", tuple(_canonical(v) for v in value))
    return ("r", type(value).__name__, repr(value))


def _label_key(value, cache):
    try:
        return cache[value]
    except KeyError:
        pass
    digest = hashlib.blake2b(repr(_canonical(value)).encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "little")
    cache[value] = key
    return key


def parse_graphs(X, name, node_label=None, edge_label=None, sort_by_label=False):
    """Validate networkx graphs and encode them as flat arrays, once.

    Errors name the graph (``X[3]``), the node or edge and the attribute.
    With ``sort_by_label`` the nodes of each graph are ordered by label
    key, so that each label is one contiguous block.
    """
    import networkx as nx

    X = check_objects(X, name)
    cache = {}
    node_ptr = [0]
    eu, ev, ek, nkeys, orders = [], [], [], [], []  # arcs as local node indices
    degrees = []  # arcs leaving each node of eu
    n_arcs, arcs_before = [], 0  # arcs per graph
    directed = None
    for g, G in enumerate(X):
        if not isinstance(G, nx.Graph):
            raise TypeError(f"{name}[{g}] is a {type(G).__name__}, not a networkx graph")
        if G.is_multigraph():
            raise TypeError(
                f"{name}[{g}] is a multigraph; graph kernels take simple graphs "
                "(convert with networkx.Graph(G) or networkx.DiGraph(G))"
            )
        if directed is None:
            directed = G.is_directed()
        elif G.is_directed() != directed:
            kinds = ("undirected", "directed")
            raise ValueError(
                f"{name}[{g}] is {kinds[G.is_directed()]} but {name}[0] is "
                f"{kinds[directed]}: a collection must be all directed or all "
                "undirected (convert with G.to_directed() or G.to_undirected())"
            )
        # the adjacency and node dicts, read directly (networkx's views cost
        # a microsecond per item; G.adj and G.nodes are views of these)
        node_data, adj = G._node, G._adj
        nodes = list(node_data)
        n = len(nodes)
        if node_label is not None:
            try:  # labels seen before: one lookup per node
                keys = [cache[data[node_label]] for data in node_data.values()]
            except (KeyError, TypeError):  # a new label, or an error to name
                keys = [
                    _node_key(data, node_label, cache, name, g, v) for v, data in node_data.items()
                ]
            if sort_by_label:
                order = np.argsort(np.array(keys, dtype=np.uint64), kind="stable").tolist()
                keys = [keys[i] for i in order]
                nodes = [nodes[i] for i in order]
            nkeys.extend(keys)
        orders.append(nodes)
        # every adjacency entry: both arcs of an undirected edge, a loop
        # once; sources and targets as local node indices
        degrees.extend(map(len, adj.values()))
        if nodes == list(range(n)):  # nodes named 0 .. n-1 in order
            eu.extend(adj)
            ev.extend(chain.from_iterable(adj.values()))
        else:
            position = {v: r for r, v in enumerate(nodes)}
            eu.extend(map(position.__getitem__, adj))
            ev.extend([position[v] for nbrs in adj.values() for v in nbrs])
        n_arcs.append(len(ev) - arcs_before)
        arcs_before = len(ev)
        if edge_label is not None:  # one key per arc, in the order of ev
            for u, nbrs in adj.items():
                for v, data in nbrs.items():
                    if edge_label not in data:
                        raise ValueError(
                            f"{name}[{g}]: edge {(u, v)!r} has no attribute "
                            f"{edge_label!r} (edge_label={edge_label!r}; pass "
                            "edge_label=None to ignore edge labels)"
                        )
                    ek.append(_label_key(_hashable(data[edge_label], name, g, (u, v)), cache))
        node_ptr.append(node_ptr[-1] + n)

    node_ptr = np.asarray(node_ptr, dtype=np.int64)
    # local indices to global ones: add each graph's first node
    row = np.repeat(
        np.asarray(eu, dtype=np.int64) + np.repeat(node_ptr[:-1], np.diff(node_ptr)),
        np.asarray(degrees, dtype=np.int64),
    )
    col = np.asarray(ev, dtype=np.int64) + np.repeat(node_ptr[:-1], n_arcs)
    ekey = (
        np.asarray(ek, dtype=np.uint64)
        if edge_label is not None
        else np.zeros(len(row), dtype=np.uint64)
    )
    perm = np.lexsort((col, row))
    row, col, ekey = row[perm], col[perm], ekey[perm]
    graph_of = np.repeat(np.arange(len(node_ptr) - 1), np.diff(node_ptr))
    col = col - node_ptr[graph_of[row]]
    adj_ptr = np.zeros(node_ptr[-1] + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=node_ptr[-1]), out=adj_ptr[1:])
    return Graphs(
        directed=bool(directed),
        node_ptr=node_ptr,
        adj_ptr=adj_ptr,
        adj_idx=np.ascontiguousarray(col),
        node_keys=np.array(nkeys, dtype=np.uint64) if node_label is not None else None,
        edge_keys=ekey if edge_label is not None else None,
        graphs=list(X),
        orders=orders,
    )


def sorted_by_label(P):
    """A new batch (with its own, empty cache) holding the graphs of ``P``
    with the nodes of each graph ordered by label key, stably: the arrays
    ``parse_graphs(..., sort_by_label=True)`` gives, without reading the
    networkx graphs again. ``P`` is not changed."""
    if P.node_keys is None:  # no labels: parse_graphs does not reorder either
        return replace(P, cache={})
    graph_of = np.repeat(np.arange(P.n_graphs), P.sizes())
    # by graph, then key, ties in node order: two stable sorts (np.lexsort is
    # ten times slower on these arrays)
    new_to_old = np.argsort(P.node_keys, kind="stable")
    new_to_old = new_to_old[np.argsort(graph_of[new_to_old], kind="stable")]
    old_to_new = np.empty_like(new_to_old)
    old_to_new[new_to_old] = np.arange(len(new_to_old))
    degrees = np.diff(P.adj_ptr)
    row = old_to_new[np.repeat(np.arange(len(degrees)), degrees)]
    col = old_to_new[P.adj_idx + np.repeat(P.node_ptr[graph_of], degrees)]
    perm = np.argsort(row * max(len(old_to_new), 1) + col, kind="stable")  # arcs are distinct
    row, col = row[perm], col[perm]
    adj_ptr = np.zeros(P.node_ptr[-1] + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=P.node_ptr[-1]), out=adj_ptr[1:])
    local = new_to_old - P.node_ptr[graph_of]
    return Graphs(
        directed=P.directed,
        node_ptr=P.node_ptr,
        adj_ptr=adj_ptr,
        adj_idx=np.ascontiguousarray(col - P.node_ptr[graph_of[row]]),
        node_keys=P.node_keys[new_to_old],
        edge_keys=None if P.edge_keys is None else P.edge_keys[perm],
        graphs=P.graphs,
        orders=[
            [order[i] for i in local[P.node_ptr[g] : P.node_ptr[g + 1]].tolist()]
            for g, order in enumerate(P.orders)
        ],
    )


def _node_key(data, node_label, cache, name, g, v):
    try:
        return cache[data[node_label]]
    except KeyError:
        if node_label not in data:
            raise ValueError(
                f"{name}[{g}]: node {v!r} has no attribute {node_label!r} "
                f"(node_label={node_label!r}; pass node_label=None for "
                "unlabelled graphs)"
            ) from None
        return _label_key(data[node_label], cache)
    except TypeError:
        _hashable(data[node_label], name, g, v)
        raise


def _hashable(value, name, g, where):
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"{name}[{g}]: the label of {where!r} is an unhashable "
            f"{type(value).__name__}; labels must be numbers, strings or tuples"
        ) from None
    return value


def check_same_direction(P, Q):
    if P.directed != Q.directed:
        kinds = ("undirected", "directed")
        raise ValueError(
            f"X holds {kinds[P.directed]} graphs but Y holds {kinds[Q.directed]} "
            "ones: convert one collection (G.to_directed() / G.to_undirected())"
        )


def dense_ids(*arrays):
    """Map uint64 keys of several arrays to shared dense ids 0..L-1."""
    sizes = [len(a) for a in arrays]
    _, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    inverse = inverse.astype(np.int64).ravel()
    return np.split(inverse, np.cumsum(sizes)[:-1])


def pairs_upper(n):
    i, j = np.triu_indices(n)
    return i.astype(np.int64), j.astype(np.int64)


def pairs_all(n, m):
    i, j = np.divmod(np.arange(n * m, dtype=np.int64), m)
    return i, j


def take_segments(ptr, index):
    """Entries and new pointer of the segments ``index`` of a CSR-like layout.

    Segment ``g`` owns entries ``ptr[g]:ptr[g+1]``; ``index`` is a slice or
    integer positions. Returns the positions of the selected entries (in
    the order of ``index``) and the pointer of the selection.
    """
    g = np.arange(len(ptr) - 1, dtype=np.int64)[index]
    lengths = ptr[g + 1] - ptr[g]
    new_ptr = np.zeros(len(g) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    sel = np.repeat(ptr[g] - new_ptr[:-1], lengths) + np.arange(new_ptr[-1], dtype=np.int64)
    return sel, new_ptr
