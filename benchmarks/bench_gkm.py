"""Gapped k-mer SVM training and scoring: structk against LS-GKM and gkmsvm-lite, end to end.

LS-GKM (``gkmtrain -T 1``, ``gkmpredict -T 1``) is built from its C source
(``--lsgkm-src``, default ``../shared/peers/lsgkm/src`` beside the
repository) in a temporary folder by ``make``; the race is skipped, saying
why, when the source is missing or the build fails. Its defaults are the
kernel below (``-t 2``, l = 11, k = 7, d = 3, both strands, C = 1).
``--lsgkm`` races ``structk fit`` against ``gkmtrain`` on the nfe2 windows,
then ``structk predict`` against ``gkmpredict`` (each with its own model)
on the test windows and on ``--predict-sizes`` background sequences of 200
nt; ``--lsgkm-settings L K D LENGTH N`` adds a race at another (l, k, d)
on N background sequences of LENGTH nt. Every race prints each tool's
median wall and CPU seconds (user + system of the whole process, all
threads) and the ratios peer / structk, with the load average.

Both tools train the same model (estimated l-mer kernel with truncated
filter, LS-GKM's ``-t 2``, l = 11, k = 7, d = 3, reverse complements,
C = 1) from a positive and a negative FASTA file, each as a user runs it:
one process from start to the model file written (``structk fit
--positive --negative`` against ``gkmsvm train -p -n``), timed as wall
clock, median of ``--repeats`` runs. Accuracy: each tool's model scores the
test FASTA pair (``structk predict``, ``gkmsvm predict``), ROC AUC.

gkmsvm-lite one-hot encodes its input and refuses sequences of unequal
length, so both tools get the same windows: the central ``--width`` bases
(default 200) of every sequence at least that long (nfe2: 1,166 of the
1,288 training and 120 of the 138 test sequences; the others, 59 to 199
nt, are left out).

``--structk-only N`` times structk alone on such a set (the peer would
take hours). ``--background N`` also times training on N sequences of 300 nt sampled
from a background model, a third-order Markov chain of the nfe2 negative
training sequences (transition counts + 1), half labelled positive.

5-fold cross-validation (``--cv``) runs on the training windows: each
tool's Gram matrix, each fold's SVM by scikit-learn's SVC on the
precomputed fold matrices (the same solver for both kernels).

``--win-map N`` times the Gram of N training windows in one process by the
all-pairs, the counting and the table form (the last only where its table
fits ``GKM_TABLE_MAX_BYTES``) at (l, k, d) = (8, 4, 2), (10, 6, 3),
(11, 7, 3), (12, 8, 4), and names the form the size rule picks.

    STRUCTK_DATA=/path/to/data python benchmarks/bench_gkm.py --repeats 3 --cv
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

KERNEL = "GappedKmer(l=11, k=7, d=3, kind='truncated', reverse_complement=True)"


def windows(path, width):
    from structk.sequences import read_fasta

    ids, seqs = read_fasta(path)
    keep = [(i, s) for i, s in zip(ids, seqs) if len(s) >= width]
    return [i for i, _ in keep], [s[(len(s) - width) // 2 :][:width] for _, s in keep]


def write(path, ids, seqs):
    from structk.sequences import write_fasta

    write_fasta(path, seqs, ids)


def background(n, length, seed, source):
    """Sequences from a 3rd-order Markov chain fitted on ``source``."""
    rng = np.random.default_rng(seed)
    code = {c: i for i, c in enumerate("ACGT")}
    counts = np.ones((64, 4))
    for s in source:
        x = [code[c] for c in s.upper() if c in code]
        for p in range(3, len(x)):
            counts[x[p - 3] * 16 + x[p - 2] * 4 + x[p - 1], x[p]] += 1
    cdf = np.cumsum(counts / counts.sum(1, keepdims=True), axis=1)
    x = np.empty((n, length), dtype=np.int64)
    x[:, :3] = rng.integers(0, 4, size=(n, 3))
    draws = rng.random((n, length))
    for p in range(3, length):
        state = x[:, p - 3] * 16 + x[:, p - 2] * 4 + x[:, p - 1]
        x[:, p] = np.minimum((draws[:, p, None] > cdf[state]).sum(1), 3)
    letters = np.array(list("ACGT"))
    return ["".join(row) for row in letters[x]]


def timed(cmd):
    """Wall-clock seconds of ``cmd``; its CPU seconds (user + system, all
    threads) are appended to ``CPU``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


CPU = []


