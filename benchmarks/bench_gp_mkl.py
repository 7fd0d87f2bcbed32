"""Benchmark: multiple kernel learning by the marginal likelihood on Photoswitch, ESOL, FreeSolv.

GAUCHE's regression protocol (Griffiths et al., NeurIPS 2023), as in
``bench_gp.py`` and ``bench_gp_regression.py``: random 80/20 splits
(``train_test_split(test_size=0.2, random_state=seed)``, seeds 0 ..
``--seeds`` - 1, 20 by default as GAUCHE), targets standardised on each
training part (``normalize_y=True``), every kernel weight, bandwidth and the
noise by the marginal likelihood, scored on the test part: R^2, RMSE, mean
negative log predictive density (NLPD, nats per test object, target units)
and the fraction of test targets inside the 95 % intervals.

The models were fixed in this file (and committed) before any of them was
scored on a test part; every model below is reported, whichever wins.

Each molecule is one object holding several representations (a dict), and
the kernel is a sum whose every term looks at one of them through
:class:`structk.kernels.Part`, each term with its own learned weight
(multiple kernel learning by the marginal likelihood):

* ``MKL`` (**the declared model**)::

      c1 * Part(MinMax(), "morgan")            # exact Morgan count environments, radius 2
    + c2 * Part(MinMax(), "fragments")         # RDKit's 85 fragment counts
    + c3 * Part(Normalize(WeisfeilerLehman(h, edge_label="label")), "graph")
    + c4 * Part(Gaussian(sigma), "descriptors")

  ``h`` in {1, 2, 3, 4} chosen by the marginal likelihood on each training
  part (one fit each, the highest kept); the molecular graph from
  :func:`structk.datasets.from_smiles` (atoms labelled by element, bonds by
  type). The descriptors are RDKit's 2D descriptors (``Descriptors.descList``;
  a column that is not finite for every molecule dropped), standardised on
  the training part (mean and standard deviation of the training
  molecules; a column constant there dropped) and clipped to [-5, 5];
  ``sigma`` starts at the square root of their number. Every weight starts
  at 0.25, the noise at 0.1, no restarts.
* ``MKL, structure only`` (an ablation): the same without the descriptor
  term (``h`` chosen the same way).
* ``c * MinMax, Morgan + fragments`` (the baseline, ``bench_gp.py``'s model):
  one ``MinMax`` on the Morgan counts and fragment counts joined in one
  multiset.

The Gram matrices of the terms without continuous parameters (the two
``MinMax`` and the WL kernels) are computed once on all molecules and
looked up (``Precomputed`` of the row numbers): the same numbers as the
kernels on each split's objects, at the cost of indexing. The descriptor
term is computed on each split, from its own standardisation.

On Photoswitch, GAUCHE itself (``--gauche``, its Python in
``/work/venv-gauche``, ``bench_gauche.py``'s fragprints model: Tanimoto on
2048 Morgan bits and the fragment counts) runs on the same splits and the
difference in RMSE is printed per split (paired).

Published figures (as recorded in structk's issue 37): Photoswitch R^2
0.897 / RMSE 20.9 nm (GAUCHE's fragprints Tanimoto GP), ESOL RMSE 1.04 and
FreeSolv 1.47 (GAUCHE's WL-kernel GP).

Times are wall clock on a shared machine (other jobs running): indicative
only.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_gp_mkl.py [--quick] [--seeds 20]
        [--datasets photoswitch esol freesolv] [--gauche] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gp import load  # noqa: E402
from bench_gp_regression import MOLECULES, read_table, scores, split  # noqa: E402

WL_DEPTHS = (1, 2, 3, 4)
CLIP = 5.0
PUBLISHED = {
    "photoswitch": ("GAUCHE, fragprints Tanimoto GP (published)", {"R2": 0.897, "RMSE": 20.9}),
    "esol": ("GAUCHE, WL-kernel GP (as quoted in issue 37)", {"RMSE": 1.04}),
    "freesolv": ("GAUCHE, WL-kernel GP (as quoted in issue 37)", {"RMSE": 1.47}),
}
UNITS = {"photoswitch": "nm", "esol": "log mol/L", "freesolv": "kcal/mol"}
METRICS = ("R2", "RMSE", "NLPD", "coverage")


def descriptors(smiles):
    """RDKit's 2D descriptors of each molecule; the columns finite for all."""
    from rdkit import Chem, RDLogger
    from rdkit.Chem import Descriptors

    RDLogger.DisableLog("rdApp.*")
    mols = [Chem.MolFromSmiles(s) for s in smiles]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        D = np.array([[f(m) for _, f in Descriptors.descList] for m in mols], dtype=np.float64)
    return D[:, np.isfinite(D).all(axis=0)]


