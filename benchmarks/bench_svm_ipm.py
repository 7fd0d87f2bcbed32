"""KernelSVM fits with the dense interior-point start (``_smo.dense_ipm``)
against SMO alone and against scikit-learn's SVC, in one run.

The Gram is that of a TU dataset under ``Normalize(RandomWalk(lam=0.01))``
(default ENZYMES: 6 classes, one-vs-one machines of ~180 objects), the
training part of the first stratified 10-fold split; each ``C`` is fitted by

* structk as it is (SMO, then the interior point for a small problem SMO has
  not solved in ``defaults.SVM_IPM_AFTER`` iterations),
* structk with SMO only (``defaults.SVM_IPM_MAX_N = 0``),
* ``sklearn.svm.SVC(kernel="precomputed")`` (LIBSVM's SMO),

in turn, ``--repeat`` times; medians of wall and CPU time, the ratios, the
test accuracy of each and the SMO iterations of structk's machines are
printed. SMO alone is slow at large ``C`` (at 1e6 one machine reaches the
10^7-iteration limit): ``--smo-max-C`` skips SMO and SVC above it.
Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_svm_ipm.py \\
        [--dataset ENZYMES] [--C 1e4,1e5,1e6] [--repeat 3] [--smo-max-C 1e6]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

from _timing import print_table


def _timed(func):
    w0, c0 = time.perf_counter(), time.process_time()
    out = func()
    return time.perf_counter() - w0, time.process_time() - c0, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="ENZYMES", help="a TU dataset in $STRUCTK_DATA/graphs")
    parser.add_argument("--C", default="1e4,1e5,1e6", help="C values, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="timed fits of each (median)")
    parser.add_argument(
        "--smo-max-C", type=float, default=1e6, help="largest C fitted by SMO alone and by SVC"
    )
    args = parser.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("STRUCTK_DATA is not set: point it at the folder holding graphs/")
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import SVC

    import structk
    from structk import _tuning
    from structk.cli.evaluation import make_splits
    from structk.datasets import load_tu
    from structk.learners import KernelSVM

    graphs, y = load_tu(os.path.join(root, "graphs"), args.dataset)
    y = np.asarray(y)
    t0 = time.perf_counter()
    K = structk.Normalize(structk.RandomWalk(lam=0.01))(graphs)
    train, test = make_splits(10, y, "classification").folds[0]
    Ktr = np.ascontiguousarray(K[np.ix_(train, train)])
    Kte = np.ascontiguousarray(K[np.ix_(test, train)])
    print(
        f"{args.dataset}: {len(y)} graphs, {len(np.unique(y))} classes, Gram "
        f"{time.perf_counter() - t0:.1f} s; fits on {len(train)}, tested on {len(test)}",
        flush=True,
    )

    def structk_fit(C, ipm):
        def run():
            limit = {} if ipm else {"SVM_IPM_MAX_N": 0}
            with _tuning.override(**limit), warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                return KernelSVM(C=C, psd_check="none").fit(Ktr, y[train])

        return run

    def sklearn_fit(C):
        return lambda: SVC(kernel="precomputed", C=C, tol=1e-3).fit(Ktr, y[train])

    structk_fit(1.0, True)()  # load the compiled solver
    rows, ratios = [], []
    for C in (float(c) for c in args.C.split(",")):
        runs = {"IPM": structk_fit(C, True)}
        if C <= args.smo_max_C:
            runs["SMO"] = structk_fit(C, False)
            runs["SVC"] = sklearn_fit(C)
        times = {k: ([], []) for k in runs}
        models = {}
        for _ in range(args.repeat):
            for name, run in runs.items():
                wall, cpu, models[name] = _timed(run)
                times[name][0].append(wall)
                times[name][1].append(cpu)
        med = {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in times.items()}
        for name in runs:
            acc = float(np.mean(models[name].predict(Kte) == y[test]))
            iters = (
                f"{int(np.median(models[name].n_iter_))} (max {models[name].n_iter_.max()})"
                if hasattr(models[name], "dual_objective_")
                else "-"
            )
            rows.append(
                [f"{C:g}", name, f"{med[name][0]:.3f}", f"{med[name][1]:.3f}", f"{acc:.3f}", iters]
            )
        if "SMO" in med:
            ratios.append(
                f"C={C:g}: SMO alone / IPM {med['SMO'][0] / med['IPM'][0]:.1f}x wall, "
                f"SVC / IPM {med['SVC'][0] / med['IPM'][0]:.1f}x wall"
            )
        print(f"C={C:g} done", flush=True)
    print_table(rows, ["C", "solver", "wall s", "CPU s", "test acc", "SMO iterations"])
    print(
        f"medians of {args.repeat}; structk 'IPM' = as shipped, 'SMO' = SVM_IPM_MAX_N=0, "
        "'SVC' = sklearn.svm.SVC(kernel='precomputed', tol=1e-3)"
    )
    for line in ratios:
        print(line)


if __name__ == "__main__":
    main()
