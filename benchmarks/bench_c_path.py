"""The inner cross-validation of ``structk cv`` over an SVM's C grid, solved
as a path (increasing C, each SMO started from the previous solution,
``defaults.CV_SVM_C_PATH``) against every grid point from zero, in one run.

On each of the first ``--folds`` outer folds of a stratified 10-fold split
(the folds ``structk cv`` uses), the inner 5-fold losses of the default C
grid (moved to the Gram's scale, as ``cv`` does) are computed both ways,
interleaved, and timed (wall and this process's CPU); medians over the
folds and their ratio are printed, with the chosen C of each way (they must
agree). Default: ENZYMES, ``Normalize(RandomWalk(lam=0.01))`` (its Gram
takes ~30 s). Machines of at most ``defaults.SVM_IPM_MAX_N`` objects (all of
ENZYMES') take no start from the previous C (the interior point solves
them as fast from zero), so both ways then run the same fits:
``--ipm-max-n 0`` turns the interior point off to time the path on them
(the comparison it was measured by). Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_c_path.py \\
        [--dataset ENZYMES] [--folds 3] [--grid 0.1,1,...] [--ipm-max-n 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

from _timing import print_table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="ENZYMES", help="a TU dataset in $STRUCTK_DATA/graphs")
    parser.add_argument("--folds", type=int, default=3, help="outer folds timed (of 10)")
    parser.add_argument("--grid", help="C values, comma-separated (default: cv's moved grid)")
    parser.add_argument(
        "--ipm-max-n",
        type=int,
        default=None,
        help="defaults.SVM_IPM_MAX_N for the run (0: no interior point)",
    )
    args = parser.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("STRUCTK_DATA is not set: point it at the folder holding graphs/")
    import structk
    from structk import _tuning
    from structk.cli.evaluation import (
        LearnerSpec,
        _inner_losses,
        _inner_splits,
        learner_spec,
        make_splits,
        scaled_spec,
    )
    from structk.datasets import load_tu
    from structk.learners import KernelSVM

    graphs, y = load_tu(os.path.join(root, "graphs"), args.dataset)
    y = np.asarray(y)
    t0 = time.perf_counter()
    K = structk.Normalize(structk.RandomWalk(lam=0.01))(graphs)
    print(
        f"{args.dataset}: {len(y)} graphs, Normalize(RandomWalk(lam=0.01)) Gram "
        f"{time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    spec = scaled_spec(learner_spec(KernelSVM()), [K])
    grid = [float(c) for c in args.grid.split(",")] if args.grid else spec.grid["C"]
    spec = LearnerSpec(KernelSVM(kernel="precomputed", psd_check="none"), {"C": grid})
    print(f"C grid {grid}; inner 5-fold CV on the first {args.folds} of 10 outer folds", flush=True)
    splits = make_splits(10, y, "classification")
    times = {True: ([], []), False: ([], [])}
    rows = []
    for f, (train, _) in enumerate(splits.folds[: args.folds]):
        inner = _inner_splits(splits, train, y, "classification")
        chosen = {}
        for path in (True, False):
            ipm = {} if args.ipm_max_n is None else {"SVM_IPM_MAX_N": args.ipm_max_n}
            with _tuning.override(CV_SVM_C_PATH=path, **ipm):  # _fit_predict: compiled_small
                w0, c0 = time.perf_counter(), time.process_time()
                cands, losses, ok = _inner_losses(spec, K, y, train, inner, "classification")
                times[path][0].append(time.perf_counter() - w0)
                times[path][1].append(time.process_time() - c0)
            chosen[path] = cands[min(ok, key=lambda c: losses[c])]["C"]
        rows.append(
            [
                f,
                f"{times[True][0][-1]:.1f}",
                f"{times[True][1][-1]:.1f}",
                f"{times[False][0][-1]:.1f}",
                f"{times[False][1][-1]:.1f}",
                f"{chosen[True]:g}",
                f"{chosen[False]:g}",
            ]
        )
        print(f"fold {f} done", flush=True)
    print_table(
        rows,
        ["fold", "path wall s", "path CPU s", "cold wall s", "cold CPU s", "C (path)", "C (cold)"],
    )
    med = {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in times.items()}
    print(
        f"median per outer fold: path {med[True][0]:.1f} s wall / {med[True][1]:.1f} s CPU, "
        f"cold {med[False][0]:.1f} s / {med[False][1]:.1f} s: "
        f"{med[False][0] / med[True][0]:.2f}x wall, {med[False][1] / med[True][1]:.2f}x CPU"
    )


if __name__ == "__main__":
    main()
