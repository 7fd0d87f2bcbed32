"""Shuffled K-fold and stratified K-fold splits, with NumPy alone.

The splits are those of scikit-learn's ``KFold(shuffle=True)``,
``StratifiedKFold(shuffle=True)`` and their ``Repeated`` forms for the
same seed, index for index (``tests/cli/test_folds.py`` compares them), so
that ``structk cv`` and ``structk demo`` give scikit-learn's folds without
importing scikit-learn, whose import costs more CPU than cross-validating
the demo's small sets. The other splitters (leave one out, grouped) come
from :mod:`sklearn.model_selection`.

Stratified folds: the classes are numbered in the order they first appear;
the sorted class codes are dealt round robin to the folds, which fixes how
many objects of each class every test fold holds; each class's fold labels
(a block per fold) are then shuffled, class by class, and assigned to that
class's objects in their order.

References
----------
R. Kohavi, "A study of cross-validation and bootstrap for accuracy
estimation and model selection", IJCAI (1995): stratified folds.
"""

from __future__ import annotations

import numpy as np

from .._estimator import check_random_state


def kfold(n, n_splits, *, repeats=1, seed=0):
    """``(train, test)`` index pairs of ``repeats`` x shuffled ``n_splits``-fold
    cross-validation of ``n`` objects (scikit-learn's ``RepeatedKFold``;
    with one repeat, ``KFold(n_splits, shuffle=True, random_state=seed)``)."""
    rng = check_random_state(seed)
    sizes = np.full(n_splits, n // n_splits)
    sizes[: n % n_splits] += 1
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    folds = []
    for _ in range(repeats):
        order = np.arange(n)
        rng.shuffle(order)
        fold_of = np.empty(n, dtype=np.intp)
        for i in range(n_splits):
            fold_of[order[bounds[i] : bounds[i + 1]]] = i
        folds += _from_labels(fold_of, n_splits)
    return folds


def stratified_kfold(y, n_splits, *, repeats=1, seed=0):
    """``(train, test)`` index pairs of ``repeats`` x shuffled stratified
    ``n_splits``-fold cross-validation of labels ``y`` (scikit-learn's
    ``RepeatedStratifiedKFold``; with one repeat,
    ``StratifiedKFold(n_splits, shuffle=True, random_state=seed)``).
    Every class needs at least ``n_splits`` objects (the callers check)."""
    y = np.asarray(y)
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.intp)
    rank[np.argsort(first)] = np.arange(len(first))
    codes = rank[inverse.ravel()]  # classes numbered by first appearance
    dealt = np.sort(codes)
    # per_fold[i, c]: how many objects of class c test fold i holds
    per_fold = np.array(
        [np.bincount(dealt[i::n_splits], minlength=len(first)) for i in range(n_splits)]
    )
    rng = check_random_state(seed)
    folds = []
    for _ in range(repeats):
        fold_of = np.empty(len(y), dtype=np.intp)
        for c in range(len(first)):
            labels = np.repeat(np.arange(n_splits), per_fold[:, c])
            rng.shuffle(labels)
            fold_of[codes == c] = labels
        folds += _from_labels(fold_of, n_splits)
    return folds


def _from_labels(fold_of, n_splits):
    """``(train, test)`` pairs, each sorted, from every object's fold."""
    return [(np.flatnonzero(fold_of != i), np.flatnonzero(fold_of == i)) for i in range(n_splits)]