def commands(pos, neg, work):
    structk_model = str(work / "model.structk")
    peer_model = str(work / "model.npz")
    ours = [
        sys.executable,
        "-m",
        "structk",
        "fit",
        "--positive",
        pos,
        "--negative",
        neg,
        "--kernel",
        KERNEL,
        "--learner",
        "KernelSVM(C=1.0)",
        "-o",
        structk_model,
        "--quiet",
    ]
    peer = [
        str(Path(sys.executable).with_name("gkmsvm")),
        "train",
        "-p",
        pos,
        "-n",
        neg,
        "-o",
        peer_model,
        "-C",
        "1",
        "-t",
        "estimated",
        "-l",
        "11",
        "-k",
        "7",
        "-d",
        "3",
        "--device",
        "cpu",
    ]
    return ours, peer, structk_model, peer_model


def load():
    return f"load {os.getloadavg()[0]:.1f}"


def race(label, pos, neg, work, repeats, peer_repeats, peer=True):
    """Median wall clock (and CPU) of each tool's training command, the runs
    alternating (structk, peer, structk, ...) so that a change of the
    machine's load falls on both; the peer left out with ``peer=False``
    (then its time is None)."""
    ours, theirs, _, _ = commands(pos, neg, work)
    runs = {"structk": ([], []), "peer": ([], [])}
    for r in range(max(repeats, peer_repeats if peer else 0)):
        for name, cmd, count in (("structk", ours, repeats), ("peer", theirs, peer_repeats)):
            if r < count and (peer or name == "structk"):
                del CPU[:]
                runs[name][0].append(timed(cmd))
                runs[name][1].append(CPU[0])
    (wa, ca), (wb, cb) = runs["structk"], runs["peer"]
    a, a_cpu = statistics.median(wa), statistics.median(ca)
    print(
        f"{label:<44} structk {a:8.1f} s wall, {a_cpu:6.1f} s CPU  (runs "
        f"{', '.join(f'{r:.1f}' for r in wa)}; {load()})",
        flush=True,
    )
    if not peer:
        return a, None
    b, b_cpu = statistics.median(wb), statistics.median(cb)
    print(
        f"{label:<44} structk {a:8.1f} s   gkmsvm-lite {b:8.1f} s   ratio {b / a:5.1f}x "
        f"wall; CPU {a_cpu:.1f} s vs {b_cpu:.1f} s, {b_cpu / a_cpu:.1f}x  (peer runs "
        f"{', '.join(f'{r:.1f}' for r in wb)}, CPU {', '.join(f'{c:.1f}' for c in cb)}; "
        f"{load()})",
        flush=True,
    )
    return a, b


def build_lsgkm(src, tmp):
    """``gkmtrain`` and ``gkmpredict`` built from a copy of ``src`` in
    ``tmp`` (never in ``src``), or None, said why."""
    import shutil

    if not (Path(src) / "Makefile").is_file():
        print(f"LS-GKM: no source at {src} (give --lsgkm-src); its races are skipped", flush=True)
        return None
    build = Path(tmp) / "lsgkm-src"
    shutil.copytree(src, build)
    done = subprocess.run(["make", "-j1"], cwd=build, capture_output=True, text=True)
    if done.returncode or not (build / "gkmtrain").is_file():
        print(f"LS-GKM: make failed, races skipped:\n{done.stderr[-2000:]}", flush=True)
        return None
    return build


def versus(label, runs, repeats):
    """Medians of wall and CPU seconds of each ``(name, command)`` of
    ``runs`` (the commands alternating round by round, so that a change of
    the machine's load falls on all), printed with the ratios peer / first
    (structk); returns ``{name: (wall, cpu)}``."""
    times = {name: ([], []) for name, _ in runs}
    for _ in range(repeats):
        for name, cmd in runs:
            del CPU[:]
            times[name][0].append(timed(cmd))
            times[name][1].append(CPU[0])
    med = {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in times.items()}
    first = runs[0][0]
    print(f"{label}  (median of {repeats}; {load()})", flush=True)
    for name, _ in runs:
        (w, c), (w0, c0) = med[name], med[first]
        ratio = "" if name == first else f"   peer/structk: {w / w0:5.1f}x wall, {c / c0:5.1f}x CPU"
        print(
            f"  {name:<12} {w:8.2f} s wall {c:8.2f} s CPU  (CPU runs "
            f"{', '.join(f'{x:.2f}' for x in times[name][1])}){ratio}",
            flush=True,
        )
    return med


