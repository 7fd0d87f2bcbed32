"""Figures and figures-of-merit of docs/explain.md (structk.explain on real data).

    STRUCTK_DATA=/path/to/data python docs/figures/explain_figures.py

Writes ``explain_nfe2_logo.png``, ``explain_nfe2_hypothetical.png``,
``explain_mutag.png``, ``explain_mutag_edges.png`` and ``explain_esol.png``
beside this script and prints
the numbers the page quotes (test AUC, top features, how often the motifs
and nitro groups carry the largest contributions).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
MUTAG_ATOMS = {0: "C", 1: "N", 2: "O", 3: "F", 4: "I", 5: "Cl", 6: "Br"}
MUTAG_BONDS = {0: "ar", 1: "-", 2: "=", 3: "#"}


def data(relative):
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        raise SystemExit("these figures need STRUCTK_DATA (nfe2, MUTAG, ESOL)")
    return Path(root) / relative


def _best_window(scores, width):
    sums = np.convolve(scores, np.ones(width), mode="valid")
    return int(np.argmax(sums))


def nfe2():
    import matplotlib.pyplot as plt
    from sklearn.metrics import roc_auc_score

    from structk.explain import Explainer
    from structk.explain.plots import contribution_matrix, plot_logo
    from structk.kernels import GappyPair, Normalize
    from structk.learners import KernelSVM
    from structk.sequences import read_fasta

    d = data("sequences/nfe2")
    _, pos = read_fasta(d / "pos.train.fa")
    _, neg = read_fasta(d / "neg.train.fa")
    ids, tpos = read_fasta(d / "pos.test.fa")
    _, tneg = read_fasta(d / "neg.test.fa")
    kernel = Normalize(GappyPair(k=3, m=4, reverse_complement=True))
    model = KernelSVM(kernel=kernel, C=1.0).fit(pos + neg, [1] * len(pos) + [0] * len(neg))
    f = model.decision_function(tpos + tneg)
    print(f"nfe2: {kernel!r}, {len(model.support_)} support vectors, test ROC AUC "
          f"{roc_auc_score([1] * len(tpos) + [0] * len(tneg), f):.3f}")
    ex = Explainer(model)
    print("top features:", ", ".join(f"{n} {w:+.2f}" for n, w in ex.feature_weights(8)[:8]))
    print("bottom features:", ", ".join(f"{n} {w:+.2f}" for n, w in ex.feature_weights(8)[8:]))
    motifs = {"E-box CACGTG": re.compile("CACGTG"),
              "AP-1/NFE2 core TGA(C/G)TCA": re.compile("TGA[CG]TCA"),
              "NFE2 TGCTGA(C/G)TCA(T/C)": re.compile("TGCTGA[CG]TCA[TC]|[AG]TGA[CG]TCAGCA")}
    for name, pat in motifs.items():
        print(f"  {name}: in {np.mean([bool(pat.search(s)) for s in pos]):.1%} of training "
              f"positives, {np.mean([bool(pat.search(s)) for s in neg]):.1%} of negatives")
    E = ex.contributions(tpos)
    width = 8
    hits = {name: 0 for name in motifs}
    for s, e in zip(tpos, E):
        at = _best_window(e.scores, width)
        window = s[max(0, at - 2):at + width + 2]
        for name, pat in motifs.items():
            hits[name] += bool(pat.search(window))
    for name in motifs:
        print(f"  best {width}-nt window of a test positive holds {name}: "
              f"{hits[name]}/{len(tpos)}")
    best = int(np.argmax(f[:len(tpos)]))
    s, e = tpos[best], E[best]
    at = _best_window(e.scores, width)
    lo = max(0, at - 20)
    hi = min(len(s), lo + 50)
    fig, ax = plt.subplots(figsize=(10, 2.2))
    plot_logo(contribution_matrix(e)[lo:hi], ax=ax, start=lo,
              title=f"{ids[best]} (test positive, f = {e.decision:.2f}): contributions",
              favours=("NFE2 peak", "background"))
    fig.savefig(HERE / "explain_nfe2_logo.png", dpi=130, bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(10, 2.2))
    plot_logo(ex.hypothetical(s)[lo:hi], ax=ax, start=lo,
              title="the same window: hypothetical contributions (every base at every position)",
              favours=("NFE2 peak", "background"), ylabel="hypothetical contribution to f(x)")
    fig.savefig(HERE / "explain_nfe2_hypothetical.png", dpi=130, bbox_inches="tight")
    delta = ex.ism(s)
    p, a = np.unravel_index(np.argmin(delta), delta.shape)
    print(f"  strongest substitution in {ids[best]}: {s[p]}{p}{'ACGT'[a]} "
          f"changes f by {delta[p, a]:+.3f} (f = {e.decision:.3f})")
    plt.close("all")


def nfe2_gkm():
    """The same questions under the gapped k-mer SVM of LS-GKM's tutorial."""
    from sklearn.metrics import roc_auc_score

    from structk.explain import Explainer
    from structk.kernels import GappedKmer
    from structk.learners import KernelSVM
    from structk.sequences import read_fasta

    d = data("sequences/nfe2")
    _, pos = read_fasta(d / "pos.train.fa")
    _, neg = read_fasta(d / "neg.train.fa")
    _, tpos = read_fasta(d / "pos.test.fa")
    _, tneg = read_fasta(d / "neg.test.fa")
    kernel = GappedKmer(l=11, k=7, d=3)
    model = KernelSVM(kernel=kernel, C=1.0).fit(pos + neg, [1] * len(pos) + [0] * len(neg))
    f = model.decision_function(tpos + tneg)
    print(f"\nnfe2: {kernel!r}, {len(model.support_)} support vectors, test ROC AUC "
          f"{roc_auc_score([1] * len(tpos) + [0] * len(tneg), f):.3f}")
    ex = Explainer(model)
    top = ex.feature_weights(6)
    print("top l-mers:", ", ".join(f"{n} {w:+.3f}" for n, w in top[:6]))
    print("bottom l-mers:", ", ".join(f"{n} {w:+.3f}" for n, w in top[6:]))
    E = ex.contributions(tpos)
    width = 8
    for name, pat in (("E-box CACGTG", re.compile("CACGTG")),
                      ("AP-1/NFE2 core TGA(C/G)TCA", re.compile("TGA[CG]TCA"))):
        hits = 0
        for s, e in zip(tpos, E):
            at = _best_window(e.scores, width)
            hits += bool(pat.search(s[max(0, at - 2):at + width + 2]))
        print(f"  best {width}-nt window of a test positive holds {name}: {hits}/{len(tpos)}")


