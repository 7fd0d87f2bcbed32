"""Kernel principal component analysis."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._threads import small_blas
from .._validation import check_scalar
from ._base import KernelLearnerMixin
from .centering import KernelCenterer


class KernelPCA(
    KernelLearnerMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    r"""Principal components of the training objects in the kernel's feature space.

    With the centred feature map ``phi_c(x) = phi(x) - mean_i phi(x_i)`` and
    the centred training Gram ``K_c = H K H`` (``H = I - 11^T/n``), the
    principal directions are ``v_j = sum_i a_ij phi_c(x_i)`` where
    ``K_c a_j = lambda_j a_j`` and ``a_j`` is scaled so that ``||v_j|| = 1``,
    i.e. ``a_j = u_j / sqrt(lambda_j)`` for a unit eigenvector ``u_j``. The
    ``j``-th coordinate of an object is ``<phi_c(x), v_j> = sum_i a_ij
    k_c(x, x_i)``; on the training objects it is ``sqrt(lambda_j) u_ij``.

    Components are ordered by decreasing eigenvalue. The sign of each is
    fixed so that the entry of largest magnitude of ``u_j`` is positive (PCA
    determines a direction only up to its sign). Components whose eigenvalue
    is not positive (beyond the rank of ``K_c``) give coordinate 0.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
        With a kernel, ``fit(X)`` takes objects (strings, sets, graphs,
        vectors); with "precomputed", ``fit(K)`` a square Gram and
        ``transform(K_test)`` a cross-Gram ``(n_test, n_train)``.
    n_components : int, default=2
        Number of components kept (at most the number of training objects).
    psd_check : {"auto", "full", "none"}, default="auto"
        As the other learners (:mod:`structk.learners._psd`).

    Attributes
    ----------
    eigenvalues_ : ndarray (n_components,)
        Eigenvalues ``lambda_j`` of the centred training Gram (not divided
        by ``n``, as scikit-learn's ``KernelPCA``), decreasing, clipped at 0.
    eigenvectors_ : ndarray (n_train, n_components)
        Unit eigenvectors ``u_j``.
    dual_coef_ : ndarray (n_train, n_components)
        The expansion coefficients ``a_j`` of the principal directions.
    centerer_ : KernelCenterer
        The training means used to centre test cross-Grams.
    X_fit_ : objects or None
    n_train_ : int

    Examples
    --------
    >>> from structk import Normalize, Spectrum
    >>> from structk.learners import KernelPCA
    >>> X = ["ACGTAC", "ACGTTT", "GGGCCA", "GGGCCC", "TTTAAA"]
    >>> Z = KernelPCA(Normalize(Spectrum(k=2)), n_components=2).fit_transform(X)
    >>> Z.shape
    (5, 2)

    References
    ----------
    B. Schölkopf, A. Smola and K.-R. Müller, "Nonlinear component analysis as
    a kernel eigenvalue problem", Neural Computation 10 (1998) 1299-1319.
    J. Shawe-Taylor and N. Cristianini, "Kernel Methods for Pattern
    Analysis", Cambridge University Press (2004), section 6.2.
    """

    def __init__(self, kernel="precomputed", *, n_components=2, psd_check="auto"):
        self.kernel = kernel
        self.n_components = n_components
        self.psd_check = psd_check

    def fit(self, X, y=None):
        """Find the principal directions of ``X`` (``y`` is ignored)."""
        self._fit(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return the training objects' coordinates ``sqrt(lambda_j) u_ij``."""
        self._fit(X)
        return self.eigenvectors_ * np.sqrt(self.eigenvalues_)

    def transform(self, X):
        """Coordinates of objects ``X`` (or of a cross-Gram ``K_test``)."""
        check_is_fitted(self, "dual_coef_")
        return self.centerer_.transform(self._test_gram(X, self.X_fit_)) @ self.dual_coef_

    @property
    def _n_features_out(self):
        """One output column per component (``get_feature_names_out``)."""
        return self.eigenvalues_.shape[0]

    def _fit(self, X):
        m = check_scalar(self.n_components, "n_components", lower=1, integer=True)
        K, objects = self._train_gram(X, None)
        n = K.shape[0]
        if m > n:
            raise ValueError(f"n_components={m} exceeds the number of training objects ({n})")
        self.centerer_ = KernelCenterer(psd_check="none")
        w, U = top_eigenpairs(self.centerer_.fit_transform(K), m)
        self.eigenvalues_ = w
        self.eigenvectors_ = U
        self.dual_coef_ = U * inverse_sqrt(w, K)
        self.X_fit_ = objects


def top_eigenpairs(A, m):
    """The ``m`` largest eigenvalues (decreasing, clipped at 0) of symmetric ``A``
    and unit eigenvectors, each signed so that its largest-magnitude entry is
    positive."""
    from scipy.linalg import eigh

    n = A.shape[0]
    with small_blas(n):  # see structk._threads: no thread hand-over when small
        w, U = eigh(A, subset_by_index=(n - m, n - 1), check_finite=False)
    w, U = w[::-1], U[:, ::-1]
    big = np.argmax(np.abs(U), axis=0)
    U = U * np.sign(U[big, np.arange(m)])
    return np.maximum(w, 0.0), np.ascontiguousarray(U)


def inverse_sqrt(w, K):
    """``1/sqrt(w)`` where ``w`` is clearly positive (relative to ``K``'s scale), else 0."""
    tol = np.finfo(np.float64).eps * K.shape[0] * max(float(np.abs(K).max()), 1e-300)
    out = np.zeros_like(w)
    keep = w > tol
    out[keep] = 1.0 / np.sqrt(w[keep])
    return out
