"""Model files: structk.save / structk.load against pickle and skops.io.

Fitted models are saved and loaded (medians over ``--repeats`` runs after a
warm-up) with ``structk.save``/``structk.load`` (a zip of JSON and ``.npy``
arrays, rebuilt from an allow-list), ``pickle`` (what scikit-learn users do;
loading a pickle can run any code) and, when installed, ``skops.io`` (the
secure format scikit-learn points to; its untrusted types must be listed to
load). Printed: file sizes, save and load times, and whether the loaded
model predicts exactly what the fitted one does.

Models: ``KernelSVM(Normalize(Spectrum(k=6)))`` on ``--n`` random DNA
sequences of 200 nt (half with a planted motif), and
``KernelSVM(WeisfeilerLehman(h=3))`` on MUTAG when ``STRUCTK_DATA`` is set
(networkx graphs as support vectors).

Usage::

    PYTHONPATH=. python benchmarks/bench_model_file.py [--n 2000] [--quick]
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from _timing import median_time, print_table  # noqa: E402


def _sequences(n, rng):
    seqs = ["".join(rng.choice(list("ACGT"), size=200)) for _ in range(n)]
    y = np.arange(n) % 2
    for i in np.flatnonzero(y):
        at = rng.integers(0, 190)
        seqs[i] = seqs[i][:at] + "TGACTCAGCA" + seqs[i][at + 10 :]
    return seqs, y


def _models(n, rng):
    from structk.kernels import Normalize, Spectrum, WeisfeilerLehman
    from structk.learners import KernelSVM

    seqs, y = _sequences(n, rng)
    out = [
        (
            f"SVM Spectrum(k=6), {n} sequences",
            KernelSVM(kernel=Normalize(Spectrum(k=6)), C=1.0).fit(seqs, y),
            seqs[:200],
        )
    ]
    data = os.environ.get("STRUCTK_DATA")
    if data:
        from structk.datasets import load_tu

        graphs, gy = load_tu(os.path.join(data, "graphs", "MUTAG"))
        out.append(
            (
                "SVM WeisfeilerLehman(h=3), MUTAG",
                KernelSVM(kernel=WeisfeilerLehman(h=3), C=1.0).fit(graphs, gy),
                graphs,
            )
        )
    return out


def _formats():
    import structk

    def pickle_save(est, path):
        with open(path, "wb") as fh:
            pickle.dump(est, fh, protocol=pickle.HIGHEST_PROTOCOL)

    def pickle_load(path):
        with open(path, "rb") as fh:
            return pickle.load(fh)  # noqa: S301 - the peer being measured

    out = [("structk", structk.save, structk.load), ("pickle", pickle_save, pickle_load)]
    try:
        import skops.io as sio
    except ImportError:
        print("skops not installed: its column is left out (pip install skops)")
        return out

    def skops_load(path):
        # a user must list the types to trust; here: all that the file names
        return sio.load(path, trusted=sio.get_untrusted_types(file=path))

    out.append(("skops.io", lambda est, path: sio.dump(est, path), skops_load))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="training sequences")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="200 sequences, 2 repeats")
    args = parser.parse_args()
    if args.quick:
        args.n, args.repeats = 200, 2
    rng = np.random.default_rng(0)
    folder = tempfile.mkdtemp()
    rows = []
    for name, model, test in _models(args.n, rng):
        expected = model.decision_function(test)
        for fmt, save, load in _formats():
            path = os.path.join(folder, f"model.{fmt}")
            try:
                t_save = median_time(lambda: save(model, path), repeat=args.repeats)
                t_load = median_time(lambda: load(path), repeat=args.repeats)
                same = np.array_equal(load(path).decision_function(test), expected)
                rows.append(
                    [
                        name,
                        fmt,
                        f"{os.path.getsize(path) / 1e3:.0f}",
                        f"{t_save * 1e3:.1f}",
                        f"{t_load * 1e3:.1f}",
                        "yes" if same else "NO",
                    ]
                )
            except Exception as exc:  # noqa: BLE001 - a peer failing is a result
                rows.append([name, fmt, "-", "-", "-", f"failed: {type(exc).__name__}"])
    print_table(rows, ["model", "format", "kB", "save ms", "load ms", "same predictions"])


if __name__ == "__main__":
    main()
