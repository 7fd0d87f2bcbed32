"""Sparse Gaussian-process regression on landmarks: Titsias' variational
bound, for 10^4 to 10^5 objects in memory linear in their number."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .. import _tuning
from .._threads import one_blas_thread, small_blas
from .._validation import check_objects, check_scalar
from ._base import _is_precomputed, check_targets, n_objects
from .gaussian_process import (
    GPMixin,
    _cholesky,
    _noise_hyperparameter,
    _scaled,
    _target_scaling,
    _template,
    check_optimizer,
    kernel_candidates,
    maximise,
    predictive_std,
)

_LOG_2PI = float(np.log(2.0 * np.pi))


class SparseGaussianProcessRegressor(GPMixin, RegressorMixin, BaseEstimator):
    r"""Gaussian-process regression on ``m`` landmarks (Titsias' variational
    free energy), never forming an ``n x n`` matrix.

    The landmarks ``Z`` (inducing points) are ``m`` of the training objects,
    chosen as :class:`structk.scale.Nystroem` chooses them. With
    ``Q = K_nm K_mm^{-1} K_mn`` (the Nyström approximation of the Gram) and
    the noise variance ``s2``, the hyperparameters (the kernel's free
    :attr:`~structk.kernels.Kernel.theta` and the noise) maximise the lower
    bound on the log marginal likelihood

    ``F = log N(y | 0, Q + s2 I) - tr(K - Q) / (2 s2)``

    by L-BFGS-B with its analytic gradient. ``F`` and its gradient need only
    ``K_mm``, the ``m x m`` sums ``K_mn K_nm`` and ``K_mn y``, the trace of
    ``K`` and their derivatives, accumulated over blocks of training objects:
    memory ``O((b + m)^2 p)`` for ``p`` hyperparameters and blocks of ``b``
    objects (``_tuning.SPARSE_GP_BLOCK_ROWS``: the kernel's own Gram
    derivatives on a block followed by the landmarks,
    :meth:`structk.kernels.Kernel.gram_gradient_prepared`), besides the
    prepared training objects, and time ``O(n m^2)`` per evaluation. The
    fitted model keeps the prepared blocks for
    :meth:`log_marginal_likelihood` (a model file does not). The prediction at ``x`` is

    ``mean = k_xm w``, ``var = k(x, x) - k_xm K_mm^{-1} k_mx + k_xm S^{-1}
    k_mx + s2``, with ``S = K_mm + K_mn K_nm / s2`` and ``w = S^{-1} K_mn
    y / s2``,

    computed from the Cholesky factors of ``K_mm`` and of ``I +
    L^{-1} K_mn K_nm L^{-T} / s2``. With every training object a landmark
    (``n_components = n``) ``Q = K``: the bound is the exact log marginal
    likelihood, and the predictions those of
    :class:`GaussianProcessRegressor` (up to the jitter on ``K_mm``).

    Parameters
    ----------
    kernel : Kernel, list of Kernel or None, default=None
        The prior covariance; ``None``: ``1.0 * Gaussian(sigma=1.0)`` with
        both fixed. A list of kernels, or list-valued parameters
        (``Spectrum(k=[3, 4])``): each is fitted, the one of highest bound
        kept. A precomputed Gram is not accepted (it is ``n x n``).
    n_components : int, default=100
        Number of landmarks ``m``, at most the number of training objects.
    landmarks : {"uniform", "kmeans++", "leverage"}, default="uniform"
        How they are chosen among the training objects (see
        :class:`structk.scale.Nystroem`), with the kernel's initial
        hyperparameters.
    noise : float, default=1.0
        Initial noise variance ``s2`` (> 0: the bound needs it), learned
        within ``noise_bounds``.
    noise_bounds : pair of float or "fixed", default=(1e-5, 1e5)
    jitter : float, default=1e-6
        ``jitter`` times the mean of ``diag(K_mm)`` is added to the diagonal
        of ``K_mm`` (part of the model, differentiated with it).
    optimizer : "fmin_l_bfgs_b", callable or None, default="fmin_l_bfgs_b"
        As in :class:`GaussianProcessRegressor`.
    n_restarts_optimizer : int, default=0
    normalize_y : bool, default=False
    random_state : int, RandomState or None, default=None
        For the landmarks and the restarts.
    client : distributed.Client or None, default=None
        Compute the blocks of the fit's passes and of the predictions on a
        Dask cluster (the prepared blocks are sent once per fit).

    Attributes
    ----------
    kernel_ : Kernel
        The fitted kernel with the optimised hyperparameters.
    noise_ : float
        The learned noise variance, included in the predictive std and cov.
    log_marginal_likelihood_value_ : float
        The bound ``F`` at the optimum.
    candidates_ : list of (dict, float)
        Each list-parameter combination and its optimised bound.
    components_ : list or ndarray
        The landmark objects.
    component_indices_ : ndarray of int, shape (m,)
        Their positions in the training objects.
    L_ : ndarray of shape (m, m)
        Lower Cholesky factor of ``K_mm`` plus the jitter.
    LB_ : ndarray of shape (m, m)
        Lower Cholesky factor of ``I + L^{-1} K_mn K_nm L^{-T} / s2``.
    weights_ : ndarray of shape (m,) or (m, n_outputs)
        ``w``: the mean is ``k(x, components_) @ weights_`` (normalised units).
    n_train_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from structk.kernels import Gaussian
    >>> from structk.learners import SparseGaussianProcessRegressor
    >>> X = np.linspace(0, 5, 200)[:, None]
    >>> gp = SparseGaussianProcessRegressor(1.0 * Gaussian(1.0), n_components=20,
    ...                                     noise=0.1, random_state=0)
    >>> mean, std = gp.fit(X, np.sin(X[:, 0])).predict(X[:3], return_std=True)

    References
    ----------
    M. K. Titsias, "Variational learning of inducing variables in sparse
    Gaussian processes", AISTATS 2009.

    J. Quiñonero-Candela and C. E. Rasmussen, "A unifying view of sparse
    approximate Gaussian process regression", JMLR 6, 2005 (the predictive
    distribution, Section 4).
    """

    def __init__(
        self,
        kernel=None,
        *,
        n_components=100,
        landmarks="uniform",
        noise=1.0,
        noise_bounds=(1e-5, 1e5),
        jitter=1e-6,
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer=0,
        normalize_y=False,
        random_state=None,
        client=None,
    ):
        self.kernel = kernel
        self.n_components = n_components
        self.landmarks = landmarks
        self.noise = noise
        self.noise_bounds = noise_bounds
        self.jitter = jitter
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.normalize_y = normalize_y
        self.random_state = random_state
        self.client = client

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Choose the landmarks and the hyperparameters.

        Parameters
        ----------
        X : sequence of objects
        y : array of shape (n,) or (n, n_outputs)

        Returns
        -------
        self
        """
        from sklearn.utils import check_random_state

        from ..scale.nystroem import _LANDMARKS, select_landmarks

        if _is_precomputed(_template(self.kernel)):
            raise ValueError(
                "SparseGaussianProcessRegressor does not take kernel='precomputed': "
                "it never forms the n x n Gram; give a structk kernel (or use "
                "GaussianProcessRegressor with a precomputed Gram)"
            )
        objects = check_objects(X, "X")
        n = n_objects(objects)
        Y = check_targets(y, n)
        m = check_scalar(self.n_components, "n_components", lower=1, integer=True)
        if self.landmarks not in _LANDMARKS:
            raise ValueError(f"landmarks must be one of {_LANDMARKS}, got {self.landmarks!r}")
        jitter = check_scalar(self.jitter, "jitter", lower=0)
        n_restarts = check_optimizer(self)
        check_scalar(self.noise, "noise", lower=0, lower_inclusive=False)
        self._noise_hyperparameter()  # checks noise_bounds
        rng = check_random_state(self.random_state)
        self._y_mean, self._y_std = _target_scaling(Y, self.normalize_y)
        target = (Y - self._y_mean) / self._y_std
        target = target if target.ndim == 2 else target[:, None]
        self._check_input(X, reset=True)
        candidates, _ = kernel_candidates(self.kernel, objects)  # checks the objects
        if m > n:
            raise ValueError(
                f"n_components={m} is more than the {n} training objects: the "
                f"landmarks are training objects; give n_components <= {n}"
            )
        index = select_landmarks(
            candidates[0][1], objects, candidates[0][2], m, self.landmarks, rng
        )
        index = np.asarray(index, dtype=np.intp)
        best, self.candidates_ = None, []
        with small_blas(m):
            for params, k, P in candidates:
                data = _FitData(k, objects, P, index, target, jitter, self.client)
                try:
                    theta, value = maximise(
                        lambda t, eval_gradient=False, raise_on_failure=False, d=data: self._bound(
                            d, t, eval_gradient, raise_on_failure
                        ),
                        *self._space(k),
                        self.optimizer,
                        n_restarts,
                        rng,
                    )
                finally:
                    data.close()
                self.candidates_.append((params, float(value)))
                if best is None or value > best[2]:
                    best = (k, P, value, theta)
            k, P, value, theta = best
            data = _FitData(k, objects, P, index, target, jitter, None)
            self._set_state(data, theta, objects)
        self.log_marginal_likelihood_value_ = float(value)
        self.n_train_ = n
        return self

    def _space(self, k):
        from ..kernels.hyperparameters import bounds_of, free, theta_of

        hyper, noise = free(k), self._noise_hyperparameter()
        if not noise.fixed:
            hyper = hyper + [noise]
        return theta_of(hyper), bounds_of(hyper), [h.name for h in hyper]

    def _split(self, k, theta):
        from ..kernels.hyperparameters import free

        p, noise = len(free(k)), self._noise_hyperparameter()
        s2 = float(np.exp(theta[p])) if not noise.fixed else noise.value
        return k.with_theta(theta[:p]), s2

    def _noise_hyperparameter(self):
        """The noise as a hyperparameter (recomputed from ``noise`` and
        ``noise_bounds``: a model file holds no Hyperparameter)."""
        try:
            return _noise_hyperparameter(self.noise, self.noise_bounds)
        except ValueError as exc:
            raise ValueError(str(exc).replace("Gaussian", "SparseGaussian", 1)) from None

    def _bound(self, data, theta, eval_gradient, raise_on_failure=False):
        """The variational bound ``F`` (and its gradient) at ``theta``; on a
        failed factorisation ``-inf`` for the optimiser, or the error."""
        from scipy.linalg import LinAlgError

        theta = np.asarray(theta, dtype=np.float64)
        kt, noise = self._split(data.kernel, theta)
        try:
            sums = data.sums(kt, eval_gradient)
            value, grad_kernel, grad_noise = _free_energy(sums, noise, eval_gradient)
        except LinAlgError:
            if raise_on_failure:
                _raise_landmarks_singular(kt, self.jitter)
            return (-np.inf, np.zeros(len(theta))) if eval_gradient else -np.inf
        if not eval_gradient:
            return value
        if not self._noise_hyperparameter().fixed:
            grad_kernel = np.append(grad_kernel, noise * grad_noise)
        return value, grad_kernel

    def _set_state(self, data, theta, objects):
        from scipy.linalg import LinAlgError

        kt, noise = self._split(data.kernel, theta)
        try:
            self.L_, self.LB_, w, *_ = _factors(data.sums(kt, False), noise)
        except LinAlgError:
            _raise_landmarks_singular(kt, self.jitter)
        self.kernel_ = kt
        self.noise_ = float(noise)
        index = data.index
        self.component_indices_ = index
        self.components_ = (
            objects[index] if hasattr(objects, "shape") else [objects[i] for i in index]
        )
        self.weights_ = w if self._y_std.ndim else w[:, 0]
        self._landmarks_prepared = data.landmarks
        self._fit_prepared = data  # for log_marginal_likelihood(theta); not in model files

    # ------------------------------------------------------------- predict
    def predict(self, X, return_std=False, return_cov=False):
        """Posterior mean, and its standard deviation or covariance.

        Parameters
        ----------
        X : sequence of objects
        return_std, return_cov : bool
            At most one of them. The covariance is ``n_test x n_test``:
            for small test sets.

        Returns
        -------
        mean : ndarray of shape (n_test,) or (n_test, n_outputs)
        std : ndarray, same shape as mean, if return_std
        cov : ndarray of shape (n_test, n_test) or (n_test, n_test, n_outputs), if return_cov
        """
        from scipy.linalg import solve_triangular

        from ..scale.columns import block_bounds, landmark_features

        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        check_is_fitted(self, "weights_")
        objects = check_objects(X, "X")
        self._check_input(X, reset=False)
        kernel = self.kernel_
        PL = self.__dict__.get("_landmarks_prepared")
        if PL is None:  # a model read from a file
            PL = self._landmarks_prepared = kernel.prepare(self.components_, "components_")
        m = self.L_.shape[0]
        w = self.weights_ if self.weights_.ndim == 2 else self.weights_[:, None]
        n = n_objects(objects)
        mean = np.empty((n, w.shape[1]))
        var = np.empty(n) if return_std else None
        Q_all = kernel.prepare(objects, "X") if return_cov else None
        A_all = np.empty((m, n)) if return_cov else None
        for a, b in block_bounds(n, _tuning.LANDMARK_BLOCK_ROWS):
            chunk = objects[a:b]
            Q = kernel.prepare(chunk, "X") if Q_all is None else kernel.take(Q_all, slice(a, b))
            C = landmark_features(kernel, chunk, Q, PL, np.eye(m), client=self.client)
            # row by row: each mean is the same whichever objects come with it
            mean[a:b] = np.einsum("ij,jt->it", C, w)
            if return_std or return_cov:
                A = solve_triangular(self.L_, C.T, lower=True, check_finite=False)
                if return_cov:
                    A_all[:, a:b] = A
                else:
                    Bv = solve_triangular(self.LB_, A, lower=True, check_finite=False)
                    var[a:b] = (
                        kernel.diag_prepared(Q)
                        - np.einsum("ij,ij->j", A, A)
                        + np.einsum("ij,ij->j", Bv, Bv)
                    )
        mean = self._y_std * mean + self._y_mean
        if self._y_std.ndim == 0:
            mean = mean[:, 0]
        if return_cov:
            Bv = solve_triangular(self.LB_, A_all, lower=True, check_finite=False)
            cov = kernel.gram_prepared(Q_all) - A_all.T @ A_all + Bv.T @ Bv
            cov[np.diag_indices(n)] += self.noise_
            return mean, _scaled(cov, self._y_std)
        if not return_std:
            return mean
        return mean, predictive_std(var + self.noise_, self._y_std)

    def log_marginal_likelihood(self, theta=None, eval_gradient=False):
        """The variational lower bound on the log marginal likelihood at
        ``theta`` (the kernel's free hyperparameters in log space, then the
        log noise if learned), with the fitted landmarks; ``None``: its
        value at the optimum. With ``eval_gradient=True`` also its gradient."""
        check_is_fitted(self, "weights_")
        if theta is None:
            if eval_gradient:
                raise ValueError("eval_gradient needs theta (the gradient is not stored)")
            return self.log_marginal_likelihood_value_
        data = self.__dict__.get("_fit_prepared")
        if data is None:
            raise ValueError(
                "log_marginal_likelihood(theta) of a model read from a model file "
                "needs its training data, which a sparse GP does not store: refit it"
            )
        theta = np.asarray(theta, dtype=np.float64).ravel()
        names = self._space(data.kernel)[2]
        if theta.size != len(names):
            raise ValueError(
                f"theta has {theta.size} entries; this model has {len(names)} "
                f"hyperparameters {names}"
            )
        return self._bound(data, theta, eval_gradient, raise_on_failure=True)


