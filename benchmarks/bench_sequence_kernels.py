"""Benchmark: local alignment, gappy pair and shifted weighted-degree kernels against their peers.

Sections (``--only alignment|gappy|wds``, default all):

* **alignment** -- cell updates per second of structk's local alignment
  (LA) kernel against parasail's Smith-Waterman (striped SIMD, 16-bit,
  one query profile per row: parasail's fastest use) on the same pairs of
  synthetic proteins, single thread. Smith-Waterman is a max-plus
  recursion on three states, the LA kernel a sum-product on three states
  plus a running sum with exponentials tabulated, so parasail is an upper
  bound rather than the same work; structk's own scalar Smith-Waterman
  is shown too. Then the Gram matrix of ``--n`` proteins (default 1000 of
  about 250 residues) on all cores (``NUMBA_NUM_THREADS``), and the log-space
  pass on one long pair.
* **gappy** -- ``GappyPair(k, m)`` Gram on splice sequences (ACGT only)
  against strkernel's ``gappypair_kernel(k, g=m, gapDifferent=True)``
  features and a sparse product. strkernel's features differ from the
  definition at sequence ends (it drops the gapped pairs within g + 1 of
  the end), so the benchmark checks equality of structk's features summed
  over g with strkernel's ``gapDifferent=False`` ones instead.
* **wds** -- ``WeightedDegree(d, shift=S)`` Gram on splice sequences against
  a vectorised numpy reference (all pairs, every shift and degree).

Synthetic proteins: ``--n / 10`` random seed sequences over the 20 amino
acids, lengths 250 +- 25, and mutants of each (30% of positions
substituted, a few short insertions and deletions), so that related pairs
(some beyond float64, taking the scaled pass) and unrelated ones mix.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_sequence_kernels.py [--quick]
    python benchmarks/bench_sequence_kernels.py --only alignment  # no data needed
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import median_time, print_table  # noqa: E402

AMINO = "ACDEFGHIKLMNPQRSTVWY"


def synthetic_proteins(n, length=250, seed=0):
    rng = np.random.default_rng(seed)
    families = max(1, n // 10)
    seeds = ["".join(rng.choice(list(AMINO), int(rng.normal(length, 25)))) for _ in range(families)]
    out = []
    while len(out) < n:
        s = list(seeds[len(out) % families])
        for p in np.flatnonzero(rng.random(len(s)) < 0.3):
            s[p] = rng.choice(list(AMINO))
        for _ in range(rng.integers(0, 4)):  # short indels
            p = int(rng.integers(0, len(s)))
            if rng.random() < 0.5:
                del s[p : p + int(rng.integers(1, 5))]
            else:
                s[p:p] = rng.choice(list(AMINO), int(rng.integers(1, 5)))
        out.append("".join(s))
    return out


def load():
    return os.getloadavg()[0]


# ------------------------------------------------------------------ alignment
def bench_alignment(quick, repeat):
    import parasail

    from structk._threads import num_threads
    from structk.kernels import LocalAlignment, Normalize, smith_waterman

    print(f"\n== local alignment (load average {load():.1f}, {num_threads()} threads) ==")
    m = 30 if quick else 80
    X = synthetic_proteins(m, seed=1)
    lengths = np.array([len(s) for s in X], dtype=float)
    cells = 0.5 * (lengths.sum() ** 2 + (lengths**2).sum())  # upper triangle

    kern = LocalAlignment(beta=0.5)
    P = kern.prepare(X, "X")
    from structk.algorithms.alignment import _numba as la_jit

    tables = kern._tables()
    from structk.kernels.alignment import substitution_matrix

    _, S = substitution_matrix("BLOSUM62")

    def structk_la():  # the serial loop, one thread
        la_jit.la_log_gram(P.codes, P.offsets, *tables, np.zeros((m, m)), 0, (m + 1) // 2)

    def structk_sw():
        la_jit.sw_cross(
            P.codes, P.offsets, P.codes, P.offsets, S, 11.0, 1.0, np.empty((m, m)), 0, m
        )

    def parasail_sw():
        out = np.empty((m, m))
        for i in range(m):
            profile = parasail.profile_create_16(X[i], parasail.blosum62)
            for j in range(i, m):
                out[i, j] = parasail.sw_striped_profile_16(profile, X[j], 11, 1).score
        return out

    # same scores: parasail against structk's Smith-Waterman
    full = smith_waterman(X)
    got = parasail_sw()
    iu = np.triu_indices(m)
    assert np.array_equal(got[iu], full[iu]), "parasail and structk Smith-Waterman differ"

    rows = []
    t_la = median_time(structk_la, repeat)
    t_sw = median_time(structk_sw, repeat)
    t_ps = median_time(parasail_sw, repeat)
    for name, t in [
        ("structk LocalAlignment (log k, serial)", t_la),
        ("structk smith_waterman (serial)", t_sw),
        ("parasail sw_striped_profile_16", t_ps),
    ]:
        rows.append([name, f"{t:.3f}", f"{cells / t / 1e6:.0f}", f"{t / t_ps:.1f}"])
    print(
        f"{m} proteins, {m * (m + 1) // 2} pairs, {cells:.3g} cells, one thread, median of {repeat}"
    )
    print_table(rows, ["method", "time (s)", "Mcells/s", "time / parasail"])

    # the Gram matrix on all threads
    n = 200 if quick else 1000
    X = synthetic_proteins(n, seed=2)
    lengths = np.array([len(s) for s in X], dtype=float)
    cells = 0.5 * (lengths.sum() ** 2 + (lengths**2).sum())
    Normalize(kern)(X[:2])  # warm-up: load the cached machine code
    t0 = time.perf_counter()
    K = Normalize(kern)(X)
    t = time.perf_counter() - t0
    print(
        f"\nNormalize(LocalAlignment(beta=0.5)) Gram of {n} proteins (mean length "
        f"{lengths.mean():.0f}, {cells:.3g} cells + the diagonal again): {t:.1f} s "
        f"({cells / t / 1e6:.0f} Mcells/s), finite: {np.isfinite(K).all()}, "
        f"load average {load():.1f}"
    )

    # the log-space pass
    from structk.algorithms.alignment._numba import _la_log

    long = synthetic_proteins(2, length=1500, seed=3)
    Q = kern.prepare(long, "X")
    E, L, go, ge, lgo, lge = tables
    t = median_time(lambda: _la_log(Q[0], Q[1], L, lgo, lge), max(1, repeat // 2))
    c = len(long[0]) * len(long[1])
    print(
        f"log-space pass, {len(long[0])} x {len(long[1])} residues: {t:.2f} s "
        f"({c / t / 1e6:.1f} Mcells/s)"
    )


# ---------------------------------------------------------------------- gappy
def splice(quick):
    from structk.datasets import load_splice

    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("set STRUCTK_DATA to the data directory (splice)")
    seqs = load_splice(Path(root) / "sequences/splice/splice.data").sequences
    seqs = [s for s in seqs if set(s) <= set("ACGT")]
    return seqs[:300] if quick else seqs


def bench_gappy(quick, repeat):
    import scipy.sparse as sp
    from strkernel.gappy_kernel import gappypair_kernel

    from structk.kernels import GappyPair

    X = splice(quick)
    print(f"\n== gappy pair, {len(X)} ACGT splice sequences (load average {load():.1f}) ==")
    rows = []
    for k, m in [(1, 2), (2, 2), (3, 3)]:
        ours = GappyPair(k=k, m=m)
        F = ours.features(X).toarray().reshape(len(X), m + 1, -1).sum(axis=1)
        merged = gappypair_kernel(
            X, k=k, g=m, gapDifferent=False, sparse=False, include_flanking=True
        )
        assert np.array_equal(F, merged), "structk and strkernel features differ"

        def peer(k=k, m=m):
            G = sp.csr_matrix(
                gappypair_kernel(X, k=k, g=m, gapDifferent=True, include_flanking=True)
            )
            return (G @ G.T).toarray()

        t_ours = median_time(lambda ours=ours: ours(X), repeat)
        t_peer = median_time(peer, max(1, repeat // 2))
        rows.append(
            [f"GappyPair(k={k}, m={m})", f"{t_ours:.3f}", f"{t_peer:.2f}", f"{t_peer / t_ours:.0f}"]
        )
    print_table(rows, ["kernel", "structk (s)", "strkernel + sparse product (s)", "ratio"])


# ------------------------------------------------------------------------ wds
def wds_numpy(codes, d, shift):
    """All pairs at once: matches of every k-mer at every shift, vectorised."""
    n, L = codes.shape
    K = np.zeros((n, n))
    beta = [2 * (d - k + 1) / (d * (d + 1)) for k in range(1, d + 1)]
    for s in range(min(shift, L - 1) + 1):
        delta = 1.0 if s == 0 else 1.0 / (2 * (s + 1))
        for a, b in (
            [(codes[:, s:], codes[:, : L - s])]
            if s == 0
            else [(codes[:, s:], codes[:, : L - s]), (codes[:, : L - s], codes[:, s:])]
        ):
            eq = a[:, None, :] == b[None, :, :]  # n x n x (L - s)
            run = eq.copy()
            for k in range(1, d + 1):
                if k > 1:
                    run = run[:, :, :-1] & eq[:, :, k - 1 :]
                K += delta * beta[k - 1] * run.sum(axis=2)
    return K


def bench_wds(quick, repeat):
    from structk.kernels import WeightedDegree

    X = splice(quick)[: 300 if quick else 1000]
    codes = np.array([["ACGT".index(c) for c in s] for s in X], dtype=np.uint8)
    print(
        f"\n== weighted degree with shifts, {len(X)} splice sequences of {codes.shape[1]} nt "
        f"(load average {load():.1f}) =="
    )
    rows = []
    for d, S in [(8, 0), (8, 2), (8, 8)]:
        ours = WeightedDegree(d=d, shift=S)
        np.testing.assert_allclose(ours(X[:200]), wds_numpy(codes[:200], d, S), rtol=1e-12)
        t_ours = median_time(lambda ours=ours: ours(X), repeat)
        t_np = median_time(lambda d=d, S=S: wds_numpy(codes, d, S), max(1, repeat // 2))
        rows.append(
            [
                f"WeightedDegree(d={d}, shift={S})",
                f"{t_ours:.3f}",
                f"{t_np:.2f}",
                f"{t_np / t_ours:.0f}",
            ]
        )
    print_table(rows, ["kernel", "structk (s)", "numpy reference (s)", "ratio"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, for a smoke run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=["alignment", "gappy", "wds"])
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeats
    if args.only in (None, "alignment"):
        bench_alignment(args.quick, repeat)
    if args.only in (None, "gappy"):
        bench_gappy(args.quick, repeat)
    if args.only in (None, "wds"):
        bench_wds(args.quick, repeat)


if __name__ == "__main__":
    main()
