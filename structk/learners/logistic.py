"""Kernel logistic regression (binary and multinomial), L-BFGS in whitened coordinates."""

from __future__ import annotations

import numpy as np

from .._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, warn_not_converged
from .._threads import small_blas, small_matmul
from .._validation import check_scalar
from .._linalg import frobenius, restore_lower, rkhs_norm_from_upper
from ._base import KernelLearnerMixin, encode_labels, n_objects, owns_gram
from ._psd import PSD_RTOL, raise_if_not_psd
from .primal import decision_values, fit_logistic, resolve_solver


class KernelLogisticRegression(KernelLearnerMixin, ClassifierMixin, BaseEstimator):
    r"""Logistic regression in a kernel's feature space, without intercept.

    Two classes: ``f = K a`` and

    .. math:: \min_a \sum_i \log(1 + e^{-y_i f_i}) + \tfrac{\lambda}{2} a^\top K a,

    ``y_i = +1`` for ``classes_[1]``. More classes: one ``a_c`` per class,
    softmax probabilities and ``(lambda/2) sum_c a_c^T K a_c``.

    In ``a`` the problem's conditioning is about ``cond(K)^2``, hopeless for
    gradient methods. The solver changes variables: with a Cholesky factor
    ``K + eps I = L L^T`` (``eps = n * machine-eps * max K_ii``, raised
    tenfold until the factorisation succeeds, at most to the rounding-noise
    level ``1e-6 ||K||_F``), ``f = L b`` and
    ``a^T K a = ||b||^2``, so the problem becomes L2-regularised logistic
    regression on the n x n design ``L``, whose Hessian
    ``L^T W L + lambda I`` has condition at most
    ``1 + max eig(K) / (4 lambda)``; it is solved by L-BFGS, and
    ``a = L^{-T} b``.

    **Relation to scikit-learn.** ``LogisticRegression(C=C,
    fit_intercept=False)`` minimises ``C sum_i loss_i + 1/2 ||w||^2``; with a
    linear kernel (``f = X w``, ``w = X^T a``) this is the same problem with
    ``lambda = 1 / C`` (multinomial too: both penalise every class's
    weights).

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
    alpha : float, default=1.0
        The penalty ``lambda`` (> 0); ``alpha = 1 / C`` of scikit-learn.
    tol : float, default=1e-6
        Stop when the largest gradient entry in the whitened coordinates is
        below ``tol`` times its value at ``a = 0`` (at least ``tol``); see
        ``gradient_norm_``.
    max_iter : int, default=1000
        L-BFGS iterations.
    psd_check : {"auto", "full", "none"}, default="auto"
        As the other learners (:mod:`structk.learners._psd`); in addition
        a failure of the jittered Cholesky factorisation raises
        :class:`~structk.exceptions.NotPSDError`.
    solver : {"auto", "dual", "primal", "nystroem"}, default="auto"
        "dual": L-BFGS on the Gram; "primal": on the kernel's features; "nystroem": on
        Nyström features of any kernel; "auto" picks by kernel and size.
    n_components, landmarks, n_jobs, client, progress
        Options of the paths past the Gram: :mod:`structk.learners.primal`.
    random_state : int, RandomState or None, default=None
        Seed of the Nyström path's landmarks.

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
    rkhs_norm_ : ndarray (n_machines,)
        RKHS norm ``sqrt(a^T K a)`` of each machine's decision function
        (without the intercept), for :func:`~structk.feature_space.rademacher_bound`.
    dual_coef_ : ndarray (n_machines, n_train)
        ``a`` (two classes: one row, positive side ``classes_[1]``) or
        ``a_c`` for each class.
    X_fit_ : objects or None
    gradient_norm_ : float
        Max-norm of the objective's gradient in the whitened coordinates
        at the solution.
    n_iter_ : int
    n_train_ : int
    solver_ : str
        The solver used ("dual", "primal" or "nystroem").
    coef_, intercept_, feature_map_ : past the Gram (L-BFGS not used)
        Weights on the features of ``feature_map_`` (:mod:`structk.learners.primal`).

    References
    ----------
    J. Zhu and T. Hastie, "Kernel logistic regression and the import vector
    machine", Journal of Computational and Graphical Statistics 14 (2005).
    J. Nocedal and S. J. Wright, "Numerical Optimization", Springer (2006),
    chapter 7 (L-BFGS).
    """

    def __init__(
        self,
        kernel="precomputed",
        *,
        alpha=1.0,
        tol=1e-6,
        max_iter=1000,
        psd_check="auto",
        solver="auto",
        n_components=None,
        landmarks="uniform",
        random_state=None,
        n_jobs=None,
        client=None,
        progress=False,
    ):
        self.kernel = kernel
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.psd_check = psd_check
        self.solver = solver
        self.n_components = n_components
        self.landmarks = landmarks
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.client = client
        self.progress = progress

    def fit(self, X, y):
        """Fit on objects ``X`` (or a Gram ``K``) and labels ``y``."""
        lam = check_scalar(self.alpha, "alpha", lower=0.0, lower_inclusive=False)
        tol = check_scalar(self.tol, "tol", lower=0.0, lower_inclusive=False)
        max_iter = check_scalar(self.max_iter, "max_iter", lower=1, integer=True)
        classes, codes = encode_labels(y, n_objects(X))
        self._forget_fit()
        solver = resolve_solver(self, X, len(codes))
        if solver != "dual":
            self.classes_ = classes
            return fit_logistic(self, X, codes, len(classes), solver, lam, tol, max_iter)
        self.solver_ = "dual"
        K, objects = self._train_gram(X, len(codes))
        with small_blas(K.shape[0]):
            return self._fit_gram(K, owns_gram(K, X), codes, classes, objects, lam, tol, max_iter)

    def _fit_gram(self, K, own, codes, classes, objects, lam, tol, max_iter):
        from scipy.linalg import solve_triangular
        from scipy.optimize import minimize

        n = K.shape[0]
        # a Gram computed here is factorised in place (no second n x n array);
        # a Gram the caller passed is copied. The factor takes the lower
        # triangle and the diagonal; the strict upper triangle keeps K.
        L = K if own else K.copy()
        d = np.diag(K).copy()
        _jittered_cholesky(L, d)
        if len(classes) == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[:, None]
            fun = _binary_loss_grad
        else:
            Y = np.zeros((n, len(classes)))
            Y[np.arange(n), codes] = 1.0
            fun = _softmax_loss_grad
        shape = (n, Y.shape[1])

        def objective(b):
            return _whitened(fun, b.reshape(shape), L, Y, lam)

        gtol = tol * max(1.0, float(np.abs(_whitened(fun, np.zeros(shape), L, Y, lam)[1]).max()))
        res = minimize(
            objective,
            np.zeros(n * shape[1]),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": gtol, "ftol": 0.0, "maxcor": 50},
        )
        B = res.x.reshape(shape)
        grad_norm = float(np.abs(objective(res.x)[1]).max())
        if grad_norm > gtol:
            warn_not_converged(_stop_message(res, grad_norm, gtol, max_iter), stacklevel=3)
        # a = L^{-T} b (LAPACK reads L's lower triangle only)
        A = solve_triangular(L, B, lower=True, trans="T", check_finite=False)
        self.classes_ = classes
        self.dual_coef_ = np.ascontiguousarray(A.T)
        self.rkhs_norm_ = np.atleast_1d(rkhs_norm_from_upper(L, d, A))
        self.X_fit_ = objects
        self.gradient_norm_ = grad_norm
        self.n_iter_ = int(res.nit)
        return self

    def decision_function(self, X):
        """``f(x)``: (n,) for two classes, else (n, n_classes) class scores."""
        if getattr(self, "solver_", "dual") != "dual":
            check_is_fitted(self, "coef_")
            F = decision_values(self, X)
            return F[:, 0] if len(self.classes_) == 2 else F
        check_is_fitted(self, "dual_coef_")
        F = small_matmul(self._test_gram(X, self.X_fit_), self.dual_coef_.T)
        return F[:, 0] if len(self.classes_) == 2 else F

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``."""
        F = self.decision_function(X)
        if F.ndim == 1:
            p = _sigmoid(F)
            return np.column_stack([1.0 - p, p])
        F = F - F.max(axis=1, keepdims=True)
        np.exp(F, out=F)
        F /= F.sum(axis=1, keepdims=True)
        return F

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (computed stably)."""
        F = self.decision_function(X)
        if F.ndim == 1:
            return -np.logaddexp(0.0, -np.column_stack([-F, F]))
        return F - _logsumexp(F)[:, None]

    def predict(self, X):
        """The most probable class."""
        F = self.decision_function(X)
        if F.ndim == 1:
            return self.classes_[(F > 0).astype(np.intp)]
        return self.classes_[np.argmax(F, axis=1)]