def mutag():
    import matplotlib.pyplot as plt

    from structk.datasets import load_tu
    from structk.explain import Explainer
    from structk.explain.plots import plot_graph
    from structk.kernels import Normalize, WeisfeilerLehman
    from structk.learners import KernelSVM

    G, y = load_tu(data("graphs/MUTAG"))
    for g in G:  # element symbols and bond symbols, so that feature names read as chemistry
        for v in g.nodes:
            g.nodes[v]["label"] = MUTAG_ATOMS[g.nodes[v]["label"]]
        for u, v in g.edges:
            g.edges[u, v]["label"] = MUTAG_BONDS[g.edges[u, v]["label"]]
    kernel = Normalize(WeisfeilerLehman(h=3, edge_label="label"))
    model = KernelSVM(kernel=kernel, C=1.0).fit(G, y)
    ex = Explainer(model)
    print(f"\nMUTAG: {kernel!r}, {len(model.support_)} support vectors (fitted on all 188)")
    print("top features:", "; ".join(f"{n} {w:+.2f}" for n, w in ex.feature_weights(5)))
    E = ex.contributions(G)
    nitro_scores, other_scores, top_in_nitro, with_nitro = [], [], 0, 0
    for g, e, label in zip(G, E, y):
        if label != 1:
            continue
        nitro = _nitro_atoms(g)
        if not nitro:
            continue
        with_nitro += 1
        mask = np.array([v in nitro for v in g.nodes])
        nitro_scores.extend(e.scores[mask])
        other_scores.extend(e.scores[~mask])
        top_in_nitro += bool(mask[int(np.argmax(e.scores))])
    n_mut = int((y == 1).sum())
    others = [bool(_nitro_atoms(g)) for g, label in zip(G, y) if label != 1]
    print(f"  molecules with a nitro group: {with_nitro}/{n_mut} mutagenic, "
          f"{sum(others)}/{len(others)} not mutagenic")
    print(f"  mean contribution of a nitro atom {np.mean(nitro_scores):+.4f}, of another "
          f"atom {np.mean(other_scores):+.4f} (those molecules)")
    print(f"  highest-scoring atom in the nitro group: {top_in_nitro}/{with_nitro}")
    picks = [i for i, (g, label) in enumerate(zip(G, y)) if label == 1 and _nitro_atoms(g)][:2]
    picks += [i for i, label in enumerate(y) if label != 1][:1]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, i in zip(axes, picks):
        plot_graph(G[i], E[i].scores, ax=ax,
                   title=f"MUTAG[{i}] ({'mutagenic' if y[i] == 1 else 'not'}), "
                         f"f = {E[i].decision:.2f}")
    fig.savefig(HERE / "explain_mutag.png", dpi=120, bbox_inches="tight")
    plt.close("all")
    mutag_edges(ex, G, y, picks)


