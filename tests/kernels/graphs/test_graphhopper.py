"""GraphHopper against its definition (pairs of equally long shortest paths,
enumerated with networkx), GraKeL on ENZYMES, the PSD kit; bad input."""

import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import strategies as st
from kernel_checks import assert_matches_reference

from structk import Normalize
from structk.kernels import GraphHopper
from structk.testing import assert_kernel_psd, graphs


def all_shortest_paths(G):
    """Every shortest path between every ordered pair of nodes (u = v: the
    path of length 0), as node lists."""
    out = []
    for u in G:
        for v in nx.node_connected_component(G, u):
            out.extend(nx.all_shortest_paths(G, u, v) if u != v else [[u]])
    return out


def reference(X, Y, node_kernel="linear", gamma=1.0):
    """The definition: sum over pairs of shortest paths of equal length of
    the node kernel summed along the two paths, position by position."""

    def kn(x, y):
        if node_kernel == "linear":
            return float(np.dot(x, y))
        return float(np.exp(-gamma * np.sum((np.asarray(x) - np.asarray(y)) ** 2)))

    PX = [(G, all_shortest_paths(G)) for G in X]
    PY = [(H, all_shortest_paths(H)) for H in Y]
    K = np.zeros((len(X), len(Y)))
    for i, (G, p) in enumerate(PX):
        for j, (H, q) in enumerate(PY):
            K[i, j] = sum(
                kn(G.nodes[a]["attributes"], H.nodes[b]["attributes"])
                for s in p
                for t in q
                if len(s) == len(t)
                for a, b in zip(s, t)
            )
    return K


def random_graph(n, p, seed, dim=2):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed)
    for v in G:
        G.nodes[v]["attributes"] = rng.normal(size=dim)
    return nx.relabel_nodes(G, {v: f"v{v}" for v in G})


def collection():
    X = [random_graph(n, 0.45, s) for s, n in enumerate([5, 7, 1, 0, 6, 4])]
    X.append(nx.cycle_graph(6))  # many shortest paths of equal length
    for v in X[-1]:
        X[-1].nodes[v]["attributes"] = np.array([v / 3.0, 1.0])
    X[1].add_edge("v0", "v0")  # self-loops are ignored
    return X


@pytest.mark.parametrize(
    "params", [dict(), dict(node_kernel="gaussian", gamma=0.7)], ids=["linear", "gaussian"]
)
def test_equals_the_definition(params):
    X = collection()
    k = GraphHopper(**params)
    R = reference(X, X, **params)
    assert_matches_reference(k, X, R, rows=np.array([6, 0, 4]), cols=slice(1, 6))
    if k.has_features:
        F = k.features(X)
        np.testing.assert_allclose(F @ F.T, R, rtol=1e-12, atol=1e-12)


def test_scalar_attributes_are_vectors_of_length_one():
    X = collection()
    scalar = [G.copy() for G in X]
    for G in scalar:
        for v in G:
            G.nodes[v]["attributes"] = float(G.nodes[v]["attributes"][0])
    first = [G.copy() for G in X]
    for G in first:
        for v in G:
            G.nodes[v]["attributes"] = G.nodes[v]["attributes"][:1]
    np.testing.assert_allclose(GraphHopper()(scalar), GraphHopper()(first), rtol=1e-14)


def _grakel(X):
    from grakel import graph_from_networkx

    return list(graph_from_networkx(X, node_labels_tag="attributes"))


def test_equals_grakel_on_enzymes(structk_data):
    from grakel.kernels import GraphHopper as GrakelGraphHopper

    from structk.datasets import load_tu

    X, _ = load_tu(structk_data("graphs/ENZYMES"))
    X = X[:6]  # GraKeL's GraphHopper takes ~1 s of CPU per graph pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kernel_type, ours in [
            ("linear", GraphHopper()),
            (("gaussian", 0.01), GraphHopper(node_kernel="gaussian", gamma=0.01)),
        ]:
            theirs = GrakelGraphHopper(kernel_type=kernel_type).fit_transform(_grakel(X))
            K = ours(X)
            scale = np.abs(theirs).max()
            assert np.abs(K - theirs).max() <= 1e-12 * scale


def with_attributes(draw_graph):
    @st.composite
    def attributed(draw):
        G = draw(draw_graph)
        for v in G:
            G.nodes[v]["attributes"] = np.array(
                draw(st.lists(st.floats(-2, 2), min_size=2, max_size=2))
            )
        return G

    return attributed()


def test_psd():
    X = with_attributes(graphs(max_nodes=6))
    for k in (
        GraphHopper(),
        GraphHopper(node_kernel="gaussian", gamma=0.5),
        Normalize(GraphHopper(node_kernel="gaussian")),
    ):
        assert_kernel_psd(k, X, pool_sizes=(32, 128))


def test_empty_graph_gives_zero():
    g = random_graph(4, 0.8, 1)
    for k in (GraphHopper(), GraphHopper(node_kernel="gaussian")):
        K = k([nx.Graph(), g])
        assert K[0].tolist() == [0.0, 0.0] and K[1, 1] > 0
        assert k([nx.Graph()], [g]).tolist() == [[0.0]]


def test_bad_input_names_graph_node_and_attribute():
    g = random_graph(4, 0.8, 2)
    cases = []
    missing = g.copy()
    del missing.nodes["v1"]["attributes"]
    cases.append((missing, ValueError, r"X\[1\]: node 'v1' has no attribute 'attributes'"))
    for value, exc, match in [
        ("x", TypeError, "real number or a 1-D vector"),
        (np.zeros((2, 2)), TypeError, "1-D vector"),
        (np.array([1.0, np.nan]), ValueError, "non-finite"),
        (np.zeros(3), ValueError, "length 3 but node 'v0' of X\\[0\\]"),
        (True, TypeError, "real number"),
    ]:
        bad = g.copy()
        bad.nodes["v1"]["attributes"] = value
        cases.append((bad, exc, match))
    for bad, exc, match in cases:
        with pytest.raises(exc, match=match):
            GraphHopper()([g, bad])
    with pytest.raises(ValueError, match="length 2 in X but 3 in Y"):
        h = random_graph(3, 1.0, 3, dim=3)
        GraphHopper()([g], [h])
    with pytest.raises(ValueError, match="undirected"):
        GraphHopper()([g.to_directed()])
    with pytest.raises(ValueError, match="node_kernel must be one of"):
        GraphHopper(node_kernel="bridge")([g])
    with pytest.raises(ValueError, match="gamma must be > 0"):
        GraphHopper(node_kernel="gaussian", gamma=0.0)([g])
