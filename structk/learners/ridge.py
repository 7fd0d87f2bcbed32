"""Kernel ridge regression, and its exact leave-one-out choice of the penalty."""

from __future__ import annotations

import numpy as np

from .. import _linalg, _tuning
from .._estimator import BaseEstimator, RegressorMixin, check_is_fitted
from .._linalg import restore_lower, rkhs_norm_from_upper
from .._threads import small_blas, small_matmul
from .._validation import check_scalar
from ..feature_space import rkhs_norm
from ._base import KernelLearnerMixin, check_targets, n_objects, owns_gram
from ._psd import PSD_RTOL, raise_if_not_psd
from .primal import decision_values, fit_ridge, resolve_solver


class _RidgePredictMixin:
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True  # y of shape (n, n_outputs)
        return tags

    def predict(self, X):
        """``K_test @ dual_coef_``: shape (n_test,) or (n_test, n_outputs)."""
        if getattr(self, "solver_", "dual") != "dual":
            check_is_fitted(self, "coef_")
            F = decision_values(self, X)
            return F[:, 0] if self._y_ndim == 1 else F
        check_is_fitted(self, "dual_coef_")
        return small_matmul(self._test_gram(X, self.X_fit_), self.dual_coef_)


class KernelRidge(_RidgePredictMixin, KernelLearnerMixin, RegressorMixin, BaseEstimator):
    r"""Kernel ridge regression: ``dual_coef_ = (K + lambda I)^{-1} y`` by Cholesky.

    Minimises ``||y - K a||^2 + lambda a^T K a`` over the dual coefficients
    ``a`` (``dual_coef_``; ``alpha`` is the penalty ``lambda``, as in
    scikit-learn), i.e. ridge regression in the
    kernel's feature space without intercept; with a linear kernel it is
    ``sklearn.linear_model.Ridge(alpha=lambda, fit_intercept=False)``.
    Several outputs (``y`` of shape (n, m)) share one factorisation.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
    alpha : float, default=1.0
        The penalty ``lambda`` (> 0), named as in scikit-learn.
    psd_check : {"auto", "full", "none"}, default="auto"
        As the other learners (:mod:`structk.learners._psd`); in addition
        the fit's own Cholesky factorisation of ``K + lambda I`` fails when
        ``K`` has an eigenvalue below ``-lambda``, which raises
        :class:`~structk.exceptions.NotPSDError` with the
        :func:`~structk.psd.check_psd` report -- except with "none", where
        the system is solved as it is, by a symmetric indefinite
        factorisation (as the SVM solves an indefinite Gram as LIBSVM does).
    solver : {"auto", "dual", "primal", "nystroem"}, default="auto"
        "dual": Cholesky; "primal": on the kernel's features; "nystroem": on
        Nyström features of any kernel, by FALKON's preconditioned conjugate
        gradients (:mod:`structk.learners.falkon`); "auto" picks by size.
    n_components, landmarks, n_jobs, client, progress
        Options of the paths past the Gram: :mod:`structk.learners.primal`.
    random_state : int, RandomState or None, default=None
        Seed of the Nyström path's landmarks.

    Attributes
    ----------
    dual_coef_ : ndarray (n_train,) or (n_train, n_outputs)
        The dual coefficients ``a``: predictions are ``k(x, X_fit_) @ a``.
    rkhs_norm_ : float or ndarray (n_outputs,)
        RKHS norm ``sqrt(a^T K a)`` of the predictor (of each output), for
        :func:`~structk.feature_space.rademacher_bound`.
    X_fit_ : objects or None
        Training objects (``None`` with a precomputed kernel or past the Gram).
    n_train_ : int
    solver_ : str
        The solver used ("dual", "primal" or "nystroem").
    coef_, intercept_, feature_map_ : past the Gram (Cholesky not used)
        Weights on the features of ``feature_map_`` (:mod:`structk.learners.primal`).

    References
    ----------
    C. Saunders, A. Gammerman and V. Vovk, "Ridge regression learning
    algorithm in dual variables", ICML (1998).
    """

    def __init__(
        self,
        kernel="precomputed",
        *,
        alpha=1.0,
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
        self.psd_check = psd_check
        self.solver, self.n_components = solver, n_components
        self.landmarks, self.random_state = landmarks, random_state
        self.n_jobs, self.client, self.progress = n_jobs, client, progress

    def fit(self, X, y):
        """Fit on objects ``X`` (or a Gram ``K``) and targets ``y``."""
        from scipy.linalg import lapack

        lam = check_scalar(self.alpha, "alpha", lower=0.0, lower_inclusive=False)
        Y = check_targets(y, n_objects(X))
        self._forget_fit()
        self._y_ndim = Y.ndim
        solver = resolve_solver(self, X, len(Y))
        if solver != "dual":
            return fit_ridge(self, X, Y, solver, lam)
        self.solver_ = "dual"
        K, objects = self._train_gram(X, len(Y))
        # a Gram computed here is factorised in place (no second n x n array);
        # a Gram the caller passed is copied (learners._base.owns_gram)
        own = owns_gram(K, X)
        A = K if own else K.copy()
        d = np.diag(K).copy()
        A.flat[:: A.shape[0] + 1] += lam
        # A is symmetric, so its C-ordered buffer is the Fortran matrix A^T = A;
        # the factor overwrites its lower triangle (C order) and diagonal only
        with small_blas(A.shape[0]):
            _, coef, info = lapack.dposv(A.T, Y, lower=0, overwrite_a=1, overwrite_b=0)
        if info > 0:
            if own:
                restore_lower(K, d)
            if getattr(self, "psd_check", "auto") != "none":
                _raise_not_psd(K, lam)
            coef = _indefinite_solve(K, lam, Y)  # "none": solved as asked
            info = 0
        if info < 0:  # pragma: no cover - LAPACK argument error
            raise RuntimeError(f"LAPACK dposv failed (info={info})")
        self.dual_coef_ = coef
        self.rkhs_norm_ = rkhs_norm_from_upper(K, d, coef) if own else rkhs_norm(coef.T, K)
        self.X_fit_ = objects
        return self


def _tridiagonalise(K):
    """``(d, e, Q)`` with ``K = Q T Q^T``, ``T`` symmetric tridiagonal with
    diagonal ``d`` and off-diagonal ``e``, ``Q`` orthogonal (Fortran-ordered).

    LAPACK ``dsytrd`` (lower) leaves the reflectors in a copy of ``K``;
    ``dorgtr`` turns them into ``Q`` in place.
    """
    from scipy.linalg import lapack

    n = K.shape[0]
    lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
    # K is symmetric, so K.T (Fortran-ordered) is the same matrix
    c, d, e, tau, info = lapack.dsytrd(K.T, lower=1, lwork=max(lwork, 1))
    if info != 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"LAPACK dsytrd failed (info={info})")
    return d, e, _linalg.orthogonal_of_tridiagonal(c, tau)


