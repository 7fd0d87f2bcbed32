"""Kernels on real vectors: linear, polynomial, Gaussian and Laplace.

Objects are rows of a 2-D array (or a list of equal-length sequences).
Values agree with :mod:`sklearn.metrics.pairwise` to rounding; the
parametrisation is the textbook one (``sigma`` rather than ``gamma``) and
each docstring gives the mapping.
"""

from __future__ import annotations

import numpy as np

from .. import _tuning
from .._threads import small_matmul
from .._validation import as_vectors, check_same_dim, check_scalar
from .base import Kernel
from .hyperparameters import DEFAULT_BOUNDS, declare, own_gradient


class _VectorKernel(Kernel):
    """Shared input handling: a 2-D float64 array of finite values."""

    _closed_form = True

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
    fixed_feature_columns = True

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
    gamma_bounds, coef0_bounds : pair of float or "fixed", default (1e-5, 1e5)
        Range of ``gamma`` and ``coef0`` for a Gaussian process's optimiser
        (``"fixed"``: not optimised; ``coef0 = 0`` is always fixed); see
        :mod:`structk.kernels.hyperparameters`. ``degree`` is discrete:
        give a list (``degree=[1, 2, 3]``) to choose it by the marginal
        likelihood.
    """

    _repr_always = ("degree",)

    def __init__(
        self,
        degree: int = 2,
        coef0: float = 1.0,
        gamma: float = 1.0,
        gamma_bounds: tuple[float, float] = DEFAULT_BOUNDS,
        coef0_bounds: tuple[float, float] = DEFAULT_BOUNDS,
    ) -> None:
        self.degree = degree
        self.coef0 = coef0
        self.gamma = gamma
        self.gamma_bounds = gamma_bounds
        self.coef0_bounds = coef0_bounds

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
        return self._from_inner(small_matmul(P, Q.T))

    def _diag(self, P):
        return self._from_inner(np.einsum("ij,ij->i", P, P))

    # high powers overflow or underflow long before their normalised values
    # do: Normalize works on (sign, degree * log|gamma <x, y> + coef0|)
    _has_log_form = True

    def _signed_log_of(self, B):
        B *= float(self.gamma)
        B += float(self.coef0)
        d = int(self.degree)
        with np.errstate(divide="ignore"):
            return np.sign(B) ** d, d * np.log(np.abs(B))

    def _signed_log_gram(self, P):
        return self._signed_log_of(small_matmul(P, P.T))

    def _signed_log_cross(self, P, Q):
        return self._signed_log_of(small_matmul(P, Q.T))

    def _signed_log_diag(self, P):
        return self._signed_log_of(np.einsum("ij,ij->i", P, P))

    def _log_gram(self, P):
        return self._signed_log_gram(P)[1]

    def _log_cross(self, P, Q):
        return self._signed_log_cross(P, Q)[1]

    def _log_diag(self, P):
        return self._signed_log_diag(P)[1]

    def _own_hyperparameters(self):
        return [declare(self, "gamma"), declare(self, "coef0")]

    def _gram_gradient(self, P):
        # d/dlog(gamma) of (gamma B + c)^d is d (gamma B + c)^(d-1) gamma B
        d = int(self.degree)
        B = small_matmul(P, P.T) * float(self.gamma)
        base = B + float(self.coef0)
        lower = base ** (d - 1)
        return own_gradient(
            self,
            lower * base,
            {
                "gamma": lambda: d * lower * B,
                "coef0": lambda: d * float(self.coef0) * lower,
            },
        )


class Gaussian(_VectorKernel):
    """The Gaussian (RBF) kernel ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.

    Equals ``sklearn.metrics.pairwise.rbf_kernel`` with
    ``gamma = 1 / (2 sigma^2)``.

    Parameters
    ----------
    sigma : float > 0, default 1.0
        Bandwidth (scikit-learn's RBF ``length_scale``).
    sigma_bounds : pair of float or "fixed", default (1e-5, 1e5)
        Range of ``sigma`` for a Gaussian process's optimiser (``"fixed"``:
        not optimised); see :mod:`structk.kernels.hyperparameters`.
    """

    _repr_always = ("sigma",)

    def __init__(
        self, sigma: float = 1.0, sigma_bounds: tuple[float, float] = DEFAULT_BOUNDS
    ) -> None:
        self.sigma = sigma
        self.sigma_bounds = sigma_bounds

    def _check_params(self):
        check_scalar(self.sigma, "sigma", lower=0, lower_inclusive=False)

    def _from_sq_dist(self, D):
        D *= -1.0 / (2.0 * float(self.sigma) ** 2)
        return np.exp(D, out=D)

    def _gram(self, P):
        K = _exp_sq_dist_upper(P, self._exact_scale())
        if K is not None:
            return K
        D = _sq_dist(P, P, self._exact_scale())
        np.fill_diagonal(D, 0.0)
        return self._from_sq_dist(D)

    def _mirrored_gram(self, P):
        if P.shape[0] < _tuning.VECTOR_GRAM_MIRROR_MIN_N:
            return None
        return _exp_sq_dist_upper(P, self._exact_scale(), mirror=True)

    def _cross(self, P, Q):
        return self._from_sq_dist(_sq_dist(P, Q, self._exact_scale()))

    def _exact_scale(self):
        return 2.0 * float(self.sigma) ** 2

    def _diag(self, P):
        return np.ones(P.shape[0])

    def _own_hyperparameters(self):
        return [declare(self, "sigma")]

    def _gram_gradient(self, P):
        # d/dlog(sigma) of exp(-D / (2 sigma^2)) is K D / sigma^2
        D = _sq_dist(P, P, self._exact_scale())
        np.fill_diagonal(D, 0.0)
        K = self._from_sq_dist(D.copy())
        return own_gradient(self, K, {"sigma": lambda: K * D / float(self.sigma) ** 2})


#: Relative accuracy of ``exp(-D / s)`` that :func:`_sq_dist` guarantees.
_SQ_DIST_RTOL = 1e-13
#: ``exp(-t)`` is 0 in float64 beyond this ``t``.
_UNDERFLOW = 746.0


def _sq_dist(P, Q, scale):
    """Squared Euclidean distances, accurate to ``_SQ_DIST_RTOL * scale``.

    Computed as ``|x|^2 + |y|^2 - 2 <x, y>`` (one BLAS product) on data
    centred on a shared reference point (the mean of ``P``), which leaves
    the distances unchanged and makes the norms small where the data
    sit far from the origin. The expansion's rounding error is about
    ``2 (sqrt(d) + 2) eps (|x|^2 + |y|^2)`` (rounding errors of a d-term
    sum grow like ``sqrt(d)`` in practice: Higham, *Accuracy and Stability
    of Numerical Algorithms*, 2002, Section 3.1); the entries where that bound
    exceeds ``_SQ_DIST_RTOL * scale`` and whose kernel value does not
    underflow (``D < 746 scale``) are recomputed from the differences
    ``x - y`` directly. On ordinary data (one cluster, anywhere) no entry
    needs it; data in several clusters far apart get their within-cluster
    entries recomputed.
    """
    c = P.mean(axis=0)
    Pc = P - c
    Qc = Pc if Q is P else Q - c
    p2 = np.einsum("ij,ij->i", Pc, Pc)
    q2 = p2 if Q is P else np.einsum("ij,ij->i", Qc, Qc)
    D = _expanded(Pc, Qc, p2, q2)
    gamma, limit = _rounding(P, scale)
    if p2.max(initial=0.0) + q2.max(initial=0.0) > limit:
        _recompute_inaccurate(D, P, Q, p2, q2, gamma, limit, scale)
    return D


def _expanded(Pc, Qc, p2, q2):
    """``max(0, |x|^2 + |y|^2 - 2 <x, y>)`` of centred rows with their
    squared norms ``p2``, ``q2``: one BLAS product (one BLAS thread when
    small: see :mod:`structk._threads`)."""
    D = small_matmul(Pc, Qc.T)
    D *= -2.0
    D += p2[:, None]
    D += q2[None, :]
    return np.maximum(D, 0.0, out=D)


def _rounding(P, scale):
    """``(gamma, limit)`` of :func:`_sq_dist`: the expansion's rounding is
    about ``gamma (|x|^2 + |y|^2)``, so entries with ``|x|^2 + |y|^2 >
    limit`` are recomputed from the differences."""
    gamma = 2.0 * (np.sqrt(P.shape[1]) + 2.0) * np.finfo(np.float64).eps
    return gamma, _SQ_DIST_RTOL * scale / gamma


def _exp_sq_dist_upper(P, scale, mirror=False):
    """The upper triangle of ``exp(-D / scale)`` for the squared distances
    ``D`` of the rows of ``P`` (the lower triangle zero: the base class
    mirrors it), a block of rows at a time: each block's distances and
    exponentials are computed in a buffer that stays in cache and written
    once, and only the upper triangle's. The same arithmetic as
    :func:`_sq_dist` followed by :meth:`Gaussian._from_sq_dist`; ``None``
    where :func:`_sq_dist` would recompute inaccurate entries (data far
    from their mean: the caller takes that path).

    With ``mirror``, returns ``(K, scan)`` instead: ``K`` whole (each block
    of rows copied onto the lower triangle right after it is written, while
    it is in cache: :func:`structk.algorithms.gram_blocks.exp_neg_sq_dist_mirrored`)
    and the :class:`~structk.algorithms.gram_blocks.GramScan` that
    :func:`~structk.algorithms.gram_blocks.mirror_and_scan` would return
    for it, the same entries and the sums grouped by row. The blocks' inner
    products are one BLAS product each, into one reused buffer, on one BLAS
    thread whatever ``n`` (deciding by the whole Gram's size left
    OpenBLAS's helper threads spinning through the compiled passes between
    the blocks: 1.7 times the CPU at n = 10,000), and the distances'
    arithmetic is one compiled pass
    (in :func:`~structk.algorithms.gram_blocks.exp_neg_sq_dist_mirrored`),
    not six NumPy passes.
    """
    n = P.shape[0]
    Pc = P - P.mean(axis=0)
    p2 = np.einsum("ij,ij->i", Pc, Pc)
    if 2.0 * p2.max(initial=0.0) > _rounding(P, scale)[1]:
        return None
    rows = _tuning.VECTOR_GRAM_BLOCK_ROWS
    if not mirror:
        K = np.zeros((n, n))
        for a in range(0, n, rows):
            b = min(a + rows, n)
            T = _expanded(Pc[a:b], Pc[a:], p2[a:b], p2[a:])
            T[np.arange(b - a), np.arange(b - a)] = 0.0
            T *= -1.0 / scale
            np.exp(T, out=K[a:b, a:])
        return K
    from ..algorithms.gram_blocks import exp_neg_sq_dist_mirrored

    return exp_neg_sq_dist_mirrored(Pc, p2, scale, rows, _tuning.VECTOR_GRAM_MIRROR_TILE)


def _recompute_inaccurate(D, P, Q, p2, q2, gamma, limit, scale, block=None):
    """Replace the entries of ``D`` whose rounding bound is too large by the
    directly computed ``sum_k (x_k - y_k)^2`` (see :func:`_sq_dist`)."""
    block = block or _tuning.DISTANCE_RECOMPUTE_BLOCK_ROWS
    for a in range(0, D.shape[0], block):
        b = min(a + block, D.shape[0])
        bound = gamma * (p2[a:b, None] + q2[None, :])
        rows, cols = np.nonzero((bound > limit * gamma) & (D[a:b] - bound < _UNDERFLOW * scale))
        chunk = max(1, _tuning.VECTOR_DIFF_CHUNK_ENTRIES // P.shape[1])
        for s in range(0, len(rows), chunk):
            i, j = rows[s : s + chunk] + a, cols[s : s + chunk]
            diff = P[i] - Q[j]
            D[i, j] = np.einsum("ij,ij->i", diff, diff)


class Laplace(_VectorKernel):
    """The Laplace kernel ``k(x, y) = exp(-||x - y||_1 / sigma)``.

    Uses the L1 (Manhattan) distance, so it is a product of one-dimensional
    Laplace kernels; equals ``sklearn.metrics.pairwise.laplacian_kernel``
    with ``gamma = 1 / sigma``.

    Parameters
    ----------
    sigma : float > 0, default 1.0
        Length scale.
    sigma_bounds : pair of float or "fixed", default (1e-5, 1e5)
        Range of ``sigma`` for a Gaussian process's optimiser (``"fixed"``:
        not optimised); see :mod:`structk.kernels.hyperparameters`.
    """

    _repr_always = ("sigma",)

    def __init__(
        self, sigma: float = 1.0, sigma_bounds: tuple[float, float] = DEFAULT_BOUNDS
    ) -> None:
        self.sigma = sigma
        self.sigma_bounds = sigma_bounds

    def _check_params(self):
        check_scalar(self.sigma, "sigma", lower=0, lower_inclusive=False)

    def _cross(self, P, Q):
        from scipy.spatial.distance import cdist

        D = cdist(P, Q, "cityblock")
        D *= -1.0 / float(self.sigma)
        return np.exp(D, out=D)

    def _diag(self, P):
        return np.ones(P.shape[0])

    def _own_hyperparameters(self):
        return [declare(self, "sigma")]

    def _gram_gradient(self, P):
        # d/dlog(sigma) of exp(-D1 / sigma) is K D1 / sigma
        from scipy.spatial.distance import cdist

        D = cdist(P, P, "cityblock")
        K = np.exp(-D / float(self.sigma))
        return own_gradient(self, K, {"sigma": lambda: K * D / float(self.sigma)})
