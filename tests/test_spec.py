"""Kernel expressions on the command line are parsed safely."""

import numpy as np
import pytest

from structk._spec import kernel_namespace, parse_spec
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
