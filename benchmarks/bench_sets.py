"""Benchmark: the intersection Gram of token sets, two ways.

structk computes ``|A n B|`` for all pairs from the sparse 0/1 indicator
matrix (``structk.algorithms.sparse_gram``: BLAS for frequent tokens, a jitted
pair loop for rare ones). The obvious alternative is a jitted merge
of sorted token-id arrays, pair by pair, written here for the comparison.
Both start from the same sets (tokens mapped to ids included in the timing)
and must give the same matrix. Medians of ``--repeats`` runs; ratio printed.

Usage::

    python benchmarks/bench_sets.py [--quick] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


@numba.njit(cache=True)
def _merge_gram(ids, ptr):
    n = ptr.shape[0] - 1
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            a, a_end = ptr[i], ptr[i + 1]
            b, b_end = ptr[j], ptr[j + 1]
            count = 0
            while a < a_end and b < b_end:
                if ids[a] < ids[b]:
                    a += 1
                elif ids[a] > ids[b]:
                    b += 1
                else:
                    count += 1
                    a += 1
                    b += 1
            K[i, j] = count
            K[j, i] = count
    return K


def merge_intersection_gram(sets):
    vocabulary = {}
    rows = [
        np.sort(
            np.fromiter((vocabulary.setdefault(t, len(vocabulary)) for t in s), np.int64, len(s))
        )
        for s in sets
    ]
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=ptr[1:])
    ids = np.concatenate(rows) if rows else np.empty(0, np.int64)
    return _merge_gram(ids, ptr)


def structk_intersection_gram(sets):
    from structk.kernels import Intersection

    return Intersection()(sets)


def random_sets(n, mean_size, vocabulary, zipf, seed=0):
    """Sets of word-like tokens; ``zipf`` > 1 makes a few tokens very common."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        size = max(1, rng.poisson(mean_size))
        if zipf:
            ids = np.minimum(rng.zipf(zipf, size), vocabulary) - 1
        else:
            ids = rng.integers(0, vocabulary, size)
        out.append({f"w{i}" for i in ids})
    return out


def median_time(f, x, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        K = f(x)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), K


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()
    repeats = args.repeats or (2 if args.quick else 5)
    n = 300 if args.quick else 3000
    print(f"intersection Gram, median of {repeats}, load average {os.getloadavg()[0]:.2f}")
    cases = [
        ("uniform, 50 of 10^4 tokens", dict(mean_size=50, vocabulary=10_000, zipf=0)),
        ("uniform, 50 of 200 tokens", dict(mean_size=50, vocabulary=200, zipf=0)),
        ("Zipf(1.5), 100 of 10^5", dict(mean_size=100, vocabulary=100_000, zipf=1.5)),
    ]
    for name, spec in cases:
        sets = random_sets(n, **spec)
        for f in (structk_intersection_gram, merge_intersection_gram):
            f(sets[:20])  # warm-up
        t_sparse, K1 = median_time(structk_intersection_gram, sets, repeats)
        t_merge, K2 = median_time(merge_intersection_gram, sets, repeats)
        assert np.array_equal(K1, K2), name
        print(
            f"n={n:<5} {name:<28} structk sparse {t_sparse:7.3f} s | sorted merge "
            f"{t_merge:7.3f} s | merge / sparse = {t_merge / t_sparse:5.1f}"
        )


if __name__ == "__main__":
    main()
