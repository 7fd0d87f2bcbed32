"""Benchmark: structk DiscreteHMM / FisherKernel against hmmlearn.

Same data, same starting parameters, one run; medians over repeats and the
ratio hmmlearn / structk (> 1 means structk is faster) are printed.

* Baum-Welch fit: 500 sequences x 200 symbols, 4 symbols, 3 and 5 states,
  exactly ``--iters`` iterations for both (structk ``tol=0``, hmmlearn
  ``tol=-inf``; both iteration counts are checked). hmmlearn runs with
  ``implementation="scaling"``, its fastest setting.
* Scoring: 2000 sequences x 200. structk returns one log-likelihood per
  sequence; hmmlearn's ``score(X, lengths)`` returns only their sum, so it is
  timed both that way and as the per-sequence loop a user needs for one
  value per sequence.
* Fisher kernel Gram for 2000 x 200 (goal: under 1 s), with empirical
  information estimated on the same sequences.
* Threads: the E-step (Baum-Welch, Fisher scores) runs chunks of sequences
  on threads (``structk._threads.run_chunks``) only above a work threshold;
  the one-chunk serial loop and the chunked threaded one are timed at
  several sizes to show where the threads pay on the machine at hand.
  Scoring is serial (threads did not pay).

structk times include encoding the strings; hmmlearn gets its integer
column pre-built (its time excludes encoding).

Usage::

    PYTHONPATH=. python benchmarks/bench_fisher.py [--quick]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _row(label, t_structk, t_peer=None):
    if t_peer is None:
        print(f"  {label:<44s} structk {t_structk * 1e3:9.2f} ms")
    else:
        print(
            f"  {label:<44s} structk {t_structk * 1e3:9.2f} ms   hmmlearn "
            f"{t_peer * 1e3:9.2f} ms   ratio {t_peer / t_structk:6.1f}x"
        )


def _model(K, M, seed):
    from structk import DiscreteHMM

    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.ones(K), size=K) + 2 * np.eye(K)
    return DiscreteHMM.from_params(
        np.full(K, 1.0 / K),
        A / A.sum(1, keepdims=True),
        rng.dirichlet(np.ones(M) * 0.5, size=K),
        "ACGT",
    )


def _hmmlearn_model(K, params, n_iter):
    from hmmlearn.hmm import CategoricalHMM

    m = CategoricalHMM(
        n_components=K,
        n_iter=n_iter,
        tol=-np.inf,
        implementation="scaling",
        init_params="",
        params="ste",
    )
    m.startprob_, m.transmat_, m.emissionprob_ = (p.copy() for p in params)
    m.n_features = params[2].shape[1]
    return m


def _encode_int(X):
    lut = {c: i for i, c in enumerate("ACGT")}
    column = np.array([lut[c] for x in X for c in x], dtype=np.int64)[:, None]
    return column, [len(x) for x in X]


def bench_fit(K, n_seq, length, n_iter, repeats):
    from structk import DiscreteHMM

    truth = _model(K, 4, seed=K)
    X = truth.sample(n_seq, length, random_state=1)
    rng = np.random.default_rng(2)
    start = (
        np.full(K, 1.0 / K),
        rng.dirichlet(np.ones(K), size=K),
        rng.dirichlet(np.ones(4), size=K),
    )
    init = dict(zip(("startprob", "transmat", "emissionprob"), start))
    ours = DiscreteHMM(K, "ACGT", n_iter=n_iter, tol=0.0, init=init, algorithm="em")
    column, lengths = _encode_int(X)

    def fit_ours():
        return ours.fit(X)

    def fit_peer():
        return _hmmlearn_model(K, start, n_iter).fit(column, lengths)

    fit_ours()  # compile
    t_ours = _median_time(fit_ours, repeats)
    t_peer = _median_time(fit_peer, repeats)
    peer = fit_peer()
    assert ours.n_iter_ == n_iter and not ours.converged_, ours.n_iter_
    assert peer.monitor_.iter == n_iter, peer.monitor_.iter
    diff = max(
        np.abs(ours.emissionprob_ - peer.emissionprob_).max(),
        np.abs(ours.transmat_ - peer.transmat_).max(),
    )
    _row(f"fit K={K} {n_seq}x{length}, {n_iter} iters", t_ours, t_peer)
    print(f"    same iterations ({n_iter}); max |param difference| = {diff:.1e}")
    return t_ours, t_peer


def bench_score(K, n_seq, length, repeats):
    truth = _model(K, 4, seed=10 + K)
    X = truth.sample(n_seq, length, random_state=3)
    column, lengths = _encode_int(X)
    params = (truth.startprob_, truth.transmat_, truth.emissionprob_)
    peer = _hmmlearn_model(K, params, 1)
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    pieces = [column[bounds[i] : bounds[i + 1]] for i in range(n_seq)]

    truth.score_samples(X)  # compile
    t_ours = _median_time(lambda: truth.score_samples(X), repeats)
    t_sum = _median_time(lambda: peer.score(column, lengths), repeats)
    t_loop = _median_time(lambda: [peer.score(p) for p in pieces], max(1, repeats // 2))
    ll = truth.score_samples(X)
    total = peer.score(column, lengths)
    assert abs(ll.sum() - total) <= 1e-9 * abs(total), (ll.sum(), total)
    _row(f"score K={K} {n_seq}x{length} (hmmlearn sum only)", t_ours, t_sum)
    _row(f"score K={K} {n_seq}x{length} (hmmlearn per-seq loop)", t_ours, t_loop)
    return t_ours, t_sum


def bench_threads(K, sizes, repeats):
    """One-chunk serial vs chunked threaded E-step, the measurement behind
    ``structk._tuning.HMM_PARALLEL_MIN_WORK`` (interleaved rounds, medians)."""
    from structk import _tuning
    from structk import hmm as H
    from structk.algorithms.hmm import expected_counts
    from structk._threads import num_threads

    truth = _model(K, 4, seed=20 + K)
    threads = num_threads()
    params = truth._jit_params()
    limit = _tuning.HMM_PARALLEL_MIN_WORK
    for n_seq, length in sizes:
        X = truth.sample(n_seq, length, random_state=4)
        seq, offsets = H._encode(X, truth.alphabet_)

        def run(min_work):
            _tuning.HMM_PARALLEL_MIN_WORK = min_work
            try:
                t0 = time.perf_counter()
                expected_counts(seq, offsets, params, False)
                return time.perf_counter() - t0
            finally:
                _tuning.HMM_PARALLEL_MIN_WORK = limit

        run(np.inf), run(0)
        pairs = [(run(np.inf), run(0)) for _ in range(repeats)]
        t_s = float(np.median([a for a, _ in pairs]))
        t_p = float(np.median([b for _, b in pairs]))
        work = seq.shape[0] * K * K
        chosen = "threads" if threads > 1 and work >= limit else "serial"
        print(
            f"  E-step K={K} {n_seq}x{length} ({seq.shape[0]} symbols): serial "
            f"{t_s * 1e3:8.2f} ms, chunked ({threads} threads) {t_p * 1e3:8.2f} ms, "
            f"gain {t_s / t_p:4.2f}x; structk uses {chosen}"
        )


def bench_fisher_gram(K, n_seq, length, repeats):
    from structk import FisherKernel

    truth = _model(K, 4, seed=40 + K)
    X = truth.sample(n_seq, length, random_state=5)
    for parts in (("emission",), ("initial", "transition", "emission")):
        kernel = FisherKernel(truth, parts=parts).fit(X[:10])
        kernel(X)  # compile
        kernel.fit(X)
        t = _median_time(lambda: kernel(X), repeats)
        _row(f"Fisher Gram K={K} {n_seq}x{length} parts={len(parts)}", t)
        print(f"    goal < 1 s: {'met' if t < 1.0 else 'NOT met'}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--iters", type=int, default=10)
    args = parser.parse_args(argv)
    if args.quick:
        fit_n, score_n, length, repeats, iters = 50, 200, 50, 2, 3
    else:
        fit_n, score_n, length, repeats, iters = 500, 2000, 200, 7, args.iters
    import os

    import numba

    print(
        f"bench_fisher: cpus={os.cpu_count()} numba threads={numba.get_num_threads()} "
        f"load={os.getloadavg()[0]:.2f} quick={args.quick}"
    )
    warnings.filterwarnings("ignore", module="hmmlearn")
    t0 = time.perf_counter()
    ratios = {}
    print("Baum-Welch fit")
    for K in (3, 5):
        t_ours, t_peer = bench_fit(K, fit_n, length, iters, repeats)
        ratios[f"fit K={K}"] = t_peer / t_ours
    print("Scoring")
    for K in (3, 5):
        t_ours, t_peer = bench_score(K, score_n, length, repeats)
        ratios[f"score K={K}"] = t_peer / t_ours
    print("Threaded E-step")
    sizes = (
        [(50, 50), (200, 500)]
        if args.quick
        else [(500, 200), (2000, 250), (4000, 500), (8000, 500)]
    )
    bench_threads(4, sizes, repeats)
    print("Fisher kernel")
    bench_fisher_gram(4, score_n, length, repeats)
    print(
        "summary (hmmlearn / structk, goal >= 2x): "
        + ", ".join(f"{k} {v:.1f}x" for k, v in ratios.items())
    )
    print(f"load at end={os.getloadavg()[0]:.2f}, wall {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
