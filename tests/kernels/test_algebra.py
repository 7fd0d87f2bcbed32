"""Kernel algebra: each composite against its definition, printing, params, guards."""

import numpy as np
import pytest
from sklearn.base import clone

from structk import KernelOverflowError, check_psd
from structk.kernels import (
    Constant,
    Exp,
    FunctionKernel,
    FunctionScaled,
    Gaussian,
    Kernel,
    Laplace,
    Linear,
    Normalize,
    Polynomial,
    Power,
    Product,
    Scaled,
    Sum,
)

RNG = np.random.default_rng(1)
X = RNG.normal(size=(12, 4))
Y = RNG.normal(size=(5, 4))
lin, gau, pol = Linear(), Gaussian(sigma=1.3), Polynomial(degree=2)


def brute(f, A, B):
    """Gram matrix of a Python function, pair by pair."""
    return np.array([[f(a, b) for b in B] for a in A])


def f_lin(a, b):
    return float(a @ b)


def f_gau(a, b):
    return float(np.exp(-np.sum((a - b) ** 2) / (2 * 1.3**2)))


def f_pol(a, b):
    return float((a @ b + 1.0) ** 2)


COMPOSITES = [
    (lin + gau, lambda a, b: f_lin(a, b) + f_gau(a, b)),
    (lin * gau, lambda a, b: f_lin(a, b) * f_gau(a, b)),
    (2.5 * pol, lambda a, b: 2.5 * f_pol(a, b)),
    (pol * 0.0, lambda a, b: 0.0),
    (lin + 3.0, lambda a, b: f_lin(a, b) + 3.0),
    (lin**3, lambda a, b: f_lin(a, b) ** 3),
    (Exp(0.1 * lin), lambda a, b: np.exp(0.1 * f_lin(a, b))),
    (Normalize(pol), lambda a, b: f_pol(a, b) / np.sqrt(f_pol(a, a) * f_pol(b, b))),
    (
        Normalize(Exp(lin)),
        lambda a, b: np.exp(f_lin(a, b)) / np.sqrt(np.exp(f_lin(a, a) + f_lin(b, b))),
    ),
    (
        FunctionScaled(gau, lambda x: 1 + x[0] ** 2),
        lambda a, b: (1 + a[0] ** 2) * f_gau(a, b) * (1 + b[0] ** 2),
    ),
    (
        Normalize(lin + gau) * pol**2 + 0.5 * Exp(gau),
        lambda a, b: (
            (f_lin(a, b) + f_gau(a, b))
            / np.sqrt((f_lin(a, a) + 1.0) * (f_lin(b, b) + 1.0))
            * f_pol(a, b) ** 2
            + 0.5 * np.exp(f_gau(a, b))
        ),
    ),
]
IDS = [repr(k) for k, _ in COMPOSITES]


