"""Scaling benchmark (issue 8): blockwise Gram to disk, threads, Dask, Nyström.

Sections
--------
scaling   Gram of n synthetic DNA sequences (length 200) with spectrum k=6 and
          mismatch (5, 1), blockwise into a .npy memmap, n = 1k ... 20k: time,
          peak memory (anonymous RSS above the baseline, and tracemalloc peak:
          the memmap's file pages are not counted, they belong to the page
          cache), next to the one-shot in-memory ``kernel(X)`` for n <= 5k.
jobs      ``gram(..., n_jobs=1)`` vs ``n_jobs=2`` (threads over tiles).
dask      issue 39's "beyond one machine": on a LocalCluster (2 worker
          processes x 1 thread) against one process, in one run, wall and
          CPU (the Dask CPU is the client's, scheduler included, plus the
          workers' and nannies'), medians: ``dask_gram`` of
          Normalize(Spectrum(6)) into a memmap, n = 5 000 and 20 000, against
          ``gram`` at its default tiles and at the tiles ``dask_gram`` picks;
          and a Nystroem fit (``KernelSVM(solver="nystroem")``) with and
          without ``client=``. The workers' start-up (imports, loading the
          compiled code: a first small Gram) is measured apart. With
          ``--lean-cluster`` the cluster runs lean_dask_config()'s settings
          (what a cluster's own processes spend, cut; see its docstring).
          The nannies and the scheduler of a LocalCluster run in the
          client's process, the workers in its child processes: all of
          them are counted.
sparse_gp ``SparseGaussianProcessRegressor`` (Normalize(Spectrum(5)), 80
          landmarks, 900 DNA sequences of 200 nt: one round of Dask tasks
          per L-BFGS evaluation of its bound) with and without ``client=``,
          wall and CPU as in the dask section, medians.
nystroem  Nyström error ``||K - Phi Phi^T||_F / ||K||_F`` vs n_components on
          the UCI splice sequences, structk (uniform and kmeans++ landmarks)
          next to scikit-learn's Nystroem(kernel="precomputed") on the same
          uniform landmarks.

Kernels: ``structk.kernels.Spectrum`` / ``Mismatch`` when importable. On a
branch without them the benchmark says so and uses clearly labelled
FALLBACK kernels: ``Linear()`` on the explicit spectrum / mismatch feature
vectors computed with numpy, which gives the same kernel values (Leslie et
al.'s feature maps) but a dense BLAS computation and a dense n x 4^k input.

Every measurement of the scaling and dask sections runs in a fresh
subprocess, so peak memory is that of the measurement alone. BLAS and numba
are pinned to one thread (before numpy is imported; override by setting
``NUMBA_NUM_THREADS`` etc.) so that "1 vs 2 cores" compares one thread with
``n_jobs=2`` threads or two Dask workers. Times are medians over ``--repeats`` runs
(one run for n >= 10k). The machine has 2 cores shared with other sessions.

Usage::

    STRUCTK_DATA=/path/to/data PYTHONPATH=. python benchmarks/bench_scale.py [--quick]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

DNA = "ACGT"


# --------------------------------------------------------------------- kernels
def string_kernels():
    """``{name: Kernel}`` for the string kernels compared, or None when missing."""
    try:
        from structk.kernels import Mismatch, Normalize, Spectrum
    except (ImportError, AttributeError):
        return None
    return {
        "spectrum k=6": Spectrum(k=6),
        "mismatch (5,1)": Mismatch(k=5, m=1),
        "normalized spectrum k=6": Normalize(Spectrum(k=6)),
    }


def kmer_counts(seqs, k):
    """Dense ``n x 4^k`` k-mer counts; k-mers with a non-ACGT letter are skipped."""
    lut = np.full(256, -1, dtype=np.int64)
    for code, letter in enumerate(DNA):
        lut[ord(letter)] = lut[ord(letter.lower())] = code
    counts = np.zeros((len(seqs), 4**k))
    for row, s in enumerate(seqs):
        codes = lut[np.frombuffer(s.encode(), dtype=np.uint8)]
        if len(codes) < k:
            continue
        windows = np.lib.stride_tricks.sliding_window_view(codes, k)
        ok = (windows >= 0).all(axis=1)
        ids = windows[ok] @ (4 ** np.arange(k - 1, -1, -1))
        counts[row] = np.bincount(ids, minlength=4**k)
    return counts


def mismatch_matrix(k, m):
    """``A[a, b] = 1`` when k-mers a and b differ in at most m positions."""
    ids = np.arange(4**k)
    digits = (ids[:, None] // 4 ** np.arange(k - 1, -1, -1)) % 4
    hamming = (digits[:, None, :] != digits[None, :, :]).sum(axis=2)
    return (hamming <= m).astype(np.float64)


def fallback_features(name, seqs):
    if name.startswith("normalized"):
        F = kmer_counts(seqs, 6)
        return F / np.maximum(np.linalg.norm(F, axis=1, keepdims=True), 1e-300)
    if name.startswith("spectrum"):
        return kmer_counts(seqs, 6)
    return kmer_counts(seqs, 5) @ mismatch_matrix(5, 1)


def kernel_and_data(name, seqs):
    """(kernel, X, label): the real string kernel, or the labelled fallback."""
    real = string_kernels()
    if real is not None:
        return real[name], list(seqs), f"structk {real[name]!r}"
    from structk.kernels import Linear

    return (
        Linear(),
        fallback_features(name, seqs),
        (f"FALLBACK Linear() on explicit {name} feature vectors (same values)"),
    )


def synthetic_dna(n, length=200, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, length))
    letters = np.array(list(DNA))
    return ["".join(row) for row in letters[codes]]


# -------------------------------------------------------------------- memory
class PeakMemory:
    """Peak anonymous RSS (sampled from /proc) and tracemalloc peak, in MiB."""

    def __enter__(self):
        self.base = self.peak = _rss_anon()
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        tracemalloc.start()
        return self

    def _sample(self):
        while self.running:
            self.peak = max(self.peak, _rss_anon())
            time.sleep(0.01)

    def __exit__(self, *exc):
        _, self.traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        self.running = False
        self.thread.join()
        self.peak = max(self.peak, _rss_anon())
        self.rss_mib = (self.peak - self.base) / 2**20
        self.traced_mib = self.traced / 2**20


def _rss_anon():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _nbytes(X):
    return X.nbytes if hasattr(X, "nbytes") else sum(len(s) for s in X)


# ----------------------------------------------------------- child processes
def child(spec):
    """One measurement in this (fresh) process; returns a dict."""
    from structk.scale.blockwise import gram
    from structk.scale.distributed import dask_gram

    seqs = synthetic_dna(spec["n"])
    t = time.perf_counter()
    kernel, X, label = kernel_and_data(spec["kernel"], seqs)
    kernel(X[:20]), kernel(X[:10], X[10:20])  # numba compilation / cache load
    result = {
        "label": label,
        "featurize_s": time.perf_counter() - t,
        "input_mib": _nbytes(X) / 2**20,
    }
    path = Path(spec["tmpdir"]) / f"K-{os.getpid()}.npy"
    cluster = client = None
    # a warm-up on two blocks of the same size: the same code paths (the
    # size rules pick them by block size), their compiled code loaded
    warm = X[: 2 * spec["block"]] if spec["block"] else X[:4096]
    if spec["mode"] == "dask":
        client, cluster = start_cluster(result, spec.get("lean", False))
        cpu = ClusterCPU()
        # the workers' start-up: imports, the compiled code's first load,
        # the warm-up's tiles (into a file, as the measured run: the lazy
        # array of a .compute() would also import dask.array)
        dask_gram(kernel, warm, block_size=spec["block"], client=client, out=path)
        path.unlink()
        result["worker_startup_cpu_s"] = cpu.elapsed()
    elif spec["mode"] == "memmap":
        gram(kernel, warm, block_size=spec["block"])
    try:
        cpu = ClusterCPU() if client is not None else ProcessCPU()
        with PeakMemory() as mem:
            t = time.perf_counter()
            if spec["mode"] == "oneshot":
                K = kernel(X)
            elif spec["mode"] == "dask":
                K = dask_gram(kernel, X, block_size=spec["block"], client=client, out=path)
            else:
                K = gram(kernel, X, block_size=spec["block"], out=path, n_jobs=spec["jobs"])
            result["time_s"] = time.perf_counter() - t
        result["cpu_s"] = cpu.elapsed()
        result["checksum"] = float(np.asarray(K[-1]).sum())
        del K
    finally:
        if client is not None:
            client.close()
            cluster.close()
        if path.exists():
            path.unlink()
    result.update(peak_rss_mib=mem.rss_mib, traced_mib=mem.traced_mib)
    return result


def lean_dask_config():
    """Dask settings of ``--lean-cluster`` (docs/scale.md, "On a Dask
    cluster"): what a cluster's own processes spend while tasks run or
    while they wait, cut. Every process's event loop checks itself every
    20 ms (``admin.tick``: here 1 s), each worker samples its threads'
    stacks every 10 ms for the dashboard's profile (off) and each process
    reads its memory and CPU every 0.5 s (5 s); on this machine that was
    0.14-0.15 s of CPU per second of wall for a 2-worker LocalCluster
    doing nothing, 0.035 s with these (10 s idle, load 9-11).
    ``MALLOC_MMAP_THRESHOLD_`` (32 MiB) in the workers' environment:
    under Dask's ``MALLOC_TRIM_THRESHOLD_`` every
    large temporary of a task is a fresh mapping, page-faulted again."""
    import dask
    import distributed  # noqa: F401  (registers the distributed.* defaults)

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    environ["MALLOC_MMAP_THRESHOLD_"] = 1 << 25
    return {
        "distributed.worker.profile.enabled": False,
        "distributed.admin.tick.interval": "1s",
        "distributed.admin.system-monitor.interval": "5s",
        "distributed.nanny.pre-spawn-environ": environ,
    }


def start_cluster(result, lean=False):
    """A 2-process x 1-thread LocalCluster and its client (with
    :func:`lean_dask_config` when ``lean``); its start time goes into
    ``result``."""
    import dask
    from dask.distributed import Client, LocalCluster

    t = time.perf_counter()
    with dask.config.set(lean_dask_config() if lean else {}):
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
        client = Client(cluster)
    result["cluster_start_s"] = time.perf_counter() - t
    return client, cluster


class ProcessCPU:
    """CPU seconds of this process (all its threads) since construction."""

    def __init__(self):
        self.start = time.process_time()

    def elapsed(self):
        return time.process_time() - self.start


class ClusterCPU:
    """CPU seconds since construction of this process (the client, and the
    scheduler of a LocalCluster) and of its child processes (the nannies and
    their workers)."""

    def __init__(self):
        import psutil

        self.me = psutil.Process()
        self.start = self._total()

    def _total(self):
        import psutil

        total = 0.0
        for proc in [self.me, *self.me.children(recursive=True)]:
            try:
                t = proc.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += t.user + t.system
        return total

    def elapsed(self):
        return self._total() - self.start


def _warm_features(n):
    """In a worker: import structk and load the compiled code of a block of
    ``n`` rows of Nystroem features."""
    from structk.kernels import Normalize, Spectrum

    X = synthetic_dna(n)
    Normalize(Spectrum(k=6))(X, X[:500])


def _sparse_gp(n, m):
    """The sparse GP benchmark's model and data (``n`` sequences)."""
    from structk.kernels import Normalize, Spectrum
    from structk.learners import SparseGaussianProcessRegressor

    seqs = synthetic_dna(n)
    y = np.array([s.count("CG") + 0.7 * s.count("AAT") for s in seqs], dtype=float)
    model = SparseGaussianProcessRegressor(
        1.0 * Normalize(Spectrum(k=5)), n_components=m, noise=0.1, normalize_y=True, random_state=0
    )
    return model, seqs, y


def _warm_sparse_gp(n, m):
    """In a worker: the sparse GP's block sums, their compiled code loaded."""
    model, seqs, y = _sparse_gp(n, m)
    model.set_params(optimizer=None).fit(seqs, y)


def fit_child(spec):
    """A Nystroem fit (KernelSVM) of n sequences, or a sparse GP's
    (``spec["model"] == "sparse_gp"``), with or without a client."""
    from structk.kernels import Normalize, Spectrum
    from structk.learners import KernelSVM

    gp = spec.get("model") == "sparse_gp"
    if gp:
        model, seqs, y = _sparse_gp(spec["n"], spec["m"])
        warm = slice(0, 200)
    else:
        seqs = synthetic_dna(spec["n"])
        y = np.array([s.count("GC") for s in seqs]) > np.median([s.count("GC") for s in seqs])
        model = KernelSVM(
            Normalize(Spectrum(k=6)),
            solver="nystroem",
            n_components=spec["m"],
            loss="squared_hinge",
            random_state=0,
        )
        # a warm-up fit on one block of landmark features (2000 rows): the
        # same code paths, their compiled code loaded
        warm = slice(0, min(spec["n"], 2000))
    model.fit(seqs[warm], y[warm])
    result = {}
    if spec["mode"] == "dask":
        client, cluster = start_cluster(result, spec.get("lean", False))
        cpu = ClusterCPU()
        if gp:
            client.run(_warm_sparse_gp, 200, spec["m"])
        else:
            client.run(_warm_features, warm.stop)  # in every worker
        result["worker_startup_cpu_s"] = cpu.elapsed()
        model.set_params(client=client)
    try:
        cpu = ClusterCPU() if spec["mode"] == "dask" else ProcessCPU()
        t = time.perf_counter()
        model.fit(seqs, y)
        result["time_s"] = time.perf_counter() - t
        result["cpu_s"] = cpu.elapsed()
        if gp:
            result["checksum"] = float(np.asarray(model.predict(seqs[:100])).sum())
            result["theta"] = model.kernel_.theta.tolist()
        else:
            result["checksum"] = float(np.asarray(model.decision_function(seqs[:100])).sum())
    finally:
        if spec["mode"] == "dask":
            client.close()
            cluster.close()
    return result


def run_child(spec):
    out = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(spec)],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    if out.returncode:
        raise RuntimeError(f"measurement {spec} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(spec, repeats):
    runs = [run_child(spec) for _ in range(repeats)]
    best = dict(runs[0])
    for key in ("time_s", "cpu_s", "worker_startup_cpu_s", "peak_rss_mib", "traced_mib"):
        if key in best:
            best[key] = statistics.median(r[key] for r in runs)
    best["repeats"] = repeats
    return best


# ------------------------------------------------------------------ sections
def section_scaling(args, report):
    sizes = [250, 500, 1000] if args.quick else [1000, 2000, 5000, 10000, 20000]
    print(
        "\n== scaling: blockwise Gram into a .npy memmap "
        f"(block_size={args.block_size}, n_jobs=1) =="
    )
    print(
        f"{'kernel':16} {'n':>6} {'mode':8} {'time s':>8} {'peak RSS MiB':>13} "
        f"{'traced MiB':>11} {'input MiB':>10} {'K on disk MiB':>14}"
    )
    for name in ("spectrum k=6", "mismatch (5,1)"):
        for n in sizes:
            repeats = 1 if n >= 10000 else args.repeats
            modes = ["memmap"] + (["oneshot"] if n <= 5000 else [])
            for mode in modes:
                r = measure(
                    {
                        "n": n,
                        "kernel": name,
                        "mode": mode,
                        "jobs": 1,
                        "block": args.block_size,
                        "tmpdir": args.tmpdir,
                    },
                    repeats,
                )
                r.update(kernel=name, n=n, mode=mode)
                report["scaling"].append(r)
                disk = 8 * n * n / 2**20 if mode == "memmap" else 0
                print(
                    f"{name:16} {n:6d} {mode:8} {r['time_s']:8.2f} "
                    f"{r['peak_rss_mib']:13.1f} {r['traced_mib']:11.1f} "
                    f"{r['input_mib']:10.1f} {disk:14.1f}",
                    flush=True,
                )
        print(f"   kernel used: {report['scaling'][-1]['label']}")


def _burn(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def parallel_headroom(work=5_000_000):
    """Speed-up of 2 processes over 1 on pure CPU work: what the machine gives."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_burn, [1000, 1000]))  # start the workers
        t = time.perf_counter()
        _burn(work), _burn(work)
        serial = time.perf_counter() - t
        t = time.perf_counter()
        list(pool.map(_burn, [work, work]))
        parallel = time.perf_counter() - t
    return serial / parallel


def section_jobs(args, report):
    from structk.scale.blockwise import gram

    n = 1000 if args.quick else 5000
    headroom = statistics.median(parallel_headroom() for _ in range(args.repeats))
    report["jobs"].append({"control_2proc_speedup": headroom})
    print(
        f"\n== control: 2 processes vs 1 on pure CPU work: x{headroom:.2f} "
        "(the most any 2-worker speed-up below can reach right now) =="
    )
    print(f"\n== gram(n_jobs=1) vs gram(n_jobs=2), threads and processes, n={n} ==")
    for name in ("spectrum k=6", "mismatch (5,1)"):
        kernel, X, label = kernel_and_data(name, synthetic_dna(n))
        gram(kernel, X[:20], block_size=8, n_jobs=2)  # numba compilation / cache load
        times = {}
        for jobs, backend in ((1, "threads"), (2, "threads"), (2, "processes")):
            runs = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                gram(kernel, X, block_size=args.block_size, n_jobs=jobs, backend=backend)
                runs.append(time.perf_counter() - t)
            times[backend if jobs == 2 else "one"] = statistics.median(runs)
        report["jobs"].append({"kernel": name, "label": label, "n": n, **times})
        print(
            f"{name:16} n_jobs=1 {times['one']:7.2f} s   2 threads {times['threads']:7.2f} s"
            f" (x{times['one'] / times['threads']:.2f})   2 processes "
            f"{times['processes']:7.2f} s (x{times['one'] / times['processes']:.2f})"
            f"   [{label}]",
            flush=True,
        )


def section_dask(args, report):
    from structk.scale.distributed import default_block_size

    sizes = [1000] if args.quick else [5000, 20000]
    name = "normalized spectrum k=6"
    print(
        "\n== Dask LocalCluster (2 processes x 1 thread) vs one process, "
        f"{name}, into a memmap; {_cluster_kind(args)}; load average {os.getloadavg()} =="
    )
    print(
        f"{'n':>6} {'run':28} {'block':>6} {'wall s':>8} {'CPU s':>8} "
        f"{'CPU / local':>12} {'wall / local':>13} {'worker start-up CPU s':>22}"
    )
    for n in sizes:
        repeats = args.repeats if n < 10000 else max(1, args.repeats // 2)
        base = {"n": n, "kernel": name, "tmpdir": args.tmpdir, "jobs": 1, "lean": args.lean_cluster}
        picked = default_block_size((n,), 2)
        runs = [
            ("structk.gram (default tiles)", "memmap", 1024),
            ("structk.gram (dask's tiles)", "memmap", picked),
            ("dask_gram (default tiles)", "dask", None),
            ("dask_gram (1024 tiles)", "dask", 1024),
        ]
        local = None
        for label, mode, block in runs:
            r = measure({**base, "mode": mode, "block": block}, repeats)
            local = local or r
            row = {"n": n, "run": label, "block": block or picked, **r}
            report["dask"].append(row)
            print(
                f"{n:6d} {label:28} {row['block']:6d} {r['time_s']:8.2f} {r['cpu_s']:8.2f} "
                f"{r['cpu_s'] / local['cpu_s']:12.2f} {r['time_s'] / local['time_s']:13.2f} "
                f"{r.get('worker_startup_cpu_s', float('nan')):22.2f}",
                flush=True,
            )
        fit_local = None
        for label, mode in (("KernelSVM nystroem, local", "local"), ("... client=", "dask")):
            spec = {"n": n, "m": 500, "mode": mode, "lean": args.lean_cluster}
            r = _median_runs([run_child({**spec, "fit": True}) for _ in range(repeats)])
            fit_local = fit_local or r
            report["dask"].append({"n": n, "run": label, **r})
            print(
                f"{n:6d} {label:28} {'m=500':>6} {r['time_s']:8.2f} {r['cpu_s']:8.2f} "
                f"{r['cpu_s'] / fit_local['cpu_s']:12.2f} "
                f"{r['time_s'] / fit_local['time_s']:13.2f} "
                f"{r.get('worker_startup_cpu_s', float('nan')):22.2f}",
                flush=True,
            )
    print(
        "   CPU of a Dask run: client (with the scheduler) + nannies + workers, after "
        "a warm-up on two blocks (or one block of features) in each process; the last "
        "column is the workers' warm-up (imports, loading compiled code, that small run)"
    )


def _cluster_kind(args):
    return "lean cluster settings" if args.lean_cluster else "Dask's default settings"


def section_sparse_gp(args, report):
    n, m = (300, 30) if args.quick else (900, 80)
    print(
        f"\n== SparseGaussianProcessRegressor, {n} sequences, {m} landmarks, local vs "
        f"a 2-process LocalCluster (client=), {_cluster_kind(args)}; "
        f"load average {os.getloadavg()} =="
    )
    print(f"{'run':12} {'wall s':>8} {'CPU s':>8} {'CPU / local':>12} {'wall / local':>13}")
    runs = {"local": [], "dask": []}
    for _ in range(args.repeats):  # alternated: the same load for both
        for mode in runs:
            spec = {
                "n": n,
                "m": m,
                "mode": mode,
                "fit": True,
                "model": "sparse_gp",
                "lean": args.lean_cluster,
            }
            runs[mode].append(run_child(spec))
    local = _median_runs(runs["local"])
    for mode, rs in runs.items():
        r = _median_runs(rs)
        report["sparse_gp"].append({"n": n, "m": m, "run": mode, **r})
        print(
            f"{mode:12} {r['time_s']:8.2f} {r['cpu_s']:8.2f} {r['cpu_s'] / local['cpu_s']:12.2f} "
            f"{r['time_s'] / local['time_s']:13.2f}   theta {np.round(r['theta'], 6).tolist()}",
            flush=True,
        )
    print(f"   load average after: {os.getloadavg()}")


def _median_runs(runs):
    out = dict(runs[0])
    for key in ("time_s", "cpu_s", "worker_startup_cpu_s"):
        if key in out:
            out[key] = statistics.median(r[key] for r in runs)
    return out


def load_splice(root):
    seqs = []
    with open(Path(root) / "sequences" / "splice" / "splice.data") as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 3:
                seqs.append(parts[2].upper())
    clean = [s for s in seqs if set(s) <= set(DNA)]
    return clean, len(seqs) - len(clean)


def section_nystroem(args, report):
    from sklearn.kernel_approximation import Nystroem as SkNystroem

    from structk.scale.nystroem import Nystroem

    root = os.environ.get("STRUCTK_DATA")
    if not root:
        print("\n== nystroem: SKIPPED, STRUCTK_DATA is not set ==")
        return
    seqs, dropped = load_splice(root)
    if args.quick:
        seqs = seqs[:600]
    real = string_kernels()
    if real is not None:
        from structk.kernels import Spectrum

        kernel, X, label = Spectrum(k=5), seqs, "structk Spectrum(k=5)"
    else:
        from structk.kernels import Linear

        kernel, X = Linear(), kmer_counts(seqs, 5)
        label = "FALLBACK Linear() on explicit spectrum-5 count vectors (same values)"
    K = kernel(X)
    norm = np.linalg.norm(K)
    sizes = [25, 50, 100, 200] if args.quick else [25, 50, 100, 200, 400, 800, 1600]
    print(
        f"\n== Nystroem on UCI splice: n={len(seqs)} ({dropped} sequences with IUPAC "
        f"codes dropped), {label} =="
    )
    print(
        "relative Frobenius error ||K - Phi Phi^T|| / ||K||, median over seeds "
        f"{list(range(args.repeats))}; time = fit + transform"
    )
    print(
        f"{'m':>6} {'structk uniform':>16} {'sklearn precomp.':>17} "
        f"{'structk kmeans++':>17} {'t structk s':>12} {'t sklearn s':>12} {'t km++ s':>9}"
    )

    def error(Phi):
        return np.linalg.norm(K - Phi @ Phi.T) / norm

    for m in sizes:
        rows = {"uniform": [], "sklearn": [], "kmeans++": [], "t_u": [], "t_s": [], "t_k": []}
        for seed in range(args.repeats):
            t = time.perf_counter()
            ny = Nystroem(kernel, n_components=m, random_state=seed)
            Phi = ny.fit_transform(X)
            rows["t_u"].append(time.perf_counter() - t)
            rows["uniform"].append(error(Phi))
            L = ny.component_indices_
            t = time.perf_counter()
            sk = SkNystroem(kernel="precomputed", n_components=m, random_state=seed)
            Phi = sk.fit(K[np.ix_(L, L)]).transform(K[:, L])
            rows["t_s"].append(time.perf_counter() - t)
            rows["sklearn"].append(error(Phi))
            t = time.perf_counter()
            Phi = Nystroem(
                kernel, n_components=m, landmarks="kmeans++", random_state=seed
            ).fit_transform(X)
            rows["t_k"].append(time.perf_counter() - t)
            rows["kmeans++"].append(error(Phi))
        med = {key: statistics.median(v) for key, v in rows.items()}
        report["nystroem"].append({"m": m, "label": label, **med})
        print(
            f"{m:6d} {med['uniform']:16.4f} {med['sklearn']:17.4f} "
            f"{med['kmeans++']:17.4f} {med['t_u']:12.3f} {med['t_s']:12.3f} "
            f"{med['t_k']:9.3f}",
            flush=True,
        )
    print(
        "   sklearn is given the precomputed K[L, L] and K[:, L] (its kernel "
        "evaluations are not in its time; structk's are)"
    )


SECTIONS = {
    "scaling": section_scaling,
    "jobs": section_jobs,
    "dask": section_dask,
    "nystroem": section_nystroem,
    "sparse_gp": section_sparse_gp,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument(
        "--sections",
        default=",".join(SECTIONS),
        help="comma-separated subset of " + ",".join(SECTIONS),
    )
    parser.add_argument("--block-size", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tmpdir", default=None, help="where the memmaps go")
    parser.add_argument(
        "--lean-cluster",
        action="store_true",
        help="start the LocalCluster with lean_dask_config() (profiler off, "
        "1 s ticks, 5 s system monitor, MALLOC_MMAP_THRESHOLD_ in the workers)",
    )
    parser.add_argument("--json", default=None, help="also write the results here")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        spec = json.loads(args.child)
        print(json.dumps(fit_child(spec) if spec.get("fit") else child(spec)))
        return
    if args.block_size is None:
        args.block_size = 256 if args.quick else 1000
    real = string_kernels()
    print(
        "kernels:",
        "structk.kernels.Spectrum / Mismatch"
        if real
        else "structk.kernels.Spectrum / Mismatch are NOT importable on this branch: "
        "using FALLBACK Linear() on explicit feature vectors (labelled below); "
        "re-run after the string kernels are merged",
    )
    print(
        f"cores: {os.cpu_count()}, BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}, "
        f"numba threads {os.environ['NUMBA_NUM_THREADS']}, "
        f"load average {os.getloadavg()}"
    )
    report = {name: [] for name in SECTIONS}
    with tempfile.TemporaryDirectory(dir=args.tmpdir) as tmp:
        args.tmpdir = tmp
        for name in args.sections.split(","):
            SECTIONS[name.strip()](args, report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
