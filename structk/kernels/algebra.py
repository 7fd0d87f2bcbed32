"""Kernel algebra: the closure rules that build valid kernels from valid ones.

If ``k1`` and ``k2`` are positive semi-definite (PSD) kernels, so are

=====================  ====================================  ==================
expression             value                                  class
=====================  ====================================  ==================
``k1 + k2``            k1(x, y) + k2(x, y)                    :class:`Sum`
``k1 * k2``            k1(x, y) k2(x, y)  (Schur product)     :class:`Product`
``c * k`` (c >= 0)     c k(x, y)                              :class:`Scaled`
``k + c`` (c >= 0)     k(x, y) + c                            :class:`Constant`
``k ** p`` (int p>=1)  k(x, y)^p                              :class:`Power`
``Exp(k)``             exp(k(x, y))  (limit of polynomials)   :class:`Exp`
``Normalize(k)``       k(x, y) / sqrt(k(x, x) k(y, y))        :class:`Normalize`
``FunctionScaled``     f(x) k(x, y) f(y), any real f          :class:`FunctionScaled`
=====================  ====================================  ==================

The difference of two kernels, a negative multiple, a fractional power or
``log k`` are not kernels in general, and the operators refuse them.

Every composite is itself a :class:`~structk.kernels.base.Kernel`: it prints
as the expression that built it, nests, and exposes its parts' parameters
through ``get_params`` (``k1__sigma``, ``kernel__degree``, ...).

Exponentials are guarded: ``Exp(k)`` raises
:class:`~structk.exceptions.KernelOverflowError` when a value would exceed
float64, and ``Normalize`` evaluates kernels built from exponentials in log
space, ``exp(log k(x,y) - (log k(x,x) + log k(y,y)) / 2)``, so that
``Normalize(Exp(k))`` is finite whatever the size of ``k``.

References
----------
J. Shawe-Taylor and N. Cristianini, *Kernel Methods for Pattern Analysis*,
Cambridge University Press, 2004, Proposition 3.22 and Section 3.4.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_objects, check_scalar
from ..exceptions import KernelOverflowError
from .base import LOG_MAX, Features, Kernel, Objects, _is_number, _repr_value, _row_sq_norms
from .hyperparameters import DEFAULT_BOUNDS, declare, own_gradient


def _wrap(kernel, precedence):
    text = repr(kernel)
    return f"({text})" if kernel._precedence < precedence else text


def _check_kernel(value, name):
    if not isinstance(value, Kernel):
        raise TypeError(
            f"{name} must be a structk Kernel, got {type(value).__name__}; wrap a "
            "Python function with structk.kernels.FunctionKernel"
        )


class _Binary(Kernel):
    """Shared plumbing of :class:`Sum` and :class:`Product`."""

    _symbol: str  # the operator, set by Sum and Product
    _closed_form = True  # when both parts are (learners._base.closed_form_gram)

    def __init__(self, k1: Kernel, k2: Kernel) -> None:
        self.k1 = k1
        self.k2 = k2

    def _check_params(self):
        _check_kernel(self.k1, "k1")
        _check_kernel(self.k2, "k2")

    @property
    def _has_log_form(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.k1._has_log_form or self.k2._has_log_form

    def _prepare(self, X, name):
        return self._prepare_with(X, name, {})

    def _prepare_with(self, X, name, encodings):
        X = check_objects(X, name)
        return (
            self.k1._prepare_with(X, name, encodings),
            self.k2._prepare_with(X, name, encodings),
        )

    def _check_pair(self, P, Q):
        self.k1._check_pair(P[0], Q[0])
        self.k2._check_pair(P[1], Q[1])

    def _take(self, P, index):
        return self.k1._take(P[0], index), self.k2._take(P[1], index)

    def _gram(self, P):
        return self._op(self.k1._gram(P[0]), self.k2._gram(P[1]))

    def _cross(self, P, Q):
        return self._op(self.k1._cross(P[0], Q[0]), self.k2._cross(P[1], Q[1]))

    def _diag(self, P):
        return self._op(self.k1._diag(P[0]), self.k2._diag(P[1]))

    def _log_gram(self, P):
        return self._log_op(self.k1._log_gram(P[0]), self.k2._log_gram(P[1]))

    def _log_cross(self, P, Q):
        return self._log_op(self.k1._log_cross(P[0], Q[0]), self.k2._log_cross(P[1], Q[1]))

    def _log_diag(self, P):
        return self._log_op(self.k1._log_diag(P[0]), self.k2._log_diag(P[1]))

    def _signed_log_gram(self, P):
        return self._signed_op(self.k1._signed_log_gram(P[0]), self.k2._signed_log_gram(P[1]))

    def _signed_log_cross(self, P, Q):
        return self._signed_op(
            self.k1._signed_log_cross(P[0], Q[0]), self.k2._signed_log_cross(P[1], Q[1])
        )

    def _signed_log_diag(self, P):
        return self._signed_op(self.k1._signed_log_diag(P[0]), self.k2._signed_log_diag(P[1]))

    def __repr__(self) -> str:
        p = self._precedence
        return f"{_wrap(self.k1, p)} {self._symbol} {_wrap(self.k2, p + 1)}"

    def _hyperparameter_parts(self):
        return [("k1", self.k1), ("k2", self.k2)]


class Sum(_Binary):
    """Sum of two kernels, ``k1(x, y) + k2(x, y)``; written ``k1 + k2``.

    Its feature map is the concatenation of the two feature maps.
    """

    _precedence = 1
    _symbol = "+"

    @staticmethod
    def _op(a, b):
        return a + b

    @staticmethod
    def _log_op(a, b):
        return np.logaddexp(a, b)

    @staticmethod
    def _signed_op(a, b):
        return _signed_logaddexp(*a, *b)

    def _gram_gradient(self, P):
        K1, dK1 = self.k1._gram_gradient(P[0])
        K2, dK2 = self.k2._gram_gradient(P[1])
        return K1 + K2, np.concatenate([dK1, dK2], axis=2)

    @property
    def has_features(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.k1.has_features and self.k2.has_features

    @property
    def fixed_feature_columns(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.k1.fixed_feature_columns and self.k2.fixed_feature_columns

    def _features(self, P):
        F1, F2 = self.k1._features(P[0]), self.k2._features(P[1])
        if hasattr(F1, "tocsr") or hasattr(F2, "tocsr"):
            import scipy.sparse as sp

            return sp.hstack([sp.csr_matrix(F1), sp.csr_matrix(F2)], format="csr")
        return np.hstack([F1, F2])


class Product(_Binary):
    """Pointwise (Schur) product ``k1(x, y) * k2(x, y)``; written ``k1 * k2``.

    Valid by the Schur product theorem. The feature map would be the tensor
    product of the two, usually too large to build, so none is exposed.
    """

    _precedence = 2
    _symbol = "*"

    @staticmethod
    def _op(a, b):
        return a * b

    @staticmethod
    def _log_op(a, b):
        return a + b

    @staticmethod
    def _signed_op(a, b):
        return a[0] * b[0], a[1] + b[1]

    def _gram_gradient(self, P):
        K1, dK1 = self.k1._gram_gradient(P[0])
        K2, dK2 = self.k2._gram_gradient(P[1])
        return K1 * K2, np.concatenate([dK1 * K2[:, :, None], K1[:, :, None] * dK2], axis=2)


class _Unary(Kernel):
    """A kernel computed from one inner ``kernel`` on the same prepared data."""

    kernel: Kernel  # set by each subclass's constructor
    _closed_form = True  # when the inner kernel is (learners._base.closed_form_gram)

    def _check_params(self):
        _check_kernel(self.kernel, "kernel")

    def _prepare(self, X, name):
        return self.kernel._prepare(X, name)

    def _prepare_with(self, X, name, encodings):
        return self.kernel._prepare_with(X, name, encodings)

    def _check_pair(self, P, Q):
        self.kernel._check_pair(P, Q)

    def _take(self, P, index):
        return self.kernel._take(P, index)

    def _hyperparameter_parts(self):
        return [("kernel", self.kernel)]


class _SameColumns(_Unary):
    """A kernel whose features are the inner kernel's, each rescaled: the
    same columns, so the same feature properties and keys."""

    @property
    def has_features(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel.has_features

    @property
    def fixed_feature_columns(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel.fixed_feature_columns

    # the part's columns, rescaled
    @property
    def keyed_feature_columns(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel.keyed_feature_columns

    def _feature_keys(self, P):
        return self.kernel._feature_keys(P)


class Scaled(_SameColumns):
    """A kernel times a non-negative constant, ``factor * k(x, y)``.

    Written ``c * k``; a negative factor raises ``ValueError`` since
    ``-k`` is not positive semi-definite. ``factor_bounds`` (a pair, or
    ``"fixed"``) is its range for a Gaussian process's optimiser: the
    output scale (:mod:`structk.kernels.hyperparameters`).
    """

    _precedence = 2

    def __init__(
        self, kernel: Kernel, factor: float, factor_bounds: tuple[float, float] = DEFAULT_BOUNDS
    ) -> None:
        self.kernel = kernel
        self.factor = factor
        self.factor_bounds = factor_bounds

    def _check_params(self):
        _check_kernel(self.kernel, "kernel")
        if not _is_number(self.factor):
            raise TypeError(f"scale factor must be a real number, got {self.factor!r}")
        if not (self.factor >= 0 and np.isfinite(self.factor)):
            raise ValueError(
                f"scale factor must be finite and >= 0 to keep the kernel "
                f"positive semi-definite, got {self.factor!r}"
            )

    @property
    def _has_log_form(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel._has_log_form

    def _features(self, P):
        return np.sqrt(float(self.factor)) * self.kernel._features(P)

    def _gram(self, P):
        return float(self.factor) * self.kernel._gram(P)

    def _cross(self, P, Q):
        return float(self.factor) * self.kernel._cross(P, Q)

    def _diag(self, P):
        return float(self.factor) * self.kernel._diag(P)

    def _log_gram(self, P):
        return _log_factor(self.factor) + self.kernel._log_gram(P)

    def _log_cross(self, P, Q):
        return _log_factor(self.factor) + self.kernel._log_cross(P, Q)

    def _log_diag(self, P):
        return _log_factor(self.factor) + self.kernel._log_diag(P)

    def _signed_log_gram(self, P):
        return self._scaled(self.kernel._signed_log_gram(P))

    def _signed_log_cross(self, P, Q):
        return self._scaled(self.kernel._signed_log_cross(P, Q))

    def _signed_log_diag(self, P):
        return self._scaled(self.kernel._signed_log_diag(P))

    def _scaled(self, signed):
        sign, L = signed
        return sign * (float(self.factor) > 0), _log_factor(self.factor) + L

    def _own_hyperparameters(self):
        return [declare(self, "factor")]

    def _gram_gradient(self, P):
        c = float(self.factor)
        K, dK = self.kernel._gram_gradient(P)
        K, own = own_gradient(self, c * K, {"factor": lambda: c * K})
        return K, np.concatenate([own, c * dK], axis=2)

    def __repr__(self) -> str:
        return f"{_repr_value(self.factor)} * {_wrap(self.kernel, 2)}"


def _log_factor(c):
    with np.errstate(divide="ignore"):
        return np.log(float(c))


class Constant(Kernel):
    """The constant kernel ``k(x, y) = value`` (``value >= 0``).

    Arises from ``k + c``; its feature map is the single feature ``sqrt(value)``.
    Works on any objects. ``value_bounds`` (a pair, or ``"fixed"``) is its
    range for a Gaussian process's optimiser
    (:mod:`structk.kernels.hyperparameters`).
    """

    has_features = True
    _closed_form = True

    def __init__(
        self, value: float = 1.0, value_bounds: tuple[float, float] = DEFAULT_BOUNDS
    ) -> None:
        self.value = value
        self.value_bounds = value_bounds

    def _check_params(self):
        check_scalar(self.value, "value", lower=0)

    def _prepare(self, X, name):
        X = check_objects(X, name)
        return X.shape[0] if hasattr(X, "shape") else len(X)

    def _take(self, n, index):
        if isinstance(index, slice):
            return len(range(n)[index])
        return len(index)

    def _features(self, n):
        return np.full((n, 1), np.sqrt(float(self.value)))

    def _cross(self, n, m):
        return np.full((n, m), float(self.value))

    def _gram(self, n):
        return self._cross(n, n)

    def _diag(self, n):
        return np.full(n, float(self.value))

    def _own_hyperparameters(self):
        return [declare(self, "value")]

    def _gram_gradient(self, n):
        K = self._gram(n)
        return own_gradient(self, K, {"value": lambda: K})

    def __repr__(self) -> str:
        return _repr_value(self.value)


class Power(_Unary):
    """A kernel to a positive integer power, ``k(x, y) ** exponent``.

    Written ``k ** p``. Valid as a repeated Schur product; fractional powers
    are refused since they do not preserve positive semi-definiteness.
    """

    _precedence = 3

    def __init__(self, kernel: Kernel, exponent: int) -> None:
        self.kernel = kernel
        self.exponent = exponent

    def _check_params(self):
        _check_kernel(self.kernel, "kernel")
        if (
            isinstance(self.exponent, bool)
            or not _is_number(self.exponent)
            or (not float(self.exponent).is_integer())
        ):
            raise ValueError(
                f"kernel exponent must be an integer >= 1, got {self.exponent!r} "
                "(fractional powers of a kernel need not be positive semi-definite)"
            )
        check_scalar(self.exponent, "exponent", lower=1, integer=True)

    @property
    def _has_log_form(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel._has_log_form

    def _gram(self, P):
        return self.kernel._gram(P) ** int(self.exponent)

    def _cross(self, P, Q):
        return self.kernel._cross(P, Q) ** int(self.exponent)

    def _diag(self, P):
        return self.kernel._diag(P) ** int(self.exponent)

    def _log_gram(self, P):
        return int(self.exponent) * self.kernel._log_gram(P)

    def _log_cross(self, P, Q):
        return int(self.exponent) * self.kernel._log_cross(P, Q)

    def _log_diag(self, P):
        return int(self.exponent) * self.kernel._log_diag(P)

    def _signed_log_gram(self, P):
        return self._powered(self.kernel._signed_log_gram(P))

    def _signed_log_cross(self, P, Q):
        return self._powered(self.kernel._signed_log_cross(P, Q))

    def _signed_log_diag(self, P):
        return self._powered(self.kernel._signed_log_diag(P))

    def _powered(self, signed):
        sign, L = signed
        p = int(self.exponent)
        return sign**p, p * L

    def _gram_gradient(self, P):
        p = int(self.exponent)
        K, dK = self.kernel._gram_gradient(P)
        lower = K ** (p - 1)
        return lower * K, (p * lower)[:, :, None] * dK

    def __repr__(self) -> str:
        return f"{_wrap(self.kernel, 4)} ** {self.exponent!r}"


def exp_checked(L: ArrayLike, kernel: object) -> NDArray[np.float64]:
    """``exp(L)`` elementwise, raising a clear error instead of overflowing.

    Parameters
    ----------
    L : ndarray
        The exponents (values of the inner kernel).
    kernel : Kernel
        The exponentiated kernel, named in the error message.
    """
    E = np.asarray(L, dtype=np.float64)
    if E.size and np.nanmax(E) > LOG_MAX:
        idx = tuple(int(i) for i in np.unravel_index(int(np.nanargmax(E)), E.shape))
        where = f"entry {idx}" if len(idx) == 2 else f"object {idx[0]}"
        raise KernelOverflowError(
            f"{kernel!r} overflows float64 at {where}: exp({E[idx]:.6g}) exceeds "
            f"the largest float64 (exp({LOG_MAX:.2f})). Use Normalize({kernel!r}), "
            "which is computed in log space, or scale the inner kernel down."
        )
    return np.exp(E)


class LogForm:
    """Mixin for kernels whose values are exponentials: ``_log_gram``,
    ``_log_cross`` and ``_log_diag`` define them (``Normalize`` uses these
    directly, in log space); the values are their exponentials, with
    :class:`~structk.exceptions.KernelOverflowError` instead of ``inf``.
    List it before the kernel base class."""

    _has_log_form = True

    def _gram(self, P):
        return exp_checked(self._log_gram(P), self)

    def _cross(self, P, Q):
        return exp_checked(self._log_cross(P, Q), self)

    def _diag(self, P):
        return exp_checked(self._log_diag(P), self)


class Exp(LogForm, _Unary):
    """The exponential of a kernel, ``exp(k(x, y))``.

    Valid as the limit of polynomials in ``k`` with non-negative
    coefficients. For ``exp(s * k)`` write ``Exp(s * k)``.

    Values above ``exp(709.78)`` do not fit in float64: instead of returning
    ``inf`` the kernel raises :class:`~structk.exceptions.KernelOverflowError`.
    ``Normalize(Exp(k))`` never overflows: it is computed in log space.
    """

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def _log_gram(self, P):
        return np.asarray(self.kernel._gram(P), dtype=np.float64)

    def _log_cross(self, P, Q):
        return np.asarray(self.kernel._cross(P, Q), dtype=np.float64)

    def _log_diag(self, P):
        return np.asarray(self.kernel._diag(P), dtype=np.float64)

    def __repr__(self) -> str:
        return f"Exp({self.kernel!r})"

    def _gram_gradient(self, P):
        L, dL = self.kernel._gram_gradient(P)
        K = exp_checked(L, self)
        return K, K[:, :, None] * dL

    def _normalised_exponent(self, P, Q):
        """``k(x, y) - k(x, x) / 2 - k(y, y) / 2 = -|phi(x) - phi(y)|^2 / 2``
        (``Q=None``: within ``P``), the logarithm of ``Normalize(Exp(k))``.

        From the inner kernel's dense features when it has them (the
        squared distances computed accurately, see
        :func:`structk.kernels.vectors._sq_dist`), so that it stays exact
        however large ``k(x, x)`` is; otherwise from the inner values.
        """
        from .vectors import _sq_dist

        inner = self.kernel
        if inner.has_features:
            F = inner._features(P)
            G = F if Q is None else inner._features(Q)
            if not (hasattr(F, "tocsr") or hasattr(G, "tocsr")):
                F, G = np.asarray(F, dtype=np.float64), np.asarray(G, dtype=np.float64)
                D = _sq_dist(F, F if Q is None else G, 2.0)
                if Q is None:
                    np.fill_diagonal(D, 0.0)
                return -0.5 * D
        L = np.asarray(inner._gram(P) if Q is None else inner._cross(P, Q), dtype=np.float64)
        dx = np.asarray(inner._diag(P), dtype=np.float64)
        dy = dx if Q is None else np.asarray(inner._diag(Q), dtype=np.float64)
        return L - 0.5 * dx[:, None] - 0.5 * dy[None, :]


class Normalize(_SameColumns):
    """Cosine normalisation, ``k(x, y) / sqrt(k(x, x) k(y, y))``.

    Every object with ``k(x, x) > 0`` gets unit norm in feature space.
    An object with ``k(x, x) = 0`` has the zero feature vector; its
    normalised feature vector is defined as zero too, so its row and column
    of the normalised Gram matrix (diagonal included) are 0. This keeps the
    result a valid kernel and never produces NaN.

    Kernels built from exponentials (:class:`Exp`, ``ExpIntersection``, and
    sums, products, powers and multiples of them) are normalised in log
    space, so the result is finite even where the unnormalised values would
    overflow.
    """

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def _features(self, P):
        return normalized_features(self.kernel._features(P))

    def __repr__(self) -> str:
        return f"Normalize({self.kernel!r})"

    def _diag(self, P):
        return normalized_diag(self.kernel._diag(P))

    def _gram(self, P):
        # the inner kernel is evaluated once: k(x, x) is the Gram's diagonal
        if not self.kernel._has_log_form:
            K = normalized_gram(self.kernel._gram(P))
            _warn_if_identity(self, K)
            return K
        if isinstance(self.kernel, Exp):
            K = np.exp(self.kernel._normalised_exponent(P, None))
            nonzero = np.ones(K.shape[0], dtype=bool)
        else:
            sign, L = self.kernel._signed_log_gram(P)
            ld = np.diag(L).copy()
            K = sign * _normalised_from_logs(L, ld, ld)
            nonzero = np.isfinite(ld)
        np.fill_diagonal(K, nonzero.astype(np.float64))
        _warn_if_identity(self, K)
        return K

    def _gram_gradient(self, P):
        return normalized_gradient(*self.kernel._gram_gradient(P))

    def _cross(self, P, Q):
        if self.kernel._has_log_form:
            if isinstance(self.kernel, Exp):
                return np.exp(self.kernel._normalised_exponent(P, Q))
            sign, L = self.kernel._signed_log_cross(P, Q)
            return sign * _normalised_from_logs(
                L, self.kernel._signed_log_diag(P)[1], self.kernel._signed_log_diag(Q)[1]
            )
        return normalized_cross(
            self.kernel._cross(P, Q), self.kernel._diag(P), self.kernel._diag(Q)
        )


def normalized_gradient(
    Ki: NDArray[np.float64], dKi: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(K, dK)`` of the cosine-normalised Gram from the Gram ``Ki`` and
    its derivatives ``dKi`` (n, n, p): ``K = K'_ij s_i s_j`` with ``s =
    d^-1/2``, ``d = diag K'``, so ``dK = dK' s_i s_j - K (r_i + r_j) / 2``
    with ``r = d(d) / d`` (0 for an object of zero norm)."""
    s = _inv_sqrt(np.diag(Ki).copy())
    K = normalized_gram(Ki.copy())
    r = np.einsum("iip->ip", dKi) * (s * s)[:, None]
    dK = dKi * (s[:, None] * s[None, :])[:, :, None]
    dK -= 0.5 * K[:, :, None] * (r[:, None, :] + r[None, :, :])
    idx = np.arange(K.shape[0])
    dK[idx, idx, :] = 0.0  # the normalised diagonal is constant
    return K, dK