@pytest.mark.parametrize("kernel, f", COMPOSITES, ids=IDS)
def test_composite_equals_definition(kernel, f):
    np.testing.assert_allclose(kernel(X), brute(f, X, X), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(kernel(X, Y), brute(f, X, Y), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(kernel.diag(X), [f(x, x) for x in X], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("kernel, f", COMPOSITES, ids=IDS)
def test_composite_is_psd_and_symmetric(kernel, f):
    K = kernel(X)
    np.testing.assert_array_equal(K, K.T)
    assert check_psd(K).is_psd


@pytest.mark.parametrize("kernel, f", COMPOSITES, ids=IDS)
def test_composite_survives_sklearn_clone(kernel, f):
    c = clone(kernel)
    assert c is not kernel and repr(c) == repr(kernel)
    np.testing.assert_array_equal(c(X), kernel(X))


def test_operators_build_the_right_classes():
    assert isinstance(lin + gau, Sum)
    assert isinstance(lin * gau, Product)
    assert isinstance(2 * lin, Scaled) and isinstance(lin * 2, Scaled)
    assert isinstance(lin**2, Power)
    assert isinstance((lin + 1).k2, Constant)
    assert isinstance(lin / 4, Scaled) and (lin / 4).factor == 0.25


def test_repr_reads_as_the_expression():
    k = Normalize(2 * (lin + gau) * Laplace() ** 2 + 1.5)
    assert repr(k) == (
        "Normalize(2 * (Linear() + Gaussian(sigma=1.3)) * Laplace(sigma=1.0) ** 2 + 1.5)"
    )
    assert repr(Exp(0.5 * lin)) == "Exp(0.5 * Linear())"
    assert repr((lin + gau) ** 2) == "(Linear() + Gaussian(sigma=1.3)) ** 2"
    # the defining parameter, then those that differ from their defaults
    assert repr(Polynomial(degree=3)) == "Polynomial(degree=3)"
    assert repr(Polynomial(degree=2, coef0=0.0, gamma=0.5)) == (
        "Polynomial(degree=2, coef0=0.0, gamma=0.5)"
    )
    assert repr(Gaussian()) == "Gaussian(sigma=1.0)"


def test_nested_params_for_grid_search():
    k = Normalize(Polynomial(degree=2) + Gaussian(sigma=1.0))
    params = k.get_params()
    assert params["kernel__k1__degree"] == 2
    assert params["kernel__k2__sigma"] == 1.0
    k.set_params(kernel__k1__degree=4, kernel__k2__sigma=0.5)
    assert k.kernel.k1.degree == 4 and k.kernel.k2.sigma == 0.5
    with pytest.raises(ValueError, match="invalid parameter 'sigmaa'"):
        Gaussian().set_params(sigmaa=1)


# ------------------------------------------------------------- refusals
@pytest.mark.parametrize("factor", [-1, -0.5, np.float64(-2.0), np.nan, np.inf])
def test_negative_or_nonfinite_scale_is_an_error(factor):
    with pytest.raises(ValueError, match="scale factor must be finite and >= 0"):
        factor * lin


def test_negative_constant_is_an_error():
    with pytest.raises(ValueError, match="value must be >= 0"):
        lin + (-1.0)


@pytest.mark.parametrize("p", [0, -1, 0.5, 1.5, True])
def test_power_needs_positive_integer(p):
    with pytest.raises((ValueError, TypeError), match="exponent must be"):
        lin**p


def test_difference_and_negation_are_refused():
    with pytest.raises(TypeError, match="difference of two kernels is not a kernel"):
        lin - gau
    with pytest.raises(TypeError, match="-k is not a kernel"):
        -lin


def test_division_only_by_positive_numbers():
    with pytest.raises(ValueError, match="divided by a positive number"):
        lin / 0


def test_composite_needs_kernels():
    with pytest.raises(TypeError, match="k2 must be a structk Kernel"):
        Sum(lin, lambda a, b: 0)(X)


def test_set_params_with_negative_factor_caught_at_evaluation():
    k = 2.0 * lin
    k.set_params(factor=-3.0)
    with pytest.raises(ValueError, match="scale factor must be finite and >= 0"):
        k(X)


# ------------------------------------------------------------- exp / overflow
def test_exp_overflow_is_a_clear_error_pointing_to_normalize():
    big = np.array([[30.0, 0.0], [0.0, 1.0]])  # <x, x> = 900 > 709.78
    with pytest.raises(KernelOverflowError, match=r"entry \(0, 0\).*Normalize"):
        Exp(lin)(big)
    with pytest.raises(KernelOverflowError, match="object 0"):
        Exp(lin).diag(big)


def test_normalize_exp_is_stable_in_log_space():
    big = np.array([[30.0, 0.0], [29.0, 1.0], [0.0, 0.0]])
    K = Normalize(Exp(lin))(big)
    f = np.array([[np.exp(a @ b - 0.5 * (a @ a + b @ b)) for b in big] for a in big])
    np.testing.assert_allclose(K, f, rtol=1e-12)
    assert check_psd(K).is_psd


def test_normalize_of_product_with_exp_uses_logs():
    big = np.array([[30.0, 0.0], [29.0, 1.0]])
    K = Normalize(Exp(lin) * Exp(lin) * 2.0)(big)
    f = lambda a, b: np.exp(2 * (a @ b) - (a @ a + b @ b))  # noqa: E731
    np.testing.assert_allclose(K, brute(f, big, big), rtol=1e-12)


def test_product_overflow_is_reported_not_inf():
    big = np.full((2, 1), 1e160)
    with pytest.raises(KernelOverflowError, match="overflows float64"):
        (lin * lin)(big)


# ------------------------------------------------------------- normalisation
def test_normalize_zero_norm_objects_get_zero_rows():
    A = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 2.0]])
    K = Normalize(lin)(A)
    assert not np.isnan(K).any()
    np.testing.assert_array_equal(K[0], 0.0)
    np.testing.assert_array_equal(K[:, 0], 0.0)
    np.testing.assert_allclose(np.diag(K), [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(Normalize(lin).diag(A), [0.0, 1.0, 1.0])
    assert check_psd(K).is_psd
    Kx = Normalize(lin)(A, A[:1])
    np.testing.assert_array_equal(Kx, 0.0)


def test_normalized_diagonal_is_exactly_one():
    K = Normalize(pol + gau)(X)
    np.testing.assert_array_equal(np.diag(K), 1.0)


# ------------------------------------------------------------- feature maps
@pytest.mark.parametrize(
    "kernel",
    [lin + 2 * lin, Normalize(lin), 3.0 * lin, lin + 2.0, FunctionScaled(lin, lambda x: x[1])],
    ids=repr,
)
def test_feature_maps_of_composites(kernel):
    assert kernel.has_features
    F = kernel.features(X)
    np.testing.assert_allclose(F @ F.T, kernel(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        kernel.features(X) @ kernel.features(Y).T, kernel(X, Y), rtol=1e-12, atol=1e-12
    )


def test_no_feature_map_is_a_clear_error():
    assert not (lin * lin).has_features and not Exp(lin).has_features
    with pytest.raises(TypeError, match="has no explicit feature map"):
        Gaussian().features(X)


# ------------------------------------------------------------- other kernels
def test_function_scaled_bad_function_names_object():
    k = FunctionScaled(lin, lambda x: np.nan if x[0] > 0.5 else 1.0)
    bad = int(np.argmax(X[:, 0] > 0.5))
    with pytest.raises(ValueError, match=rf"func\(X\[{bad}\]\) returned nan"):
        k(X)


def test_function_kernel_on_sets_and_bad_values():
    k = FunctionKernel(lambda a, b: len(a & b), name="overlap")
    K = k([{1, 2}, {2, 3}, set()])
    np.testing.assert_array_equal(K, [[2, 1, 0], [1, 2, 0], [0, 0, 0]])
    assert repr(k) == "FunctionKernel(overlap)"
    bad = FunctionKernel(lambda a, b: "x" if (a, b) == (1, 2) else 0.0)
    with pytest.raises(ValueError, match=r"failed on X\[0\], X\[1\]"):
        bad([1, 2])
    inf = FunctionKernel(lambda a, b: np.inf if a == b == 2 else 0.0)
    with pytest.raises(KernelOverflowError, match=r"entry \(1, 1\)"):
        inf([1, 2])


def test_constant_kernel_works_on_any_objects():
    np.testing.assert_array_equal(Constant(2.0)(["a", "b"], ["c"]), [[2.0], [2.0]])


def test_subclass_with_var_kwargs_is_rejected():
    class Bad(Kernel):
        def __init__(self, **kw):
            self.kw = kw

    with pytest.raises(RuntimeError, match="must name its parameters"):
        Bad().get_params()


def test_generators_are_materialised_once_for_composites():
    k = lin + gau
    K = k(x for x in X)
    np.testing.assert_allclose(K, k(X))


# ------------------------------------------- Normalize with signs and extremes
def _normalised_reference(f, X):
    """``f(x, y) / sqrt(f(x, x) f(y, y))`` in 50-digit decimal arithmetic."""
    from decimal import localcontext

    with localcontext() as ctx:
        ctx.prec = 50
        K = [[f(a, b) for b in X] for a in X]
        return np.array(
            [
                [float(K[i][j] / (K[i][i] * K[j][j]).sqrt()) for j in range(len(X))]
                for i in range(len(X))
            ]
        )


def _dot(a, b):
    from decimal import Decimal

    return sum(Decimal(float(u)) * Decimal(float(v)) for u, v in zip(a, b))


@pytest.mark.parametrize(
    "kernel, f",
    [
        (Normalize(Exp(Linear()) + Linear()), lambda a, b: _dot(a, b).exp() + _dot(a, b)),
        (Normalize(Exp(Linear()) * Linear()), lambda a, b: _dot(a, b).exp() * _dot(a, b)),
        (
            Normalize(2.0 * Exp(Linear()) + Linear() ** 3),
            lambda a, b: 2 * _dot(a, b).exp() + _dot(a, b) ** 3,
        ),
        (
            Normalize(Polynomial(degree=3, coef0=0.5) * Exp(Linear())),
            lambda a, b: (
                (_dot(a, b) + __import__("decimal").Decimal("0.5")) ** 3 * _dot(a, b).exp()
            ),
        ),
    ],
    ids=["exp+linear", "exp*linear", "2exp+linear^3", "poly*exp"],
)
def test_normalize_with_negative_values_is_exact(kernel, f):
    X = np.array([[1.0, 0.0], [-1.0, 0.5], [0.3, -2.0]])
    K = kernel(X)
    np.testing.assert_allclose(K, _normalised_reference(f, X), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(kernel(X, X[:2]), K[:, :2], rtol=1e-12, atol=1e-15)


def test_normalize_values_from_the_issue():
    X = np.array([[1.0, 0.0], [-1.0, 0.5]])
    assert Normalize(Exp(Linear()) + Linear())(X)[0, 1] == pytest.approx(
        -0.15056494906481818, rel=1e-12
    )
    # cos^200 of vectors whose inner products overflow float64 when powered
    Y = np.array([[1e3, 0.0], [1e3, 1e2]])
    cos200 = (1e3 / np.hypot(1e3, 1e2)) ** 200
    assert Normalize(Polynomial(degree=200, coef0=0))(Y)[0, 1] == pytest.approx(cos200, rel=1e-12)
    assert cos200 == pytest.approx(0.3697, abs=1e-4)
    # exp(<x, y>) with |x| = 1e8: the normalised value is exp(-|x - y|^2 / 2)
    Z = np.array([[1e8, 0.0], [1e8, 1.0]])
    for K in (Normalize(Exp(Linear()))(Z), Normalize(Exp(Linear()))(Z, Z)):
        assert K[0, 1] == pytest.approx(np.exp(-0.5), rel=1e-12)
