"""Baum-Welch convergence on synthetic protein families: structk's
``DiscreteHMM`` (plain EM, SQUAREM, two starting points, two stopping rules)
against hmmlearn's ``CategoricalHMM`` from the same starting point, and the
Fisher kernel's remote-homology ROC with each fitted model.

The families are those of ``accuracy_proteins.py`` (random ancestral
proteins diverged by BLOSUM62 substitutions and indels, SCOP-shaped; there is
no SCOP data here). As in Jaakkola et al. (2000), each experiment holds one
family out: an HMM is fitted to the other families of its superfamily (the
positive training set), and an SVM on the Fisher kernel of that HMM
(transition and emission scores; scikit-learn's ``SVC`` on the precomputed
Gram, ``C`` by 3-fold CV over 10^-2 .. 10^3: the SVM is the same for every
variant, only the HMM changes) ranks the held-out family among sequences of other superfamilies.

Variants, all from ``n_iter`` (default 200) E-steps at most:

* ``em``: plain Baum-Welch (``algorithm="em"``), otherwise ``DiscreteHMM()``'s
  defaults: ``init="random"``, ``tol=1e-6`` relative to the log-likelihood
  per symbol;
* ``hmmlearn``: ``CategoricalHMM`` with its default ``tol=1e-2`` (absolute,
  on the total log-likelihood), started from the same parameters as ``em``
  with the same pseudo-counts (``transmat_prior = emissionprob_prior = 1.01``),
  so both run the same iterations; "converged" counts runs that stopped
  before ``n_iter`` (hmmlearn itself reports every run as converged);
* ``em-absolute``: structk with hmmlearn's rule (``convergence="absolute"``,
  ``tol=1e-2``) - it must stop at the iteration hmmlearn stops at;
* ``squarem``: ``DiscreteHMM()``'s defaults (``algorithm="squarem"``), from
  the same start as ``em``;
* ``squarem-freq``: the same with ``init="frequencies"``.

Usage::

    python benchmarks/hmm_convergence_proteins.py [--states 2]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from accuracy_proteins import experiments, superfamilies  # noqa: E402


def fit_hmmlearn(X, start, n_iter, pseudocount):
    from hmmlearn.hmm import CategoricalHMM

    from structk.alphabets import resolve_alphabet

    symbols = resolve_alphabet("protein")
    codes = np.array([symbols.index(c) for c in "".join(X)])[:, None]
    pi, A, B = start
    m = CategoricalHMM(
        n_components=len(pi),
        n_iter=n_iter,
        init_params="",
        params="ste",
        implementation="scaling",
        transmat_prior=1 + pseudocount,
        emissionprob_prior=1 + pseudocount,
    )
    m.startprob_, m.transmat_, m.emissionprob_ = pi.copy(), A.copy(), B.copy()
    m.n_features = B.shape[1]
    t = time.perf_counter()
    m.fit(codes, [len(x) for x in X])
    seconds = time.perf_counter() - t
    return m, seconds, m.monitor_.iter, m.monitor_.iter < n_iter


def fisher_roc(hmm, X, train, ytr, test, yte):
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from sklearn.svm import SVC

    from structk import FisherKernel

    k = FisherKernel(hmm, parts=("transition", "emission")).fit(list(X[train]))
    F_train = k.features(list(X[train]))
    F_test = k.features(list(X[test]))
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    svm = GridSearchCV(SVC(kernel="precomputed"), {"C": list(np.logspace(-2, 3, 6))}, cv=cv)
    svm.fit(F_train @ F_train.T, ytr)
    return roc_auc_score(yte, svm.decision_function(F_test @ F_train.T))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--superfamilies", type=int, default=10)
    parser.add_argument("--families", type=int, default=4)
    parser.add_argument("--members", type=int, default=12)
    parser.add_argument("--length", type=int, default=150)
    parser.add_argument("--divergence", type=float, default=0.5)
    parser.add_argument("--states", type=int, default=2)
    parser.add_argument("--n-iter", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-fisher", action="store_true", help="skip the SVM experiments")
    args = parser.parse_args()

    from hmmlearn import __version__ as hmmlearn_version
    from sklearn.exceptions import ConvergenceWarning

    from structk import DiscreteHMM
    from structk import hmm as hmm_module

    X, sup, fam = superfamilies(
        args.superfamilies, args.families, args.members, args.length, args.divergence, args.seed
    )
    X = np.array(X, dtype=object)
    print(
        f"{len(X)} synthetic proteins ({args.superfamilies} superfamilies x "
        f"{args.families} families x {args.members}), {args.states}-state HMMs, "
        f"n_iter={args.n_iter}, hmmlearn {hmmlearn_version}"
    )
    variants = {
        "em": {"algorithm": "em"},
        "hmmlearn": None,
        "em-absolute": {"algorithm": "em", "convergence": "absolute", "tol": 1e-2},
        "squarem": {"algorithm": "squarem"},
        "squarem-freq": {"algorithm": "squarem", "init": "frequencies"},
    }
    rows = {name: [] for name in variants}
    same_stop = []
    warnings.simplefilter("ignore", ConvergenceWarning)
    for i, (train, ytr, test, yte) in enumerate(experiments(sup, fam, args.seed)):
        pos = list(X[train[ytr == 1]])
        n_symbols = sum(map(len, pos))
        fitted = {}
        for name, params in variants.items():
            if params is None:  # hmmlearn, from em's starting point
                start = hmm_module._random_params(np.random.RandomState(i), args.states, 20)
                hmm, seconds, iters, converged = fit_hmmlearn(
                    pos, start, args.n_iter, fitted["em"].pseudocount
                )
                ll = hmm.score(
                    np.array([[fitted["em"].alphabet_.index(c)] for c in "".join(pos)]),
                    [len(x) for x in pos],
                )
                hmm = DiscreteHMM.from_params(
                    hmm.startprob_, hmm.transmat_, hmm.emissionprob_, alphabet="protein"
                )
            else:
                hmm = DiscreteHMM(
                    args.states, "protein", n_iter=args.n_iter, random_state=i, **params
                )
                t = time.perf_counter()
                hmm.fit(pos)
                seconds = time.perf_counter() - t
                iters, converged = hmm.n_iter_, hmm.converged_
                ll = hmm.score(pos)
            fitted[name] = hmm
            roc = np.nan if args.no_fisher else fisher_roc(hmm, X, train, ytr, test, yte)
            rows[name].append((converged, iters, ll / n_symbols, seconds, roc))
        same_stop.append(rows["em-absolute"][-1][1] == rows["hmmlearn"][-1][1])
        print(
            f"experiment {i + 1}: "
            + ", ".join(f"{name} {int(r[-1][1])}" for name, r in rows.items()),
            file=sys.stderr,
            flush=True,
        )
    print(
        f"{len(rows['em'])} experiments; per variant: runs stopped by tol, "
        f"E-steps (median, max), final log-likelihood per symbol (mean), "
        f"fit time (sum), Fisher-kernel ROC (mean)\n"
    )
    print(
        f"{'variant':14s} {'converged':>10s} {'iterations':>12s} {'loglik/sym':>11s} "
        f"{'time':>8s} {'ROC':>6s}"
    )
    for name, r in rows.items():
        r = np.array(r, dtype=float)
        print(
            f"{name:14s} {int(r[:, 0].sum()):>4d} of {len(r):<3d} "
            f"{np.median(r[:, 1]):>5.0f}, {r[:, 1].max():>4.0f} {r[:, 2].mean():>11.5f} "
            f"{r[:, 3].sum():>7.2f}s {np.nanmean(r[:, 4]):>6.3f}"
        )
    print(
        f"\nem-absolute stopped at hmmlearn's iteration in {sum(same_stop)} of "
        f"{len(same_stop)} experiments"
    )


if __name__ == "__main__":
    main()