# cosine normalisation of values already computed (Normalize's and the
# ``normalize=True`` flags' arithmetic, outside log space)
def normalized_gram(K: ArrayLike) -> NDArray[np.float64]:
    """``K[i, j] / sqrt(K[i, i] K[j, j])``, with zero rows and columns (unit
    diagonal excepted: 0 there too) for objects of zero norm."""
    N = np.asarray(K, dtype=np.float64)
    d = np.diag(N).copy()
    s = _inv_sqrt(d)
    if not (N.flags.owndata and N.flags.writeable):
        N = N.copy()  # never scale an array the inner kernel may hold
    N *= s[:, None]  # in place: no n x n temporary
    N *= s[None, :]
    np.fill_diagonal(N, (d > 0).astype(np.float64))
    return N


def normalized_cross(K: NDArray[np.float64], dx: ArrayLike, dy: ArrayLike) -> NDArray[np.float64]:
    """``K[i, j] / sqrt(dx[i] dy[j])`` (0 where a norm is 0)."""
    return K * _inv_sqrt(dx)[:, None] * _inv_sqrt(dy)[None, :]


def normalized_diag(d: ArrayLike) -> NDArray[np.float64]:
    """The normalised diagonal: 1, or 0 for an object of zero norm."""
    return (np.asarray(d, dtype=np.float64) > 0).astype(np.float64)


