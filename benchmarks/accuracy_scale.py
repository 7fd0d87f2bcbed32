"""Accuracy of the paths past the Gram against the exact solver, same folds.

On splice (UCI, 3 classes), PTC_MR and ENZYMES (TU, 2 and 6 classes) from
``$STRUCTK_DATA``: stratified 10-fold cross-validation (one shuffled split,
``random_state=0``, the same folds for every path), ``KernelSVM(C=1)`` with
the hinge loss, fitted by

* ``dual``: SMO on the exact Gram matrix (the reference),
* ``primal``: LIBLINEAR on the kernel's features (kernels with fixed or
  keyed feature columns: here the spectrum and WL optimal assignment
  kernels),
* ``nystroem``: LIBLINEAR on Nyström features with the default number of
  landmarks (``n_components=None``: 1000, or every training object when
  there are fewer) and with fewer (``--m``), uniform landmarks.

Prints the mean accuracy (and its standard deviation over folds), the
difference to the exact solver in accuracy points, and the mean fit time.
Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/accuracy_scale.py [--m 100 --m 300]
        [--dataset ENZYMES] [--path dual --path primal]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np


def datasets(root):
    from structk.datasets import load_splice, load_tu
    from structk.kernels import (
        Normalize,
        Spectrum,
        WeightedDegree,
        WeisfeilerLehmanOptimalAssignment,
    )

    splice = load_splice(Path(root) / "sequences" / "splice" / "splice.data")
    X, y = list(splice.sequences), np.asarray(splice.target)
    yield ("splice", "Normalize(Spectrum(k=3))", Normalize(Spectrum(k=3, unknown="skip")), X, y)
    yield (
        "splice",
        "Normalize(WeightedDegree(d=8))",
        Normalize(WeightedDegree(d=8, unknown="skip")),
        X,
        y,
    )
    for name in ("PTC_MR", "ENZYMES"):
        G, y = load_tu(Path(root) / "graphs" / name)[:2]
        yield (
            name,
            "Normalize(WLOA(h=5))",
            Normalize(WeisfeilerLehmanOptimalAssignment(h=5)),
            list(G),
            np.asarray(y),
        )


def evaluate(kernel, X, y, folds, **kw):
    from structk.learners import KernelSVM

    accs, times = [], []
    for train, test in folds:
        model = KernelSVM(kernel, C=1.0, tol=1e-4, random_state=0, **kw)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit([X[i] for i in train], y[train])
        times.append(time.perf_counter() - t0)
        accs.append(float((model.predict([X[i] for i in test]) == y[test]).mean()))
    return 100 * np.mean(accs), 100 * np.std(accs), np.mean(times)


def main(argv=None):
    from sklearn.model_selection import StratifiedKFold

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, action="append", help="also Nyström with m landmarks")
    ap.add_argument("--dataset", action="append")
    ap.add_argument(
        "--path", action="append", help="only these paths (dual, primal, nystroem; default all)"
    )
    args = ap.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("set STRUCTK_DATA to the data folder (graphs/, sequences/)")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _timing import print_table

    rows = []
    from structk.learners.primal import has_fixed_features

    for name, kname, kernel, X, y in datasets(root):
        if args.dataset and name not in args.dataset:
            continue
        folds = list(StratifiedKFold(10, shuffle=True, random_state=0).split(np.zeros(len(y)), y))
        paths = [("dual", {"solver": "dual"})]
        if has_fixed_features(kernel):
            paths.append(("primal", {"solver": "primal"}))
        paths.append(("nystroem m=default", {"solver": "nystroem"}))
        for m in args.m or []:
            paths.append((f"nystroem m={m}", {"solver": "nystroem", "n_components": m}))
        if args.path:
            paths = [(p, kw) for p, kw in paths if p.split()[0] in args.path]
        exact = None
        for path, kw in paths:
            acc, sd, t = evaluate(kernel, X, y, folds, **kw)
            exact = acc if exact is None else exact
            rows.append(
                [name, kname, path, f"{acc:.2f} ± {sd:.2f}", f"{acc - exact:+.2f}", f"{t:.2f}"]
            )
            print(*rows[-1], sep=" | ", flush=True)
    print()
    print_table(rows, ["data", "kernel", "path", "accuracy %", "vs dual", "fit s"])


if __name__ == "__main__":
    main()
