"""``save_tu`` writes graphs as a TU folder that ``load_tu`` reads back
unchanged (a subset of a dataset becomes a dataset of its own)."""

import networkx as nx
import numpy as np
import pytest

from structk.datasets import bundled_path, load_tu, save_tu, tu_label_names
from structk.kernels import WeisfeilerLehman


def _same(a, b):
    """Graphs equal node for node and edge for edge, in order, with attributes."""
    assert len(a) == len(b)
    for G, H in zip(a, b):
        assert type(G) is type(H)
        assert list(G.nodes) == list(H.nodes)
        for (u, du), (v, dv) in zip(G.nodes(data=True), H.nodes(data=True)):
            assert u == v and du.keys() == dv.keys()
            for key in du:
                np.testing.assert_array_equal(du[key], dv[key])
        assert list(G.edges) == list(H.edges)
        for (*_, de), (*_, dh) in zip(G.edges(data=True), H.edges(data=True)):
            assert de.keys() == dh.keys()
            for key in de:
                np.testing.assert_array_equal(de[key], dh[key])


def test_a_subset_of_a_tu_dataset_round_trips(tmp_path):
    graphs, y = load_tu(bundled_path("graph_families"))
    keep = np.arange(0, len(graphs), 3)
    subset = [graphs[i] for i in keep]
    out = save_tu(tmp_path / "SUB", subset, y[keep])
    again, y2 = load_tu(out)
    _same(again, subset)
    np.testing.assert_array_equal(y2, y[keep])
    assert y2.dtype.kind == "i"
    np.testing.assert_array_equal(WeisfeilerLehman(h=2)(again), WeisfeilerLehman(h=2)(subset))
    assert sorted(p.name for p in out.iterdir()) == [
        "SUB_A.txt",
        "SUB_graph_indicator.txt",
        "SUB_graph_labels.txt",
        "SUB_node_labels.txt",
    ]


def test_mutag_keeps_edge_labels_and_atom_names(tmp_path):
    import os

    data = os.environ.get("STRUCTK_DATA")
    if not data or not os.path.isdir(os.path.join(data, "graphs", "MUTAG")):
        pytest.skip("needs $STRUCTK_DATA/graphs/MUTAG")
    source = os.path.join(data, "graphs", "MUTAG")
    graphs, y = load_tu(source)
    names = tu_label_names(source)
    out = save_tu(tmp_path / "MUTAG_test", graphs[150:], y[150:], label_names=names)
    again, y2 = load_tu(out)
    _same(again, graphs[150:])
    np.testing.assert_array_equal(y2, y[150:])
    assert tu_label_names(out) == names


def test_attributes_string_labels_regression_targets_and_directed_graphs(tmp_path):
    rng = np.random.default_rng(0)
    graphs = []
    for n in (3, 5, 4):
        G = nx.path_graph(n)
        G.add_edge(0, n - 1)
        for v in G:
            G.nodes[v]["label"] = "CNO"[v % 3]
            G.nodes[v]["attributes"] = rng.normal(size=2)
        for e in G.edges:
            G.edges[e]["label"] = ["single", "double"][sum(e) % 2]
            G.edges[e]["attributes"] = rng.normal(size=1)
        graphs.append(G)
    y = np.array([0.25, -1.5, 3.0])
    out = save_tu(tmp_path / "mols", graphs, y, name="MOLS")
    again, y2 = load_tu(out)
    np.testing.assert_array_equal(y2, y)
    node_names, edge_names = tu_label_names(out)
    assert node_names == {0: "C", 1: "N", 2: "O"}
    assert edge_names == {0: "double", 1: "single"}  # numbered in order of first appearance
    # the codes mean the names; everything else is as written
    for G in again:
        for v in G:
            G.nodes[v]["label"] = node_names[G.nodes[v]["label"]]
        for e in G.edges:
            G.edges[e]["label"] = edge_names[G.edges[e]["label"]]
    _same(again, graphs)
    # directed graphs: one line per arc
    arcs = [nx.DiGraph([(0, 1), (1, 2), (2, 0)]), nx.DiGraph([(1, 0)])]
    back, none = load_tu(save_tu(tmp_path / "arcs", arcs), directed=True, require_targets=False)
    assert none is None and [list(G.edges) for G in back] == [[(0, 1), (1, 2), (2, 0)], [(0, 1)]]


def _labelled(n, label=0):
    G = nx.path_graph(n)
    nx.set_node_attributes(G, label, "label")
    return G


@pytest.mark.parametrize(
    "make, error, words",
    [
        (
            lambda: ([_labelled(3), nx.path_graph(2)], None),
            ValueError,
            ["graphs[1] node 0", "no 'label'"],
        ),
        (
            lambda: ([_labelled(3), _labelled(2, "C")], None),
            ValueError,
            ["graphs[1] node 0", "'C'", "all integers or all strings"],
        ),
        (lambda: ([_labelled(2, 1.5)], None), ValueError, ["graphs[0] node 0", "1.5"]),
        (lambda: ([_labelled(3)], [0, 1]), ValueError, ["one target per graph (1)"]),
        (lambda: ([_labelled(3)], ["a"]), ValueError, ["integers"]),
        (
            lambda: ([nx.path_graph(2), nx.DiGraph([(0, 1)])], None),
            ValueError,
            ["graphs[1] is directed"],
        ),
        (lambda: ([], None), ValueError, ["at least one graph"]),
    ],
)
def test_what_the_files_cannot_hold_is_refused_by_name(make, error, words, tmp_path):
    graphs, y = make()
    with pytest.raises(error) as info:
        save_tu(tmp_path / "out", graphs, y)
    for word in words:
        assert word in str(info.value)
    assert not (tmp_path / "out").exists()


def test_a_folder_holding_a_dataset_is_not_overwritten(tmp_path):
    save_tu(tmp_path / "DS", [nx.path_graph(2)], [1])
    with pytest.raises(FileExistsError, match="already holds a TU dataset"):
        save_tu(tmp_path / "DS", [nx.path_graph(3)], [0])
    assert load_tu(tmp_path / "DS")[1].tolist() == [1]


def test_node_attributes_of_different_lengths_are_refused(tmp_path):
    G = nx.path_graph(2)
    G.nodes[0]["attributes"] = np.zeros(2)
    G.nodes[1]["attributes"] = np.zeros(3)
    with pytest.raises(ValueError, match=r"graphs\[0\] node 1 has attributes of shape \(3,\)"):
        save_tu(tmp_path / "x", [G])