# ----------------------------------------------------------- the sums
class _FitData:
    """The training objects, prepared, cut in blocks that each carry the
    landmarks after their own objects, and the sums of :func:`_free_energy`
    over them for a kernel (with its hyperparameters set)."""

    def __init__(self, kernel, objects, P, index, target, jitter, client):
        from ..kernels.base import take_prepared

        from ..scale.columns import block_bounds

        self.kernel, self.index, self.target, self.jitter = kernel, index, target, jitter
        self.n = n_objects(objects)
        self.landmarks = take_prepared(kernel, objects, P, index, "X")
        m = len(index)
        # each block's Gram gradient holds (rows + m)^2 entries per parameter
        rows = max(1, min(_tuning.SPARSE_GP_BLOCK_ROWS, self.n))
        self.bounds = block_bounds(self.n, rows)
        self.blocks = [
            (
                take_prepared(kernel, objects, P, np.r_[np.arange(a, b), index], "X"),
                take_prepared(kernel, objects, P, slice(a, b), "X"),
                self.landmarks,
            )
            for a, b in self.bounds
        ]
        self.m = m
        self.client = client
        self._futures = None
        if client is not None:
            from ..scale.distributed import _dask_and_client, _send, _spread

            _, _, self.client = _dask_and_client(client)
            # each evaluation's task for a block runs where the block is:
            # spread over the workers, or one of them computes every block
            places = _spread(self.client, len(self.blocks))
            self._futures = [
                (
                    _send(self.client, blk, f"the training objects as prepared by {kernel!r}", at),
                    _send(self.client, target[a:b], "the targets", at),
                )
                for blk, (a, b), at in zip(self.blocks, self.bounds, places)
            ]

    def close(self):
        if self._futures is not None:
            self.client.cancel([f for pair in self._futures for f in pair])
            self._futures = None

    def sums(self, kernel, gradient):
        """``dict``: ``Kmm`` (jittered), its Cholesky factor ``L``, ``Cw =
        L^{-1} K_mn K_nm L^{-T}`` and ``Psiw = L^{-1} K_mn Y`` (accumulated
        in the landmarks' whitened basis: a sum of Gram matrices, positive
        semi-definite in floating point too, where ``L^{-1} Phi L^{-T}``
        from an accumulated ``Phi = K_mn K_nm`` is not when ``K_mm`` is
        nearly singular), ``tr = tr(K)``, ``yy``, ``n`` and, with
        ``gradient``, the derivatives ``dKmm`` (m, m, p), ``dPhi``, ``dPsi``
        (m, t, p) and ``dtr`` (p) of ``K_mm``, ``Phi``, ``K_mn Y`` and
        ``tr K``. Raises ``LinAlgError`` when ``K_mm`` is not positive
        definite."""
        if gradient:
            Kmm, dKmm = kernel.gram_gradient_prepared(self.landmarks)
            Kmm, dKmm = Kmm.copy(), dKmm.copy()
        else:
            Kmm, dKmm = kernel.gram_prepared(self.landmarks).copy(), None
        scale = float(np.mean(np.diag(Kmm)))
        Kmm[np.diag_indices(self.m)] += self.jitter * scale
        if gradient:
            dscale = np.einsum("iik->k", dKmm) / self.m
            dKmm[np.arange(self.m), np.arange(self.m), :] += self.jitter * dscale
        L = _cholesky(Kmm)
        if self._futures is not None:
            parts = self._remote(kernel, L, gradient)
        else:
            with one_blas_thread():  # as on Dask's workers: the same sums
                parts = [
                    _block_sums(kernel, L, blk, self.target[a:b], gradient)
                    for blk, (a, b) in zip(self.blocks, self.bounds)
                ]
        # in the blocks' order, whichever finished first: the same rounding
        # with or without a client
        total = None
        for part in parts:
            total = part if total is None else {k: total[k] + part[k] for k in total}
        total.update(Kmm=Kmm, L=L, dKmm=dKmm, yy=float(np.sum(self.target**2)), n=self.n)
        return total

    def _remote(self, kernel, L, gradient):
        """The blocks' sums computed on the cluster, in the blocks' order.

        One task per block and evaluation, which carries the kernel and
        ``L`` in its own specification when they are small
        (:func:`~structk.scale.distributed._shipped`): an evaluation then
        costs one pass through the scheduler, not a task for the kernel
        that every block task waits on and a worker fetches from another.
        Done futures are released, not cancelled: ``cancel`` waits for
        the scheduler's answer, one more round trip per evaluation.
        """
        from ..scale.distributed import _shipped

        kernel_f = _shipped(self.client, (kernel, L), f"the kernel {kernel!r}")
        futures = [
            self.client.submit(_remote_block_sums, kernel_f, blk, tgt, gradient, pure=False)
            for blk, tgt in self._futures
        ]
        try:
            return self.client.gather(futures)
        except BaseException:
            self.client.cancel(futures)
            raise
        finally:
            if not isinstance(kernel_f, bytes):
                kernel_f.release()


