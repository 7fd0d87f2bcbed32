"""Kernel hyperparameters: declarations, theta, and the Gram's derivatives.

Every derivative is checked against finite differences computed here
(Richardson-extrapolated central differences of ``k.with_theta(...)(X)``,
error O(h^4)), and the vector kernels against scikit-learn's Gaussian-process
kernels, which return their gradients in the same log space.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from structk.kernels import (
    Constant,
    Exp,
    ExpIntersection,
    FunctionScaled,
    Gaussian,
    Intersection,
    Jaccard,
    Kernel,
    Laplace,
    Linear,
    Normalize,
    Polynomial,
    RandomWalk,
    Scaled,
    WeightedDegree,
)
from structk.kernels.hyperparameters import (
    GradientAccuracyWarning,
    expand_lists,
    finite_difference_gradient,
)

RNG = np.random.default_rng(0)
VECTORS = RNG.normal(size=(7, 3))
SETS = [{"a", "b", "c"}, {"b", "c"}, {"d"}, set(), {"a", "d", "e", "f"}, {"c", "e"}]
ALIGNED = ["".join(RNG.choice(list("ACGT"), size=14)) for _ in range(7)]


def _graphs():
    import networkx as nx

    out = []
    for seed in range(6):
        g = nx.gnp_random_graph(6, 0.4, seed=seed)
        nx.set_node_attributes(g, {v: (v + seed) % 2 for v in g}, "label")
        out.append(g)
    return out


GRAPHS = _graphs()

KERNELS = [
    (Gaussian(sigma=0.7), VECTORS),
    (Laplace(sigma=1.3), VECTORS),
    (Polynomial(degree=3, gamma=0.5, coef0=0.8), VECTORS),
    (Polynomial(degree=2, coef0=0.0), VECTORS),  # coef0 fixed at 0
    (Polynomial(degree=1, gamma=2.0), VECTORS),
    (Linear(), VECTORS),
    (2.0 * Gaussian(sigma=1.5), VECTORS),
    (Gaussian(sigma=1.2) + 0.5, VECTORS),
    (Gaussian(sigma=1.2) * Laplace(sigma=2.0), VECTORS),
    (Polynomial(degree=2, gamma=0.3) ** 2, VECTORS),
    (Exp(0.3 * Linear()), VECTORS),
    (Normalize(Polynomial(degree=3, coef0=2.0)), VECTORS),
    (Normalize(Exp(0.2 * Gaussian(sigma=0.9))), VECTORS),
    (FunctionScaled(Gaussian(sigma=1.1), lambda x: 1.0 + x[0] ** 2), VECTORS),
    (Scaled(Gaussian(sigma=0.8), 3.0, factor_bounds="fixed"), VECTORS),
    (Normalize(Linear() + 2.0 * Laplace(sigma=0.5)) * Constant(1.5), VECTORS),
    (ExpIntersection(scale=0.3), SETS),
    (Normalize(ExpIntersection(scale=0.2)), SETS),
    (1.5 * Jaccard(), SETS),
    (Intersection() + ExpIntersection(scale=0.4), SETS),
    (WeightedDegree(d=3, weights=[0.5, 0.3, 0.2]), ALIGNED),
    (WeightedDegree(d=4, shift=2, weights=[1.0, 0.0, 0.5, 2.0]), ALIGNED),  # a 0: fixed
    (WeightedDegree(d=3, normalize=True, weights=[0.2, 0.7, 1.5]), ALIGNED),
    (2.0 * WeightedDegree(d=2, weights=[1.0, 1.0], weights_bounds=(1e-3, 1e3)), ALIGNED),
    (RandomWalk(kind="truncated", weights=[1.0, 0.5, 0.0, 0.25]), GRAPHS),
    (RandomWalk(kind="truncated", weights=[1.0, 0.5, 0.25], node_label=None), GRAPHS),  # spectral
    (Normalize(RandomWalk(kind="truncated", weights=[0.3, 0.2])), GRAPHS),
]


@pytest.mark.parametrize("kernel, X", KERNELS, ids=[repr(k) for k, _ in KERNELS])
def test_gradient_matches_finite_differences(kernel, X, richardson_gradient):
    K, dK = kernel.gram_gradient_prepared(kernel.prepare(X))
    np.testing.assert_allclose(K, kernel(X), rtol=1e-13, atol=1e-14)
    assert dK.shape == K.shape + (len(kernel.theta),)
    ref = richardson_gradient(kernel, X)
    scale = max(1.0, np.abs(ref).max(initial=0.0))
    np.testing.assert_allclose(dK, ref, rtol=1e-6, atol=1e-8 * scale)
    # the checked finite differences of the library agree too
    _, dK_fd = finite_difference_gradient(kernel, kernel.prepare(X))
    np.testing.assert_allclose(dK_fd, dK, rtol=1e-5, atol=1e-7 * scale)


@given(
    sigma=st.floats(0.2, 5.0),
    factor=st.floats(0.1, 10.0),
    gamma=st.floats(0.05, 2.0),
    coef0=st.floats(0.1, 3.0),
    power=st.integers(1, 3),
)
def test_gradient_of_random_compositions(sigma, factor, gamma, coef0, power, richardson_gradient):
    k = (
        Normalize(factor * Gaussian(sigma=sigma) + Polynomial(degree=2, gamma=gamma, coef0=coef0))
        ** power
    )
    K, dK = k.gram_gradient_prepared(k.prepare(VECTORS))
    ref = richardson_gradient(k, VECTORS)
    np.testing.assert_allclose(dK, ref, rtol=1e-5, atol=1e-8)


def test_vector_kernels_agree_with_scikit_learn():
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, DotProduct

    k = 2.5 * Gaussian(sigma=0.8) + Constant(0.7)
    sk = ConstantKernel(2.5) * RBF(0.8) + ConstantKernel(0.7)
    np.testing.assert_allclose(k.theta, sk.theta)
    np.testing.assert_allclose(k.bounds, sk.bounds)
    K, dK = k.gram_gradient_prepared(k.prepare(VECTORS))
    K_sk, dK_sk = sk(VECTORS, eval_gradient=True)
    np.testing.assert_allclose(K, K_sk, rtol=1e-12)
    np.testing.assert_allclose(dK, dK_sk, rtol=1e-10, atol=1e-13)
    # scikit-learn's DotProduct ** 2 is Polynomial(degree=2, gamma=1, coef0=sigma_0^2)
    p = Polynomial(degree=2, coef0=0.5**2, gamma_bounds="fixed")
    K, dK = p.gram_gradient_prepared(p.prepare(VECTORS))
    K_sk, dK_sk = (DotProduct(sigma_0=0.5) ** 2)(VECTORS, eval_gradient=True)
    np.testing.assert_allclose(K, K_sk, rtol=1e-12)
    # sigma_0 enters squared: d/dlog(sigma_0) = 2 d/dlog(coef0)
    np.testing.assert_allclose(2 * dK[:, :, 0], dK_sk[:, :, 0], rtol=1e-10)


def test_theta_bounds_and_with_theta():
    k = 2.0 * Gaussian(sigma=1.5) + Polynomial(degree=3, coef0=0.0, gamma_bounds=(0.1, 10))
    names = [h.name for h in k.hyperparameters]
    assert names == ["k1__factor", "k1__kernel__sigma", "k2__gamma", "k2__coef0"]
    assert [h.fixed for h in k.hyperparameters] == [False, False, False, True]
    np.testing.assert_allclose(k.theta, np.log([2.0, 1.5, 1.0]))
    np.testing.assert_allclose(k.bounds[2], np.log([0.1, 10]))
    k2 = k.with_theta(np.log([3.0, 0.5, 2.0]))
    assert (k2.k1.factor, k2.k1.kernel.sigma, k2.k2.gamma) == pytest.approx((3.0, 0.5, 2.0))
    assert k.k1.factor == 2.0  # unchanged
    np.testing.assert_allclose(
        k2(VECTORS),
        (3.0 * Gaussian(sigma=0.5) + Polynomial(degree=3, coef0=0.0, gamma=2.0))(VECTORS),
    )
    fixed = Gaussian(sigma=2.0, sigma_bounds="fixed")
    assert fixed.theta.shape == (0,) and fixed.bounds.shape == (0, 2)
    K, dK = fixed.gram_gradient_prepared(fixed.prepare(VECTORS))
    assert dK.shape == (7, 7, 0)


def test_bad_bounds_and_theta_are_named():
    with pytest.raises(ValueError, match=r"Gaussian\(sigma_bounds=\(0, 1\)\).*0 < low < high"):
        Gaussian(sigma_bounds=(0, 1)).theta
    with pytest.raises(ValueError, match=r"sigma_bounds='free'.*'fixed'"):
        Gaussian(sigma_bounds="free").theta
    with pytest.raises(
        ValueError, match=r"theta has 1 entries .* 2 free .*'factor', 'kernel__sigma'"
    ):
        (2.0 * Gaussian()).with_theta([0.0])
    with pytest.raises(ValueError, match=r"theta\[1\] \(kernel__sigma\) is nan"):
        (2.0 * Gaussian()).with_theta([0.0, np.nan])


class _Quadratic(Kernel):
    """A test kernel declaring a parameter without an analytic derivative:
    (1 + <x, y> / alpha)^2, and a kink |alpha - 1| to trip the step check."""

    def __init__(self, alpha=1.0, kink=False):
        self.alpha = alpha
        self.kink = kink

    def _prepare(self, X, name):
        return np.asarray(X, dtype=float)

    def _own_hyperparameters(self):
        from structk.kernels.hyperparameters import declare

        return [declare(self, "alpha")]

    def _cross(self, P, Q):
        a = float(self.alpha)
        if self.kink:
            a = 1.0 + abs(a - 1.0)
        return (1.0 + P @ Q.T / a) ** 2

    def _diag(self, P):
        return np.diag(self._cross(P, P))


def test_finite_differences_for_a_kernel_without_analytic_derivatives():
    k = _Quadratic(alpha=0.7)
    K, dK = k.gram_gradient_prepared(k.prepare(VECTORS))
    B = VECTORS @ VECTORS.T
    # d/dlog(alpha) of (1 + B / alpha)^2 = -2 (1 + B / alpha) B / alpha
    exact = -2 * (1 + B / 0.7) * B / 0.7
    np.testing.assert_allclose(dK[:, :, 0], exact, rtol=1e-7, atol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k.gram_gradient_prepared(k.prepare(VECTORS))  # no warning on a smooth Gram


def test_finite_differences_warn_at_a_kink():
    k = _Quadratic(alpha=1.0, kink=True)
    with pytest.warns(GradientAccuracyWarning, match=r"with respect to alpha changes by"):
        k.gram_gradient_prepared(k.prepare(VECTORS))


def test_expand_lists():
    out = expand_lists(Polynomial(degree=[1, 2, 3]))
    assert [p for p, _ in out] == [{"degree": 1}, {"degree": 2}, {"degree": 3}]
    assert [k.degree for _, k in out] == [1, 2, 3]
    nested = Normalize(Polynomial(degree=[1, 2]) + Gaussian(sigma=[1.0, 2.0]))
    combos = expand_lists(nested)
    assert len(combos) == 4
    assert combos[3][0] == {"kernel__k1__degree": 2, "kernel__k2__sigma": 2.0}
    np.testing.assert_allclose(
        combos[3][1](VECTORS), Normalize(Polynomial(degree=2) + Gaussian(sigma=2.0))(VECTORS)
    )
    assert nested.kernel.k1.degree == [1, 2]  # the original keeps its lists
    plain = Gaussian()
    assert expand_lists(plain) == [({}, plain)]
    # a list for a tuple-valued parameter (bounds) is a value, not a grid
    bounded = Gaussian(sigma_bounds=[0.1, 10.0])
    assert expand_lists(bounded) == [({}, bounded)]


def test_sequence_parameters_are_one_hyperparameter_per_entry():
    assert WeightedDegree(d=3).hyperparameters == []  # the standard weights: fixed
    assert RandomWalk(lam=0.1).hyperparameters == []
    k = WeightedDegree(d=3, weights=[0.5, 0.0, 0.2], weights_bounds=(1e-3, 10.0))
    names = [(h.name, h.fixed) for h in k.hyperparameters]
    assert names == [("weights[0]", False), ("weights[1]", True), ("weights[2]", False)]
    np.testing.assert_allclose(k.bounds, np.log([[1e-3, 10.0], [1e-3, 10.0]]))
    moved = (3.0 * k).with_theta(np.log([3.0, 2.0, 4.0]))
    np.testing.assert_allclose(moved.kernel.weights, [2.0, 0.0, 4.0], rtol=1e-15)
    assert moved.factor == pytest.approx(3.0, rel=1e-15)
    # the standard weights, given explicitly, give the default kernel
    standard = [2 * (3 - l + 1) / (3 * 4) for l in (1, 2, 3)]
    np.testing.assert_allclose(
        WeightedDegree(d=3, weights=standard)(ALIGNED), WeightedDegree(d=3)(ALIGNED), rtol=1e-14
    )
    assert RandomWalk(kind="truncated", weights=[1.0, 2.0], weights_bounds="fixed").theta.size == 0


def test_bad_weights_are_named():
    with pytest.raises(ValueError, match=r"weights must hold d=3 numbers"):
        WeightedDegree(d=3, weights=[1.0, 2.0])(ALIGNED)
    with pytest.raises(ValueError, match=r"weights\[1\] = -1.0"):
        WeightedDegree(d=2, weights=[1.0, -1.0])(ALIGNED)
    with pytest.raises(ValueError, match=r"WeightedDegree\(weights_bounds="):
        WeightedDegree(d=2, weights=[1.0, 1.0], weights_bounds=(2.0, 1.0)).theta


def test_fixed_parts_are_computed_once_inside_fixed_grams(monkeypatch):
    """Inside ``fixed_grams`` the Gram of a part without free
    hyperparameters is computed once per prepared data, each caller gets its
    own copy, and the values equal a fresh computation; outside, nothing is
    kept."""
    from structk.kernels import MinMax
    from structk.kernels.hyperparameters import fixed_grams

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(12, 6)).astype(float)
    kernel = 1.0 * MinMax()
    P = kernel.prepare(X)
    calls = []
    gram = MinMax._checked_gram

    def counted(self, P):
        calls.append(1)
        return gram(self, P)

    monkeypatch.setattr(MinMax, "_checked_gram", counted)
    fresh = [kernel.with_theta([t]).gram_gradient_prepared(P) for t in (0.0, 1.0)]
    assert len(calls) == 2
    calls.clear()
    with fixed_grams():
        cached = [kernel.with_theta([t]).gram_gradient_prepared(P) for t in (0.0, 1.0)]
        assert len(calls) == 1
        cached[0][0][0, 0] = -1.0  # a caller's copy: the next one is unchanged
        again = kernel.with_theta([0.0]).gram_gradient_prepared(P)
        assert len(calls) == 1
    for (K, dK), (K2, dK2) in zip(fresh[1:], cached[1:], strict=True):
        np.testing.assert_array_equal(K, K2)
        np.testing.assert_array_equal(dK, dK2)
    np.testing.assert_array_equal(again[0], fresh[0][0])
    kernel.with_theta([0.0]).gram_gradient_prepared(P)
    assert len(calls) == 2  # the block's memory is gone
