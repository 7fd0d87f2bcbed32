"""Learners past the Gram matrix: structk and the peer side by side, in one run.

Part ``dna``: ``n`` random DNA sequences of 200 nt, labelled by a planted
motif (10% label noise), ``KernelSVM(Normalize(Spectrum(k=6)),
loss="squared_hinge")`` (``solver="auto"`` picks the primal), fitted, then
``n`` new sequences predicted (in chunks of 20 000). Peer: scikit-learn's
``HashingVectorizer(analyzer="char", ngram_range=(6, 6), norm="l2")`` +
``LinearSVC`` (the same model up to hash collisions, with LIBLINEAR's
penalised intercept), the test set transformed and predicted in the same
chunks.

Part ``graphs``: ``n`` molecule-sized labelled graphs (random trees of 10-30
atoms C/N/O/S with up to two ring closures; label: an N bonded to an O),
``KernelSVM(WeisfeilerLehmanOptimalAssignment(h=2), loss="squared_hinge",
solver="nystroem", n_components=m)``, fitted and then predicting ``n // 10``
new graphs; ``--graph-solver primal`` solves the same SVM exactly on the
kernel's own features (a vocabulary of the training graphs' label-rank
columns) instead. No peer runs at that size (GraKeL computes full Gram
matrices).

Every measurement runs in a fresh process (so the peak resident memory,
``ru_maxrss``, is that run's own, data included); times are medians over
``--repeat`` runs. See ``--help`` for the command lines of each size.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

EXAMPLES = """\
sizes (measured times and memory: docs/scale.md, "Learners past the Gram matrix"):
  small, under a minute each (a check that everything runs):
    python benchmarks/bench_scale_learners.py --part dna --n 10000 --repeat 1
    python benchmarks/bench_scale_learners.py --part graphs --n 2000 --m 200 --repeat 1
  n = 10^5 sequences, structk and peer, medians of 3 (the default --n):
    python benchmarks/bench_scale_learners.py --part dna --n 100000 --repeat 3
  n = 10^6 sequences (goal: fit <= 10 min, predict 10^6 <= 2 min, peak <= 8 GB;
  run it on a quiet machine; --only structk skips the peer):
    python benchmarks/bench_scale_learners.py --part dna --n 1000000 --repeat 1
    python benchmarks/bench_scale_learners.py --part dna --n 1000000 --repeat 1 --only structk
  n = 10^5 graphs, Nystroem m = 2000 (goal: fit <= 15 min, <= 8 GB):
    python benchmarks/bench_scale_learners.py --part graphs --n 100000 --m 2000 --repeat 1
  the same graphs in the primal (exact, on WL-OA's own features):
    python benchmarks/bench_scale_learners.py --part graphs --n 100000 --repeat 1 \\
        --graph-solver primal
"""

MOTIF = "GATTACA"
CHUNK = 20_000


# ------------------------------------------------------------------ data
def dna(n, seed):
    """``n`` sequences of 200 nt and labels (motif planted in class 1)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, 200), dtype=np.uint8)
    y = rng.integers(0, 2, size=n)
    at = rng.integers(0, 200 - len(MOTIF), size=n)
    motif = np.frombuffer(MOTIF.encode(), dtype=np.uint8)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)[codes]
    for i in np.flatnonzero(y):
        letters[i, at[i] : at[i] + len(MOTIF)] = motif
    X = [row.tobytes().decode() for row in letters]
    flip = rng.random(n) < 0.1
    return X, np.where(flip, 1 - y, y)


def molecules(n, seed):
    """``n`` random molecule-like graphs (networkx) and labels."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    atoms = np.array(["C", "N", "O", "S"])
    graphs, y = [], np.empty(n, dtype=int)
    for g in range(n):
        size = int(rng.integers(10, 31))
        labels = atoms[rng.choice(4, size=size, p=[0.7, 0.12, 0.12, 0.06])]
        G = nx.Graph()
        G.add_nodes_from((v, {"label": str(labels[v])}) for v in range(size))
        degree = np.zeros(size, dtype=int)
        for v in range(1, size):
            u = int(rng.integers(0, v))
            while degree[u] >= 4:
                u = int(rng.integers(0, v))
            G.add_edge(u, v)
            degree[u] += 1
            degree[v] += 1
        for _ in range(int(rng.integers(0, 3))):  # ring closures
            u, v = (int(t) for t in rng.choice(size, 2, replace=False))
            if degree[u] < 4 and degree[v] < 4 and not G.has_edge(u, v):
                G.add_edge(u, v)
                degree[u] += 1
                degree[v] += 1
        y[g] = any({labels[u], labels[v]} == {"N", "O"} for u, v in G.edges)
        graphs.append(G)
    return graphs, y


# ------------------------------------------------------------ one run each
def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_s():
    """CPU seconds of this process so far (all threads): on a busy shared
    machine the wall time overstates what the work costs."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self):
        self.t0, self.c0 = time.perf_counter(), cpu_s()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.t0, cpu_s() - self.c0


def run_dna_structk(n, seed):
    from structk.kernels import Normalize, Spectrum
    from structk.learners import KernelSVM

    def model():
        return KernelSVM(Normalize(Spectrum(k=6)), C=1.0, tol=1e-4, loss="squared_hinge")

    X, y = dna(2000, seed + 99)  # warm up: numba's cached machine code loaded
    model().fit(X, y).predict(X[:100])
    X, y = dna(n, seed)
    T, t = dna(n, seed + 1)
    data_mb = peak_mb()
    with Clock() as fit:
        svm = model().fit(X, y)
    fit_mb = peak_mb()
    with Clock() as predict:
        pred = svm.predict(T)  # decision values in chunks of 20 000 objects
    return result(fit, predict, pred, t, data_mb, fit_mb, svm.solver_)


