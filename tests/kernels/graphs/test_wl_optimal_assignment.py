"""Weisfeiler-Lehman with edge labels and the WL optimal assignment kernel:
against a dictionary-based WL written from the definition, an explicit
optimal assignment (scipy's linear_sum_assignment), GraKeL, the PSD kit."""

import warnings
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from kernel_checks import feature_product
from scipy.optimize import linear_sum_assignment

from structk import Normalize
from structk.kernels import WeisfeilerLehman, WeisfeilerLehmanOptimalAssignment
from structk.testing import assert_kernel_psd, graphs


def wl_colours(X, h, node_label="label", edge_label=None):
    """colours[g][t][v]: compressed WL label of node v of graph g at iteration t,
    with one dictionary shared by the collection (the textbook algorithm)."""
    current = [{v: (G.nodes[v][node_label] if node_label else 0) for v in G} for G in X]
    out = [[dict(c)] for c in current]
    for _ in range(h):
        table = {}
        new = []
        for G, col in zip(X, current):
            nxt = {}
            for v in G:
                succ = G.successors(v) if G.is_directed() else G.neighbors(v)
                nbrs = sorted(
                    (repr(G.edges[v, u][edge_label]) if edge_label else "", repr(col[u]))
                    for u in succ
                )
                nxt[v] = table.setdefault((repr(col[v]), tuple(nbrs)), len(table))
            new.append(nxt)
        current = new
        for o, c in zip(out, current):
            o.append(c)
    return out


def histograms(X, h, **kw):
    return [
        Counter((t, c) for t, col in enumerate(cols) for c in col.values())
        for cols in wl_colours(X, h, **kw)
    ]


def reference(X, h, combine, **kw):
    H = histograms(X, h, **kw)
    return np.array([[sum(combine(a[f], b[f]) for f in a) for b in H] for a in H], float)


def assignment_reference(X, h, **kw):
    """The optimal assignment of nodes under k(v, v') = number of iterations
    at which the labels agree (dummy nodes of similarity 0 pad the smaller
    graph), solved explicitly."""
    cols = wl_colours(X, h, **kw)
    K = np.zeros((len(X), len(X)))
    for i, (G, a) in enumerate(zip(X, cols)):
        for j, (H, b) in enumerate(zip(X, cols)):
            n = max(len(G), len(H))
            S = np.zeros((n, n))
            for p, u in enumerate(G):
                for q, w in enumerate(H):
                    S[p, q] = sum(a[t][u] == b[t][w] for t in range(h + 1))
            r, c = linear_sum_assignment(S, maximize=True)
            K[i, j] = S[r, c].sum()
    return K


def random_graph(n, p, seed, directed=False):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    for v in G:
        G.nodes[v]["label"] = "CN"[int(rng.integers(2))]
    for e in G.edges:
        G.edges[e]["bond"] = int(rng.integers(1, 4))
    return nx.relabel_nodes(G, {v: f"v{v}" for v in G})


def collection(directed=False):
    return [random_graph(n, 0.4, s, directed) for s, n in enumerate([6, 8, 1, 0, 7, 5, 8])]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(edge_label="bond"),
        dict(node_label=None),
        dict(node_label=None, edge_label="bond"),
    ],
    ids=["nodes", "nodes+edges", "unlabelled", "edges"],
)
def test_both_kernels_equal_the_definition(directed, kw):
    X = collection(directed)
    for h in (0, 1, 3):
        for cls, combine in (
            (WeisfeilerLehman, lambda a, b: a * b),
            (WeisfeilerLehmanOptimalAssignment, min),
        ):
            k = cls(h=h, **kw)
            R = reference(X, h, combine, **kw)
            np.testing.assert_array_equal(k(X), R)
            np.testing.assert_array_equal(k(X[:3], X[3:]), R[:3, 3:])
            np.testing.assert_array_equal(k.diag(X), np.diag(R))
            F = k.features(X)
            np.testing.assert_array_equal(feature_product(F), R)
            np.testing.assert_array_equal(feature_product(F[:3], k.features(X[3:])), R[:3, 3:])


