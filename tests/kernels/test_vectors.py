"""Vector kernels agree with sklearn.metrics.pairwise and validate their input."""

import numpy as np
import pytest
from sklearn.metrics import pairwise

from structk.kernels import Gaussian, Laplace, Linear, Polynomial

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 7))
Y = RNG.normal(size=(25, 7))

CASES = [
    (Linear(), lambda A, B: pairwise.linear_kernel(A, B)),
    (
        Polynomial(degree=3, coef0=1.0, gamma=0.5),
        lambda A, B: pairwise.polynomial_kernel(A, B, degree=3, gamma=0.5, coef0=1.0),
    ),
    (
        Polynomial(degree=2, coef0=0.0),
        lambda A, B: pairwise.polynomial_kernel(A, B, degree=2, gamma=1.0, coef0=0.0),
    ),
    (Gaussian(sigma=1.7), lambda A, B: pairwise.rbf_kernel(A, B, gamma=1 / (2 * 1.7**2))),
    (Laplace(sigma=3.0), lambda A, B: pairwise.laplacian_kernel(A, B, gamma=1 / 3.0)),
]
IDS = [repr(k) for k, _ in CASES]


def _rel_err(A, B):
    return np.abs(A - B).max() / np.abs(B).max()


@pytest.mark.parametrize("kernel, reference", CASES, ids=IDS)
def test_agrees_with_sklearn(kernel, reference):
    assert _rel_err(kernel(X), reference(X, X)) <= 1e-12
    assert _rel_err(kernel(X, Y), reference(X, Y)) <= 1e-12
    np.testing.assert_allclose(kernel.diag(X), np.diag(reference(X, X)), rtol=1e-12)


@pytest.mark.parametrize("kernel, reference", CASES, ids=IDS)
def test_gram_is_exactly_symmetric_float64(kernel, reference):
    K = kernel(X)
    assert K.dtype == np.float64 and K.shape == (40, 40)
    np.testing.assert_array_equal(K, K.T)


def test_polynomial_homogeneous_is_power_of_linear():
    np.testing.assert_allclose(Polynomial(degree=3, coef0=0)(X), (X @ X.T) ** 3, rtol=1e-13)


def test_gaussian_definition_on_tiny_input():
    A = np.array([[0.0, 0.0], [3.0, 4.0]])
    K = Gaussian(sigma=2.0)(A)
    assert K[0, 1] == pytest.approx(np.exp(-25 / 8), rel=1e-15)
    assert K[0, 0] == K[1, 1] == 1.0


def test_laplace_uses_l1_distance():
    A = np.array([[0.0, 0.0], [1.0, 2.0]])
    assert Laplace(sigma=1.0)(A)[0, 1] == pytest.approx(np.exp(-3.0), rel=1e-15)


def test_linear_features_are_the_vectors():
    np.testing.assert_array_equal(Linear().features(X), X)
    assert Linear().has_features and not Gaussian().has_features


def test_lists_of_lists_are_accepted():
    np.testing.assert_array_equal(Linear()([[1, 2], [3, 4]]), [[5, 11], [11, 25]])


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "bad, message",
    [
        ([[1.0, 2.0], [3.0, np.nan]], r"X\[1\] holds a non-finite value \(nan\) at feature 1"),
        ([[1.0, 2.0], [np.inf, 0.0]], r"X\[1\] holds a non-finite value \(inf\)"),
        ([[1.0, 2.0], [3.0]], r"ragged input: X\[1\] has 1 features but X\[0\] has 2"),
        ([], "X is empty"),
        (np.zeros((0, 3)), "X is empty"),
        ([1.0, 2.0, 3.0], r"must be 2-D .* got shape \(3,\)"),
        (np.array([1.0, 2.0]), "must be 2-D"),
        ([["a", "b"]], r"X\[0\] holds 'a' \(str\) at feature 0"),
    ],
)
def test_bad_vectors_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        Gaussian()(bad)


def test_mismatched_dimensions_between_x_and_y():
    with pytest.raises(ValueError, match="X has 7 features but Y has 3"):
        Linear()(X, np.ones((2, 3)))


