"""SCOP 1.53 remote homology (54 families): the local alignment kernel by the
documented recipe, and the Fisher kernel, against the published figures.

Data: ``$STRUCTK_DATA/proteins/scop153`` (Liao & Noble 2003; the benchmark of
Saigo et al. 2004 and of the Fisher-kernel papers): 4,352 SCOP domains and
a membership table, one column per family, code 1 positive training, 2
negative training, 3 positive test, 4 negative test. For each family an SVM
is trained on codes 1/2 and scores codes 3/4; the table gives its ROC area
and ROC50 (the area up to the 50th false positive, divided by 50 times the
number of positives), and their means over the families.

Routes (``--routes``, comma-separated):

* ``la``: the recipe of docs/strings.md. The logarithm of the local
  alignment kernel, ``LocalAlignment(beta=0.5).log_kernel`` (BLOSUM62, gaps
  11/1), is computed ONCE for all 4,352 domains (and cached, ``--similarity``);
  each family then fits
  ``KernelSVM(kernel=SpectrumRepair(Precomputed(S), normalize=True))`` on its
  training split: the similarity normalised by the domains' self-scores,
  its spectrum clipped on the training domains, test domains projected
  (nothing from a test domain enters the repair).
* ``la-after``: the former recipe, ``Normalize(SpectrumRepair(...))``
  (normalised after the repair), on the same matrix, for comparison.
* ``la-naive``: ``Normalize(LocalAlignment(beta=0.5))``, the obvious call,
  computed from the same matrix as ``Normalize(Exp(0.5 * Precomputed(S)))``
  (``exp(beta s)`` is the LA kernel; ``Normalize(Exp(...))`` works in log
  space), reporting whether structk's "numerically the identity" warning
  fired on the family's training Gram (column ``warned``).
* ``fisher``: a 2-state ``DiscreteHMM`` (``init="frequencies"``, 3
  restarts, protein alphabet with X) fitted to the family's positive
  training domains, ``Normalize(FisherKernel(hmm, parts=("transition",
  "emission")))`` fitted on the training split (Jaakkola et al. 2000).

The SVM is ``KernelSVM(C=--C)`` (default 10, fixed beforehand); with
``--C cv`` each family chooses C in 0.1 .. 1000 by 3-fold cross-validation
(ROC area) on its training split, on slices of the training Gram of the
kernel fitted to the whole training split. The test sets never choose it.

Published: Saigo et al. 2004, LA-eig mean ROC 0.925, ROC50 0.649; Jaakkola
et al. 2000 (SVM-Fisher) mean ROC about 0.77.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_scop.py
    python benchmarks/bench_scop.py --routes la --families 5   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

PUBLISHED = {
    "la": ("Saigo et al. 2004, LA-eig", 0.925, 0.649),
    "la-after": ("Saigo et al. 2004, LA-eig", 0.925, 0.649),
    "la-naive": ("Saigo et al. 2004, LA-eig", 0.925, 0.649),
    "fisher": ("Jaakkola et al. 2000, SVM-Fisher", 0.77, None),
}


def load_scop(folder):
    """``(ids, sequences, families, codes)``: ``codes[i, f]`` is the code of
    domain ``i`` in family ``f`` (1-4), rows in the FASTA file's order."""
    from structk.sequences import read_fasta

    folder = Path(folder)
    ids, seqs = read_fasta(folder / "scop.1.53.1e-25.fasta")
    with open(folder / "all_seq_fam_membership.txt") as handle:
        families = handle.readline().split()[1:]
        table = {}
        for line in handle:
            parts = line.split()
            if parts:
                table[parts[0]] = [int(c) for c in parts[1:]]
    missing = [i for i in ids if i not in table]
    if missing or len(table) != len(ids):
        sys.exit(
            f"the membership table and the FASTA file disagree ({len(missing)} ids "
            "of the FASTA file are not in the table)"
        )
    codes = np.array([table[i] for i in ids], dtype=np.int8)
    if codes.shape[1] != len(families):
        sys.exit("the membership table has a row with the wrong number of columns")
    return ids, seqs, families, codes


def roc50(y, scores, n_fp=50):
    """Area under the ROC curve up to the ``n_fp``-th false positive, divided
    by ``n_fp`` times the number of positives: the mean over the first
    ``n_fp`` negatives (best-scored first) of the fraction of positives
    ranked above each. Within a block of tied scores the curve is the
    straight line through the block (the ``j``-th of ``q`` tied negatives
    has ``(j - 1/2) / q`` of the tied positives above it), so a constant
    score gets about ``n_fp / (2 * #negatives)``, not one half."""
    y = np.asarray(y, dtype=bool)
    pos = np.sort(scores[y])
    neg = np.sort(scores[~y])  # ascending
    top = neg[::-1][:n_fp]
    above = pos.size - np.searchsorted(pos, top, side="right")
    tied_pos = np.searchsorted(pos, top, side="right") - np.searchsorted(pos, top, side="left")
    # the rank of each of the top negatives within its block of ties (from the top)
    block_end = neg.size - np.searchsorted(neg, top, side="right")  # negatives above the block
    q = np.searchsorted(neg, top, side="right") - np.searchsorted(neg, top, side="left")
    j = np.arange(1, top.size + 1) - block_end
    return float((above + tied_pos * (j - 0.5) / q).sum() / (n_fp * pos.size))


