"""Nyström approximation: explicit features for any structk kernel.

With ``m`` landmark objects ``L`` chosen among the training objects, the
Nyström method approximates the Gram matrix by

    K ~= K[:, L] K[L, L]^+ K[L, :] = Phi Phi^T,   Phi = K[:, L] K[L, L]^(-1/2)

so ``Phi`` (``n x m``) is an explicit feature map: a linear model on ``Phi``
approximates the kernel machine on ``K`` at cost ``O(n m)`` kernel values
instead of ``O(n^2)``, for vectors, strings, sets or graphs alike.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .. import _tuning
from .._validation import check_objects, check_scalar
from ..kernels.base import Kernel, take_prepared as take
from ._landmarks import LANDMARKS as _LANDMARKS
from ._tiling import checked_tile


class Nystroem(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Nyström feature map ``Phi`` with ``Phi @ Phi.T ~= kernel(X)``.

    Parameters
    ----------
    kernel : Kernel
        Any structk kernel (on vectors, strings, sets, graphs, ...).
    n_components : int >= 1, default 100
        Number of landmarks ``m``, i.e. of features. More than the number of
        training objects is reduced to it, with a warning.
    landmarks : {"uniform", "kmeans++", "leverage"}, default "uniform"
        How landmarks are picked among the training objects: uniformly at
        random without replacement (the same draw as
        ``sklearn.kernel_approximation.Nystroem`` for the same
        ``random_state``), by k-means++ seeding in the kernel's feature
        space, with squared distances
        ``d(x, y)^2 = k(x, x) + k(y, y) - 2 k(x, y)`` so that it works for
        any objects, or by approximate ridge leverage scores (see
        :func:`leverage_landmarks`; costs about half as many kernel values
        again as the features). The first two are nested: for a fixed
        ``random_state`` the landmarks for ``m`` are the first ``m`` of
        those for ``m' > m``.
    random_state : int, RandomState instance or None, default None
    rcond : float in [0, 1), optional
        Eigenvalues of the landmark Gram below ``rcond`` times the largest
        are treated as zero (the pseudo-inverse square root ignores them), so
        duplicate or linearly dependent landmarks do not blow up the
        features. Default ``n_components * eps`` (numpy's ``matrix_rank``
        rule).

    Attributes
    ----------
    kernel_ : Kernel
        The kernel used: a clone of ``kernel`` fitted on the training
        objects (see "Pure evaluation" in :mod:`structk.kernels.base`).
    components_ : list or ndarray
        The landmark objects.
    component_indices_ : ndarray of int, shape (m,)
        Their positions in the training collection.
    normalization_ : ndarray of shape (m, m)
        ``K[L, L]^(-1/2)`` (pseudo-inverse square root); features are
        ``kernel(X, components_) @ normalization_``.
    rank_ : int
        Number of landmark-Gram eigenvalues kept: ``Phi Phi^T`` has rank
        ``rank_``.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from structk import Nystroem
    >>> from structk.kernels import FunctionKernel
    >>> k = FunctionKernel(lambda a, b: len(set(a) & set(b)), name="shared letters")
    >>> model = make_pipeline(Nystroem(k, n_components=3, random_state=0),
    ...                       LogisticRegression())
    >>> model.fit(["ab", "abc", "xy", "xyz"], [0, 0, 1, 1]).predict(["ba", "zx"])
    array([0, 1])

    References
    ----------
    C. K. I. Williams and M. Seeger, "Using the Nyström method to speed up
    kernel machines", NIPS 13, 2001.

    K. Zhang, I. W. Tsang and J. T. Kwok, "Improved Nyström low-rank
    approximation and error analysis", ICML 2008 (landmarks from k-means).

    D. Arthur and S. Vassilvitskii, "k-means++: the advantages of careful
    seeding", SODA 2007.
    """

    def __init__(
        self,
        kernel,
        n_components=100,
        landmarks="uniform",
        random_state=None,
        rcond=None,
        n_jobs=None,
        client=None,
        progress=False,
    ):
        self.kernel = kernel
        self.n_components = n_components
        self.landmarks = landmarks
        self.random_state = random_state
        self.rcond = rcond
        self.n_jobs = n_jobs
        self.client = client
        self.progress = progress

    def fit(self, X, y=None):
        """Pick landmarks among ``X`` and factor their Gram matrix.

        Parameters
        ----------
        X : sequence of objects
        y : ignored

        Returns
        -------
        self
        """
        from sklearn.base import clone

        from ..learners._base import check_input_features

        self._check_params()
        check_input_features(self, self.kernel, X, reset=True)
        X = check_objects(X, "X")
        kernel = clone(self.kernel).fit(X).validate()
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        m = check_scalar(self.n_components, "n_components", lower=1, integer=True)
        if m > n:
            warnings.warn(
                f"n_components={m} > {n} training objects; using {n} landmarks "
                "(the exact Gram matrix, at full cost)",
                stacklevel=2,
            )
            m = n
        rng = check_random_state(self.random_state)
        P = kernel.prepare(X, "X")
        idx = select_landmarks(kernel, X, P, m, self.landmarks, rng)
        landmarks = take(kernel, X, P, idx, "X")
        K_mm = checked_tile(kernel, landmarks, None, ((0, m), (0, m)))
        self.normalization_, self.rank_ = _inv_sqrt_psd(K_mm, self.rcond)
        self.component_indices_ = idx
        self.components_ = X[idx] if hasattr(X, "shape") else [X[i] for i in idx]
        self.kernel_ = kernel
        self._components_prepared = landmarks
        return self

    def transform(self, X):
        """Features ``Phi`` of ``X``, shape ``(len(X), m)``.

        ``transform(X) @ transform(Y).T`` approximates ``kernel(X, Y)``.
        """
        from ..learners._base import check_input_features
        from .columns import landmark_features

        check_is_fitted(self, "normalization_")
        kernel = self.kernel_.validate()
        X = check_objects(X, "X")
        check_input_features(self, kernel, X, reset=False)
        return landmark_features(
            kernel,
            X,
            None,
            self._components_prepared,
            self.normalization_,
            n_jobs=getattr(self, "n_jobs", None),
            client=getattr(self, "client", None),
            progress=getattr(self, "progress", False),
        )

    def __sklearn_tags__(self):
        from ..learners._base import object_tags

        return object_tags(super().__sklearn_tags__(), self.kernel)

    @property
    def _n_features_out(self):
        """One feature per landmark (``get_feature_names_out``)."""
        return self.normalization_.shape[1]

    def _check_params(self):
        if not isinstance(self.kernel, Kernel):
            raise TypeError(
                f"kernel must be a structk Kernel, got {type(self.kernel).__name__}; "
                "wrap a Python function with structk.kernels.FunctionKernel"
            )
        if self.landmarks not in _LANDMARKS:
            raise ValueError(f"landmarks must be one of {_LANDMARKS}, got {self.landmarks!r}")
        if self.rcond is not None:
            check_scalar(self.rcond, "rcond", lower=0, upper=1, upper_inclusive=False)
        return self.kernel