def _remote_block_sums(kernel_blob, block_blob, target_blob, gradient):
    """One Dask task: :func:`_block_sums` of a block sent once per fit."""
    import pickle

    from ..scale.distributed import _loads

    kernel, L = pickle.loads(kernel_blob)  # new each evaluation: not cached
    with one_blas_thread():
        return _block_sums(kernel, L, _loads(block_blob), _loads(target_blob), gradient)


def _block_sums(kernel, L, block, Yb, gradient):
    """The sums of one block of ``nb`` training objects (``L``: the
    Cholesky factor of the jittered ``K_mm``): ``block`` holds
    their prepared data with the landmarks after them (for the Gram's
    derivatives, whose off-diagonal ``nb x nb`` part is not used), without
    them, and the landmarks' own."""
    with_landmarks, alone, landmarks = block
    nb = Yb.shape[0]
    if gradient:
        G, dG = kernel.gram_gradient_prepared(with_landmarks)
        Kbm, dKbm = G[:nb, nb:], dG[:nb, nb:, :]
        diag, ddiag = np.diagonal(G)[:nb], np.einsum("iik->k", dG[:nb, :nb, :])
    else:
        Kbm = kernel.cross_prepared(alone, landmarks)
        diag = kernel.diag_prepared(alone)
    from scipy.linalg import solve_triangular

    A = solve_triangular(L, Kbm.T, lower=True, check_finite=False)  # (m, nb)
    out = {"Cw": A @ A.T, "Psiw": A @ Yb, "tr": float(diag.sum())}
    if gradient:
        S = np.tensordot(Kbm, dKbm, axes=(0, 0))  # (m, m, p): K_mb dK_bm
        out["dPhi"] = S + S.transpose(1, 0, 2)
        out["dPsi"] = np.tensordot(dKbm, Yb, axes=(0, 0)).transpose(0, 2, 1)  # (m, t, p)
        out["dtr"] = ddiag
    return out


