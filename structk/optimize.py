"""Bayesian optimisation over a finite pool of candidates.

A fitted :class:`~structk.learners.GaussianProcessRegressor` (on any structk
kernel: strings, sets, graphs, vectors or a precomputed Gram) ranks the
candidates not yet measured by an acquisition function of its posterior:

* ``"ei"``: expected improvement over the best observed target,
  ``E[max(f - best, 0)] = sigma h(z)``, ``h(z) = phi(z) + z Phi(z)``,
  ``z = (mu - best) / sigma`` (Jones, Schonlau & Welch 1998);
* ``"logei"``: its logarithm computed without forming ``h(z)`` where it
  underflows (Ament et al. 2023): finite and accurate for ``z = -40`` and far
  below, where ``"ei"`` is 0 for every candidate and cannot rank them;
* ``"ucb"``: the optimistic bound ``mu + sqrt(beta) sigma`` (Srinivas et al.
  2010; ``mu - sqrt(beta) sigma`` when minimising);
* ``"thompson"``: a draw of the latent function jointly over the whole pool
  from the posterior, and its best candidate (Thompson 1933).

All use the posterior of the latent function ``f`` (the learned noise is not
in ``sigma``). :func:`suggest` proposes ``n`` candidates: for ``"ei"``,
``"logei"`` and ``"ucb"`` one at a time, each chosen one entering the
posterior as a fantasy observation (its posterior mean: the kriging
believer, or a constant: the constant liar; Ginsbourger, Le Riche & Carraro
2010) by an exact rank-one update; for ``"thompson"`` ``n`` independent joint
draws, each contributing its best candidate not already proposed.

References
----------
D. R. Jones, M. Schonlau and W. J. Welch, "Efficient global optimization of
expensive black-box functions", *J. Global Optim.* 13, 1998.

S. Ament, S. Daulton, D. Eriksson, M. Balandat and E. Bakshy, "Unexpected
improvements to expected improvement for Bayesian optimization", NeurIPS
2023 (the ``log_h`` of its Eq. 9).

N. Srinivas, A. Krause, S. Kakade and M. Seeger, "Gaussian process
optimization in the bandit setting: no regret and experimental design",
ICML 2010.

D. Ginsbourger, R. Le Riche and L. Carraro, "Kriging is well-suited to
parallelize optimization", in *Computational Intelligence in Expensive
Optimization Problems*, Springer, 2010.

W. R. Thompson, "On the likelihood that one unknown probability exceeds
another in view of the evidence of two samples", *Biometrika* 25, 1933.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

ACQUISITIONS = ("ei", "logei", "ucb", "thompson")

_EPS = float(np.finfo(np.float64).eps)
_LOG_SQRT_2PI = 0.5 * float(np.log(2.0 * np.pi))
_LOG_SQRT_HALF_PI = 0.5 * float(np.log(np.pi / 2.0))
# below this z, 1 - |z| erfcx(-z / sqrt 2) sqrt(pi / 2) = 1 / z^2 to rounding
_ASYMPTOTIC_Z = -1.0 / np.sqrt(_EPS)
# relative feature-space distance below which a candidate is a training object
_SAME_OBJECT = 1e-10


class Suggestion(NamedTuple):
    """What :func:`suggest` proposes, in the order chosen.

    Attributes
    ----------
    index : ndarray of int, shape (n,)
        Positions in the pool.
    mean, std : ndarray of shape (n,)
        Posterior mean and standard deviation of the latent function at
        each (the model's posterior, before any fantasy observation; ``std``
        without the learned noise).
    acquisition : ndarray of shape (n,)
        The acquisition value with which each was chosen (after the fantasy
        observations of those chosen before it): expected improvement, its
        logarithm, the optimistic bound, or the Thompson draw's value.
    """

    index: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    acquisition: np.ndarray


# ------------------------------------------------------- acquisition functions
def _log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0``, accurate at both ends (Maechler 2012)."""
    x = np.asarray(x, dtype=np.float64)
    near = x > -np.log(2.0)
    return np.where(near, np.log(-np.expm1(np.minimum(x, 0.0))), np.log1p(-np.exp(x)))


