"""C-support vector classification solved by SMO on the Gram matrix."""

from __future__ import annotations

import threading
import warnings
from contextlib import nullcontext
from itertools import combinations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import check_is_fitted

from .. import _tuning
from .._linalg import FrontBlocks, take_block
from .._threads import run_chunks, small_blas, small_matmul, threads_for
from .._validation import check_scalar
from ..feature_space import rkhs_norm
from . import _smo
from .primal import decision_values, fit_svm, resolve_solver
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
        Use LIBSVM's shrinking heuristic (large ``C`` needs it). Binary
        problems of at most 400 objects start with the same algorithm
        vectorised in NumPy, without shrinking (faster than loading the
        compiled solver into a fresh process), and go on in the compiled
        one after a few thousand iterations; the solution meets the same
        ``tol``.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        For "ovo" with more than two classes: ``decision_function`` returns
        the raw values of the pairwise machines ("ovo") or, as scikit-learn's
        ``SVC``, per-class scores (votes plus a confidence term in (-1/3, 1/3)
        from the summed pairwise values, "ovr"). Ignored otherwise.
    max_iter : int, default=-1
        Iteration limit per machine; -1 means LIBSVM's ``max(10**7, 100 n)``.
    psd_check : {"auto", "full", "none"}, default="auto"
        Check of the training Gram (see :mod:`structk.learners._psd`);
        with "none" an indefinite Gram is solved as LIBSVM does (curvature
        clipped to ``TAU``).
    probability : bool, default=False
        Also fit Platt's sigmoid ``P(positive | f) = 1 / (1 + exp(A f + B))``
        to each machine's decision values, so that :meth:`predict_proba`
        works. As LIBSVM (and so scikit-learn's ``SVC(probability=True)``)
        the decision values come from an internal 5-fold cross-validation on
        the training set (values of the training points themselves would be
        over-confident), the sigmoid is fitted by Newton's method with
        backtracking on Platt's regularised targets (Lin, Lin & Weng, 2007),
        and several classes are combined by pairwise coupling (Wu, Lin &
        Weng, 2004, method 2) for "ovo", or by normalising the per-class
        probabilities for "ovr". Costs five more fits per machine.
        ``predict`` is unchanged (it uses the decision values, not the
        probabilities, so the two may disagree near the boundary).
    random_state : int, RandomState or None, default=None
        Seed of the internal cross-validation folds of ``probability=True``
        and of the Nyström path's landmarks.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        ``C sum_i max(0, 1 - y_i f_i)`` or its square. The dual solver
        solves the squared hinge as the hinge with ``K + I / (2C)`` and no
        upper bound on ``alpha``; in the primal it is LIBLINEAR's fast
        trust-region Newton method (the hinge loss is its slower coordinate
        descent).
    solver : {"auto", "dual", "primal", "nystroem"}, default="auto"
        "dual": SMO; "primal": on the kernel's features; "nystroem": on
        Nyström features of any kernel; "auto" picks by kernel and size.
    n_components, landmarks, n_jobs, client, progress
        Options of the paths past the Gram: :mod:`structk.learners.primal`.

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
    rkhs_norm_ : ndarray (n_machines,)
        RKHS norm ``sqrt(a^T K a)`` of each machine's decision function
        (without the intercept), for :func:`~structk.feature_space.rademacher_bound`.
    intercept_ : ndarray (n_machines,)
    n_support_ : ndarray (n_classes,)
        Number of support vectors of each class.
    dual_objective_ : ndarray (n_machines,)
        Final value of the dual objective of each machine (a minimisation).
    n_iter_ : ndarray (n_machines,)
    n_train_ : int
    probA_, probB_ : ndarray (n_machines,)
        Platt sigmoid parameters of each machine (``probability=True`` only).
    solver_ : str
        The solver used ("dual", "primal" or "nystroem").
    coef_, intercept_, feature_map_ : past the Gram (SMO not used)
        Weights on the features of ``feature_map_`` (:mod:`structk.learners.primal`).

    References
    ----------
    R.-E. Fan, P.-H. Chen and C.-J. Lin, "Working set selection using second
    order information for training support vector machines", JMLR 6 (2005).
    C.-C. Chang and C.-J. Lin, "LIBSVM: a library for support vector
    machines", ACM TIST 2 (2011).
    J. C. Platt, "Sequential minimal optimization", MSR-TR-98-14 (1998).
    J. C. Platt, "Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods", in Advances in Large
    Margin Classifiers, MIT Press (2000).
    H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's probabilistic
    outputs for support vector machines", Machine Learning 68 (2007).
    T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for
    multi-class classification by pairwise coupling", JMLR 5 (2004).

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
                 psd_check="auto", probability=False, random_state=None, loss="hinge",
                 solver="auto", n_components=None, landmarks="uniform", n_jobs=None,
                 client=None, progress=False):
        self.kernel = kernel
        self.C = C
        self.tol = tol
        self.multi_class = multi_class
        self.decision_function_shape = decision_function_shape
        self.shrinking = shrinking
        self.max_iter = max_iter
        self.psd_check = psd_check
        self.probability = probability
        self.random_state = random_state
        self.loss = loss
        self.solver = solver
        self.n_components = n_components
        self.landmarks = landmarks
        self.n_jobs = n_jobs
        self.client = client
        self.progress = progress

    def fit(self, X, y, *, init=None):
        """Fit on objects ``X`` (or a Gram matrix ``K``) and labels ``y``.

        ``init``: a ``KernelSVM`` fitted by SMO on the same ``X`` and ``y``
        with another ``C`` (a regularisation path: ``structk cv``'s inner
        folds solve their ``C`` grid in increasing order). Each machine then
        starts from that model's dual solution, scaled into the new box
        (:func:`structk.learners._smo.seed`), instead of from zero: the same
        optimum to ``tol``, in fewer iterations. Ignored (a cold start) when
        it does not fit this problem (other classes or size, another loss,
        another solver) and with ``probability=True``; and for a machine
        small enough for the interior-point start
        (``_tuning.SVM_IPM_MAX_N``, hinge loss), which is as fast from zero.
        """
        C = check_scalar(self.C, "C", lower=0.0, lower_inclusive=False)
        tol = check_scalar(self.tol, "tol", lower=0.0, lower_inclusive=False)
        max_iter = check_int_or_unlimited(self.max_iter, "max_iter")
        for name in ("multi_class", "decision_function_shape"):
            if getattr(self, name) not in ("ovo", "ovr"):
                raise ValueError(f"{name} must be 'ovo' or 'ovr', got {getattr(self, name)!r}")
        if self.loss not in ("hinge", "squared_hinge"):
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge', got {self.loss!r}")
        classes, codes = encode_labels(y, n_objects(X))
        if not isinstance(self.probability, (bool, np.bool_)):
            raise TypeError(f"probability must be True or False, got {self.probability!r}")
        _check_machine_count(codes, len(classes), self.multi_class)
        solver = resolve_solver(self, X, len(codes), _tuning.PRIMAL_MIN_N if self.loss ==
                                "squared_hinge" else _tuning.PRIMAL_HINGE_MIN_N)
        if solver != "dual":
            self.classes_ = classes
            fit_svm(self, X, codes, len(classes), solver, C, tol, max_iter)
            _warn_if_inverted(self, len(codes))
            return self
        self.solver_ = "dual"
        K, objects = self._train_gram(X, len(codes))
        n = K.shape[0]
        if max_iter == -1:
            max_iter = max(10_000_000, 100 * n)
        if self.loss == "squared_hinge":  # the hinge dual with K + I/(2C), no upper bound
            diagonal = np.diag(K).copy()  # put back exactly afterwards
            K.flat[:: n + 1] += 0.5 / C
            C = np.inf

        starts = self._starts(init, classes, n)

        def solve(Ks, signs, t=None):
            start = None
            if (starts is not None and t is not None
                    and _smo.uses_start(len(signs), C, max_iter)):
                rows = machines[t][0]
                start = _smo.seed(Ks, signs, starts[t] if rows is None else starts[t][rows], C)
            alpha, rho, obj, it, converged = _smo.solve(
                Ks, signs, C, tol, TAU, bool(self.shrinking), max_iter, start)
            if not converged:
                warnings.warn(
                    f"SMO stopped after max_iter={max_iter} iterations before "
                    f"reaching tol={tol}; the solution may be inaccurate",
                    ConvergenceWarning, stacklevel=3,
                )
            return alpha, rho, obj, it

        rng = check_random_state(self.random_state)
        machines = list(self._machines(codes, len(classes)))
        solved = [None] * len(machines)
        platt = []

        # the machines of a multi-class problem are independent: large ones
        # (the compiled solver, which releases the GIL) run on threads, with
        # the same results in any order; Platt scaling keeps them in order
        work = sum(len(signs) for _, signs in machines if len(signs) > _tuning.SVM_NUMPY_MAX_N)
        threads = 1 if self.probability else threads_for(work, 2 * _tuning.SVM_NUMPY_MAX_N)
        # each thread copies its machines' blocks of K into one buffer, written
        # again for every machine (fresh 30 MB arrays cost as much in page
        # faults as the copy itself) -- unless the buffers would be a large
        # part of the Gram (a few classes): then the machines run one at a
        # time on their block of K itself, K permuted in place so that the
        # block comes first (no second copy of most of the Gram)
        largest = max(len(signs) for _, signs in machines)
        buffers = threading.local()
        front = None
        budget = _tuning.SVM_BLOCK_COPY_MAX_FRACTION * n * n
        if machines[0][0] is not None and threads * largest**2 > budget:
            threads = 1  # one buffer, or none
            if largest**2 > budget and K.flags.writeable:  # a read-only Gram: copies
                front = FrontBlocks(K)

        def block(rows):
            if rows is None:
                return K
            if front is not None:
                return front.block(rows)
            m = len(rows)
            if m <= _tuning.SVM_NUMPY_MAX_N:
                return take_block(K, rows)
            if not hasattr(buffers, "data"):
                buffers.data = np.empty(largest * largest)
            return take_block(K, rows, out=buffers.data[: m * m].reshape(m, m))

        def solve_machines(lo, hi):
            for t in range(lo, hi):
                rows, signs = machines[t]
                Ks = block(rows)
                solved[t] = solve(Ks, signs, t)
                if self.probability:  # in order: the folds draw from one rng
                    platt.append(fit_sigmoid(_cv_decision_values(Ks, signs, solve, rng),
                                             signs))

        # the interior point factorises on one BLAS thread (small_blas); that
        # limit is process-wide and each holder restores what it saw on
        # entry, so with machines on threads the calling thread sets it for
        # all of them (else one machine leaving could lift it under another,
        # or one entering under another restore "one thread" for good)
        shared_limit = (small_blas(largest) if threads > 1
                        and largest <= _tuning.SVM_IPM_MAX_N else nullcontext())
        try:
            with shared_limit:
                run_chunks(solve_machines, list(range(len(machines) + 1)), threads)
        finally:
            if front is not None and objects is None:
                front.restore()  # the caller's Gram, back in its order
        # K's rows and columns are in front.order when it was permuted
        order = slice(None) if front is None or objects is None else front.order
        if self.loss == "squared_hinge":
            np.fill_diagonal(K, diagonal[order])
        coefs = np.zeros((len(machines), n))
        for t, ((rows, signs), (alpha, _, _, _)) in enumerate(zip(machines, solved)):
            coefs[t, slice(None) if rows is None else rows] = alpha * signs
        rhos, objs, iters = ([m[i] for m in solved] for i in (1, 2, 3))
        support = np.flatnonzero((coefs != 0).any(axis=0))
        self.classes_ = classes
        self.support_ = support
        self.support_vectors_ = None if objects is None else take(objects, support)
        self._keep_training(objects, support)
        self.dual_coef_ = coefs[:, support]
        # on the whole Gram (zero coefficients off the support vectors): no
        # copy of the support vectors' block
        self.rkhs_norm_ = rkhs_norm(coefs[:, order], K)
        self.intercept_ = -np.array(rhos)
        self.n_support_ = np.bincount(codes[support], minlength=len(classes))
        self.dual_objective_ = np.array(objs)
        self.n_iter_ = np.array(iters)
        if self.probability:
            self.probA_, self.probB_ = (np.array(v) for v in zip(*platt))
        else:
            self.probA_ = self.probB_ = np.empty(0)
        _warn_if_inverted(self, n)
        return self

    def _starts(self, init, classes, n):
        """Each machine's ``|alpha|`` over all ``n`` training objects in the
        fitted SMO model ``init`` (``None`` when it cannot seed this fit)."""
        if (init is None or self.probability or self.loss != "hinge"
                or not isinstance(init, KernelSVM)
                or getattr(init, "solver_", None) != "dual" or init.loss != "hinge"
                or init.multi_class != self.multi_class or init.n_train_ != n
                or not np.array_equal(init.classes_, classes)):
            return None
        coefs = np.zeros((init.dual_coef_.shape[0], n))
        coefs[:, init.support_] = np.abs(init.dual_coef_)
        return coefs

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
        if getattr(self, "solver_", "dual") != "dual":
            check_is_fitted(self, "coef_")
            return decision_values(self, X)
        check_is_fitted(self, "dual_coef_")
        Kt = self._test_gram(X, self.support_vectors_, columns=self.support_)
        return small_matmul(Kt, self.dual_coef_.T) + self.intercept_

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

    def _check_probability(self):
        if not self.probability:
            raise AttributeError("predict_proba needs KernelSVM(probability=True)")
        return True

    @available_if(_check_probability)
    def predict_proba(self, X):
        """Class probabilities (n, n_classes), columns in ``classes_`` order;
        only with ``probability=True`` (see its description)."""
        check_is_fitted(self, "intercept_")
        if len(self.probA_) == 0:
            raise AttributeError("predict_proba needs a model fitted with "
                                 "KernelSVM(probability=True); refit it")
        P = _sigmoid(self._machine_values(X), self.probA_, self.probB_)  # P(positive side)
        n_classes = len(self.classes_)
        if n_classes == 2:
            return np.column_stack([1.0 - P[:, 0], P[:, 0]])
        if self.multi_class == "ovr":
            return P / P.sum(axis=1, keepdims=True)
        return pairwise_coupling(P, n_classes)

    @available_if(_check_probability)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`; for two classes computed in log
        space, so that a probability that rounds to 0 keeps a finite log."""
        check_is_fitted(self, "intercept_")
        if len(self.classes_) != 2:
            with np.errstate(divide="ignore"):
                return np.log(self.predict_proba(X))
        z = self._machine_values(X)[:, 0] * self.probA_[0] + self.probB_[0]
        # P(positive) = 1 / (1 + exp(z)), P(negative) = 1 / (1 + exp(-z))
        return np.column_stack([-np.logaddexp(0.0, -z), -np.logaddexp(0.0, z)])

    def predict(self, X):
        """Predicted class of each test object (one-vs-one: most votes, ties
        to the lowest class, as LIBSVM)."""
        D = self._machine_values(X)
        if len(self.classes_) == 2:
            return self.classes_[(D[:, 0] > 0).astype(np.intp)]
        if self.multi_class == "ovr":
            return self.classes_[np.argmax(D, axis=1)]
        return self.classes_[np.argmax(self._votes(D)[0], axis=1)]


def _check_machine_count(codes, n_classes, multi_class):
    """Refuse, before any work, a one-vs-one problem with more machines than
    ``_tuning.MAX_OVO_MACHINES`` (thousands of classes, most of one object)."""
    if multi_class != "ovo" or n_classes <= 2:
        return
    machines = n_classes * (n_classes - 1) // 2
    if machines > _tuning.MAX_OVO_MACHINES:
        single = int(np.sum(np.bincount(codes) == 1))
        raise ValueError(
            f"y has {n_classes:,} classes ({single:,} of them with one object), so "
            f"one-vs-one needs {machines:,} binary machines, more than "
            f"{_tuning.MAX_OVO_MACHINES:,}; pass multi_class='ovr' ({n_classes:,} machines), "
            "merge rare classes, or use NearestClassMean"
        )


def _warn_if_inverted(svm, n):
    """Warn when a fitted Platt sigmoid decreases with the decision value
    (``A > 0``): its probabilities then contradict ``predict``, which
    happens when few objects (or separable ones) leave the internal
    cross-validation without signal. LIBSVM keeps such a sigmoid silently."""
    if not svm.probability or len(svm.probA_) == 0:
        return
    inverted = np.flatnonzero(svm.probA_ > 0)
    if inverted.size:
        warnings.warn(
            f"Platt scaling fitted on {n} objects is inverted for {inverted.size} of "
            f"{len(svm.probA_)} machine(s): predict_proba then ranks the classes against "
            "predict and decision_function; fit on more objects, or use the decision "
            "values instead of probabilities",
            UserWarning, stacklevel=3,
        )


# --------------------------------------------------------- Platt scaling
#: Folds of the internal cross-validation giving the decision values the
#: sigmoid is fitted to (LIBSVM's choice).
PLATT_FOLDS = 5


def _cv_decision_values(K, signs, solve, rng, folds=PLATT_FOLDS):
    """Decision value of each training point from a machine trained without
    its fold (random folds, as LIBSVM). A training part holding one side
    only gives that side's sign, +-1."""

    def fit_predict(train, test, side):
        alpha, rho, _, _ = solve(np.ascontiguousarray(K[np.ix_(train, train)]), side)
        return K[np.ix_(test, train)] @ (alpha * side) - rho

    return out_of_fold(signs, rng, fit_predict, folds)


def out_of_fold(signs, rng, fit_predict, folds=PLATT_FOLDS):
    """The fold loop of :func:`_cv_decision_values`: ``fit_predict(train,
    test, sides of train)`` gives the decision values of ``test``."""
    n = len(signs)
    perm = rng.permutation(n)
    dec = np.empty(n)
    for f in range(folds):
        test = perm[f * n // folds:(f + 1) * n // folds]
        train = np.setdiff1d(perm, test, assume_unique=True)
        if len(test) == 0:
            continue
        side = signs[train]
        if len(train) == 0 or np.all(side == side[0]):
            dec[test] = side[0] if len(train) else 0.0
            continue
        dec[test] = fit_predict(train, test, side)
    return dec


def platt_objective(A, B, f, t):
    """Negative log-likelihood of targets ``t`` under ``1 / (1 + exp(A f + B))``,
    evaluated stably."""
    z = A * f + B
    return float(np.sum(np.where(z >= 0, t * z + np.log1p(np.exp(-np.abs(z))),
                                 (t - 1) * z + np.log1p(np.exp(-np.abs(z))))))


def fit_sigmoid(f, signs, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    """Platt's sigmoid ``(A, B)`` for decision values ``f`` and sides ``signs``
    (+1 / -1), by Newton's method with backtracking line search on Platt's
    regularised targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``, as in
    Lin, Lin & Weng (2007)."""
    f = np.asarray(f, dtype=np.float64)
    pos = signs > 0
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    value = platt_objective(A, B, f, t)
    for _ in range(max_iter):
        z = A * f + B
        e = np.exp(-np.abs(z))
        p = np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))  # 1 / (1 + exp(z))
        q = 1.0 - p
        d2 = p * q
        h11, h22, h21 = sigma + np.dot(f * f, d2), sigma + d2.sum(), np.dot(f, d2)
        d1 = t - p
        g1, g2 = np.dot(f, d1), d1.sum()
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            new = platt_objective(A + step * dA, B + step * dB, f, t)
            if new < value + 1e-4 * step * gd:
                A, B, value = A + step * dA, B + step * dB, new
                break
            step /= 2.0
        if step < min_step:
            break
    return A, B


def _sigmoid(D, A, B):
    """``1 / (1 + exp(A f + B))`` column by column, without overflow."""
    z = D * A + B
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))


def pairwise_coupling(P, n_classes, min_prob=1e-7):
    """Class probabilities from the pairwise ones of one-vs-one machines.

    ``P[:, m]`` is ``P(a | a or b)`` of the m-th pair ``(a, b)`` in
    lexicographic order. Solves method 2 of Wu, Lin & Weng (2004),
    ``min_p sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2`` subject to
    ``sum p = 1``, exactly (its KKT system) rather than iteratively.
    """
    n = P.shape[0]
    R = np.zeros((n, n_classes, n_classes))  # R[:, i, j] = P(i | i or j)
    for m, (a, b) in enumerate(combinations(range(n_classes), 2)):
        r = np.clip(P[:, m], min_prob, 1.0 - min_prob)
        R[:, a, b], R[:, b, a] = r, 1.0 - r
    Q = -R.transpose(0, 2, 1) * R
    diag = np.einsum("nji,nji->ni", R, R)  # sum_j R[j, i]^2 (R[i, i] = 0)
    Q[:, np.arange(n_classes), np.arange(n_classes)] = diag
    M = np.zeros((n, n_classes + 1, n_classes + 1))
    M[:, :n_classes, :n_classes] = Q
    M[:, :n_classes, n_classes] = M[:, n_classes, :n_classes] = 1.0
    rhs = np.zeros((n, n_classes + 1))
    rhs[:, n_classes] = 1.0
    p = np.linalg.solve(M, rhs[..., None])[:, :n_classes, 0]
    p = np.clip(p, 0.0, None)
    return p / p.sum(axis=1, keepdims=True)
