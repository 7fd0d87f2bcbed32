"""structk.cli.folds gives scikit-learn's shuffled (stratified) K-fold splits,
index for index, without importing scikit-learn."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from sklearn.model_selection import (
    KFold,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    StratifiedKFold,
)

from structk.cli.folds import kfold, stratified_kfold


def _same(ours, theirs):
    theirs = list(theirs)
    assert len(ours) == len(theirs)
    for (tr, te), (tr2, te2) in zip(ours, theirs):
        np.testing.assert_array_equal(tr, tr2)
        np.testing.assert_array_equal(te, te2)


@st.composite
def _labels(draw):
    """Labels of 2-5 classes (strings or integers, in any order), and a
    number of folds every class can fill."""
    n_classes = draw(st.integers(2, 5))
    counts = draw(st.lists(st.integers(2, 12), min_size=n_classes, max_size=n_classes))
    names = draw(
        st.sampled_from(
            [
                [f"c{i}" for i in range(n_classes)],
                list(range(n_classes, 0, -1)),
                ["zeta", "alpha", "mu", "beta", "eta"][:n_classes],
            ]
        )
    )
    y = np.repeat(np.array(names), counts)
    order = draw(st.permutations(range(len(y))))
    k = draw(st.integers(2, min(counts)))
    return y[list(order)], k


@given(_labels(), st.integers(0, 2**31 - 1), st.integers(1, 3))
def test_stratified_folds_equal_sklearn(labels, seed, repeats):
    y, k = labels
    X = np.zeros((len(y), 1))
    if repeats == 1:
        _same(
            stratified_kfold(y, k, seed=seed),
            StratifiedKFold(k, shuffle=True, random_state=seed).split(X, y),
        )
    _same(
        stratified_kfold(y, k, repeats=repeats, seed=seed),
        RepeatedStratifiedKFold(n_splits=k, n_repeats=repeats, random_state=seed).split(X, y),
    )


@given(st.integers(2, 60), st.integers(2, 10), st.integers(0, 2**31 - 1), st.integers(1, 3))
def test_kfold_equals_sklearn(n, k, seed, repeats):
    k = min(k, n)
    X = np.zeros((n, 1))
    if repeats == 1:
        _same(kfold(n, k, seed=seed), KFold(k, shuffle=True, random_state=seed).split(X))
    _same(
        kfold(n, k, repeats=repeats, seed=seed),
        RepeatedKFold(n_splits=k, n_repeats=repeats, random_state=seed).split(X),
    )


def test_stratified_folds_partition_and_stratify():
    # the definition: every object in exactly one test fold, each class
    # spread over the folds as evenly as its size allows
    y = np.array(["a"] * 7 + ["b"] * 11 + ["c"] * 5)
    folds = stratified_kfold(y, 5, seed=3)
    tests = np.concatenate([te for _, te in folds])
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(y)))
    for tr, te in folds:
        np.testing.assert_array_equal(np.sort(np.concatenate([tr, te])), np.arange(len(y)))
    for c, n in (("a", 7), ("b", 11), ("c", 5)):
        per_fold = [int(np.sum(y[te] == c)) for _, te in folds]
        assert max(per_fold) - min(per_fold) <= 1 and sum(per_fold) == n