def _stop_message(res, grad_norm, gtol, max_iter):
    """Why L-BFGS stopped short of ``gtol``, and what (if anything) helps."""
    if res.nit >= max_iter:
        return (
            f"L-BFGS used all max_iter={max_iter} iterations with gradient max-norm "
            f"{grad_norm:.3g} > tol target {gtol:.3g}; raise max_iter (or tol)"
        )
    return (
        f"L-BFGS stopped after {res.nit} iterations at the limit of floating-point "
        f"precision ({res.message}): no step could decrease the objective further. "
        f"The gradient max-norm {grad_norm:.3g} is as small as float64 allows here, "
        f"above the tol target {gtol:.3g}; the solution is accurate to that level and "
        "a smaller tol cannot be reached (raise tol to silence this)"
    )


# ------------------------------------------------------------ the objective
def _whitened(fun, B, L, Y, lam):
    """Objective and gradient in ``b`` with ``f = L b`` (flattened gradient)."""
    F = _tri_mul(L, B, transpose=False)
    loss, dF = fun(F, Y)
    value = loss + 0.5 * lam * float(np.vdot(B, B))
    grad = _tri_mul(L, dF, transpose=True) + lam * B
    return value, grad.ravel()


def _tri_mul(L, B, transpose):
    """``L @ B`` or ``L.T @ B`` for C-ordered lower-triangular ``L``.

    The products are memory bound, and BLAS's triangular routines read only
    the triangle: half the traffic of a general product. ``L.T`` is the same
    buffer read as a Fortran-ordered upper-triangular matrix.
    """
    from scipy.linalg import blas

    U = L.T  # Fortran-ordered, upper triangular
    if B.shape[1] == 1:
        out = blas.dtrmv(U, np.ascontiguousarray(B[:, 0]), lower=0, trans=0 if transpose else 1)
        return out[:, None]
    return blas.dtrmm(1.0, U, np.asfortranarray(B), lower=0, trans_a=0 if transpose else 1)


