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
* ``MKL-2`` (**the second declared model**, fixed and committed in this
  file before it was scored on any test part; ``--models MKL-2`` runs it
  alone)::

      c1 * Part(MinMax(), "morgan") + c2 * Part(MinMax(), "fragments")
    + c3 * Part(Normalize(WeisfeilerLehman(3, edge_label="label")), "graph")
    + c4 * Part(Gaussian(sigma), "descriptors")
    + c5 * Part(MinMax(), "atom pairs")       # RDKit's atom-pair counts
    + c6 * Part(MinMax(), "torsions")         # topological-torsion counts

  the declared model's four terms (WL depth 3: the depth the marginal
  likelihood chose on 17 of the 20 Photoswitch training parts in the
  declared model's run) and two more representations that RDKit computes
  from the graph: counts of atom pairs (two atoms' types and their
  topological distance, Carhart et al. 1985: how far apart a donor and an
  acceptor sit across the conjugated system) and of topological torsions
  (four bonded atoms in a row, Nilakantan et al. 1987), both unfolded
  (RDKit's sparse count fingerprints). The target is fitted twice, as the
  measured value and as its reciprocal (``K / y``, ``K`` = 1239.84 for
  wavelengths: the transition's energy in eV, the quantity the electronic
  structure sets; on the other data sets, whose targets change sign, only
  the measured value is fitted), and the fit with the higher marginal likelihood *of the measured
  values* is kept: the reciprocal's is corrected by the Jacobian
  ``sum log(K / y_i^2)`` and both for their standardisation
  (``-n log sd``), so the two are densities of the same numbers. A
  reciprocal fit predicts ``K (1/mu + s^2/mu^3)`` (the second-order mean of
  ``K / E`` for ``E ~ N(mu, s^2)``, ``s`` the predictive std with the
  noise); its 95 % interval is the image of ``mu +- 1.96 s`` and its NLPD
  the exact density of ``K / E``. Both fits are printed beside the chosen
  one (``MKL-2, measured`` and ``MKL-2, reciprocal``), as ablations.
* ``MKL-3`` (declared after MKL-2 was scored: its 95 % coverage on
  Photoswitch was 0.918, below the issue's 0.92-0.98): MKL-2's chosen fit,
  the same predictions, with its predictive standard deviations multiplied
  by one factor per split learned on the training part alone from the
  GP's closed-form leave-one-out residuals (Rasmussen & Williams 2006,
  Section 5.4.2): with ``a = (K + noise I)^{-1} y`` and
  ``d_i = [(K + noise I)^{-1}]_ii``, training object ``i`` left out has the
  standardised residual ``r_i = a_i / sqrt(d_i)`` (its leave-one-out
  predictive std including the noise is ``1 / sqrt(d_i)``); the factor is
  the 0.95 quantile of ``|r_i|`` over 1.96, so the training part's
  leave-one-out 95 % intervals cover 95 % of it. The hyperparameters are
  those fitted on the whole training part (not refitted per object).

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
        [--datasets photoswitch esol freesolv] [--models MKL-2 ...] [--gauche] [--output FILE]
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
    pairs, torsions = rdkit_counts(smiles)
    grams = {
        "morgan": MinMax()(morgan),
        "fragments": MinMax()(frags),
        "joined": MinMax()([{**m, **f} for m, f in zip(morgan, frags)]),
        "atom pairs": MinMax()(pairs),
        "torsions": MinMax()(torsions),
    }
    for h in WL_DEPTHS:
        grams[f"wl{h}"] = Normalize(WeisfeilerLehman(h=h, edge_label="label"))(graphs)
    return grams, descriptors(smiles)


def rdkit_counts(smiles):
    """Each molecule's atom-pair and topological-torsion counts, unfolded
    (RDKit's sparse count fingerprints), as ``{id: count}``."""
    from rdkit import Chem
    from rdkit.Chem import rdFingerprintGenerator

    pair = rdFingerprintGenerator.GetAtomPairGenerator()
    torsion = rdFingerprintGenerator.GetTopologicalTorsionGenerator()
    mols = [Chem.MolFromSmiles(s) for s in smiles]
    return (
        [dict(pair.GetSparseCountFingerprint(m).GetNonzeroElements()) for m in mols],
        [dict(torsion.GetSparseCountFingerprint(m).GetNonzeroElements()) for m in mols],
    )


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
        "MKL-2": [structure(3) + gauss + term("atom pairs") + term("torsions")],
    }


#: K of the reciprocal target K / y (MKL-2): eV nm for wavelengths.
RECIPROCAL = {"photoswitch": 1239.84198}


def fit_score_reciprocal(kernels, X, y, train, test, K):
    """MKL-2: the GP on ``y`` and on ``K / y``, the higher marginal
    likelihood of ``y`` kept; rows for both fits and the chosen one."""
    measured = fit_score(kernels, X, y, train, test, keep=True)
    n = len(train)
    measured["lml"] = measured["lml"] - n * np.log(y[train].std())
    E = K / y
    rows = {"MKL-2, measured": measured}
    if K is not None:
        rec = fit_score(kernels, X, E, train, test, score=False)
        jacobian = float(np.sum(np.log(K / y[train] ** 2)))
        rec["lml"] = rec["lml"] - n * np.log(E[train].std()) + jacobian
        rec["mu"], rec["s"] = rec.pop("mean"), rec.pop("sd")
        rec.update(reciprocal_scores(y[test], rec["mu"], rec["s"], K))
        rows["MKL-2, reciprocal"] = rec
    best = max(rows.values(), key=lambda r: r["lml"])
    rows["MKL-2"] = dict(best, seconds=sum(r["seconds"] for r in rows.values()))
    reciprocal = best is rows.get("MKL-2, reciprocal")
    rows["MKL-2"]["target"] = "reciprocal" if reciprocal else "measured"
    # MKL-3: the chosen fit's stds times its leave-one-out factor
    c = best["loo_scale"]
    if reciprocal:
        wider = reciprocal_scores(y[test], best["mu"], c * best["s"], K)
    else:
        wider = scores(y[test], best["mean"], c * best["sd"])
    rows["MKL-3"] = dict(rows["MKL-2"], **wider)
    return rows