def log_h(z):
    """``log(phi(z) + z Phi(z))``, finite for every finite ``z``.

    For ``z > -1`` the sum itself; below, ``h(z) = phi(z) (1 - |z|
    erfcx(-z / sqrt 2) sqrt(pi / 2))`` (``erfcx`` the scaled complementary
    error function), taken as ``-z^2/2 - log sqrt(2 pi) + log1mexp(...)``;
    below ``-1 / sqrt(eps)`` its asymptote ``-z^2/2 - log sqrt(2 pi) -
    2 log|z|`` (Ament et al. 2023, Eq. 9).
    """
    from scipy.special import erfcx, ndtr

    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    upper = z > -1.0
    zu = z[upper]
    out[upper] = np.log(np.exp(-0.5 * zu**2 - _LOG_SQRT_2PI) + zu * ndtr(zu))
    middle = (z <= -1.0) & (z > _ASYMPTOTIC_Z)
    zm = z[middle]
    out[middle] = (
        -0.5 * zm**2
        - _LOG_SQRT_2PI
        + _log1mexp(np.log(erfcx(-zm / np.sqrt(2.0)) * np.abs(zm)) + _LOG_SQRT_HALF_PI)
    )
    lower = z <= _ASYMPTOTIC_Z
    zl = z[lower]
    out[lower] = -0.5 * zl**2 - _LOG_SQRT_2PI - 2.0 * np.log(np.abs(zl))
    return out


def _improvement(mean, std, best, maximize):
    """``(mean, std, gain = signed mean - best)`` as float arrays, checked."""
    mean = np.asarray(mean, dtype=np.float64)
    std = np.asarray(std, dtype=np.float64)
    for name, a in (("mean", mean), ("std", std)):
        if not np.isfinite(a).all():
            i = np.flatnonzero(~np.isfinite(a.ravel()))[0]
            raise ValueError(f"{name}[{i}] is {a.ravel()[i]}: posterior values must be finite")
    if (std < 0).any():
        i = np.flatnonzero(std.ravel() < 0)[0]
        raise ValueError(f"std[{i}] is {std.ravel()[i]}: a standard deviation is >= 0")
    best = float(best)
    if not np.isfinite(best):
        raise ValueError(f"best is {best}: the best observed target must be finite")
    gain = mean - best if maximize else best - mean
    return mean, std, gain


def log_expected_improvement(mean, std, best, *, maximize=True):
    """Logarithm of the expected improvement, accurate where it underflows.

    Parameters
    ----------
    mean, std : array_like
        Posterior mean and standard deviation of the latent function.
    best : float
        The best target observed so far (largest when maximising).
    maximize : bool, default=True
        False: improvement is a decrease below ``best``.

    Returns
    -------
    ndarray
        ``log(sigma) + log h(z)``; where ``std`` is 0, ``log(max(gain, 0))``
        (``-inf`` with no gain).

    References
    ----------
    S. Ament et al., "Unexpected improvements to expected improvement for
    Bayesian optimization", NeurIPS 2023.
    """
    mean, std, gain = _improvement(mean, std, best, maximize)
    out = np.empty(np.broadcast(mean, std).shape)
    gain, std = np.broadcast_to(gain, out.shape), np.broadcast_to(std, out.shape)
    random = std > 0
    out[random] = np.log(std[random]) + log_h(gain[random] / std[random])
    with np.errstate(divide="ignore"):
        out[~random] = np.log(np.maximum(gain[~random], 0.0))
    return out


def expected_improvement(mean, std, best, *, maximize=True):
    """Expected improvement ``E[max(f - best, 0)]`` under ``f ~ N(mean, std^2)``.

    ``std * h(z)`` with ``h`` from :func:`log_h` (no cancellation between
    ``phi(z)`` and ``z Phi(z)`` for negative ``z``); it underflows to 0 below
    about 1e-308, where :func:`log_expected_improvement` still ranks.
    Parameters as :func:`log_expected_improvement`.
    """
    return np.exp(log_expected_improvement(mean, std, best, maximize=maximize))


def upper_confidence_bound(mean, std, *, beta=4.0, maximize=True):
    """``mean + sqrt(beta) std``; minimising, ``mean - sqrt(beta) std``.

    The optimistic value of the target: the best candidate has the largest
    bound when maximising and the smallest when minimising.
    """
    from ._validation import check_scalar

    beta = check_scalar(beta, "beta", lower=0)
    mean, std, _ = _improvement(mean, std, 0.0, maximize)
    return mean + np.sqrt(beta) * std if maximize else mean - np.sqrt(beta) * std


