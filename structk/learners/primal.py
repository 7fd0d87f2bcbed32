"""Kernel learners past the Gram matrix: the primal on explicit features.

A kernel with an explicit feature map ``phi`` (``kernel.has_features``:
spectrum, mismatch, gappy pair, linear vectors, Fisher scores, their sums,
multiples and ``Normalize``; the Weisfeiler-Lehman, shortest-path and
intersection kernels through a vocabulary of their keyed columns, see
:class:`FeatureMap`) makes every kernel machine a linear model on
the rows ``phi(x_i)``: ``f(x) = w . phi(x) (+ b)`` with ``w = sum_i a_i
phi(x_i)``. The same problem then costs ``O(nnz(Phi))`` per pass instead of
the ``n x n`` Gram matrix, and is solved by scikit-learn's solvers:

=========================  ============================================
learner                    primal problem and solver
=========================  ============================================
``KernelSVM``              hinge: LIBLINEAR's dual coordinate descent
                           (``LinearSVC``); squared hinge: exactly, bias
                           unpenalised, by a finite Newton method
                           (:mod:`structk.learners._l2svm`); one machine
                           per pair or class
``KernelLogisticRegression``  ``LogisticRegression(C=1/alpha,
                           fit_intercept=False)`` by L-BFGS (multinomial)
``KernelRidge``            ``Ridge(alpha, fit_intercept=False)``
                           (Cholesky on dense, conjugate gradients on
                           sparse features)
=========================  ============================================

Any other kernel gets explicit features from the Nyström method
(:mod:`structk.learners.falkon`): the same linear solvers on
``k(x, landmarks) @ V``, and FALKON's preconditioned conjugate gradients for
ridge. Both kinds of feature map live in a fitted :class:`FeatureMap`; the
learners keep it as ``feature_map_`` with the weights ``coef_`` and
``intercept_``, and predict new objects in chunks of ``_tuning.PRIMAL_PREDICT_CHUNK``.

**Options** (constructor parameters of the three learners):

* ``solver``: "auto" (:func:`resolve_solver`), "dual", "primal", "nystroem".
* ``n_components``: landmarks of the Nyström path (``None``:
  ``defaults.DEFAULT_N_COMPONENTS``, or every object when there are fewer).
* ``landmarks``: "uniform", "kmeans++" or "leverage" (approximate ridge
  leverage scores), as :class:`~structk.Nystroem`.
* ``n_jobs``: threads computing blocks of features; ``client``: a Dask
  client computing the Nyström path's blocks of kernel columns;
  ``progress``: a tqdm bar (or a callback) over the blocks
  (:mod:`structk.scale.columns`).

**The intercept.** The dual SVM's bias ``b`` is not penalised, nor is it
in the squared hinge's primal (:mod:`structk.learners._l2svm`, exact).
For the hinge, LIBLINEAR
appends a constant feature ``s`` to every row and penalises its weight, so
the bias costs ``b^2 / (2 s^2)``. The solvers here set ``s =
HINGE_INTERCEPT_SCALING * max_i ||phi(x_i)||``: the bias penalty is then
``1e-2`` (hinge) of a weight of the data's own
scale, and the decision values agree with the unpenalised dual's to about
1e-3 of their scale, the difference shrinking as ``1/s^2`` (the tests
compare them with the SMO solution of the same ``C``). Its coordinate
descent for the hinge loss is slowed by a large ``s`` (epochs grow about
as ``s^2``), which is why ``solver="auto"`` keeps hinge-loss SVMs on the dual
solver longer (``defaults.PRIMAL_HINGE_MIN_N``) and why the squared hinge is the
loss for millions of objects.

References
----------
R.-E. Fan, K.-W. Chang, C.-J. Hsieh, X.-R. Wang and C.-J. Lin, "LIBLINEAR:
a library for large linear classification", JMLR 9 (2008).
C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan, "A
dual coordinate descent method for large-scale linear SVM", ICML 2008.
C.-J. Lin, R. C. Weng and S. S. Keerthi, "Trust region Newton method for
large-scale logistic regression", JMLR 9 (2008).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _tuning, defaults
from .._validation import check_objects
from ..kernels.base import Kernel

SOLVERS = ("auto", "dual", "primal", "nystroem")

#: Bias feature of LIBLINEAR's hinge-loss coordinate descent, relative to
#: the largest feature-row norm: its epochs grow about as the square of it
#: (agreement with the dual then about 1e-3 of the decision values' scale).
#: The squared hinge needs none (its bias is exact and unpenalised).
HINGE_INTERCEPT_SCALING = 10.0


# ------------------------------------------------------------- the choice
def resolve_solver(learner, X, n, primal_min_n=None):
    """The solver ``learner.solver`` asks for: "dual", "primal" or "nystroem".

    ``"auto"``: the primal for a kernel with fixed feature columns and at
    least ``primal_min_n`` objects (``None``: ``defaults.PRIMAL_MIN_N``),
    Nyström for any other kernel from ``defaults.NYSTROEM_MIN_N`` objects,
    the exact dual below. A precomputed
    Gram is always solved in the dual.
    """
    solver = getattr(learner, "solver", "auto")
    if not isinstance(solver, str) or solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    kernel = learner.kernel
    if not isinstance(kernel, Kernel):  # "precomputed" (or an error later)
        if solver in ("primal", "nystroem"):
            raise ValueError(
                f"solver={solver!r} needs a structk kernel (it computes features of "
                "the objects); with kernel='precomputed' only solver='dual' applies"
            )
        return "dual"
    if solver == "primal" and not has_fixed_features(kernel):
        raise ValueError(_no_primal(kernel))
    if solver != "auto":
        return solver
    if n is None:
        return "dual"
    if has_fixed_features(kernel):
        if primal_min_n is None:
            primal_min_n = defaults.PRIMAL_MIN_N
        return "primal" if n >= primal_min_n else "dual"
    return "nystroem" if n >= defaults.NYSTROEM_MIN_N else "dual"


def has_fixed_features(kernel):
    """Whether a linear model on ``kernel.features`` can predict new objects:
    columns fixed, or named by keys that a vocabulary lines up."""
    return bool(
        kernel.has_features
        and (
            getattr(kernel, "fixed_feature_columns", False)
            or getattr(kernel, "keyed_feature_columns", False)
        )
    )


def _no_primal(kernel):
    if kernel.has_features:
        return (
            f"solver='primal' needs feature columns that mean the same for every "
            f"collection; those of {kernel!r} depend on the objects of each call "
            "and carry no keys to line them up (a sum or product of set, "
            "shortest-path or Weisfeiler-Lehman kernels, GraphHopper), so a "
            "model on them cannot predict new objects: use solver='nystroem' "
            "(or 'dual')"
        )
    return (
        f"solver='primal' needs a kernel with an exact explicit feature map; "
        f"{kernel!r} has none: use solver='nystroem' (any kernel) or 'dual'"
    )


# -------------------------------------------------------------- features
class FeatureMap:
    """A fitted map from objects to feature rows: the kernel's own features,
    or Nyström features ``k(x, landmarks) @ V`` (``landmarks`` prepared).

    A kernel whose feature columns are named by keys
    (``keyed_feature_columns``: set tokens, shortest-path triples,
    Weisfeiler-Lehman label hashes) gets a ``vocabulary``: the keys of the
    training objects' columns, in the order of the weight vector's
    coordinates. New objects' features are put in those columns; a column
    no training object has is dropped, which is exact, since the weights
    ``w = sum_i a_i phi(x_i)`` are zero there.
    """

    def __init__(self, kernel, landmarks=None, V=None, n_jobs=None, client=None):
        self.kernel = kernel
        self.landmarks = landmarks
        self.V = V
        self.n_jobs = n_jobs
        self.client = client
        self.vocabulary = None

    @property
    def kind(self):
        return "primal" if self.V is None else "nystroem"

    def fit_transform(self, X, P, progress=False):
        """Feature rows of the training objects ``X`` (prepared ``P``),
        learning the vocabulary of a keyed kernel's columns on the way."""
        from ..scale.columns import exact_features

        kernel = self.kernel
        if not getattr(kernel, "keyed_feature_columns", False):
            return self.transform(X, P, progress)
        keys = kernel.feature_keys_prepared(P)
        if keys is None:  # hashed columns: the ones the training objects use
            F = exact_features(kernel, X, P, n_jobs=self.n_jobs, progress=progress)
            self.vocabulary = np.unique(_csr(F).indices)
            return self._aligned(F, None)
        self.vocabulary = np.unique(keys) if keys.dtype.kind in "iu" else keys.copy()
        return self.transform(X, P, progress)

    def transform(self, X, P=None, progress=False):
        """Feature rows of objects ``X`` (``P``: their prepared data, if at hand)."""
        from ..scale.columns import exact_features, landmark_features

        if self.V is None:
            if P is None:
                P = self.kernel.prepare(X, "X")
            align = None
            if getattr(self, "vocabulary", None) is not None:

                def align(Pb, F):
                    return self._aligned(F, self.kernel.feature_keys_prepared(Pb))

            return exact_features(
                self.kernel, X, P, n_jobs=self.n_jobs, progress=progress, align=align
            )
        return landmark_features(
            self.kernel,
            X,
            P,
            self.landmarks,
            self.V,
            n_jobs=self.n_jobs,
            client=self.client,
            progress=progress,
        )

    def _aligned(self, F, keys):
        """``F`` (columns named by ``keys``; ``None``: by their index) in the
        vocabulary's columns, columns outside it dropped."""
        import scipy.sparse as sp

        F = _csr(F)
        vocab = self.vocabulary
        used, inverse = np.unique(F.indices, return_inverse=True)
        named = used if keys is None else np.asarray(keys)[used]
        if vocab.dtype.kind in "iu":
            at = np.searchsorted(vocab, named)
            hit = at < len(vocab)
            hit[hit] = vocab[at[hit]] == named[hit]
            where = np.where(hit, at, -1)
        else:  # any hashable keys (set tokens)
            index = {k: i for i, k in enumerate(vocab.tolist())}
            where = np.array([index.get(k, -1) for k in named.tolist()], dtype=np.int64)
        cols = where[inverse.ravel()] if len(used) else np.zeros(0, dtype=np.int64)
        keep = cols >= 0
        rows = np.repeat(np.arange(F.shape[0]), np.diff(F.indptr))[keep]
        out = sp.csr_matrix(
            (np.asarray(F.data, dtype=np.float64)[keep], (rows, cols[keep])),
            shape=(F.shape[0], max(len(vocab), 1)),
        )
        out.sum_duplicates()
        return out

    def __getstate__(self):  # a Dask client is not part of a model
        state = dict(self.__dict__)
        state["client"] = None
        return state


