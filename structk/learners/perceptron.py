"""The dual (kernel) perceptron."""

from __future__ import annotations

import numpy as np

from .._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, warn_not_converged
from .._threads import small_matmul
from .._validation import check_scalar
from ..feature_space import rkhs_norm
from ._base import KernelLearnerMixin, encode_labels, n_objects, take


class KernelPerceptron(KernelLearnerMixin, ClassifierMixin, BaseEstimator):
    r"""Perceptron in the dual: ``f(x) = sum_i alpha_i y_i k(x_i, x) + b``.

    Each epoch visits the training objects (shuffled with ``random_state``)
    and, on a mistake ``y_i f(x_i) <= 0``, counts it in ``alpha_i`` and moves
    the bias by ``y_i R^2`` with ``R^2 = max_i k(x_i, x_i)`` (the dual
    algorithm of Cristianini & Shawe-Taylor, Table 2.2: scaling the bias step
    by ``R^2`` keeps it commensurate with the kernel values). Training stops
    after the first epoch without a mistake; on data that are separable in
    feature space this happens after finitely many mistakes (Novikoff).
    Several classes are learned one-vs-rest.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
    max_iter : int, default=100
        Maximal number of epochs; a :class:`~sklearn.exceptions.ConvergenceWarning`
        is issued when the last one still made mistakes (non-separable data).
    shuffle : bool, default=True
        Visit the objects in a new random order each epoch.
    random_state : int, numpy Generator or None, default=None
    psd_check : {"auto", "full", "none"}, default="auto"

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
    support_ : ndarray of int
        Training objects on which some machine made a mistake (the only
        ones prediction needs).
    support_vectors_ : objects or None
        Those objects (``None`` with a precomputed kernel).
    dual_coef_ : ndarray (n_machines, n_support)
        ``alpha_i y_i`` (mistake counts with signs) on ``support_``; one
        machine for two classes (positive side ``classes_[1]``), else one
        per class.
    rkhs_norm_ : ndarray (n_machines,)
        RKHS norm ``sqrt(a^T K a)`` of each machine's decision function
        (without the intercept), for :func:`~structk.feature_space.rademacher_bound`.
    intercept_ : ndarray (n_machines,)
    n_iter_ : int
        Epochs run by the slowest machine.
    n_train_ : int

    References
    ----------
    F. Rosenblatt, "The perceptron", Psychological Review 65 (1958).
    N. Cristianini and J. Shawe-Taylor, "An Introduction to Support Vector
    Machines", Cambridge University Press (2000), section 2.1.1.
    """

    def __init__(
        self,
        kernel="precomputed",
        *,
        max_iter=100,
        shuffle=True,
        random_state=None,
        psd_check="auto",
    ):
        self.kernel = kernel
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.psd_check = psd_check

    def fit(self, X, y):
        """Run the perceptron on objects ``X`` (or a Gram ``K``) and labels ``y``."""
        from ._perceptron import perceptron_epoch

        max_iter = check_scalar(self.max_iter, "max_iter", lower=1, integer=True)
        classes, codes = encode_labels(y, n_objects(X))
        K, objects = self._train_gram(X, len(codes))
        n = K.shape[0]
        R2 = float(np.max(np.diag(K)))
        rng = np.random.default_rng(self.random_state)
        machines = [1] if len(classes) == 2 else range(len(classes))
        coefs, biases, epochs = [], [], 0
        for c in machines:
            y_pm = np.where(codes == c, 1.0, -1.0)
            alpha = np.zeros(n)
            g = np.zeros(n)
            b = 0.0
            for epoch in range(1, max_iter + 1):  # noqa: B007 (read after the loop)
                order = rng.permutation(n) if self.shuffle else np.arange(n)
                mistakes, b = perceptron_epoch(K, y_pm, order, alpha, g, b, R2)
                if mistakes == 0:
                    break
            else:
                warn_not_converged(
                    f"the perceptron still made {mistakes} mistakes in epoch "
                    f"{max_iter} (max_iter): the data are probably not separable "
                    "in this kernel's feature space",
                    stacklevel=2,
                )
            epochs = max(epochs, epoch)
            coefs.append(alpha * y_pm)
            biases.append(b)
        coefs = np.array(coefs)
        used = np.flatnonzero((coefs != 0).any(axis=0))
        self.classes_ = classes
        self.support_ = used
        self.support_vectors_ = None if objects is None else take(objects, used)
        self._keep_training(objects, used)
        self.dual_coef_ = coefs[:, used]
        self.rkhs_norm_ = rkhs_norm(coefs, K)  # zero off the support: no block copy
        self.intercept_ = np.array(biases)
        self.n_iter_ = epochs
        return self

    def decision_function(self, X):
        """``f(x)``: (n,) for two classes, else (n, n_classes)."""
        check_is_fitted(self, "dual_coef_")
        Kt = self._test_gram(X, self.support_vectors_, columns=self.support_)
        D = small_matmul(Kt, self.dual_coef_.T) + self.intercept_
        return D[:, 0] if len(self.classes_) == 2 else D

    def predict(self, X):
        """Predicted class of each object."""
        D = self.decision_function(X)
        if D.ndim == 1:
            return self.classes_[(D > 0).astype(np.intp)]
        return self.classes_[np.argmax(D, axis=1)]
