"""ShortestPath against GraKeL (MUTAG, PTC_MR) and a brute-force reference
built from networkx's shortest-path lengths; PSD; bad input."""

import warnings

import networkx as nx
import numpy as np
import pytest
from kernel_checks import assert_matches_reference, random_labelled_graphs

from structk import Normalize
from structk.kernels import ShortestPath
from structk.testing import assert_kernel_psd, graphs


def _paths(G, node_label, weight):
    lengths = dict(nx.shortest_path_length(G, weight=weight))
    label = (lambda v: G.nodes[v][node_label]) if node_label else (lambda v: 0)
    return [(label(u), label(v), d) for u in lengths for v, d in lengths[u].items() if u != v]


def _length_kernel(kind, c):
    if kind == "delta":
        return lambda a, b: float(a == b)
    if kind == "brownian":
        return lambda a, b: max(0.0, c - abs(a - b))
    return lambda a, b: float(np.exp(-0.5 * ((a - b) / c) ** 2))


def reference(X, Y, node_label="label", length_kernel="delta", length_scale=2.0, edge_weight=None):
    """The definition: sum over all pairs of paths of the product of the
    endpoint-label deltas and the length kernel."""
    kl = _length_kernel(length_kernel, length_scale)
    PX = [_paths(G, node_label, edge_weight) for G in X]
    PY = [_paths(G, node_label, edge_weight) for G in Y]
    return np.array(
        [
            [sum(kl(d, e) for a, b, d in p for x, y, e in q if a == x and b == y) for q in PY]
            for p in PX
        ]
    )


def random_graph(n, p, seed, directed=False):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    for v in G:
        G.nodes[v]["label"] = "CNO"[int(rng.integers(3))]
    for e in G.edges:
        G.edges[e]["w"] = int(rng.integers(1, 4))
    return nx.relabel_nodes(G, {v: f"v{v}" for v in G})


def collection(directed=False):
    return [random_graph(n, 0.35, s, directed) for s, n in enumerate([5, 8, 1, 0, 7, 6, 9])]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize(
    "params",
    [
        dict(),
        dict(node_label=None),
        dict(length_kernel="brownian", length_scale=2.5),
        dict(length_kernel="gaussian", length_scale=0.7),
        dict(edge_weight="w"),
        dict(edge_weight="w", length_kernel="brownian"),
    ],
    ids=["delta", "unlabelled", "brownian", "gaussian", "weighted", "weighted-brownian"],
)
def test_equals_the_definition(directed, params):
    X = collection(directed)
    k = ShortestPath(**params)
    R = reference(X, X, **params)
    assert_matches_reference(k, X, R, rows=np.array([4, 0, 6]), cols=slice(2, 5))
    if k.has_features:
        F = k.features(X)
        np.testing.assert_array_equal((F @ F.T).toarray(), R)


def test_path_counts_with_a_growing_table_equal_the_path_list():
    # hop_path_counts counts each graph's paths in a hash table that starts
    # at 1024 slots and its output in arrays that start at 1024 entries: a
    # 60-node path with 60 distinct labels has 3540 distinct (label pair,
    # length) keys and forces both to grow, between smaller graphs
    from structk.algorithms.shortest_paths._numba import (
        hop_distances,
        hop_path_counts,
        path_keys,
        path_list,
        segment_counts,
    )
    from structk.kernels.graphs._encoding import parse_graphs

    big = nx.path_graph(60)
    nx.set_node_attributes(big, {v: v for v in big}, "label")
    X = collection() + [big] + collection(directed=False)[:2]
    P = parse_graphs(X, "X", "label")
    D, dptr = hop_distances(P.node_ptr, P.adj_ptr, P.adj_idx)
    ptr, _, _, labels, lengths = path_list(D, dptr, P.node_ptr, P.node_keys)
    expected = segment_counts(ptr, path_keys(labels, lengths))
    got = hop_path_counts(P.node_ptr, P.adj_ptr, P.adj_idx, P.node_keys)
    assert np.diff(got[0])[len(collection())] == 60 * 59
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    R = reference(X, X)
    np.testing.assert_array_equal(ShortestPath()(X), R)


def test_by_hand():
    # path a-b-a: paths (a,b,1) x2, (b,a,1) x2, (a,a,2) x2
    path = nx.Graph([(0, 1), (1, 2)])
    nx.set_node_attributes(path, {0: "a", 1: "b", 2: "a"}, "label")
    tri = nx.complete_graph(3)
    nx.set_node_attributes(tri, "a", "label")  # (a,a,1) x6
    K = ShortestPath()([path, tri])
    assert K.tolist() == [[4 + 4 + 4, 0], [0, 36]]
    assert ShortestPath(node_label=None)([path, tri]).tolist() == [[16 + 4, 24], [24, 36]]


