"""Feature occurrences of the graph kernels with explicit features.

* :class:`WeisfeilerLehman`: feature ``(t, label)`` occurs once at every
  node whose iteration-``t`` label it is; the node is its unit (the root of
  the subtree the label stands for). Named by the unfolding tree,
  ``C(C,N(O,O))``: the root label, then its neighbours' trees of depth
  ``t - 1`` (with ``edge_label``, each child is prefixed by its bond,
  ``C(1:C,2:O)``).
* :class:`ShortestPath` (any length kernel, hop or weighted lengths):
  feature ``(label u, label v, d)`` occurs once for every ordered pair of
  nodes at distance ``d``, covering both endpoints (half each).

Nodes are numbered in the order of ``G.nodes``. The features and where
they occur come from the functions the kernels compute their features
with, :func:`structk.algorithms.wl_relabel.wl_relabel`,
:func:`~structk.algorithms.wl_relabel.assignment_occurrences` and
:func:`structk.algorithms.shortest_paths.path_list`: a feature key is
defined once, there.
"""

from __future__ import annotations

import numpy as np

from ..algorithms.shortest_paths import path_list
from ..algorithms.wl_relabel import assignment_occurrences, wl_relabel
from ..kernels.graphs._encoding import parse_graphs
from ._occurrences import Occurrences


class GraphLeaf:
    unit = "node"
    presence = False
    #: ``{label: name}`` for the node and edge labels in feature names
    #: (:meth:`structk.explain.Explainer.name_labels`); ``None``: as stored
    label_names = None
    edge_names = None

    def __init__(self, kernel):
        self.kernel = kernel

    @staticmethod
    def n_units(enc):
        return np.asarray(enc.sizes(), dtype=np.int64)

    def node_label(self, enc, g, v):
        label = self.kernel.node_label
        if label is None:
            return "*"
        return _named(enc.graphs[g].nodes[enc.orders[g][v]][label], self.label_names)

    def _neighbours(self, enc, g, v):
        a = enc.node_ptr[g] + v
        return enc.adj_idx[enc.adj_ptr[a] : enc.adj_ptr[a + 1]].tolist()

    @staticmethod
    def n_edges(enc):
        return np.array([G.number_of_edges() for G in enc.graphs], dtype=np.int64)


def _named(value, names):
    """A label as text, through ``names`` when it names it."""
    return str(names.get(value, value) if names else value)


def arcs(enc):
    """The CSR arcs of a batch in global node numbers, ``(tail, head,
    edge)``, with ``edge`` the arc's edge in the flat list of every graph's
    ``G.edges`` (in that order; both arcs of an undirected edge map to it)."""
    n_all = int(enc.node_ptr[-1])
    owner = np.repeat(np.arange(enc.n_graphs, dtype=np.int64), enc.sizes())
    tail = np.repeat(np.arange(n_all, dtype=np.int64), np.diff(enc.adj_ptr))
    head = enc.adj_idx.astype(np.int64) + enc.node_ptr[owner[tail]]
    ends = []
    for g, (G, order) in enumerate(zip(enc.graphs, enc.orders)):
        local = {v: i for i, v in enumerate(order)}
        base = int(enc.node_ptr[g])
        ends.extend((base + local[a], base + local[b]) for a, b in G.edges())
    ends = np.array(ends, dtype=np.int64).reshape(-1, 2)
    ids = np.arange(len(ends), dtype=np.int64)
    code = ends[:, 0] * n_all + ends[:, 1]
    if not enc.directed:
        code = np.concatenate([code, ends[:, 1] * n_all + ends[:, 0]])
        ids = np.concatenate([ids, ids])
    order = np.argsort(code, kind="stable")
    code, ids = code[order], ids[order]
    at = np.searchsorted(code, tail * n_all + head)
    return tail, head, ids[at]


