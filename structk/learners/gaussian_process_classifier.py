"""Gaussian-process classification by the Laplace approximation, on any
structk kernel."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._threads import small_blas
from .._validation import check_objects, check_scalar
from ._base import _is_precomputed, encode_labels, n_objects
from .gaussian_process import (
    GPMixin,
    _free,
    _given_test_gram,
    _raise_not_pd,
    check_optimizer,
    kernel_candidates,
    maximise,
)

#: Stop Newton's iterations for the posterior mode when the approximate
#: log marginal likelihood gains less than this.
MODE_TOL = 1e-10
#: Width, in standard deviations, of the latent Gaussian's range integrated
#: for the predictive probability (beyond it the weight is below e^-72).
PROBABILITY_SPAN = 12.0


class GaussianProcessClassifier(GPMixin, ClassifierMixin, BaseEstimator):
    r"""Gaussian-process classification, Laplace approximation (Rasmussen &
    Williams, Algorithms 3.1, 3.2 and 5.1); binary, or one-vs-rest.

    A latent ``f ~ GP(0, k)`` gives ``p(y = 1 | f) = 1 / (1 + exp(-f))``.
    Newton's method finds the mode ``f^`` of the posterior of ``f`` at the
    training objects; the Gaussian around it (covariance
    ``(K^{-1} + W)^{-1}``, ``W = pi (1 - pi)``) approximates the posterior,
    and its normaliser the marginal likelihood
    ``log q(y | X, theta) = -a^T f^ / 2 + log p(y | f^) - sum_i log L_ii``
    (``L L^T = I + W^{1/2} K W^{1/2}``), which L-BFGS-B maximises over the
    kernel's free hyperparameters with its exact gradient (Algorithm 5.1;
    ``dK / dtheta`` from :meth:`structk.kernels.Kernel.gram_gradient_prepared`).
    The predictive probability integrates the logistic function against the
    latent Gaussian at the test object (trapezoidal rule, error below 1e-10). Several
    classes: one binary classifier per class against the rest, each with
    its own hyperparameters; their probabilities normalised to sum to 1.

    On vectors it computes what
    ``sklearn.gaussian_process.GaussianProcessClassifier`` does with the
    equivalent kernel (same latent mode and marginal likelihood); its
    probabilities use an exact quadrature where scikit-learn's use an
    approximation of the logistic function by error functions (they agree
    to about 1e-3).

    Parameters
    ----------
    kernel : Kernel, list of Kernel, "precomputed" or None, default=None
        As :class:`~structk.learners.GaussianProcessRegressor` (lists of
        kernels or of parameter values: the highest marginal likelihood).
    optimizer : "fmin_l_bfgs_b", callable or None, default="fmin_l_bfgs_b"
    n_restarts_optimizer : int, default=0
    max_iter_predict : int, default=100
        Newton iterations for the posterior mode, at most.
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    classes_ : ndarray
    kernel_ : Kernel or list of Kernel
        The optimised kernel (one per class against the rest with more than
        two classes).
    log_marginal_likelihood_value_ : float
        At the optimum (the mean over the binary problems with more than two
        classes, as scikit-learn).
    latent_mode_ : ndarray of shape (n_train,) or (n_train, n_classes)
        The posterior mode ``f^`` at the training objects.

    References
    ----------
    C. E. Rasmussen and C. K. I. Williams, *Gaussian Processes for Machine
    Learning*, MIT Press, 2006, Sections 3.4 and 5.5.1.
    """

    def __init__(
        self,
        kernel=None,
        *,
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer=0,
        max_iter_predict=100,
        random_state=None,
    ):
        self.kernel = kernel
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter_predict = max_iter_predict
        self.random_state = random_state

    def fit(self, X, y):
        """Optimise the hyperparameters and find the posterior mode.

        Returns
        -------
        self
        """
        from sklearn.utils import check_random_state

        self.classes_, codes = encode_labels(y, n_objects(X))
        n_restarts = check_optimizer(self)
        self._max_iter = check_scalar(
            self.max_iter_predict, "max_iter_predict", lower=1, integer=True
        )
        rng = check_random_state(self.random_state)
        self._check_input(X, reset=True)
        candidates, n = kernel_candidates(self.kernel, X)
        self.X_train_ = None if _is_precomputed(candidates[0][1]) else check_objects(X, "X")
        if len(codes) != n:
            raise ValueError(
                f"X has {n} training objects but y has {len(codes)} labels; they must match"
            )
        if len(self.classes_) == 2:
            targets = [(codes == 1).astype(np.float64)]
        else:
            targets = [(codes == c).astype(np.float64) for c in range(len(self.classes_))]
        with small_blas(n):
            fitted = [self._fit_binary(candidates, t, n_restarts, rng) for t in targets]
        self._binary = [b for b, _ in fitted]
        self._binary_prepared = [P for _, P in fitted]  # not in model files: rebuilt
        # each problem's fitted kernel lives in kernel_ alone (a model file
        # then holds it once, and a damaged entry is named where it is)
        kernels = [b.pop("kernel") for b in self._binary]
        self.kernel_ = kernels[0] if len(kernels) == 1 else kernels
        self.log_marginal_likelihood_value_ = float(np.mean([b["lml"] for b in self._binary]))
        modes = [b["f"] for b in self._binary]
        self.latent_mode_ = modes[0] if len(modes) == 1 else np.column_stack(modes)
        self.n_train_ = n
        return self

    def _fit_binary(self, candidates, t, n_restarts, rng):
        best = None
        for _, k, P in candidates:

            def lml(theta, eval_gradient=False, raise_on_failure=False, k=k, P=P):
                return _laplace(k, P, t, theta, eval_gradient, self._max_iter)[0]

            names = [] if _is_precomputed(k) else [h.name for h in _free(k)]
            theta0 = np.zeros(0) if _is_precomputed(k) else k.theta
            bounds = np.zeros((0, 2)) if _is_precomputed(k) else k.bounds
            theta, value = maximise(lml, theta0, bounds, names, self.optimizer, n_restarts, rng)
            if best is None or value > best[0]:
                best = (value, k, P, theta)
        value, k, P, theta = best
        kt = k if _is_precomputed(k) else k.with_theta(theta)
        _, state = _laplace(kt, P, t, None, False, self._max_iter, keep=True)
        return dict(state, kernel=kt, t=t, lml=float(value)), P

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """The Laplace approximation of the log marginal likelihood at
        ``theta`` (the kernel's free hyperparameters, log space), and its
        gradient with ``eval_gradient``; ``None``: the value at the optimum.
        Binary problems only when ``theta`` is given."""
        check_is_fitted(self, "latent_mode_")
        if theta is None:
            return self.log_marginal_likelihood_value_
        if len(self._binary) != 1:
            raise ValueError(
                "log_marginal_likelihood(theta) is defined for two classes; "
                f"this model has {len(self.classes_)} (one-vs-rest)"
            )
        b = self._binary[0]
        theta = np.asarray(theta, dtype=np.float64)
        out, _ = _laplace(
            self._kernel(0),
            self._prepared(0),
            b["t"],
            theta,
            eval_gradient,
            self._max_iter,
            raise_on_failure=True,
        )
        return out

    def _kernel(self, i):
        """The fitted kernel of binary problem ``i``."""
        return self.kernel_[i] if isinstance(self.kernel_, list) else self.kernel_

    def _prepared(self, i):
        """The prepared training objects of binary problem ``i`` (prepared
        again for a model read from a file)."""
        cache = self.__dict__.setdefault("_binary_prepared", [None] * len(self._binary))
        if cache[i] is None:
            if self.X_train_ is None:
                raise ValueError(
                    "a precomputed model read from a model file has no training Gram: refit it"
                )
            cache[i] = self._kernel(i).prepare(self.X_train_, "X")
        return cache[i]

    # ------------------------------------------------------------- predict
    def _latent(self, X, test_gram, need_var):
        """Mean and variance of the latent function at ``X``, one column per
        binary problem."""
        from scipy.linalg import solve_triangular

        check_is_fitted(self, "latent_mode_")
        precomputed = _is_precomputed(self.kernel)
        if precomputed:
            K_star = self._test_gram(X, None)
            diag = (
                _given_test_gram(test_gram, K_star.shape[0], full=False, what="a probability")
                if need_var
                else None
            )
        else:
            checked = check_objects(X, "X")
            self._check_input(X, reset=False)
        means, variances = [], []
        for i, b in enumerate(self._binary):
            if not precomputed:
                kernel = self._kernel(i)
                Q = kernel.prepare(checked, "X")
                K_star = kernel.cross_prepared(Q, self._prepared(i))
                diag = kernel.diag_prepared(Q) if need_var else None
            means.append(np.einsum("ij,j->i", K_star, b["t"] - b["pi"]))
            if need_var:
                v = solve_triangular(
                    b["L"], b["W_sr"][:, None] * K_star.T, lower=True, check_finite=False
                )
                variances.append(np.maximum(diag - np.einsum("ij,ij->j", v, v), 0.0))
        return np.column_stack(means), (np.column_stack(variances) if need_var else None)

    def predict(self, X, *, test_gram=None):
        """The most probable class of each object: the sign of the latent
        mean for two classes, else the class of highest probability (of
        highest latent mean with "precomputed" and no ``test_gram``)."""
        check_is_fitted(self, "latent_mode_")
        need_var = len(self._binary) > 1 and (
            test_gram is not None or not _is_precomputed(self.kernel)
        )
        mean, var = self._latent(X, test_gram, need_var=need_var)
        if mean.shape[1] == 1:
            return self.classes_[(mean[:, 0] > 0).astype(int)]
        score = _expected_logistic(mean, var) if need_var else mean
        return self.classes_[np.argmax(score, axis=1)]

    def predict_proba(self, X, *, test_gram=None):
        """Class probabilities, shape (n_test, n_classes) in the order of
        ``classes_``. ``test_gram``: with "precomputed", the test objects'
        ``k(x, x)`` (an array (n_test,) or their Gram)."""
        mean, var = self._latent(X, test_gram, need_var=True)
        p = _expected_logistic(mean, var)
        if p.shape[1] == 1:
            return np.column_stack([1.0 - p[:, 0], p[:, 0]])
        return p / p.sum(axis=1, keepdims=True)


def _laplace(k, P, t, theta, eval_gradient, max_iter, keep=False, raise_on_failure=False):
    """The Laplace approximation for targets ``t`` in {0, 1}: returns
    ``(lml or (lml, gradient), state)`` with the state (mode ``f``, ``pi``,
    ``W_sr``, ``L``) when ``keep``; ``theta=None``: the kernel as it is."""
    from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular

    if _is_precomputed(k):
        K, dK = P, np.zeros(P.shape + (0,))
    else:
        kt = k if theta is None else k.with_theta(theta)
        if eval_gradient:
            K, dK = kt.gram_gradient_prepared(P)
        else:
            K, dK = kt.gram_prepared(P), None
    n = K.shape[0]
    f = np.zeros(n)
    value = -np.inf
    for _ in range(max_iter):  # Newton's method, Algorithm 3.1
        pi = 0.5 * (1.0 + np.tanh(0.5 * f))  # the logistic function, without overflow
        W_sr = np.sqrt(pi * (1.0 - pi))
        B = np.eye(n) + W_sr[:, None] * K * W_sr[None, :]
        try:
            L = cholesky(B, lower=True, check_finite=False)
        except LinAlgError:
            if raise_on_failure or keep:
                _raise_not_pd(K, k, 0.0)
            return ((-np.inf, np.zeros(len(theta))) if eval_gradient else -np.inf), None
        b = W_sr**2 * f + (t - pi)
        a = b - W_sr * cho_solve((L, True), W_sr * (K @ b), check_finite=False)
        f = K @ a
        # log p(y | f) = sum_i (t_i f_i - log(1 + e^f_i))
        new = float(-0.5 * a @ f + np.sum(t * f - np.logaddexp(0.0, f)) - np.log(np.diag(L)).sum())
        converged = new - value < MODE_TOL
        value = new
        if converged:
            break
    pi = 0.5 * (1.0 + np.tanh(0.5 * f))
    W_sr = np.sqrt(pi * (1.0 - pi))
    B = np.eye(n) + W_sr[:, None] * K * W_sr[None, :]
    L = cholesky(B, lower=True, check_finite=False)
    a = t - pi  # = K^{-1} f at the mode
    value = float(-0.5 * a @ f + np.sum(t * f - np.logaddexp(0.0, f)) - np.log(np.diag(L)).sum())
    state = dict(f=f, pi=pi, W_sr=W_sr, L=L) if keep else None
    if not eval_gradient:
        return value, state
    # Algorithm 5.1: explicit and implicit (through the mode) derivatives
    R = W_sr[:, None] * cho_solve((L, True), np.diag(W_sr), check_finite=False)
    C = solve_triangular(L, W_sr[:, None] * K, lower=True, check_finite=False)
    # -1/2 diag((K^-1 + W)^-1) times d^3 log p / df^3 = -pi (1 - pi) (1 - 2 pi)
    s2 = -0.5 * (np.diag(K) - np.einsum("ij,ij->j", C, C)) * (pi * (1 - pi) * (1 - 2 * pi))
    s1 = 0.5 * np.einsum("i,ijk,j->k", a, dK, a) - 0.5 * np.einsum("ij,jik->k", R, dK)
    bj = np.einsum("ijk,j->ik", dK, t - pi)
    s3 = bj - K @ (R @ bj)
    return (value, s1 + s2 @ s3), state


def _expected_logistic(mean, var):
    """``E[1 / (1 + exp(-z))]`` for ``z ~ N(mean, var)``, elementwise.

    The trapezoidal rule on ``mean +- PROBABILITY_SPAN sd`` with step
    ``h = min(1/2, sd/4)``: the integrand is analytic in the strip
    ``|Im z| < min(pi, sd)`` (the logistic function's poles are at
    ``+-i pi``), where the rule's error is below ``exp(-2 pi d / h)``
    times the integrand's growth ``exp(d^2 / 2 sd^2)``: about 1e-11 at
    worst. Gauss-Hermite quadrature with a fixed number of nodes loses
    accuracy as ``sd`` grows (the poles come closer in its scaled variable).
    """
    out = np.empty(mean.shape)
    for idx in np.ndindex(mean.shape):
        mu, sd = float(mean[idx]), float(np.sqrt(var[idx]))
        if sd == 0.0:
            out[idx] = 0.5 * (1.0 + np.tanh(0.5 * mu))
            continue
        h = min(0.5, sd / 4.0)
        m = int(np.ceil(PROBABILITY_SPAN * sd / h))
        u = np.arange(-m, m + 1) * (h / sd)  # in standard deviations
        weight = np.exp(-0.5 * u * u)
        out[idx] = np.dot(weight, 0.5 * (1.0 + np.tanh(0.5 * (mu + sd * u)))) / weight.sum()
    return out
