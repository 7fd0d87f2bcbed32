"""Figures of the kernel-methods pages (PCA, CCA, tests, Fisher scores).

Made through ``make_figures.py``, which lists them too::

    STRUCTK_DATA=/path/to/data python docs/figures/make_figures.py kernel_pca

They read the public benchmark data from $STRUCTK_DATA.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np


def data_path(relative):
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        raise SystemExit("these figures need STRUCTK_DATA (the TU and UCI benchmark data)")
    return Path(root) / relative


def _scatter(ax, Z, y, title):
    for label in np.unique(y):
        mask = y == label
        ax.scatter(Z[mask, 0], Z[mask, 1], s=6, alpha=0.6, label=f"{label} ({mask.sum()})")
    ax.set_xlabel("component 1")
    ax.set_ylabel("component 2")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, markerscale=2)


def kernel_pca():
    """MUTAG under a normalised WL kernel, splice under weighted degree, on two components."""
    from structk.datasets import load_splice, load_tu
    from structk.kernels import Normalize, WeightedDegree, WeisfeilerLehman
    from structk.learners import KernelPCA

    graphs, y_graphs = load_tu(data_path("graphs"), "MUTAG")
    splice = load_splice(data_path("sequences/splice/splice.data"))
    cases = [
        (KernelPCA(Normalize(WeisfeilerLehman(h=3)), n_components=2), graphs, y_graphs,
         "MUTAG (188 graphs), Normalize(WeisfeilerLehman(h=3))"),
        (KernelPCA(Normalize(WeightedDegree(d=8, unknown="skip")), n_components=2),
         splice.sequences,
         splice.target, "UCI splice (3190 x 60 nt), Normalize(WeightedDegree(d=8))"),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    for ax, (pca, X, y, title) in zip(axes, cases):
        _scatter(ax, pca.fit_transform(X), np.asarray(y), title)
    fig.tight_layout()
    return fig


def kernel_cca():
    """Splice windows: left half (spectrum) vs right half (spectrum), held-out variates."""
    from structk.datasets import load_splice
    from structk.kernels import Normalize, Spectrum
    from structk.learners import KernelCCA

    splice = load_splice(data_path("sequences/splice/splice.data"))
    seqs, y = splice.sequences, np.asarray(splice.target)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(seqs))
    train, test = order[:1500], order[1500:]
    left = [s[:30] for s in seqs]
    right = [s[30:] for s in seqs]
    k = Normalize(Spectrum(k=3, unknown="skip"))
    cca = KernelCCA(k, k, n_components=5, reg=0.05)
    cca.fit([left[i] for i in train], [right[i] for i in train])
    U, V = cca.transform([left[i] for i in test], [right[i] for i in test])
    held_out = [np.corrcoef(U[:, j], V[:, j])[0, 1] for j in range(U.shape[1])]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
    comps = np.arange(1, U.shape[1] + 1)
    axes[0].plot(comps, cca.canonical_correlations_, "o-", label="training (regularised)")
    axes[0].plot(comps, held_out, "s--", label="held out (Pearson)")
    axes[0].set_xlabel("canonical pair")
    axes[0].set_ylabel("correlation")
    axes[0].set_ylim(0, 1)
    axes[0].set_xticks(comps)
    axes[0].legend(fontsize=8)
    axes[0].set_title("KernelCCA, Normalize(Spectrum(k=3)) on each half", fontsize=9)
    _scatter(axes[1], np.column_stack([U[:, 0], V[:, 0]]), y[test],
             f"first canonical pair, {len(test)} held-out windows")
    axes[1].set_xlabel("left half (nt 1-30)")
    axes[1].set_ylabel("right half (nt 31-60)")
    fig.tight_layout()
    gc = np.array([sum(c in "GC" for c in seqs[i]) / 60 for i in test])
    print("canonical correlations", np.round(cca.canonical_correlations_, 3),
          "held out", np.round(held_out, 3),
          "corr(first left variate, GC content)", round(np.corrcoef(U[:, 0], gc)[0, 1], 3))
    return fig


def kernel_tests():
    """Level and power of mmd_test and hsic_test on splice windows (Spectrum(k=3))."""
    from structk.datasets import load_splice
    from structk.kernels import Normalize, Spectrum
    from structk.stats import hsic_test, mmd_test

    splice = load_splice(data_path("sequences/splice/splice.data"))
    seqs = np.array(splice.sequences, dtype=object)
    ei, ie = seqs[splice.target == "EI"], seqs[splice.target == "IE"]
    k = Normalize(Spectrum(k=3, unknown="skip"))
    rng = np.random.default_rng(0)
    sizes = [5, 10, 20, 40]
    reps, perms = 200, 199

    def rate(draw):
        return np.mean([draw() <= 0.05 for _ in range(reps)])

    def two_sample(a, b, n):
        return lambda: mmd_test(k, list(rng.choice(a, n, replace=False)),
                                list(rng.choice(b, n, replace=False)),
                                n_permutations=perms, random_state=rng).pvalue

    def null_split(a, n):
        def draw():
            s = list(rng.choice(a, 2 * n, replace=False))
            return mmd_test(k, s[:n], s[n:], n_permutations=perms, random_state=rng).pvalue
        return draw

    def halves(n, paired):
        def draw():
            s = rng.choice(seqs, 2 * n, replace=False)
            left = [x[:30] for x in s[:n]]
            right = [x[30:] for x in (s[:n] if paired else s[n:])]
            return hsic_test(k, k, left, right, n_permutations=perms,
                             random_state=rng).pvalue
        return draw

    rows = {
        "MMD, EI vs IE": [rate(two_sample(ei, ie, n)) for n in sizes],
        "MMD, EI vs EI (null)": [rate(null_split(ei, n)) for n in sizes],
        "HSIC, left vs right half": [rate(halves(n, True)) for n in sizes],
        "HSIC, halves of different windows (null)": [rate(halves(n, False)) for n in sizes],
    }
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    for (label, values), style in zip(rows.items(), ["o-", "o--", "s-", "s--"]):
        ax.plot(sizes, values, style, label=label)
        print(label, values)
    ax.axhline(0.05, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(sizes, [str(n) for n in sizes])
    ax.set_xlabel("objects per sample (pairs for HSIC)")
    ax.set_ylabel(f"rejection rate at 0.05 ({reps} draws)")
    ax.set_title("splice windows, Normalize(Spectrum(k=3)), 199 permutations", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fisher_accuracies(train, y_train, test, y_test, n_states):
    """Test accuracy of SVMs on the single-model and class-conditional Fisher
    kernels (C by 3-fold CV on the training part) and of the Bayes rule."""
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    from structk import DiscreteHMM, FisherKernel
    from structk.kernels import ClassConditionalFisherKernel
    from structk.learners import KernelSVM

    template = DiscreteHMM(n_states=n_states, n_iter=300, tol=1e-7, n_restarts=3,
                           random_state=0)
    parts = ("transition", "emission")
    single = FisherKernel(clone(template).fit(train), parts=parts)
    mixture = ClassConditionalFisherKernel.from_labelled(train, y_train, hmm=template,
                                                         parts=parts)
    classes = np.unique(y_train)
    out = {"Bayes rule of the class HMMs": float(np.mean(
        classes[mixture.posteriors(test).argmax(axis=1)] == y_test))}
    for name, kernel in [("Fisher, one HMM (no labels)", single),
                         ("Fisher, class-conditional", mixture)]:
        kernel.fit(train)
        search = GridSearchCV(KernelSVM(kernel="precomputed"),
                              {"C": [0.01, 0.1, 1.0, 10.0, 100.0]}, cv=3)
        search.fit(kernel(train), y_train)
        out[name] = float(np.mean(search.predict(kernel(test, train)) == y_test))
    return out


def class_fisher():
    """Single-model vs class-conditional Fisher kernel: two-HMM data and promoters."""
    from sklearn.model_selection import GroupKFold

    from structk.datasets import bundled_path, load_promoters, promoter_groups
    from structk.sequences import read_fasta

    _, headers, seqs = read_fasta(bundled_path("hmm_sequences.fasta"), descriptions=True)
    fields = [dict(f.split("=") for f in h.split()[1:]) for h in headers]
    y = np.array([f["class"] for f in fields])
    split = np.array([f["split"] for f in fields])
    tr, te = np.flatnonzero(split == "train"), np.flatnonzero(split == "test")
    hmm_results = _fisher_accuracies([seqs[i] for i in tr], y[tr], [seqs[i] for i in te],
                                     y[te], n_states=2)

    data = load_promoters(data_path("sequences/promoters/promoters.data"))
    pseqs, py = [x.upper() for x in data.sequences], np.asarray(data.target)
    folds = []
    for tr, te in GroupKFold(n_splits=5).split(pseqs, py, promoter_groups(data)):
        folds.append(_fisher_accuracies([pseqs[i] for i in tr], py[tr],
                                        [pseqs[i] for i in te], py[te], n_states=2))
    prom_results = {name: float(np.mean([f[name] for f in folds])) for name in folds[0]}

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, (title, res) in zip(axes, [
            ("two-HMM data (fixed test half, 200 sequences)", hmm_results),
            ("UCI promoters (5-fold grouped CV, 106 sequences)", prom_results)]):
        names = list(res)
        ax.barh(names, [res[n] for n in names], color=["grey", "tab:blue", "tab:orange"])
        for i, n in enumerate(names):
            ax.text(res[n] + 0.01, i, f"{res[n]:.3f}", va="center", fontsize=8)
        ax.set_xlim(0.4, 1.05)
        ax.set_xlabel("accuracy")
        ax.set_title(title, fontsize=9)
        print(title, res)
    fig.tight_layout()
    return fig


FIGURES = {
    "kernel_pca": kernel_pca,
    "kernel_cca": kernel_cca,
    "kernel_tests": kernel_tests,
    "class_fisher": class_fisher,
}