def structk_fit(pos, neg, model, kernel=KERNEL):
    return [
        sys.executable, "-m", "structk", "fit", "--positive", pos, "--negative", neg,
        "--kernel", kernel, "--learner", "KernelSVM(C=1.0)", "-o", model, "--quiet",
    ]  # fmt: skip


def structk_predict(model, path, out):
    return [sys.executable, "-m", "structk", "predict", model, path, "--format", "tsv",
            "--quiet", "-o", out]  # fmt: skip


def lsgkm_race(build, label, pos, neg, work, repeats, lkd=(11, 7, 3), predict=(), baseline=None):
    """``structk fit`` against ``gkmtrain -T 1`` at ``lkd`` (estimated
    l-mer kernel, truncated filter, both strands, C = 1: LS-GKM's ``-t 2``),
    then ``structk predict`` against ``gkmpredict -T 1`` on each FASTA file
    of ``predict`` with the two models; the scores' correlation is printed.
    With ``baseline`` (a folder holding another version of the ``structk``
    package, e.g. ``git archive`` of the commit before a change) that
    version races too, as "before", with a model of its own (one untimed
    fit and prediction first, to fill its numba cache)."""
    l, k, d = lkd
    kernel = f"GappedKmer(l={l}, k={k}, d={d}, kind='truncated', reverse_complement=True)"
    ours = str(work / "lsgkm-race.structk")
    theirs = str(work / "lsgkm-race.before.structk")
    prefix = str(work / "lsgkm-race")
    gkmtrain = [
        str(build / "gkmtrain"), "-T", "1", "-v", "0", "-t", "2", "-l", str(l), "-k", str(k),
        "-d", str(d), "-c", "1", pos, neg, prefix,
    ]  # fmt: skip

    def before(cmd):  # -P: not the package of the current folder (python -m adds it)
        return ["env", f"PYTHONPATH={baseline}", cmd[0], "-P", *cmd[1:]]

    fits = [("structk", structk_fit(pos, neg, ours, kernel)), ("gkmtrain", gkmtrain)]
    if baseline:
        fits.insert(1, ("before", before(structk_fit(pos, neg, theirs, kernel))))
        subprocess.run(fits[1][1], check=True, capture_output=True)
        for path, _ in predict:
            warm = structk_predict(theirs, path, str(work / "before.pred.tsv"))
            subprocess.run(before(warm), check=True, capture_output=True)
    versus(f"{label}: fit, (l, k, d) = {lkd}", fits, repeats)
    for path, n in predict:
        out = work / "lsgkm-race.pred.txt"
        runs = [
            ("structk", structk_predict(ours, path, str(work / "structk.pred.tsv"))),
            ("gkmpredict", [str(build / "gkmpredict"), "-T", "1", "-v", "0", path,
                            prefix + ".model.txt", str(out)]),
        ]  # fmt: skip
        if baseline:
            theirs_out = str(work / "before.pred.tsv")
            runs.insert(1, ("before", before(structk_predict(theirs, path, theirs_out))))
        versus(f"{label}: predict {n} sequences", runs, repeats)
        rows = (work / "structk.pred.tsv").read_text().splitlines()
        col = rows[0].split("\t").index("score")
        a = np.array([float(r.split("\t")[col]) for r in rows[1:]])
        b = np.array([float(line.split()[-1]) for line in out.read_text().splitlines()])
        print(f"  scores: Pearson r {np.corrcoef(a, b)[0, 1]:.4f} over {len(a)}", flush=True)


def win_map(seqs, repeats):
    """Gram of ``seqs`` in one process by each compiled form, per (l, k, d):
    wall-clock medians (threads as the library sets them) and CPU seconds."""
    from structk import _tuning
    from structk.algorithms import gapped_kmers as gkm
    from structk.kernels import GappedKmer

    print(f"Gram of {len(seqs)} windows, median of {repeats} (wall s / CPU s):", flush=True)
    for l, k, d in [(8, 4, 2), (10, 6, 3), (11, 7, 3), (12, 8, 4)]:
        row = {}
        forms = ["pairs", "subsets"] + (
            ["table"] if 8 * 4**l <= _tuning.GKM_TABLE_MAX_BYTES else []
        )
        for algorithm in forms:
            kern = GappedKmer(l=l, k=k, d=d, algorithm=algorithm)
            P = kern.prepare(seqs)
            kern.gram_prepared(kern.take(P, slice(0, 30)))  # compile / load
            walls, cpus = [], []
            for _ in range(repeats):
                t, c = time.perf_counter(), time.process_time()
                kern.gram_prepared(P)
                walls.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
            row[algorithm] = (statistics.median(walls), statistics.median(cpus))
        auto = GappedKmer(l=l, k=k, d=d)
        P = auto.prepare(seqs)
        pick = gkm.method(P, None, auto.mismatch_weights(), l, k, True, 0)
        best = min(row, key=lambda a: row[a][1])
        print(
            f"  l={l:2d} k={k} d={d}: "
            + "   ".join(f"{a} {w:7.2f} / {c:7.2f}" for a, (w, c) in row.items())
            + f"   least CPU: {best}   auto picks {pick}   {load()}",
            flush=True,
        )


