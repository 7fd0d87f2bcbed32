"""Fisher kernel of an HMM vs the k-mer spectrum on sequences from two HMMs.

The bundled data (data/hmm_sequences.fasta, made by
data/make_hmm_sequences.py) are DNA sequences from two 2-state HMMs with the
same emission distributions and the same overall composition, differing
only in how long they stay in a state. One HMM is fitted to the training
sequences of both classes (no labels), and an SVM on its Fisher kernel is
compared with an SVM on the normalised k-mer spectrum for small k. The
regularisation C of every SVM is chosen by 3-fold cross-validation on the
training half; accuracies are on the fixed test half.

    PYTHONPATH=. python examples/fisher_hmm.py

The learner is a factory argument: ``sklearn.svm.SVC(kernel="precomputed")``
by default, ``structk.learners.KernelSVM(kernel="precomputed")`` once the
learners are merged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from structk import DiscreteHMM, FisherKernel

DATA = Path(__file__).resolve().parents[1] / "data" / "hmm_sequences.fasta"
C_GRID = [0.01, 0.1, 1.0, 10.0, 100.0]


def read_fasta(path=DATA):
    """Return ``(sequences, labels, splits)`` from the bundled FASTA file."""
    sequences, labels, splits = [], [], []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line.startswith(">"):
                fields = dict(f.split("=") for f in line.split()[1:])
                labels.append(fields["class"])
                splits.append(fields["split"])
            elif line:
                sequences.append(line)
    return sequences, np.array(labels), np.array(splits)


def spectrum_gram(train, test, k):
    """Normalised k-mer spectrum Gram matrices (train x train, test x train).

    A brute-force stand-in: swap for ``structk.kernels.Spectrum(k)`` wrapped
    in ``Normalize`` once the string kernels are merged.
    """
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.preprocessing import normalize

    counts = CountVectorizer(analyzer="char", ngram_range=(k, k), lowercase=False)
    F = normalize(counts.fit_transform(train).astype(float))
    G = normalize(counts.transform(test).astype(float))
    return (F @ F.T).toarray(), (G @ F.T).toarray()


def fisher_gram(train, test, parts, n_states=2, seed=0):
    """Fisher kernel Gram matrices of an HMM fitted (without labels) on ``train``."""
    hmm = DiscreteHMM(n_states, "dna", n_iter=300, tol=1e-7, n_restarts=3,
                      random_state=seed).fit(train)
    kernel = FisherKernel(hmm, parts=parts).fit(train)
    return kernel(train), kernel(test, train)


def accuracy(K_train, y_train, K_test, y_test, make_learner):
    """Test accuracy of a precomputed-kernel learner with C chosen by 3-fold CV."""
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(make_learner(), {"C": C_GRID}, cv=3)
    search.fit(K_train, y_train)
    return float(np.mean(search.predict(K_test) == y_test))


def _svc():
    from sklearn.svm import SVC

    return SVC(kernel="precomputed")


def compare(make_learner=_svc, ks=(1, 2, 3), path=DATA):
    """Accuracy of each kernel on the test half: ``{name: accuracy}``."""
    sequences, labels, splits = read_fasta(path)
    train = [s for s, p in zip(sequences, splits) if p == "train"]
    test = [s for s, p in zip(sequences, splits) if p == "test"]
    y_train, y_test = labels[splits == "train"], labels[splits == "test"]
    results = {}
    for k in ks:
        results[f"spectrum k={k}"] = accuracy(*_pair(spectrum_gram(train, test, k),
                                                     y_train, y_test), make_learner)
    for parts in (("emission",), ("transition", "emission")):
        grams = fisher_gram(train, test, parts)
        results[f"Fisher {'+'.join(parts)}"] = accuracy(*_pair(grams, y_train, y_test),
                                                        make_learner)
    return results


def _pair(grams, y_train, y_test):
    return grams[0], y_train, grams[1], y_test


if __name__ == "__main__":
    for name, acc in compare().items():
        print(f"{name:<28s} test accuracy {acc:.3f}")
