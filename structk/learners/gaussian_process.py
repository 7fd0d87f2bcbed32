"""Gaussian-process regression on any structk kernel, hyperparameters by the
marginal likelihood."""

from __future__ import annotations

import warnings

import numpy as np

from .._estimator import BaseEstimator, RegressorMixin, check_is_fitted, check_random_state
from .._threads import product_threads, small_blas, small_matmul
from ..kernels.hyperparameters import fixed_gram, fixed_grams
from .._validation import check_objects, check_scalar
from ._base import (
    KernelLearnerMixin,
    _check_kernel,
    _is_precomputed,
    check_gram,
    check_input_features,
    check_targets,
    n_objects,
    object_tags,
)

_LOG_2PI = float(np.log(2.0 * np.pi))


class GPMixin(KernelLearnerMixin):
    """What the Gaussian-process estimators share beyond the kernel
    learners': a kernel that may be None (the default prior) or a list."""

    def __sklearn_tags__(self):
        tags = super(KernelLearnerMixin, self).__sklearn_tags__()  # the regressor's...
        kernel = _template(self.kernel)
        tags.input_tags.pairwise = _is_precomputed(kernel)
        tags.input_tags.sparse = _is_precomputed(kernel)  # a sparse Gram is densified
        return object_tags(tags, kernel)

    def _check_input(self, X, reset):
        check_input_features(self, _template(self.kernel), X, reset)


