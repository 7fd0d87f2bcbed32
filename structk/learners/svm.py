"""C-support vector classification on any structk kernel.

The estimator: its parameters, ``fit`` (validate, pick a path, run it),
prediction and probabilities. The paths it fits by live in
:mod:`structk.learners._svm_paths` (dual SMO, primal, Nyström), the
machines' loop in :mod:`structk.learners._smo.machines`, Platt scaling in
:mod:`structk.learners._smo.platt`.
"""

from __future__ import annotations

import warnings
from functools import update_wrapper
from itertools import combinations
from types import MethodType

import numpy as np

from .. import defaults
from .._estimator import (
    BaseEstimator,
    ClassifierMixin,
    check_is_fitted,
    check_random_state,
    warn_not_converged,
)
from .._validation import check_scalar
from ._base import KernelLearnerMixin, check_int_or_unlimited, encode_labels, n_objects
from ._smo.machines import TAU
from ._smo.platt import pairwise_coupling, sigmoid
from ._svm_paths import PATHS, FitOptions
from .primal import decision_values, resolve_solver

__all__ = ["KernelSVM", "TAU"]


class _needs_probability:
    """A method that exists only on a ``KernelSVM(probability=True)``:
    ``hasattr(svm, "predict_proba")`` is False otherwise (as scikit-learn's
    ``available_if``, so meta-estimators see no probabilities), and calling
    it says what to do instead of a bare "has no attribute"."""

    def __init__(self, fn):
        self.fn = fn
        update_wrapper(self, fn)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        if not obj.probability:
            raise AttributeError(
                f"{self.fn.__name__} needs a model fitted with KernelSVM(probability=True) "
                "(Platt scaling, five more fits per machine); this one has "
                "probability=False: refit with probability=True, or use decision_function"
            )
        return MethodType(self.fn, obj)


