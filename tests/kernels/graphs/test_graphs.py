"""Graph kernels against independent references.

* random walks: the explicit product graph with a dense inverse /
  ``scipy.linalg.expm`` / matrix powers (1e-10 relative), and GraKeL;
* Weisfeiler-Lehman: GraKeL's WeisfeilerLehman + VertexHistogram;
* positive semi-definiteness by hypothesis search;
* bad input.
"""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.linalg

from kernel_checks import feature_product, random_labelled_graphs

import structk
from structk import Normalize
from structk.kernels import RandomWalk, WeisfeilerLehman
from structk.kernels.graphs import _encoding
from structk.kernels.graphs import random_walk as graph_module
from structk.testing import assert_kernel_psd, graphs


# ---------------------------------------------------------------- reference
def _arcs(G, edge_label):
    out = []
    for u, v, d in G.edges(data=True):
        out.append((u, v, d.get(edge_label)))
        if not G.is_directed() and u != v:
            out.append((v, u, d.get(edge_label)))
    return out


def product_graph(G, H, node_label, edge_label):
    """The direct product graph, built explicitly from its definition."""
    vertices = [
        (u, v)
        for u in G
        for v in H
        if node_label is None or G.nodes[u][node_label] == H.nodes[v][node_label]
    ]
    index = {x: i for i, x in enumerate(vertices)}
    A = np.zeros((len(vertices), len(vertices)))
    for u, v, e in _arcs(G, edge_label):
        for x, y, f in _arcs(H, edge_label):
            if (edge_label is None or e == f) and (u, x) in index and (v, y) in index:
                A[index[u, x], index[v, y]] += 1
    return A, vertices


def reference(
    G,
    H,
    kind="geometric",
    lam=0.1,
    beta=1.0,
    weights=None,
    node_label="label",
    edge_label=None,
    start=None,
    stop=None,
):
    A, vertices = product_graph(G, H, node_label, edge_label)
    n = len(vertices)
    if n == 0:
        return 0.0

    def weights_of(rule):
        if rule is None:
            return np.ones(n)
        wg = dict(zip(G.nodes, rule(G)))
        wh = dict(zip(H.nodes, rule(H)))
        return np.array([wg[u] * wh[v] for u, v in vertices])

    if kind == "geometric":
        S = np.linalg.inv(np.eye(n) - lam * A)
    elif kind == "exponential":
        S = scipy.linalg.expm(beta * A)
    else:
        S, power = np.zeros((n, n)), np.eye(n)
        for w in weights:
            S += w * power
            power = power @ A
    return weights_of(stop) @ S @ weights_of(start)


def random_graph(n, p, seed, directed=False, labels=2, bonds=2, loops=False):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    if loops:
        for v in range(0, n, 3):
            G.add_edge(v, v)
    for v in G:
        G.nodes[v]["label"] = "CNO"[int(rng.integers(labels))]
    for e in G.edges:
        G.edges[e]["bond"] = int(rng.integers(bonds))
    return nx.relabel_nodes(G, {v: f"v{v}" for v in G})  # non-integer node ids


def collection(directed, seed=0):
    sizes = [5, 7, 6, 1, 4, 0, 6]
    return [random_graph(n, 0.45, seed + s, directed, loops=(s == 6)) for s, n in enumerate(sizes)]


def _rho_max(X):
    return max(graph_module._spectral_radii(_encoding.parse_graphs(X, "X")))


def _reference_gram(X, Y, **kw):
    return np.array([[reference(a, b, **kw) for b in Y] for a in X])


def _close(K, R, rtol=1e-10):
    scale = max(np.abs(R).max(), 1e-300)
    assert np.abs(K - R).max() <= rtol * scale, np.abs(K - R).max() / scale


