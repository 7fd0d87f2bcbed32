"""End to end: what a user feels, in whole fresh processes, structk vs its peer.

Every case runs as new Python processes, structk and the peer alternated
round by round in the same run, and prints medians and the ratio
(structk / peer: below 1 structk is faster, except where said otherwise).

Cases (``--cases`` picks some):

``mutag``      the 6-line script: ``load_tu(MUTAG)`` + ``cross_val_score(
               KernelSVM(kernel=Normalize(WeisfeilerLehman(h=3)), C=10), G, y,
               cv=10)`` vs GraKeL ``WeisfeilerLehman(n_iter=3, normalize=True)``
               + ``SVC(kernel="precomputed", C=10)`` in a pipeline (the peer
               reads the TU files with numpy itself).
``promoters``  normalised 4-mer spectrum + 10-fold ``KernelSVM`` vs
               ``CountVectorizer(char 4-grams) + Normalizer + SVC(linear)``.
``splice``     ``structk cv`` on splice (as FASTA) with ``WeightedDegree(d=8)``
               vs a process loading the same Gram and cross-validating
               ``SVC(kernel="precomputed")`` on the same folds, plus the Gram
               time (measured in a warm structk process); and vs the
               two-step workflow the command replaces, both whole processes:
               a structk process writing the Gram, then that SVC process.
``demo``       ``structk demo`` (no peer).
``cold``       the mutag script and ``structk demo`` with an empty numba cache
               (``NUMBA_CACHE_DIR`` a fresh temporary folder each run).
``psd``        ``KernelSVM`` fit on a precomputed Gram (n = 50 .. 2000, the
               170 x 170 MUTAG training Gram among them) with the default PSD
               safeguard vs ``psd_check="none"``: first fit in a fresh
               process and median of later fits; the safeguard's share.
``rw``         labelled geometric random walk (lam = 0.01) on MUTAG vs GraKeL
               ``RandomWalkLabeled``: CPU time, one thread for both (numba and
               BLAS), ratio GraKeL / structk.
``ridge``      ``KernelRidgeCV`` over 20 penalties vs 20 ``KernelRidge``
               (Cholesky) fits, n = 200 .. 2000, one thread for both; ratio
               CV / refits.

Whole processes are timed in wall-clock and CPU time (user + system of the
process, all threads: robust to the load of a shared machine); timings
inside a process (``psd``, ``ridge``, ``rw``) are CPU times.

Warm numba cache: ``NUMBA_CACHE_DIR`` is a folder of this run, filled by one
untimed run of each structk script first. ``--busy`` runs every case twice,
idle and while a burner process keeps one core busy (the usual state of a
laptop or shared server). The load average is printed before each case.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_end_to_end.py [--quick]
        [--cases mutag,promoters,...] [--busy] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------- scripts
MUTAG = """
from sklearn.model_selection import cross_val_score
from structk import KernelSVM, Normalize, WeisfeilerLehman
from structk.datasets import load_tu
G, y = load_tu("{data}/graphs", "MUTAG")
print(cross_val_score(KernelSVM(kernel=Normalize(WeisfeilerLehman(h=3)), C=10), G, y, cv=10).mean())
"""

TU_READER = """
import numpy as np
def read_tu(folder, name):
    p = f"{{folder}}/{{name}}/{{name}}_"
    A = np.loadtxt(p + "A.txt", delimiter=",", dtype=int) - 1
    gi = np.loadtxt(p + "graph_indicator.txt", dtype=int) - 1
    nl = np.loadtxt(p + "node_labels.txt", dtype=int)
    y = np.loadtxt(p + "graph_labels.txt", dtype=int)
    graphs = [[set(), {{}}] for _ in range(len(y))]
    for v, g in enumerate(gi):
        graphs[g][1][v] = int(nl[v])
    for a, b in A:
        graphs[gi[a]][0].add((int(a), int(b)))
    return graphs, y
"""

MUTAG_PEER = (
    TU_READER
    + """
