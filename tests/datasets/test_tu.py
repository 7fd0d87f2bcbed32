"""TU Dortmund reader: published statistics of the real datasets, and the
format details on small files written here."""

import numpy as np
import pytest

from structk.datasets import load_tu


def test_mutag_matches_published_statistics(structk_data):
    graphs, y = load_tu(structk_data("graphs/MUTAG"))
    assert len(graphs) == 188
    assert (y == 1).sum() == 125 and (y == -1).sum() == 63
    assert np.mean([g.number_of_nodes() for g in graphs]) == pytest.approx(17.93, abs=0.01)
    assert np.mean([g.number_of_edges() for g in graphs]) == pytest.approx(19.79, abs=0.01)
    assert not graphs[0].is_directed()
    labels = {d["label"] for g in graphs for _, d in g.nodes(data=True)}
    bonds = {d["label"] for g in graphs for _, _, d in g.edges(data=True)}
    assert len(labels) == 7 and len(bonds) == 4


def test_ptc_mr_and_enzymes_counts(structk_data):
    graphs, y = load_tu(structk_data("graphs"), "PTC_MR")
    assert len(graphs) == 344
    assert (y == 1).sum() == 152 and (y == -1).sum() == 192
    graphs, y = load_tu(structk_data("graphs"), "ENZYMES")
    assert len(graphs) == 600 and np.bincount(y)[1:].tolist() == [100] * 6
    attrs = graphs[0].nodes[0]["attributes"]
    assert attrs.shape == (18,) and attrs[0] == 11.0


def _write(tmp_path, name="TOY", **files):
    folder = tmp_path / name
    folder.mkdir()
    for suffix, text in files.items():
        (folder / f"{name}_{suffix}.txt").write_text(text)
    return folder


def test_small_dataset_every_field(tmp_path):
    # graph 1: path 1-2-3 plus isolated node 4; graph 2: edge 5-6 and self-loop on 6
    folder = _write(
        tmp_path,
        A="1, 2\n2, 1\n2, 3\n3, 2\n5, 6\n6, 5\n6, 6\n",
        graph_indicator="1\n1\n1\n1\n2\n2\n",
        graph_labels="0\n1\n",
        node_labels="7\n8\n7\n9\n8\n8\n",
        edge_labels="1\n1\n2\n2\n3\n3\n4\n",
        node_attributes="0.5, 1\n1, 2\n2, 3\n3, 4\n4, 5\n5, 6\n",
    )
    graphs, y = load_tu(folder)  # name inferred from TOY_A.txt
    assert y.tolist() == [0, 1]
    g1, g2 = graphs
    assert sorted(g1.nodes) == [0, 1, 2, 3] and sorted(g2.nodes) == [0, 1]
    assert [g1.nodes[v]["label"] for v in range(4)] == [7, 8, 7, 9]
    assert sorted(g1.edges) == [(0, 1), (1, 2)]
    assert g1.edges[1, 2]["label"] == 2
    assert g2.has_edge(1, 1) and g2.edges[1, 1]["label"] == 4
    assert g1.nodes[0]["attributes"].tolist() == [0.5, 1.0]
    d1, _ = load_tu(tmp_path, "TOY", directed=True)
    assert d1[0].is_directed() and d1[0].number_of_edges() == 4


def test_regression_targets_and_errors(tmp_path):
    folder = _write(tmp_path, A="1, 2\n", graph_indicator="1\n1\n", graph_attributes="0.25\n")
    graphs, y = load_tu(folder)
    assert y.dtype == np.float64 and y.tolist() == [0.25]

    bad = _write(tmp_path, "BAD", A="1, 3\n", graph_indicator="1\n1\n", graph_labels="1\n")
    with pytest.raises(ValueError, match=r"BAD_A.txt line 1: node id \[1, 3\] outside 1..2"):
        load_tu(bad)
    cross = _write(tmp_path, "CROSS", A="1, 2\n", graph_indicator="1\n2\n", graph_labels="1\n1\n")
    with pytest.raises(ValueError, match="joins nodes of different graphs"):
        load_tu(cross)
    short = _write(
        tmp_path,
        "SHORT",
        A="1, 2\n",
        graph_indicator="1\n1\n",
        graph_labels="1\n",
        node_labels="3\n",
    )
    with pytest.raises(ValueError, match="SHORT_node_labels.txt has 1 lines, expected 2"):
        load_tu(short)
    clash = _write(
        tmp_path,
        "CLASH",
        A="1, 2\n2, 1\n",
        graph_indicator="1\n1\n",
        graph_labels="1\n",
        edge_labels="0\n1\n",
    )
    with pytest.raises(ValueError, match="line 2: undirected edge"):
        load_tu(clash)
    with pytest.raises(FileNotFoundError, match="no TU dataset 'NOPE'"):
        load_tu(tmp_path, "NOPE")
    with pytest.raises(FileNotFoundError, match="cannot infer the dataset name"):
        load_tu(tmp_path)


def test_an_undirected_edge_listed_with_two_labels_is_refused(tmp_path):
    folder = _write(
        tmp_path,
        "TWO",
        A="1, 2\n2, 3\n2, 1\n",
        graph_indicator="1\n1\n1\n",
        graph_labels="1\n",
        edge_labels="4\n5\n6\n",
    )
    with pytest.raises(
        ValueError,
        match=r"TWO_edge_labels.txt line 3: undirected edge "
        r"\(2, 1\) has label 6 but its other direction has 4",
    ):
        load_tu(folder)


def test_graphs_equal_an_edge_by_edge_build(tmp_path):
    """The bulk build gives the graphs of the format's definition: nodes in
    file order, each edge once with its first line's attributes, and the
    same adjacency order as adding the lines one at a time."""
    import networkx as nx

    rng = np.random.default_rng(3)
    sizes = [4, 1, 6, 3]
    graph_of = np.repeat(np.arange(len(sizes)), sizes)
    lines = []
    for g, n in enumerate(sizes):
        first = int(np.flatnonzero(graph_of == g)[0])
        for _ in range(2 * n):
            u, v = (int(x) for x in rng.integers(first, first + n, size=2))
            lines += [(u, v), (v, u)]
    attrs = rng.normal(size=(len(lines), 2)).round(3)
    folder = _write(
        tmp_path,
        "BULK",
        A="".join(f"{u + 1}, {v + 1}\n" for u, v in lines),
        graph_indicator="".join(f"{g + 1}\n" for g in graph_of),
        graph_labels="".join("1\n" for _ in sizes),
        node_labels="".join(f"{int(x)}\n" for x in rng.integers(0, 3, graph_of.size)),
        edge_attributes="".join(f"{a}, {b}\n" for a, b in attrs),
    )
    graphs, _ = load_tu(folder)
    node_labels = [int(x) for x in (folder / "BULK_node_labels.txt").read_text().split()]
    for g, G in enumerate(graphs):
        first = int(np.flatnonzero(graph_of == g)[0])
        R = nx.Graph()
        for i in np.flatnonzero(graph_of == g):
            R.add_node(int(i) - first, label=node_labels[i])
        for line, (u, v) in enumerate(lines):
            if graph_of[u] == g and not R.has_edge(u - first, v - first):
                R.add_edge(u - first, v - first, attributes=attrs[line])
        assert list(G.nodes(data=True)) == list(R.nodes(data=True))
        assert [list(G.adj[v]) for v in G] == [list(R.adj[v]) for v in R]
        for u, v, d in R.edges(data=True):
            assert G.edges[u, v]["attributes"].tolist() == d["attributes"].tolist()
