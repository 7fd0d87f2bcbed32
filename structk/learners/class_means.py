"""Nearest class mean in feature space."""

from __future__ import annotations

import numpy as np

from .._estimator import BaseEstimator, ClassifierMixin, check_is_fitted
from .._threads import small_blas
from ._base import KernelLearnerMixin, encode_labels, n_objects


class NearestClassMean(KernelLearnerMixin, ClassifierMixin, BaseEstimator):
    r"""Assign each object to the class whose feature-space mean is nearest.

    .. math::

        d^2(x, m_c) = k(x, x) - \frac{2}{n_c} \sum_{i \in c} k(x, x_i)
                      + \frac{1}{n_c^2} \sum_{i, j \in c} k(x_i, x_j)

    With a linear kernel this is ``sklearn.neighbors.NearestCentroid``.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
    psd_check : {"auto", "full", "none"}, default="auto"

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
    mean_weights_ : ndarray (n_classes, n_train)
        Row ``c`` is ``1/n_c`` on the objects of class ``c``, 0 elsewhere, so
        that the class means are ``mean_weights_ @ phi(X)``.
    class_norms_ : ndarray (n_classes,)
        ``||m_c||^2 = (1/n_c^2) sum_{i,j in c} k(x_i, x_j)``.
    X_fit_ : objects or None
    n_train_ : int

    Notes
    -----
    With ``kernel="precomputed"`` the test objects' ``k(x, x)`` is not part of
    ``K_test``; it does not change the prediction, and ``decision_function``
    and ``distances`` take it as ``test_diag`` (when omitted they return the
    values without it, which rank the classes the same way).

    References
    ----------
    B. Schölkopf and A. J. Smola, "Learning with Kernels", MIT Press (2002),
    section 1.2.
    """

    def __init__(self, kernel="precomputed", *, psd_check="auto"):
        self.kernel = kernel
        self.psd_check = psd_check

    def fit(self, X, y):
        """Store the class means' norms and membership."""
        classes, codes = encode_labels(y, n_objects(X))
        K, objects = self._train_gram(X, len(codes))
        n_c = np.bincount(codes, minlength=len(classes)).astype(np.float64)
        M = np.zeros((len(classes), K.shape[0]))  # M[c] = indicator(c) / n_c
        M[codes, np.arange(K.shape[0])] = 1.0
        M /= n_c[:, None]
        self.classes_ = classes
        self.mean_weights_ = M
        with small_blas(K.shape[0]):
            self.class_norms_ = np.einsum("ci,ci->c", M @ K, M)
        self.X_fit_ = objects
        return self

    def distances(self, X, test_diag=None):
        """Squared feature-space distances to each class mean, (n_test, n_classes)."""
        check_is_fitted(self, "class_norms_")
        if test_diag is None and self.X_fit_ is not None:
            Kt, test_diag = self._test_gram_diag(X, self.X_fit_)
        else:
            Kt = self._test_gram(X, self.X_fit_)
        D = self.class_norms_ - 2.0 * (Kt @ self.mean_weights_.T)
        if test_diag is not None:
            D += np.asarray(test_diag, dtype=np.float64).reshape(-1, 1)
            np.maximum(D, 0.0, out=D)
        return D

    def decision_function(self, X, test_diag=None):
        """Negative squared distances to the class means (larger is nearer).

        Shape (n_test, n_classes); for two classes, as scikit-learn, the
        single column ``d^2(x, m_0) - d^2(x, m_1)`` (positive: ``classes_[1]``).
        """
        D = self.distances(X, test_diag)
        if D.shape[1] == 2:
            return D[:, 0] - D[:, 1]
        return -D

    def predict(self, X):
        """The class with the nearest mean."""
        D = self.distances(X)
        return self.classes_[np.argmin(D, axis=1)]
