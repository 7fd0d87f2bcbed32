"""Every vector kernel and every composite in the library passes the PSD property.

Hypothesis draws lists of vectors; each Gram matrix must pass check_psd with
its default tolerance. (Each kernel family has its own property test in its
own test module.)
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structk import check_psd
from structk.kernels import (
    Exp,
    FunctionScaled,
    Gaussian,
    Laplace,
    Linear,
    Normalize,
    Polynomial,
)
from structk.testing import find_psd_counterexample, vectors

LIBRARY = [
    Linear(),
    Polynomial(degree=3, coef0=1.0, gamma=0.1),
    Polynomial(degree=2, coef0=0.0),
    Gaussian(sigma=0.7),
    Laplace(sigma=2.0),
    Linear() + Gaussian(),
    Linear() * Laplace(),
    3.0 * Polynomial(degree=2) + 0.5,
    Gaussian() ** 3,
    Exp(0.05 * Linear()),
    Normalize(Polynomial(degree=4)),
    Normalize(Exp(Linear())),
    Normalize(Linear()) * Gaussian(sigma=2.0),
    FunctionScaled(Gaussian(), lambda x: float(np.sum(x))),
]


@pytest.mark.parametrize("kernel", LIBRARY, ids=repr)
@settings(max_examples=25)
@given(X=st.lists(vectors(dim=3, min_value=-5, max_value=5), min_size=1, max_size=12))
def test_gram_is_psd(kernel, X):
    K = kernel(np.array(X))
    report = check_psd(K)
    assert report.is_psd, str(report)


@pytest.mark.parametrize("kernel", LIBRARY[:6], ids=repr)
def test_counterexample_search_finds_nothing(kernel):
    assert (
        find_psd_counterexample(
            kernel, vectors(dim=2, min_value=-3, max_value=3), pool_sizes=(16, 64)
        )
        is None
    )