# ------------------------------------------------------------------ suggest
def suggest(
    gp,
    pool,
    n=1,
    *,
    acquisition="ei",
    maximize=True,
    beta=4.0,
    best=None,
    fantasy="believer",
    in_training="raise",
    test_gram=None,
    random_state=None,
):
    """The next ``n`` candidates of a finite pool to measure.

    Parameters
    ----------
    gp : GaussianProcessRegressor
        Fitted, on one target, with any kernel (or "precomputed").
    pool : sequence of objects, or (n_pool, n_train) cross-Gram with "precomputed"
        The candidates, in the form the model was fitted on.
    n : int, default=1
        How many to propose (at most the pool's size).
    acquisition : {"ei", "logei", "ucb", "thompson"}, default="ei"
        See :mod:`structk.optimize`. "ei" and "logei" choose the same
        candidates ("ei" is ranked by its logarithm, also where it
        underflows to 0) and report EI or its logarithm.
    maximize : bool, default=True
        False to look for the smallest target.
    beta : float, default=4.0
        The width of "ucb": ``mu +- sqrt(beta) sigma`` (two standard
        deviations).
    best : float, optional
        The incumbent for "ei"/"logei"; default the best training target.
    fantasy : "believer" or float, default="believer"
        For ``n > 1`` with "ei", "logei" or "ucb": the value a chosen
        candidate is pretended to have had, its posterior mean (kriging
        believer) or this constant in the target's units (constant liar).
        The fantasy is observed with the model's noise (``noise_ + alpha``;
        the mean of ``alpha`` when it is per object), and updates the
        incumbent.
    in_training : {"raise", "skip", "keep"}, default="raise"
        A candidate the kernel cannot tell from a training object (feature
        distance 0 to rounding): an error naming both, left out of the
        proposals, or treated as any other.
    test_gram : array, optional
        With "precomputed" only: the pool's Gram (n_pool, n_pool), or its
        diagonal (n_pool,) for ``n=1`` with "ei", "logei" or "ucb".
    random_state : int, numpy Generator or None, default=None
        The Thompson draws' seed (same seed, same proposals).

    Returns
    -------
    Suggestion
        ``(index, mean, std, acquisition)``, each of length ``n``.

    Notes
    -----
    Batches and Thompson sampling need the pool's joint posterior covariance:
    ``n_pool^2`` floats, and an eigendecomposition of order ``n_pool`` for
    Thompson sampling (a pool of a few thousand candidates).

    Examples
    --------
    >>> import numpy as np
    >>> from structk.kernels import Gaussian
    >>> from structk.learners import GaussianProcessRegressor
    >>> from structk.optimize import suggest
    >>> X = np.linspace(0, 4, 9)[:, None]
    >>> gp = GaussianProcessRegressor(1.0 * Gaussian(1.0), noise=1e-2)
    >>> gp = gp.fit(X[::2], np.sin(X[::2, 0]))
    >>> s = suggest(gp, X[1::2], n=2, acquisition="ei")
    >>> s.index.shape
    (2,)
    """
    from ._validation import check_scalar

    if acquisition not in ACQUISITIONS:
        raise ValueError(
            f"acquisition={acquisition!r} is not known; use one of {', '.join(ACQUISITIONS)}"
        )
    if in_training not in ("raise", "skip", "keep"):
        raise ValueError(f"in_training={in_training!r}: use 'raise', 'skip' or 'keep'")
    if not isinstance(fantasy, str) or fantasy != "believer":
        fantasy = check_scalar(fantasy, "fantasy")  # a constant lie, finite
    n = check_scalar(n, "n", lower=1, integer=True)
    _check_gp(gp)
    full = n > 1 or acquisition == "thompson"
    mean, cov, duplicates = _pool_posterior(gp, pool, full, test_gram)
    var = np.diag(cov).copy() if full else cov
    std = np.sqrt(np.maximum(var, 0.0))
    allowed = np.ones(len(mean), dtype=bool)
    if duplicates and in_training == "raise":
        i, j = duplicates[0]
        raise ValueError(
            f"pool[{i}] is training object X[{j}] to the kernel ({len(duplicates)} "
            "such candidate(s)): measured already, or another object with the same "
            "features. Remove the measured objects from the pool, or pass "
            "in_training='skip' to leave such candidates out, or 'keep' to rank them"
        )
    if in_training == "skip":
        allowed[[i for i, _ in duplicates]] = False
    available = int(allowed.sum())
    if n > available:
        left = (
            ""
            if available == len(mean)
            else f" ({len(mean) - available} skipped as training objects)"
        )
        raise ValueError(
            f"n={n} but the pool has {available} candidates{left}: ask for at most that"
        )
    if best is None:
        y = gp.y_train_
        best = float(y.max() if maximize else y.min())
    else:
        best = check_scalar(best, "best")
    if acquisition == "thompson":
        index, value = _thompson(mean, cov, n, allowed, maximize, random_state)
    else:
        noise = (gp.noise_ + float(np.mean(gp._alpha))) * float(np.square(gp._y_std))
        index, value = _greedy(
            mean, cov, n, allowed, acquisition, maximize, beta, best, fantasy, noise
        )
    return Suggestion(index, mean[index], std[index], value)