def test_single_string_is_not_a_collection():
    with pytest.raises(TypeError, match=r"got a single str; wrap it in a list"):
        Linear()("ACGT")


def test_nan_in_y_names_y():
    with pytest.raises(ValueError, match=r"Y\[0\] holds a non-finite value"):
        Linear()(X, np.full((1, 7), np.nan))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Polynomial(degree=0), "degree must be >= 1"),
        (lambda: Polynomial(degree=2.5), "degree must be an integer"),
        (lambda: Polynomial(degree=True), "degree must be an integer"),
        (lambda: Polynomial(coef0=-1), "coef0 must be >= 0"),
        (lambda: Polynomial(gamma=0), "gamma must be > 0"),
        (lambda: Gaussian(sigma=0), "sigma must be > 0"),
        (lambda: Gaussian(sigma=np.inf), "sigma must be finite"),
        (lambda: Laplace(sigma=-1), "sigma must be > 0"),
    ],
)
def test_invalid_parameters(make, message):
    k = make()  # constructors store their arguments; evaluation checks them
    with pytest.raises((ValueError, TypeError), match=message):
        k(X)


def test_invalid_parameter_set_later_is_caught_at_evaluation():
    k = Gaussian().set_params(sigma=-2.0)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        k(X)


# ------------------------------------------------------- far from the origin
def _direct_gaussian(A, B, sigma):
    from scipy.spatial.distance import cdist

    return np.exp(-cdist(A, B, "sqeuclidean") / (2 * sigma**2))


def _max_rel_err(K, ref):
    nonzero = ref > 0
    assert (K[~nonzero] == 0).all()
    return np.abs(K[nonzero] / ref[nonzero] - 1).max()


@pytest.mark.parametrize("offset", [0.0, 1e3, 1e6, 1e8])
@pytest.mark.parametrize("sigma", [0.3, 1.0, 5.0])
def test_gaussian_matches_direct_differences_far_from_the_origin(offset, sigma):
    rng = np.random.default_rng(1)
    A = offset + rng.normal(size=(60, 4))
    B = offset + rng.normal(size=(30, 4))
    k = Gaussian(sigma=sigma)
    assert _max_rel_err(k(A), _direct_gaussian(A, A, sigma)) <= 1e-12
    assert _max_rel_err(k(A, B), _direct_gaussian(A, B, sigma)) <= 1e-12
    np.testing.assert_allclose(np.diag(k(A, A)), 1.0, rtol=1e-12)


def test_gaussian_exact_on_clusters_far_apart():
    # no single centre helps: the within-cluster entries are recomputed directly
    rng = np.random.default_rng(2)
    A = np.vstack(
        [1e6 + rng.normal(size=(20, 3)), -1e6 + rng.normal(size=(20, 3)), rng.normal(size=(20, 3))]
    )
    assert _max_rel_err(Gaussian(sigma=2.0)(A), _direct_gaussian(A, A, 2.0)) <= 1e-12


def test_gaussian_far_from_origin_is_psd_and_learnable():
    from structk import check_psd
    from structk.learners import KernelSVM

    rng = np.random.default_rng(3)
    A = 1e6 + rng.normal(size=(80, 3))
    y = (A[:, 0] > 1e6).astype(int)
    assert check_psd(Gaussian()(A)).is_psd
    assert KernelSVM(kernel=Gaussian()).fit(A, y).score(A, y) > 0.9


@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_laplace_matches_direct_differences(offset):
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(4)
    A = offset + rng.normal(size=(40, 3))
    ref = np.exp(-cdist(A, A, "cityblock") / 2.0)
    assert _max_rel_err(Laplace(sigma=2.0)(A), ref) <= 1e-12


def test_a_vector_whose_square_overflows_is_named():
    """1e200 is finite, its square is not: the row and feature are named
    before any Gram entry turns NaN."""
    import re

    from structk.kernels import Gaussian, Linear

    X = np.ones((6, 3))
    X[4, 1] = 1e200
    for k in (Gaussian(sigma=1.0), Linear()):
        with pytest.raises(
            OverflowError, match=re.escape("X[4] overflows float64") + ".*feature 1"
        ):
            k(X)


