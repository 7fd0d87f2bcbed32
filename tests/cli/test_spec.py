"""Kernel expressions on the command line are parsed safely."""

import re

import numpy as np
import pytest

from structk.cli.spec import kernel_namespace, parse_spec
from structk.kernels import Gaussian, Normalize, Polynomial


def test_expression_builds_the_kernel():
    k = parse_spec("Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2)) ** 2",
                   kernel_namespace())
    expected = Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2)) ** 2
    assert repr(k) == repr(expected)
    X = np.random.default_rng(0).normal(size=(5, 2))
    np.testing.assert_array_equal(k(X), expected(X))


@pytest.mark.parametrize(
    "text, message",
    [
        ("Gausian(sigma=1)", "unknown kernel 'Gausian'; did you mean 'Gaussian'"),
        ("__import__('os')", "unknown kernel '__import__'"),
        ("Gaussian(sigma=1).__class__", "is not allowed"),
        ("[x for x in ()]", "is not allowed"),
        ("Gaussian(sigma=", "cannot parse kernel"),
        ("Gaussian(**{'sigma': 1})", r"\*\*kwargs is not allowed"),
        ("Gaussian(bandwidth=1)", "Gaussian: .*unexpected keyword argument 'bandwidth'"),
        ("-2 * Gaussian()", "scale factor must be finite and >= 0"),
    ],
)
def test_bad_expressions(text, message):
    with pytest.raises(ValueError, match=message):
        parse_spec(text, kernel_namespace())


# ------------------------------------------------------- bounded arithmetic
@pytest.mark.parametrize("text, fragment", [
    ("Spectrum(k=9**9**9**9)", "too large"),
    ("Spectrum(k=2**300)", "'2**300' is too large"),
    ("Spectrum(k=(2**200) * (2**200))", "too large"),
    ("Gaussian(sigma=1e300 * 1e300)", "overflows"),
    ("Gaussian(sigma=10.0 ** 400)", "cannot compute '10.0 ** 400'"),
    ("Spectrum(alphabet='A' * 10**9)", "too long"),
    ("Spectrum(k=1 / 0)", "division by zero"),
])
def test_arithmetic_is_bounded_and_fails_fast(text, fragment):
    # refused before computing: evaluating 9**9**9**9 would never finish
    with pytest.raises(ValueError, match=re.escape(fragment)):
        parse_spec(text, kernel_namespace())


def test_ordinary_arithmetic_still_works():
    k = parse_spec("Spectrum(k=2**3) + 0.5 * Gaussian(sigma=2 ** -1)", kernel_namespace())
    assert k.k1.k == 8 and k.k2.factor == 0.5 and k.k2.kernel.sigma == 0.5
