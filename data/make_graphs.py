"""Make data/graph_families/: two families of labelled graphs in TU format (seeded).

Every graph is a random tree on 12-20 nodes plus two extra random edges
(so it has rings), with node labels: exactly two N, two O, the rest C. In
family "bonded" (graph label 1) each N is bonded to an O; in family "apart"
(label -1) no N is bonded to an O. Sizes, edge counts and label frequencies
have the same distribution in both families, so only which labels are
neighbours tells them apart, as a functional group does in a molecule.
Written in the TU Dortmund text format (GRAPHFAM_A.txt,
_graph_indicator.txt, _graph_labels.txt, _node_labels.txt) so
structk.datasets.load_tu reads it.

    python data/make_graphs.py
"""

from pathlib import Path

import networkx as nx
import numpy as np

SEED = 11
N_PER_CLASS = 60
NAME = "GRAPHFAM"
LABELS = ["C", "N", "O"]


def _skeleton(rng):
    n = int(rng.integers(12, 21))
    G = nx.Graph(nx.random_labeled_tree(n, seed=int(rng.integers(2**31))))
    non_edges = [(u, v) for u in G for v in G if u < v and not G.has_edge(u, v)]
    for i in rng.choice(len(non_edges), size=2, replace=False):
        G.add_edge(*non_edges[i])
    return G


def _label(G, rng, bonded):
    while True:
        labels = {v: "C" for v in G}
        if bonded:
            edges = list(G.edges)
            i, j = rng.choice(len(edges), size=2, replace=False)
            (a, b), (c, d) = edges[i], edges[j]
            if len({a, b, c, d}) < 4:
                continue
            for n_node, o_node in ((a, b), (c, d)):
                if rng.random() < 0.5:
                    n_node, o_node = o_node, n_node
                labels[n_node], labels[o_node] = "N", "O"
        else:
            chosen = rng.choice(list(G), size=4, replace=False)
            labels.update({chosen[0]: "N", chosen[1]: "N", chosen[2]: "O", chosen[3]: "O"})
        no_edges = sum(1 for u, v in G.edges if {labels[u], labels[v]} == {"N", "O"})
        if (bonded and no_edges == 2) or (not bonded and no_edges == 0):
            nx.set_node_attributes(G, labels, "label")
            return G


def make_graph_families(n_per_class=N_PER_CLASS, seed=SEED):
    rng = np.random.default_rng(seed)
    graphs, targets = [], []
    for cls, bonded in ((1, True), (-1, False)):
        for _ in range(n_per_class):
            graphs.append(_label(_skeleton(rng), rng, bonded))
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
        f"{name}: made by data/make_graphs.py (seed {SEED}). Graph label 1 = 'bonded' "
        "(each N bonded to an O), -1 = 'apart' (no N-O bond). Node labels: " + ", ".join(f"{i} = {lab}" for lab, i in label_id.items())
        + "\n"
    )


if __name__ == "__main__":
    folder = Path(__file__).with_name("graph_families")
    graphs, targets = make_graph_families()
    write_tu(graphs, targets, folder)
    print(f"wrote {folder} ({len(graphs)} graphs)")
    split = Path(__file__).with_name("graph_families_train.txt")
    split.write_text(
        "# training graphs of graph_families/: every other one (0-based positions)\n"
        + "".join(f"{i}\n" for i in range(0, len(graphs), 2))
    )
    print(f"wrote {split}")
