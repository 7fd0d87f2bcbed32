"""Make data/graph_families/: two families of labelled graphs in TU format (seeded).

Both families are random trees on 12-20 nodes with node labels C, N, O, plus
three extra edges. In family "rings" each extra edge closes a triangle
(joins two nodes at distance 2); in family "chords" it joins two nodes at
distance >= 4. Sizes and label frequencies are the same in both, so only
structure (short cycles) tells them apart. Written in the TU Dortmund text
format (GRAPHFAM_A.txt, _graph_indicator.txt, _graph_labels.txt,
_node_labels.txt) so structk.datasets.load_tu reads it.

    python data/make_graphs.py
"""

from pathlib import Path

import networkx as nx
import numpy as np

SEED = 11
N_PER_CLASS = 60
NAME = "GRAPHFAM"
LABELS = ["C", "N", "O"]
LABEL_P = [0.6, 0.25, 0.15]


def _extra_edges(T, rng, rings, count=3):
    dist = dict(nx.all_pairs_shortest_path_length(T))
    nodes = list(T.nodes)
    want = (lambda d: d == 2) if rings else (lambda d: d >= 4)
    pairs = [(u, v) for u in nodes for v in nodes if u < v and want(dist[u][v])]
    chosen = rng.choice(len(pairs), size=min(count, len(pairs)), replace=False)
    return [pairs[i] for i in chosen]


def make_graph_families(n_per_class=N_PER_CLASS, seed=SEED):
    rng = np.random.default_rng(seed)
    graphs, targets = [], []
    for cls, rings in ((1, True), (-1, False)):
        for _ in range(n_per_class):
            n = int(rng.integers(12, 21))
            T = nx.random_labeled_tree(n, seed=int(rng.integers(2**31)))
            G = nx.Graph(T)
            G.add_edges_from(_extra_edges(T, rng, rings))
            for v in G.nodes:
                G.nodes[v]["label"] = LABELS[rng.choice(3, p=LABEL_P)]
            graphs.append(G)
            targets.append(cls)
    order = rng.permutation(len(graphs))
    return [graphs[i] for i in order], [targets[i] for i in order]


def write_tu(graphs, targets, folder, name=NAME):
    folder.mkdir(parents=True, exist_ok=True)
    label_id = {lab: i for i, lab in enumerate(LABELS)}
    A, indicator, node_labels = [], [], []
    offset = 0
    for gi, G in enumerate(graphs, start=1):
        index = {v: offset + k + 1 for k, v in enumerate(sorted(G.nodes))}
        for v in sorted(G.nodes):
            indicator.append(gi)
            node_labels.append(label_id[G.nodes[v]["label"]])
        for u, v in sorted(G.edges):
            A.append((index[u], index[v]))
            A.append((index[v], index[u]))
        offset += G.number_of_nodes()
    (folder / f"{name}_A.txt").write_text("".join(f"{a}, {b}\n" for a, b in A))
    (folder / f"{name}_graph_indicator.txt").write_text("".join(f"{g}\n" for g in indicator))
    (folder / f"{name}_graph_labels.txt").write_text("".join(f"{t}\n" for t in targets))
    (folder / f"{name}_node_labels.txt").write_text("".join(f"{x}\n" for x in node_labels))
    (folder / "README.txt").write_text(
        f"{name}: made by data/make_graphs.py (seed {SEED}). Graph label 1 = 'rings' "
        "(extra edges close triangles), -1 = 'chords' (extra edges join nodes at "
        "distance >= 4). Node labels: " + ", ".join(f"{i} = {lab}" for lab, i in label_id.items())
        + "\n"
    )


if __name__ == "__main__":
    folder = Path(__file__).with_name("graph_families")
    graphs, targets = make_graph_families()
    write_tu(graphs, targets, folder)
    print(f"wrote {folder} ({len(graphs)} graphs)")