def loo_scale(gp):
    """MKL-3's factor: the 0.95 quantile of the training part's standardised
    leave-one-out residuals over 1.96 (closed form from the fitted GP)."""
    from scipy.linalg import solve_triangular

    inverse_L = solve_triangular(gp.L_, np.eye(len(gp.L_)), lower=True)
    d = np.sum(inverse_L**2, axis=0)  # diag of (K + noise I)^{-1} = L^-T L^-1
    r = gp.alpha_ / np.sqrt(d)
    return float(np.quantile(np.abs(r), 0.95) / 1.96)


def reciprocal_scores(y_test, mu, s, K):
    """Scores in the measured units of a Gaussian prediction N(mu, s^2) of K / y."""
    point = K * (1.0 / mu + s**2 / mu**3)
    err = y_test - point
    E = K / y_test
    # density of y = K / E: N(E; mu, s) |dE/dy| = N(E; mu, s) K / y^2
    nlpd = 0.5 * np.log(2 * np.pi * s**2) + 0.5 * ((E - mu) / s) ** 2 - np.log(K / y_test**2)
    return dict(
        R2=1.0 - np.sum(err**2) / np.sum((y_test - y_test.mean()) ** 2),
        RMSE=float(np.sqrt(np.mean(err**2))),
        NLPD=float(np.mean(nlpd)),
        coverage=float(np.mean(np.abs(E - mu) <= 1.96 * s)),
    )


def fit_score(kernels, X, y, train, test, score=True, keep=False):
    from structk.learners import GaussianProcessRegressor

    start = time.perf_counter()
    kernel = kernels if len(kernels) > 1 else kernels[0]
    gp = GaussianProcessRegressor(kernel, noise=0.1, normalize_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a weight at its bound: it is printed
        gp.fit([X[i] for i in train], y[train])
    mean, sd = gp.predict([X[i] for i in test], return_std=True)
    row = scores(y[test], mean, sd) if score else dict(mean=mean, sd=sd)
    if score and keep:
        row.update(mean=mean, sd=sd)
    row["lml"] = gp.log_marginal_likelihood_value_
    row["loo_scale"] = loo_scale(gp)
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
    every = ["MKL (declared)", "MKL, structure only", "c * MinMax, Morgan + fragments", "MKL-2"]
    # MKL-3 comes with MKL-2 (the same fits)
    parser.add_argument("--models", nargs="+", default=every, choices=every)
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
                if model not in args.models:
                    continue
                if model == "MKL-2":
                    rows = fit_score_reciprocal(kernels, X, y, train, test, RECIPROCAL.get(name))
                else:
                    rows = {model: fit_score(kernels, X, y, train, test)}
                for label, row in rows.items():
                    results.setdefault(label, []).append(row)
                    if args.records:
                        keep = (*METRICS, "seconds", "depth", "lml", "target", "loo_scale")
                        record = {k: row[k] for k in keep if k in row}
                        record.update(
                            dataset=name, model=label, seed=seed, kernel=repr(row["kernel"])
                        )
                        with open(args.records, "a") as f:
                            f.write(json.dumps(record) + "\n")
                    print(
                        f"  split {seed:2d} {label:<32} RMSE {row['RMSE']:8.3f}  "
                        f"{row['seconds']:5.1f} s  {learned(row['kernel'])}, "
                        f"noise={row['noise']:.3g}, lml={row['lml']:.2f}, "
                        f"LOO std factor {row['loo_scale']:.3f}"
                        + (f", WL h={row['depth']}" if "depth" in row else "")
                        + (f", target: {row['target']}" if "target" in row else ""),
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
        for reference in ("MKL-2", "MKL (declared)"):
            if reference in results:
                break
        declared = results[reference]
        for other, rows in results.items():
            if other == reference:
                continue
            diff = np.array([o["RMSE"] - d["RMSE"] for d, o in zip(declared, rows)])
            wins = int(np.sum(diff > 0))
            say(
                f"  paired: {other} minus {reference} RMSE {{:.3f}} +- {{:.3f}}; ".format(
                    *mean_sem(diff)
                )
                + f"{reference} lower on {wins} of {len(diff)} splits"
            )
        if "MKL-2" in results:
            targets = [r["target"] for r in results["MKL-2"]]
            say(
                f"  MKL-2: the reciprocal target chosen on {targets.count('reciprocal')} of "
                f"{len(targets)} splits"
            )
        for model in ("MKL (declared)", "MKL, structure only"):
            if model not in results:
                continue
            depths = np.bincount([r["depth"] for r in results[model]], minlength=max(WL_DEPTHS) + 1)
            chosen = ", ".join(f"h={h}: {depths[h]}" for h in WL_DEPTHS)
            say(f"  {model}: WL depth chosen by the marginal likelihood on {chosen} splits")
    if args.output:
        Path(args.output).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