# ------------------------------------------------- random walk vs reference
LABELS = [
    dict(node_label=None),
    dict(),
    dict(edge_label="bond"),
    dict(node_label=None, edge_label="bond"),
]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("labels", LABELS, ids=["unlabelled", "nodes", "nodes+edges", "edges"])
def test_random_walk_equals_explicit_product_graph(directed, labels, tuning):
    X = collection(directed)
    Y = collection(directed, seed=10)[:3]
    near_limit = 0.95 / _rho_max(X) ** 2
    cases = [
        ("geometric", dict(lam=0.05)),  # power series (fixed point / CG)
        ("geometric", dict(lam=near_limit)),  # conjugate gradient / slow fixed point
        ("exponential", dict(beta=0.7)),
        ("exponential", dict(beta=3.0)),
        ("truncated", dict(weights=[1.0, 0.5, 0.25, 0.0, 0.1])),
    ]
    ref_kw = dict(node_label=labels.get("node_label", "label"), edge_label=labels.get("edge_label"))
    for layout in (1, 2):  # explicit product arcs, and the Kronecker-vec split
        tuning.set(WALK_PRODUCT_LAYOUT=layout)
        for kind, params in cases:
            k = RandomWalk(kind=kind, **params, **labels)
            R = _reference_gram(X, X, kind=kind, **params, **ref_kw)
            _close(k(X), R)
            _close(k.diag(X), np.diag(R))
            if kind != "geometric" or params["lam"] < near_limit:
                _close(k(X, Y), _reference_gram(X, Y, kind=kind, **params, **ref_kw))


@pytest.mark.parametrize("directed", [False, True])
def test_start_and_stop_weights(directed):
    X = collection(directed)

    def start(G):
        return [1.0 + (len(str(v)) + i) % 3 for i, v in enumerate(G.nodes)]

    def uniform(G):
        return [1.0 / len(G)] * len(G)

    for kw in (dict(start=start), dict(start=start, stop="uniform"), dict(stop=start)):
        for kind, params in (("geometric", dict(lam=0.05)), ("exponential", dict(beta=0.5))):
            ref_rules = {w: (uniform if r == "uniform" else r) for w, r in kw.items()}
            R = _reference_gram(X, X, kind=kind, **params, **ref_rules)
            _close(RandomWalk(kind=kind, **params, **kw)(X), R)
    # unlabelled undirected: the spectral path
    R = _reference_gram(X, X, lam=0.05, node_label=None, start=start, stop=uniform)
    _close(RandomWalk(lam=0.05, node_label=None, start=start, stop="uniform")(X), R)


def test_larger_graphs_choose_either_layout_and_agree(tuning):
    X = [
        random_graph(n, p, s, labels=3)
        for s, (n, p) in enumerate([(30, 0.05), (25, 0.5), (40, 0.1), (20, 0.8)])
    ]
    lam = 0.5 / _rho_max(X) ** 2
    values = []
    for layout in (0, 1, 2):
        tuning.set(WALK_PRODUCT_LAYOUT=layout)
        values.append(RandomWalk(lam=lam, edge_label="bond")(X))
    _close(values[0], values[1], 1e-12)
    _close(values[0], values[2], 1e-12)
    _close(values[0], _reference_gram(X, X, lam=lam, edge_label="bond"))


@pytest.mark.parametrize("threads", [2, 3])
def test_threaded_gram_equals_one_thread_bit_for_bit(structk_data, threads, monkeypatch, tuning):
    """Chunks of pairs on threads give exactly the one-thread values (every
    value depends only on its pair), for both the product-graph and the
    spectral path, Gram, cross-Gram and diagonal."""
    import structk._threads as threads_module

    X, _ = _mutag(structk_data, 60)
    kernels = (
        RandomWalk(lam=0.01),
        RandomWalk(kind="exponential", beta=0.3),
        RandomWalk(lam=0.01, node_label=None),
    )

    def evaluate(n):
        monkeypatch.setattr(threads_module, "num_threads", lambda: n)
        return [(k(X), k(X[:20], X[20:]), k.diag(X)) for k in kernels]

    tuning.set(WALK_PARALLEL_WORK=0)  # threads even for small jobs
    one, many = evaluate(1), evaluate(threads)
    for a, b in zip(one, many):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


def test_chunks_of_pairs_give_the_one_call_values(chunk_counts, tuning):
    """Pairs cut into chunks of ``WALK_CHUNK_WORK`` (so that Ctrl-C is
    answered between them) give exactly the values of one call, on the
    product-graph and the spectral path."""
    X = random_labelled_graphs(12, 5, 3, 12, 0.4, 2)
    kernels = (
        RandomWalk(lam=0.01),
        RandomWalk(kind="exponential", beta=0.3),
        RandomWalk(lam=0.01, node_label=None),
    )

    def evaluate():
        return [(k(X), k(X[:5], X[5:]), k.diag(X)) for k in kernels]

    whole = evaluate()
    chunk_counts.clear()
    tuning.set(WALK_CHUNK_WORK=1e-9)  # every pair a chunk of its own
    cut = evaluate()
    assert chunk_counts == [78, 35, 12] * 3  # 12 * 13 / 2 pairs, 5 x 7, 12
    for a, b in zip(whole, cut):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