class WeisfeilerLehmanLeaf(GraphLeaf):
    def __init__(self, kernel):
        super().__init__(kernel)
        self.h = int(kernel.h)

    def encode(self, X, name="X"):
        return parse_graphs(X, name, self.kernel.node_label, self.kernel.edge_label)

    def occurrences(self, enc):
        n = int(enc.node_ptr[-1])
        keys = wl_relabel(
            enc.node_keys, enc.node_ptr, enc.adj_ptr, enc.adj_idx, enc.edge_keys, self.h
        )
        owner = np.repeat(np.arange(enc.n_graphs, dtype=np.int64), enc.sizes())
        local = np.arange(n, dtype=np.int64) - enc.node_ptr[owner]
        # the iteration is kept beside the hash so names can recover it
        return Occurrences(
            np.ascontiguousarray(keys).ravel().view(np.int64),
            np.tile(owner, self.h + 1),
            np.tile(local, self.h + 1)[:, None],
            np.ones(n * (self.h + 1)),
            np.repeat(np.arange(self.h + 1, dtype=np.int64), n),
        )

    def names(self, keys, enc, occ, limit=120):
        n = int(enc.node_ptr[-1])
        out = []
        for key in np.asarray(keys).tolist():
            at = np.flatnonzero(occ.keys == key)
            if not len(at):
                out.append(f"WL label {key & 0xFFFFFFFF:08x}")
                continue
            o = int(at[0])
            t = o // max(n, 1)
            g, v = int(occ.owner[o]), int(occ.units[o, 0])
            text = self._tree(enc, g, v, t)
            out.append(f"t={t}: " + (text if len(text) <= limit else text[: limit - 3] + "..."))
        return out

    def _tree(self, enc, g, v, t, budget=None):
        label = self.node_label(enc, g, v)
        if t == 0:
            return label
        G = enc.graphs[g]
        nodes = enc.orders[g]
        edge = self.kernel.edge_label
        parts = []
        for u in self._neighbours(enc, g, v):
            child = self._tree(enc, g, u, t - 1)
            if edge is not None:
                child = f"{_named(G.edges[nodes[v], nodes[u]][edge], self.edge_names)}:{child}"
            parts.append(child)
        return f"{label}({','.join(sorted(parts))})" if parts else label

    def node_edge_split(self, enc, occ, amounts):
        """Each occurrence's amount shared equally over the vertices and edges
        of its unfolding tree (the subtree its label stands for), credited
        to the graph nodes and edges they are copies of.

        The tree of root ``v`` at iteration ``t`` has one vertex per walk
        of length ``s <= t`` from ``v`` (ending at the node it copies) and
        one edge per step of those walks, ``2 S - 1`` elements in all with
        ``S = sum_{s <= t} (A^s 1)_v``. So node ``w`` receives ``sum_{s <= t}
        (A^s)_{vw}`` shares and the arc ``x -> y`` ``sum_{s < t} (A^s)_{vx}``;
        both are sums of row vectors pushed along the arcs, ``O(h^2 m)`` for
        a batch of ``m`` arcs. Returns ``(node_scores, edge_scores)``, flat
        over the batch's nodes and edges."""
        n_all = int(enc.node_ptr[-1])
        h = int(occ.level.max(initial=0))
        covered = occ.units >= 0
        n_cover = covered.sum(axis=1)
        share = np.divide(amounts, n_cover, out=np.zeros(len(amounts)), where=n_cover > 0)
        rows, cols = np.nonzero(covered)
        root = enc.node_ptr[occ.owner[rows]] + occ.units[rows, cols]
        alpha = np.bincount(
            occ.level[rows] * n_all + root, weights=share[rows], minlength=(h + 1) * n_all
        ).reshape(h + 1, n_all)
        tail, head, edge = arcs(enc)

        def push(r):  # r A: along every arc tail -> head
            return np.bincount(head, weights=r[tail], minlength=n_all)

        size = [np.ones(n_all)]  # S_t = sum_{s <= t} A^s 1
        walks = np.ones(n_all)
        for _ in range(h):
            walks = np.bincount(tail, weights=walks[head], minlength=n_all)
            size.append(size[-1] + walks)
        node, at_tail = np.zeros(n_all), np.zeros(n_all)
        for t in range(h + 1):
            r = alpha[t] / (2.0 * size[t] - 1.0)
            for s in range(t + 1):
                node += r
                if s < t:
                    at_tail += r
                    r = push(r)
        n_edges = int(self.n_edges(enc).sum())
        return node, np.bincount(edge, weights=at_tail[tail], minlength=n_edges)


