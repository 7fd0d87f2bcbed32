"""Timing helpers shared by the benchmark scripts (medians over repeats)."""

from __future__ import annotations

import statistics
import time


def median_time(func, repeat=5, warmup=1):
    """Median wall time of ``func()`` in seconds over ``repeat`` runs, after warm-up."""
    for _ in range(warmup):
        func()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def median_wall_cpu(func, repeat=5, warmup=1):
    """Medians of wall time and of this process's CPU time (all its threads)
    of ``func()``, in seconds, over ``repeat`` runs after warm-up."""
    for _ in range(warmup):
        func()
    walls, cpus = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def alternating(funcs, repeat):
    """Medians of each of ``funcs`` timed in turn ``repeat`` times (after one
    warm-up call each), so that a change of load hits them alike."""
    for f in funcs:
        f()
    times = [[] for _ in funcs]
    for _ in range(repeat):
        for f, t in zip(funcs, times):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def alternating_wall_cpu(funcs, repeat):
    """As :func:`alternating`, with the median CPU time of this process (all
    its threads) beside each median wall time: ``[(wall, cpu), ...]``.

    Round ``r`` starts at function ``r mod len(funcs)``: what ran just before
    a function (the memory it freed, the caches it filled) changes its time
    by up to 2x for fits of a few hundred MB, so every function takes every
    place in turn (``repeat`` a multiple of ``len(funcs)`` balances them)."""
    for f in funcs:
        f()
    walls = [[] for _ in funcs]
    cpus = [[] for _ in funcs]
    k = len(funcs)
    for r in range(repeat):
        for i in [(r + j) % k for j in range(k)]:
            t0, c0 = time.perf_counter(), time.process_time()
            funcs[i]()
            walls[i].append(time.perf_counter() - t0)
            cpus[i].append(time.process_time() - c0)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(walls, cpus)]


def print_table(rows, headers):
    """Print rows as an aligned plain-text table."""
    cells = [headers] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for k, row in enumerate(cells):
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
        if k == 0:
            print("  ".join("-" * w for w in widths))
