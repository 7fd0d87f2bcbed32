r"""Any kernel past the Gram matrix: Nyström features and FALKON.

With ``m`` landmarks ``L`` among the ``n`` training objects and the
eigendecomposition ``K_LL = U diag(w) U^T`` (eigenvalues below ``m * eps``
times the largest dropped), the Nyström features are

.. math:: \Phi = K_{nL} V, \qquad V = U \operatorname{diag}(w)^{-1/2},

``n x r`` numbers with ``Phi Phi^T = K_nL K_LL^+ K_Ln``. ``K_nL`` is
computed in blocks of rows from the prepared objects
(:func:`structk.scale.columns.landmark_features`: on threads with
``n_jobs``, on a Dask cluster with ``client=``), and each block is
multiplied by ``V`` at once, so neither the ``n x n`` Gram nor ``K_nL``
is ever held. The SVM and logistic regression then run scikit-learn's
linear solvers on ``Phi`` (:mod:`structk.learners.primal`).

Kernel ridge regression restricted to the landmarks,
``min_a ||y - K_nL a||^2 + lambda a^T K_LL a``, is in these coordinates
(``a = V g``) ridge regression on ``Phi``:
``(Phi^T Phi + lambda I) g = Phi^T y``. FALKON (Rudi, Carratino & Rosasco
2017) solves it by conjugate gradients preconditioned with the landmarks'
own estimate of ``Phi^T Phi``: for uniformly drawn landmarks
``Phi^T Phi ~ (n/m) Phi_L^T Phi_L`` with ``Phi_L = K_LL V``, and in the
eigenbasis ``Phi_L^T Phi_L = diag(w)``, so FALKON's preconditioner
``T^{-1} A^{-1}`` (Cholesky factors of ``K_LL`` and of
``T T^T n/m + lambda I``) becomes the diagonal ``(n/m) w + lambda``. The
eigenbasis also handles duplicate landmarks (a singular ``K_LL``, common
for strings and graphs) where the Cholesky factor of the paper fails. A
few tens of iterations reach the statistical accuracy; each costs two
products with ``Phi`` (``4 n r`` flops).

References
----------
C. K. I. Williams and M. Seeger, "Using the Nyström method to speed up
kernel machines", NIPS 13 (2001).
A. Rudi, L. Carratino and L. Rosasco, "FALKON: an optimal large scale
kernel method", NIPS 30 (2017).
G. Meanti, L. Carratino, L. Rosasco and A. Rudi, "Kernel methods through
the roof: handling billions of points efficiently", NeurIPS 33 (2020).
"""

from __future__ import annotations


import numpy as np

from .._validation import check_scalar
from ..kernels.base import take_prepared
from ._base import take


def nystroem_map(learner, kernel, X, P):
    """Landmarks, eigenbasis and training features of the Nyström path.

    Reads ``n_components`` (``None``: ``structk.defaults.DEFAULT_N_COMPONENTS``),
    ``landmarks``, ``random_state``, ``n_jobs``, ``client`` and
    ``progress`` from the learner. Returns ``(FeatureMap, Phi)``.
    """
    from sklearn.utils import check_random_state

    from ..scale._tiling import checked_tile
    from ..scale.columns import landmark_features
    from ..scale.nystroem import _LANDMARKS, eigen_basis, select_landmarks
    from .. import defaults
    from .primal import FeatureMap

    n = X.shape[0] if hasattr(X, "shape") else len(X)
    m = getattr(learner, "n_components", None)
    m = (
        defaults.DEFAULT_N_COMPONENTS
        if m is None
        else check_scalar(m, "n_components", lower=1, integer=True)
    )
    method = getattr(learner, "landmarks", "uniform")
    if method not in _LANDMARKS:
        raise ValueError(f"landmarks must be one of {_LANDMARKS}, got {method!r}")
    m = min(m, n)
    rng = check_random_state(getattr(learner, "random_state", None))
    idx = np.sort(select_landmarks(kernel, X, P, m, method, rng))
    PL = take_prepared(kernel, X, P, idx, "X")
    K_LL = checked_tile(kernel, PL, None, ((0, m), (0, m)))
    V, w, _ = eigen_basis(K_LL)
    if len(w) == 0:
        raise ValueError(
            f"the {m} landmarks' Gram matrix under {kernel!r} is zero: "
            "the Nyström features would all be zero"
        )
    fmap = FeatureMap(
        kernel,
        landmarks=PL,
        V=V,
        n_jobs=getattr(learner, "n_jobs", None),
        client=getattr(learner, "client", None),
    )
    fmap.eigenvalues, fmap.n_landmarks, fmap.landmark_indices = w, m, idx
    # the landmark objects themselves: what a model file stores (their
    # prepared form is rebuilt from them when the model is loaded)
    fmap.landmark_objects = take(X, idx)
    Phi = landmark_features(
        kernel,
        X,
        P,
        PL,
        V,
        n_jobs=fmap.n_jobs,
        client=fmap.client,
        progress=getattr(learner, "progress", False),
    )
    learner.landmark_indices_ = idx
    return fmap, Phi


def falkon_solve(Phi, Y, lam, w, m, tol=1e-7, max_iter=None):
    """Ridge on Nyström features by FALKON's preconditioned conjugate gradients.

    Solves ``(Phi^T Phi + lam I) g = Phi^T Y`` (each column of ``Y`` on its
    own) with the diagonal preconditioner ``(n/m) w + lam`` (see the module
    docstring), stopping when every column's residual is below ``tol``
    times its right-hand side. Returns ``(g, iterations)``, ``g`` shaped
    like ``Y`` with ``Phi.shape[1]`` rows.
    """
    n, r = Phi.shape
    Y2 = np.asarray(Y, dtype=np.float64).reshape(n, -1)
    max_iter = max(100, 2 * r) if max_iter is None else max_iter
    Minv = 1.0 / ((n / m) * np.asarray(w) + lam)[:, None]
    b = Phi.T @ Y2
    g = np.zeros_like(b)
    res = b.copy()
    z = Minv * res
    p = z.copy()
    rz = np.einsum("ij,ij->j", res, z)
    target = tol * np.linalg.norm(b, axis=0)
    it = 0
    while it < max_iter and np.any(np.linalg.norm(res, axis=0) > target):
        Ap = Phi.T @ (Phi @ p) + lam * p
        pAp = np.einsum("ij,ij->j", p, Ap)
        step = np.divide(rz, pAp, out=np.zeros_like(rz), where=pAp > 0)
        g += step * p
        res -= step * Ap
        z = Minv * res
        rz_new = np.einsum("ij,ij->j", res, z)
        beta = np.divide(rz_new, rz, out=np.zeros_like(rz), where=rz > 0)
        p = z + beta * p
        rz = rz_new
        it += 1
    if np.any(np.linalg.norm(res, axis=0) > target):
        from .._estimator import warn_not_converged

        warn_not_converged(
            f"FALKON's conjugate gradients stopped after {it} iterations above tol={tol}",
            stacklevel=3,
        )
    return (g[:, 0] if np.ndim(Y) == 1 else g), it
