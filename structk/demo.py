"""The main job on bundled data: ``structk demo``.

Classifies the project's own small data sets — DNA sequences with a planted
motif, sequences from two HMMs, two families of labelled graphs, and 2-D
points — with several kernels and learners under stratified 5-fold
cross-validation. Every Gram matrix is checked with :func:`structk.check_psd`,
and a deliberately invalid "kernel" shows what a caught violation looks like.
The data are made by the seeded scripts in the project's ``data/`` folder.
"""

from __future__ import annotations

import re
import time

import numpy as np


def _tasks(quick):
    from .datasets import bundled_path, load_moons, load_tu
    from .hmm import DiscreteHMM
    from .kernels import (
        FisherKernel, Gaussian, Linear, Mismatch, Normalize, Polynomial, RandomWalk,
        Spectrum, WeightedDegree, WeisfeilerLehman,
    )
    from .learners import KernelLogisticRegression, KernelSVM, NearestClassMean
    from .sequences import read_fasta

    def fasta(name):
        _, headers, seqs = read_fasta(bundled_path(name), descriptions=True)
        labels = np.array([re.search(r"class=(\S+)", h).group(1) for h in headers])
        return seqs, labels

    svm, klr, ncm = KernelSVM(C=1.0), KernelLogisticRegression(alpha=1e-2), NearestClassMean()
    motif_seqs, motif_y = fasta("motifs.fasta")
    hmm_seqs, hmm_y = fasta("hmm_sequences.fasta")
    graphs, graph_y = load_tu(bundled_path("graph_families"))
    X, y = load_moons()

    tasks = [
        ("planted motif (DNA, 200 x 100 nt)", motif_seqs, motif_y,
         [Normalize(Spectrum(k=2)), Normalize(Spectrum(k=6)),
          Normalize(Mismatch(k=6, m=1)), Normalize(WeightedDegree(d=6))],
         [svm, ncm]),
        ("two HMMs (DNA, 400 sequences)", hmm_seqs, hmm_y,
         [Normalize(Spectrum(k=2)),
          # the HMM is fitted without labels on all sequences (unsupervised)
          FisherKernel(DiscreteHMM(n_states=2, alphabet="dna", n_iter=300, tol=1e-7,
                                   n_restarts=3, random_state=0).fit(hmm_seqs),
                       parts=("transition", "emission"))],
         [svm, klr]),
        ("graph families: N-O bonded or apart (120 graphs)", graphs, graph_y,
         [Normalize(WeisfeilerLehman(h=3)), Normalize(RandomWalk(lam=0.05)),
          # control: the same walk blind to labels cannot see N-O bonds
          Normalize(RandomWalk(lam=0.05, node_label=None))],
         [svm, ncm]),
        ("two moons (200 points in 2-D)", X, y,
         [Linear(), Polynomial(degree=3), Gaussian(sigma=0.5)],
         [svm, klr, ncm]),
    ]
    if quick:
        tasks = [(name, objs, lab, kernels[-1:], learners[:1])
                 for name, objs, lab, kernels, learners in tasks]
    return tasks


def run(out=print, *, quick=False, progress=False):
    """Run the demo, printing through ``out``; returns the result rows per task."""
    from .evaluation import cross_validate_grams, format_table
    from .kernels import FunctionKernel
    from .psd import check_psd

    t_start = time.perf_counter()
    out("structk demo: kernels x learners, stratified 5-fold cross-validation on the "
        "bundled data\n")
    results = {}
    for name, objects, labels, kernels, learners in _tasks(quick):
        rows = cross_validate_grams(kernels, learners, objects, labels, folds=5,
                                    seed=0, progress=progress)
        results[name] = rows
        out(f"{name}; classes {sorted(set(labels.tolist()))}")
        out(format_table(rows))
        out("")

    from .datasets import load_moons

    X, _ = load_moons()
    sigmoid = FunctionKernel(lambda a, b: np.tanh(a @ b - 1.0), name="tanh(x.y - 1)")
    report = check_psd(sigmoid(X))
    out(f"Every Gram matrix above passed check_psd. A sigmoid 'kernel' does not:\n{report}\n")
    out(f"Done in {time.perf_counter() - t_start:.1f} s. On your own data, e.g.:\n"
        "  structk cv my.fasta --label-pattern 'class=(\\S+)' --kernel 'Normalize(Spectrum(k=5))'"
        " --learner 'KernelSVM(C=1)'\n"
        "  structk cv MY_TU_FOLDER/ --kernel 'Normalize(WeisfeilerLehman(h=3))'\n"
        "  structk gram my.fasta --kernel 'Mismatch(k=5, m=1)' -o K.npy")
    return results