@pytest.mark.parametrize("n", [1, 2, 127, 129, 300])
def test_gaussian_gram_by_row_blocks_equals_distances_then_exp(n, tuning):
    """The Gram's upper triangle computed a block of rows at a time equals
    the whole-matrix distances followed by the exponential, for any block
    size (to rounding: BLAS sums a one-row block in another order); data
    far from their mean take the accurate path."""
    from structk.kernels.vectors import _exp_sq_dist_upper, _sq_dist

    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 6))
    k = Gaussian(sigma=1.7)
    D = _sq_dist(X, X, k._exact_scale())
    np.fill_diagonal(D, 0.0)
    expected = k._from_sq_dist(D)
    for rows in (1, 7, 128):
        tuning.set(VECTOR_GRAM_BLOCK_ROWS=rows)
        np.testing.assert_allclose(
            np.triu(_exp_sq_dist_upper(X, k._exact_scale())), np.triu(expected), rtol=1e-13
        )
    full = np.triu(expected) + np.triu(expected, 1).T
    np.testing.assert_allclose(k(X), full, rtol=1e-13)
    far = np.vstack([X, X + 1e9])
    assert _exp_sq_dist_upper(far, k._exact_scale()) is None
    assert _exp_sq_dist_upper(far, k._exact_scale(), mirror=True) is None


@pytest.mark.parametrize("n", [1, 2, 63, 129, 300])
def test_gaussian_gram_mirrored_by_blocks_equals_the_upper_triangle_mirrored(n, tuning):
    """The Gram mirrored and scanned a block of rows at a time, as it is
    written, is bit for bit the upper triangle mirrored afterwards, and its
    scan the one :func:`mirror_and_scan` returns (the sum of squares to
    rounding: summed in another order), for any block and tile size; a
    non-finite entry is reported."""
    from structk.algorithms.gram_blocks import mirror_and_scan
    from structk.kernels.vectors import _exp_sq_dist_upper

    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 4))
    k = Gaussian(sigma=0.7)
    tuning.set(GRAM_SCAN_MIN_N=0)
    for rows, tile in ((1, 1), (7, 3), (128, 32)):
        # the same blocks (BLAS sums a one-row block in another order)
        tuning.set(VECTOR_GRAM_BLOCK_ROWS=rows, VECTOR_GRAM_MIRROR_TILE=tile)
        upper = _exp_sq_dist_upper(X, k._exact_scale())
        assert upper is not None  # (not data the accurate path must take)
        expected = np.triu(upper) + np.triu(upper, 1).T  # (blocks write below too)
        ref = mirror_and_scan(upper.copy())
        K, scan = _exp_sq_dist_upper(X, k._exact_scale(), mirror=True)
        np.testing.assert_array_equal(K, expected)
        assert scan.finite and scan.cs_excess == ref.cs_excess
        np.testing.assert_allclose(scan.sum_sq, ref.sum_sq, rtol=1e-13)
        # independent of the block: the definition
        np.testing.assert_allclose(scan.sum_sq, np.sum(K * K), rtol=1e-12)
    tuning.set(VECTOR_GRAM_MIRROR_MIN_N=0)
    K, scan = k._scanned_gram(k._prepare(X, "X"))
    np.testing.assert_array_equal(K, expected)
    tuning.set(VECTOR_GRAM_MIRROR_MIN_N=10**9)
    np.testing.assert_array_equal(k(X), expected)


def test_the_block_scan_reports_non_finite_entries():
    """The compiled block scan reads finiteness from the rows' sums of
    squares and checks entry by entry only then: a NaN or an infinity
    anywhere in the block's upper triangle or diagonal is reported, a
    huge finite entry (whose square overflows) is not."""
    from structk.algorithms.gram_blocks._numba import mirror_rows_scan

    for where, value, finite in (
        ((1, 3), np.nan, False),
        ((2, 2), np.inf, False),
        ((0, 4), -np.inf, False),
        ((1, 4), 1e200, True),
    ):
        K = np.eye(5)
        K[where] = value
        out = np.zeros(3)
        mirror_rows_scan(K, np.ones(5), 0, 5, 2, out)
        assert bool(out[0]) is finite, (where, value)
        assert K[where[::-1]] == value or np.isnan(value)