def la_similarity(seqs, path):
    """The log-LA matrix of all domains (``log k / beta``), from ``path`` when
    it holds it, else computed and saved there; and its CPU seconds."""
    from structk.kernels import LocalAlignment

    meta = Path(str(path) + ".json")
    if Path(path).exists() and meta.exists():
        info = json.loads(meta.read_text())
        S = np.load(path, mmap_mode="r")
        if S.shape == (len(seqs), len(seqs)) and info.get("n") == len(seqs):
            return S, info["cpu_seconds"], info["wall_seconds"], True
    c0, t0 = time.process_time(), time.perf_counter()
    S = LocalAlignment(beta=0.5).log_kernel(seqs)
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    np.save(path, S)
    meta.write_text(
        json.dumps(
            {
                "n": len(seqs),
                "cpu_seconds": cpu,
                "wall_seconds": wall,
                "kernel": "LocalAlignment(beta=0.5).log_kernel",
            }
        )
    )
    return np.load(path, mmap_mode="r"), cpu, wall, False


def run_la(S, train, test, ytr, C, route):
    """Decision values of the route's SVM, and whether fitting it warned that
    the Gram is numerically the identity."""
    from structk.kernels import Exp, Normalize, Precomputed, SpectrumRepair

    if route == "la-after":
        kernel = Normalize(SpectrumRepair(Precomputed(S)))
    elif route == "la-naive":
        kernel = Normalize(Exp(0.5 * Precomputed(S)))  # Normalize(LocalAlignment(beta=0.5))
    else:
        kernel = SpectrumRepair(Precomputed(S), normalize=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        scores = fit_and_score(kernel, list(train), list(test), ytr, C)
    warned = [str(w.message) for w in caught if "numerically the identity" in str(w.message)]
    return scores, (warned[0] if warned else None)


C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)