#: The values of ``KernelSVM(loss=...)``.
LOSSES = ("auto", "hinge", "squared_hinge")


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
        clipped to ``TAU``). On a given Gram (``kernel="precomputed"``) of
        more than ``defaults.PSD_FACTORISE_MAX_N`` objects, "auto"
        certifies what the solution depends on: finite, symmetric, every
        diagonal entry and 2 x 2 principal minor non-negative (one pass),
        and after the solve the block of each machine's free support
        vectors (``0 < alpha < C``) positive semi-definite (one
        factorisation of that block). A negative direction elsewhere in
        the Gram is not detected; "full" (one factorisation of the whole
        Gram, O(n^3)) or :func:`structk.assert_psd` decide it.
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
    loss : {"auto", "hinge", "squared_hinge"}, default="auto"
        ``C sum_i max(0, 1 - y_i f_i)`` or its square. ``"auto"``: the
        hinge where the dual solver runs (LIBSVM's model), the squared
        hinge where a feature path does (``solver_`` "primal" or
        "nystroem", LIBLINEAR's default loss): there the hinge's coordinate
        descent needs ~15x the time of the squared hinge's exact Newton
        method (36,000 sequences: 52 s against 3.6 s, the same accuracy;
        docs/scale.md). ``loss_`` tells which loss a fitted model solved.
        The dual solver
        solves the squared hinge as the hinge with ``K + I / (2C)`` and no
        upper bound on ``alpha`` (on a copy of a precomputed Gram: the
        caller's is never written); in the primal it is solved exactly,
        bias unpenalised, by a finite Newton method
        (:mod:`structk.learners._l2svm`). The hinge in the primal is
        LIBLINEAR's coordinate descent with a scaled bias feature: within
        about 1e-3 of the decision values' scale when it converges, slower
        at large ``C``, where it may stop at ``max_iter`` (with a
        ``ConvergenceWarning``).
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
    loss_ : str
        The loss solved ("hinge" or "squared_hinge"; see ``loss``).
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

    def __init__(
        self,
        kernel="precomputed",
        *,
        C=1.0,
        tol=1e-3,
        multi_class="ovo",
        decision_function_shape="ovr",
        shrinking=True,
        max_iter=-1,
        psd_check="auto",
        probability=False,
        random_state=None,
        loss="auto",
        solver="auto",
        n_components=None,
        landmarks="uniform",
        n_jobs=None,
        client=None,
        progress=False,
    ):
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

    def fit(self, X, y, *, init=None, compiled_small=False):
        """Fit on objects ``X`` (or a Gram matrix ``K``) and labels ``y``.

        ``init``: a ``KernelSVM`` fitted by SMO on the same ``X`` and ``y``
        with another ``C`` (a regularisation path: ``structk cv``'s inner
        folds solve their ``C`` grid in increasing order). Each machine then
        starts from that model's dual solution, scaled into the new box
        (:func:`structk.learners._smo.seed`), instead of from zero: the same
        optimum to ``tol``, in fewer iterations. Ignored (a cold start) when
        it does not fit this problem (other classes or size, another loss,
        another solver), with ``probability=True``, and for a machine the
        interior point may solve (:func:`structk.learners._smo.uses_start`).

        ``compiled_small``: run small SMO machines compiled from their first
        iteration instead of in NumPy (the same iterates, the same model):
        what a caller fitting hundreds of small problems wants (``structk
        cv``), as loading the compiled solver then pays for itself.

        The caller's arrays are only read: a precomputed Gram is never
        written, even for a moment (a copy is made where the solver needs
        one: the squared hinge's ``K + I / (2C)``).
        """
        options = FitOptions(
            C=check_scalar(self.C, "C", lower=0.0, lower_inclusive=False),
            tol=check_scalar(self.tol, "tol", lower=0.0, lower_inclusive=False),
            max_iter=check_int_or_unlimited(self.max_iter, "max_iter"),
            compiled_small=bool(compiled_small),
            rng=check_random_state(self.random_state),
        )
        self._check_choices()
        classes, codes = encode_labels(y, n_objects(X))
        _check_machine_count(codes, len(classes), self.multi_class)
        self._forget_fit()
        path = PATHS[
            resolve_solver(
                self,
                X,
                len(codes),
                defaults.PRIMAL_MIN_N
                if self.loss == "squared_hinge"
                else defaults.PRIMAL_HINGE_MIN_N,
            )
        ]
        self.solver_ = path.name  # before the path runs: loss_ reads it
        self.classes_ = classes
        unconverged, max_iter = path.fit(self, X, codes, len(classes), options, init)
        if unconverged:
            warn_not_converged(
                f"{path.name} solver: {unconverged} of {len(self.intercept_)} machine(s) "
                f"stopped after max_iter={max_iter} iterations before reaching "
                f"tol={options.tol}; the solution may be inaccurate (raise max_iter, or "
                "normalise the kernel: Normalize(k))",
                stacklevel=2,
            )
        _warn_if_inverted(self, len(codes))
        return self

    @property
    def loss_(self):
        """The loss the fit solved: ``loss``, or for ``loss="auto"`` the hinge
        where the dual solver ran and the squared hinge where a feature path
        did (``solver_``)."""
        from ._svm_paths import PATHS

        if "solver_" not in vars(self):
            raise AttributeError("loss_ is set by fit: this KernelSVM is not fitted")
        return PATHS[self.solver_].loss(self.loss)

    def _check_choices(self):
        for name in ("multi_class", "decision_function_shape"):
            if getattr(self, name) not in ("ovo", "ovr"):
                raise ValueError(f"{name} must be 'ovo' or 'ovr', got {getattr(self, name)!r}")
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if not isinstance(self.probability, (bool, np.bool_)):
            raise TypeError(f"probability must be True or False, got {self.probability!r}")

    def _machine_values(self, X):
        if getattr(self, "solver_", "dual") != "dual":
            check_is_fitted(self, "coef_")
            return decision_values(self, X)
        check_is_fitted(self, "dual_coef_")
        values = self._test_expansion(
            X, self.support_vectors_, self.dual_coef_, columns=self.support_
        )
        return values + self.intercept_

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

    @_needs_probability
    def predict_proba(self, X):
        """Class probabilities (n, n_classes), columns in ``classes_`` order;
        only with ``probability=True`` (see its description)."""
        check_is_fitted(self, "intercept_")
        if len(self.probA_) == 0:
            raise AttributeError(
                "predict_proba needs a model fitted with KernelSVM(probability=True); refit it"
            )
        P = sigmoid(self._machine_values(X), self.probA_, self.probB_)  # P(positive side)
        n_classes = len(self.classes_)
        if n_classes == 2:
            return np.column_stack([1.0 - P[:, 0], P[:, 0]])
        if self.multi_class == "ovr":
            return P / P.sum(axis=1, keepdims=True)
        return pairwise_coupling(P, n_classes)

    @_needs_probability
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
    ``defaults.MAX_OVO_MACHINES`` (thousands of classes, most of one object)."""
    if multi_class != "ovo" or n_classes <= 2:
        return
    machines = n_classes * (n_classes - 1) // 2
    if machines > defaults.MAX_OVO_MACHINES:
        single = int(np.sum(np.bincount(codes) == 1))
        raise ValueError(
            f"y has {n_classes:,} classes ({single:,} of them with one object), so "
            f"one-vs-one needs {machines:,} binary machines, more than "
            f"{defaults.MAX_OVO_MACHINES:,}; pass multi_class='ovr' ({n_classes:,} machines), "
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
            UserWarning,
            stacklevel=3,
        )
