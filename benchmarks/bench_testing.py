"""How to search for a counterexample to a kernel: three methods on the same non-kernels.

* ``lists``: hypothesis ``find`` over lists of up to 8 objects, 300 examples
  (the kit's former default);
* ``target``: hypothesis over lists of up to 32 objects, 300 examples, steered
  by ``hypothesis.target(-smallest eigenvalue)``;
* ``pools``: :func:`structk.testing.check_kernel` with its defaults (pools of
  32, 256 and 1024 objects, eigenvector-guided reduction, simplification).

Each method is run with seeds 0..R-1; the table gives how many runs found a
counterexample, the median time and the median witness size.

Usage::

    python benchmarks/bench_testing.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np


def _cases(quick):
    from structk.testing import non_kernels as nk
    from structk.testing import strings, token_sets, vectors

    cases = [
        ("-|x-y|^2", nk.neg_sq_dist, vectors(3)),
        ("exp(-|x-y|^3)", nk.exp_cubed_dist, vectors(2)),
        ("max(0,|A&B|-1)", nk.truncated_overlap, token_sets()),
        ("exp(-lev) {a,b}", nk.exp_edit, strings("ab")),
        ("common substring", nk.common_substring, strings("ACGT")),
    ]
    if not quick:
        cases.append(("exp(-lev) DNA", nk.exp_edit, strings("ACGT")))
    return cases


def _lam(func, objs):
    from structk.kernels import FunctionKernel

    K = FunctionKernel(func)(objs)
    return float(np.linalg.eigvalsh(K)[0]), K


def _negative(func, objs):
    lam, K = _lam(func, objs)
    return lam < -10 * len(objs) * np.finfo(float).eps * np.linalg.norm(K)


def run_lists(func, objects, seed):
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    config = settings(
        max_examples=300,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    try:
        objs = find(
            st.lists(objects, min_size=1, max_size=8),
            lambda xs: _negative(func, xs),
            settings=config,
            random=random.Random(seed),
        )
    except NoSuchExample:
        return None
    return len(objs)


def run_target(func, objects, seed):
    from hypothesis import HealthCheck, Phase, given, settings, target
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    best = [None]

    @hseed(seed)
    @settings(
        max_examples=300,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate, Phase.target],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(objects, min_size=1, max_size=32))
    def search(xs):
        lam, _ = _lam(func, xs)
        target(-lam)
        if _negative(func, xs) and (best[0] is None or len(xs) < best[0]):
            best[0] = len(xs)

    search()
    return best[0]


def run_pools(func, objects, seed):
    from structk.kernels import FunctionKernel
    from structk.testing import check_kernel

    cx = check_kernel(FunctionKernel(func), objects, seed=seed).counterexample
    return None if cx is None else len(cx.objects)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer cases, one seed")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    import os

    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        f"{repeats} seed(s) per cell"
    )
    print(f"{'case':18s} {'method':7s} {'found':>6s} {'median s':>9s} {'witness':>8s}")
    for name, func, objects in _cases(args.quick):
        for method, run in (("lists", run_lists), ("target", run_target), ("pools", run_pools)):
            times, sizes = [], []
            for seed in range(repeats):
                start = time.perf_counter()
                size = run(func, objects, seed)
                times.append(time.perf_counter() - start)
                if size is not None:
                    sizes.append(size)
            shown = f"{np.median(sizes):8.0f}" if sizes else f"{'-':>8s}"
            print(
                f"{name:18s} {method:7s} {len(sizes):>3d}/{repeats:<2d} "
                f"{np.median(times):9.1f} {shown}",
                flush=True,
            )


if __name__ == "__main__":
    main()
