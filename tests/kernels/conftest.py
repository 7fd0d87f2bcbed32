"""Shared references of the kernel tests."""

import numpy as np
import pytest


def _richardson_gradient(kernel, X, h=1e-3):
    """Central differences of ``k(X)`` in each theta, Richardson-extrapolated."""
    theta = kernel.theta
    out = np.empty(kernel(X).shape + (theta.size,))
    for i in range(theta.size):

        def central(step):
            up, down = theta.copy(), theta.copy()
            up[i] += step
            down[i] -= step
            return (kernel.with_theta(up)(X) - kernel.with_theta(down)(X)) / (2 * step)

        out[:, :, i] = (4 * central(h / 2) - central(h)) / 3
    return out


@pytest.fixture(scope="session")
def richardson_gradient():
    """``gradient(kernel, X)``: the reference derivative of ``kernel(X)`` in
    each entry of ``theta`` by central differences, Richardson-extrapolated
    (session scope: usable by hypothesis tests)."""
    return _richardson_gradient
