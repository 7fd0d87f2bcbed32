"""Platt scaling: probabilities from the decision values of binary machines.

Shared by the dual (:mod:`structk.learners._smo.machines`) and the primal
(:mod:`structk.learners.primal`) SVM paths: the out-of-fold decision values
each machine's sigmoid is fitted to, the sigmoid fit itself, and pairwise
coupling of one-vs-one probabilities.

References
----------
J. C. Platt, "Probabilistic outputs for support vector machines and
comparisons to regularized likelihood methods", in Advances in Large
Margin Classifiers, MIT Press (2000).
H.-T. Lin, C.-J. Lin and R. C. Weng, "A note on Platt's probabilistic
outputs for support vector machines", Machine Learning 68 (2007).
T.-F. Wu, C.-J. Lin and R. C. Weng, "Probability estimates for
multi-class classification by pairwise coupling", JMLR 5 (2004).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

#: Folds of the internal cross-validation giving the decision values the
#: sigmoid is fitted to (LIBSVM's choice).
PLATT_FOLDS = 5


def cv_decision_values(K, signs, solve, rng, folds=PLATT_FOLDS):
    """Decision value of each training point from a machine trained without
    its fold (random folds, as LIBSVM). ``solve(K_train, sides)`` returns
    ``(alpha, rho)``. A training part holding one side only gives that
    side's sign, +-1."""

    def fit_predict(train, test, side):
        alpha, rho = solve(np.ascontiguousarray(K[np.ix_(train, train)]), side)
        return K[np.ix_(test, train)] @ (alpha * side) - rho

    return out_of_fold(signs, rng, fit_predict, folds)


def out_of_fold(signs, rng, fit_predict, folds=PLATT_FOLDS):
    """The fold loop of :func:`cv_decision_values`: ``fit_predict(train,
    test, sides of train)`` gives the decision values of ``test``."""
    n = len(signs)
    perm = rng.permutation(n)
    dec = np.empty(n)
    for f in range(folds):
        test = perm[f * n // folds : (f + 1) * n // folds]
        train = np.setdiff1d(perm, test, assume_unique=True)
        if len(test) == 0:
            continue
        side = signs[train]
        if len(train) == 0 or np.all(side == side[0]):
            dec[test] = side[0] if len(train) else 0.0
            continue
        dec[test] = fit_predict(train, test, side)
    return dec


def platt_objective(A, B, f, t):
    """Negative log-likelihood of targets ``t`` under ``1 / (1 + exp(A f + B))``,
    evaluated stably."""
    z = A * f + B
    return float(
        np.sum(
            np.where(
                z >= 0,
                t * z + np.log1p(np.exp(-np.abs(z))),
                (t - 1) * z + np.log1p(np.exp(-np.abs(z))),
            )
        )
    )


def fit_sigmoid(f, signs, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    """Platt's sigmoid ``(A, B)`` for decision values ``f`` and sides ``signs``
    (+1 / -1), by Newton's method with backtracking line search on Platt's
    regularised targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``, as in
    Lin, Lin & Weng (2007)."""
    f = np.asarray(f, dtype=np.float64)
    pos = signs > 0
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    value = platt_objective(A, B, f, t)
    for _ in range(max_iter):
        z = A * f + B
        e = np.exp(-np.abs(z))
        p = np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))  # 1 / (1 + exp(z))
        q = 1.0 - p
        d2 = p * q
        h11, h22, h21 = sigma + np.dot(f * f, d2), sigma + d2.sum(), np.dot(f, d2)
        d1 = t - p
        g1, g2 = np.dot(f, d1), d1.sum()
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            new = platt_objective(A + step * dA, B + step * dB, f, t)
            if new < value + 1e-4 * step * gd:
                A, B, value = A + step * dA, B + step * dB, new
                break
            step /= 2.0
        if step < min_step:
            break
    return A, B


def sigmoid(D, A, B):
    """``1 / (1 + exp(A f + B))`` column by column, without overflow."""
    z = D * A + B
    e = np.exp(-np.abs(z))
    return np.where(z >= 0, e / (1.0 + e), 1.0 / (1.0 + e))


def pairwise_coupling(P, n_classes, min_prob=1e-7):
    """Class probabilities from the pairwise ones of one-vs-one machines.

    ``P[:, m]`` is ``P(a | a or b)`` of the m-th pair ``(a, b)`` in
    lexicographic order. Solves method 2 of Wu, Lin & Weng (2004),
    ``min_p sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2`` subject to
    ``sum p = 1``, exactly (its KKT system) rather than iteratively.
    """
    n = P.shape[0]
    R = np.zeros((n, n_classes, n_classes))  # R[:, i, j] = P(i | i or j)
    for m, (a, b) in enumerate(combinations(range(n_classes), 2)):
        r = np.clip(P[:, m], min_prob, 1.0 - min_prob)
        R[:, a, b], R[:, b, a] = r, 1.0 - r
    Q = -R.transpose(0, 2, 1) * R
    diag = np.einsum("nji,nji->ni", R, R)  # sum_j R[j, i]^2 (R[i, i] = 0)
    Q[:, np.arange(n_classes), np.arange(n_classes)] = diag
    M = np.zeros((n, n_classes + 1, n_classes + 1))
    M[:, :n_classes, :n_classes] = Q
    M[:, :n_classes, n_classes] = M[:, n_classes, :n_classes] = 1.0
    rhs = np.zeros((n, n_classes + 1))
    rhs[:, n_classes] = 1.0
    p = np.linalg.solve(M, rhs[..., None])[:, :n_classes, 0]
    p = np.clip(p, 0.0, None)
    return p / p.sum(axis=1, keepdims=True)