def _check_gp(gp):
    from sklearn.utils.validation import check_is_fitted

    from .learners.gaussian_process import GaussianProcessRegressor

    if not isinstance(gp, GaussianProcessRegressor):
        raise TypeError(
            f"gp must be a fitted structk GaussianProcessRegressor, got "
            f"{type(gp).__name__}: Bayesian optimisation needs a posterior mean and "
            "standard deviation"
        )
    check_is_fitted(gp, "alpha_")
    if np.ndim(gp.y_train_) == 2 and gp.y_train_.shape[1] != 1:
        raise ValueError(
            f"gp was fitted on {gp.y_train_.shape[1]} targets; Bayesian optimisation "
            "needs a model of one target"
        )


def _pool_posterior(gp, pool, full, test_gram):
    """Latent posterior at the pool in the target's units: ``(mean,
    covariance or variance, [(pool index, training index), ...] of
    candidates equal to a training object under the kernel)``."""
    from scipy.linalg import solve_triangular

    from ._threads import small_blas
    from ._validation import check_objects
    from .learners._base import _is_precomputed
    from .learners.gaussian_process import _given_test_gram

    what = "the pool's posterior covariance (n > 1 or thompson)" if full else "a std"
    if _is_precomputed(gp.kernel_):
        K_trans = gp._test_gram(pool, None)
        K_pool = _given_test_gram(test_gram, K_trans.shape[0], full=full, what=what)
        train = gp.__dict__.get("_train_prepared")
        train_diag = None if train is None else np.diag(train)
    else:
        if test_gram is not None:
            raise ValueError("test_gram is for kernel='precomputed' models only")
        kernel, P = gp._prediction_kernel(gp.X_train_)
        Q = kernel.prepare(check_objects(pool, "pool"), "pool")
        try:
            gp._check_input(pool, reset=False)
        except ValueError as exc:  # the learner's message names X
            raise ValueError(str(exc).replace("X has", "pool has", 1)) from None
        K_trans = kernel.cross_prepared(Q, P)
        K_pool = kernel.gram_prepared(Q) if full else kernel.diag_prepared(Q).copy()
        train_diag = kernel.diag_prepared(P)
    pool_diag = np.diag(K_pool) if full else K_pool
    duplicates = []
    if train_diag is not None:
        scale = pool_diag[:, None] + train_diag[None, :]
        distance = scale - 2.0 * K_trans
        same = np.argwhere(distance <= _SAME_OBJECT * np.abs(scale))
        duplicates = [(int(i), int(j)) for i, j in same]
        first = {}
        for i, j in duplicates:
            first.setdefault(i, j)
        duplicates = sorted(first.items())
    y_mean, y_std = float(np.ravel(gp._y_mean)[0]), float(np.ravel(gp._y_std)[0])
    mean = K_trans @ np.ravel(gp.alpha_) * y_std + y_mean
    with small_blas(max(K_trans.shape)):
        V = solve_triangular(gp.L_, K_trans.T, lower=True, check_finite=False)
        if full:
            cov = K_pool - V.T @ V
            cov = 0.5 * (cov + cov.T)
        else:
            cov = K_pool - np.einsum("ij,ij->j", V, V)
    return mean, cov * y_std**2, duplicates


def _scores(acquisition, mean, std, best, maximize, beta):
    """``(value reported, score to maximise)`` of every candidate."""
    if acquisition == "ucb":
        value = upper_confidence_bound(mean, std, beta=beta, maximize=maximize)
        return value, value if maximize else -value
    value = log_expected_improvement(mean, std, best, maximize=maximize)
    return (value if acquisition == "logei" else np.exp(value)), value


def _greedy(mean, cov, n, allowed, acquisition, maximize, beta, best, fantasy, noise):
    """One candidate at a time, each observed as a fantasy before the next."""
    mean, allowed = mean.copy(), allowed.copy()
    cov = cov.copy() if n > 1 else cov
    index, values = [], []
    for step in range(n):
        var = np.diag(cov) if cov.ndim == 2 else cov
        std = np.sqrt(np.maximum(var, 0.0))
        value, score = _scores(acquisition, mean, std, best, maximize, beta)
        score = np.where(allowed, score, -np.inf)
        j = int(np.argmax(score))  # ties: the first in pool order
        index.append(j)
        values.append(value[j])
        allowed[j] = False
        if step == n - 1:
            break
        observed = mean[j] if fantasy == "believer" else fantasy
        c = cov[:, j].copy()
        d = cov[j, j] + noise
        if d > 0:
            mean += c * (observed - mean[j]) / d
            cov -= np.outer(c, c) / d
        best = max(best, observed) if maximize else min(best, observed)
    return np.array(index, dtype=np.intp), np.array(values)