def training_features(learner, X, solver):
    """Fit ``learner.kernel_`` on ``X`` and return ``(FeatureMap, F)`` with the
    training features ``F`` (sparse or dense); ``solver`` "primal" or
    "nystroem". Sets ``kernel_``, ``n_train_`` and ``solver_``."""
    from sklearn.base import clone

    from .falkon import nystroem_map

    learner._check_input(X, reset=True)
    X = check_objects(X, "X")
    kernel = clone(learner.kernel).fit(X)
    P = kernel.prepare(X, "X")  # validates the kernel first
    progress = getattr(learner, "progress", False)
    n_jobs = getattr(learner, "n_jobs", None)
    if solver == "primal":
        fmap = FeatureMap(kernel, n_jobs=n_jobs)
        F = fmap.fit_transform(X, P, progress=progress)
    else:
        fmap, F = nystroem_map(learner, kernel, X, P)
    learner.kernel_ = kernel
    learner.n_train_ = _length(X)
    learner.solver_ = solver
    learner.feature_map_ = fmap
    return fmap, F


def decision_values(learner, X):
    """``features(X) @ coef_.T + intercept_`` of a primal/Nyström model,
    chunk by chunk (shape ``(n, n_machines)``)."""
    learner._check_input(X, reset=False)
    X = check_objects(X, "X")
    n = _length(X)
    coef = np.atleast_2d(learner.coef_)
    out = np.empty((n, coef.shape[0]))
    chunk = _tuning.PRIMAL_PREDICT_CHUNK
    for a in range(0, n, chunk):
        b = min(a + chunk, n)
        F = learner.feature_map_.transform(X[a:b])
        out[a:b] = np.asarray(F @ coef.T)
    return out + learner.intercept_