class GaussianProcessRegressor(GPMixin, RegressorMixin, BaseEstimator):
    r"""Gaussian-process regression (Rasmussen & Williams, Algorithm 2.1).

    The prior is ``f ~ GP(0, k)`` and the observations ``y = f(x) + e``
    with ``e ~ N(0, alpha + noise)``. With ``L L^T = K + (alpha + noise) I``
    the posterior mean at test objects is ``K_* (K + ...)^{-1} y`` and its
    covariance ``K_** - V^T V`` with ``V = L^{-1} K_*^T``. The kernel's free
    hyperparameters (:attr:`structk.kernels.Kernel.theta`: ``sigma`` of a
    ``Gaussian``, the factor of ``c * k`` as the output scale, ...) and the
    noise are chosen by maximising the log marginal likelihood

    ``log p(y | X, theta) = -y^T a / 2 - sum_i log L_ii - n log(2 pi) / 2``

    (``a = (K + ...)^{-1} y``) with its analytic gradient
    ``(tr((a a^T - (K + ...)^{-1}) dK / dtheta_j)) / 2`` by L-BFGS-B; the
    kernel gives ``dK / dtheta`` (analytic or checked finite differences,
    :mod:`structk.kernels.hyperparameters`). When only an output scale
    (``c * k``, ``k`` without free hyperparameters) and the noise are
    learned, the fixed Gram is reduced once per fit (tridiagonalised for
    one output, else eigendecomposed) and each step costs O(n) instead
    (same values to rounding; ``docs/gp.md``, "The model"). Parameters written as lists
    (``Spectrum(k=[3, 4, 5])``, ``Polynomial(degree=[1, 2])``) are chosen
    by the same likelihood: each value is optimised and the best is kept.

    With a vector kernel it computes what
    ``sklearn.gaussian_process.GaussianProcessRegressor`` does with the
    equivalent kernel (``c * Gaussian(sigma)`` is ``ConstantKernel(c) *
    RBF(sigma)``; ``noise=v`` is ``+ WhiteKernel(v)``, whose variance the
    predictive standard deviation and covariance include, as there).

    Parameters
    ----------
    kernel : Kernel, list of Kernel, "precomputed" or None, default=None
        The prior covariance. ``None``: ``1.0 * Gaussian(sigma=1.0)`` with
        both fixed (scikit-learn's default). A list of kernels: each is
        fitted, and the one of highest optimised marginal likelihood kept.
        ``"precomputed"``: ``fit(K, y)`` with the training Gram; then only
        the noise can be learned, and ``predict`` needs ``test_gram`` for a
        standard deviation or covariance.
    alpha : float or array of shape (n_train,), default=1e-10
        Fixed variance added to the Gram's diagonal (jitter, or known
        per-object noise), as in scikit-learn.
    noise : float or None, default=None
        The initial noise variance, learned with the kernel's parameters
        within ``noise_bounds``; ``None``: no learned noise.
    noise_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    optimizer : "fmin_l_bfgs_b", callable or None, default="fmin_l_bfgs_b"
        ``None`` keeps the given hyperparameters. A callable is called as
        ``optimizer(obj_func, initial_theta, bounds)`` and returns
        ``(theta_opt, func_min)``, where ``obj_func(theta)`` returns the
        negative log marginal likelihood and its gradient (scikit-learn's
        convention).
    n_restarts_optimizer : int, default=0
        Further starts drawn log-uniformly within the bounds.
    normalize_y : bool, default=False
        Centre and scale ``y`` to unit variance for the fit (the predictions
        are scaled back).
    random_state : int, RandomState or None, default=None
        For the restarts' starting points.

    Attributes
    ----------
    kernel_ : Kernel or "precomputed"
        The kernel with the optimised hyperparameters (and the chosen values
        of list parameters).
    noise_ : float
        The learned noise variance (0 when ``noise`` is None).
    log_marginal_likelihood_value_ : float
        At the optimum.
    candidates_ : list of (dict, float)
        For list parameters: each combination and its optimised log
        marginal likelihood (one entry ``({}, value)`` otherwise).
    L_ : ndarray of shape (n_train, n_train)
        Lower Cholesky factor of ``K + (alpha + noise_) I``.
    alpha_ : ndarray of shape (n_train,) or (n_train, n_outputs)
        ``(K + (alpha + noise_) I)^{-1} y`` (``y`` normalised if asked).
    X_train_ : objects or None
        The training objects (None with "precomputed").
    y_train_ : ndarray
        The training targets, as given.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.kernels import Gaussian
    >>> from structk.learners import GaussianProcessRegressor
    >>> X = np.linspace(0, 5, 20)[:, None]
    >>> gp = GaussianProcessRegressor(1.0 * Gaussian(1.0), noise=0.1).fit(X, np.sin(X[:, 0]))
    >>> mean, std = gp.predict(X[:3], return_std=True)

    References
    ----------
    C. E. Rasmussen and C. K. I. Williams, *Gaussian Processes for Machine
    Learning*, MIT Press, 2006, Algorithm 2.1 and Section 5.4.1.
    """

    def __init__(
        self,
        kernel=None,
        *,
        alpha=1e-10,
        noise=None,
        noise_bounds=(1e-5, 1e5),
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer=0,
        normalize_y=False,
        random_state=None,
    ):
        self.kernel = kernel
        self.alpha = alpha
        self.noise = noise
        self.noise_bounds = noise_bounds
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.normalize_y = normalize_y
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    @property
    def _noise_hyper(self):
        """The learned noise as a hyperparameter (None without one): derived
        from ``noise`` and ``noise_bounds`` whenever needed, not stored (a
        model file holds no Hyperparameter)."""
        return _noise_hyperparameter(self.noise, self.noise_bounds)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Choose the hyperparameters and factorise the training Gram.

        Parameters
        ----------
        X : sequence of objects, or array of shape (n, n) with "precomputed"
        y : array of shape (n,) or (n, n_outputs)

        Returns
        -------
        self
        """
        Y = check_targets(y, n_objects(X))
        n_restarts = check_optimizer(self)
        rng = check_random_state(self.random_state)
        self.y_train_ = np.array(y, dtype=np.float64, copy=True)
        self._y_mean, self._y_std = _target_scaling(Y, self.normalize_y)
        target = (Y - self._y_mean) / self._y_std
        self._target = target if target.ndim == 2 else target[:, None]  # (n, outputs)
        self._check_input(X, reset=True)
        candidates, n = kernel_candidates(self.kernel, X)
        self.X_train_ = None if _is_precomputed(candidates[0][1]) else check_objects(X, "X")
        if self._target.shape[0] != n:
            raise ValueError(
                f"X has {n} training objects but y has {self._target.shape[0]} "
                "rows; they must match"
            )
        self._alpha = _check_alpha(self.alpha, n)
        _noise_hyperparameter(self.noise, self.noise_bounds)  # checked before the Grams
        best, self.candidates_ = None, []
        with small_blas(n):  # factorisations of order n, many of them
            for params, k, P in candidates:
                # the Grams of the parts without free hyperparameters computed
                # once per candidate (for its optimisation and, when it is the
                # best so far, its state), and freed before the next one
                with fixed_grams():
                    theta, value = self._optimise(k, P, n_restarts, rng)
                    if best is None or value > best:
                        best = value
                        self._set_state(k, P, theta)
                self.candidates_.append((params, float(value)))
        self.log_marginal_likelihood_value_ = float(best)
        return self

    def _optimise(self, k, P, n_restarts, rng):
        """``(theta, log marginal likelihood)`` at the optimum for kernel
        ``k`` on prepared data ``P`` (``theta`` includes the log noise)."""
        space = self._space(k)
        return maximise(self._objective(k, P, space), *space, self.optimizer, n_restarts, rng)

    def _objective(self, k, P, space):
        """The function of ``theta`` the optimiser maximises: the one place
        that picks how the log marginal likelihood is computed.

        When only an output scale (``c * k`` with ``k`` without free
        hyperparameters) and the noise move, and ``alpha`` is one number,
        ``K0`` is reduced once (tridiagonal form for one output, else its
        eigendecomposition) and each step costs O(n)
        (:mod:`._gp_spectral`); a step too close to singular, and every
        other kernel, factorises ``K`` (:meth:`_lml`). Both give the same
        values to rounding; the choice (``_tuning.GP_SPECTRAL_MIN_N``) is
        about time only."""
        from .. import _tuning

        def cholesky(theta, eval_gradient=False, raise_on_failure=False):
            return self._lml(k, P, theta, eval_gradient, raise_on_failure)

        fixed, _ = _fixed_part(k)
        n = self._target.shape[0]
        if (
            fixed is None
            or self.optimizer is None
            or space[0].size == 0
            or np.ndim(self._alpha) != 0
            or n < _tuning.GP_SPECTRAL_MIN_N
        ):
            return cholesky
        from ._gp_spectral import ScaleNoiseLikelihood

        K0 = P.copy() if _is_precomputed(k) else fixed_gram(fixed, P)
        spectral = ScaleNoiseLikelihood(K0, self._target, self._alpha)
        scaled = fixed is not k  # theta[0] is log c
        noise_free = self._noise_hyper is not None and not self._noise_hyper.fixed
        noise_fixed = 0.0 if self._noise_hyper is None else self._noise_hyper.value

        def lml(theta, eval_gradient=False, raise_on_failure=False):
            theta = np.asarray(theta, dtype=np.float64)
            scale = float(np.exp(theta[0])) if scaled else 1.0
            noise = float(np.exp(theta[-1])) if noise_free else noise_fixed
            out = spectral(scale, noise, eval_gradient)
            if out is None:  # too close to singular to decide: factorise
                return cholesky(theta, eval_gradient, raise_on_failure)
            if not eval_gradient:
                return out
            value, d_scale, d_noise = out
            grad = [d_scale] * scaled + [d_noise] * noise_free
            return value, np.array(grad, dtype=np.float64)

        return lml

    def _space(self, k):
        """Start, bounds and names of the optimised vector: the kernel's
        free hyperparameters, then the log noise variance if learned."""
        hyper = [] if _is_precomputed(k) else _free(k)
        if self._noise_hyper is not None and not self._noise_hyper.fixed:
            hyper = hyper + [self._noise_hyper]
        from ..kernels.hyperparameters import bounds_of, theta_of

        return theta_of(hyper), bounds_of(hyper), [h.name for h in hyper]

    def _split(self, k, theta):
        """The kernel with the kernel part of ``theta``, and the noise."""
        n_kernel = 0 if _is_precomputed(k) else len(_free(k))
        noise = 0.0
        if self._noise_hyper is not None:
            noise = (
                float(np.exp(theta[n_kernel]))
                if not self._noise_hyper.fixed
                else self._noise_hyper.value
            )
        if _is_precomputed(k):
            return k, noise
        return k.with_theta(theta[:n_kernel]), noise

    def _gram(self, k, P, eval_gradient):
        if _is_precomputed(k):
            return P.copy(), np.zeros(P.shape + (0,))
        if eval_gradient:
            return k.gram_gradient_prepared(P)
        fixed, factor = _fixed_part(k)
        if fixed is not None:  # as gram_gradient_prepared computes it, once per fit
            K = fixed_gram(fixed, P)
            if fixed is k:
                return K, None
            if np.isfinite(factor * np.abs(K).max(initial=0.0)):
                return factor * K, None
        return k.gram_prepared(P), None  # (an overflow's error)

    def _lml(self, k, P, theta, eval_gradient, raise_on_failure=False):
        """Log marginal likelihood (and its gradient) at ``theta``; on a
        failed factorisation ``-inf`` (zero gradient) for the optimiser, or
        the error explaining it (``raise_on_failure``)."""
        from scipy.linalg import LinAlgError, cho_solve

        kt, noise = self._split(k, np.asarray(theta, dtype=np.float64))
        K, dK = self._gram(kt, P, eval_gradient)
        n = K.shape[0]
        K[np.diag_indices(n)] += self._alpha + noise
        try:
            L = _cholesky(K)
        except LinAlgError:
            if raise_on_failure:
                _raise_not_pd(K, kt, self._alpha + noise)
            return (-np.inf, np.zeros(len(theta))) if eval_gradient else -np.inf
        y = self._target
        a = cho_solve((L, True), y, check_finite=False)
        value = float(
            -0.5 * np.einsum("ik,ik->", y, a)
            - np.log(np.diag(L)).sum() * y.shape[1]
            - 0.5 * n * _LOG_2PI * y.shape[1]
        )
        if not eval_gradient:
            return value
        # d lml / d theta_j = tr((a a^T - t (K + ...)^{-1}) dK_j) / 2, t outputs
        inner = a @ a.T - y.shape[1] * _inverse(L)
        grad = 0.5 * np.einsum("ij,ijk->k", inner, dK)
        if self._noise_hyper is not None and not self._noise_hyper.fixed:
            grad = np.append(grad, 0.5 * noise * np.trace(inner))
        return value, grad

    def _set_state(self, k, P, theta):
        from scipy.linalg import LinAlgError, cho_solve

        kt, noise = self._split(k, theta)
        K, _ = self._gram(kt, P, False)
        K[np.diag_indices(K.shape[0])] += self._alpha + noise
        try:
            self.L_ = _cholesky(K)
        except LinAlgError:
            _raise_not_pd(K, kt, self._alpha + noise)
        self.kernel_ = kt
        self.noise_ = float(noise)
        self._train_prepared = P  # the training Gram with "precomputed"
        self.n_train_ = K.shape[0]
        a = cho_solve((self.L_, True), self._target, check_finite=False)
        self.alpha_ = a if self.y_train_.ndim == 2 else a[:, 0]

    # ------------------------------------------------------------- predict
    def predict(self, X, return_std=False, return_cov=False, *, test_gram=None):
        """Posterior mean, and its standard deviation or covariance.

        Parameters
        ----------
        X : sequence of objects, or (n_test, n_train) cross-Gram with "precomputed"
        return_std, return_cov : bool
            At most one of them.
        test_gram : array, optional
            With "precomputed" only: the test objects' Gram (n_test, n_test)
            for ``return_cov``, or its diagonal (n_test,) for ``return_std``.

        Returns
        -------
        mean : ndarray of shape (n_test,) or (n_test, n_outputs)
        std : ndarray of shape (n_test,) or (n_test, n_outputs), if return_std
        cov : ndarray of shape (n_test, n_test) or (n_test, n_test, n_outputs), if return_cov
        """
        from scipy.linalg import solve_triangular

        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        check_is_fitted(self, "alpha_")
        precomputed = _is_precomputed(self.kernel_)
        if precomputed:
            K_trans = self._test_gram(X, None)
        else:
            kernel, P = self._prediction_kernel(self.X_train_)
            Q = kernel.prepare(check_objects(X, "X"), "X")
            self._check_input(X, reset=False)
            K_trans = kernel.cross_prepared(Q, P)
        # row by row (not one BLAS product): each mean is the same whichever
        # other test objects are predicted with it
        mean = np.einsum("ij,j...->i...", K_trans, self.alpha_)
        mean = self._y_std * mean + self._y_mean
        if not (return_std or return_cov):
            return mean
        # n_train^2 n_test / 2 multiply-adds: on one BLAS thread when that is
        # small (structk._threads.product_threads), or OpenBLAS's helpers spin
        # on the cores the next fit needs (a quarter of the CPU of a
        # Photoswitch split, docs/gp.md)
        with product_threads(self.L_.size * K_trans.shape[0] // 2):
            V = solve_triangular(self.L_, K_trans.T, lower=True, check_finite=False)
        if return_cov:
            K_test = (
                _given_test_gram(test_gram, K_trans.shape[0], full=True)
                if precomputed
                else kernel.gram_prepared(Q)
            )
            cov = K_test - small_matmul(V.T, V)
            cov[np.diag_indices(cov.shape[0])] += self.noise_
            return mean, _scaled(cov, self._y_std)
        var = (
            _given_test_gram(test_gram, K_trans.shape[0], full=False)
            if precomputed
            else kernel.diag_prepared(Q).copy()
        )
        var -= np.einsum("ij,ij->j", V, V)
        var += self.noise_
        return mean, predictive_std(var, self._y_std)

    def sample_y(self, X, n_samples=1, random_state=0):
        """Draws from the posterior at ``X``: shape (n_test, n_samples), or
        (n_test, n_outputs, n_samples) for several outputs (scikit-learn's
        draws for the same ``random_state``)."""
        rng = check_random_state(random_state)
        mean, cov = self.predict(X, return_cov=True)
        if mean.ndim == 1:
            return rng.multivariate_normal(mean, cov, n_samples).T
        return np.stack(
            [
                rng.multivariate_normal(mean[:, t], cov[..., t], n_samples).T
                for t in range(mean.shape[1])
            ],
            axis=1,
        )

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """Log marginal likelihood of the training data at ``theta`` (the
        kernel's free hyperparameters in log space, then the log noise if
        learned); ``None``: its value at the optimum. With
        ``eval_gradient=True`` also its gradient in ``theta``."""
        check_is_fitted(self, "alpha_")
        if theta is None:
            if eval_gradient:
                raise ValueError("eval_gradient needs theta (the gradient is not stored)")
            return self.log_marginal_likelihood_value_
        k = self.kernel_
        theta = np.asarray(theta, dtype=np.float64).ravel()
        size = len(self._space(k)[0])
        if theta.size != size:
            raise ValueError(
                f"theta has {theta.size} entries; this model has {size} "
                f"hyperparameters {self._space(k)[2]}"
            )
        P = self.__dict__.get("_train_prepared")
        if P is None:
            if _is_precomputed(k):
                raise ValueError(
                    "log_marginal_likelihood(theta) of a precomputed model "
                    "read from a model file needs its training Gram: refit it"
                )
            P = self._prediction_kernel(self.X_train_)[1]
        return self._lml(k, P, theta, eval_gradient, raise_on_failure=True)


# -------------------------------------------------------------- helpers
def check_optimizer(estimator):
    """The number of restarts, after checking ``optimizer`` and
    ``n_restarts_optimizer`` of a Gaussian-process estimator."""
    optimizer = estimator.optimizer
    if optimizer is not None and optimizer != "fmin_l_bfgs_b" and not callable(optimizer):
        raise ValueError(
            f"optimizer must be 'fmin_l_bfgs_b', a callable or None, got {optimizer!r}"
        )
    return check_scalar(
        estimator.n_restarts_optimizer, "n_restarts_optimizer", lower=0, integer=True
    )


def kernel_candidates(kernel, X):
    """``([(list parameters, fitted kernel, prepared X), ...], n)``: one
    entry per kernel of a list and per combination of list-valued
    parameters; ``[({}, "precomputed", K)]`` for a precomputed Gram."""
    if _is_precomputed(_template(kernel)):
        from ._psd import check_psd_policy

        K = check_gram(X, "K")
        # symmetry and the O(n^2) necessary conditions; the Cholesky
        # factorisations of the fit are the rest of the check
        check_psd_policy(K, "auto", factorise=False, user_gram=True)
        return [({}, "precomputed", K)], K.shape[0]
    from .._estimator import clone
    from ..kernels.hyperparameters import expand_lists

    objects = check_objects(X, "X")
    candidates = []
    for given in _kernel_list(kernel):
        for params, k in expand_lists(_check_kernel(given)):
            k = clone(k).fit(objects)
            candidates.append((params, k, k.prepare(objects, "X")))
    return candidates, n_objects(objects)


def maximise(lml, theta0, bounds, names, optimizer, n_restarts, rng):
    """``(theta, value)`` maximising ``lml(theta, eval_gradient=False,
    raise_on_failure=False)`` from ``theta0`` and ``n_restarts`` starts
    drawn uniformly within ``bounds`` (log space) by ``rng``, as
    scikit-learn's Gaussian processes do; warns of an optimum at a bound."""
    if optimizer is None or theta0.size == 0:
        return theta0, lml(theta0, raise_on_failure=True)

    def objective(theta):
        value, grad = lml(theta, eval_gradient=True)
        return -value, -grad

    optima = [_minimise(optimizer, objective, theta0, bounds)]
    if n_restarts > 0:
        if not np.isfinite(bounds).all():
            raise ValueError(
                "n_restarts_optimizer needs finite bounds for every "
                f"hyperparameter; got {dict(zip(names, bounds.tolist()))}"
            )
        for _ in range(n_restarts):
            start = rng.uniform(bounds[:, 0], bounds[:, 1])
            optima.append(_minimise(optimizer, objective, start, bounds))
    theta, fun = min(optima, key=lambda o: o[1])
    if not np.isfinite(fun):
        lml(theta, raise_on_failure=True)  # says why
    _warn_at_bounds(theta, bounds, names)
    return theta, -fun


