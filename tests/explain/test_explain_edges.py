"""Edge contributions of graph models (``contributions(X, edges=True)``).

The references are brute-force definitions in plain Python on tiny graphs,
independent of the explainer: Weisfeiler-Lehman labels as nested tuples,
unfolding trees built node by node, shortest paths listed by networkx, the
feature weights summed from the support vectors, and each feature's term
shared as the docs define it. The decision values they give are checked
against the model's own ``decision_function`` first.
"""

from collections import Counter

import networkx as nx
import numpy as np
import pytest

from structk.explain import Explainer
from structk.kernels import (
    Exp,
    Normalize,
    ShortestPath,
    WeisfeilerLehman,
    WeisfeilerLehmanOptimalAssignment,
)
from structk.learners import KernelSVM


def _graph(rng, n, directed=False, bonds=False):
    g = nx.DiGraph() if directed else nx.Graph()
    for v in range(n):
        g.add_node(v, label=str(rng.choice(list("CNO"))))
    for v in range(1, n):  # a random tree, then chords (cycles: several shortest paths)
        g.add_edge(int(rng.integers(v)), v)
    for _ in range(int(rng.integers(0, 3))):
        a, b = rng.choice(n, 2, replace=False)
        g.add_edge(int(a), int(b))
    if directed:  # some arcs both ways, some unreachable pairs
        for a, b in list(g.edges)[::2]:
            g.add_edge(b, a)
    if bonds:
        for a, b in g.edges:
            g.edges[a, b]["bond"] = int(rng.integers(1, 3))
    return g


def _data(directed=False, bonds=False, seed=0):
    rng = np.random.default_rng(seed)
    G = [_graph(rng, int(rng.integers(3, 8)), directed, bonds) for _ in range(24)]
    y = np.array([int(sum(g.nodes[v]["label"] == "N" for v in g) >= 2) for g in G])
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return G[:16], y[:16], G[16:]


# ------------------------------------------------------ brute-force WL
def _wl_labels(g, h, bond=None):
    """labels[t][v]: nested tuples, iteration t (neighbours: successors)."""
    labels = [{v: g.nodes[v]["label"] for v in g}]
    for _ in range(h):
        old = labels[-1]
        labels.append(
            {
                v: (
                    old[v],
                    tuple(
                        sorted(
                            ((g.edges[v, u][bond] if bond else None), old[u])
                            for u in g.neighbors(v)
                        )
                    ),
                )
                for v in g
            }
        )
    return labels


def _unfolding(g, v, t):
    """Elements of the unfolding tree of v of depth t: ('node', w) per tree
    vertex and ('edge', (x, y)) per tree edge, as graph nodes / arcs."""
    out = [("node", v)]
    if t > 0:
        for u in g.neighbors(v):
            out.append(("edge", (v, u)))
            out.extend(_unfolding(g, u, t - 1))
    return out


def _edge_id(g, x, y):
    edges = list(g.edges)
    if (x, y) in edges:
        return edges.index((x, y))
    assert not g.is_directed()
    return edges.index((y, x))


def _wl_reference(model, h, X, bond=None, normalize=False):
    def feats(g):
        L = _wl_labels(g, h, bond)
        return Counter((t, L[t][v]) for t in range(h + 1) for v in g), L

    def norm(c):
        return np.sqrt(sum(x * x for x in c.values())) if normalize else 1.0

    W = Counter()
    for s, c in zip(model.support_vectors_, model.dual_coef_[0]):
        phi, _ = feats(s)
        for key, x in phi.items():
            W[key] += c * x / norm(phi)
    out = []
    for g in X:
        phi, L = feats(g)
        nodes, edges = Counter(), Counter()
        for t in range(h + 1):
            for v in g:
                amount = W[(t, L[t][v])] / norm(phi)
                tree = _unfolding(g, v, t)
                for kind, where in tree:
                    if kind == "node":
                        nodes[where] += amount / len(tree)
                    else:
                        edges[_edge_id(g, *where)] += amount / len(tree)
        out.append(
            (
                np.array([nodes[v] for v in g]),
                np.array([edges[i] for i in range(g.number_of_edges())]),
                sum(W[k] * x for k, x in phi.items()) / norm(phi),
            )
        )
    return out