def _thompson(mean, cov, n, allowed, maximize, random_state):
    """``n`` joint posterior draws over the pool, the best unproposed
    candidate of each."""
    from ._threads import small_eigh_blas

    rng = np.random.default_rng(random_state)
    with small_eigh_blas(len(mean)):
        w, U = np.linalg.eigh(cov)
    root = U * np.sqrt(np.maximum(w, 0.0))
    draws = mean[:, None] + root @ rng.standard_normal((len(mean), n))
    allowed = allowed.copy()
    index, values = [], []
    for t in range(n):
        f = draws[:, t]
        score = np.where(allowed, f if maximize else -f, -np.inf)
        j = int(np.argmax(score))
        index.append(j)
        values.append(f[j])
        allowed[j] = False
    return np.array(index, dtype=np.intp), np.array(values)


# -------------------------------------------------------------- calibration
class Calibration(NamedTuple):
    """How honest a regressor's predictive standard deviations are on held-out
    data (see :func:`calibration`).

    Attributes
    ----------
    levels : ndarray
        Nominal coverage levels of the central intervals.
    coverage : ndarray
        Fraction of targets inside ``mean +- z std`` at each level
        (``z = Phi^{-1}((1 + level) / 2)``); equal to ``levels`` when calibrated.
    nlpd : float
        Mean negative log predictive density per object (Gaussian).
    bin_std, bin_rmse : ndarray
        Objects sorted by predicted std and cut into ``n_bins`` groups of
        (nearly) equal size: each group's root mean predicted variance and
        its root mean squared error (equal when calibrated).
    std_error_correlation : float
        Spearman rank correlation of the predicted std with the absolute error.
    """

    levels: np.ndarray
    coverage: np.ndarray
    nlpd: float
    bin_std: np.ndarray
    bin_rmse: np.ndarray
    std_error_correlation: float


def calibration(y, mean, std, *, levels=(0.5, 0.68, 0.8, 0.9, 0.95, 0.99), n_bins=5):
    """Coverage, NLPD and binned error against predicted std.

    Parameters
    ----------
    y, mean, std : array_like of shape (n,)
        Held-out targets, predicted means and predictive standard deviations
        (of a new measurement: ``predict(X, return_std=True)``).
    levels : sequence of float in (0, 1)
    n_bins : int, default=5
        Groups of objects by predicted std (at most ``n``).

    Returns
    -------
    Calibration

    References
    ----------
    V. Kuleshov, N. Fenner and S. Ermon, "Accurate uncertainties for deep
    learning using calibrated regression", ICML 2018 (calibration as
    coverage at each level).
    """
    from scipy.stats import norm, spearmanr

    from ._validation import check_scalar

    y, mean, std = (np.asarray(a, dtype=np.float64).ravel() for a in (y, mean, std))
    if not (y.shape == mean.shape == std.shape) or y.size == 0:
        raise ValueError(
            f"y, mean and std must be non-empty and of one length, got {y.size}, "
            f"{mean.size} and {std.size}"
        )
    for name, a in (("y", y), ("mean", mean), ("std", std)):
        bad = ~np.isfinite(a) | ((a <= 0) if name == "std" else False)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            need = "finite and > 0" if name == "std" else "finite"
            raise ValueError(f"{name}[{i}] is {a[i]}: it must be {need}")
    levels = np.asarray(levels, dtype=np.float64).ravel()
    if not ((levels > 0) & (levels < 1)).all():
        raise ValueError(f"levels must lie in (0, 1), got {levels.tolist()}")
    n_bins = check_scalar(n_bins, "n_bins", lower=1, integer=True)
    error = y - mean
    z = norm.ppf(0.5 + levels / 2)
    coverage = (np.abs(error)[:, None] <= z[None, :] * std[:, None]).mean(axis=0)
    nlpd = float(-norm.logpdf(y, loc=mean, scale=std).mean())
    groups = np.array_split(np.argsort(std, kind="stable"), min(n_bins, y.size))
    bin_std = np.array([np.sqrt(np.mean(std[g] ** 2)) for g in groups])
    bin_rmse = np.array([np.sqrt(np.mean(error[g] ** 2)) for g in groups])
    rho = float(spearmanr(std, np.abs(error)).statistic) if y.size > 1 else float("nan")
    return Calibration(levels, coverage, nlpd, bin_std, bin_rmse, rho)