class WLOptimalAssignmentLeaf(WeisfeilerLehmanLeaf):
    """:class:`WeisfeilerLehmanOptimalAssignment`: feature ``(t, label, r)``
    is 1 when a graph has more than ``r`` nodes with that label at
    iteration ``t``. Each such feature covers all those nodes (equal
    shares), so a node with a label ``N`` nodes share gets ``sum_{r < N}
    W_{t, label, r} / N``."""

    def __init__(self, kernel):
        super().__init__(kernel)
        self._levels = {}  # feature key -> (iteration, rank), for names

    def occurrences(self, enc):
        wl = super().occurrences(enc)
        features = assignment_occurrences(wl.owner, wl.keys.view(np.uint64))
        order, rank = features.order, features.rank
        own, lev = wl.owner[order], wl.level[order]
        start = rank == 0  # a run of equal (graph, label) begins
        run = np.cumsum(start) - 1
        first = np.flatnonzero(start)
        size = np.diff(np.append(first, len(order)))
        width = int(size.max(initial=1))
        units = np.full((len(order), width), -1, dtype=np.int64)
        nodes = wl.units[order, 0]
        for r in range(width):  # every member of a run covers the run's nodes
            ok = r < size[run]
            units[ok, r] = nodes[first[run][ok] + r]
        keys = features.keys.view(np.int64)
        self._levels.update(zip(keys.tolist(), zip(lev.tolist(), rank.tolist())))
        return Occurrences(keys, own, units, np.ones(len(order)), lev)

    def names(self, keys, enc, occ, limit=120):
        out = []
        for key in np.asarray(keys).tolist():
            at = np.flatnonzero(occ.keys == key)
            t, r = self._levels.get(key, (None, None))
            if not len(at) or t is None:
                out.append(f"WL label {key & 0xFFFFFFFF:08x}")
                continue
            o = int(at[0])
            g, v = int(occ.owner[o]), int(occ.units[o, 0])
            text = self._tree(enc, g, v, t)
            text = text if len(text) <= limit else text[: limit - 3] + "..."
            out.append(f"t={t}: {text} (#{r + 1})")
        return out


