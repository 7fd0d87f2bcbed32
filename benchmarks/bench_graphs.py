"""Graph kernels: structk vs GraKeL, same inputs, one run, medians and ratios.

1. MUTAG (all 188 graphs), geometric random walk, lam = 0.01, unlabelled
   and node-labelled: structk vs GraKeL's fastest method (and its exact
   ``baseline`` on the first graphs), with the largest relative difference
   of the values (GraKeL's labelled kernel plus the mismatched-pair count,
   see docs/graphs.md).
2. MUTAG, Weisfeiler-Lehman subtree (h = 5) vs GraKeL WeisfeilerLehman +
   VertexHistogram.
3. Scaling with graph size: random labelled graphs of 10 .. 160 nodes
   (mean degree 3, 3 node labels), time per pair.
4. Scaling with the number of graphs: MUTAG repeated up to 4 x 188 graphs.
5. Shortest-path kernel (labelled, delta on lengths) on MUTAG and PTC_MR vs
   GraKeL ``ShortestPath(with_labels=True)``.
6. Weisfeiler-Lehman optimal assignment (h = 5) on MUTAG and PTC_MR vs
   GraKeL ``WeisfeilerLehmanOptimalAssignment(n_iter=5)``.
7. GraphHopper on the first ENZYMES graphs (18 real attributes per node),
   linear and Gaussian node kernels, vs GraKeL ``GraphHopper`` (GraKeL
   took 4.6-6.7 s for these 24 graphs, 300 pairs, and its time grows with
   the number of pairs, so only a prefix of the dataset is compared;
   structk's time for all 600 graphs is printed too).

Times are wall-clock medians (structk after a warm-up call, so numba
compilation is excluded). BLAS is limited to one thread for both libraries
(their matrices are tiny; idle OpenBLAS threads spinning after GraKeL's
calls otherwise steal the cores numba's threads run on). Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_graphs.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np


CPU = {}  # label -> (structk cpu s, GraKeL cpu s) of the last rows


def median_time(fn, repeats, cpu_key=None):
    """Median wall time (and, under ``cpu_key``, median process CPU time)."""
    times, cpus, out = [], [], None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    if cpu_key is not None:
        CPU.setdefault(cpu_key, []).append(float(np.median(cpus)))
    return float(np.median(times)), out


def rel_diff(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def grakel_input(graphs, labelled=True):
    from grakel import graph_from_networkx

    return list(graph_from_networkx(graphs, node_labels_tag="label" if labelled else None))


def mismatched_pairs(graphs):
    labels = [np.array([g.nodes[v]["label"] for v in g]) for g in graphs]
    return np.array(
        [[a.size * b.size - (a[:, None] == b[None, :]).sum() for b in labels] for a in labels],
        dtype=np.float64,
    )


def random_graphs(n_graphs, n_nodes, seed, degree=3.0, n_labels=3):
    import networkx as nx

    rng = np.random.default_rng(seed)
    out = []
    for s in range(n_graphs):
        G = nx.gnp_random_graph(n_nodes, min(1.0, degree / (n_nodes - 1)), seed=seed + s)
        nx.set_node_attributes(G, {v: int(rng.integers(n_labels)) for v in G}, "label")
        out.append(G)
    return out


def row(name, t_ours, t_peer, diff=None):
    extra = "" if diff is None else f"   max rel diff {diff:.1e}"
    cpu = CPU.pop(name, None)
    if cpu is not None and len(cpu) == 2:
        extra += (
            f"\n  {'':<44s} CPU time: structk {cpu[0]:.4f} s (all threads), "
            f"GraKeL {cpu[1]:.3f} s, ratio {cpu[1] / cpu[0]:.1f}x"
        )
    print(
        f"  {name:<44s} structk {t_ours:8.4f} s   GraKeL {t_peer:8.3f} s   "
        f"ratio {t_peer / t_ours:7.1f}x{extra}",
        flush=True,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description="graph kernels vs GraKeL")
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument(
        "--only", type=int, nargs="*", metavar="SECTION", help="run only these numbered sections"
    )
    args = parser.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("STRUCTK_DATA is not set: point it at the folder holding graphs/MUTAG")

    warnings.filterwarnings("ignore")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        run(args.quick, root, set(args.only or range(1, 100)))


def run(quick, root, only):
    import numba
    from grakel.kernels import RandomWalk as GRandomWalk
    from grakel.kernels import RandomWalkLabeled as GRandomWalkLabeled

    import structk
    from structk.datasets import load_tu

    reps, peer_reps = (1, 1) if quick else (5, 3)
    graphs, _ = load_tu(os.path.join(root, "graphs"), "MUTAG")
    if quick:
        graphs = graphs[:40]
    n_base = 12 if quick else 40
    print(
        f"numba threads {numba.get_num_threads()}, load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, "
        f"MUTAG {len(graphs)} graphs, lam = 0.01"
    )

    if 1 in only:
        print("\n1. geometric random walk on MUTAG")
    for labelled in (False, True) if 1 in only else ():
        k = structk.RandomWalk(lam=0.01, node_label="label" if labelled else None)
        k(graphs[:3])  # compile
        name = "labelled" if labelled else "unlabelled"
        name += ": GraKeL fast (CG, transposed labels)" if labelled else ": GraKeL fast (CG)"
        t_ours, K = median_time(lambda: k(graphs), reps, name)
        gin = grakel_input(graphs, labelled)
        peer = (GRandomWalkLabeled if labelled else GRandomWalk)(lamda=0.01)
        t_peer, G = median_time(lambda: peer.fit_transform(gin), peer_reps, name)
        if labelled:  # GraKeL's fast labelled mode is not exact (see docs)
            row(name, t_ours, t_peer, rel_diff(K + mismatched_pairs(graphs), G))
        else:
            row(name, t_ours, t_peer, rel_diff(K, G))
        sub = graphs[:n_base]
        t_sub, Ks = median_time(lambda: k(sub), reps)
        base = (GRandomWalkLabeled if labelled else GRandomWalk)(lamda=0.01, method_type="baseline")
        t_base, B = median_time(lambda: base.fit_transform(grakel_input(sub, labelled)), 1)
        extra = mismatched_pairs(sub) if labelled else 0.0
        row(
            f"{name.split(':')[0]}: GraKeL baseline, first {n_base} graphs",
            t_sub,
            t_base,
            rel_diff(Ks + extra, B),
        )

    if 2 in only:
        section_wl(graphs, reps, peer_reps)
    if 3 in only:
        section_size(quick, reps)
    if 4 in only:
        section_count(quick, reps, graphs)
    if 5 in only:
        section_shortest_path(quick, root, reps, peer_reps)
    if 6 in only:
        section_wloa(quick, root, reps, peer_reps)
    if 7 in only:
        section_graphhopper(quick, root, reps)


def section_wl(graphs, reps, peer_reps):
    from grakel.kernels import VertexHistogram
    from grakel.kernels import WeisfeilerLehman as GWeisfeilerLehman

    import structk

    print("\n2. Weisfeiler-Lehman subtree kernel, h = 5, MUTAG")
    wl = structk.WeisfeilerLehman(h=5)
    wl(graphs[:3])
    t_ours, K = median_time(lambda: wl(graphs), reps, "WL + VertexHistogram")
    gin = grakel_input(graphs)
    t_peer, G = median_time(
        lambda: GWeisfeilerLehman(n_iter=5, base_graph_kernel=VertexHistogram).fit_transform(gin),
        peer_reps,
        "WL + VertexHistogram",
    )
    row("WL + VertexHistogram", t_ours, t_peer, rel_diff(K, G))


def section_size(quick, reps):
    from grakel.kernels import RandomWalkLabeled as GRandomWalkLabeled

    import structk

    print(
        "\n3. scaling with graph size: labelled geometric walk, lam = 0.01,"
        " random graphs (mean degree 3, 3 labels), time per pair"
    )
    n_graphs = 6 if quick else 10
    sizes = (10, 20, 40) if quick else (10, 20, 40, 80, 160)
    for n in sizes:
        X = random_graphs(n_graphs, n, seed=n)
        k = structk.RandomWalk(lam=0.01)
        pairs = n_graphs * (n_graphs + 1) / 2
        t_ours, K = median_time(lambda: k(X), reps)
        t_peer, G = median_time(
            lambda: GRandomWalkLabeled(lamda=0.01).fit_transform(grakel_input(X)), 1
        )
        print(
            f"  n = {n:4d}: structk {1e6 * t_ours / pairs:9.1f} us/pair   GraKeL fast "
            f"{1e6 * t_peer / pairs:10.1f} us/pair   ratio {t_peer / t_ours:7.1f}x",
            flush=True,
        )


def section_count(quick, reps, graphs):
    from grakel.kernels import RandomWalkLabeled as GRandomWalkLabeled

    import structk

    print("\n4. scaling with the number of graphs (MUTAG repeated), labelled walk")
    k = structk.RandomWalk(lam=0.01)
    counts = (20, 40) if quick else (47, 94, 188, 376, 752)
    for m in counts:
        X = [graphs[i % len(graphs)] for i in range(m)]
        t_ours, _ = median_time(lambda: k(X), 1 if m > 188 else reps)
        line = f"  {m:4d} graphs ({m * (m + 1) // 2:6d} pairs): structk {t_ours:8.3f} s"
        if m <= (40 if quick else 94):
            t_peer, _ = median_time(
                lambda: GRandomWalkLabeled(lamda=0.01).fit_transform(grakel_input(X)), 1
            )
            line += f"   GraKeL fast {t_peer:8.2f} s   ratio {t_peer / t_ours:6.1f}x"
        print(line, flush=True)


def section_shortest_path(quick, root, reps, peer_reps):
    from grakel.kernels import ShortestPath as GShortestPath

    import structk

    print(
        "\n5. shortest-path kernel, labelled, delta on lengths "
        "(GraKeL ShortestPath(with_labels=True))"
    )
    compare_on_datasets(
        quick,
        root,
        reps,
        peer_reps,
        structk.ShortestPath(),
        lambda: GShortestPath(with_labels=True),
    )


def section_wloa(quick, root, reps, peer_reps):
    from grakel.kernels import WeisfeilerLehmanOptimalAssignment as GWLOA

    import structk

    print(
        "\n6. Weisfeiler-Lehman optimal assignment, h = 5 "
        "(GraKeL WeisfeilerLehmanOptimalAssignment(n_iter=5))"
    )
    compare_on_datasets(
        quick,
        root,
        reps,
        peer_reps,
        structk.WeisfeilerLehmanOptimalAssignment(h=5),
        lambda: GWLOA(n_iter=5),
    )


def section_graphhopper(quick, root, reps):
    from grakel import graph_from_networkx
    from grakel.kernels import GraphHopper as GGraphHopper

    import structk
    from structk.datasets import load_tu

    n = 8 if quick else 24
    print(f"\n7. GraphHopper on the first {n} ENZYMES graphs (GraKeL GraphHopper, one run)")
    X, _ = load_tu(os.path.join(root, "graphs"), "ENZYMES")
    for kernel_type, k in [
        ("linear", structk.GraphHopper()),
        (("gaussian", 0.01), structk.GraphHopper(node_kernel="gaussian", gamma=0.01)),
    ]:
        compare_on_datasets(
            quick,
            root,
            reps,
            1,
            k,
            lambda kt=kernel_type: GGraphHopper(kernel_type=kt),
            names=("ENZYMES",),
            first=n,
            grakel_graphs=lambda G: list(graph_from_networkx(G, node_labels_tag="attributes")),
        )
        t_all, _ = median_time(lambda k=k: k(X), 1)
        print(f"  {'':<44s} structk, all {len(X)} graphs: {t_all:.2f} s", flush=True)


def compare_on_datasets(
    quick,
    root,
    reps,
    peer_reps,
    kernel,
    make_peer,
    names=("MUTAG", "PTC_MR"),
    grakel_graphs=grakel_input,
    first=None,
):
    """One row per dataset: kernel(X) vs make_peer().fit_transform on GraKeL input."""
    from structk.datasets import load_tu

    for name in names:
        X, _ = load_tu(os.path.join(root, "graphs"), name)
        if quick or first:
            X = X[: first or 60]
        kernel(X[:3])  # compile
        label = f"{name} ({len(X)} graphs), {kernel!r}"
        t_ours, K = median_time(lambda X=X: kernel(X), reps, label)
        gin = grakel_graphs(X)
        t_peer, G = median_time(lambda gin=gin: make_peer().fit_transform(gin), peer_reps, label)
        row(label, t_ours, t_peer, rel_diff(K, G))


if __name__ == "__main__":
    main()
