"""Classify DNA with string kernels and an SVM: UCI splice junctions and promoters.

Reads the UCI files from ``$STRUCTK_DATA`` (``sequences/splice/splice.data``,
``sequences/promoters/promoters.data``), computes each Gram matrix once and
cross-validates an SVM on it:

* splice (3190 x 60 nt, 3 classes): 5-fold stratified cross-validation,
  spectrum and mismatch kernels (position-blind) against the weighted-degree
  kernel (position-aware). The 15 sequences with ambiguity codes are read
  with ``unknown="skip"``: k-mers covering an ``N``, ``D``, ``R`` or ``S``
  are dropped.
* promoters (106 x 57 nt): the negatives are overlapping windows of one
  sequence, so random folds would test on DNA seen in training; accuracy is
  reported by leave-one-out and by 5 folds that keep overlapping windows
  together (``promoter_groups``).

The classifier is structk's ``KernelSVM`` on the precomputed Gram matrix
(``make_estimator`` takes any scikit-learn classifier that accepts one).

Usage::

    STRUCTK_DATA=/path/to/data python examples/splice_promoters.py [--quick]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import GroupKFold, LeaveOneOut, StratifiedKFold, cross_val_score

from structk.datasets import load_promoters, load_splice, promoter_groups
from structk.kernels import GappyPair, Mismatch, Spectrum, WeightedDegree
from structk.learners import KernelSVM


def make_svm():
    return KernelSVM(kernel="precomputed", C=1.0)


def cv_accuracy(kernel, data, cv, groups=None, make_estimator=make_svm):
    """Mean cross-validated accuracy of a classifier on ``kernel``'s Gram matrix."""
    K = kernel(data.sequences)
    scores = cross_val_score(make_estimator(), K, data.target, cv=cv, groups=groups)
    return float(np.mean(scores))


def main(quick=False):
    root = os.environ.get("STRUCTK_DATA")
    if not root:
        sys.exit(
            "Set STRUCTK_DATA to the folder holding sequences/splice/splice.data "
            "and sequences/promoters/promoters.data (the UCI files)."
        )
    root = Path(root)
    splice = load_splice(root / "sequences/splice/splice.data")
    promoters = load_promoters(root / "sequences/promoters/promoters.data")
    if quick:  # every 4th splice sequence, two kernels per data set
        keep = slice(None, None, 4)
        splice = type(splice)(splice.sequences[keep], splice.target[keep], splice.names[keep])

    print(f"splice: {len(splice.sequences)} sequences, 5-fold stratified CV, SVM C=1")
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    kernels = [
        Spectrum(k=3, normalize=True, unknown="skip"),
        Spectrum(k=5, normalize=True, unknown="skip"),
        Mismatch(k=5, m=1, normalize=True, unknown="skip"),
        WeightedDegree(d=3, unknown="skip"),
        WeightedDegree(d=8, unknown="skip"),
        WeightedDegree(d=12, unknown="skip"),
        GappyPair(k=2, m=2, normalize=True, unknown="skip"),
        GappyPair(k=3, m=3, normalize=True, unknown="skip"),
        WeightedDegree(d=8, shift=1, unknown="skip"),
        WeightedDegree(d=8, shift=3, unknown="skip"),
    ]
    for kernel in kernels[1::3] if quick else kernels:
        print(f"  {cv_accuracy(kernel, splice, folds):.4f}  {kernel!r}")

    print(
        f"promoters: {len(promoters.sequences)} sequences, SVM C=1 "
        "(leave-one-out | 5 folds grouping overlapping windows)"
    )
    groups = promoter_groups(promoters)
    kernels = [
        Spectrum(k=3, normalize=True),
        Spectrum(k=4, normalize=True),
        Mismatch(k=5, m=1, normalize=True),
        WeightedDegree(d=3),
        WeightedDegree(d=5),
        GappyPair(k=2, m=2, normalize=True),
        GappyPair(k=1, m=4, normalize=True),
        WeightedDegree(d=5, shift=2),
        WeightedDegree(d=5, shift=8),
    ]
    for kernel in kernels[1::3] if quick else kernels:
        loo = cv_accuracy(kernel, promoters, LeaveOneOut())
        grouped = cv_accuracy(kernel, promoters, GroupKFold(5), groups=groups)
        print(f"  {loo:.4f} | {grouped:.4f}  {kernel!r}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="a quarter of splice and two kernels per data set"
    )
    main(parser.parse_args().quick)