# ------------------------------------------------------------ vs GraKeL
def _grakel(graphs_, node_labels=True):
    from grakel import graph_from_networkx

    return list(graph_from_networkx(graphs_, node_labels_tag="label" if node_labels else None))


def _mutag(structk_data, n):
    from structk.datasets import load_tu

    graphs_, y = load_tu(structk_data("graphs/MUTAG"))
    return graphs_[:n], y[:n]


@pytest.mark.parametrize("lam", [0.01, 0.1])
def test_unlabelled_matches_grakel(structk_data, lam):
    from grakel.kernels import RandomWalk as GrakelRandomWalk

    X, _ = _mutag(structk_data, 25)
    ours = RandomWalk(lam=lam, node_label=None)(X)
    theirs = GrakelRandomWalk(lamda=lam).fit_transform(_grakel(X, node_labels=False))
    _close(ours, theirs, 1e-8)


def _mismatched_pairs(X, Y):
    labels = [[np.array([g.nodes[v]["label"] for v in g]) for g in Z] for Z in (X, Y)]
    return np.array(
        [[a.size * b.size - (a[:, None] == b[None, :]).sum() for b in labels[1]] for a in labels[0]]
    )


@pytest.mark.parametrize("lam", [0.01, 0.1])
def test_labelled_plus_mismatched_pairs_is_grakel_baseline(structk_data, lam):
    """GraKeL's start vector covers every node pair: each label-mismatched
    pair adds exactly 1 to its (exact) baseline value."""
    from grakel.kernels import RandomWalkLabeled

    X, _ = _mutag(structk_data, 8)
    ours = RandomWalk(lam=lam)(X)
    baseline = RandomWalkLabeled(lamda=lam, method_type="baseline").fit_transform(_grakel(X))
    _close(ours + _mismatched_pairs(X, X), baseline, 1e-8)
    # the mismatched pairs are a large share of GraKeL's value
    assert (_mismatched_pairs(X, X) / baseline).max() > 0.4


def test_labelled_plus_mismatched_pairs_is_grakel_baseline_random():
    from grakel.kernels import RandomWalkLabeled

    X = [g for g in collection(False) if len(g)]
    ours = RandomWalk(lam=0.05)(X)
    baseline = RandomWalkLabeled(lamda=0.05, method_type="baseline").fit_transform(_grakel(X))
    _close(ours + _mismatched_pairs(X, X), baseline, 1e-8)


def test_weisfeiler_lehman_matches_grakel(structk_data):
    from grakel.kernels import VertexHistogram
    from grakel.kernels import WeisfeilerLehman as GrakelWL

    X, _ = _mutag(structk_data, 188)
    for h in (0, 1, 5):
        theirs = (
            GrakelWL(n_iter=h, base_graph_kernel=VertexHistogram).fit_transform(_grakel(X))
            if h
            else VertexHistogram().fit_transform(_grakel(X))
        )
        np.testing.assert_array_equal(WeisfeilerLehman(h=h)(X), theirs)


def test_weisfeiler_lehman_random_graphs_and_cross():
    from grakel.kernels import VertexHistogram
    from grakel.kernels import WeisfeilerLehman as GrakelWL

    X = [random_graph(n, 0.3, s, labels=3) for s, n in enumerate([6, 9, 12, 7, 10, 3])]
    theirs = GrakelWL(n_iter=3, base_graph_kernel=VertexHistogram).fit_transform(_grakel(X))
    k = WeisfeilerLehman(h=3)
    np.testing.assert_array_equal(k(X), theirs)
    # the cross-Gram aligns labels between collections without shared state
    np.testing.assert_array_equal(k(X[:2], X[2:]), theirs[:2, 2:])
    np.testing.assert_array_equal(k.diag(X), np.diag(theirs))
    F = k.features(X)
    np.testing.assert_array_equal(feature_product(F), theirs)


