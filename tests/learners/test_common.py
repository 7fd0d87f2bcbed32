"""The contract every learner keeps: scikit-learn conventions, kernels or Grams, bad input."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from learners_util import blobs, rbf_gram, string_data, string_kernel
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils import get_tags

import structk
from structk import Linear, NotPSDError, Polynomial
from structk.kernels import Power
from structk.learners import (
    KernelCenterer,
    KernelPCA,
    KernelLogisticRegression,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    KernelSVM,
    NearestClassMean,
)

CLASSIFIERS = [KernelSVM, KernelPerceptron, KernelLogisticRegression, NearestClassMean]
REGRESSORS = [KernelRidge, KernelRidgeCV]
TRANSFORMERS = [KernelCenterer, KernelPCA]
ALL = CLASSIFIERS + REGRESSORS + TRANSFORMERS


def fit_args(cls, K, y):
    if cls in REGRESSORS:
        return K, y.astype(float)
    if cls in TRANSFORMERS:
        return (K,)
    return K, y


def predict(model, X):
    return model.transform(X) if type(model) in TRANSFORMERS else model.predict(X)


def test_top_level_names_resolve_lazily():
    for name in [
        "KernelSVM",
        "KernelRidge",
        "KernelRidgeCV",
        "KernelPerceptron",
        "KernelLogisticRegression",
        "KernelCenterer",
        "KernelPCA",
        "NearestClassMean",
        "feature_distance",
        "distance_to_barycentre",
        "rkhs_norm",
    ]:
        assert getattr(structk, name) is not None
    assert structk.KernelSVM is KernelSVM


@pytest.mark.parametrize("cls", ALL)
def test_constructor_stores_params_and_clone_works(cls):
    model = cls(kernel=Polynomial(degree=3))
    params = model.get_params(deep=True)
    assert params["kernel__degree"] == 3
    twin = clone(model)
    assert twin.kernel is not model.kernel and twin.kernel.degree == 3
    twin.set_params(kernel__degree=2)
    assert twin.kernel.degree == 2 and model.kernel.degree == 3
    assert repr(model).startswith(cls.__name__)


@pytest.mark.parametrize("cls", ALL)
def test_pairwise_tag_follows_the_kernel(cls):
    assert get_tags(cls()).input_tags.pairwise
    assert not get_tags(cls(kernel=Linear())).input_tags.pairwise


@pytest.mark.parametrize("cls", ALL)
def test_unfitted_model_raises_not_fitted(cls):
    with pytest.raises(NotFittedError):
        predict(cls(), np.eye(3))


@pytest.mark.parametrize("cls", ALL)
def test_kernel_and_precomputed_agree_and_inputs_are_untouched(cls):
    X, y = blobs(40, n_classes=3, seed=1)
    Xt, _ = blobs(10, n_classes=3, seed=2)
    k = Polynomial(degree=2)
    K, Kt = k(X), k(Xt, X)
    K0, X0 = K.copy(), X.copy()
    a = cls(kernel=k).fit(*fit_args(cls, X, y))
    b = cls().fit(*fit_args(cls, K, y))
    assert a.n_train_ == b.n_train_ == 40
    out_a, out_b = predict(a, Xt), predict(b, Kt)
    if out_a.dtype.kind == "f":
        np.testing.assert_allclose(out_a, out_b, rtol=1e-7, atol=1e-7 * np.abs(out_b).max())
    else:
        np.testing.assert_array_equal(out_a, out_b)
    np.testing.assert_array_equal(K, K0)
    np.testing.assert_array_equal(X, X0)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_single_class(cls):
    with pytest.raises(ValueError, match="single class"):
        cls().fit(np.eye(4), ["a"] * 4)


@pytest.mark.parametrize("cls", CLASSIFIERS + REGRESSORS)
def test_length_mismatch(cls):
    y = np.array([0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="4 training objects but y has 5"):
        cls().fit(*fit_args(cls, np.eye(4), y))
    with pytest.raises(ValueError, match="4 training objects but y has 5"):
        cls(kernel=Linear()).fit(*fit_args(cls, np.eye(4), y))


@pytest.mark.parametrize("cls", ALL)
def test_gram_not_square(cls):
    with pytest.raises(ValueError, match=r"square Gram matrix .* got shape \(4, 3\)"):
        cls().fit(*fit_args(cls, np.ones((4, 3)), np.array([0, 1, 0, 1])))


@pytest.mark.parametrize("cls", ALL)
def test_nan_in_gram(cls):
    K = np.eye(4)
    K[2, 1] = K[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"non-finite value nan at entry \(1, 2\)"):
        cls().fit(*fit_args(cls, K, np.array([0, 1, 0, 1])))


@pytest.mark.parametrize("cls", ALL)
def test_test_gram_with_wrong_columns(cls):
    X, y = blobs(10, seed=3)
    model = cls().fit(*fit_args(cls, rbf_gram(X), y))
    with pytest.raises(ValueError, match="K_test has 9 columns but the model was fitted on 10"):
        predict(model, np.ones((3, 9)))
    with pytest.raises(ValueError, match="K_test holds a non-finite value"):
        predict(model, np.full((3, 10), np.inf))


@pytest.mark.parametrize("cls", ALL)
def test_clearly_non_psd_gram_raises_with_the_report(cls):
    K = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]])  # Cauchy-Schwarz holds
    y = np.array([0, 1, 1])
    with pytest.raises(NotPSDError, match="NOT positive semi-definite") as info:
        cls().fit(*fit_args(cls, K, y))
    assert info.value.report.min_eigenvalue < -0.5


@pytest.mark.parametrize("cls", ALL)
def test_large_grams_get_the_necessary_conditions_only(cls, monkeypatch, tuning):
    import structk._linalg
    import structk.psd

    tuning.set(PSD_FACTORISE_MAX_N=20)  # "large" = more than 20
    X, y = blobs(40, seed=4)
    K = rbf_gram(X)
    K[5, 7] = K[7, 5] = 3.0  # |K_57| > sqrt(K_55 K_77): violates Cauchy-Schwarz
    with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
        cls().fit(*fit_args(cls, K, y))
    K = rbf_gram(X)
    K[30, 3] = np.nan  # lower triangle, off the diagonal
    with pytest.raises(ValueError, match=r"non-finite value nan at entry \(30, 3\)"):
        cls().fit(*fit_args(cls, K, y))
    K = rbf_gram(X)
    K[30, 3] += 1e-3  # asymmetric
    with pytest.raises(ValueError, match=r"not symmetric: K\[3, 30\]|not symmetric: K\[30, 3\]"):
        cls().fit(*fit_args(cls, K, y))
    # a PSD Gram passes the necessary conditions and the factorisation of
    # principal blocks of at most PSD_FACTORISE_MAX_N objects, never the
    # O(n^3) check of the whole Gram
    cholesky_ok = structk._linalg.cholesky_ok
    blocks = []

    def no_full_check(*args, **kwargs):
        raise AssertionError("the full PSD check ran")

    def blocks_only(K, *args, **kwargs):
        if K.shape[0] > 20:
            no_full_check()
        blocks.append(K.shape[0])
        return cholesky_ok(K, *args, **kwargs)

    monkeypatch.setattr(structk.psd, "check_psd", no_full_check)
    monkeypatch.setattr(structk._linalg, "cholesky_ok", blocks_only)
    model = cls().fit(*fit_args(cls, rbf_gram(X), y))
    # one interleaved block of the 40 (KernelRidgeCV's eigendecomposition
    # is the full check itself); KernelSVM on a given Gram: the block of its
    # free support vectors, after the solve (here 20 of them too)
    expected = [20]
    if cls is KernelSVM:
        free = (np.abs(model.dual_coef_[0]) < model.C).sum()
        assert free == 20
        expected = [int(free)]
    assert blocks == ([] if cls is KernelRidgeCV else expected), blocks
    if cls is KernelRidgeCV:  # its own eigendecomposition is the full check
        return
    with pytest.raises(AssertionError, match="the full PSD check ran"):
        cls(psd_check="full").fit(*fit_args(cls, rbf_gram(X), y))


@pytest.mark.parametrize("cls", ALL)
def test_small_psd_grams_are_certified_by_one_factorisation(cls, monkeypatch, factorisations):
    """The necessary conditions, then one Cholesky; no report unless it fails."""
    import structk._linalg
    import structk.psd

    calls = factorisations
    check_psd = structk.psd.check_psd

    def no_report(*args, **kwargs):
        raise AssertionError("the PSD report was computed")

    monkeypatch.setattr(structk.psd, "check_psd", no_report)
    X, y = blobs(30, seed=5)
    K = rbf_gram(X)
    cls().fit(*fit_args(cls, K, y))
    if cls is KernelRidgeCV:  # checked by its own eigenvalues
        assert calls == []
        return
    # small: the shift is relative to the largest diagonal entry
    assert calls == [(30, pytest.approx(1e-6 * K.diagonal().max()))]
    cls().fit(*fit_args(cls, K.copy(), y))  # the same Gram again: checked again
    assert len(calls) == 2  # (nothing is remembered between fits)
    cls(psd_check="none").fit(*fit_args(cls, K, y))
    assert len(calls) == 2
    monkeypatch.setattr(structk.psd, "check_psd", check_psd)
    K3 = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]])  # not PSD
    y3 = np.array([0, 1, 1])
    with pytest.raises(NotPSDError):
        cls().fit(*fit_args(cls, K3, y3))
    with pytest.raises(NotPSDError):  # a failure is never remembered as a pass
        cls().fit(*fit_args(cls, K3, y3))


@pytest.mark.parametrize("cls", [KernelSVM, KernelRidge])
def test_small_grams_skip_the_necessary_pass_and_failures_report_as_before(cls, monkeypatch):
    """Up to the unblocked Cholesky's bound a PSD Gram is certified by its
    diagonal, symmetry and one factorisation; anything else goes through the
    necessary pass and reports exactly as a large Gram does."""
    from structk.learners import _psd

    necessary = _psd.necessary_violation  # the pass the policy runs
    passes = []

    def counting(K):
        passes.append(K.shape[0])
        return necessary(K)

    monkeypatch.setattr(_psd, "necessary_violation", counting)
    X, y = blobs(40, seed=4)
    cls().fit(*fit_args(cls, rbf_gram(X), y))
    assert passes == []
    cases = [
        ((30, 3), np.nan, r"non-finite value nan at entry \(30, 3\)"),  # lower triangle
        ((3, 30), np.nan, r"non-finite value nan at entry \(3, 30\)"),  # the one factorised
        ((3, 30), np.inf, r"non-finite value inf at entry \(3, 30\)"),
        ((7, 7), np.inf, r"non-finite value inf at entry \(7, 7\)"),
        ((30, 3), "+1e-3", r"not symmetric: K\[3, 30\]|not symmetric: K\[30, 3\]"),
    ]
    for (i, j), value, message in cases:
        K = rbf_gram(X)
        K[i, j] = K[i, j] + 1e-3 if value == "+1e-3" else value
        with pytest.raises(ValueError, match=message):
            cls().fit(*fit_args(cls, K, y))
    assert passes == [40] * len(cases)  # the spy sees the pass when it runs
    K = rbf_gram(X)
    K[5, 7] = K[7, 5] = 3.0  # violates Cauchy-Schwarz
    with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
        cls().fit(*fit_args(cls, K, y))
    K = rbf_gram(X)
    K[9, 9] = -1.0
    with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
        cls().fit(*fit_args(cls, K, y))


def test_small_certificate_shift_is_stricter_than_the_reporting_tolerance(factorisations):
    """An eigenvalue between -1e-6 max K_ii (the small path's shift) and
    -1e-6 ||K||_F (the tolerance) fails the small path's factorisation but is
    rounding noise by the policy: the full path accepts it."""
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.normal(size=(30, 30)))
    eigenvalues = np.r_[np.linspace(0.5, 1.5, 29), -3e-6]
    K = (Q * eigenvalues) @ Q.T
    K = (K + K.T) / 2
    assert 1e-6 * K.diagonal().max() < 3e-6 < 1e-6 * np.linalg.norm(K)
    X, y = blobs(30, seed=4)
    KernelSVM().fit(K, y)  # no NotPSDError
    shifts = [shift for _, shift in factorisations]
    assert shifts == [
        pytest.approx(1e-6 * K.diagonal().max()),
        pytest.approx(1e-6 * np.linalg.norm(K)),
    ]


def test_grid_search_on_a_gram_certified_once(factorisations):
    """A Gram certified once by the caller (every principal submatrix of a
    PSD matrix is PSD): the folds skip their check with psd_check="none"."""
    X, y = blobs(40, seed=6)
    K = rbf_gram(X)
    structk.assert_psd(K)  # one factorisation of the whole Gram
    assert [n for n, _ in factorisations] == [40]
    factorisations.clear()
    search = GridSearchCV(
        KernelSVM(psd_check="none"), {"C": [0.1, 1.0, 10.0]}, cv=KFold(4), refit=False
    )
    search.fit(K, y)
    assert factorisations == []
    # without it each fit checks its own fold Gram: the result of a fit never
    # depends on what ran before it
    search = GridSearchCV(KernelSVM(), {"C": [0.1, 1.0, 10.0]}, cv=KFold(4), refit=False)
    search.fit(K, y)
    assert sorted(n for n, _ in factorisations) == [30] * 12


@pytest.mark.parametrize("cls", ALL)
def test_bad_parameters(cls):
    with pytest.raises(ValueError, match="psd_check must be one of"):
        cls(psd_check="yes").fit(*fit_args(cls, np.eye(2), np.array([0, 1])))
    with pytest.raises(ValueError, match="kernel must be a structk Kernel or 'precomputed'"):
        cls(kernel="rbf").fit(*fit_args(cls, np.eye(2), np.array([0, 1])))
    with pytest.raises(TypeError, match="FunctionKernel"):
        cls(kernel=lambda a, b: 1.0).fit(*fit_args(cls, np.eye(2), np.array([0, 1])))


@pytest.mark.parametrize(
    "cls,param,value",
    [
        (KernelSVM, "C", 0.0),
        (KernelSVM, "tol", -1.0),
        (KernelSVM, "multi_class", "all"),
        (KernelSVM, "max_iter", 0),
        (KernelRidge, "alpha", -1.0),
        (KernelLogisticRegression, "alpha", 0.0),
        (KernelPerceptron, "max_iter", 0),
    ],
)
def test_bad_numeric_parameters_name_the_parameter(cls, param, value):
    with pytest.raises(ValueError, match=param):
        cls(**{param: value}).fit(np.eye(2), np.array([0.0, 1.0]))


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_any_hashable_labels(cls):
    X, y = blobs(30, n_classes=3, noise=0.3, seed=5)
    for names in ([("a", 1), ("b", 2), ("c", 3)], [1, "two", 3.5], ["x", "y", "z"]):
        labels = [names[c] for c in y]
        model = cls(kernel=Linear(), **({"max_iter": 500} if cls is KernelPerceptron else {}))
        model.fit(X, labels)
        assert set(model.classes_.tolist()) == set(names)
        predicted = list(model.predict(X))
        assert all(p in names for p in predicted)
        assert np.mean([p == t for p, t in zip(predicted, labels)]) > 0.9
    # None is a missing label, not a class
    labels = [(1, "two", None)[c] for c in y]
    with pytest.raises(ValueError, match=r"y\[\d+\] is None: a missing label"):
        cls(kernel=Linear()).fit(X, labels)


# ------------------------------------------------- model selection on objects
@pytest.mark.filterwarnings("ignore:the perceptron still made")  # noisy, non-separable folds
def test_cross_val_score_slices_precomputed_grams():
    X, y = blobs(60, noise=2.0, seed=6)
    k = Polynomial(degree=2)
    cv = KFold(4, shuffle=True, random_state=0)
    for cls in CLASSIFIERS:
        seed = {"random_state": 0} if cls is KernelPerceptron else {}
        a = cross_val_predict(cls(kernel=k, **seed), X, y, cv=cv)
        b = cross_val_predict(cls(**seed), k(X), y, cv=cv)
        np.testing.assert_array_equal(a, b)


def test_grid_search_tunes_nested_kernel_parameters_on_vectors():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)  # needs degree 2
    search = GridSearchCV(
        KernelSVM(kernel=Polynomial(degree=1)),
        {"kernel__degree": [1, 2, 3], "C": [1.0, 10.0]},
        cv=3,
    ).fit(X, y)
    degree = search.best_params_["kernel__degree"]
    assert degree in (2, 3)  # both contain the x0 * x1 monomial; degree 1 does not
    assert search.best_estimator_.kernel.degree == degree
    linear = search.cv_results_["mean_test_score"][search.cv_results_["param_kernel__degree"] == 1]
    assert linear.max() < 0.8
    assert search.score(X, y) > 0.9


def test_grid_search_and_pipeline_on_lists_of_strings():
    X, y = string_data(36)
    assert isinstance(X, list) and isinstance(X[0], str)
    k = Power(string_kernel(), 1)
    search = GridSearchCV(
        KernelLogisticRegression(kernel=k),
        {"kernel__exponent": [1, 2], "alpha": [0.01, 1.0]},
        cv=3,
    ).fit(X, y)
    assert search.best_params_["kernel__exponent"] in (1, 2)
    assert search.predict(X[:5]).tolist() == search.best_estimator_.predict(X[:5]).tolist()

    pipe = make_pipeline(KernelCenterer(kernel=string_kernel()), KernelSVM(C=10.0))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.7
    assert not get_tags(pipe).input_tags.pairwise
    for cls in [KernelSVM, KernelPerceptron, NearestClassMean, KernelRidge]:
        target = y if cls is not KernelRidge else (y == "rich").astype(float)
        scores = cross_val_score(cls(kernel=string_kernel()), X, target, cv=3)
        assert np.isfinite(scores).all()


# ----------------------------------------------- the O(n^2) necessary checks
@given(seed=st.integers(0, 10_000), n=st.integers(2, 150), rank=st.integers(1, 5))
def test_necessary_conditions_accept_psd_and_locate_violations(seed, n, rank):
    from structk.learners._psd.numba_pass import necessary_psd_violation

    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, rank))
    K = F @ F.T
    K = (K + K.T) / 2  # exactly symmetric
    tol = 1e-10 * np.abs(np.diag(K)).max()
    assert necessary_psd_violation(K, tol, tol) == (-1, -1)
    i, j = sorted(rng.choice(n, size=2, replace=False))
    bad = K.copy()
    bad[i, j] = bad[j, i] = 1.5 * np.sqrt(K[i, i] * K[j, j]) + 1.0  # breaks Cauchy-Schwarz
    assert necessary_psd_violation(bad, tol, tol) == (i, j)
    asym = K.copy()
    asym[j, i] += 1e-6 * (1.0 + abs(asym[j, i]))
    assert sorted(necessary_psd_violation(asym, tol, tol)) == [i, j]
    nan = K.copy()
    nan[j, i] = np.nan
    assert sorted(necessary_psd_violation(nan, tol, tol)) == [i, j]


def test_objects_given_as_an_iterator_or_a_single_string():
    X, y = string_data(12)
    model = KernelSVM(kernel=string_kernel()).fit(iter(X), y)
    assert model.n_train_ == 12
    with pytest.raises(ValueError, match="X has 12 training objects but y has 11"):
        KernelSVM(kernel=string_kernel()).fit(iter(X), y[:11])
    with pytest.raises(TypeError, match="wrap it in a list"):
        KernelSVM(kernel=string_kernel()).fit("ACGT", y[:4])


@pytest.mark.filterwarnings("ignore:the perceptron still made")
@pytest.mark.parametrize("cls", ALL)
def test_rounding_noise_is_not_clearly_non_psd(cls):
    """A rank-deficient Gram computed in float32 has eigenvalues around -1e-8 ||K||."""
    X, y = blobs(120, d=3, seed=8)
    X32 = X.astype(np.float32)
    K = (X32 @ X32.T).astype(np.float64)
    K = (K + K.T) / 2
    assert np.linalg.eigvalsh(K)[0] < -1e-12 * np.linalg.norm(K)  # really indefinite
    cls().fit(*fit_args(cls, K, y))