def _raise_singular(alpha, lam_min):
    raise np.linalg.LinAlgError(
        f"K + alpha I is singular for alpha={alpha} (smallest eigenvalue of K: "
        f"{lam_min:.3g}); use larger alphas"
    )


def _indefinite_solve(K, lam, Y):
    """``(K + lam I)^{-1} Y`` for a ``K + lam I`` that is not positive
    definite (``psd_check="none"``: the caller asked for no check), by the
    symmetric indefinite factorisation (LAPACK's Bunch-Kaufman ``sysv``);
    ``K`` is only read."""
    from scipy.linalg import LinAlgError, solve

    A = K + lam * np.eye(K.shape[0])
    try:
        return solve(A, Y, assume_a="sym", check_finite=False)
    except LinAlgError:
        raise np.linalg.LinAlgError(
            f"K + alpha I is singular (alpha={lam}) and K is not positive "
            "semi-definite; change alpha, or check the Gram with structk.check_psd"
        ) from None


def _raise_not_psd(K, lam):
    raise_if_not_psd(K)
    raise np.linalg.LinAlgError(
        f"K + alpha I is numerically singular (alpha={lam}); increase alpha"
    )


class KernelRidgeCV(_RidgePredictMixin, KernelLearnerMixin, RegressorMixin, BaseEstimator):
    r"""Kernel ridge regression with ``lambda`` chosen by exact leave-one-out.

    With ``G = (K + lambda I)^{-1}`` and ``a = G y``, the leave-one-out
    residual of object ``i`` (the error of the model refitted without it) is
    exactly ``a_i / G_ii``. One O(n^3) reduction of ``K`` serves every
    ``lambda``, which then costs O(n^2); nothing is refitted. Up to
    ``n = 400`` the reduction is the eigendecomposition ``K = V diag(w) V^T``
    (``G = V diag(1/(w + lambda)) V^T``); above, the cheaper tridiagonal
    form ``K = Q T Q^T``, with ``G_ii = ||D^{-1/2} L^{-1} Q^T e_i||^2`` from
    the factorisation ``T + lambda I = L D L^T``.

    Parameters
    ----------
    kernel : Kernel or "precomputed", default="precomputed"
    alphas : sequence of float, default=(0.1, 1.0, 10.0)
        Candidate penalties (> 0), as ``RidgeCV``.
    psd_check : {"auto", "full", "none"}, default="auto"

    Attributes
    ----------
    alpha_ : float
        The penalty with the smallest leave-one-out mean squared error
        (the first one on ties).
    loo_mse_ : ndarray (n_alphas,)
        Leave-one-out mean squared error of each candidate (averaged over
        outputs too).
    dual_coef_ : ndarray (n_train,) or (n_train, n_outputs)
    rkhs_norm_ : float or ndarray (n_outputs,)
        RKHS norm ``sqrt(a^T K a)`` of the predictor (of each output), for
        :func:`~structk.feature_space.rademacher_bound`.
        Coefficients for ``alpha_`` on all the training data.
    X_fit_ : objects or None
    n_train_ : int

    References
    ----------
    G. H. Golub, M. Heath and G. Wahba, "Generalized cross-validation as a
    method for choosing a good ridge parameter", Technometrics 21 (1979).
    R. M. Rifkin and R. A. Lippert, "Notes on regularized least squares",
    MIT-CSAIL-TR-2007-025 (2007).
    """

    def __init__(self, kernel="precomputed", *, alphas=(0.1, 1.0, 10.0), psd_check="auto"):
        self.kernel = kernel
        self.alphas = alphas
        self.psd_check = psd_check

    def fit(self, X, y):
        """Choose ``alpha_`` by leave-one-out and fit with it."""
        alphas = np.atleast_1d(np.asarray(self.alphas, dtype=np.float64))
        if alphas.ndim != 1 or alphas.size == 0:
            raise ValueError(f"alphas must be a non-empty 1-D sequence, got {self.alphas!r}")
        for i, a in enumerate(alphas):
            check_scalar(float(a), f"alphas[{i}]", lower=0.0, lower_inclusive=False)
        Y = check_targets(y, n_objects(X))
        # the spectrum below checks PSD: no separate factorisation
        K, objects = self._train_gram(X, len(Y), eigenvalues_checked=True)
        Y2 = Y.reshape(len(Y), -1)
        with small_blas(K.shape[0]):
            if K.shape[0] <= _tuning.RIDGE_CV_EIGH_MAX_N:
                G_diag, coef = self._loo_by_eigh(K, alphas, Y2)
            else:
                G_diag, coef = self._loo_by_tridiagonal(K, alphas, Y2)
        residuals = coef / G_diag[:, :, None]
        loo_mse = np.mean(np.square(residuals), axis=(0, 2))
        best = int(np.argmin(loo_mse))
        self.alpha_ = float(alphas[best])
        self.loo_mse_ = loo_mse
        self.dual_coef_ = coef[:, best, :].reshape(Y.shape).copy()
        self.rkhs_norm_ = rkhs_norm(self.dual_coef_.T, K)
        self.X_fit_ = objects
        return self

    def _check_spectrum(self, K, lam_min, scale, alphas):
        if self.psd_check != "none" and lam_min < -PSD_RTOL * scale:
            _raise_not_psd(K, alphas.min())
        if lam_min + alphas.min() <= 0:
            _raise_singular(alphas.min(), lam_min)

    def _loo_by_eigh(self, K, alphas, Y2):
        """``(diag((K + a I)^{-1}), (K + a I)^{-1} Y)`` for every penalty
        ``a``, shapes (n, n_alphas) and (n, n_alphas, m), from
        ``K = V diag(w) V^T``."""
        from scipy.linalg import eigh

        # divide and conquer: the fastest of SciPy's drivers here
        w, V = eigh(K, driver="evd", check_finite=False)
        self._check_spectrum(K, w[0], np.linalg.norm(w), alphas)
        D = 1.0 / (w[:, None] + alphas[None, :])  # (n, n_alphas)
        G_diag = np.square(V) @ D
        VtY = V.T @ Y2  # (n, m)
        n_alphas, m = len(alphas), Y2.shape[1]
        coef = V @ (D[:, :, None] * VtY[:, None, :]).reshape(len(w), n_alphas * m)
        return G_diag, coef.reshape(len(w), n_alphas, m)

    def _loo_by_tridiagonal(self, K, alphas, Y2):
        """As :meth:`_loo_by_eigh`, from ``K = Q T Q^T`` (``T`` tridiagonal)
        and one ``L D L^T`` factorisation of ``T + a I`` per penalty."""
        from scipy.linalg import eigvalsh_tridiagonal

        from ._ridge_loo import tridiagonal_loo

        n = K.shape[0]
        d, e, Q = _tridiagonalise(K)
        # ||K||_F = ||T||_F; the smallest eigenvalue by bisection, O(n)
        scale = float(np.sqrt(np.dot(d, d) + 2.0 * np.dot(e, e)))
        lam_min = float(eigvalsh_tridiagonal(d, e, select="i", select_range=(0, 0))[0])
        self._check_spectrum(K, lam_min, scale, alphas)
        P = Q.T  # C-ordered: row k is column k of Q
        Z = P @ Y2
        G = np.empty((len(alphas), n))
        X = np.empty((n, len(alphas), Y2.shape[1]))
        bad = tridiagonal_loo(P, d, e, alphas, Z, G, X, _tuning.RIDGE_LOO_PENALTY_BLOCK)
        if bad >= 0:
            _raise_singular(alphas[bad], lam_min)
        coef = Q @ X.reshape(n, -1)
        return G.T, coef.reshape(X.shape)
