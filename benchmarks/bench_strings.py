"""Benchmark: spectrum and mismatch Gram matrices, structk against its peers.

Cases (issue 4):

* 2000 random DNA sequences of length 1000, spectrum kernel at k = 5 and 10;
* the UCI splice set (``$STRUCTK_DATA/sequences/splice/splice.data``),
  spectrum at k = 3 .. 8, on its 3175 ACGT-only sequences so that every
  method counts the same k-mers (the 15 with ambiguity codes are what the
  peers mis-count);
* the (5, 1)-mismatch Gram of all 3190 splice sequences (structk, with
  ``unknown="skip"``), and structk against strkernel's mismatch trie on an
  ACGT-only subset (the trie is too slow for all of them).

Peers: ``CountVectorizer(analyzer="char", ngram_range=(k, k),
lowercase=False)`` features and one sparse product ``(F @ F.T).toarray()``
(what a user would write), and strkernel (``gappypair_kernel(g=0)`` spectrum
features, which need a dense ``4^k`` row per sequence, so it is skipped when
that would not fit; its ``MismatchKernel`` trie).

Every measurement runs in a fresh child process: the time is the median of
``--repeats`` runs (after one warm-up on a tiny input, so numba's cache is
loaded and nothing is compiled in the timed runs), the memory is the peak
resident set size during a timed run above the resident size just before it
(the peak is reset through ``/proc/self/clear_refs``; it covers numpy, scipy,
numba and BLAS allocations alike, which ``tracemalloc`` would not). The
warm-up is one untimed run on the first 50 sequences (imports, loading
numba's cached machine code); a larger one would leave freed memory in the
heap for the timed runs to reuse unseen. All methods of a
case must give the same Gram matrix (checked by a fingerprint).

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_strings.py [--quick] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# ----------------------------------------------------------------- the data
def random_dna(n, length, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, length))
    return ["".join("ACGT"[c] for c in row) for row in codes]


def splice_sequences(acgt_only):
    from structk.datasets import load_splice

    root = os.environ.get("STRUCTK_DATA")
    if not root:
        return None
    seqs = load_splice(Path(root) / "sequences/splice/splice.data").sequences
    if acgt_only:
        seqs = [s for s in seqs if set(s) <= set("ACGT")]
    return seqs


def dataset(name, quick):
    if name == "random":
        return random_dna(200, 300) if quick else random_dna(2000, 1000)
    if name == "splice":
        seqs = splice_sequences(acgt_only=True)
        return seqs[:500] if quick else seqs
    if name == "splice-all":
        seqs = splice_sequences(acgt_only=False)
        return seqs[:500] if quick else seqs
    if name == "splice-subset":
        return splice_sequences(acgt_only=True)[: 60 if quick else 300]
    raise ValueError(name)


# -------------------------------------------------------------- the methods
def structk_spectrum(seqs, k):
    from structk.kernels import Spectrum

    return Spectrum(k=k)(seqs)


def countvectorizer_spectrum(seqs, k):
    from sklearn.feature_extraction.text import CountVectorizer

    F = CountVectorizer(analyzer="char", ngram_range=(k, k), lowercase=False).fit_transform(seqs)
    return (F @ F.T).toarray()


def strkernel_spectrum(seqs, k):
    from strkernel.gappy_kernel import gappypair_kernel

    F = gappypair_kernel(seqs, k=k, g=0, t=0, sparse=True)
    return (F @ F.T).toarray()


def structk_mismatch(seqs, k, m=1):
    from structk.kernels import Mismatch

    return Mismatch(k=k, m=m, unknown="skip")(seqs)


def strkernel_mismatch(seqs, k, m=1):
    from strkernel.mismatch_kernel import MismatchKernel

    from structk.sequences import encode

    P = encode(seqs)  # strkernel's own preprocess numbers symbols per sequence
    X = [P[i].astype(int).tolist() for i in range(len(seqs))]
    return MismatchKernel(l=4, k=k, m=m).get_kernel(X, normalize=False).kernel


METHODS = {
    "structk": structk_spectrum,
    "CountVectorizer": countvectorizer_spectrum,
    "strkernel": strkernel_spectrum,
    "structk-mismatch": structk_mismatch,
    "strkernel-mismatch": strkernel_mismatch,
}


def strkernel_fits(seqs, k):
    """strkernel builds a dense 4^k float64 row per sequence."""
    need = len(seqs) * 8 * 4**k
    return need <= 2**30, need


# ------------------------------------------------------------- child process
def _status_kb(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak():
    """Reset the peak resident set size (VmHWM) of this process (Linux >= 4.0)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def child(method, case, k, repeats, quick):
    seqs = dataset(case, quick)
    f = METHODS[method]
    # warm-up on a few sequences: imports and numba cache loads, while the
    # heap stays small so that the first timed run's allocations show in RSS
    f(seqs[:50], k)
    times, peaks = [], []
    for _ in range(repeats):
        _reset_peak()
        base = _status_kb("VmRSS")
        t0 = time.perf_counter()
        K = f(seqs, k)
        times.append(time.perf_counter() - t0)
        peaks.append(_status_kb("VmHWM") - base)
        fingerprint = [float(K.sum()), float(np.trace(K)), float(K[0].sum()), K.shape[0]]
        del K
    print(json.dumps({"times": times, "peak": max(peaks), "fingerprint": fingerprint}))


