"""Benchmark: the Photoswitch protocol, structk against GAUCHE, on this CPU.

GAUCHE's regression protocol (Griffiths et al., NeurIPS 2023) on the 392
Photoswitch E-isomer pi-pi* wavelengths
(``$STRUCTK_DATA/molecules/photoswitch/``): 20 random 80/20 splits
(``train_test_split(test_size=0.2, random_state=seed)``, seeds 0-19), the
targets standardised on each training part, output scale and noise by the
marginal likelihood, scored on the test part. Both libraries get the same
splits and the same feature vectors, computed once here with RDKit:

* ``fingerprints``: 2048-bit Morgan fingerprints of radius 3. GAUCHE's
  ``TanimotoKernel`` and structk's ``MinMax`` are the same function on
  bits, so this row times the same model in both libraries;
* ``fragprints``: those bits joined with RDKit's 85 fragment counts
  (GAUCHE's Photoswitch model). Here the kernels differ on the counts:
  GAUCHE's Tanimoto is ``<x, y> / (|x|^2 + |y|^2 - <x, y>)``, structk's
  ``MinMax`` is ``sum min / sum max``;
* ``exact counts`` (structk only): ``MinMax`` on unhashed Morgan count
  environments of radius 2 and the fragment counts
  (``benchmarks/bench_gp.py``'s model).

GAUCHE's side is a GPyTorch ``ExactGP`` with a constant mean and
``ScaleKernel(TanimotoKernel())`` (also a BoTorch ``GPyTorchModel``, which
``fit_gpytorch_mll`` requires), a Gaussian likelihood, fitted by
BoTorch's ``fit_gpytorch_mll`` (L-BFGS-B on the exact marginal
likelihood), in float64. It runs in a separate Python (``--gauche-python``,
default ``/work/venv-gauche/bin/python``: PyTorch is not a structk
dependency) as a subprocess reading the features and splits from a
temporary file; its script is written out by this one. structk's side is
``GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True)``
on the same matrix (as ``scipy.sparse`` rows of counts).

Each split is timed from the training objects to the test predictions
(fit with the optimisation, then predictive mean and standard deviation),
without the featurisation and without starting Python or importing the
library (timed separately). Printed: per model and library, R^2, RMSE
(nm), NLPD, 95 % coverage (mean +- standard error over the splits), the
median wall-clock and CPU seconds (the process's, all its threads) of a
split, the total wall clock of the 20 splits, and the load average of
the machine before and after each side. The whole protocol is also timed
as a process for each library: a fresh Python that imports the library,
reads the features and runs the 20 splits (structk's side in
``STRUCTK_SCRIPT``, in-process timings beside it; GAUCHE's is always a
process), wall clock and CPU seconds of the process and its threads
(``getrusage`` of the children), and the ratios of both; ``--repeat N``
runs the two processes N times, alternately, and takes the ratio of their
medians.

GAUCHE's Python (not a structk extra: pip cannot install it). ``pip
install gauche`` fails for both releases on PyPI (0.1.5, 0.1.6) with
"Distributions from PyPI cannot declare direct URL dependencies": their
``rxn`` extra names ``rxnfp @ git+https://github.com/...``, and pip refuses
any index distribution whose metadata holds a direct URL, requested extra or
not. uv (itself on PyPI) installs it, the ``rxn`` extra not being asked
for; PyTorch's CPU build avoids PyPI's Linux wheel, which pulls the CUDA
libraries::

    python3.11 -m venv /work/venv-gauche
    /work/venv-gauche/bin/pip install uv
    /work/venv-gauche/bin/uv pip install --python /work/venv-gauche/bin/python \
        "torch==2.13.0+cpu" gauche     # the CPU wheel from a local --find-links

(126 packages, 1.5 GB with the CPU torch; gauche 0.1.6, torch 2.13.0,
gpytorch 1.15.2, botorch 0.18.1 when this was run.)

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_gauche.py [--seeds 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gp import TARGET, count_tokens, load  # noqa: E402
from bench_gp_regression import scores  # noqa: E402

#: The GAUCHE side, run by --gauche-python: reads the npz named by argv[1]
#: (X, y, train masks), writes one JSON record per split to argv[2].
GAUCHE_SCRIPT = r"""
import json, sys, time, warnings
t0 = time.perf_counter()
import numpy as np
import torch
import gpytorch
from botorch.fit import fit_gpytorch_mll
from botorch.models.gpytorch import GPyTorchModel
from gauche.kernels.fingerprint_kernels.tanimoto_kernel import TanimotoKernel
imported = time.perf_counter() - t0
torch.set_default_dtype(torch.float64)