def _minimise(optimizer, objective, theta, bounds):
    if callable(optimizer):
        theta_opt, fun = optimizer(objective, theta, bounds)
        return np.asarray(theta_opt, dtype=np.float64), float(fun)
    from ._lbfgsb import minimize  # SciPy's L-BFGS-B without scipy.optimize's import

    x, fun, success, message = minimize(objective, theta, bounds)
    if not success:
        from .._estimator import warn_not_converged

        warn_not_converged(
            f"L-BFGS-B did not converge in the marginal likelihood: {message}",
            stacklevel=5,
        )
    return x, fun


def _template(kernel):
    """The kernel a GP uses: scikit-learn's default for None, the first of a
    list for checks (the list is expanded in fit)."""
    if kernel is None:
        from ..kernels import Gaussian, Scaled

        return Scaled(Gaussian(1.0, sigma_bounds="fixed"), 1.0, factor_bounds="fixed")
    if isinstance(kernel, (list, tuple)):
        return _kernel_list(kernel)[0]
    return kernel


def _kernel_list(kernel):
    """The kernels of a list (``kernel`` itself when it is not one)."""
    if not isinstance(kernel, (list, tuple)):
        return [_template(kernel)]
    if not kernel:
        raise ValueError("kernel is an empty list: give at least one kernel")
    for i, k in enumerate(kernel):
        if _is_precomputed(k) or isinstance(k, (list, tuple)):
            raise ValueError(f"kernel[{i}] is {k!r}: a list of kernels holds Kernel objects only")
    return list(kernel)