BLAS_THREADS = "1"


def measure(method, case, k, repeats, quick, timeout=3600):
    cmd = [sys.executable, __file__, "--child", method, case, str(k), str(repeats)]
    if quick:
        cmd.append("--quick")
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        OPENBLAS_NUM_THREADS=BLAS_THREADS,
        OMP_NUM_THREADS=BLAS_THREADS,
        MKL_NUM_THREADS=BLAS_THREADS,
    )
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"{method} on {case} k={k} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------- report
def row(case, k, n, results, reference="structk"):
    ref = results[reference]
    cells = [f"{case:<14} k={k:<3} n={n:<5}"]
    for name, r in results.items():
        if r is None:
            cells.append(f"{name}: not run")
            continue
        med = float(np.median(r["times"]))
        text = f"{name} {med:8.3f} s {r['peak'] / 2**20:7.1f} MB"
        if name != reference:
            text += (
                f" (speed-up {med / np.median(ref['times']):5.1f}x,"
                f" memory structk/{name} {ref['peak'] / max(r['peak'], 1):4.2f})"
            )
        cells.append(text)
    print(" | ".join(cells), flush=True)
    prints = {tuple(np.round(r["fingerprint"], 6)) for r in results.values() if r}
    if len(prints) != 1:
        raise AssertionError(f"methods disagree on {case} k={k}: {results}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument(
        "--blas-threads",
        default="1",
        help="BLAS threads in the measured processes (default 1: the "
        "peers are single-threaded, and the machine is shared)",
    )
    parser.add_argument("--child", nargs=4, metavar=("METHOD", "CASE", "K", "REPEATS"))
    args = parser.parse_args()
    global BLAS_THREADS
    BLAS_THREADS = str(args.blas_threads)
    if args.child:
        method, case, k, repeats = args.child
        child(method, case, int(k), int(repeats), args.quick)
        return
    repeats = args.repeats or (2 if args.quick else 5)
    print(
        f"structk string-kernel benchmark ({'quick' if args.quick else 'full'}; "
        f"median of {repeats}; load average {os.getloadavg()[0]:.2f}; "
        f"{os.cpu_count()} cpus; {BLAS_THREADS} BLAS thread(s))"
    )

    cases = [("random", 5), ("random", 10)]
    if os.environ.get("STRUCTK_DATA"):
        cases += [("splice", k) for k in range(3, 9)]
    else:
        print("STRUCTK_DATA is not set: splice cases skipped")
    for case, k in cases:
        seqs = dataset(case, args.quick)
        results = {
            "structk": measure("structk", case, k, repeats, args.quick),
            "CountVectorizer": measure("CountVectorizer", case, k, repeats, args.quick),
        }
        fits, need = strkernel_fits(seqs, k)
        # strkernel loops over k-mers in Python: fewer repeats
        slow = case == "random" and not args.quick
        results["strkernel"] = (
            measure("strkernel", case, k, 1 if slow else min(repeats, 3), args.quick)
            if fits
            else None
        )
        if not fits:
            print(f"  (strkernel not run at k={k}: its dense 4^k rows need {need / 2**30:.1f} GB)")
        row(case, k, len(seqs), results)

    if os.environ.get("STRUCTK_DATA"):
        full = measure("structk-mismatch", "splice-all", 5, repeats, args.quick)
        n = len(dataset("splice-all", args.quick))
        print(
            f"mismatch (5, 1), all {n} splice sequences: structk "
            f"{np.median(full['times']):.3f} s, {full['peak'] / 2**20:.1f} MB "
            "(goal: under 30 s)"
        )
        sub = {
            "structk": measure("structk-mismatch", "splice-subset", 5, repeats, args.quick),
            "strkernel": measure("strkernel-mismatch", "splice-subset", 5, 1, args.quick),
        }
        row("splice-subset", 5, len(dataset("splice-subset", args.quick)), sub)


if __name__ == "__main__":
    main()