class TanimotoGP(gpytorch.models.ExactGP, GPyTorchModel):
    _num_outputs = 1  # a BoTorch model, as fit_gpytorch_mll requires

    def __init__(self, x, y, likelihood):
        super().__init__(x, y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(TanimotoKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(
            self.mean_module(x), self.covar_module(x)
        )


data = np.load(sys.argv[1])
X, y, masks = data["X"], data["y"], data["train"]
out = []
for train in masks:
    start, cpu = time.perf_counter(), time.process_time()
    mu, sd = y[train].mean(), y[train].std()
    x_train = torch.tensor(X[train])
    y_train = torch.tensor((y[train] - mu) / sd)
    likelihood = gpytorch.likelihoods.GaussianLikelihood()
    model = TanimotoGP(x_train, y_train, likelihood)
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit_gpytorch_mll(mll)
    model.eval()
    likelihood.eval()
    with torch.no_grad():
        pred = likelihood(model(torch.tensor(X[~train])))
        mean = pred.mean.numpy() * sd + mu
        std = np.sqrt(pred.variance.numpy()) * sd
    out.append(dict(seconds=time.perf_counter() - start, cpu=time.process_time() - cpu,
                    mean=mean.tolist(), std=std.tolist()))
versions = dict(torch=torch.__version__, gpytorch=gpytorch.__version__,
                threads=torch.get_num_threads())
import gauche, botorch
versions.update(gauche=getattr(gauche, "__version__", "?"), botorch=botorch.__version__)
json.dump(dict(imported=imported, versions=versions, splits=out), open(sys.argv[2], "w"))
"""


#: structk's side as a whole process, for the protocol's total: reads the
#: pickle named by argv[1] (objects, y, train masks), writes one JSON record
#: per split to argv[2]; the same fit and predict as run_structk.
STRUCTK_SCRIPT = r"""
import json, pickle, sys, time, warnings
t0 = time.perf_counter()
import numpy as np
from structk.kernels import MinMax
from structk.learners import GaussianProcessRegressor
imported = time.perf_counter() - t0
objects, y, masks = pickle.load(open(sys.argv[1], "rb"))
out = []
sparse = hasattr(objects, "shape")
for train in masks:
    tr, te = np.flatnonzero(train), np.flatnonzero(~train)
    rows = (lambda i: objects[i]) if sparse else (lambda i: [objects[j] for j in i])
    gp = GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gp.fit(rows(tr), y[tr])
    mean, std = gp.predict(rows(te), return_std=True)
    out.append(dict(mean=mean.tolist(), std=std.tolist()))
json.dump(dict(imported=imported, splits=out), open(sys.argv[2], "w"))
"""


def features(smiles):
    """{name: (dense matrix for both libraries, structk objects or None)}."""
    from rdkit import Chem, RDLogger
    from rdkit.Chem import rdFingerprintGenerator

    from structk.datasets import fragment_counts

    RDLogger.DisableLog("rdApp.*")
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=3, fpSize=2048)
    bits = np.array(
        [generator.GetFingerprintAsNumPy(Chem.MolFromSmiles(s)) for s in smiles], dtype=np.float64
    )
    frags = fragment_counts(smiles)
    names = sorted({k for f in frags for k in f})
    counts = np.array([[f.get(k, 0) for k in names] for f in frags], dtype=np.float64)
    fragprints = np.hstack([bits, counts])
    return {
        "fingerprints": bits,
        "fragprints": fragprints,
        "exact counts": count_tokens(smiles, 2),
    }


def run_structk(objects, y, masks):
    from structk.kernels import MinMax
    from structk.learners import GaussianProcessRegressor

    rows = []
    for train in masks:
        tr, te = np.flatnonzero(train), np.flatnonzero(~train)
        start, cpu = time.perf_counter(), time.process_time()
        gp = GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gp.fit(_rows(objects, tr), y[tr])
        mean, std = gp.predict(_rows(objects, te), return_std=True)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        rows.append(dict(seconds=seconds, cpu=cpu, **scores(y[te], mean, std)))
    return rows


def _rows(objects, index):
    """The objects ``index`` of a list, or the rows of a sparse matrix."""
    if hasattr(objects, "shape"):
        return objects[index]
    return [objects[i] for i in index]


def run_process(python, script_text, data_file, write_data, env=None):
    """Run ``script_text`` in a new ``python`` on the data ``write_data``
    writes to ``data_file`` (a name in a temporary folder): its JSON
    output, and the process's wall-clock and CPU seconds (all its threads)."""
    import resource

    with tempfile.TemporaryDirectory() as tmp:
        script, data, result = (Path(tmp) / n for n in ("side.py", data_file, "out.json"))
        script.write_text(script_text)
        write_data(data)
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([python, str(script), str(data), str(result)], check=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = json.loads(result.read_text())
    used = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    return out, wall, used


def run_structk_process(objects, y, masks):
    """structk's whole protocol in a fresh Python, import included, as
    GAUCHE's is run: (wall s, CPU s, import s, test means of the splits)."""
    import pickle

    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path)

    def write(path):
        path.write_bytes(pickle.dumps((objects, y, masks)))

    out, wall, cpu = run_process(sys.executable, STRUCTK_SCRIPT, "in.pkl", write, env)
    return wall, cpu, out["imported"], [np.array(r["mean"]) for r in out["splits"]]


def run_gauche(python, X, y, masks):
    def write(path):
        np.savez(path, X=X, y=y, train=masks)

    out, wall, cpu = run_process(python, GAUCHE_SCRIPT, "in.npz", write)
    rows = []
    for train, r in zip(masks, out["splits"]):
        yt = y[~train]
        rows.append(
            dict(
                seconds=r["seconds"],
                cpu=r["cpu"],
                **scores(yt, np.array(r["mean"]), np.array(r["std"])),
            )
        )
    return rows, dict(wall=wall, cpu=cpu, imported=out["imported"], **out["versions"])


def summary(name, library, rows, load_before, load_after):
    s = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    sem = {k: v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0 for k, v in s.items()}
    print(
        f"| {name} | {library} | {s['R2'].mean():.3f} ± {sem['R2']:.3f} | "
        f"{s['RMSE'].mean():.2f} ± {sem['RMSE']:.2f} | {s['NLPD'].mean():.3f} ± "
        f"{sem['NLPD']:.3f} | {s['coverage'].mean():.3f} | {np.median(s['seconds']):.3f} | "
        f"{np.median(s['cpu']):.3f} | {s['seconds'].sum():.1f} | "
        f"{load_before:.2f} / {load_after:.2f} |",
        flush=True,
    )
    return float(np.median(s["seconds"])), float(np.median(s["cpu"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="random 80/20 splits (20)")
    parser.add_argument(
        "--gauche-python",
        default=os.environ.get("GAUCHE_PYTHON", "/work/venv-gauche/bin/python"),
        help="a Python with gauche, torch, gpytorch and botorch installed",
    )
    parser.add_argument(
        "--models", nargs="+", default=["fingerprints", "fragprints", "exact counts"]
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the two whole-protocol processes this many times, alternately (medians)",
    )
    args = parser.parse_args(argv)
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit("set STRUCTK_DATA to the folder holding molecules/photoswitch/")
    from sklearn.model_selection import train_test_split

    smiles, y = load(root)
    masks = np.zeros((args.seeds, len(y)), dtype=bool)
    for seed in range(args.seeds):
        train, _ = train_test_split(np.arange(len(y)), test_size=0.2, random_state=seed)
        masks[seed, train] = True
    start = time.perf_counter()
    feats = features(smiles)
    print(
        f"Photoswitch: {len(y)} molecules ({TARGET!r}), {args.seeds} splits; "
        f"featurised in {time.perf_counter() - start:.1f} s; {os.cpu_count()} CPUs"
    )
    print(
        "| features | library | R² | RMSE (nm) | NLPD | 95 % coverage | median s / split "
        "| median CPU s / split | total s | load before / after |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    medians, totals = {}, {}
    for name in args.models:
        X = feats[name]
        # the same matrix as GAUCHE's, sparse: MinMax takes rows of counts
        objects = X if isinstance(X, list) else sp.csr_matrix(X)
        before = os.getloadavg()[0]
        rows = run_structk(objects, y, masks)
        medians[name, "structk"] = summary(name, "structk", rows, before, os.getloadavg()[0])
        before = os.getloadavg()[0]
        wall, cpu, imported, means = run_structk_process(objects, y, masks)
        rmse = [np.sqrt(np.mean((y[~train] - m) ** 2)) for train, m in zip(masks, means)]
        same = max(abs(e - r["RMSE"]) for e, r in zip(rmse, rows))
        totals[name, "structk"] = [(wall, cpu)]
        print(
            f"|  | (structk process: {wall:.1f} s, {cpu:.1f} s CPU in all, imports "
            f"{imported:.2f} s; its RMSEs within {same:.1g} nm of the above; load "
            f"{before:.2f} / {os.getloadavg()[0]:.2f}) | | | | | | | | |",
            flush=True,
        )
        if isinstance(X, list):
            continue  # unhashed tokens: structk only
        before = os.getloadavg()[0]
        rows, info = run_gauche(args.gauche_python, X, y, masks)
        medians[name, "gauche"] = summary(name, "GAUCHE", rows, before, os.getloadavg()[0])
        totals[name, "gauche"] = [(info["wall"], info["cpu"])]
        print(
            f"|  | (GAUCHE process: {info['wall']:.1f} s, {info['cpu']:.1f} s CPU in all, "
            f"imports {info['imported']:.1f} s; gauche {info['gauche']}, torch "
            f"{info['torch']} on {info['threads']} threads, gpytorch {info['gpytorch']}, "
            f"botorch {info['botorch']}) | | | | | | | | |",
            flush=True,
        )
        for _ in range(args.repeat - 1):  # the two whole processes again, alternately
            before = os.getloadavg()[0]
            totals[name, "structk"].append(run_structk_process(objects, y, masks)[:2])
            totals[name, "gauche"].append(
                (lambda i: (i["wall"], i["cpu"]))(run_gauche(args.gauche_python, X, y, masks)[1])
            )
            (sw, sc), (gw, gc) = totals[name, "structk"][-1], totals[name, "gauche"][-1]
            print(
                f"|  | (again: structk process {sw:.1f} s, {sc:.1f} s CPU; GAUCHE process "
                f"{gw:.1f} s, {gc:.1f} s CPU; load {before:.2f} / {os.getloadavg()[0]:.2f}) "
                "| | | | | | | | |",
                flush=True,
            )
    for name in args.models:
        if (name, "gauche") in medians:
            ratio = {k: medians[name, "gauche"][k] / medians[name, "structk"][k] for k in (0, 1)}
            runs = {lib: np.median(totals[name, lib], axis=0) for lib in ("gauche", "structk")}
            whole = runs["gauche"] / runs["structk"]
            print(
                f"{name}: GAUCHE's median split takes {ratio[0]:.1f}x structk's wall clock, "
                f"{ratio[1]:.1f}x its CPU; the whole protocol (a fresh process, imports "
                f"included; medians of {len(totals[name, 'gauche'])} runs each: structk "
                f"{runs['structk'][0]:.1f} s, {runs['structk'][1]:.2f} s CPU, GAUCHE "
                f"{runs['gauche'][0]:.1f} s, {runs['gauche'][1]:.1f} s CPU) "
                f"{whole[0]:.1f}x its wall clock, {whole[1]:.1f}x its CPU"
            )


if __name__ == "__main__":
    main()
