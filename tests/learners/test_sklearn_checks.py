"""scikit-learn's own estimator checks over every structk learner and transformer,
with a vector kernel and with ``kernel="precomputed"``.

Every check passes except those listed in :func:`expected_failures`, each
with the reason it is a deliberate difference. Not in the list:
``KernelCCA`` (``fit(X, Y)`` takes two views of the same objects, which the
checks would fill with a target vector) and ``DiscreteHMM`` (it learns from
sequences, not rows of a 2-D array; its scalar ``score`` is tested in
``tests/test_hmm.py``). ``GaussianProcessClassifier`` is checked with a
vector kernel only: with ``"precomputed"`` its ``predict_proba`` needs the
test objects' ``k(x, x)`` (``test_gram=``), which a cross-Gram does not hold
and the checks do not pass. ``SparseGaussianProcessRegressor`` is checked with
a vector kernel only (it takes no precomputed Gram) and 10 landmarks (the
fewest objects a check fits on).
"""

import numpy as np
import pytest
from sklearn.ensemble import BaggingClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from structk import Gaussian
from structk.learners import (
    GaussianProcessClassifier,
    GaussianProcessRegressor,
    KernelCenterer,
    KernelLogisticRegression,
    KernelPCA,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    KernelSVM,
    NearestClassMean,
    SparseGaussianProcessRegressor,
)
from structk.scale import Nystroem

LEARNERS = [
    KernelSVM,
    KernelRidge,
    KernelRidgeCV,
    KernelLogisticRegression,
    KernelPerceptron,
    NearestClassMean,
    KernelCenterer,
    KernelPCA,
    GaussianProcessRegressor,
]
VECTOR = Gaussian(sigma=2.0)

ESTIMATORS = (
    [cls(kernel=VECTOR) for cls in LEARNERS]
    + [cls(kernel="precomputed") for cls in LEARNERS]
    + [
        KernelSVM(kernel=VECTOR, probability=True, random_state=0),
        GaussianProcessClassifier(kernel=VECTOR),
        SparseGaussianProcessRegressor(kernel=VECTOR, n_components=10),
        Nystroem(VECTOR, n_components=5, random_state=0),
    ]
)

#: Grams that scikit-learn's checks build which are not positive
#: semi-definite; every structk learner refuses them by design (NotPSDError).
PSD_REFUSAL = (
    "deliberate: the check's Gram is not positive semi-definite (an integer "
    "cast of a linear Gram, or a Gram of negative data), and structk learners "
    "refuse an indefinite Gram with NotPSDError instead of fitting it"
)


def expected_failures(estimator):
    """The checks an estimator fails on purpose, each with its reason."""
    failures = {}
    if getattr(estimator, "kernel", None) == "precomputed":
        failures["check_estimators_dtypes"] = PSD_REFUSAL
        failures["check_positive_only_tag_during_fit"] = PSD_REFUSAL
        if hasattr(estimator, "predict_proba"):
            failures["check_decision_proba_consistency"] = (
                "scikit-learn's check: it passes a non-square matrix of features "
                "to an estimator tagged pairwise, which a precomputed Gram cannot be"
            )
    return failures


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_predict_proba_exists_only_with_probability():
    assert not hasattr(KernelSVM(), "predict_proba")
    assert not hasattr(KernelSVM(), "predict_log_proba")
    assert hasattr(KernelSVM(probability=True), "predict_proba")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    # BaggingClassifier asks the base estimator for predict_proba
    bag = BaggingClassifier(KernelSVM(kernel=VECTOR), n_estimators=3, random_state=0)
    assert (bag.fit(X, y).predict(X) == y).mean() > 0.8
    assert not hasattr(bag.estimators_[0], "predict_proba")


def test_a_dataframe_is_accepted_where_a_2d_array_is():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    svm = KernelSVM(kernel=VECTOR).fit(frame, y)
    assert svm.n_features_in_ == 3
    assert svm.feature_names_in_.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(
        svm.decision_function(frame), KernelSVM(kernel=VECTOR).fit(X, y).decision_function(X)
    )
    K = VECTOR(X)
    ridge = KernelRidge().fit(pd.DataFrame(K), X[:, 1])
    np.testing.assert_allclose(
        ridge.predict(pd.DataFrame(K)), KernelRidge().fit(K, X[:, 1]).predict(K)
    )


@pytest.mark.parametrize(
    "cls", [KernelSVM, KernelPerceptron, KernelLogisticRegression, NearestClassMean]
)
def test_classifiers_refuse_a_continuous_target(cls):
    X = np.random.default_rng(2).normal(size=(12, 2))
    y = np.linspace(0.0, 1.0, 12)
    with pytest.raises(ValueError, match=r"Unknown label type: continuous \(y\[1\]"):
        cls(kernel=VECTOR).fit(X, y)


def test_transformers_name_their_outputs_and_follow_set_output():
    pd = pytest.importorskip("pandas")
    X = np.random.default_rng(3).normal(size=(10, 2))
    for est, n_out, prefix in [
        (KernelPCA(kernel=VECTOR, n_components=2), 2, "kernelpca"),
        (KernelCenterer(kernel=VECTOR), 10, "kernelcenterer"),
        (Nystroem(VECTOR, n_components=4, random_state=0), 4, "nystroem"),
    ]:
        est.fit(X)
        names = est.get_feature_names_out()
        assert names.tolist() == [f"{prefix}{i}" for i in range(n_out)]
        out = est.set_output(transform="pandas").transform(X)
        assert isinstance(out, pd.DataFrame) and out.columns.tolist() == names.tolist()
