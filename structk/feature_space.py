"""Geometry in a kernel's feature space: distances, barycentres, RKHS norms.

For a kernel ``k`` with feature map ``phi``:

* ``d_k(x, y) = ||phi(x) - phi(y)|| = sqrt(k(x,x) + k(y,y) - 2 k(x,y))``;
* the distance of ``x`` to the barycentre ``m = sum_i w_i phi(s_i)`` of a set
  (``w_i = 1/n`` by default) is
  ``sqrt(k(x,x) - 2 sum_i w_i k(x, s_i) + sum_ij w_i w_j k(s_i, s_j))``;
* the squared RKHS norm of ``f = sum_i a_i k(x_i, .)`` is ``a^T K a``;
* the ball ``{f : ||f|| <= B}`` has empirical Rademacher complexity at most
  ``2 B sqrt(sum_i k(x_i, x_i)) / n`` on ``n`` objects
  (:func:`rademacher_bound`).

Squared distances can come out slightly negative through rounding; they are
clipped at 0 before the square root.

References
----------
B. Schölkopf and A. J. Smola, "Learning with Kernels", MIT Press (2002),
sections 2.2 and 4.
P. L. Bartlett and S. Mendelson, "Rademacher and Gaussian complexities: risk
bounds and structural results", JMLR 3 (2002) 463-482.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_objects


def feature_distance(kernel, X, Y=None):
    """Feature-space distances ``d_k(X[i], Y[j])`` (``Y = X`` when omitted).

    Parameters
    ----------
    kernel : Kernel
    X, Y : sequences of objects

    Returns
    -------
    D : ndarray (len(X), len(Y))

    Examples
    --------
    >>> import numpy as np
    >>> from structk import Linear
    >>> from structk.feature_space import feature_distance
    >>> feature_distance(Linear(), np.array([[0.0, 0.0], [3.0, 4.0]]))
    array([[0., 5.],
           [5., 0.]])
    """
    X = check_objects(X, "X")
    dx = kernel.diag(X)
    if Y is None:
        D2 = dx[:, None] + dx[None, :] - 2.0 * kernel(X)
        np.fill_diagonal(D2, 0.0)
    else:
        Y = check_objects(Y, "Y")
        D2 = dx[:, None] + kernel.diag(Y)[None, :] - 2.0 * kernel(X, Y)
    return np.sqrt(np.maximum(D2, 0.0))


def distance_to_barycentre(kernel, X, S, weights=None):
    """Distance of each ``X[i]`` to the (weighted) barycentre of ``phi(S)``.

    Parameters
    ----------
    kernel : Kernel
    X : sequence of objects
    S : sequence of objects
        The set whose barycentre is taken.
    weights : array_like (len(S),), optional
        Barycentric weights; default ``1/len(S)`` each. They need not sum to 1.

    Returns
    -------
    d : ndarray (len(X),)
    """
    X = check_objects(X, "X")
    S = check_objects(S, "S")
    if weights is None:
        w = np.full(len(S), 1.0 / len(S))
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (len(S),):
            raise ValueError(
                f"weights must have one entry per object of S ({len(S)}), got shape {w.shape}"
            )
        if not np.isfinite(w).all():
            raise ValueError(f"weights[{int(np.argmin(np.isfinite(w)))}] is not finite")
    d2 = kernel.diag(X) - 2.0 * (kernel(X, S) @ w) + float(w @ kernel(S) @ w)
    return np.sqrt(np.maximum(d2, 0.0))


def rkhs_norm(dual_coef, K, squared=False):
    """RKHS norm of ``f = sum_i a_i k(x_i, .)``: ``sqrt(a^T K a)``.

    Parameters
    ----------
    dual_coef : array_like (n,) or (m, n)
        Coefficients ``a`` (rows of a 2-D array are separate functions, as
        the ``dual_coef_`` of the learners).
    K : array_like (n, n)
        Gram matrix of the expansion points ``x_i``.
    squared : bool, default=False
        Return ``a^T K a`` instead.

    Returns
    -------
    float or ndarray (m,)
    """
    A = np.asarray(dual_coef, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    n = A.shape[-1]
    if K.shape != (n, n):
        raise ValueError(f"K must be ({n}, {n}) to match {n} coefficients, got shape {K.shape}")
    from ._threads import small_matmul

    sq = np.sum(small_matmul(A, K) * A, axis=-1)  # a^T K a per row, by BLAS
    sq = np.maximum(sq, 0.0)
    out = sq if squared else np.sqrt(sq)
    return float(out) if out.ndim == 0 else out


def rademacher_bound(kernel_or_gram, B, X=None):
    r"""Bound on the Rademacher complexity of the RKHS ball of radius ``B``.

    For ``F_B = {f in H_k : ||f|| <= B}`` and objects ``x_1..x_n``, the
    empirical Rademacher complexity
    ``R_n(F_B) = E_sigma sup_{f in F_B} (2/n) sum_i sigma_i f(x_i)``
    (the factor 2 as in Bartlett and Mendelson) satisfies

    ``R_n(F_B) <= 2 B sqrt(sum_i k(x_i, x_i)) / n = 2 B sqrt(mean_i k(x_i, x_i)) / sqrt(n)``:

    the supremum is ``(2B/n) ||sum_i sigma_i phi(x_i)||`` by Cauchy-Schwarz,
    and Jensen's inequality bounds its expectation by the square root of
    ``E ||sum_i sigma_i phi(x_i)||^2 = sum_i k(x_i, x_i)``. Only the diagonal
    of the Gram matrix is needed. With normalised kernels (``k(x, x) = 1``) it
    is ``2B / sqrt(n)`` whatever the objects. Fitted learners expose the
    ``B`` of their predictor as ``rkhs_norm_``.

    Parameters
    ----------
    kernel_or_gram : Kernel or array_like (n, n)
        A kernel (then ``X`` gives the objects; only ``kernel.diag(X)`` is
        computed) or a Gram matrix (its diagonal is used).
    B : float
        Radius of the ball (>= 0), e.g. ``model.rkhs_norm_``.
    X : sequence of objects, optional
        Required with a kernel, not allowed with a Gram matrix.

    Returns
    -------
    float

    Examples
    --------
    >>> from structk import Normalize, Spectrum
    >>> from structk.feature_space import rademacher_bound
    >>> rademacher_bound(Normalize(Spectrum(k=2)), 1.0, X=["ACGT", "GGCA", "TTAC", "CAGT"])
    1.0
    """
    from ._validation import check_scalar, fitted_kernel
    from .kernels.base import Kernel

    B = check_scalar(B, "B", lower=0.0)
    if isinstance(kernel_or_gram, Kernel):
        if X is None:
            raise ValueError("kernel_or_gram is a kernel: pass the objects as X")
        X = check_objects(X, "X")
        d = np.asarray(fitted_kernel(kernel_or_gram, X).diag(X), dtype=np.float64)
    else:
        if X is not None:
            raise ValueError("kernel_or_gram is a Gram matrix: X must not be given")
        K = np.asarray(kernel_or_gram)
        if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
            raise ValueError(f"a Gram matrix must be square and non-empty, got shape {K.shape}")
        d = np.diag(K).astype(np.float64)
    if not np.isfinite(d).all():
        i = int(np.argmin(np.isfinite(d)))
        raise ValueError(f"k(x, x) of object {i} is {d[i]}: not finite")
    if d.min() < 0:
        i = int(np.argmin(d))
        raise ValueError(
            f"k(x, x) of object {i} is {d[i]} < 0: not a kernel (a PSD Gram has "
            "a non-negative diagonal)"
        )
    return float(2.0 * B * np.sqrt(d.mean()) / np.sqrt(len(d)))