def run_dna_peer(n, seed):
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.svm import LinearSVC

    X, y = dna(n, seed)
    T, t = dna(n, seed + 1)
    data_mb = peak_mb()
    hv = HashingVectorizer(
        analyzer="char", ngram_range=(6, 6), lowercase=False, alternate_sign=False, norm="l2"
    )
    with Clock() as fit:
        clf = LinearSVC(C=1.0, tol=1e-4).fit(hv.transform(X), y)
    fit_mb = peak_mb()
    with Clock() as predict:
        pred = np.concatenate(
            [clf.predict(hv.transform(T[a : a + CHUNK])) for a in range(0, n, CHUNK)]
        )
    return result(fit, predict, pred, t, data_mb, fit_mb, "liblinear")


def run_graphs_structk(n, seed, m, solver="nystroem"):
    from structk.kernels import WeisfeilerLehmanOptimalAssignment
    from structk.learners import KernelSVM

    def model(m):
        return KernelSVM(
            WeisfeilerLehmanOptimalAssignment(h=2),
            C=1.0,
            tol=1e-4,
            loss="squared_hinge",
            solver=solver,
            n_components=m,
            random_state=seed,
        )

    G, y = molecules(300, seed + 99)  # warm up
    model(50).fit(G, y).predict(G[:10])
    G, y = molecules(n, seed)
    T, t = molecules(max(n // 10, 1), seed + 1)
    data_mb = peak_mb()
    with Clock() as fit:
        svm = model(m).fit(G, y)
    fit_mb = peak_mb()
    with Clock() as predict:
        pred = svm.predict(T)
    return result(fit, predict, pred, t, data_mb, fit_mb, svm.solver_)


def result(fit, predict, pred, truth, data_mb, fit_mb, solver):
    return dict(
        fit=fit.wall,
        fit_cpu=fit.cpu,
        predict=predict.wall,
        predict_cpu=predict.cpu,
        accuracy=float((pred == truth).mean()),
        data_mb=data_mb,
        fit_mb=fit_mb,
        peak_mb=peak_mb(),
        solver=solver,
    )


RUNS = {
    "dna-structk": run_dna_structk,
    "dna-peer": run_dna_peer,
    "graphs-structk": run_graphs_structk,
}


# ------------------------------------------------------------------ driver
def child(args):
    kw = dict(n=args.n, seed=args.seed)
    if args.child.startswith("graphs"):
        kw["m"] = args.m
        kw["solver"] = args.graph_solver
    print(json.dumps(RUNS[args.child](**kw)))


def measure(name, args):
    runs = []
    for r in range(args.repeat):
        cmd = [
            sys.executable,
            __file__,
            "--child",
            name,
            "--n",
            str(args.n),
            "--m",
            str(args.m),
            "--seed",
            str(r),
            "--graph-solver",
            args.graph_solver,
        ]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"{name} failed:\n{out.stderr[-3000:]}")
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "solver"}
    med["solver"] = runs[0]["solver"]
    return med


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("Every measurement")[0],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--part",
        choices=["dna", "graphs"],
        default="dna",
        help="DNA sequences (structk and the peer) or graphs (default dna)",
    )
    ap.add_argument(
        "--n",
        type=int,
        default=100_000,
        help="training objects (default 100000; as many new ones predicted "
        "for dna, n // 10 for graphs)",
    )
    ap.add_argument(
        "--m", type=int, default=2000, help="landmarks of the graphs' Nystroem path (default 2000)"
    )
    ap.add_argument(
        "--graph-solver",
        choices=["nystroem", "primal"],
        default="nystroem",
        help="the graphs' solver (default nystroem)",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per side, each in a fresh process; medians (default 3)",
    )
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument(
        "--only",
        choices=["structk", "peer"],
        help="run one side only (e.g. structk at n = 10^6 on a busy machine)",
    )
    ap.add_argument("--child", choices=sorted(RUNS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    names = ["dna-peer", "dna-structk"] if args.part == "dna" else ["graphs-structk"]
    if args.only:
        names = [n for n in names if n.endswith(args.only)]
    results = {name: measure(name, args) for name in names}
    what = (
        f"{args.n} DNA sequences of 200 nt, Normalize(Spectrum(k=6)), squared hinge"
        if args.part == "dna"
        else f"{args.n} molecule graphs, WLOA(h=2), "
        f"{f'Nyström m={args.m}' if args.graph_solver == 'nystroem' else 'primal'}, "
        "squared hinge"
    )
    print(f"{what}; medians of {args.repeat} runs, each in a fresh process")
    from _timing import print_table

    rows = [
        [
            name,
            r["solver"],
            f"{r['fit']:.1f}",
            f"{r['fit_cpu']:.1f}",
            f"{r['predict']:.1f}",
            f"{r['predict_cpu']:.1f}",
            f"{r['accuracy']:.4f}",
            f"{r['data_mb']:.0f}",
            f"{r['peak_mb']:.0f}",
        ]
        for name, r in results.items()
    ]
    n_test = args.n if args.part == "dna" else max(args.n // 10, 1)
    print_table(
        rows,
        [
            "run",
            "solver",
            "fit s",
            "fit CPU s",
            f"predict {n_test} s",
            "predict CPU s",
            "test acc",
            "RSS data MB",
            "peak RSS MB",
        ],
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (2 cores)")
    if len(results) == 2:
        p, s = results["dna-peer"], results["dna-structk"]
        for what in ("fit", "fit_cpu", "predict", "predict_cpu"):
            print(f"{what}: structk / peer = {s[what] / p[what]:.2f}")


if __name__ == "__main__":
    main()
