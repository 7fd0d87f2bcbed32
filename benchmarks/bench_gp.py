"""Benchmark: Gaussian-process regression on Photoswitch, GAUCHE's protocol.

The E-isomer pi-pi* transition wavelength of 392 photoswitches
(``$STRUCTK_DATA/molecules/photoswitch/Photoswitch.csv``), 20 random 80/20
splits (``train_test_split(random_state=seed)``, seeds 0-19), the targets
standardised on each training part (``normalize_y=True``), and the
hyperparameters (output scale, noise) by the marginal likelihood. The
kernel is ``MinMax`` (Tanimoto on counts) on exact, unhashed Morgan count
fingerprints (:func:`structk.datasets.morgan_environments`) joined with
RDKit's fragment counts (``fr_*`` descriptors,
:func:`structk.datasets.fragment_counts`): the tokens of one multiset per
molecule. The Morgan radius is
chosen on each training part by the marginal likelihood among
``--radius`` (default 1, 2 and 3), never by the test part. GAUCHE
(Griffiths et al., NeurIPS 2023) reports R^2 0.897 and RMSE 20.9 nm for
its Tanimoto GP on fingerprint + fragment counts under this protocol.

Printed per split and as mean +- standard error over the splits: R^2, RMSE
(nm), the mean negative log predictive density (NLPD, nats per test
molecule, from the predictive mean and standard deviation with the learned
noise) and the fraction of test wavelengths inside the 95 % intervals
(mean +- 1.96 sd). Times are wall-clock on whatever else the machine runs.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_gp.py [--quick] [--radius 1 2 3]
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

TARGET = "E isomer pi-pi* wavelength in nm"
GAUCHE = {"R2": 0.897, "RMSE": 20.9}


def load(root):
    """SMILES and wavelengths of the rows that have the target (392 of 405)."""
    import csv

    with open(Path(root) / "molecules" / "photoswitch" / "Photoswitch.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r[TARGET].strip()]
    return [r["SMILES"] for r in rows], np.array([float(r[TARGET]) for r in rows])


def count_tokens(smiles, radius):
    """One multiset per molecule: its exact Morgan environments up to
    ``radius`` and its fragment counts, as {token: count}
    (:func:`structk.datasets.morgan_environments` and
    :func:`structk.datasets.fragment_counts`; their tokens cannot clash)."""
    from structk.datasets import fragment_counts, morgan_environments

    morgan = morgan_environments(smiles, radius=radius)
    return [{**m, **f} for m, f in zip(morgan, fragment_counts(smiles))]


def evaluate(featurised, y, seed):
    """Fit one GP per radius on the training part, keep the highest log
    marginal likelihood, score it on the test part."""
    from sklearn.model_selection import train_test_split

    from structk.kernels import MinMax
    from structk.learners import GaussianProcessRegressor

    train, test = train_test_split(np.arange(len(y)), test_size=0.2, random_state=seed)
    start = time.perf_counter()
    fits = []
    for radius, objects in featurised.items():
        gp = GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the learned values are printed
            gp.fit([objects[i] for i in train], y[train])
        fits.append((gp.log_marginal_likelihood_value_, radius, gp, objects))
    _, radius, gp, objects = max(fits, key=lambda f: f[0])
    mean, sd = gp.predict([objects[i] for i in test], return_std=True)
    seconds = time.perf_counter() - start
    err = y[test] - mean
    rmse = float(np.sqrt(np.mean(err**2)))
    r2 = 1.0 - np.sum(err**2) / np.sum((y[test] - y[test].mean()) ** 2)
    nlpd = float(np.mean(0.5 * np.log(2 * np.pi * sd**2) + 0.5 * (err / sd) ** 2))
    coverage = float(np.mean(np.abs(err) <= 1.96 * sd))
    scale, noise = gp.kernel_.factor, gp.noise_ * np.var(y[train])
    return dict(
        R2=r2,
        RMSE=rmse,
        NLPD=nlpd,
        coverage=coverage,
        seconds=seconds,
        scale=scale,
        noise_sd_nm=float(np.sqrt(noise)),
        radius=radius,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 splits instead of 20")
    parser.add_argument(
        "--radius",
        type=int,
        nargs="+",
        default=[1, 2, 3],
        help="Morgan radii to choose from by the marginal likelihood",
    )
    args = parser.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("set STRUCTK_DATA to the folder holding molecules/photoswitch/")
    smiles, y = load(root)
    start = time.perf_counter()
    featurised = {r: count_tokens(smiles, r) for r in args.radius}
    featurise = time.perf_counter() - start
    tokens = ", ".join(
        f"radius {r}: {np.mean([len(o) for o in objects]):.1f}" for r, objects in featurised.items()
    )
    print(
        f"Photoswitch: {len(y)} molecules, target {TARGET!r}; Morgan counts + "
        f"fragment counts (distinct tokens per molecule, {tokens}), featurised in "
        f"{featurise:.1f} s"
    )
    rows = []
    print(
        f"{'split':>5} {'radius':>6} {'R2':>7} {'RMSE':>7} {'NLPD':>7} {'cover':>6} "
        f"{'scale':>7} {'noise sd':>8} {'fit+pred s':>10}"
    )
    for seed in range(3 if args.quick else 20):
        r = evaluate(featurised, y, seed)
        rows.append(r)
        print(
            f"{seed:>5} {r['radius']:>6} {r['R2']:7.3f} {r['RMSE']:7.2f} {r['NLPD']:7.3f} "
            f"{r['coverage']:6.3f} {r['scale']:7.3f} {r['noise_sd_nm']:8.2f} "
            f"{r['seconds']:10.2f}"
        )
    print(
        f"\nmean +- standard error over {len(rows)} splits (times: wall clock for "
        f"{len(featurised)} fits and the prediction, on a shared, busy machine; "
        "indicative only)"
    )
    for key in ("R2", "RMSE", "NLPD", "coverage", "seconds"):
        values = np.array([r[key] for r in rows])
        sem = values.std(ddof=1) / np.sqrt(len(values))
        ref = f"   GAUCHE {GAUCHE[key]}" if key in GAUCHE else ""
        print(f"  {key:9} {values.mean():8.3f} +- {sem:.3f}{ref}")


if __name__ == "__main__":
    main()