def _binary_loss_grad(F, Y):
    """``sum log(1 + exp(-y f))`` and its derivative in ``f`` (``Y`` is +-1)."""
    m = -Y * F
    loss = float(np.logaddexp(0.0, m).sum())
    return loss, -Y * _sigmoid(m)


def _softmax_loss_grad(F, Y):
    """Cross-entropy of ``softmax(F)`` against one-hot ``Y`` and its derivative."""
    lse = _logsumexp(F)
    loss = float(lse.sum() - np.vdot(Y, F))
    P = np.exp(F - lse[:, None])
    return loss, P - Y


def _sigmoid(x):
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def _logsumexp(F):
    m = F.max(axis=1)
    return m + np.log(np.exp(F - m[:, None]).sum(axis=1))


def _jittered_cholesky(K, d):
    """Factor ``K + eps I = L L^T`` in place; NotPSDError when none works.

    ``L`` (lower) overwrites the lower triangle and the diagonal of the
    C-ordered ``K``, whose strict upper triangle keeps ``K``; ``d`` is the
    diagonal of ``K``. The jitter grows tenfold from ``n * machine-eps *
    max K_ii`` up to the rounding-noise level ``PSD_RTOL * ||K||_F`` that
    the learners accept, ``K`` restored from its upper triangle between
    tries. Returns ``eps``.
    """
    from scipy.linalg import lapack

    n = K.shape[0]
    eps = n * np.finfo(np.float64).eps * max(float(d.max()), 1e-300)
    cap = max(eps, PSD_RTOL * frobenius(K))
    while eps <= 10.0 * cap:
        np.fill_diagonal(K, d + eps)
        # K is symmetric: its C buffer read as Fortran is K itself; the factor
        # "upper" of that view is the transpose of the lower factor we want,
        # written into the same buffer
        U, info = lapack.dpotrf(K.T, lower=0, clean=0, overwrite_a=1)
        if info == 0:
            if not np.shares_memory(U, K):  # pragma: no cover - LAPACK copied
                K[...] = U.T
            return eps
        restore_lower(K, d)
        eps *= 10.0
    raise_if_not_psd(K)
    raise np.linalg.LinAlgError(  # pragma: no cover - PSD but not factorisable
        "could not factorise K + eps I even with a jitter of "
        f"{eps / 10:.3g}; the Gram matrix is numerically indefinite"
    )