def select_landmarks(kernel, X, P, m, method, rng):
    """Positions of ``m`` landmarks among the prepared objects ``P`` of ``X``
    (``method`` one of "uniform", "kmeans++", "leverage")."""
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if method == "uniform":
        return rng.permutation(n)[:m]
    if method == "kmeans++":
        return _kmeanspp(kernel, X, P, m, rng)
    return leverage_landmarks(kernel, X, P, m, rng)


#: Relative ridge of the approximate leverage scores: ``mu = LEVERAGE_RIDGE
#: * mean(k(x, x))`` over the pilot landmarks.
LEVERAGE_RIDGE = 1e-3


def leverage_landmarks(kernel, X, P, m, rng, block_rows=None):
    r"""``m`` landmarks drawn by approximate ridge leverage scores.

    A uniform pilot set ``S`` of ``max(1, m // 2)`` objects gives every
    object the score

    .. math:: \ell_i = k(x_i, x_i) - k_{iS} (K_{SS} + \mu I)^{-1} k_{Si},

    the part of ``x_i`` that the pilot landmarks do not explain (up to the
    factor ``1/mu`` the ridge leverage score of ``x_i`` approximated from
    ``S``, Alaoui & Mahoney 2015; Rudi et al. 2018), with
    ``mu = LEVERAGE_RIDGE * mean(k(s, s))``. Landmarks are then drawn without
    replacement with probabilities proportional to ``ell_i`` (plus a
    uniform share of one part in a thousand, so that no object has
    probability zero). The scores need ``n x |S|`` kernel values, computed
    in blocks of rows.

    References
    ----------
    A. E. Alaoui and M. W. Mahoney, "Fast randomized kernel ridge regression
    with statistical guarantees", NIPS 2015.
    A. Rudi, D. Calandriello, L. Carratino and L. Rosasco, "On fast leverage
    score sampling and optimal learning", NeurIPS 2018.
    """
    from scipy.linalg import cho_factor, cho_solve

    n = X.shape[0] if hasattr(X, "shape") else len(X)
    pilot = rng.permutation(n)[: max(1, m // 2)]
    PS = take(kernel, X, P, pilot, "X")
    K_ss = checked_tile(kernel, PS, None, ((0, len(pilot)), (0, len(pilot))))
    mu = LEVERAGE_RIDGE * max(float(np.mean(np.diag(K_ss))), np.finfo(float).tiny)
    factor = cho_factor(K_ss + mu * np.eye(len(pilot)), lower=True)
    scores = np.empty(n)
    block_rows = block_rows or _tuning.LANDMARK_BLOCK_ROWS
    for a in range(0, n, block_rows):
        b = min(a + block_rows, n)
        Pb = take(kernel, X, P, slice(a, b), "X")
        C = kernel.cross_prepared(Pb, PS)
        explained = np.einsum("ij,ji->i", C, cho_solve(factor, C.T))
        scores[a:b] = np.maximum(kernel.diag_prepared(Pb) - explained, 0.0)
    total = scores.sum()
    p = np.full(n, 1.0 / n) if not total > 0 else 0.999 * scores / total + 0.001 / n
    return rng.choice(n, size=m, replace=False, p=p / p.sum())


def _kmeanspp(kernel, X, P, m, rng):
    """k-means++ seeding (D^2 sampling) in the kernel's feature space.

    Each step draws one landmark with probability proportional to its
    squared feature-space distance to the nearest landmark so far; it needs
    one kernel column per landmark, ``O(n m)`` kernel values in all. When
    every remaining object coincides with a landmark (all distances 0) the
    rest are drawn uniformly.
    """
    diag = kernel.diag_prepared(P)
    n = diag.shape[0]
    chosen = np.empty(m, dtype=np.intp)
    closest = np.full(n, np.inf)
    taken = np.zeros(n, dtype=bool)
    for t in range(m):
        weights = np.where(taken, 0.0, closest)
        total = weights.sum() if t else np.inf
        if t == 0:
            c = int(rng.randint(n))
        elif total > 0 and np.isfinite(total):
            cum = np.cumsum(weights)
            c = int(np.searchsorted(cum, rng.random_sample() * cum[-1], side="right"))
            c = min(c, n - 1)
        else:
            c = int(rng.choice(np.flatnonzero(~taken)))
        chosen[t], taken[c] = c, True
        if t + 1 < m:
            col = checked_tile(
                kernel, P, take(kernel, X, P, np.array([c]), "X"), ((0, n), (c, c + 1))
            )[:, 0]
            d2 = np.maximum(diag + diag[c] - 2.0 * col, 0.0)
            np.minimum(closest, d2, out=closest)
    return chosen


def _inv_sqrt_psd(K, rcond):
    """Pseudo-inverse square root of a symmetric PSD matrix, and its rank."""
    V, w, U = eigen_basis(K, rcond)
    return V @ U.T, len(w)


def eigen_basis(K, rcond=None):
    """``(V, w, U)``: the eigenvalues ``w`` of symmetric PSD ``K`` above
    ``rcond`` times the largest (default ``m * eps``), their eigenvectors
    ``U`` and ``V = U diag(w)^(-1/2)``, so that ``V^T K V = I`` and
    ``k(X, L) @ V`` are Nyström features in ``len(w)`` coordinates."""
    m = K.shape[0]
    w, U = np.linalg.eigh(K)
    rcond = m * np.finfo(np.float64).eps if rcond is None else float(rcond)
    top = w[-1] if m else 0.0
    keep = w > rcond * top if top > 0 else np.zeros(m, dtype=bool)
    U = U[:, keep]
    return U / np.sqrt(w[keep]), w[keep], U