def test_weisfeiler_lehman_by_hand():
    # a path a-b-a and a triangle of a's: iteration 0 counts labels, then
    # neighbourhoods {a:(b)}, {b:(a,a)} vs {a:(a,a)}
    path = nx.Graph([(0, 1), (1, 2)])
    nx.set_node_attributes(path, {0: "a", 1: "b", 2: "a"}, "label")
    tri = nx.complete_graph(3)
    nx.set_node_attributes(tri, "a", "label")
    K = WeisfeilerLehman(h=1)([path, tri])
    assert K.tolist() == [[5 + 5, 6 + 0], [6 + 0, 9 + 9]]
    # unlabelled: every node starts equal
    assert WeisfeilerLehman(h=1, node_label=None)([path])[0, 0] == 9 + 5


# ---------------------------------------------------------------- PSD
def test_random_walk_makes_no_threaded_blas_call(monkeypatch):
    """A level-1 BLAS call of more than 10^4 terms runs on OpenBLAS's threads,
    and their spinning afterwards slowed the walks on MUTAG 1.7x (the
    per-pair work estimate was an np.dot over the pairs)."""
    dot = np.dot
    calls = []

    def spy(a, b, *args, **kwargs):
        calls.append(max(np.size(a), np.size(b)))
        return dot(a, b, *args, **kwargs)

    monkeypatch.setattr(np, "dot", spy)
    G = [random_graph(8, 0.4, seed, labels=2) for seed in range(160)]  # 12,880 pairs
    K = RandomWalk(lam=0.01)(G)
    assert K.shape == (160, 160)
    assert max(calls, default=0) <= 10_000


def test_random_walks_are_psd():
    labelled = graphs(max_nodes=5, node_labels="ab", edge_labels="xy")
    for k in (
        RandomWalk(lam=0.05, edge_label="label"),
        RandomWalk(kind="exponential", beta=0.5),
        RandomWalk(kind="truncated", weights=[1, 0.5, 0.2]),
        Normalize(RandomWalk(lam=0.05)),
    ):
        assert_kernel_psd(k, labelled, pool_sizes=(16, 64))
    unlabelled = graphs(max_nodes=5)
    for k in (
        RandomWalk(lam=0.05, node_label=None),
        Normalize(RandomWalk(kind="exponential", node_label=None)),
    ):
        assert_kernel_psd(k, unlabelled, pool_sizes=(16, 64))
    assert_kernel_psd(
        RandomWalk(lam=0.05),
        graphs(max_nodes=5, node_labels="ab", directed=True),
        pool_sizes=(16, 64),
    )


def test_weisfeiler_lehman_is_psd():
    labelled = graphs(max_nodes=6, node_labels="abc")
    assert_kernel_psd(WeisfeilerLehman(h=3), labelled, pool_sizes=(16, 64))
    assert_kernel_psd(Normalize(WeisfeilerLehman(h=2)), labelled, pool_sizes=(16, 64))


# ------------------------------------------------------------ bad input
def _labelled(edges, labels, directed=False):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from((v, {"label": lab}) for v, lab in enumerate(labels))
    G.add_edges_from(edges)
    return G


def test_empty_graph_gives_zero_not_nan():
    empty = nx.Graph()
    g = _labelled([(0, 1)], "ab")
    for k in (
        RandomWalk(),
        RandomWalk(node_label=None),
        RandomWalk(kind="exponential"),
        WeisfeilerLehman(),
    ):
        K = k([empty, g])
        assert K[0].tolist() == [0.0, 0.0] and K[1, 1] > 0
        N = Normalize(k)([empty, g])
        assert N.tolist() == [[0.0, 0.0], [0.0, 1.0]]


def test_graphs_without_edges_count_matched_node_pairs():
    a = _labelled([], "aab")
    b = _labelled([], "abb")
    # only walks of length 0: one per label-matched node pair
    assert RandomWalk()([a], [b]).tolist() == [[2 + 2]]
    assert RandomWalk(kind="truncated", weights=[0.5, 1.0])([a], [b]).tolist() == [[2.0]]
    assert RandomWalk(node_label=None)([a], [b]).tolist() == [[9.0]]


def test_self_loops_are_walks_of_length_one():
    G = nx.Graph()
    G.add_edge(0, 0)
    # A = [1], A_x = [1]: sum_t lam^t = 1 / (1 - lam)
    assert RandomWalk(lam=0.5, node_label=None)([G])[0, 0] == pytest.approx(2.0, rel=1e-14)
    G.nodes[0]["label"] = 1
    assert RandomWalk(lam=0.5)([G])[0, 0] == pytest.approx(2.0, rel=1e-14)