from grakel import Graph
from grakel.kernels import VertexHistogram, WeisfeilerLehman
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC
graphs, y = read_tu("{data}/graphs", "MUTAG")
G = [Graph(edges, node_labels=labels) for edges, labels in graphs]
model = make_pipeline(WeisfeilerLehman(n_iter=3, normalize=True,
                                       base_graph_kernel=VertexHistogram),
                      SVC(kernel="precomputed", C=10))
print(cross_val_score(model, G, y, cv=10).mean())
"""
)

PROMOTERS = """
from sklearn.model_selection import cross_val_score
from structk import KernelSVM, Normalize, Spectrum
from structk.datasets import load_promoters
seqs, y, _ = load_promoters("{data}/sequences/promoters/promoters.data")
print(cross_val_score(KernelSVM(kernel=Normalize(Spectrum(k=4))), seqs, y, cv=10).mean())
"""

PROMOTERS_PEER = """
import csv
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer
from sklearn.svm import SVC
with open("{data}/sequences/promoters/promoters.data") as fh:
    rows = [[f.strip() for f in r] for r in csv.reader(fh)]
y = [r[0] for r in rows]
seqs = [r[2] for r in rows]
model = make_pipeline(CountVectorizer(analyzer="char", ngram_range=(4, 4), lowercase=False),
                      Normalizer(), SVC(kernel="linear"))
print(cross_val_score(model, seqs, y, cv=10).mean())
"""

SPLICE_GRAM = """
import time
import numpy as np
from structk import WeightedDegree
from structk.sequences import read_fasta
_, headers, seqs = read_fasta("{fasta}", descriptions=True)
k = WeightedDegree(d=8, unknown='skip')
k(seqs[:5])
t = time.perf_counter()
K = k(seqs)
print("RESULT", time.perf_counter() - t)
np.save("{gram}", K)
"""

SPLICE_PEER = """
import numpy as np
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import SVC
K = np.load("{gram}")
y = np.load("{labels}", allow_pickle=False)
cv = StratifiedKFold(5, shuffle=True, random_state=0)
print(cross_val_score(SVC(kernel="precomputed", C=1.0), K, y, cv=cv).mean())
"""

PSD = """
import statistics, time
import numpy as np
from structk import KernelSVM, Normalize, WeisfeilerLehman
from structk.datasets import load_tu
n = {n}
if n == 170:
    G, y = load_tu("{data}/graphs", "MUTAG")
    K = Normalize(WeisfeilerLehman(h=3))(G[:n]); y = y[:n]
else:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-d / 10)
def fit(check):
    t = time.process_time()
    KernelSVM(C=10, psd_check=check).fit(K, y)
    return time.process_time() - t
first = fit("{check}")
rest = statistics.median(fit("{check}") for _ in range({reps}))
print("RESULT", first, rest)
"""

RW = """
import os, statistics, time, warnings
warnings.filterwarnings("ignore")
{reader}
def cpu(fn, reps):
    out = []
    for _ in range(reps):
        t = time.process_time(); fn(); out.append(time.process_time() - t)
    return statistics.median(out)
if {structk}:
    from structk import RandomWalk
    from structk.datasets import load_tu
    G, _ = load_tu("{data}/graphs", "MUTAG")
    k = RandomWalk(lam=0.01)
    k(G[:3])
    print("RESULT", cpu(lambda: k(G), {reps}))
else:
    from grakel import Graph
    from grakel.kernels import RandomWalkLabeled
    graphs, _ = read_tu("{data}/graphs", "MUTAG")
    G = [Graph(edges, node_labels=labels) for edges, labels in graphs]
    print("RESULT", cpu(lambda: RandomWalkLabeled(lamda=0.01).fit_transform(G), {peer_reps}))
"""

RIDGE = """
import statistics, time
import numpy as np
from structk import KernelRidge, KernelRidgeCV
n = {n}
rng = np.random.default_rng(0)
X = rng.normal(size=(n, 5))
y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / 10)
alphas = np.logspace(-4, 2, 20)
def cv():
    KernelRidgeCV(alphas=alphas).fit(K, y)
def refits():
    for a in alphas:
        KernelRidge(alpha=a).fit(K, y)