class ShortestPathLeaf(GraphLeaf):
    """:class:`ShortestPath`: the pair ``(u, v)`` adds ``W(l(u), l(v), d)``
    to ``f``, for any length kernel: ``f(x) = b + gamma(x) sum_{(u, v) in x}
    W(l(u), l(v), d(u, v))`` with ``W(a, b, d) = sum_i c_i gamma(s_i) sum
    [(u', v') in s_i, labels (a, b)] k_len(d, d')``. For the delta kernel on
    hop lengths ``W`` is a table over (labels, length) keys; for a smooth
    length kernel (or weighted lengths) it is evaluated at the object's
    lengths from the support vectors' (labels, length) counts, and
    ``k(x, x)`` (the normalisation) comes from the kernel."""

    def __init__(self, kernel):
        super().__init__(kernel)
        self.smooth = kernel.length_kernel != "delta"
        self.weighted = kernel.edge_weight is not None
        self._meta = {}  # key -> (label-pair hash, length), for weights and names

    def encode(self, X, name="X"):
        enc = parse_graphs(X, name, self.kernel.node_label)
        if self.weighted or self.smooth:  # validates the weights, naming the edge
            enc.cache["explain_diag"] = np.asarray(self.kernel.diag(enc.graphs), np.float64)
        return enc

    def norms(self, enc):
        """``k(x, x)`` of a smooth length kernel (not a sum of squared counts)."""
        return enc.cache["explain_diag"] if self.smooth else None

    def occurrences(self, enc):
        from ..kernels.graphs.shortest_path import arc_weights

        weights = arc_weights(enc, self.kernel.edge_weight, "X") if self.weighted else None
        paths = path_list(enc.node_ptr, enc.adj_ptr, enc.adj_idx, enc.node_keys, weights)
        key = paths.keys.view(np.int64)
        if self.smooth or self.weighted:
            self._meta.update(
                zip(key.tolist(), zip(paths.labels.view(np.int64).tolist(), paths.lengths.tolist()))
            )
        owner = np.repeat(np.arange(enc.n_graphs, dtype=np.int64), np.diff(paths.ptr))
        return Occurrences(
            key, owner, np.stack([paths.source, paths.target], axis=1), np.ones(len(key))
        )

    def weights_at(self, sv_keys, W, keys):
        """``W`` at ``keys`` from the support vectors' collapsed counts
        ``(sv_keys, W)``: a look-up for the delta kernel, else ``sum W(a, b,
        d') k_len(d, d')`` over the support vectors' lengths ``d'`` of the
        same label pair."""
        from ._occurrences import lookup

        if not self.smooth:
            return lookup(sv_keys, W, keys)
        unknown = (0, np.nan)  # a key never seen: weight 0
        sv = [self._meta.get(k, unknown) for k in sv_keys.tolist()]
        q = [self._meta.get(k, unknown) for k in np.asarray(keys).tolist()]
        sv_pair = np.array([m[0] for m in sv], dtype=np.int64)
        sv_len = np.array([m[1] for m in sv], dtype=np.float64)
        q_pair = np.array([m[0] for m in q], dtype=np.int64)
        q_len = np.array([m[1] for m in q], dtype=np.float64)
        out = np.zeros(len(q_pair))
        for p in np.unique(q_pair[np.isfinite(q_len)]).tolist():
            mine, theirs = (q_pair == p) & np.isfinite(q_len), sv_pair == p
            if theirs.any():
                out[mine] = (
                    self._length_kernel(q_len[mine][:, None], sv_len[theirs][None, :]) @ W[theirs]
                )
        return out

    def _length_kernel(self, d, e):
        """``k_len(d, e)`` of :class:`ShortestPath` (the Brownian bridge or
        the Gaussian), elementwise."""
        diff = np.abs(d - e)
        c = float(self.kernel.length_scale)
        if self.kernel.length_kernel == "brownian":
            return np.maximum(0.0, c - diff)
        return np.exp(-0.5 * (diff / c) ** 2)

    def node_edge_split(self, enc, occ, amounts):
        """Each pair's amount, averaged over the shortest ``u``-``v``
        paths, shared equally by the path's two end nodes and its ``d``
        edges (the node labels and the length the feature is made of; the
        inner nodes' labels do not enter it). An edge ``e`` thus receives
        ``a sigma_uv(e) / ((d + 2) sigma_uv)`` of a pair's amount ``a``,
        ``sigma`` counting shortest paths (through ``e``), as in Brandes'
        betweenness; per source the sums over targets accumulate backwards
        along the shortest-path DAG (dense, ``O(diam n^3)`` per graph).
        Returns ``(node_scores, edge_scores)``, flat over the batch."""
        if self.weighted:
            raise NotImplementedError(
                f"{self.kernel!r}: edge scores follow shortest paths counted in hops; "
                "with edge weights which paths are shortest depends on sums of "
                "weights compared exactly, so explain this model by nodes "
                "(edges=False)"
            )
        n_all = int(enc.node_ptr[-1])
        node = np.zeros(n_all)
        edge = np.zeros(int(self.n_edges(enc).sum()))
        tail, head, arc_edge = arcs(enc)
        order = np.argsort(occ.owner, kind="stable")
        bounds = np.searchsorted(occ.owner[order], np.arange(enc.n_graphs + 1))
        for g in range(enc.n_graphs):
            sel = order[bounds[g] : bounds[g + 1]]
            if not len(sel):
                continue
            a = int(enc.node_ptr[g])
            n = int(enc.node_ptr[g + 1]) - a
            A = enc.dense_adjacency(g)
            D = _hops(A, enc.directed)
            u, v = occ.units[sel, 0], occ.units[sel, 1]
            P = np.zeros((n, n))
            np.add.at(P, (u, v), amounts[sel])
            Pd = P / (D + 2.0)
            node[a : a + n] += Pd.sum(axis=1) + Pd.sum(axis=0)
            sigma = np.eye(n)
            for k in range(1, D.max(initial=0) + 1):
                layer = D == k
                sigma[layer] = ((sigma * (D == k - 1)) @ A)[layer]
            Q = np.divide(Pd, sigma, out=np.zeros((n, n)), where=sigma > 0)
            R = np.zeros((n, n))  # R[s, y] = sum_t Q[s, t] sigma_yt [y on an s-t path]
            for k in range(D.max(initial=0), 0, -1):
                layer = D == k
                R[layer] = Q[layer] + ((R * (D == k + 1)) @ A.T)[layer]
            mine = (tail >= a) & (tail < a + n)
            x, y = tail[mine] - a, head[mine] - a
            on_dag = (D[:, y] == D[:, x] + 1) & (D[:, x] >= 0)
            through = (sigma[:, x] * on_dag * R[:, y]).sum(axis=0)
            edge += np.bincount(arc_edge[mine], weights=through, minlength=len(edge))
        return node, edge

    def names(self, keys, enc, occ):
        import networkx as nx

        out = []
        for key in np.asarray(keys).tolist():
            at = np.flatnonzero(occ.keys == key)
            if not len(at):
                out.append("path")
                continue
            o = int(at[0])
            g, (u, v) = int(occ.owner[o]), occ.units[o].tolist()
            nodes = enc.orders[g]
            if key in self._meta:
                d = f"{self._meta[key][1]:g}"
            else:
                d = nx.shortest_path_length(enc.graphs[g], nodes[u], nodes[v])
            out.append(f"{self.node_label(enc, g, u)} -{d}- {self.node_label(enc, g, v)}")
        return out


def _hops(A, directed):
    """Hop distances of a dense adjacency, ``-1`` where unreachable."""
    from scipy.sparse.csgraph import shortest_path

    D = shortest_path(A, directed=directed, unweighted=True)
    return np.where(np.isfinite(D), D, -1).astype(np.int64)