def test_missing_label_names_graph_and_attribute():
    good = _labelled([(0, 1)], "ab")
    bad = nx.Graph([(0, 1)])
    with pytest.raises(ValueError, match=r"X\[1\]: node 0 has no attribute 'label'"):
        RandomWalk()([good, bad])
    with pytest.raises(ValueError, match=r"Y\[0\]: node 0 has no attribute 'label'"):
        WeisfeilerLehman()([good], [bad])
    with pytest.raises(ValueError, match=r"X\[0\]: edge \(0, 1\) has no attribute 'bond'"):
        RandomWalk(edge_label="bond")([good])


def test_mixed_directed_undirected_is_refused():
    g = _labelled([(0, 1)], "ab")
    d = _labelled([(0, 1)], "ab", directed=True)
    with pytest.raises(ValueError, match=r"X\[1\] is directed but X\[0\] is undirected"):
        RandomWalk()([g, d])
    with pytest.raises(ValueError, match="X holds undirected graphs but Y holds directed"):
        RandomWalk()([g], [d])
    with pytest.raises(TypeError, match=r"X\[0\] is a multigraph"):
        RandomWalk()([nx.MultiGraph([(0, 1)])])
    with pytest.raises(TypeError, match=r"X\[1\] is a list, not a networkx graph"):
        WeisfeilerLehman()([g, [1, 2]])


def test_lam_outside_convergence_region():
    K4 = nx.complete_graph(4)  # rho = 3: lam must be < 1/9
    nx.set_node_attributes(K4, 0, "label")
    with pytest.raises(ValueError, match=r"lam < 1 / \(rho\(A\) rho\(A'\)\) = 0.111111"):
        RandomWalk(lam=0.2)([K4])
    with pytest.raises(ValueError, match=r"X\[0\]"):
        RandomWalk(lam=1 / 9, node_label=None)([K4])
    # just inside the region: finite, positive and exact
    k = RandomWalk(lam=0.99 / 9, node_label=None)([K4])[0, 0]
    assert k == pytest.approx(16 / (1 - 0.99), rel=1e-12)
    # exponential and truncated kernels need no condition
    assert RandomWalk(kind="truncated", weights=[1, 1, 1])([K4])[0, 0] == 16 + 16 * 9 + 16 * 81


def test_lam_auto_is_chosen_by_fit_and_kept():
    from sklearn.exceptions import NotFittedError

    K4 = nx.complete_graph(4)
    nx.set_node_attributes(K4, 0, "label")
    k = RandomWalk(lam="auto")
    with pytest.raises(NotFittedError, match=r"Call k.fit\(graphs\) first"):
        k([K4])  # evaluation never chooses lam_ itself
    assert k.needs_fit and not hasattr(k, "lam_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        K = k.fit([K4])([K4])
        k([K4, nx.relabel_nodes(K4, {0: 9})])  # kept
    assert k.lam_ == pytest.approx(0.5 / 9)
    assert K[0, 0] == pytest.approx(16 / (1 - 0.5), rel=1e-12)
    K7 = nx.complete_graph(7)  # rho = 6: 36 lam_ = 2 > 1
    nx.set_node_attributes(K7, 0, "label")
    with pytest.raises(ValueError, match="outside the convergence region"):
        k([K7])  # the fitted lam_ is too large for denser graphs
    assert not RandomWalk(kind="truncated", lam="auto", weights=[1, 1]).needs_fit


def test_fitted_lam_auto_pickles_clones_and_is_pure_across_threads():
    import copy
    import pickle
    from concurrent.futures import ThreadPoolExecutor

    from sklearn.base import clone

    graphs = [nx.cycle_graph(5), nx.path_graph(4), nx.star_graph(3), nx.complete_graph(4)]
    for g in graphs:
        nx.set_node_attributes(g, {v: v % 2 for v in g}, "label")
    k = RandomWalk(lam="auto").fit(graphs)
    K, C = k(graphs), k(graphs[:2], graphs[2:])
    for other in (pickle.loads(pickle.dumps(k)), copy.deepcopy(k), clone(k).fit(graphs)):
        np.testing.assert_array_equal(other(graphs), K)
    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda t: k(graphs) if t % 2 else k(graphs[:2], graphs[2:]), range(8))
        )
    for t, R in enumerate(results):
        np.testing.assert_array_equal(R, K if t % 2 else C)