def test_optimal_assignment_is_the_best_assignment():
    X = collection()
    kw = dict(edge_label="bond")
    for h in (1, 2):
        np.testing.assert_array_equal(
            WeisfeilerLehmanOptimalAssignment(h=h, **kw)(X), assignment_reference(X, h, **kw)
        )


def test_edge_labels_matter_and_constant_ones_do_not():
    # two triangles with the same atoms but different bonds
    a = nx.complete_graph(3)
    nx.set_node_attributes(a, "C", "label")
    b = a.copy()
    nx.set_edge_attributes(a, 1, "bond")
    nx.set_edge_attributes(b, 1, "bond")
    b.edges[0, 1]["bond"] = 2
    assert WeisfeilerLehman(h=1)([a], [b])[0, 0] == 9 + 9
    assert WeisfeilerLehman(h=1, edge_label="bond")([a], [b])[0, 0] == 9 + 3
    X = collection()
    for G in X:
        nx.set_edge_attributes(G, "single", "bond")
    for cls in (WeisfeilerLehman, WeisfeilerLehmanOptimalAssignment):
        np.testing.assert_array_equal(cls(h=3, edge_label="bond")(X), cls(h=3)(X))


def _grakel(X):
    from grakel import graph_from_networkx

    return list(graph_from_networkx(X, node_labels_tag="label"))


@pytest.mark.parametrize("dataset", ["MUTAG", "PTC_MR"])
def test_optimal_assignment_equals_grakel(structk_data, dataset):
    from grakel.kernels import WeisfeilerLehmanOptimalAssignment as GrakelWLOA

    from structk.datasets import load_tu

    X, _ = load_tu(structk_data(f"graphs/{dataset}"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for h in (1, 5):
            theirs = GrakelWLOA(n_iter=h).fit_transform(_grakel(X))
            k = WeisfeilerLehmanOptimalAssignment(h=h)
            np.testing.assert_array_equal(k(X), theirs)
            np.testing.assert_array_equal(k(X[:25], X[25:]), theirs[:25, 25:])


def test_mutag_bonds_refine_the_labels(structk_data):
    from structk.datasets import load_tu

    X, _ = load_tu(structk_data("graphs/MUTAG"))
    plain = WeisfeilerLehman(h=2).features(X)
    bonds = WeisfeilerLehman(h=2, edge_label="label").features(X)
    # aromatic vs single bonds split labels: more distinct labels (columns held)
    assert np.unique(bonds.indices).size > np.unique(plain.indices).size
    assert (
        WeisfeilerLehman(h=0, edge_label="label")(X).tolist() == WeisfeilerLehman(h=0)(X).tolist()
    )


def test_psd():
    labelled = graphs(max_nodes=6, node_labels="ab", edge_labels="xy")
    for k in (
        WeisfeilerLehman(h=2, edge_label="label"),
        WeisfeilerLehmanOptimalAssignment(h=3),
        WeisfeilerLehmanOptimalAssignment(h=2, edge_label="label"),
        Normalize(WeisfeilerLehmanOptimalAssignment(h=2)),
    ):
        assert_kernel_psd(k, labelled, pool_sizes=(16, 64))


def test_bad_input_and_parameters():
    g = random_graph(4, 0.9, 3)
    bad = g.copy()
    u, v = next(iter(bad.edges))
    del bad.edges[u, v]["bond"]
    for cls in (WeisfeilerLehman, WeisfeilerLehmanOptimalAssignment):
        with pytest.raises(ValueError, match=r"X\[1\]: edge .* has no attribute 'bond'"):
            cls(edge_label="bond")([g, bad])
        with pytest.raises(ValueError, match="h must be >= 0"):
            cls(h=-1)([g])
    empty = nx.Graph()
    K = WeisfeilerLehmanOptimalAssignment()([empty, g])
    assert K[0].tolist() == [0.0, 0.0] and K[1, 1] == 6 * len(g)
    assert repr(WeisfeilerLehmanOptimalAssignment(h=3)) == "WeisfeilerLehmanOptimalAssignment(h=3)"
