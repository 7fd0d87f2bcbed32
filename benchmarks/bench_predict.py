"""Predict time of fitted graph-kernel SVMs on MUTAG (prediction prepares only the new graphs).

A ``KernelSVM`` with a ``WeisfeilerLehman`` and one with a ``RandomWalk``
kernel are fitted on MUTAG once; then ``predict`` on all 188 graphs and on
10 graphs is timed (medians over ``--repeats`` runs after a warm-up), beside
the time to evaluate the kernel on the new graphs alone (``k.diag``), which
bounds what preparing the test objects costs.

Usage::

    STRUCTK_DATA=/path/to/data PYTHONPATH=. python benchmarks/bench_predict.py
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from _timing import median_time, print_table  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    from structk.datasets import load_tu
    from structk.kernels import RandomWalk, WeisfeilerLehman
    from structk.learners import KernelSVM

    data = os.environ.get("STRUCTK_DATA")
    if not data:
        sys.exit("set STRUCTK_DATA to the folder holding graphs/MUTAG")
    graphs, y = load_tu(os.path.join(data, "graphs", "MUTAG"))
    rows = []
    for name, kernel in [
        ("WeisfeilerLehman(h=3)", WeisfeilerLehman(h=3)),
        ("RandomWalk(lam=0.01)", RandomWalk(lam=0.01)),
    ]:
        svm = KernelSVM(kernel=kernel, C=1.0).fit(graphs, y)
        for n_test in (len(graphs), 10):
            test = graphs[:n_test]
            t = median_time(lambda: svm.predict(test), repeat=args.repeats)
            rows.append([name, len(svm.support_), n_test, f"{1e3 * t:.2f}"])
    print_table(rows, ["kernel", "n_SV", "n_test", "predict ms (median)"])


if __name__ == "__main__":
    main()