fn = cv if {structk} else refits
fn()
ts = []
for _ in range({reps}):
    t = time.process_time(); fn(); ts.append(time.process_time() - t)
print("RESULT", statistics.median(ts))
"""


# ----------------------------------------------------------------- running
class Runner:
    def __init__(self, data, tmp, repeats):
        self.data, self.tmp, self.repeats = data, tmp, repeats
        self.last_cpu = 0.0
        self.warm_cache = os.path.join(tmp, "numba-warm")
        os.makedirs(self.warm_cache, exist_ok=True)

    def env(self, cold=False, extra=None):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env["STRUCTK_DATA"] = self.data
        if cold:
            env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-", dir=self.tmp)
        else:
            env["NUMBA_CACHE_DIR"] = self.warm_cache
        env.update(extra or {})
        return env

    def run(self, code=None, argv=None, cold=False, extra_env=None):
        """Wall time of one fresh process, and the numbers it printed after RESULT.

        The process's CPU time (user + system, all threads) is kept in
        ``last_cpu``.
        """
        cmd = [sys.executable] + (argv if argv is not None else ["-c", code])
        env = self.env(cold, extra_env)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(
            cmd, check=False, env=env, capture_output=True, text=True, cwd=self.tmp
        )
        wall = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.last_cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        if cold:
            shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
        if proc.returncode != 0:
            sys.exit(f"command failed: {' '.join(cmd[:4])}...\n{proc.stderr[-3000:]}")
        result = [
            line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("RESULT")
        ]
        return wall, [float(v) for v in result[-1]] if result else None, proc

    def alternate(self, a, b, repeats=None):
        """Run ``a()`` and ``b()`` alternately; lists of their returned values."""
        out_a, out_b = [], []
        for r in range(repeats or self.repeats):
            first, second = (a, b) if r % 2 == 0 else (b, a)
            x, y = first(), second()
            if r % 2:
                x, y = y, x
            out_a.append(x)
            out_b.append(y)
        return out_a, out_b


def med(values):
    return statistics.median(values)


def load():
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f})"


def header(title):
    print(f"\n== {title}; {load()}", flush=True)


def line(name, ours, peer, peer_name, unit="s"):
    print(
        f"  {name:<44s} structk {ours:8.3f} {unit}   {peer_name} {peer:8.3f} {unit}   "
        f"ratio {ours / peer:5.2f}",
        flush=True,
    )


def timed(R, *args, **kwargs):
    """``R.run`` returning ``(wall, cpu)`` of the process."""
    wall = R.run(*args, **kwargs)[0]
    return wall, R.last_cpu


# ------------------------------------------------------------------- cases
def case_script(R, name, ours, peer, peer_name):
    header(f"{name}: whole process, warm numba cache, median of {R.repeats}")
    R.run(ours)  # fills the warm cache
    t_ours, t_peer = R.alternate(lambda: timed(R, ours), lambda: timed(R, peer))
    line(name + " (wall)", med(t[0] for t in t_ours), med(t[0] for t in t_peer), peer_name)
    line(name + " (CPU)", med(t[1] for t in t_ours), med(t[1] for t in t_peer), peer_name)
    return t_ours, t_peer


def case_splice(R):
    header(
        f"structk cv splice WeightedDegree(d=8) vs SVC on the same Gram + Gram time, "
        f"median of {R.repeats}"
    )
    sys.path.insert(0, str(ROOT))  # this process reads the data with structk too
    from structk.datasets import load_splice

    seqs, y, names = load_splice(os.path.join(R.data, "sequences/splice/splice.data"))
    fasta = os.path.join(R.tmp, "splice.fasta")
    with open(fasta, "w") as fh:
        fh.writelines(f">{n} class={c}\n{s}\n" for s, c, n in zip(seqs, y, names))
    import numpy as np

    np.save(os.path.join(R.tmp, "splice_y.npy"), np.asarray(y))
    gram, labels = os.path.join(R.tmp, "splice_K.npy"), os.path.join(R.tmp, "splice_y.npy")
    argv = [
        "-m",
        "structk.cli",
        "cv",
        fasta,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "WeightedDegree(d=8, unknown='skip')",
        "--learner",
        "KernelSVM(C=1.0)",
        "--cv",
        "5",
        "--quiet",
    ]  # the peer's 5 folds (the command's default is 10)
    R.run(argv=argv)
    gram_code = SPLICE_GRAM.format(fasta=fasta, gram=gram)
    R.run(gram_code)
    peer_code = SPLICE_PEER.format(gram=gram, labels=labels)

    def peer():
        gram_wall, result, _ = R.run(gram_code)
        gram_cpu, g = R.last_cpu, result[0]
        wall, cpu = timed(R, peer_code)
        return wall + g, cpu + g, g, wall + gram_wall, cpu + gram_cpu

    t_ours, t_peer = R.alternate(lambda: timed(R, argv=argv), peer)
    g = med(p[2] for p in t_peer)
    ours_wall, ours_cpu = med(t[0] for t in t_ours), med(t[1] for t in t_ours)
    line("structk cv (wall)", ours_wall, med(p[0] for p in t_peer), f"SVC proc + Gram {g:.2f} s =")
    line("structk cv (CPU)", ours_cpu, med(p[1] for p in t_peer), "SVC proc + Gram =")
    # the two-step workflow the command replaces: a structk process writes
    # the Gram, a scikit-learn process cross-validates on it
    line(
        "structk cv vs two processes (wall)",
        ours_wall,
        med(p[3] for p in t_peer),
        "Gram proc + SVC proc =",
    )
    line(
        "structk cv vs two processes (CPU)",
        ours_cpu,
        med(p[4] for p in t_peer),
        "Gram proc + SVC proc =",
    )
    return t_ours, t_peer


def case_demo(R, cold):
    kind = "empty numba cache" if cold else "warm numba cache"
    header(f"structk demo, {kind}, median of {R.repeats}")
    argv = ["-m", "structk.cli", "demo", "--quiet"]
    if not cold:
        R.run(argv=argv)
    times = [timed(R, argv=argv, cold=cold) for _ in range(R.repeats)]
    print(
        f"  structk demo ({kind}): median {med(t[0] for t in times):.2f} s wall, "
        f"{med(t[1] for t in times):.2f} s CPU  "
        f"(runs: {', '.join(f'{t[0]:.1f}' for t in times)})",
        flush=True,
    )
    return times


def case_cold_mutag(R, ours):
    header(f"6-line MUTAG script, empty numba cache, median of {R.repeats}")
    times = [timed(R, ours, cold=True) for _ in range(R.repeats)]
    print(
        f"  MUTAG script (empty cache): median {med(t[0] for t in times):.2f} s wall, "
        f"{med(t[1] for t in times):.2f} s CPU  "
        f"(runs: {', '.join(f'{t[0]:.1f}' for t in times)})",
        flush=True,
    )
    return times


def case_psd(R, quick):
    header(
        "KernelSVM fit on a precomputed Gram: default PSD safeguard vs psd_check='none' (CPU time)"
    )
    sizes = (50, 170, 500) if quick else (50, 170, 500, 1000, 2000)
    print(
        f"  {'n':>5s}  {'first fit: auto':>16s} {'none':>9s}  {'later fits: auto':>17s} "
        f"{'none':>9s}  safeguard share (first, later)"
    )
    for n in sizes:
        reps = 5 if n <= 500 else 3

        def fit(check, n=n, reps=reps):
            return R.run(PSD.format(data=R.data, n=n, check=check, reps=reps))[1]

        fit("auto")
        auto, none = R.alternate(lambda: fit("auto"), lambda: fit("none"))
        fa, fn = med(a[0] for a in auto), med(b[0] for b in none)
        la, ln = med(a[1] for a in auto), med(b[1] for b in none)
        print(
            f"  {n:5d}  {1e3 * fa:13.2f} ms {1e3 * fn:6.2f} ms  {1e3 * la:14.2f} ms "
            f"{1e3 * ln:6.2f} ms  {max(fa - fn, 0) / fa:5.1%}, {max(la - ln, 0) / la:5.1%}",
            flush=True,
        )


#: One thread for numba and the BLAS: the goal's "single core" cases.
ONE_THREAD = {
    "NUMBA_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def case_rw(R, quick):
    header("labelled random walk on MUTAG, CPU time, one thread (numba and BLAS)")
    one = ONE_THREAD
    reps, peer_reps = (2, 1) if quick else (5, 2)

    def run(ours):
        code = RW.format(
            reader=TU_READER.format(), data=R.data, structk=ours, reps=reps, peer_reps=peer_reps
        )
        return R.run(code, extra_env=one)[1][0]

    run(True)
    ours, peer = R.alternate(lambda: run(True), lambda: run(False), repeats=min(R.repeats, 3))
    print(
        f"  structk {med(ours):.4f} s CPU   GraKeL {med(peer):.3f} s CPU   "
        f"GraKeL / structk {med(peer) / med(ours):6.1f}x",
        flush=True,
    )


def case_ridge(R, quick):
    header(
        "KernelRidgeCV over 20 penalties vs 20 KernelRidge (Cholesky) fits (CPU time, one thread)"
    )
    sizes = (200, 1000) if quick else (200, 500, 1000, 2000)
    for n in sizes:
        reps = 5 if n <= 1000 else 3

        def run(ours, n=n, reps=reps):
            return R.run(RIDGE.format(n=n, structk=ours, reps=reps), extra_env=ONE_THREAD)[1][0]

        cv, refits = R.alternate(lambda: run(True), lambda: run(False))
        print(
            f"  n = {n:5d}: KernelRidgeCV {1e3 * med(cv):9.2f} ms   20 refits "
            f"{1e3 * med(refits):9.2f} ms   ratio {med(cv) / med(refits):5.2f}",
            flush=True,
        )


CASES = ("mutag", "promoters", "splice", "demo", "cold", "psd", "rw", "ridge")


def run_cases(R, cases, quick):
    fmt = {"data": R.data}
    mutag, mutag_peer = MUTAG.format(**fmt), MUTAG_PEER.format(**fmt)
    for case in cases:
        if case == "mutag":
            case_script(R, "MUTAG WL script", mutag, mutag_peer, "GraKeL+SVC")
        elif case == "promoters":
            case_script(
                R,
                "promoters spectrum script",
                PROMOTERS.format(**fmt),
                PROMOTERS_PEER.format(**fmt),
                "CountVectorizer+SVC",
            )
        elif case == "splice":
            case_splice(R)
        elif case == "demo":
            case_demo(R, cold=False)
        elif case == "cold":
            case_cold_mutag(R, mutag)
            case_demo(R, cold=True)
        elif case == "psd":
            case_psd(R, quick)
        elif case == "rw":
            case_rw(R, quick)
        elif case == "ridge":
            case_ridge(R, quick)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and sizes")
    parser.add_argument(
        "--cases", default=",".join(CASES), help=f"comma-separated subset of {','.join(CASES)}"
    )
    parser.add_argument(
        "--busy",
        action="store_true",
        help="also run every case while a process keeps one core busy",
    )
    parser.add_argument(
        "--repeats", type=int, default=None, help="rounds per case (default 5, 2 with --quick)"
    )
    args = parser.parse_args(argv)
    data = os.environ.get("STRUCTK_DATA")
    if not data:
        sys.exit("STRUCTK_DATA is not set: point it at the folder holding graphs/ and sequences/")
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            sys.exit(f"unknown case {c!r}; choose from {', '.join(CASES)}")
    repeats = args.repeats or (2 if args.quick else 5)
    print(f"{os.cpu_count()} cores, {load()}, python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as tmp:
        R = Runner(os.path.abspath(data), tmp, repeats)
        print("\n#### idle (no burner process)")
        run_cases(R, cases, args.quick)
        if args.busy:
            print("\n#### busy: a burner process keeps one core busy")
            burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                time.sleep(1.0)
                run_cases(R, cases, args.quick)
            finally:
                burner.kill()
                burner.wait()


if __name__ == "__main__":
    main()