def normalized_features(F: Features) -> Features:
    """Rows of a feature matrix (dense or sparse) scaled to unit norm (zero
    rows stay zero)."""
    scale = _inv_sqrt(_row_sq_norms(F))  # k(x, x), from the same features
    if hasattr(F, "tocsr"):
        # rows scaled in a copy, not by a sparse product (whose work arrays
        # are as long as the column space: 2^62 for WeisfeilerLehman)
        F = F.tocsr().astype(np.float64, copy=True)
        F.data *= np.repeat(scale, np.diff(F.indptr))
        return F
    return F * scale[:, None]


#: A normalised Gram is "numerically the identity" for a learner when, for
#: the median object, all the other objects together have a similarity
#: ``sum_j |K[i, j]|`` (j != i) below ``IDENTITY_ROW_MASS``: a kernel machine
#: ``f(x_i) = sum_j a_j K[i, j]`` (dual weights ``|a_j| <= 1`` on the scale of
#: the unit diagonal) then takes less than this fraction of the typical
#: object's value from any other object, so it can learn nothing about half
#: of its objects from the rest.
IDENTITY_ROW_MASS = 1e-3


def _warn_if_identity(kernel, K):
    """Warn (UserWarning naming the kernel) when the normalised Gram ``K`` is
    numerically the identity for a learner (:data:`IDENTITY_ROW_MASS`): the
    typical object is similar to itself only. The normalised local alignment
    kernel of proteins (unrelated pairs around 1e-100, only close homologs
    above 1e-8) is the common case; a few near-identical objects do not hide
    it, as they did for a test on the fraction of objects without any
    neighbour."""
    n = K.shape[0]
    if n < 4:
        return
    mass = np.empty(n)  # sum of |off-diagonal values| of each row, by row blocks
    top = np.empty(n)
    step = max(1, 65536 // n)
    for start in range(0, n, step):
        A = np.abs(K[start : start + step])
        rows = np.arange(A.shape[0])
        A[rows, start + rows] = 0.0
        mass[start : start + step] = A.sum(axis=1)
        top[start : start + step] = A.max(axis=1)
    typical = float(np.median(mass))
    if not typical < IDENTITY_ROW_MASS:
        return
    import warnings

    alone = int(np.count_nonzero(mass < IDENTITY_ROW_MASS))
    hint = ""
    if type(getattr(kernel, "kernel", kernel)).__name__ == "LocalAlignment":
        hint = (
            " For proteins use the logarithm of the LA kernel, normalised by the "
            "self-scores and repaired on the training data: SpectrumRepair("
            "LocalAlignment(beta=...).log_kernel, normalize=True) (Saigo et al. "
            "2004; docs/strings.md)."
        )
    warnings.warn(
        f"{kernel!r}: the Gram matrix is numerically the identity for a learner "
        f"({alone} of {n} objects have a total similarity to all the others below "
        f"{IDENTITY_ROW_MASS:g}, the median object {typical:.3g}; largest off-diagonal "
        f"value {top.max():.3g}): most objects are similar only to themselves, and a "
        "learner cannot generalise from them. Lower the kernel's scale parameter, or "
        f"compare objects on a log scale.{hint}",
        UserWarning,
        stacklevel=_caller_stacklevel(),
    )


def _caller_stacklevel():
    """The ``stacklevel`` at which ``warnings.warn``, called by the caller of
    this function, names the first frame outside structk (the user's line,
    however deep in structk the Gram was computed); 2 when the whole stack
    is structk's (a worker thread)."""
    import os
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(2), 2  # the frame that called warn's caller
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(package):
            return level
        frame, level = frame.f_back, level + 1
    return 2


def _signed_logaddexp(sa, a, sb, b):
    """``(sign, log|.|)`` of ``sa e^a + sb e^b``, without leaving log space."""
    with np.errstate(invalid="ignore", over="ignore"):
        hi = np.maximum(a, b)
        gap = -np.abs(a - b)  # <= 0; NaN when both are -inf
        same = sa * sb >= 0
        L = np.where(same, hi + np.log1p(np.exp(gap)), hi + np.log1p(-np.exp(gap)))
        sign = np.where(a >= b, sa, sb)
        sign = np.where(sa == 0, sb, np.where(sb == 0, sa, sign))
        L = np.where(np.isnan(L) | np.isneginf(L), -np.inf, L)
    return np.where(np.isneginf(L), 0.0, sign), L


def _inv_sqrt(d):
    d = np.asarray(d, dtype=np.float64)
    out = np.zeros_like(d)
    pos = d > 0
    out[pos] = 1.0 / np.sqrt(d[pos])
    return out


def _normalised_from_logs(L, lx, ly):
    """``exp(L - (lx + ly) / 2)`` with zero where a norm is zero (log = -inf)."""
    L = np.asarray(L, dtype=np.float64)
    lx = np.asarray(lx, dtype=np.float64)
    ly = np.asarray(ly, dtype=np.float64)
    ok_x, ok_y = np.isfinite(lx), np.isfinite(ly)
    lx = np.where(ok_x, lx, 0.0)
    ly = np.where(ok_y, ly, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        K = np.exp(L - 0.5 * lx[:, None] - 0.5 * ly[None, :])
    K[~ok_x, :] = 0.0
    K[:, ~ok_y] = 0.0
    return K


class FunctionScaled(Kernel):
    """A kernel rescaled by a function of each argument, ``f(x) k(x, y) f(y)``.

    Valid for any real-valued ``f``: the feature map is ``f(x) phi(x)``.
    :class:`Normalize` is the special case ``f(x) = k(x, x) ** -0.5``.

    Parameters
    ----------
    kernel : Kernel
    func : callable
        Maps one object to a finite real number.
    """

    def __init__(self, kernel: Kernel, func: Callable[[Any], float]) -> None:
        self.kernel = kernel
        self.func = func

    def _check_params(self):
        _check_kernel(self.kernel, "kernel")
        if not callable(self.func):
            raise TypeError(f"func must be callable, got {self.func!r}")

    @property
    def has_features(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel.has_features

    @property
    def fixed_feature_columns(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel.fixed_feature_columns

    def _prepare(self, X, name):
        return self._prepare_with(X, name, {})

    def _prepare_with(self, X, name, encodings):
        X = check_objects(X, name)
        f = np.empty(len(X), dtype=np.float64)
        for i, x in enumerate(X):
            try:
                value = float(self.func(x))
            except Exception as exc:
                raise ValueError(f"func({name}[{i}]) failed: {type(exc).__name__}: {exc}") from exc
            if not np.isfinite(value):
                raise ValueError(f"func({name}[{i}]) returned {value}")
            f[i] = value
        return self.kernel._prepare_with(X, name, encodings), f

    def _check_pair(self, P, Q):
        self.kernel._check_pair(P[0], Q[0])

    def _take(self, P, index):
        return self.kernel._take(P[0], index), P[1][index]

    def _features(self, P):
        F = self.kernel._features(P[0])
        if hasattr(F, "tocsr"):
            import scipy.sparse as sp

            return sp.diags(P[1]) @ F.tocsr()
        return F * P[1][:, None]

    def _gram(self, P):
        return self.kernel._gram(P[0]) * P[1][:, None] * P[1][None, :]

    def _cross(self, P, Q):
        return self.kernel._cross(P[0], Q[0]) * P[1][:, None] * Q[1][None, :]

    def _diag(self, P):
        return self.kernel._diag(P[0]) * P[1] ** 2

    def _hyperparameter_parts(self):
        return [("kernel", self.kernel)]

    def _gram_gradient(self, P):
        K, dK = self.kernel._gram_gradient(P[0])
        ff = P[1][:, None] * P[1][None, :]
        return K * ff, dK * ff[:, :, None]


class Part(_SameColumns):
    """A kernel on one part of each object, ``k(x[key], y[key])``.

    The objects are containers of several representations of the same thing
    (a dict such as ``{"graph": g, "morgan": counts, "descriptors": v}``,
    a tuple, any object indexable by ``key``); ``Part(k, key)`` applies
    ``k`` to the parts ``key``. It is a kernel whenever ``k`` is (a kernel
    composed with the map ``x -> x[key]``). A sum of parts with a learned
    weight each, ``1.0 * Part(k1, "a") + 1.0 * Part(k2, "b")``, combines
    kernels on different representations, their weights (and the parts'
    own hyperparameters) learned by a Gaussian process's marginal
    likelihood: multiple kernel learning (Lanckriet et al. 2004; by the
    marginal likelihood, Rasmussen & Williams 2006, Section 5.4.1).

    Parameters
    ----------
    kernel : Kernel
        The kernel of the parts.
    key : hashable
        What each object is indexed by: ``x[key]`` (a dict key, a tuple
        position).

    Notes
    -----
    Parts with the same ``key`` whose kernels read objects the same way
    (graph kernels with one labelling, string kernels over one alphabet)
    share that reading, as the parts of any sum do.

    References
    ----------
    G. R. G. Lanckriet, N. Cristianini, P. Bartlett, L. El Ghaoui and
    M. I. Jordan, "Learning the kernel matrix with semidefinite
    programming", *JMLR* 5, 2004.

    C. E. Rasmussen and C. K. I. Williams, *Gaussian Processes for Machine
    Learning*, MIT Press, 2006.

    Examples
    --------
    >>> from structk.kernels import Gaussian, MinMax, Part
    >>> molecules = [{"counts": {"C": 2, "O": 1}, "logp": [-0.1]},
    ...              {"counts": {"C": 3, "O": 1}, "logp": [0.3]}]
    >>> k = 1.0 * Part(MinMax(), "counts") + 0.5 * Part(Gaussian(sigma=1.0), "logp")
    >>> k(molecules).round(3)
    array([[1.5  , 1.212],
           [1.212, 1.5  ]])
    """

    def __init__(self, kernel: Kernel, key: Any) -> None:
        self.kernel = kernel
        self.key = key

    def __repr__(self) -> str:
        return f"Part({self.kernel!r}, {self.key!r})"

    def _check_params(self):
        _check_kernel(self.kernel, "kernel")
        try:
            hash(self.key)
        except TypeError:
            raise TypeError(
                f"Part: key must be hashable (a dict key or a position), got "
                f"{type(self.key).__name__} {self.key!r}"
            ) from None

    def _parts(self, X, name):
        """``x[key]`` of every object, with an error naming the one that has none."""
        X = check_objects(X, name)
        parts = []
        for i, x in enumerate(X):
            try:
                parts.append(x[self.key])
            except (KeyError, IndexError, TypeError) as exc:
                raise ValueError(
                    f"Part: {name}[{i}] has no part {self.key!r} "
                    f"({type(exc).__name__}: {exc}); every object must hold "
                    f"x[{self.key!r}] (a {type(x).__name__} was given)"
                ) from None
        return parts

    def _sub_name(self, name):
        # the inner kernel's errors name "part 'graph' of X[3]"
        return f"part {self.key!r} of {name}"

    def fit(self, X: Objects, y: Any = None) -> Part:
        """Fit the inner kernel on the parts ``x[key]`` of ``X``."""
        self._check_params()
        self.kernel.fit(self._parts(X, "X"), y)
        return self

    def _prepare(self, X, name):
        return self._prepare_with(X, name, {})

    def _prepare_with(self, X, name, encodings):
        # the inner kernels of parts with the same key share their readings
        shared = encodings.setdefault(("Part", self.key), {})
        return self.kernel._prepare_with(self._parts(X, name), self._sub_name(name), shared)

    @property
    def _has_log_form(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.kernel._has_log_form

    def _features(self, P):
        return self.kernel._features(P)

    def _gram(self, P):
        return self.kernel._gram(P)

    def _cross(self, P, Q):
        return self.kernel._cross(P, Q)

    def _diag(self, P):
        return self.kernel._diag(P)

    def _log_gram(self, P):
        return self.kernel._log_gram(P)

    def _log_cross(self, P, Q):
        return self.kernel._log_cross(P, Q)

    def _log_diag(self, P):
        return self.kernel._log_diag(P)

    def _signed_log_gram(self, P):
        return self.kernel._signed_log_gram(P)

    def _signed_log_cross(self, P, Q):
        return self.kernel._signed_log_cross(P, Q)

    def _signed_log_diag(self, P):
        return self.kernel._signed_log_diag(P)

    def _gram_gradient(self, P):
        return self.kernel._gram_gradient(P)