# ---------------------------------------------------------------- solvers
def fit_svm(svm, X, codes, n_classes, solver, options):
    """Primal (or Nyström) SVM: one linear machine per binary problem of
    ``_smo.machines.problems`` on the feature rows; sets ``coef_``, ``intercept_``,
    ``n_iter_``. The squared hinge is solved exactly, with the bias
    unpenalised, by :func:`structk.learners._l2svm.l2svm` (the dual's
    optimum); the hinge by LIBLINEAR's dual coordinate descent with a
    scaled bias feature (see the module docstring). Returns the number of
    machines that stopped at their iteration limit and that limit."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from ._l2svm import l2svm
    from ._smo.machines import problems
    from ._smo.platt import fit_sigmoid

    _, F = training_features(svm, X, solver)
    loss = svm.loss_
    C, tol = options.C, options.tol
    iters = options.max_iter if options.max_iter != -1 else 100_000
    scaling = HINGE_INTERCEPT_SCALING * max(float(np.sqrt(_row_sq_norms(F).max())), 1e-300)
    machines = problems(codes, n_classes, svm.multi_class)

    def solve(rows, signs):
        Fm = F if rows is None else F[rows]
        if loss == "squared_hinge":
            w, b, n_iter, converged = l2svm(Fm, signs, C, tol=tol, max_iter=iters)
        else:
            model = LinearSVC(
                loss=loss, C=C, tol=tol, max_iter=iters, dual=True, intercept_scaling=scaling
            )
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                model.fit(Fm, signs)
            converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
            w, b, n_iter = model.coef_[0], float(model.intercept_[0]), int(np.max(model.n_iter_))
        return w, b, n_iter, converged

    coefs, intercepts, n_iter, platt, unconverged = [], [], [], [], 0
    for rows, signs in machines:
        w, b, it, converged = solve(rows, signs)
        unconverged += not converged
        coefs.append(w)
        intercepts.append(b)
        n_iter.append(it)
        if svm.probability:
            platt.append(fit_sigmoid(_cv_values(F, rows, signs, solve, options.rng), signs))
    svm.coef_ = np.array(coefs)
    svm.intercept_ = np.array(intercepts)
    svm.n_iter_ = np.array(n_iter)
    svm.rkhs_norm_ = np.sqrt(np.einsum("ij,ij->i", svm.coef_, svm.coef_))
    svm.n_support_ = None
    if svm.probability:
        svm.probA_, svm.probB_ = (np.array(v) for v in zip(*platt))
    else:
        svm.probA_ = svm.probB_ = np.empty(0)
    return unconverged, iters


def _cv_values(F, rows, signs, solve, rng):
    """Out-of-fold decision values of one machine for Platt scaling (the
    dual solver's folds, :func:`structk.learners._smo.platt.out_of_fold`)."""
    from ._smo.platt import out_of_fold

    Fm = F if rows is None else F[rows]

    def fit_predict(train, test, side):
        w, b, _, _ = solve(train if rows is None else rows[train], side)
        return np.asarray(Fm[test] @ w) + b

    return out_of_fold(signs, rng, fit_predict)


def fit_logistic(lr, X, codes, n_classes, solver, lam, tol, max_iter):
    """``LogisticRegression(C=1/lam, fit_intercept=False)`` on the features
    (multinomial for more than two classes, as the dual learner)."""
    from sklearn.linear_model import LogisticRegression

    _, F = training_features(lr, X, solver)
    model = LogisticRegression(
        C=1.0 / lam, fit_intercept=False, tol=tol, max_iter=max_iter, solver="lbfgs"
    )
    model.fit(F, codes)
    coef = model.coef_  # (1, d) for two classes: positive side codes == 1
    lr.coef_ = coef
    lr.intercept_ = np.zeros(coef.shape[0])
    lr.rkhs_norm_ = np.sqrt(np.einsum("ij,ij->i", coef, coef))
    lr.n_iter_ = int(np.max(model.n_iter_))
    return lr


def fit_ridge(kr, X, Y, solver, lam):
    """Ridge regression without intercept on the features: scikit-learn's
    ``Ridge`` in the primal, FALKON's preconditioned conjugate gradients on
    Nyström features (:func:`structk.learners.falkon.falkon_solve`)."""
    from sklearn.linear_model import Ridge

    from .falkon import falkon_solve

    fmap, F = training_features(kr, X, solver)
    if solver == "nystroem":
        coef, kr.n_iter_ = falkon_solve(
            F, Y, lam, fmap.eigenvalues, fmap.n_landmarks, tol=getattr(kr, "tol", None) or 1e-7
        )
    else:
        model = Ridge(alpha=lam, fit_intercept=False, tol=1e-10).fit(F, Y)
        coef = model.coef_.T  # (d,) or (d, n_outputs)
        kr.n_iter_ = getattr(model, "n_iter_", None)
    coef = np.asarray(coef)
    kr.coef_ = coef.T if coef.ndim == 2 else coef[None, :]
    kr.intercept_ = np.zeros(kr.coef_.shape[0])
    kr.rkhs_norm_ = np.sqrt(np.einsum("ij,ij->i", kr.coef_, kr.coef_))
    if coef.ndim == 1:
        kr.rkhs_norm_ = float(kr.rkhs_norm_[0])
    kr.X_fit_ = None
    return kr


def _row_sq_norms(F):
    if hasattr(F, "multiply"):
        F = F.tocsr()
        out = np.zeros(F.shape[0])
        rows = np.flatnonzero(np.diff(F.indptr))
        if rows.size:
            out[rows] = np.add.reduceat(np.square(F.data), F.indptr[rows])
        return out
    return np.einsum("ij,ij->i", F, F)


def _csr(F):
    import scipy.sparse as sp

    return F.tocsr() if sp.issparse(F) else sp.csr_matrix(np.asarray(F))


def _length(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)
