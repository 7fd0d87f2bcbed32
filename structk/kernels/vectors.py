"""Kernels on real vectors: linear, polynomial, Gaussian and Laplace.

Objects are rows of a 2-D array (or a list of equal-length sequences).
Values agree with :mod:`sklearn.metrics.pairwise` to rounding; the
parametrisation is the textbook one (``sigma`` rather than ``gamma``) and
each docstring gives the mapping.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_vectors, check_same_dim, check_scalar
from .base import Kernel


class _VectorKernel(Kernel):
    """Shared input handling: a 2-D float64 array of finite values."""

    def _prepare(self, X, name):
        return as_vectors(X, name)

    def _check_pair(self, P, Q):
        check_same_dim(P, Q)


class Linear(_VectorKernel):
    """The linear kernel ``k(x, y) = <x, y>``; its feature map is ``x`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.kernels import Linear
    >>> Linear()(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[ 5., 11.],
           [11., 25.]])
    """

    has_features = True

    def _features(self, P):
        return P


class Polynomial(_VectorKernel):
    """The polynomial kernel ``k(x, y) = (gamma <x, y> + coef0) ** degree``.

    ``coef0 = 0`` gives the homogeneous kernel, whose features are the
    monomials of degree exactly ``degree``; ``coef0 > 0`` includes all lower
    degrees. Equals ``sklearn.metrics.pairwise.polynomial_kernel`` with the
    same ``degree``, ``gamma`` and ``coef0``.

    Parameters
    ----------
    degree : int >= 1, default 2
    coef0 : float >= 0, default 1.0
        Negative values would not give a positive semi-definite kernel.
    gamma : float > 0, default 1.0
    """

    _repr_always = ('degree',)

    def __init__(self, degree=2, coef0=1.0, gamma=1.0):
        self.degree = degree
        self.coef0 = coef0
        self.gamma = gamma
        self._check_params()

    def _check_params(self):
        check_scalar(self.degree, "degree", lower=1, integer=True)
        check_scalar(self.coef0, "coef0", lower=0)
        check_scalar(self.gamma, "gamma", lower=0, lower_inclusive=False)

    def _from_inner(self, K):
        K *= float(self.gamma)
        K += float(self.coef0)
        K **= int(self.degree)
        return K

    def _cross(self, P, Q):
        return self._from_inner(P @ Q.T)

    def _diag(self, P):
        return self._from_inner(np.einsum("ij,ij->i", P, P))


class Gaussian(_VectorKernel):
    """The Gaussian (RBF) kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.

    Equals ``sklearn.metrics.pairwise.rbf_kernel`` with
    ``gamma = 1 / (2 sigma^2)``.

    Parameters
    ----------
    sigma : float > 0, default 1.0
        Bandwidth.
    """

    _repr_always = ('sigma',)

    def __init__(self, sigma=1.0):
        self.sigma = sigma
        self._check_params()

    def _check_params(self):
        check_scalar(self.sigma, "sigma", lower=0, lower_inclusive=False)

    def _from_sq_dist(self, D):
        D *= -1.0 / (2.0 * float(self.sigma) ** 2)
        return np.exp(D, out=D)

    def _gram(self, P):
        D = _sq_dist(P, P)
        np.fill_diagonal(D, 0.0)
        return self._from_sq_dist(D)

    def _cross(self, P, Q):
        return self._from_sq_dist(_sq_dist(P, Q))

    def _diag(self, P):
        return np.ones(P.shape[0])


def _sq_dist(P, Q):
    """Squared Euclidean distances by ``|x|^2 + |y|^2 - 2 <x, y>`` (BLAS), clipped at 0."""
    D = P @ Q.T
    D *= -2.0
    D += np.einsum("ij,ij->i", P, P)[:, None]
    D += np.einsum("ij,ij->i", Q, Q)[None, :]
    np.maximum(D, 0.0, out=D)
    return D


class Laplace(_VectorKernel):
    """The Laplace kernel ``k(x, y) = exp(-||x - y||_1 / sigma)``.

    Uses the L1 (Manhattan) distance, so it is a product of one-dimensional
    Laplace kernels; equals ``sklearn.metrics.pairwise.laplacian_kernel``
    with ``gamma = 1 / sigma``.

    Parameters
    ----------
    sigma : float > 0, default 1.0
        Length scale.
    """

    _repr_always = ('sigma',)

    def __init__(self, sigma=1.0):
        self.sigma = sigma
        self._check_params()

    def _check_params(self):
        check_scalar(self.sigma, "sigma", lower=0, lower_inclusive=False)

    def _cross(self, P, Q):
        from scipy.spatial.distance import cdist

        D = cdist(P, Q, "cityblock")
        D *= -1.0 / float(self.sigma)
        return np.exp(D, out=D)

    def _diag(self, P):
        return np.ones(P.shape[0])
