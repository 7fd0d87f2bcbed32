"""Centring in feature space."""

from __future__ import annotations

from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._base import KernelLearnerMixin


class KernelCenterer(
    KernelLearnerMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    r"""Centre the feature map on the training objects' mean.

    With ``phi_c(x) = phi(x) - (1/n) sum_i phi(x_i)`` the centred training
    Gram is ``H K H`` with ``H = I - U``, ``U = (1/n) 1 1^T``, and a test
    cross-Gram ``K_t`` (n_test x n_train) becomes
    ``K_t - U_t K - K_t U + U_t K U`` (``U_t`` the n_test x n matrix of 1/n).

    With a kernel, ``fit_transform(X)`` returns the centred training Gram
    and ``transform(X_test)`` the centred cross-Gram against the training
    objects, so a ``Pipeline`` of this centerer and a learner with
    ``kernel="precomputed"`` learns from objects. With
    ``kernel="precomputed"`` it behaves as scikit-learn's ``KernelCenterer``.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
    psd_check : {"auto", "full", "none"}, default="auto"

    Attributes
    ----------
    K_fit_rows_ : ndarray (n_train,)
        Column means of the training Gram.
    K_fit_all_ : float
        Mean of the training Gram.
    X_fit_ : objects or None
    n_train_ : int

    References
    ----------
    B. Schölkopf, A. Smola and K.-R. Müller, "Nonlinear component analysis as
    a kernel eigenvalue problem", Neural Computation 10 (1998).
    """

    def __init__(self, kernel="precomputed", *, psd_check="auto"):
        self.kernel = kernel
        self.psd_check = psd_check

    def fit(self, X, y=None):
        """Learn the training means (``y`` is ignored)."""
        self._fit(X)
        return self

    def _fit(self, X):
        K, objects = self._train_gram(X, None)
        self.K_fit_rows_ = K.mean(axis=0)
        self.K_fit_all_ = float(self.K_fit_rows_.mean())
        self.X_fit_ = objects
        return K

    def fit_transform(self, X, y=None):
        """Fit and return the centred training Gram ``H K H``."""
        K = self._fit(X)
        return self._center(K)

    def transform(self, X):
        """Centred cross-Gram of test objects (or of a test Gram ``K_test``)."""
        check_is_fitted(self, "K_fit_rows_")
        return self._center(self._test_gram(X, self.X_fit_))

    @property
    def _n_features_out(self):
        """One output column per training object (``get_feature_names_out``)."""
        return self.n_train_

    def _center(self, K):
        K = K - K.mean(axis=1, keepdims=True)
        K -= self.K_fit_rows_
        K += self.K_fit_all_
        return K
