"""Checks shared by the kernel tests."""

import numpy as np


def assert_matches_reference(k, X, R, rows, cols, split=3, tol=1e-12):
    """``k``'s Gram, cross-Gram (``X[:split]`` against the rest), diagonal,
    and the cross-Gram of blocks of its prepared data (objects ``rows``
    against objects ``cols``, as blockwise evaluation slices them) all
    equal the reference Gram ``R`` of ``X`` up to ``tol``."""

    def close(a, b):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)

    close(k(X), R)
    close(k(X[:split], X[split:]), R[:split, split:])
    close(k.diag(X), np.diag(R))
    P = k._prepare(X, "X")
    close(k._cross(k._take(P, rows), k._take(P, cols)), R[rows][:, cols])
