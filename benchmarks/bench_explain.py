"""Explanations: in-silico mutagenesis and contributions, structk against recomputation.

Two goals of structk.explain, timed in one run (medians of ``--repeats``):

* ISM of one 1,000-nt sequence (3,000 substitutions) under a spectrum SVM
  (``Spectrum(k=6)``, and normalised) with at least 2,000 support vectors:
  the explainer collapses the support vectors into one weight per k-mer
  (timed as "setup", once per model) and updates only the k-mers a
  substitution changes. The reference is what a user would do without it:
  ``decision_function`` on the 3,000 mutants (kernel values against every
  support vector), whose results it must equal to 1e-9.
* contributions of 10,000 sequences of 200 nt, against the decision
  function of the same sequences (which the contributions sum to).

``--gkm`` adds the gapped k-mer SVM (``GappedKmer()``: l = 11, k = 7,
d = 3, truncated filter, both strands, normalised; ``--gkm-train`` random
sequences of 200 nt, random labels) and its peer: the same model handed to
gkmsvm-lite (its ``GkmSVM`` built from structk's support vectors and
coefficients, kernel "estimated"), whose ``ism`` must agree, timed beside
structk's (setup = the l-mer weight table, once per model).

Wall times are medians; "CPU" is the median CPU time of the process (all
threads) for the same runs, and the 1-minute load average is printed
before and after (the machine may be shared).

    python benchmarks/bench_explain.py            # full sizes
    python benchmarks/bench_explain.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import median_wall_cpu, print_table  # noqa: E402


def random_dna(n, length, rng):
    return ["".join(s) for s in rng.choice(list("ACGT"), size=(n, length))]


def mutants(seq):
    out = []
    for p, base in enumerate(seq):
        out.extend(seq[:p] + b + seq[p + 1 :] for b in "ACGT" if b != base)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--gkm", action="store_true", help="also the gapped k-mer SVM")
    parser.add_argument("--only-gkm", action="store_true", help="the gapped k-mer SVM only")
    parser.add_argument(
        "--gkm-train", type=int, default=2000, help="training sequences of the gapped k-mer SVM"
    )
    args = parser.parse_args()

    from structk.explain import Explainer
    from structk.kernels import Normalize, Spectrum
    from structk.learners import KernelSVM

    rng = np.random.default_rng(0)
    n_train = 600 if args.quick else 3000
    n_contrib = 500 if args.quick else 10_000
    L = 200 if args.quick else 1000
    X = random_dna(n_train, 200, rng)
    y = rng.integers(0, 2, n_train)  # random labels: nearly every object a support vector
    seq = random_dna(1, L, rng)[0]
    muts = mutants(seq)
    T = random_dna(n_contrib, 200, rng)
    rows = []
    load_before = os.getloadavg()[0]
    if args.only_gkm:
        gkm(args, rng, seq)
        return
    for kernel in (Spectrum(k=6), Normalize(Spectrum(k=6))):
        model = KernelSVM(kernel=kernel, C=1.0).fit(X, y)
        n_sv = len(model.support_)
        ex = Explainer(model)
        delta = ex.ism(seq)
        ref = model.decision_function(muts) - model.decision_function([seq])[0]
        got = np.array(
            [delta[p, "ACGT".index(m[p])] for p, m in zip(np.repeat(np.arange(L), 3), muts)]
        )
        err = float(np.abs(got - ref).max() / max(1.0, np.abs(ref).max()))
        t_setup, c_setup = median_wall_cpu(lambda m=model: Explainer(m), args.repeats, 0)
        t_ism, c_ism = median_wall_cpu(lambda: ex.ism(seq), args.repeats)
        t_recompute, c_recompute = median_wall_cpu(
            lambda m=model: m.decision_function(muts), args.repeats, 0
        )
        rows.append(
            [
                repr(kernel),
                n_sv,
                f"ISM {L} nt ({len(muts)} mutants)",
                f"{t_setup:.3f} ({c_setup:.3f})",
                f"{t_ism:.3f} ({c_ism:.3f})",
                f"{t_recompute:.3f} ({c_recompute:.3f})",
                f"{t_recompute / (t_setup + t_ism):.1f}x",
                f"{err:.1e}",
            ]
        )
        E = ex.contributions(T)
        f = model.decision_function(T)
        err = float(np.abs(np.array([e.decision for e in E]) - f).max() / max(1.0, np.abs(f).max()))
        t_contrib, c_contrib = median_wall_cpu(
            lambda: ex.contributions(T), max(1, args.repeats - 2), 0
        )
        t_decision, c_decision = median_wall_cpu(
            lambda m=model: m.decision_function(T), max(1, args.repeats - 2), 0
        )
        rows.append(
            [
                repr(kernel),
                n_sv,
                f"contributions {n_contrib} x 200 nt",
                f"{t_setup:.3f} ({c_setup:.3f})",
                f"{t_contrib:.3f} ({c_contrib:.3f})",
                f"{t_decision:.3f} ({c_decision:.3f})",
                f"{t_decision / (t_setup + t_contrib):.2f}x",
                f"{err:.1e}",
            ]
        )
    print_table(
        rows,
        [
            "kernel",
            "SVs",
            "task",
            "setup s (CPU)",
            "structk s (CPU)",
            "decision_function s (CPU)",
            "speed-up",
            "max rel. diff",
        ],
    )
    print(f"load average (1 min): {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    if args.gkm:
        gkm(args, rng, seq)


def gkm(args, rng, seq):
    """ISM under a gapped k-mer SVM: structk against gkmsvm-lite on the same model."""
    from structk.explain import Explainer
    from structk.kernels import GappedKmer
    from structk.learners import KernelSVM

    n = 300 if args.quick else args.gkm_train
    X = random_dna(n, 200, rng)
    model = KernelSVM(kernel=GappedKmer(), C=1.0).fit(X, rng.integers(0, 2, n))
    load_before = os.getloadavg()[0]
    t_setup, c_setup = median_wall_cpu(lambda: Explainer(model), 1, 0)
    ex = Explainer(model)
    t_ism, c_ism = median_wall_cpu(lambda: ex.ism(seq), args.repeats)
    delta = ex.ism(seq)
    row = [
        repr(model.kernel_),
        len(model.support_),
        f"ISM {len(seq)} nt",
        f"{t_setup:.3f} ({c_setup:.3f})",
        f"{t_ism:.3f} ({c_ism:.3f})",
    ]
    headers = [
        "kernel",
        "SVs",
        "task",
        "setup s (CPU)",
        "structk s (CPU)",
        "gkmsvm-lite s (CPU)",
        "ratio",
        "max rel. diff",
    ]
    try:
        import gkmsvm
        from gkmsvm.train import GkmSVM, _build_kernel
    except ImportError:
        print_table([row + ["not installed", "", ""]], headers)
        return
    _, kind, params = _build_kernel("estimated", 11, 7, 3, 1.0, None, None, True)
    sv = gkmsvm.encode_batch(list(model.support_vectors_))[0]
    peer = GkmSVM(
        sv, model.dual_coef_[0].astype(np.float32), float(model.intercept_[0]), kind, params
    )
    x = gkmsvm.one_hot_encode(seq)[None]
    t_peer, c_peer = median_wall_cpu(lambda: gkmsvm.ism(peer, x), args.repeats)
    theirs = np.asarray(gkmsvm.ism(peer, x))[0].T  # (L, 4)
    err = float(np.abs(theirs - delta).max() / max(1e-12, np.abs(delta).max()))
    print_table(
        [
            row
            + [f"{t_peer:.3f} ({c_peer:.3f})", f"{t_peer / (t_setup + t_ism):.1f}x", f"{err:.1e}"]
        ],
        headers,
    )
    print(f"load average (1 min): {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