def _free(k):
    from ..kernels.hyperparameters import free

    return free(k)


def _fixed_part(k):
    """``(kernel, factor)`` when the Gram of ``k`` is ``factor`` times that
    of a kernel without free hyperparameters at every ``theta``: ``k``
    itself (factor 1) or the ``kernel`` of ``c * kernel`` with ``c`` free;
    ``(None, None)`` otherwise. A precomputed Gram is its own fixed part."""
    if _is_precomputed(k):
        return k, 1.0
    from ..kernels import Scaled

    free = _free(k)
    if not free:
        return k, 1.0
    if isinstance(k, Scaled) and len(free) == 1 and not _free(k.kernel):
        return k.kernel, float(k.factor)
    return None, None


def _check_alpha(alpha, n):
    if np.ndim(alpha) == 0:
        return check_scalar(alpha, "alpha", lower=0)
    a = np.asarray(alpha, dtype=np.float64)
    if a.shape == (1,):
        return check_scalar(float(a[0]), "alpha", lower=0)
    if a.shape != (n,):
        raise ValueError(
            f"alpha must be a number or an array of one variance per "
            f"training object ({n}), got shape {a.shape}"
        )
    if not (np.isfinite(a).all() and (a >= 0).all()):
        i = int(np.flatnonzero(~(np.isfinite(a) & (a >= 0)))[0])
        raise ValueError(f"alpha[{i}] is {a[i]}: variances must be finite and >= 0")
    return a


