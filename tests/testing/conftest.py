"""Shared checks of the validity kit's tests."""

import numpy as np
import pytest


def reference_gram(func, objects):
    n = len(objects)
    return np.array([[float(func(objects[i], objects[j])) for j in range(n)] for i in range(n)])


def _check_negative_eigenvalue(cx, func):
    """The witness objects' Gram, recomputed from ``func``, has the reported negative eigenvalue."""
    assert cx is not None and cx.property == "negative eigenvalue"
    K = reference_gram(func, cx.objects)
    np.testing.assert_allclose(cx.gram, K, rtol=1e-12, atol=1e-12)
    lam = np.linalg.eigvalsh(K)[0]
    assert lam < -cx.tol
    assert cx.tol >= 10 * len(K) * np.finfo(float).eps * np.linalg.norm(K)
    assert cx.min_eigenvalue == pytest.approx(lam, rel=1e-9, abs=1e-12)
    assert cx.z @ K @ cx.z == pytest.approx(lam, rel=1e-9, abs=1e-12)
    assert np.linalg.norm(cx.z) == pytest.approx(1.0)
    text = str(cx)
    assert "negative eigenvalue" in text and "z with z^T K z" in text


@pytest.fixture
def assert_negative_eigenvalue():
    """``check(cx, func)``: the counterexample ``cx`` is a true negative
    eigenvalue of ``func``'s Gram, recomputed by a double loop and numpy."""
    return _check_negative_eigenvalue
