"""C-support vector classification solved by SMO on the Gram matrix."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import check_scalar
from ._base import (
    KernelLearnerMixin,
    check_int_or_unlimited,
    encode_labels,
    n_objects,
    take,
)

#: Curvature used when ``K_ii + K_jj - 2 K_ij <= 0`` (indefinite or repeated points).
TAU = 1e-12


class KernelSVM(KernelLearnerMixin, ClassifierMixin, BaseEstimator):
    r"""C-support vector classifier on any structk kernel.

    Solves the dual of the soft-margin SVM

    .. math::

        \min_\alpha \tfrac12 \alpha^\top Q \alpha - \mathbf 1^\top \alpha
        \quad\text{s.t.}\quad 0 \le \alpha_i \le C,\ y^\top \alpha = 0,
        \qquad Q_{ij} = y_i y_j k(x_i, x_j),

    by sequential minimal optimisation with the second-order working-set
    selection of Fan, Chen & Lin (2005) and LIBSVM's shrinking, stopping when
    the maximal violating pair's gap is below ``tol`` (LIBSVM's criterion).
    The decision function is ``f(x) = sum_i alpha_i y_i k(x_i, x) + b`` with
    ``b`` the average over free support vectors (``0 < alpha_i < C``) of
    ``y_i - sum_j alpha_j y_j K_ij``, or the midpoint of its feasible
    interval when there is none.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
        A structk kernel (``fit(X, y)`` on any objects it accepts; only the
        support vectors are kept) or ``"precomputed"`` (``fit(K, y)``,
        ``predict(K_test)`` with ``K_test`` of shape ``(n_test, n_train)``).
    C : float, default=1.0
        Box constraint (> 0): the larger, the fewer margin violations allowed.
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation (as LIBSVM's ``eps``).
    multi_class : {"ovo", "ovr"}, default="ovo"
        One-vs-one (a machine per pair of classes, prediction by votes, ties
        to the lowest class, as LIBSVM) or one-vs-rest (a machine per class,
        prediction by the largest decision value).
    shrinking : bool, default=True
        Use LIBSVM's shrinking heuristic (large ``C`` needs it).
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        For "ovo" with more than two classes: ``decision_function`` returns
        the raw values of the pairwise machines ("ovo") or, as scikit-learn's
        ``SVC``, per-class scores (votes plus a confidence term in (-1/3, 1/3)
        from the summed pairwise values, "ovr"). Ignored otherwise.
    max_iter : int, default=-1
        Iteration limit per machine; -1 means LIBSVM's ``max(10**7, 100 n)``.
    psd_check : {"auto", "full", "none"}, default="auto"
        Check of the training Gram (see :mod:`structk.learners._base`);
        with "none" an indefinite Gram is solved as LIBSVM does (curvature
        clipped to ``TAU``).

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
    support_ : ndarray of int
        Indices (into the training set) of the support vectors of all machines.
    support_vectors_ : list, ndarray or None
        The support objects (``None`` with a precomputed kernel).
    dual_coef_ : ndarray (n_machines, n_SV)
        ``alpha_i y_i`` of each machine on ``support_`` (zero where a vector
        is not a support vector of that machine). Machines: one for two
        classes (positive side ``classes_[1]``); per pair ``(a, b)`` in
        lexicographic order for "ovo" (positive side ``a``); per class for "ovr".
    intercept_ : ndarray (n_machines,)
    n_support_ : ndarray (n_classes,)
        Number of support vectors of each class.
    dual_objective_ : ndarray (n_machines,)
        Final value of the dual objective of each machine (a minimisation).
    n_iter_ : ndarray (n_machines,)
    n_train_ : int

    References
    ----------
    R.-E. Fan, P.-H. Chen and C.-J. Lin, "Working set selection using second
    order information for training support vector machines", JMLR 6 (2005).
    C.-C. Chang and C.-J. Lin, "LIBSVM: a library for support vector
    machines", ACM TIST 2 (2011).
    J. C. Platt, "Sequential minimal optimization", MSR-TR-98-14 (1998).

    Examples
    --------
    >>> from structk.kernels import FunctionKernel
    >>> from structk.learners import KernelSVM
    >>> k = FunctionKernel(lambda a, b: sum(a.count(c) * b.count(c) for c in "ab"))
    >>> svm = KernelSVM(kernel=k, C=10.0).fit(["aaa", "aab", "bbb", "abb"], [0, 0, 1, 1])
    >>> svm.predict(["aaaa", "bbba"]).tolist()
    [0, 1]
    """

    def __init__(self, kernel="precomputed", C=1.0, tol=1e-3, multi_class="ovo",
                 decision_function_shape="ovr", shrinking=True, max_iter=-1,
                 psd_check="auto"):
        self.kernel = kernel
        self.C = C
        self.tol = tol
        self.multi_class = multi_class
        self.decision_function_shape = decision_function_shape
        self.shrinking = shrinking
        self.max_iter = max_iter
        self.psd_check = psd_check

    def fit(self, X, y):
        """Fit on objects ``X`` (or a Gram matrix ``K``) and labels ``y``."""
        from .._jit.smo import smo

        C = check_scalar(self.C, "C", lower=0.0, lower_inclusive=False)
        tol = check_scalar(self.tol, "tol", lower=0.0, lower_inclusive=False)
        max_iter = check_int_or_unlimited(self.max_iter, "max_iter")
        for name in ("multi_class", "decision_function_shape"):
            if getattr(self, name) not in ("ovo", "ovr"):
                raise ValueError(f"{name} must be 'ovo' or 'ovr', got {getattr(self, name)!r}")
        classes, codes = encode_labels(y, n_objects(X))
        K, objects = self._train_gram(X, len(codes))
        n = K.shape[0]
        if max_iter == -1:
            max_iter = max(10_000_000, 100 * n)

        coefs, rhos, objs, iters = [], [], [], []
        for rows, signs in self._machines(codes, len(classes)):
            Ks = K if rows is None else np.ascontiguousarray(K[np.ix_(rows, rows)])
            alpha, rho, obj, it, converged = smo(
                Ks, signs, C, tol, TAU, bool(self.shrinking), max_iter
            )
            if not converged:
                warnings.warn(
                    f"SMO stopped after max_iter={max_iter} iterations before "
                    f"reaching tol={tol}; the solution may be inaccurate",
                    ConvergenceWarning, stacklevel=2,
                )
            coef = np.zeros(n)
            coef[slice(None) if rows is None else rows] = alpha * signs
            coefs.append(coef)
            rhos.append(rho)
            objs.append(obj)
            iters.append(it)
        coefs = np.array(coefs)
        support = np.flatnonzero((coefs != 0).any(axis=0))
        self.classes_ = classes
        self.support_ = support
        self.support_vectors_ = None if objects is None else take(objects, support)
        self.dual_coef_ = coefs[:, support]
        self.intercept_ = -np.array(rhos)
        self.n_support_ = np.bincount(codes[support], minlength=len(classes))
        self.dual_objective_ = np.array(objs)
        self.n_iter_ = np.array(iters)
        return self

    def _machines(self, codes, n_classes):
        """``(rows, signs)`` of each binary problem; ``rows=None`` means all."""
        if n_classes == 2:
            yield None, np.where(codes == 1, 1.0, -1.0)
        elif self.multi_class == "ovr":
            for c in range(n_classes):
                yield None, np.where(codes == c, 1.0, -1.0)
        else:
            for a, b in combinations(range(n_classes), 2):
                rows = np.flatnonzero((codes == a) | (codes == b))
                yield rows, np.where(codes[rows] == a, 1.0, -1.0)

    def _machine_values(self, X):
        check_is_fitted(self, "dual_coef_")
        Kt = self._test_gram(X, self.support_vectors_, columns=self.support_)
        return Kt @ self.dual_coef_.T + self.intercept_

    def decision_function(self, X):
        """Decision values: (n,) for two classes, else (n, n_classes) scores
        or, with ``decision_function_shape="ovo"``, one column per pair."""
        D = self._machine_values(X)
        if len(self.classes_) == 2:
            return D[:, 0]
        if self.multi_class == "ovr" or self.decision_function_shape == "ovo":
            return D
        votes, confidence = self._votes(D)
        return votes + confidence / (3.0 * (np.abs(confidence) + 1.0))

    def _votes(self, D):
        """Votes and summed signed pairwise values of the one-vs-one machines."""
        n_classes = len(self.classes_)
        votes = np.zeros((D.shape[0], n_classes))
        confidence = np.zeros((D.shape[0], n_classes))
        for p, (a, b) in enumerate(combinations(range(n_classes), 2)):
            wins = D[:, p] > 0
            votes[:, a] += wins
            votes[:, b] += ~wins
            confidence[:, a] += D[:, p]
            confidence[:, b] -= D[:, p]
        return votes, confidence

    def predict(self, X):
        """Predicted class of each test object (one-vs-one: most votes, ties
        to the lowest class, as LIBSVM)."""
        D = self._machine_values(X)
        if len(self.classes_) == 2:
            return self.classes_[(D[:, 0] > 0).astype(np.intp)]
        if self.multi_class == "ovr":
            return self.classes_[np.argmax(D, axis=1)]
        return self.classes_[np.argmax(self._votes(D)[0], axis=1)]
