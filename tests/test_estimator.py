"""structk._estimator keeps scikit-learn's estimator conventions without
importing scikit-learn: each piece against scikit-learn's own."""

import warnings

import numpy as np
import pytest
import sklearn.base
import sklearn.utils
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils import get_tags

from structk import Gaussian, Normalize, Spectrum
from structk._estimator import (
    check_is_fitted,
    check_random_state,
    clone,
    quiet_convergence,
    warn_not_converged,
)
from structk.hmm import DiscreteHMM
from structk.kernels import FisherKernel
from structk.learners import (
    KernelLogisticRegression,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    KernelSVM,
    NearestClassMean,
)

LIGHT = [
    KernelSVM,
    KernelLogisticRegression,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    NearestClassMean,
    DiscreteHMM,
]


def _sklearn_twin(estimator):
    """The same parameters in a class of the same name and constructor that
    derives from scikit-learn's BaseEstimator: the reference repr."""
    cls = type(estimator)
    twin = type(cls.__name__, (sklearn.base.BaseEstimator,), {"__init__": cls.__init__})
    return twin(**estimator.get_params(deep=False))


@pytest.mark.parametrize(
    "estimator",
    [
        KernelSVM(),
        KernelSVM(C=2.0),
        KernelSVM(C=0.5, kernel=Normalize(Spectrum(k=5)), probability=True, random_state=0),
        KernelSVM(kernel=Gaussian(sigma=0.5), tol=1e-6, max_iter=500, psd_check="none"),
        KernelLogisticRegression(alpha=1e-2),
        NearestClassMean(kernel=Spectrum(k=3)),
        KernelRidgeCV(alphas=(0.1, 1.0, 10.0)),
        KernelRidge(alpha=float("nan")),
        DiscreteHMM(n_states=2, alphabet="dna", n_iter=300, tol=1e-7, n_restarts=3),
        DiscreteHMM(n_states=3, alphabet="ACGT", pseudocount=0.1, random_state=4),
    ],
    ids=repr,
)
def test_repr_equals_sklearns(estimator):
    assert repr(estimator) == repr(_sklearn_twin(estimator))


def test_long_repr_equals_sklearns():
    svm = KernelSVM(
        kernel=Normalize(Spectrum(k=5, alphabet="dna")),
        C=123.456,
        probability=True,
        random_state=12345,
        tol=1e-7,
        max_iter=100000,
        psd_check="full",
    )
    assert len(repr(svm).splitlines()) > 1
    assert repr(svm) == repr(_sklearn_twin(svm))


@pytest.mark.parametrize("cls", LIGHT)
def test_params_and_clone_as_sklearn(cls):
    est = cls()
    names = sklearn.base.BaseEstimator._get_param_names.__func__(cls)
    assert list(est.get_params(deep=False)) == names
    ours, theirs = clone(est), sklearn.base.clone(est)
    assert type(ours) is type(theirs) is cls and ours is not est
    assert repr(ours.get_params()) == repr(theirs.get_params())


def test_clone_copies_nested_parameters():
    kernel = Normalize(Spectrum(k=4))
    svm = KernelSVM(kernel=kernel, C=3.0)
    copy = clone(svm)
    assert copy.kernel is not kernel and copy.kernel == kernel and copy.C == 3.0
    # and a fitted model's clone is unfitted
    K = np.eye(4) + 0.1
    fitted = KernelSVM(kernel="precomputed").fit(K, [0, 1, 0, 1])
    assert not hasattr(clone(fitted), "dual_coef_")


def test_clone_of_a_fisher_kernel_keeps_its_hmm():
    hmm = DiscreteHMM(n_states=2, alphabet="dna", random_state=0).fit(["ACGTAC", "GGTACA"])
    k = FisherKernel(hmm)
    assert clone(k).hmm is hmm  # its own __sklearn_clone__: the HMM is not refitted
    assert sklearn.base.clone(k).hmm is hmm


def test_nested_set_params_and_the_error_for_an_unknown_one():
    svm = KernelSVM(kernel=Normalize(Spectrum(k=4)))
    svm.set_params(C=5.0, kernel__kernel__k=6)
    assert svm.C == 5.0 and svm.kernel.kernel.k == 6
    assert svm.get_params()["kernel__kernel__k"] == 6
    with pytest.raises(ValueError, match="Invalid parameter 'c' for estimator KernelSVM"):
        svm.set_params(c=1.0)


@pytest.mark.parametrize(("cls", "kind"), [(KernelSVM, "classifier"), (KernelRidge, "regressor")])
def test_tags_say_what_the_estimator_is(cls, kind):
    tags = get_tags(cls(kernel="precomputed"))
    assert tags.estimator_type == kind and tags.target_tags.required
    assert tags.input_tags.pairwise
    assert get_tags(DiscreteHMM()).estimator_type is None


@pytest.mark.parametrize("seed", [None, 0, 7, np.int64(3), np.random.RandomState(5)])
def test_check_random_state_as_sklearn(seed):
    ours, theirs = check_random_state(seed), sklearn.utils.check_random_state(seed)
    if isinstance(seed, np.random.RandomState) or seed is None:
        assert ours is theirs
    else:
        np.testing.assert_array_equal(ours.rand(5), theirs.rand(5))
    with pytest.raises(ValueError, match="cannot be used to seed"):
        check_random_state("seed")


def test_check_is_fitted_raises_sklearns_error():
    svm = KernelSVM(kernel="precomputed")
    with pytest.raises(NotFittedError, match="This KernelSVM instance is not fitted yet"):
        check_is_fitted(svm, "dual_coef_")
    with pytest.raises(NotFittedError, match="KernelSVM: fit me"):
        check_is_fitted(svm, msg="%(name)s: fit me")
    svm.fit(np.eye(4) + 0.1, [0, 1, 0, 1])
    check_is_fitted(svm, "dual_coef_")
    check_is_fitted(svm)


def test_not_converged_is_sklearns_warning_unless_quiet():
    with pytest.warns(ConvergenceWarning, match="stopped early"):
        warn_not_converged("stopped early")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with quiet_convergence():
            warn_not_converged("stopped early")
