"""Fisher kernel of an HMM vs the k-mer spectrum on sequences from two HMMs.

The bundled data (data/hmm_sequences.fasta, made by
data/make_hmm_sequences.py) are DNA sequences from two 2-state HMMs with the
same emission distributions and the same overall composition, differing
only in how long they stay in a state. One HMM is fitted to the training
sequences of both classes (no labels), and an SVM on its Fisher kernel is
compared with an SVM on the normalised k-mer spectrum for small k. The
regularisation C of every SVM is chosen by 3-fold cross-validation on the
training half; accuracies are on the fixed test half.

    python examples/fisher_hmm.py [--quick]

The learner is structk's ``KernelSVM`` on precomputed Gram matrices (a
factory argument: any scikit-learn classifier taking a precomputed kernel
works).
"""

from __future__ import annotations

import numpy as np

from structk import DiscreteHMM, FisherKernel
from structk.datasets import bundled_path
from structk.kernels import Normalize, Spectrum
from structk.learners import KernelSVM
from structk.sequences import read_fasta

DATA = bundled_path("hmm_sequences.fasta")
C_GRID = [0.01, 0.1, 1.0, 10.0, 100.0]


def read_records(path=DATA):
    """Return ``(sequences, labels, splits)`` from the bundled FASTA file."""
    _, headers, sequences = read_fasta(path, descriptions=True)
    fields = [dict(f.split("=") for f in h.split()[1:]) for h in headers]
    return (
        sequences,
        np.array([f["class"] for f in fields]),
        np.array([f["split"] for f in fields]),
    )


def spectrum_gram(train, test, k):
    """Normalised k-mer spectrum Gram matrices (train x train, test x train)."""
    kernel = Normalize(Spectrum(k=k))
    return kernel(train), kernel(test, train)


def fisher_gram(train, test, parts, n_states=2, seed=0):
    """Fisher kernel Gram matrices of an HMM fitted (without labels) on ``train``."""
    hmm = DiscreteHMM(n_states, "dna", n_iter=300, tol=1e-7, n_restarts=3, random_state=seed).fit(
        train
    )
    kernel = FisherKernel(hmm, parts=parts).fit(train)
    return kernel(train), kernel(test, train)


def accuracy(K_train, y_train, K_test, y_test, make_learner):
    """Test accuracy of a precomputed-kernel learner with C chosen by 3-fold CV."""
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(make_learner(), {"C": C_GRID}, cv=3)
    search.fit(K_train, y_train)
    return float(np.mean(search.predict(K_test) == y_test))


def _svm():
    return KernelSVM(kernel="precomputed")


def compare(make_learner=_svm, ks=(1, 2, 3), path=DATA):
    """Accuracy of each kernel on the test half: ``{name: accuracy}``."""
    sequences, labels, splits = read_records(path)
    train = [s for s, p in zip(sequences, splits) if p == "train"]
    test = [s for s, p in zip(sequences, splits) if p == "test"]
    y_train, y_test = labels[splits == "train"], labels[splits == "test"]
    results = {}
    for k in ks:
        results[f"spectrum k={k}"] = accuracy(
            *_pair(spectrum_gram(train, test, k), y_train, y_test), make_learner
        )
    for parts in (("emission",), ("transition", "emission")):
        grams = fisher_gram(train, test, parts)
        results[f"Fisher {'+'.join(parts)}"] = accuracy(
            *_pair(grams, y_train, y_test), make_learner
        )
    return results


def _pair(grams, y_train, y_test):
    return grams[0], y_train, grams[1], y_test


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="spectrum with k = 2 only")
    quick = parser.parse_args().quick
    for name, acc in compare(ks=(2,) if quick else (1, 2, 3)).items():
        print(f"{name:<28s} test accuracy {acc:.3f}")
