"""Benchmark: Bayesian optimisation on Photoswitch, best wavelength found.

The pool is the 392 labelled photoswitches of
``$STRUCTK_DATA/molecules/photoswitch/Photoswitch.csv``; the objective is the
E-isomer pi-pi* wavelength (nm), to maximise. Each run starts from a random
subset (``--start``: a number of molecules, or a fraction of the 392), then
for ``--iterations`` rounds fits ``GaussianProcessRegressor(1.0 * MinMax(),
noise=0.1, normalize_y=True)`` (output scale and noise by the marginal
likelihood) on what has been measured, proposes ``--batch`` molecules of the
rest with :func:`structk.optimize.suggest` and "measures" them (reads their
wavelength). Strategies: ``ei``, ``logei``, ``ucb`` (beta 4), ``thompson``
and ``random`` (uniform draws from the rest). The molecules are the
multisets of bench_gp.py (exact Morgan count environments of radius
``--radius``, default 2, and RDKit fragment counts); the MinMax Gram of all
392 is computed once and looked up (``Precomputed``), the same numbers as
``MinMax`` on the multisets.

GAUCHE (Griffiths et al., NeurIPS 2023; its Bayesian-optimisation tutorial)
starts from 5 % of the data (holdout 0.95, about 20 molecules), proposes one
molecule per iteration by EI with a Tanimoto GP on fragprints, and reports
the best wavelength rising from about 537 nm to about 614 nm in 20
iterations over 20 trials, against about 567 nm for random search:
``--start 0.05 --batch 1`` is that protocol.

Printed: the best wavelength found after 0, 5, 10, 15 and 20 iterations, mean
+- standard error over the seeds, per strategy; ``--plot FILE`` saves the
curves (matplotlib, imported only then).

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_bo.py [--seeds 20]
        [--start 0.05] [--batch 1] [--iterations 20] [--plot bo.png]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

STRATEGIES = ("ei", "logei", "ucb", "thompson", "random")
GAUCHE = {"start": 537.0, "ei": 614.0, "random": 567.0}


def minmax_gram(objects):
    """The MinMax (Tanimoto on counts) Gram of all molecules, once."""
    from structk.kernels import MinMax

    return MinMax()(objects)


def run(K, y, strategy, seed, start, batch, iterations):
    """Best target found after each iteration (``iterations + 1`` values)."""
    from structk.kernels import Precomputed
    from structk.learners import GaussianProcessRegressor
    from structk.optimize import suggest

    rng = np.random.default_rng(seed)
    measured = list(rng.choice(len(y), size=start, replace=False))
    best = [float(y[measured].max())]
    kernel = 1.0 * Precomputed(K)
    for it in range(iterations):
        rest = np.setdiff1d(np.arange(len(y)), measured)
        if strategy == "random":
            chosen = rng.choice(rest, size=batch, replace=False)
        else:
            gp = GaussianProcessRegressor(kernel, noise=0.1, normalize_y=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # optima at bounds on tiny starts
                gp.fit(np.array(measured), y[measured])
            s = suggest(
                gp,
                rest,
                n=batch,
                acquisition=strategy,
                in_training="keep",  # distinct molecules may share a fingerprint
                random_state=seed * 1000 + it,
            )
            chosen = rest[s.index]
        measured += [int(i) for i in chosen]
        best.append(float(y[measured].max()))
    return np.array(best)


def main(argv=None):
    from bench_gp import count_tokens, load

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument(
        "--start",
        type=float,
        default=0.05,
        help="initial molecules: a number, or a fraction of the data below 1 (default 0.05)",
    )
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--radius", type=int, default=2)
    parser.add_argument("--strategies", nargs="+", default=list(STRATEGIES), choices=STRATEGIES)
    parser.add_argument(
        "--show",
        type=int,
        nargs="+",
        default=[0, 5, 10, 15, 20],
        help="iterations shown in the table (default 0 5 10 15 20)",
    )
    parser.add_argument("--plot", metavar="FILE", help="save the curves (needs matplotlib)")
    parser.add_argument(
        "--calibration",
        action="store_true",
        help="instead: the GP's calibration on --seeds random 80/20 splits "
        "(--plot: predicted std against error)",
    )
    args = parser.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("set STRUCTK_DATA to the folder holding molecules/photoswitch/")
    smiles, y = load(root)
    start = int(round(args.start * len(y))) if args.start < 1 else int(args.start)
    t0 = time.perf_counter()
    K = minmax_gram(count_tokens(smiles, args.radius))
    seconds = time.perf_counter() - t0
    print(
        f"Photoswitch: {len(y)} molecules, best wavelength in the data {y.max():.0f} nm "
        f"(featurised and Gram in {seconds:.1f} s)"
    )
    if args.calibration:
        return calibrate(K, y, args)
    print(
        f"start {start} random molecules, {args.iterations} iterations of batch "
        f"{args.batch}, {args.seeds} seeds"
    )
    curves = {}
    for strategy in args.strategies:
        t0 = time.perf_counter()
        curves[strategy] = np.array(
            [
                run(K, y, strategy, seed, start, args.batch, args.iterations)
                for seed in range(args.seeds)
            ]
        )
        print(f"  {strategy}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    shown = sorted({i for i in args.show + [args.iterations] if 0 <= i <= args.iterations})
    print(
        f"\nbest wavelength found (nm), mean +- standard error over {args.seeds} seeds, "
        f"after {args.batch} molecule(s) per iteration"
    )
    print(f"{'iteration':>10}" + "".join(f"{i:>15}" for i in shown))
    for strategy, c in curves.items():
        sem = c.std(axis=0, ddof=1) / np.sqrt(len(c)) if len(c) > 1 else 0 * c[0]
        cells = "".join(f"{c[:, i].mean():>8.1f} +- {sem[i]:4.1f}" for i in shown)
        print(f"{strategy:>10}{cells}")
    if args.batch == 1 and abs(start - 0.05 * len(y)) <= 1:
        print(
            f"{'GAUCHE':>10}{GAUCHE['start']:>15.0f}"
            + f"   (20 iterations: EI {GAUCHE['ei']:.0f}, random {GAUCHE['random']:.0f};"
            " read off its tutorial's figure)"
        )
    if args.plot:
        plot(curves, args, start)
    return curves


def calibrate(K, y, args):
    """Coverage of the GP's predictive intervals on held-out molecules,
    pooled over ``args.seeds`` random 80/20 splits."""
    from sklearn.model_selection import train_test_split

    from structk.kernels import Precomputed
    from structk.learners import GaussianProcessRegressor
    from structk.optimize import calibration

    targets, means, stds = [], [], []
    for seed in range(args.seeds):
        train, test = train_test_split(np.arange(len(y)), test_size=0.2, random_state=seed)
        gp = GaussianProcessRegressor(1.0 * Precomputed(K), noise=0.1, normalize_y=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gp.fit(train, y[train])
        mean, std = gp.predict(test, return_std=True)
        targets.append(y[test])
        means.append(mean)
        stds.append(std)
    y_, m_, s_ = (np.concatenate(a) for a in (targets, means, stds))
    c = calibration(y_, m_, s_)
    print(f"\ncalibration on {args.seeds} random 80/20 splits ({len(y_)} predictions)")
    print("  nominal  " + "".join(f"{v:>7.2f}" for v in c.levels))
    print("  coverage " + "".join(f"{v:>7.3f}" for v in c.coverage))
    print(f"  NLPD {c.nlpd:.3f} nats; Spearman(std, |error|) {c.std_error_correlation:.3f}")
    print("  by predicted std (5 groups): rms std " + " ".join(f"{v:.1f}" for v in c.bin_std))
    print("                               rmse    " + " ".join(f"{v:.1f}" for v in c.bin_rmse))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.5))
        a.scatter(s_, np.abs(y_ - m_), s=4, alpha=0.4)
        a.plot(c.bin_std, c.bin_rmse, "o-", color="C1", label="rmse per std group")
        top = float(max(c.bin_std.max(), c.bin_rmse.max()))
        a.plot([0, top], [0, top], "k--", lw=0.8, label="calibrated")
        a.set_xlabel("predicted std (nm)")
        a.set_ylabel("|error| (nm)")
        a.legend()
        b.plot([0, 1], [0, 1], "k--", lw=0.8)
        b.plot(c.levels, c.coverage, "o-")
        b.set_xlabel("nominal coverage")
        b.set_ylabel("observed coverage")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"calibration plot saved to {args.plot}")
    return c


def plot(curves, args, start):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for strategy, c in curves.items():
        x = np.arange(c.shape[1])
        m = c.mean(axis=0)
        sem = c.std(axis=0, ddof=1) / np.sqrt(len(c)) if len(c) > 1 else 0 * m
        ax.plot(x, m, label=strategy)
        ax.fill_between(x, m - sem, m + sem, alpha=0.2)
    ax.set_xlabel(f"iteration (batch of {args.batch})")
    ax.set_ylabel("best E-isomer wavelength found (nm)")
    ax.set_title(f"Photoswitch, {start} random starts, {len(c)} seeds")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.plot, dpi=120)
    print(f"curves saved to {args.plot}")


if __name__ == "__main__":
    main()
