"""``structk fit`` with an open regularisation grid: one Gram, not two.

The inner cross-validation that chooses ``C`` (or ``alpha``) needs the
training objects' Gram matrix; the final fit needs it again. ``structk
fit`` prepares the objects and computes the Gram once and hands it to the
final fit (:func:`structk.learners._base.fit_with_gram`). This script
times, in one process on the same data, the inner cross-validation, the
final fit computing the Gram anew (what a plain ``model.fit`` does) and
the final fit handed the inner cross-validation's Gram, and checks that
both final models predict the same. Default input: the nfe2 positive and
negative training windows from ``$STRUCTK_DATA`` (1,288 sequences) with
``GappedKmer(l=11, k=7, d=3, kind='truncated')`` and ``KernelSVM``'s
default ``C`` grid. There is no peer: this measures structk against
itself.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_fit_gram_once.py \\
        [--kernel EXPR] [--learner EXPR] [--n 300]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np


def clock():
    return time.perf_counter(), time.process_time()


def main(argv=None):
    from sklearn.base import clone

    from structk.cli import model_commands as mc
    from structk.cli.commands import _kernel, task_and_targets
    from structk.learners._base import fit_with_gram

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default="GappedKmer(l=11, k=7, d=3, kind='truncated')")
    ap.add_argument("--learner", default=None, help="default KernelSVM() (C grid)")
    ap.add_argument("--n", type=int, default=None, help="a random subset of the sequences")
    args = ap.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("set STRUCTK_DATA to the data folder (sequences/nfe2/)")
    nfe2 = Path(root) / "sequences" / "nfe2"
    opts = SimpleNamespace(
        positive=nfe2 / "pos.train.fa",
        negative=nfe2 / "neg.train.fa",
        input=None,
        alphabet=None,
        label_pattern=None,
        labels=None,
        label_column=None,
        smiles_column=None,
        target_column=None,
        inner_folds=5,
        seed=0,
        quiet=True,
        no_nested=False,
        learner=args.learner,
        task="auto",
        kernel=args.kernel,
    )
    data = mc._training_data(opts)
    if args.n is not None:
        keep = np.sort(np.random.default_rng(0).permutation(len(data.objects))[: args.n])
        data.objects = [data.objects[i] for i in keep]
        data.labels = data.labels[keep]
        data.names = [data.names[i] for i in keep]
    task, y = task_and_targets(data, "auto")
    kernel = _kernel(args.kernel, data)
    spec, _ = mc._learner(opts, task)
    if not spec.grid:
        sys.exit("the learner leaves no regularisation open: nothing is chosen, one Gram")
    warnings.simplefilter("ignore")
    w0, c0 = clock()
    chosen, _, trained = mc._choose_params(spec, kernel, data.objects, y, task, opts)
    w1, c1 = clock()
    again = clone(spec.estimator).set_params(kernel=kernel, **chosen).fit(data.objects, y)
    w2, c2 = clock()
    handed = fit_with_gram(
        clone(spec.estimator).set_params(kernel=kernel, **chosen), data.objects, y, *trained
    )
    w3, c3 = clock()
    T = data.objects[:100]
    np.testing.assert_allclose(
        again.decision_function(T), handed.decision_function(T), rtol=1e-9, atol=1e-12
    )
    print(
        f"{args.kernel}, {spec.name}, n = {len(y)}, chosen {chosen} "
        f"({time.strftime('%Y-%m-%d')}, load {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores)"
    )
    rows = [
        ("inner CV (prepare + Gram + folds)", w1 - w0, c1 - c0),
        ("final fit computing the Gram again", w2 - w1, c2 - c1),
        ("final fit handed the inner CV's Gram", w3 - w2, c3 - c2),
        ("whole fit, Gram twice", w2 - w0, c2 - c0),
        ("whole fit, Gram once (structk fit)", (w1 - w0) + (w3 - w2), (c1 - c0) + (c3 - c2)),
    ]
    for what, wall, cpu in rows:
        print(f"  {what:38s} {wall:8.2f} s wall {cpu:8.2f} s CPU")


if __name__ == "__main__":
    main()