# ------------------------------------------------------- the bound itself
def _factors(sums, s2):
    """``(L, LB, w)``: Cholesky factors of ``K_mm`` and of ``B = I +
    L^{-1} Phi L^{-T} / s2``, and the mean's weights ``w = L^{-T} LB^{-T}
    LB^{-1} L^{-1} Psi / s2`` (m, t)."""
    from scipy.linalg import solve_triangular

    L = sums["L"]
    C = 0.5 * (sums["Cw"] + sums["Cw"].T) / s2
    B = C.copy()
    B[np.diag_indices_from(B)] += 1.0
    LB = _cholesky(B)
    c = solve_triangular(LB, sums["Psiw"], lower=True, check_finite=False) / s2
    u = solve_triangular(LB, c, lower=True, trans="T", check_finite=False)
    w = solve_triangular(L, u, lower=True, trans="T", check_finite=False)
    return L, LB, w, C, c, u


def _free_energy(sums, s2, gradient):
    r"""Titsias' bound ``F`` from the sums of :class:`_FitData`, and (with
    ``gradient``) its derivatives in the kernel's ``theta`` and in ``s2``.

    With ``S = K_mm + Phi / s2``, ``t`` outputs and ``w = S^{-1} Psi / s2``:

    ``F = -t n log(2 pi) / 2 - t log det(S K_mm^{-1}) / 2 - t n log(s2) / 2
    - yy / (2 s2) + tr(Psi^T S^{-1} Psi) / (2 s2^2) - t (tr K - tr(K_mm^{-1}
    Phi)) / (2 s2)``.

    Its derivatives in ``K_mm``, ``Phi``, ``Psi`` and ``tr K``, contracted
    with theirs in ``theta``:

    ``dF/dK_mm = -w w^T / 2 - t L^{-T} B^{-1} C^2 L^{-1} / 2``,
    ``dF/dPhi = (t L^{-T} B^{-1} C L^{-1} - w w^T) / (2 s2)``,
    ``dF/dPsi = w / s2``, ``dF/dtr K = -t / (2 s2)``,

    with ``C = L^{-1} Phi L^{-T} / s2`` and ``B = I + C``.
    """
    from scipy.linalg import cho_solve, solve_triangular

    L, LB, w, C, c, u = _factors(sums, s2)
    n, t, m = sums["n"], sums["Psiw"].shape[1], C.shape[0]
    trQ = float(np.trace(C)) * s2
    gap = sums["tr"] - trQ
    value = float(
        t * (-0.5 * n * _LOG_2PI - np.log(np.diag(LB)).sum() - 0.5 * n * np.log(s2))
        - 0.5 * sums["yy"] / s2
        + 0.5 * np.sum(c * c)
        - 0.5 * t * gap / s2
    )
    if not gradient:
        return value, None, None
    BinvC = cho_solve((LB, True), C, check_finite=False)
    Linv = solve_triangular(L, np.eye(m), lower=True, check_finite=False)
    ww = w @ w.T
    G_mm = -0.5 * ww - 0.5 * t * (Linv.T @ (BinvC @ C) @ Linv)
    G_phi = (t * (Linv.T @ BinvC @ Linv) - ww) / (2.0 * s2)
    grad = (
        np.einsum("ij,ijk->k", G_mm, sums["dKmm"])
        + np.einsum("ij,ijk->k", G_phi, sums["dPhi"])
        + np.einsum("it,itk->k", w / s2, sums["dPsi"])
        - 0.5 * t * sums["dtr"] / s2
    )
    d_s2 = (
        -0.5 * t * n / s2
        + 0.5 * sums["yy"] / s2**2
        + 0.5 * t * float(np.trace(BinvC)) / s2
        + 0.5 * (float(np.sum(u * (C @ u))) - 2.0 * float(np.sum(c * c))) / s2
        + 0.5 * t * gap / s2**2
    )
    return value, grad, d_s2


def _raise_landmarks_singular(kernel, jitter):
    from ..exceptions import NotPSDError

    raise NotPSDError(
        f"the landmarks' Gram of {kernel!r} plus jitter={jitter!r} times its mean "
        "diagonal (or I + K_mn K_nm / noise in the landmarks' basis) is not positive "
        "definite (Cholesky failed): the kernel is not positive semi-definite, or "
        "two landmarks are the same object; raise jitter (e.g. jitter=1e-6) or "
        "learn a larger noise"
    )