def _noise_hyperparameter(noise, bounds):
    if noise is None:
        return None
    from ..kernels.hyperparameters import declare

    value = check_scalar(noise, "noise", lower=0, lower_inclusive=False)
    return declare(None, "noise", value=value, bounds=bounds, owner="GaussianProcessRegressor")


def _target_scaling(Y, normalize):
    if not normalize:
        shape = Y.shape[1:]
        return np.zeros(shape), np.ones(shape)
    mean = np.asarray(Y.mean(axis=0))  # a 0-d array for one output, as unscaled
    std = Y.std(axis=0)
    std = np.where(std < 10 * np.finfo(np.float64).eps, 1.0, std)
    return mean, std


def predictive_std(var, y_std):
    """The standard deviation from variances ``var`` of normalised targets
    (negative ones, from rounding, set to 0 with a warning)."""
    if (var < 0).any():
        warnings.warn(
            "Predicted variances smaller than 0 (rounding); set to 0.",
            RuntimeWarning,
            stacklevel=3,
        )
        var = np.maximum(var, 0.0)
    return np.sqrt(_scaled(var, y_std))


def _scaled(var, y_std):
    """A variance (n,) or covariance (n, n) of normalised targets, in the
    units of y: one per output when there are several."""
    y_std = np.asarray(y_std)
    if y_std.ndim == 0:
        return var * y_std**2
    out = var[..., None] * y_std**2
    return out[..., 0] if out.shape[-1] == 1 else out


