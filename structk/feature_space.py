"""Geometry in a kernel's feature space: distances, barycentres, RKHS norms.

For a kernel ``k`` with feature map ``phi``:

* ``d_k(x, y) = ||phi(x) - phi(y)|| = sqrt(k(x,x) + k(y,y) - 2 k(x,y))``;
* the distance of ``x`` to the barycentre ``m = sum_i w_i phi(s_i)`` of a set
  (``w_i = 1/n`` by default) is
  ``sqrt(k(x,x) - 2 sum_i w_i k(x, s_i) + sum_ij w_i w_j k(s_i, s_j))``;
* the squared RKHS norm of ``f = sum_i a_i k(x_i, .)`` is ``a^T K a``.

Squared distances can come out slightly negative through rounding; they are
clipped at 0 before the square root.

References
----------
B. Schölkopf and A. J. Smola, "Learning with Kernels", MIT Press (2002),
sections 2.2 and 4.
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
        raise ValueError(
            f"K must be ({n}, {n}) to match {n} coefficients, got shape {K.shape}"
        )
    sq = np.einsum("...i,ij,...j->...", A, K, A)
    sq = np.maximum(sq, 0.0)
    out = sq if squared else np.sqrt(sq)
    return float(out) if out.ndim == 0 else out