def featurise(smiles):
    """The Gram matrices of the fixed terms on all molecules, and the descriptors."""
    from structk.datasets import fragment_counts, from_smiles, morgan_environments
    from structk.kernels import MinMax, Normalize, WeisfeilerLehman

    morgan = morgan_environments(smiles, radius=2)
    frags = fragment_counts(smiles)
    graphs = from_smiles(smiles)
    grams = {
        "morgan": MinMax()(morgan),
        "fragments": MinMax()(frags),
        "joined": MinMax()([{**m, **f} for m, f in zip(morgan, frags)]),
    }
    for h in WL_DEPTHS:
        grams[f"wl{h}"] = Normalize(WeisfeilerLehman(h=h, edge_label="label"))(graphs)
    return grams, descriptors(smiles)


def standardised(D, train):
    """Descriptors standardised on the training rows, clipped; constant columns dropped."""
    mu, sd = D[train].mean(axis=0), D[train].std(axis=0)
    keep = sd > 0
    return np.clip((D[:, keep] - mu[keep]) / sd[keep], -CLIP, CLIP)


def objects(n, Z):
    """One dict per molecule: its row number (the looked-up Grams) and descriptors."""
    return [{"row": i, "descriptors": Z[i]} for i in range(n)]


def models(grams, n_descriptors):
    """name -> list of kernels (the marginal likelihood picks one per split)."""
    from structk.kernels import Gaussian, Part, Precomputed

    def term(name):
        return 0.25 * Part(Precomputed(grams[name]), "row")

    def structure(h):
        return term("morgan") + term("fragments") + term(f"wl{h}")

    gauss = 0.25 * Part(Gaussian(sigma=float(np.sqrt(n_descriptors))), "descriptors")
    return {
        "MKL (declared)": [structure(h) + gauss for h in WL_DEPTHS],
        "MKL, structure only": [structure(h) for h in WL_DEPTHS],
        "c * MinMax, Morgan + fragments": [1.0 * Part(Precomputed(grams["joined"]), "row")],
    }