def _given_test_gram(test_gram, n_test, full, what="a standard deviation or covariance"):
    need = "(n_test, n_test) Gram" if full else "diagonal (n_test,) of the Gram"
    if test_gram is None:
        raise ValueError(
            f"with kernel='precomputed', {what} needs test_gram=: the {need} "
            "of the test objects, k(x, x)"
        )
    G = np.asarray(test_gram, dtype=np.float64)
    if full and G.shape != (n_test, n_test):
        raise ValueError(f"test_gram must be the {need}, got shape {G.shape}")
    if not full:
        G = np.diag(G).copy() if G.ndim == 2 else G.copy()
        if G.shape != (n_test,):
            raise ValueError(f"test_gram must be the {need}, got shape {G.shape}")
    return G


def _inverse(L):
    """``(L L^T)^-1`` from the lower Cholesky factor ``L`` (LAPACK's
    ``dpotri``: half the work of solving for the identity)."""
    from scipy.linalg.lapack import dpotri

    inv, info = dpotri(L, lower=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"dpotri failed (info={info})")
    lower = np.tril(inv)
    return lower + np.tril(lower, -1).T


def _cholesky(K):
    from scipy.linalg import cholesky

    return cholesky(K, lower=True, check_finite=False)


def _raise_not_pd(K, kernel, added):
    """Explain a failed Cholesky factorisation of ``K`` (the Gram plus
    ``added`` on its diagonal): duplicate objects without noise, or an
    indefinite or near-singular Gram."""
    from ..exceptions import NotPSDError

    n = K.shape[0]
    added_text = np.array2string(np.asarray(added), threshold=4)
    _, first, inverse = np.unique(np.round(K, 12), axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    dup = [(int(first[inverse[j]]), j) for j in range(n) if first[inverse[j]] != j]
    name = "the precomputed Gram" if _is_precomputed(kernel) else f"the Gram of {kernel!r}"
    if dup:
        i, j = dup[0]
        raise NotPSDError(
            f"{name} is singular: objects X[{i}] and X[{j}] have the same kernel row "
            f"(the same object twice?; {len(dup)} such pair(s)), and the variance added "
            f"to the diagonal ({added_text}) cannot separate them. Learn a noise "
            "(noise=1e-2) or raise alpha."
        )
    smallest = float(np.linalg.eigvalsh(K)[0])
    raise NotPSDError(
        f"{name} plus alpha + noise = {added_text} on its diagonal is not positive "
        f"definite (Cholesky failed; smallest eigenvalue {smallest:.3g}): the kernel "
        "is not positive semi-definite, or numerically singular at these "
        "hyperparameters. Raise alpha "
        f"above {abs(smallest):.2g} (e.g. alpha={max(1e-8, 2 * abs(smallest)):.2g}) or "
        "learn a noise (noise=1e-2)."
    )


def _warn_at_bounds(theta, bounds, names):
    from .._estimator import warn_not_converged

    for t, (low, high), name in zip(theta, bounds, names):
        for end, b in (("lower", low), ("upper", high)):
            if np.isclose(t, b):
                short = name.rsplit("__", 1)[-1].split("[")[0]  # weights[2]: weights
                advice = f"widen {short}_bounds or fix it."
                if short == "lam" and end == "upper":  # RandomWalk's, from the graphs
                    advice = (
                        "lam_bounds stop at 0.9 of the geometric series' convergence "
                        "limit 1 / rho^2 on the training graphs and cannot go past it: "
                        "longer walks would need kind='exponential' or 'truncated'."
                    )
                warn_not_converged(
                    f"The optimal value of {name} ({np.exp(t):.3g}) is at its {end} "
                    f"bound {np.exp(b):.3g}: the marginal likelihood wants it "
                    f"{'smaller' if end == 'lower' else 'larger'}; {advice}",
                    stacklevel=5,
                )
