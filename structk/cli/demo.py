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
    from ..datasets import bundled_path, load_moons, load_tu
    from ..hmm import DiscreteHMM
    from ..kernels import (
        FisherKernel,
        Gaussian,
        Linear,
        Mismatch,
        Normalize,
        Polynomial,
        RandomWalk,
        Spectrum,
        WeightedDegree,
        WeisfeilerLehman,
    )
    from ..learners import KernelLogisticRegression, KernelSVM, NearestClassMean
    from ..sequences import read_fasta

    def fasta(name):
        _, headers, seqs = read_fasta(bundled_path(name), descriptions=True)
        labels = np.array([re.search(r"class=(\S+)", h).group(1) for h in headers])
        return seqs, labels

    svm, klr, ncm = KernelSVM(C=1.0), KernelLogisticRegression(alpha=1e-2), NearestClassMean()
    motif_seqs, motif_y = fasta("motifs.fasta")
    hmm_seqs, hmm_y = fasta("hmm_sequences.fasta")
    graphs, graph_y = load_tu(bundled_path("graph_families"))
    X, y = load_moons()

    fisher = FisherKernel(
        # fitted without labels on all the sequences (unsupervised)
        DiscreteHMM(
            n_states=2, alphabet="dna", n_iter=300, tol=1e-7, n_restarts=3, random_state=0
        ).fit(hmm_seqs),
        parts=("transition", "emission"),
    )
    tasks = [
        (
            "planted motif (DNA, 200 x 100 nt)",
            (
                "the motif sits at a random position: k-mer kernels find it, the "
                "position-aware weighted degree cannot"
            ),
            motif_seqs,
            motif_y,
            [
                ("Normalize(Spectrum(k=2))", Normalize(Spectrum(k=2))),
                ("Normalize(Spectrum(k=6))", Normalize(Spectrum(k=6))),
                ("Normalize(Mismatch(k=6, m=1))", Normalize(Mismatch(k=6, m=1))),
                ("Normalize(WeightedDegree(d=6))", Normalize(WeightedDegree(d=6))),
            ],
            [svm, ncm],
        ),
        (
            "two HMMs (DNA, 400 sequences)",
            (
                "same composition, different dwell times: k-mer counts see little, the "
                "Fisher kernel of a fitted HMM sees the structure"
            ),
            hmm_seqs,
            hmm_y,
            [
                ("Normalize(Spectrum(k=2))", Normalize(Spectrum(k=2))),
                ("FisherKernel(2-state HMM)", fisher),
            ],
            [svm, klr],
        ),
        (
            "graph families (120 graphs)",
            (
                "same sizes and labels, N bonded to O or not: label-aware kernels see it, "
                "the unlabelled walk (a control) cannot"
            ),
            graphs,
            graph_y,
            [
                ("Normalize(WeisfeilerLehman(h=3))", Normalize(WeisfeilerLehman(h=3))),
                ("Normalize(RandomWalk(lam=0.05))", Normalize(RandomWalk(lam=0.05))),
                (
                    "unlabelled RandomWalk (control)",
                    Normalize(RandomWalk(lam=0.05, node_label=None)),
                ),
            ],
            [svm, ncm],
        ),
        (
            "two moons (200 points in 2-D)",
            "not linearly separable: the linear kernel falls short",
            X,
            y,
            [
                ("Linear()", Linear()),
                ("Polynomial(degree=3)", Polynomial(degree=3)),
                ("Gaussian(sigma=0.5)", Gaussian(sigma=0.5)),
            ],
            [svm, klr, ncm],
        ),
    ]
    if quick:
        tasks = [
            (name, note, objs, lab, kernels[-1:], learners[:1])
            for name, note, objs, lab, kernels, learners in tasks
        ]
    return tasks


def run(out=print, *, quick=False, progress=False):
    """Run the demo, printing through ``out``; returns the result rows per task."""
    from ..kernels import FunctionKernel
    from ..psd import check_psd
    from .evaluation import cross_validate_grams, format_table

    t_start = time.perf_counter()
    out(
        "structk demo: kernels x learners, stratified 5-fold cross-validation on the bundled data\n"
    )
    results = {}
    for name, note, objects, labels, kernels, learners in _tasks(quick):
        rows = cross_validate_grams(
            [k for _, k in kernels],
            learners,
            objects,
            labels,
            folds=5,
            seed=0,
            progress=progress,
            kernel_names=[n for n, _ in kernels],
        )
        results[name] = rows
        out(f"{name}; classes {sorted(set(labels.tolist()))}")
        out(f"  {note}")
        out(format_table(rows))
        out("")

    from ..datasets import load_moons

    X, _ = load_moons()
    sigmoid = FunctionKernel(lambda a, b: np.tanh(a @ b - 1.0), name="tanh(x.y - 1)")
    report = check_psd(sigmoid(X))
    out("(Gram times include numba compilation the first time a kernel is used.)\n")
    out(f"Every Gram matrix above passed check_psd. A sigmoid 'kernel' does not:\n{report}\n")
    out(
        f"Done in {time.perf_counter() - t_start:.1f} s. On your own data, e.g.:\n"
        "  structk cv my.fasta --label-pattern 'class=(\\S+)' --kernel 'Normalize(Spectrum(k=5))'"
        " --learner 'KernelSVM(C=1)'\n"
        "  structk cv MY_TU_FOLDER/ --kernel 'Normalize(WeisfeilerLehman(h=3))'\n"
        "  structk gram my.fasta --kernel 'Mismatch(k=5, m=1)' -o K.npy"
    )
    return results