def test_parameter_errors():
    g = _labelled([(0, 1)], "ab")
    with pytest.raises(ValueError, match="kind must be one of"):
        RandomWalk(kind="geometrical")([g])
    with pytest.raises(ValueError, match="needs weights"):
        RandomWalk(kind="truncated")([g])
    with pytest.raises(ValueError, match=r"weights\[1\] = -0.5"):
        RandomWalk(kind="truncated", weights=[1, -0.5])([g])
    with pytest.raises(ValueError, match="lam must be > 0"):
        RandomWalk(lam=0)([g])
    with pytest.raises(ValueError, match="lam must be a positive number or 'auto'"):
        RandomWalk(lam="safe")([g])
    with pytest.raises(ValueError, match="start must be None, 'uniform' or a callable"):
        RandomWalk(start="ones")([g])
    with pytest.raises(ValueError, match="h must be >= 0"):
        WeisfeilerLehman(h=-1)([g])
    with pytest.raises(ValueError, match=r"start\(X\[0\]\) returned shape \(3,\)"):
        RandomWalk(start=lambda G: [1, 1, 1])([g])
    with pytest.raises(ValueError, match=r"stop\(X\[0\]\) returned a weight that is negative"):
        RandomWalk(stop=lambda G: [1, -1])([g])
    with pytest.raises(TypeError, match="unhashable list"):
        RandomWalk()([_labelled([], [[1]])])


def test_labels_compare_by_value_and_params_roundtrip():
    a = _labelled([(0, 1)], [1, 2])
    b = _labelled([(0, 1)], [np.int64(1), 2.0])
    k = RandomWalk(lam=0.1)
    assert k([a], [b])[0, 0] == pytest.approx(k([a])[0, 0], rel=1e-14)
    assert WeisfeilerLehman()([a], [b])[0, 0] == WeisfeilerLehman()([a])[0, 0]
    assert repr(k) == "RandomWalk(kind='geometric', lam=0.1)"  # defining + non-default
    assert (
        repr(RandomWalk(kind="exponential", beta=0.5)) == "RandomWalk(kind='exponential', beta=0.5)"
    )
    assert k.set_params(lam=0.2).get_params()["lam"] == 0.2
    assert structk.RandomWalk is RandomWalk and structk.WeisfeilerLehman is WeisfeilerLehman


# ------------------------------------------------------------ real data
@pytest.mark.slow
def test_mutag_accuracy_of_the_normalised_walk(structk_data):
    """The textbook labelled walk (lam = 0.01, normalised) classifies MUTAG
    as in docs/graphs.md (10 x 10-fold there; 3 x 10-fold here)."""
    import importlib.util
    from pathlib import Path

    from structk.datasets import load_tu

    path = Path(__file__).resolve().parents[3] / "examples" / "mutag.py"
    spec = importlib.util.spec_from_file_location("mutag_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)

    X, y = load_tu(structk_data("graphs/MUTAG"))
    K = Normalize(RandomWalk(lam=0.01))(X)
    mean, _ = example.nested_cv_accuracy(K, y, repeats=3)
    assert mean >= 0.885  # the target: structk with its own Gram and SVM, at least 88.5%


@pytest.mark.parametrize(
    "kernel",
    [
        RandomWalk(lam=0.05),
        RandomWalk(lam=0.05, node_label=None),
        RandomWalk(kind="exponential", start="uniform"),
        WeisfeilerLehman(h=2),
    ],
)
def test_take_slices_the_prepared_graphs(kernel):
    rng = np.random.default_rng(0)
    G = []
    for i in range(12):  # sizes 0..6, some empty or edgeless
        g = nx.gnp_random_graph(int(rng.integers(0, 7)), 0.4, seed=i)
        nx.set_node_attributes(g, {v: int(rng.integers(0, 3)) for v in g}, "label")
        G.append(g)
    P = kernel.prepare(G, "X")
    K = kernel(G)
    b = kernel.take(P, np.array([1, 4]))
    for index in (slice(2, 9), np.array([5, 0, 11, 3])):
        a = kernel.take(P, index)
        sel = np.arange(12)[index]
        np.testing.assert_allclose(
            kernel.gram_prepared(a), K[np.ix_(sel, sel)], rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(
            kernel.cross_prepared(a, b), K[np.ix_(sel, [1, 4])], rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(kernel.diag_prepared(a), np.diag(K)[sel], rtol=1e-12)
    np.testing.assert_allclose(structk.gram(kernel, G, block_size=5), K, rtol=1e-12, atol=1e-12)