# ------------------------------------------------------ brute-force SP
def _sp_reference(model, X):
    def pairs(g):
        d = dict(nx.all_pairs_shortest_path_length(g))
        return [(u, v, d[u][v]) for u in g for v in d[u] if u != v]

    def feats(g):
        return Counter((g.nodes[u]["label"], g.nodes[v]["label"], k) for u, v, k in pairs(g))

    W = Counter()
    for s, c in zip(model.support_vectors_, model.dual_coef_[0]):
        for key, x in feats(s).items():
            W[key] += c * x
    out = []
    for g in X:
        nodes, edges = Counter(), Counter()
        for u, v, k in pairs(g):
            amount = W[(g.nodes[u]["label"], g.nodes[v]["label"], k)]
            paths = list(nx.all_shortest_paths(g, u, v))
            for path in paths:
                share = amount / len(paths) / (k + 2)
                nodes[u] += share
                nodes[v] += share
                for x, y in zip(path[:-1], path[1:]):
                    edges[_edge_id(g, x, y)] += share
        out.append(
            (
                np.array([nodes[v] for v in g]),
                np.array([edges[i] for i in range(g.number_of_edges())]),
                sum(W[k] * x for k, x in feats(g).items()),
            )
        )
    return out


def _check(model, X, reference):
    E = Explainer(model).contributions(X, edges=True)
    D = model.decision_function(X)
    for e, (nodes, edges, value), d, g in zip(E, reference, D, X):
        assert value + model.intercept_[0] == pytest.approx(d, rel=1e-9, abs=1e-9)
        assert e.edges == list(g.edges)
        np.testing.assert_allclose(e.scores, nodes, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(e.edge_scores, edges, rtol=1e-9, atol=1e-12)
        total = e.bias + e.scores.sum() + e.edge_scores.sum()
        assert total == pytest.approx(d, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_wl_edges_share_the_unfolding_tree(directed):
    G, y, T = _data(directed)
    model = KernelSVM(kernel=WeisfeilerLehman(h=2), C=10).fit(G, y)
    _check(model, T, _wl_reference(model, 2, T))


def test_wl_edges_with_bond_labels_and_normalisation():
    G, y, T = _data(bonds=True, seed=1)
    model = KernelSVM(kernel=Normalize(WeisfeilerLehman(h=3, edge_label="bond")), C=10).fit(G, y)
    _check(model, T, _wl_reference(model, 3, T, bond="bond", normalize=True))


@pytest.mark.parametrize("directed", [False, True])
def test_shortest_path_edges_share_every_shortest_path(directed):
    G, y, T = _data(directed, seed=2)
    model = KernelSVM(kernel=ShortestPath(), C=10).fit(G, y)
    _check(model, T, _sp_reference(model, T))


@pytest.mark.parametrize(
    "kernel",
    [
        WeisfeilerLehmanOptimalAssignment(h=2),
        Normalize(WeisfeilerLehman(h=1) + ShortestPath()),
        Exp(0.05 * WeisfeilerLehman(h=2)),
        WeisfeilerLehman(h=1) * Normalize(ShortestPath()),
    ],
    ids=repr,
)
def test_node_and_edge_scores_sum_to_the_decision_value(kernel):
    from structk.datasets import bundled_path, load_tu

    G, y = load_tu(bundled_path("graph_families"))
    y = (y == np.unique(y)[0]).astype(int)
    model = KernelSVM(kernel=kernel).fit(G[:60:2], y[:60:2])
    T = G[1:40:2]
    E = Explainer(model).contributions(T, edges=True)
    total = [e.bias + e.scores.sum() + e.edge_scores.sum() for e in E]
    np.testing.assert_allclose(total, model.decision_function(T), rtol=1e-9, atol=1e-12)
    assert [len(e.edge_scores) for e in E] == [g.number_of_edges() for g in T]


def test_edges_are_for_graph_models():
    model = KernelSVM(kernel=WeisfeilerLehman(h=1)).fit(*_data()[:2])
    assert Explainer(model).contributions(_data()[2][:1])[0].edge_scores is None
    from structk.kernels import Spectrum

    seq = KernelSVM(kernel=Spectrum(k=2)).fit(["ACGT", "TTGA", "ACGA", "TTTT"], [1, 0, 1, 0])
    with pytest.raises(ValueError, match="edges=True is for graph models"):
        Explainer(seq).contributions(["ACGT"], edges=True)


# ------------------------------------ shortest paths: smooth and weighted lengths
def _weighted(G, seed):
    rng = np.random.default_rng(seed)
    for g in G:
        for a, b in g.edges:
            g.edges[a, b]["w"] = float(rng.choice([0.5, 1.0, 1.5, 2.25]))
    return G


@pytest.mark.parametrize(
    "kernel",
    [
        ShortestPath(length_kernel="gaussian", length_scale=1.0),
        ShortestPath(length_kernel="brownian", length_scale=2.0, edge_weight="w"),
        ShortestPath(edge_weight="w"),
    ],
    ids=repr,
)
def test_shortest_path_any_length_kernel_against_brute_force(kernel):
    """f(x) = b + sum over the pairs (u, v) of x of W(l(u), l(v), d(u, v)),
    W(a, b, d) = sum_i c_i sum_{pairs of s_i labelled (a, b)} k_len(d, d'),
    each pair's term halved between u and v."""
    G, y, T = _data(directed=False, seed=3)
    G, T = _weighted(G, 0), _weighted(T, 1)
    model = KernelSVM(kernel=kernel, C=10).fit(G, y)
    weight = "w" if kernel.edge_weight else None
    c_len = kernel.length_scale

    def k_len(d, e):
        if kernel.length_kernel == "delta":
            return float(d == e)
        if kernel.length_kernel == "brownian":
            return max(0.0, c_len - abs(d - e))
        return float(np.exp(-0.5 * ((d - e) / c_len) ** 2))

    def pairs(g):
        d = dict(nx.all_pairs_dijkstra_path_length(g, weight=weight))
        return [
            (g.nodes[u]["label"], g.nodes[v]["label"], d[u][v], u, v)
            for u in g
            for v in d[u]
            if u != v
        ]

    sv_pairs = [
        (c, a, b, d)
        for s, c in zip(model.support_vectors_, model.dual_coef_[0])
        for a, b, d, _, _ in pairs(s)
    ]
    E = Explainer(model).contributions(T)
    for g, e, f in zip(T, E, model.decision_function(T)):
        nodes = Counter()
        for a, b, d, u, v in pairs(g):
            W = sum(c * k_len(d, d2) for c, a2, b2, d2 in sv_pairs if (a2, b2) == (a, b))
            nodes[u] += W / 2
            nodes[v] += W / 2
        expected = np.array([nodes[v] for v in g])
        np.testing.assert_allclose(e.scores, expected, rtol=1e-9, atol=1e-10)
        assert e.bias + e.scores.sum() == pytest.approx(f, rel=1e-9, abs=1e-10)


def test_normalised_smooth_shortest_path_sums_and_weighted_edges_are_refused():
    G, y, T = _data(seed=4)
    G, T = _weighted(G, 2), _weighted(T, 3)
    kernel = Normalize(
        ShortestPath(length_kernel="gaussian", edge_weight="w") + WeisfeilerLehman(h=1)
    )
    model = KernelSVM(kernel=kernel, C=10).fit(G, y)
    ex = Explainer(model)
    E = ex.contributions(T)
    np.testing.assert_allclose(
        [e.bias + e.scores.sum() for e in E], model.decision_function(T), rtol=1e-9, atol=1e-12
    )
    assert any(" -" in name and "- " in name for name, _ in ex.feature_weights(5))
    with pytest.raises(NotImplementedError, match="edge weights"):
        ex.contributions(T, edges=True)
    smooth = KernelSVM(kernel=ShortestPath(length_kernel="brownian"), C=10).fit(G, y)
    E = Explainer(smooth).contributions(T, edges=True)
    total = [e.bias + e.scores.sum() + e.edge_scores.sum() for e in E]
    np.testing.assert_allclose(total, smooth.decision_function(T), rtol=1e-9, atol=1e-12)
