"""Peak memory of an exact (full-Gram) fit, against the Gram's own bytes.

``KernelSVM(Normalize(Spectrum(k=6)), solver="dual")`` (the exact solver
on the full Gram, not the primal one ``solver="auto"`` picks at this size)
on ``n`` random DNA sequences of 200 nt (default n = 20,000: a 3.2 GB
Gram), two classes, or ``--classes 3`` (one-vs-one: a machine per pair of
classes, each on its block of the Gram); ``--learner logistic`` fits
``KernelLogisticRegression(solver="dual")`` instead (its Cholesky factor
takes the Gram's own buffer). Each fit runs in a fresh process; the
script prints that process's peak resident memory (``ru_maxrss``), the
same process's resident memory just before the fit (interpreter,
libraries, the sequences) and the Gram's bytes ``8 n^2``.
The ratio ``(peak - before) / Gram`` is what the fit itself costs in units
of its Gram (the goal: at most 1.3); the peer is scikit-learn's ``SVC`` on
the same Gram computed by structk (``--peer``), whose fit needs the Gram
and LIBSVM's own copy of it.

Usage::

    python benchmarks/bench_exact_memory.py [--n 20000] [--classes 3]
        [--learner svm|logistic] [--peer]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r"""
import json, resource, sys, time
import numpy as np
from structk import KernelLogisticRegression, KernelSVM, Normalize, Spectrum

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

def current_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20

n, who, classes, learner = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(0)
X = ["".join(s) for s in rng.choice(list("ACGT"), size=(n, 200))]
y = rng.integers(0, classes, n)
k = Normalize(Spectrum(k=6))
Model = KernelSVM if learner == "svm" else KernelLogisticRegression
k(X[:1000])  # load the compiled code outside the measurement
Model(kernel=k, solver="dual").fit(X[:1000], y[:1000])
before = current_mb()
t = time.perf_counter()
if who == "structk":
    Model(kernel=k, solver="dual").fit(X, y)
elif learner == "svm":
    from sklearn.svm import SVC
    SVC(kernel="precomputed").fit(k(X), y)
else:
    # the same problem on the Gram's rows as features is not the kernel
    # problem; scikit-learn has no kernel logistic regression: no peer
    raise SystemExit("no peer for the logistic learner")
print(json.dumps({"before": before, "peak": rss_mb(), "seconds": time.perf_counter() - t}))
"""


def run(n, who, classes=2, learner="svm"):
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(n), who, str(classes), learner],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "", "STRUCTK_QUIET_COMPILE": "1"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--classes", type=int, default=2, help="classes of the labels")
    parser.add_argument(
        "--learner",
        default="svm",
        choices=["svm", "logistic"],
        help="KernelSVM (default) or KernelLogisticRegression",
    )
    parser.add_argument("--peer", action="store_true", help="also SVC on the same Gram (svm only)")
    args = parser.parse_args(argv)
    gram_mb = 8 * args.n**2 / 2**20
    print(
        f"n = {args.n}, {args.classes} classes, {args.learner}: Gram {gram_mb:,.0f} MB "
        f"({time.strftime('%Y-%m-%d')})"
    )
    peer = args.peer and args.learner == "svm"
    for who in ["structk"] + (["sklearn SVC"] if peer else []):
        r = run(args.n, "structk" if who == "structk" else "peer", args.classes, args.learner)
        fit_mb = r["peak"] - r["before"]
        print(
            f"  {who:12s} fit {r['seconds']:7.1f} s   peak RSS {r['peak']:8,.0f} MB   "
            f"before the fit {r['before']:6,.0f} MB   "
            f"fit's own {fit_mb:8,.0f} MB = {fit_mb / gram_mb:.2f} x the Gram"
        )


if __name__ == "__main__":
    main()
