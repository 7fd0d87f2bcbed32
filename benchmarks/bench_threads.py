"""What the one-BLAS-thread window for small products buys (``structk._threads.small_matmul``).

Products of more than ``_tuning.THREADED_PRODUCT`` and at most
``_tuning.SMALL_PRODUCT`` multiply-adds (``SPARSE_THREADED_FROM`` for the
sparse Gram's dense columns) run on one BLAS thread. This script times the
same work with the window as shipped ("one thread") and emptied ("threaded":
``SMALL_PRODUCT = SPARSE_THREADED_FROM = 0``, every product left to
OpenBLAS), alternating the two, and prints medians and the ratio
threaded / one thread (above 1: the window gains):

* in one process: ShortestPath Grams of MUTAG and ENZYMES, a Gaussian Gram
  of 1000 x 20 vectors, a KernelSVM fit on 800 of them and prediction of 200;
* in whole fresh processes: the MUTAG script of ``bench_end_to_end.py``,
  ``structk cv`` on splice (WeightedDegree(d=8), 5 folds) and a 5-fold
  Gaussian KernelSVM on 2000 vectors (wall and CPU time).

The load average is printed with each case: the window matters on a busy
machine, where a woken helper thread waits for a core.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_threads.py [--repeats N]
        [--fresh-repeats N] [--skip-fresh]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OFF = "from structk import _tuning\n_tuning.SMALL_PRODUCT = _tuning.SPARSE_THREADED_FROM = 0\n"

MUTAG = """
from sklearn.model_selection import cross_val_score
from structk import KernelSVM, Normalize, WeisfeilerLehman
from structk.datasets import load_tu
G, y = load_tu("{data}/graphs", "MUTAG")
print(cross_val_score(KernelSVM(kernel=Normalize(WeisfeilerLehman(h=3)), C=10), G, y, cv=10).mean())
"""

VECTORS = """
import numpy as np
from sklearn.model_selection import cross_val_score
from structk import Gaussian, KernelSVM
rng = np.random.default_rng(0)
X = rng.normal(size=(2000, 20))
y = (X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.normal(size=2000) > 1).astype(int)
print(cross_val_score(KernelSVM(kernel=Gaussian(sigma=4.0), C=1.0), X, y, cv=5).mean())
"""

SPLICE = """
import sys
from structk.cli import main
sys.exit(main(["cv", "{fasta}", "--label-pattern", r"class=(\\S+)", "--kernel",
               "WeightedDegree(d=8, unknown='skip')", "--learner", "KernelSVM(C=1.0)",
               "--cv", "5", "--quiet"]))
"""


def in_process(data, repeats):
    import numpy as np

    from structk import Gaussian, KernelSVM, ShortestPath, _tuning
    from structk.datasets import load_tu

    mutag, _ = load_tu(f"{data}/graphs", "MUTAG")
    enzymes, _ = load_tu(f"{data}/graphs", "ENZYMES")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 20))
    y = (X[:, 0] > 0).astype(int)
    cases = {
        "ShortestPath Gram, MUTAG": lambda: ShortestPath()(mutag),
        "ShortestPath Gram, ENZYMES": lambda: ShortestPath()(enzymes),
        "Gaussian Gram, 1000 x 20": lambda: Gaussian(sigma=4.0)(X),
        "KernelSVM fit 800 + predict 200": lambda: (
            KernelSVM(kernel=Gaussian(sigma=4.0)).fit(X[:800], y[:800]).predict(X[800:])
        ),
    }
    shipped = (_tuning.SMALL_PRODUCT, _tuning.SPARSE_THREADED_FROM)
    print(f"in one process, medians of {repeats} (ms)")
    for name, fn in cases.items():
        fn()
        times = {"one thread": [], "threaded": []}
        for r in range(repeats):
            for mode in ("one thread", "threaded") if r % 2 else ("threaded", "one thread"):
                _tuning.SMALL_PRODUCT, _tuning.SPARSE_THREADED_FROM = (
                    shipped if mode == "one thread" else (0, 0)
                )
                t = time.perf_counter()
                fn()
                times[mode].append(time.perf_counter() - t)
        _tuning.SMALL_PRODUCT, _tuning.SPARSE_THREADED_FROM = shipped
        one, threaded = (statistics.median(times[m]) for m in ("one thread", "threaded"))
        print(
            f"  {name:34s} one thread {1e3 * one:8.1f}  threaded {1e3 * threaded:8.1f}  "
            f"ratio {threaded / one:.2f}  load {os.getloadavg()[0]:.1f}"
        )


def _run(code):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def fresh(data, repeats, tmp):
    from structk.datasets import load_splice

    seqs, y, names = load_splice(f"{data}/sequences/splice/splice.data")
    fasta = os.path.join(tmp, "splice.fasta")
    with open(fasta, "w") as fh:
        fh.writelines(f">{n} class={c}\n{s}\n" for s, c, n in zip(seqs, y, names))
    scripts = {
        "MUTAG script": MUTAG.format(data=data),
        "structk cv splice": SPLICE.format(fasta=fasta),
        "Gaussian SVM 5-fold, 2000": VECTORS,
    }
    print(f"whole fresh processes, medians of {repeats} (s)")
    for name, code in scripts.items():
        _run(code)  # fills the numba cache
        times = {"one thread": [], "threaded": []}
        for r in range(repeats):
            for mode in ("one thread", "threaded") if r % 2 else ("threaded", "one thread"):
                times[mode].append(_run(code if mode == "one thread" else OFF + code))
        med = {m: [statistics.median(t[i] for t in times[m]) for i in (0, 1)] for m in times}
        (w1, c1), (w2, c2) = med["one thread"], med["threaded"]
        print(
            f"  {name:28s} wall {w1:6.2f} vs {w2:6.2f} (ratio {w2 / w1:.2f})  "
            f"CPU {c1:6.2f} vs {c2:6.2f} (ratio {c2 / c1:.2f})  "
            f"load {os.getloadavg()[0]:.1f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=30, help="in-process repeats")
    parser.add_argument("--fresh-repeats", type=int, default=5, help="fresh-process repeats")
    parser.add_argument("--skip-fresh", action="store_true")
    args = parser.parse_args()
    data = os.environ.get("STRUCTK_DATA")
    if not data:
        sys.exit("set STRUCTK_DATA to the data folder")
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    in_process(data, args.repeats)
    if not args.skip_fresh:
        with tempfile.TemporaryDirectory() as tmp:
            fresh(data, args.fresh_repeats, tmp)


if __name__ == "__main__":
    main()