def fit_score(kernels, X, y, train, test):
    from structk.learners import GaussianProcessRegressor

    start = time.perf_counter()
    kernel = kernels if len(kernels) > 1 else kernels[0]
    gp = GaussianProcessRegressor(kernel, noise=0.1, normalize_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a weight at its bound: it is printed
        gp.fit([X[i] for i in train], y[train])
    mean, sd = gp.predict([X[i] for i in test], return_std=True)
    row = scores(y[test], mean, sd)
    row["seconds"] = time.perf_counter() - start
    row["kernel"], row["noise"] = gp.kernel_, gp.noise_
    if len(kernels) > 1:  # the kernels of WL_DEPTHS, in order
        row["depth"] = WL_DEPTHS[int(np.argmax([v for _, v in gp.candidates_]))]
    return row


def mean_sem(values):
    values = np.asarray(values, dtype=float)
    sem = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return values.mean(), sem


def learned(kernel):
    """The learned weights (and WL depth, bandwidth) of a fitted kernel, short."""
    return ", ".join(
        f"{h.name.replace('kernel__', '').replace('__factor', '')}={h.value:.3g}"
        for h in kernel.hyperparameters
    )


def run_gauche(python, smiles, y, seeds):
    """GAUCHE's fragprints GP on the same splits (bench_gauche.py's)."""
    from bench_gauche import features, run_gauche

    masks = np.zeros((len(seeds), len(y)), dtype=bool)
    for row, seed in enumerate(seeds):
        masks[row, split(len(y), seed)[0]] = True
    X = features(smiles)["fragprints"]
    rows, _ = run_gauche(python, X, y, masks)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="random 80/20 splits (20)")
    parser.add_argument("--quick", action="store_true", help="3 splits")
    names = list(UNITS)
    parser.add_argument("--datasets", nargs="+", default=names, choices=names)
    parser.add_argument("--gauche", action="store_true", help="run GAUCHE on Photoswitch too")
    parser.add_argument(
        "--gauche-python",
        default=os.environ.get("GAUCHE_PYTHON", "/work/venv-gauche/bin/python"),
    )
    parser.add_argument(
        "--split-seeds", type=int, nargs="+", help="run these splits only (instead of --seeds)"
    )
    parser.add_argument("--output", metavar="FILE", help="also write the tables to FILE")
    parser.add_argument(
        "--records", metavar="FILE", help="append each split's scores to FILE (JSON lines)"
    )
    args = parser.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("set STRUCTK_DATA to the data folder (molecules/)")
    seeds = list(range(3 if args.quick else args.seeds))
    if args.split_seeds:
        seeds = args.split_seeds
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    say(f"# bench_gp_mkl.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    say(
        f"# {len(seeds)} random 80/20 splits; mean +- standard error over the splits; "
        f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; load average "
        f"{os.getloadavg()[0]:.1f}; times: wall clock on a shared machine, indicative only"
    )
    for name in args.datasets:
        if name == "photoswitch":
            smiles, y = load(root)
        else:
            smiles, y = read_table(root, MOLECULES[name])
        start = time.perf_counter()
        grams, D = featurise(smiles)
        say(
            f"\n{name}: {len(y)} molecules, target in {UNITS[name]}; {D.shape[1]} finite "
            f"descriptors; featurised in {time.perf_counter() - start:.1f} s"
        )
        results = {}
        for seed in seeds:
            train, test = split(len(y), seed)
            Z = standardised(D, train)
            X = objects(len(y), Z)
            for model, kernels in models(grams, Z.shape[1]).items():
                row = fit_score(kernels, X, y, train, test)
                results.setdefault(model, []).append(row)
                if args.records:
                    record = {k: row[k] for k in (*METRICS, "seconds", "depth") if k in row}
                    record.update(dataset=name, model=model, seed=seed, kernel=repr(row["kernel"]))
                    with open(args.records, "a") as f:
                        f.write(json.dumps(record) + "\n")
                print(
                    f"  split {seed:2d} {model:<32} RMSE {row['RMSE']:8.3f}  "
                    f"{row['seconds']:5.1f} s  {learned(row['kernel'])}, noise={row['noise']:.3g}"
                    + (f", WL h={row['depth']}" if len(kernels) > 1 else ""),
                    flush=True,
                )
        if name == "photoswitch" and args.gauche:
            results["GAUCHE fragprints (run here)"] = run_gauche(
                args.gauche_python, smiles, y, seeds
            )
        head = " ".join(f"{k:>15}" for k in ("R2", "RMSE", "NLPD", "95% cover"))
        say(f"  {'model':<32} {head} {'s/split':>8}")
        for model, rows in results.items():
            cells = " ".join(
                "{:7.3f} +- {:.3f}".format(*mean_sem([r[k] for r in rows])) for k in METRICS
            )
            say(f"  {model:<32} {cells} {np.mean([r['seconds'] for r in rows]):8.2f}")
        source, figures = PUBLISHED[name]
        cells = " ".join(f"{figures[k]:>15.3f}" if k in figures else f"{'':>15}" for k in METRICS)
        say(f"  {'published':<32} {cells}   {source}")
        declared = results["MKL (declared)"]
        for other, rows in results.items():
            if other == "MKL (declared)":
                continue
            diff = np.array([o["RMSE"] - d["RMSE"] for d, o in zip(declared, rows)])
            wins = int(np.sum(diff > 0))
            say(
                f"  paired: {other} minus MKL (declared) RMSE {{:.3f}} +- {{:.3f}}; ".format(
                    *mean_sem(diff)
                )
                + f"MKL lower on {wins} of {len(diff)} splits"
            )
        for model in ("MKL (declared)", "MKL, structure only"):
            depths = np.bincount([r["depth"] for r in results[model]], minlength=max(WL_DEPTHS) + 1)
            chosen = ", ".join(f"h={h}: {depths[h]}" for h in WL_DEPTHS)
            say(f"  {model}: WL depth chosen by the marginal likelihood on {chosen} splits")
    if args.output:
        Path(args.output).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