def fit_and_score(kernel, train, test, ytr, C):
    """Decision values on ``test`` of ``KernelSVM(kernel, C)`` fitted on
    ``train``; ``C="cv"``: chosen by 3-fold CV (ROC area) on the training
    split, on slices of the training Gram."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from structk.learners import KernelSVM

    if C != "cv":
        return KernelSVM(kernel=kernel, C=float(C)).fit(train, ytr).decision_function(test)
    kernel = kernel.fit(train)
    K_train, K_test = kernel(train), kernel(test, train)
    search = GridSearchCV(
        KernelSVM(kernel="precomputed"),
        {"C": list(C_GRID)},
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
        scoring="roc_auc",
    )
    return search.fit(K_train, ytr).decision_function(K_test)


def run_fisher(seqs, train, test, ytr, C, seed):
    from structk import DiscreteHMM, FisherKernel
    from structk.kernels import Normalize

    Xtr = [seqs[i] for i in train]
    hmm = DiscreteHMM(
        n_states=2, alphabet="protein-extended", init="frequencies", n_restarts=3, random_state=seed
    )
    hmm.fit([x for x, y in zip(Xtr, ytr) if y == 1])
    kernel = Normalize(FisherKernel(hmm, parts=("transition", "emission")))
    return fit_and_score(kernel, Xtr, [seqs[i] for i in test], ytr, C)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", default=None, help="the scop153 folder (default $STRUCTK_DATA/proteins/scop153)"
    )
    parser.add_argument(
        "--routes",
        default="la,fisher",
        help="comma-separated: la, la-after, la-naive, fisher (default la,fisher)",
    )
    parser.add_argument(
        "--families", type=int, default=None, help="only the first N families (default all 54)"
    )
    parser.add_argument(
        "--family",
        action="append",
        default=None,
        metavar="NAME",
        help="run this family only (repeat for several; e.g. 3.1.8.3)",
    )
    parser.add_argument(
        "--C",
        default="10",
        help="the SVM's C (default 10), or 'cv': chosen per family on its training split",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the HMM restarts")
    parser.add_argument(
        "--similarity",
        default=None,
        metavar="FILE.npy",
        help="cache of the log-LA matrix (default: in the temporary folder)",
    )
    parser.add_argument(
        "--tsv",
        default=None,
        metavar="FILE",
        help="also write the per-family table as TSV (one line as each family finishes)",
    )
    args = parser.parse_args()

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import roc_auc_score

    data = args.data
    if data is None:
        if "STRUCTK_DATA" not in os.environ:
            sys.exit("set STRUCTK_DATA (the folder holding proteins/scop153) or give --data")
        data = Path(os.environ["STRUCTK_DATA"]) / "proteins" / "scop153"
    if args.C != "cv":
        try:
            if not float(args.C) > 0:
                raise ValueError
        except ValueError:
            sys.exit(f"--C must be a positive number or 'cv', got {args.C!r}")
    routes = [r.strip() for r in args.routes.split(",") if r.strip()]
    for r in routes:
        if r not in PUBLISHED:
            sys.exit(f"unknown route {r!r} (la, la-after, la-naive, fisher)")
    ids, seqs, families, codes = load_scop(data)
    chosen = list(range(len(families)))
    if args.family:
        unknown = [f for f in args.family if f not in families]
        if unknown:
            sys.exit(f"unknown family {unknown[0]!r} (the table's columns: {' '.join(families)})")
        chosen = [families.index(f) for f in args.family]
    if args.families is not None:
        chosen = chosen[: args.families]
    n_fam = len(chosen)
    print(f"SCOP 1.53: {len(seqs)} domains, {len(families)} families ({n_fam} run), SVM C={args.C}")

    S = None
    if any(r.startswith("la") for r in routes):
        path = args.similarity or os.path.join(
            tempfile.gettempdir(), "structk-scop153-la-beta0.5.npy"
        )
        S, cpu, wall, cached = la_similarity(seqs, path)
        S = np.asarray(S)
        print(
            f"log-LA similarity, {len(seqs)} x {len(seqs)}, once for all families: "
            f"{cpu:.0f} s CPU, {wall:.0f} s wall"
            + (f" (measured when {path} was written; read from it now)" if cached else "")
        )

    results = {r: [] for r in routes}
    seconds = dict.fromkeys(routes, 0.0)
    rows = []
    header = ["family", "train+", "train", "test+", "test"]
    for r in routes:
        header += [f"{r} ROC", f"{r} ROC50"] + (["warned"] if r == "la-naive" else [])
    header.append("CPU s")
    # the TSV is written family by family, so that a run stopped early still
    # leaves the families it finished
    tsv = open(args.tsv, "w") if args.tsv else None  # noqa: SIM115
    if tsv:
        tsv.write("\t".join(header) + "\n")
        tsv.flush()
    warnings.simplefilter("ignore", ConvergenceWarning)
    shown = False
    for f in chosen:
        c = codes[:, f]
        train = np.flatnonzero((c == 1) | (c == 2))
        test = np.flatnonzero((c == 3) | (c == 4))
        ytr = (c[train] == 1).astype(int)
        yte = (c[test] == 3).astype(int)
        row = [families[f], int(ytr.sum()), len(train), int(yte.sum()), len(test)]
        cpu_family = time.process_time()
        for r in routes:
            c0 = time.process_time()
            warned = None
            if r == "fisher":
                scores = run_fisher(seqs, train, test, ytr, args.C, args.seed)
            else:
                scores, warned = run_la(S, train, test, ytr, args.C, r)
            seconds[r] += time.process_time() - c0
            auc, r50 = roc_auc_score(yte, scores), roc50(yte, scores)
            results[r].append((auc, r50, bool(warned)))
            row += [auc, r50] + ([bool(warned)] if r == "la-naive" else [])
            if warned and not shown:
                print(f"the warning, on {families[f]}'s training Gram: {warned}")
                shown = True
        row.append(round(time.process_time() - cpu_family, 1))
        rows.append(row)
        if tsv:
            tsv.write("\t".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row))
            tsv.write("\n")
            tsv.flush()
        print(
            f"{f + 1:2d} {families[f]:<10} train {row[1]:3d}+/{row[2]:4d}  test "
            f"{row[3]:3d}+/{row[4]:4d}  "
            + "  ".join(
                f"{r} {a:.3f} {b:.3f}" + (" warned" if w else "")
                for r, (a, b, w) in zip(routes, (x[-1] for x in results.values()))
            ),
            flush=True,
        )

    if tsv:
        tsv.close()
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print(
            "| "
            + " | ".join(str(v) if not isinstance(v, float) else f"{v:.3f}" for v in row)
            + " |"
        )
    print()
    print(f"| route | mean ROC | mean ROC50 | CPU s ({n_fam} families) | published |")
    print("|---|---|---|---|---|")
    for r in routes:
        a = np.array(results[r])
        who, roc, r50 = PUBLISHED[r]
        pub = f"{who}: ROC {roc}" + (f", ROC50 {r50}" if r50 is not None else "")
        print(f"| {r} | {a[:, 0].mean():.3f} | {a[:, 1].mean():.3f} | {seconds[r]:.0f} | {pub} |")
    if "la-naive" in routes:
        warned = sum(w for _, _, w in results["la-naive"])
        print(f"\nla-naive: the identity warning fired on {warned} of {n_fam} training Grams")


if __name__ == "__main__":
    main()
