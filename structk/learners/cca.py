"""Regularised kernel canonical correlation analysis."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._threads import small_blas
from .._validation import check_scalar
from ._base import _check_kernel, n_objects
from .centering import KernelCenterer


class KernelCCA(BaseEstimator):
    r"""Regularised kernel CCA of two views of the same objects.

    Given paired objects ``(x_i, y_i)`` (two views of one thing: a sequence
    and its annotation, a molecule's graph and its fingerprint, two kernels
    on the same strings), find functions ``f = sum_i a_i k_x(x_i, .)`` and
    ``g = sum_i b_i k_y(y_i, .)`` whose values on the training objects are
    as correlated as possible. With centred Grams ``K_x``, ``K_y`` and
    ``r = n * reg / 2``, the first canonical correlation is

    ``rho = max a^T K_x K_y b / sqrt(a^T (K_x + r I)^2 a * b^T (K_y + r I)^2 b)``.

    Without ``reg`` the problem is degenerate (any two views of distinct
    objects are perfectly correlated once the Grams are invertible);
    ``(K + r I)^2 = K^2 + 2 r K + r^2 I`` adds, up to the ``r^2`` term, the
    squared RKHS norm of ``f`` (weighted by ``reg``) to its empirical
    variance (Bach and Jordan 2002). Later pairs maximise the same ratio
    subject to being uncorrelated (in the regularised inner products) with
    the earlier ones.

    The problem is solved exactly: with ``u = (K_x + r I) a`` and
    ``v = (K_y + r I) b`` it becomes the singular value decomposition of
    ``(K_x + r I)^{-1} K_x K_y (K_y + r I)^{-1}``, computed from one
    eigendecomposition of each Gram.

    Parameters
    ----------
    kernel_x, kernel_y : Kernel, "precomputed" or None, default=None
        The kernel of each view; ``None`` takes ``kernel``. With
        "precomputed", ``fit`` takes that view's square Gram and
        ``transform`` its cross-Gram ``(n_test, n_train)``.
    kernel : Kernel or "precomputed", default="precomputed"
        The kernel of a view whose own kernel (``kernel_x``, ``kernel_y``) is
        left at ``None``: ``KernelCCA(kernel=k)`` uses ``k`` for both views,
        as every other learner's ``kernel``. Giving it beside both view
        kernels is refused (it would be unused).
    n_components : int, default=2
        Number of canonical pairs (at most the number of training objects).
    reg : float, default=0.1
        Regularisation ``kappa > 0`` of Bach and Jordan: each view's
        regularised variance is ``(1/n) a^T (K + n kappa / 2 I)^2 a``.
        Its scale is that of the kernel values: with normalised kernels
        (``k(x, x) = 1``) values between 1e-3 and 1 are sensible.
    psd_check : {"auto", "full", "none"}, default="auto"
        As the learners (:mod:`structk.learners._psd`), for each view.

    Attributes
    ----------
    canonical_correlations_ : ndarray (n_components,)
        The regularised canonical correlations ``rho_j``, decreasing.
    x_dual_coef_, y_dual_coef_ : ndarray (n_train, n_components)
        Coefficients ``a_j``, ``b_j``, scaled so that each regularised
        variance ``(1/n) a^T (K_x + r I)^2 a`` is 1.
    x_centerer_, y_centerer_ : KernelCenterer
        Each view's kernel (``kernel_x`` or ``kernel``, ``kernel_y`` or
        ``kernel``) and training means (they centre test cross-Grams).
    n_train_ : int

    Examples
    --------
    >>> from structk import Normalize, Spectrum, WeightedDegree
    >>> from structk.learners import KernelCCA
    >>> X = ["ACGTAC", "ACGTTT", "GGGCCA", "GGGCCC", "TTTAAA", "TTTAAC"]
    >>> cca = KernelCCA(Normalize(Spectrum(k=2)), Normalize(WeightedDegree(d=3)),
    ...                 n_components=1, reg=0.1).fit(X, X)
    >>> cca.transform(X, X)[0].shape
    (6, 1)

    One kernel for both views (two measurements of the same objects):

    >>> same = KernelCCA(kernel=Normalize(Spectrum(k=2)), n_components=1).fit(X, X[::-1])
    >>> same.x_centerer_.kernel is same.y_centerer_.kernel
    True

    References
    ----------
    F. R. Bach and M. I. Jordan, "Kernel independent component analysis",
    Journal of Machine Learning Research 3 (2002) 1-48.
    D. R. Hardoon, S. Szedmak and J. Shawe-Taylor, "Canonical correlation
    analysis: an overview with application to learning methods", Neural
    Computation 16 (2004) 2639-2664.
    """

    def __init__(
        self,
        kernel_x=None,
        kernel_y=None,
        *,
        kernel="precomputed",
        n_components=2,
        reg=0.1,
        psd_check="auto",
    ):
        self.kernel_x = kernel_x
        self.kernel_y = kernel_y
        self.kernel = kernel
        self.n_components = n_components
        self.reg = reg
        self.psd_check = psd_check

    def fit(self, X, Y):
        """Find the canonical pairs of the paired views ``X`` and ``Y``."""
        self._fit(X, Y)
        return self

    def fit_transform(self, X, Y):
        """Fit and return the training canonical variates ``(K_x a, K_y b)``."""
        Kx, Ky = self._fit(X, Y)
        return Kx @ self.x_dual_coef_, Ky @ self.y_dual_coef_

    def transform(self, X, Y=None):
        """Canonical variates of objects of the first view (and of ``Y``).

        Returns ``X_scores`` of shape ``(n_test, n_components)``, or the pair
        ``(X_scores, Y_scores)`` when ``Y`` is given, as scikit-learn's CCA.
        """
        check_is_fitted(self, "x_dual_coef_")
        x_scores = self.x_centerer_.transform(X) @ self.x_dual_coef_
        if Y is None:
            return x_scores
        return x_scores, self.y_centerer_.transform(Y) @ self.y_dual_coef_

    def _fit(self, X, Y):
        m = check_scalar(self.n_components, "n_components", lower=1, integer=True)
        reg = check_scalar(self.reg, "reg", lower=0.0, lower_inclusive=False)
        if (
            self.kernel_x is not None
            and self.kernel_y is not None
            and not (isinstance(self.kernel, str) and self.kernel == "precomputed")
        ):
            raise ValueError(
                f"kernel={self.kernel!r} is unused: kernel_x and kernel_y are both given; "
                "give kernel alone (both views), or kernel_x and kernel_y"
            )
        _check_kernel(self.kernel, "kernel")
        kx = self.kernel if self.kernel_x is None else self.kernel_x
        ky = self.kernel if self.kernel_y is None else self.kernel_y
        _check_kernel(kx, "kernel_x" if self.kernel_x is not None else "kernel")
        _check_kernel(ky, "kernel_y" if self.kernel_y is not None else "kernel")
        nx, ny = n_objects(X), n_objects(Y)
        if nx is not None and ny is not None and nx != ny:
            raise ValueError(
                f"X has {nx} objects but Y has {ny}; the two views must pair the same objects"
            )
        self.x_centerer_ = KernelCenterer(kx, psd_check=self.psd_check)
        self.y_centerer_ = KernelCenterer(ky, psd_check=self.psd_check)
        Kx = self.x_centerer_.fit_transform(X)
        Ky = self.y_centerer_.fit_transform(Y)
        n = Kx.shape[0]
        if Ky.shape[0] != n:
            raise ValueError(
                f"X has {n} objects but Y has {Ky.shape[0]}; the two views must "
                "pair the same objects"
            )
        if m > n:
            raise ValueError(f"n_components={m} exceeds the number of training objects ({n})")
        r = n * reg / 2.0
        wx, Vx = _eigh_psd(Kx)
        wy, Vy = _eigh_psd(Ky)
        # (K + rI)^{-1} K = V diag(w / (w + r)) V^T; the SVD of the product of the
        # two is that of C = diag(sx) Vx^T Vy diag(sy) in the eigenbases
        sx, sy = wx / (wx + r), wy / (wy + r)
        C = (sx[:, None] * (Vx.T @ Vy)) * sy[None, :]
        P, rho, Qt = np.linalg.svd(C)
        P, rho, Q = P[:, :m], rho[:m], Qt[:m].T
        # a = (K + rI)^{-1} u with u = V p, scaled to (1/n) u^T u = 1
        scale = np.sqrt(n)
        self.x_dual_coef_ = Vx @ (P / (wx + r)[:, None]) * scale
        self.y_dual_coef_ = Vy @ (Q / (wy + r)[:, None]) * scale
        self._fix_signs()
        self.canonical_correlations_ = rho
        self.n_train_ = n
        return Kx, Ky

    def _fix_signs(self):
        """Make the largest-magnitude entry of each ``a_j`` positive (and flip ``b_j`` with it)."""
        A = self.x_dual_coef_
        big = np.argmax(np.abs(A), axis=0)
        s = np.sign(A[big, np.arange(A.shape[1])])
        s[s == 0] = 1.0
        self.x_dual_coef_ = A * s
        self.y_dual_coef_ = self.y_dual_coef_ * s


def _eigh_psd(K):
    """Eigenpairs of a centred Gram with rounding-level negative eigenvalues set to 0."""
    from scipy.linalg import eigh

    with small_blas(K.shape[0]):  # see structk._threads
        w, V = eigh(K, check_finite=False)
    return np.maximum(w, 0.0), V