def auc_test(work, pos_test, neg_test, n_pos, n_neg):
    from sklearn.metrics import roc_auc_score

    _, _, structk_model, peer_model = commands("", "", work)
    test = str(work / "test.fa")
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "structk",
            "predict",
            structk_model,
            test,
            "--format",
            "tsv",
            "--quiet",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    header = out[0].split("\t")
    col = next(i for i, h in enumerate(header) if "score" in h or "decision" in h)
    ours = np.array([float(r.split("\t")[col]) for r in out[1:]])
    pred = work / "peer.pred.txt"
    subprocess.run(
        [
            str(Path(sys.executable).with_name("gkmsvm")),
            "predict",
            "-m",
            peer_model,
            "-i",
            test,
            "-o",
            str(pred),
            "--device",
            "cpu",
        ],
        check=True,
        capture_output=True,
    )
    peer = np.array([float(line.split()[-1]) for line in pred.read_text().splitlines()[1:]])
    # structk's score is the decision value of the class sorted last, "positive"
    return roc_auc_score(y, ours), roc_auc_score(y, peer)


def cv(seqs, y):
    from gkmsvm.codec import one_hot_encode
    from gkmsvm.gram import compute_gram
    from gkmsvm.kernels import EstTruncGkmKernel
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import SVC

    from structk.kernels import GappedKmer

    grams = {
        "structk": GappedKmer(l=11, k=7, d=3)(seqs),
        "gkmsvm-lite": compute_gram(
            EstTruncGkmKernel(11, 7, d=3), np.stack([one_hot_encode(s) for s in seqs])
        ),
    }
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(seqs, y))
    out = {}
    for name, K in grams.items():
        aucs = []
        for tr, te in folds:
            svm = SVC(C=1.0, kernel="precomputed").fit(K[np.ix_(tr, tr)], y[tr])
            aucs.append(roc_auc_score(y[te], svm.decision_function(K[np.ix_(te, tr)])))
        out[name] = (np.mean(aucs), np.std(aucs))
    print(
        f"5-fold CV ROC AUC (SVC on each Gram): structk {out['structk'][0]:.4f} "
        f"+- {out['structk'][1]:.4f}   gkmsvm-lite {out['gkmsvm-lite'][0]:.4f} "
        f"+- {out['gkmsvm-lite'][1]:.4f}   max |K_structk - K_peer| "
        f"{np.abs(grams['structk'] - grams['gkmsvm-lite']).max():.2g}",
        flush=True,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cv", action="store_true")
    ap.add_argument(
        "--peer-repeats", type=int, default=None, help="runs of gkmsvm-lite (default: --repeats)"
    )
    ap.add_argument(
        "--skip-train", action="store_true", help="leave out the nfe2 training race and test AUC"
    )
    ap.add_argument(
        "--background",
        type=int,
        nargs="*",
        default=[],
        help="sizes of background sets to train on (both tools)",
    )
    ap.add_argument(
        "--structk-only",
        type=int,
        nargs="*",
        default=[],
        help="sizes of background sets to train on with structk alone",
    )
    ap.add_argument(
        "--extrapolate",
        type=int,
        default=20_000,
        help="background size the times are extrapolated to (n^2)",
    )
    ap.add_argument(
        "--win-map",
        type=int,
        default=0,
        metavar="N",
        help="time the Gram of N training windows by each form per (l, k, d)",
    )
    ap.add_argument("--lsgkm", action="store_true", help="race LS-GKM (gkmtrain, gkmpredict)")
    ap.add_argument(
        "--lsgkm-src",
        default=str(Path(__file__).resolve().parents[2] / "shared" / "peers" / "lsgkm" / "src"),
    )
    ap.add_argument(
        "--predict-sizes", type=int, nargs="*", default=[], help="background sets to score"
    )
    ap.add_argument(
        "--lsgkm-settings",
        type=int,
        nargs=5,
        action="append",
        default=[],
        metavar=("L", "K", "D", "LENGTH", "N"),
        help="also race LS-GKM at (l, k, d) on N background sequences of LENGTH nt",
    )
    ap.add_argument("--no-gkmsvm", action="store_true", help="leave gkmsvm-lite out")
    ap.add_argument(
        "--baseline",
        default=None,
        help="folder of another structk version to race in the LS-GKM races, as 'before'",
    )
    args = ap.parse_args()
    peer_repeats = args.repeats if args.peer_repeats is None else args.peer_repeats
    data = Path(os.environ["STRUCTK_DATA"]) / "sequences" / "nfe2"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        parts = {}
        for name in ("pos.train", "neg.train", "pos.test", "neg.test"):
            parts[name] = windows(data / f"{name}.fa", args.width)
            write(work / f"{name}.fa", *parts[name])
        write(
            work / "test.fa",
            parts["pos.test"][0] + parts["neg.test"][0],
            parts["pos.test"][1] + parts["neg.test"][1],
        )
        n = {k: len(v[0]) for k, v in parts.items()}
        print(
            f"nfe2 central {args.width}-nt windows: train {n['pos.train']} + "
            f"{n['neg.train']}, test {n['pos.test']} + {n['neg.test']}",
            flush=True,
        )
        if args.win_map:
            win_map(
                parts["pos.train"][1][: args.win_map // 2]
                + parts["neg.train"][1][: args.win_map - args.win_map // 2],
                args.repeats,
            )
        if args.lsgkm and (build := build_lsgkm(args.lsgkm_src, tmp)) is not None:
            predict = [(str(work / "test.fa"), n["pos.test"] + n["neg.test"])]
            for size in args.predict_sizes:
                seqs = background(size, 200, 1, parts["neg.train"][1])
                write(work / f"score{size}.fa", [f"s{i}" for i in range(size)], seqs)
                predict.append((str(work / f"score{size}.fa"), size))
            lsgkm_race(
                build,
                f"nfe2 {n['pos.train'] + n['neg.train']} windows",
                str(work / "pos.train.fa"),
                str(work / "neg.train.fa"),
                work,
                args.repeats,
                predict=predict,
                baseline=args.baseline,
            )
            for l, k, d, length, size in args.lsgkm_settings:
                seqs = background(size, length, 2, parts["neg.train"][1])
                half = size // 2
                write(work / "set.pos.fa", [f"p{i}" for i in range(half)], seqs[:half])
                write(work / "set.neg.fa", [f"n{i}" for i in range(size - half)], seqs[half:])
                lsgkm_race(
                    build,
                    f"background {size} x {length} nt",
                    str(work / "set.pos.fa"),
                    str(work / "set.neg.fa"),
                    work,
                    args.repeats,
                    (l, k, d),
                    baseline=args.baseline,
                )
        if not args.skip_train and not args.no_gkmsvm:
            race(
                f"train nfe2 ({n['pos.train'] + n['neg.train']} seqs)",
                str(work / "pos.train.fa"),
                str(work / "neg.train.fa"),
                work,
                args.repeats,
                peer_repeats,
            )
            ours, peer = auc_test(work, None, None, n["pos.test"], n["neg.test"])
            print(
                f"test ROC AUC (own train + predict): structk {ours:.4f}   gkmsvm-lite {peer:.4f}",
                flush=True,
            )
        if args.cv:
            seqs = parts["pos.train"][1] + parts["neg.train"][1]
            y = np.r_[np.ones(n["pos.train"]), np.zeros(n["neg.train"])]
            cv(seqs, y)
        sizes = [(size, True) for size in args.background]
        sizes += [(size, False) for size in args.structk_only]
        for size, peer in sizes:
            seqs = background(size, 300, 0, parts["neg.train"][1])
            half = size // 2
            write(work / "bg.pos.fa", [f"p{i}" for i in range(half)], seqs[:half])
            write(work / "bg.neg.fa", [f"n{i}" for i in range(size - half)], seqs[half:])
            a, b = race(
                f"train background 300 nt ({size} seqs)",
                str(work / "bg.pos.fa"),
                str(work / "bg.neg.fa"),
                work,
                args.repeats if peer else 1,
                peer_repeats,
                peer,
            )
            f = (args.extrapolate / size) ** 2
            if peer and f != 1:
                print(
                    f"  extrapolated to {args.extrapolate} seqs (x (n'/n)^2 = {f:.0f}, "
                    f"the Gram's pairs): structk {a * f / 3600:.1f} h   gkmsvm-lite "
                    f"{b * f / 3600:.1f} h",
                    flush=True,
                )


if __name__ == "__main__":
    main()