def mutag_edges(ex, G, y, picks):
    """The node and edge split of the same model: which bonds carry the
    subtrees' weight (docs: 'Edges of graphs')."""
    import matplotlib.pyplot as plt

    from structk.explain.plots import plot_graph

    E = ex.contributions(G, edges=True)
    worst = max(abs(e.bias + e.scores.sum() + e.edge_scores.sum() - e.decision) for e in E)
    print(f"  node+edge split: largest |bias + nodes + edges - f| {worst:.1e}")
    by_bond = {}
    for g, e, label in zip(G, E, y):
        if label != 1:
            continue
        nitro = _nitro_atoms(g)
        for (u, v), s in zip(e.edges, e.edge_scores):
            a, b = sorted((g.nodes[u]["label"], g.nodes[v]["label"]))
            kind = "N-O (nitro)" if {u, v} <= nitro else f"{a} {g.edges[u, v]['label']} {b}"
            by_bond.setdefault(kind, []).append(s)
    print("  mean edge score by bond in the mutagenic molecules: " + "; ".join(
        f"{k} {np.mean(v):+.4f} (n={len(v)})"
        for k, v in sorted(by_bond.items(), key=lambda kv: -np.mean(kv[1])) if len(v) >= 20))
    share = np.mean([e.edge_scores.sum() / (e.decision - e.bias) for e in E])
    print(f"  edges' mean share of f - bias: {share:.2f}")
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, i in zip(axes, picks):
        plot_graph(G[i], E[i].scores, ax=ax, edge_scores=E[i].edge_scores,
                   title=f"MUTAG[{i}] nodes and bonds, f = {E[i].decision:.2f}")
    fig.savefig(HERE / "explain_mutag_edges.png", dpi=120, bbox_inches="tight")
    plt.close("all")


def _nitro_atoms(g):
    """Nodes of N atoms bonded to two O atoms (and those O atoms)."""
    out = set()
    for v in g.nodes:
        if g.nodes[v]["label"] != "N":
            continue
        oxygens = [u for u in g[v] if g.nodes[u]["label"] == "O"]
        if len(oxygens) == 2:
            out |= {v, *oxygens}
    return out


def esol():
    import csv

    from structk.datasets import from_smiles
    from structk.explain import Explainer
    from structk.explain.plots import plot_molecule
    from structk.kernels import WeisfeilerLehman
    from structk.learners import KernelRidge

    with open(data("molecules/esol/delaney-processed.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    smiles = [r["smiles"].strip() for r in rows]
    target = np.array([float(r["measured log solubility in mols per litre"]) for r in rows])
    G = from_smiles(smiles)
    model = KernelRidge(kernel=WeisfeilerLehman(h=2, edge_label="label"), alpha=1.0)
    model.fit(G, target - target.mean())
    ex = Explainer(model)
    print("\nESOL: top features:", "; ".join(f"{n} {w:+.3f}" for n, w in ex.feature_weights(4)))
    i = next(i for i, s in enumerate(smiles) if "O" in s and "c1" in s and 18 < len(s) < 30)
    e = ex.contributions([G[i]])[0]
    plot_molecule(smiles[i], e.scores, HERE / "explain_esol.png")
    print(f"  molecule {i} {smiles[i]}: prediction {e.decision + target.mean():.2f}, "
          f"measured {target[i]:.2f}")


if __name__ == "__main__":
    which = sys.argv[1:] or ["nfe2", "nfe2_gkm", "mutag", "esol"]
    for name in which:
        globals()[name]()