def _grakel_sp(X):
    from grakel import graph_from_networkx
    from grakel.kernels import ShortestPath as GrakelShortestPath

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gin = list(graph_from_networkx(X, node_labels_tag="label"))
        return GrakelShortestPath(with_labels=True).fit_transform(gin)


@pytest.mark.parametrize("dataset", ["MUTAG", "PTC_MR"])
def test_equals_grakel(structk_data, dataset):
    from structk.datasets import load_tu

    X, _ = load_tu(structk_data(f"graphs/{dataset}"))
    theirs = _grakel_sp(X)
    k = ShortestPath()
    np.testing.assert_array_equal(k(X), theirs)
    np.testing.assert_array_equal(k(X[:20], X[20:]), theirs[:20, 20:])
    np.testing.assert_array_equal(k.diag(X), np.diag(theirs))


def test_psd():
    labelled = graphs(max_nodes=6, node_labels="ab")
    for k in (
        ShortestPath(),
        ShortestPath(length_kernel="brownian", length_scale=3.0),
        ShortestPath(length_kernel="gaussian", length_scale=0.5),
        Normalize(ShortestPath()),
    ):
        assert_kernel_psd(k, labelled, pool_sizes=(16, 64))
    assert_kernel_psd(
        ShortestPath(node_label=None), graphs(max_nodes=6, directed=True), pool_sizes=(16, 64)
    )


def test_empty_and_edgeless_graphs_give_zero():
    g = random_graph(5, 0.6, 1)
    lonely = nx.Graph()
    lonely.add_node(0, label="C")
    for k in (ShortestPath(), ShortestPath(length_kernel="gaussian")):
        K = k([nx.Graph(), lonely, g])
        assert K[:2].tolist() == [[0.0] * 3] * 2 and K[2, 2] > 0
        assert Normalize(k)([nx.Graph(), g]).tolist() == [[0.0, 0.0], [0.0, 1.0]]


def test_bad_input_names_graph_node_edge_and_attribute():
    g = random_graph(4, 0.9, 2)
    bad = g.copy()
    del bad.nodes["v2"]["label"]
    with pytest.raises(ValueError, match=r"X\[1\]: node 'v2' has no attribute 'label'"):
        ShortestPath()([g, bad])
    for value, match in [
        (0, "positive finite"),
        (-1.0, "positive finite"),
        (float("inf"), "positive finite"),
        ("x", "positive finite"),
        (True, "positive finite"),
    ]:
        w = g.copy()
        u, v = next(iter(w.edges))
        w.edges[u, v]["w"] = value
        with pytest.raises(ValueError, match=rf"Y\[0\]: edge .* has w=.*{match}"):
            ShortestPath(edge_weight="w")([g], [w])
    with pytest.raises(ValueError, match="has no attribute 'weight'"):
        ShortestPath(edge_weight="weight")([g])
    with pytest.raises(ValueError, match="directed"):
        ShortestPath()([g], [g.to_directed()])


def test_parameters():
    with pytest.raises(ValueError, match="length_kernel must be one of"):
        ShortestPath(length_kernel="triangle")([random_graph(3, 1.0, 0)])
    with pytest.raises(ValueError, match="length_scale must be > 0"):
        ShortestPath(length_kernel="gaussian", length_scale=0)([random_graph(3, 1.0, 0)])
    k = ShortestPath(length_kernel="gaussian")
    assert not k.has_features
    with pytest.raises(TypeError, match="no explicit feature map"):
        k.features([random_graph(3, 1.0, 0)])
    assert repr(ShortestPath()) == "ShortestPath()"
    assert k.set_params(length_kernel="delta").has_features


def test_path_counts_of_groups_of_graphs_equal_one_call(tuning, monkeypatch):
    """Graphs' shortest paths counted in calls of ``SP_CHUNK_WORK`` (a
    Ctrl-C is answered between them) give exactly the one-call features."""
    from structk.algorithms.shortest_paths import _numba

    X = random_labelled_graphs(9, 8, 1, 14, 0.3, 3)
    kern = ShortestPath()
    whole = kern(X), kern(X[:4], X[4:]), kern.diag(X)
    calls = []
    real = _numba.hop_path_counts
    monkeypatch.setattr(
        _numba,
        "hop_path_counts",
        lambda node_ptr, *args: (calls.append(len(node_ptr) - 1), real(node_ptr, *args))[1],
    )
    tuning.set(SP_CHUNK_WORK=1e-9)  # every graph a call of its own
    cut = kern(X), kern(X[:4], X[4:]), kern.diag(X)
    assert calls == [1] * 27
    for a, b in zip(whole, cut):
        np.testing.assert_array_equal(a, b)
