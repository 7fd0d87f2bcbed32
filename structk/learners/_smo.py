"""SMO for small C-SVM duals, in NumPy.

The algorithm of :mod:`structk._jit.smo` (the second-order working-set
selection of Fan, Chen & Lin, 2005) without shrinking, one vectorised NumPy
pass over the ``n`` variables per iteration. For a few hundred training
objects an iteration costs some tens of microseconds and a solve a few
hundred iterations, so a whole cross-validation takes milliseconds — less
than loading numba's compiled solver into a fresh process (a few tenths of
a second warm, seconds with an empty cache). :func:`solve`, which
:class:`~structk.KernelSVM` calls, uses it up to :data:`SMALL_N` objects
per binary problem and a budget of iterations, and the numba solver
beyond (continuing from the NumPy solver's point).

The iterates are those of the numba solver with ``shrinking=False``: the
same choice of ``i`` and ``j`` (ties to the last index), the same
two-variable step (:func:`two_variable_step`, shared with the numba solver)
and the same elementwise gradient update.
"""

from __future__ import annotations

import numpy as np

#: Binary problems with at most this many variables start here ...
SMALL_N = 400
#: ... and go on in the numba solver, from where this one stopped, if they
#: need more than ``max(BUDGET, WORK // n)`` iterations (at most about
#: 0.15 s of NumPy, the time numba takes to load its solver warm).
BUDGET = 1000
WORK = 2_000_000


def two_variable_step(ai, aj, Gi, Gj, same_sign, quad, C):
    """Analytic solution of the two-variable subproblem, clipped to the box (LIBSVM).

    Plain Python: :mod:`structk._jit.smo` compiles this same function.
    """
    if not same_sign:
        delta = (-Gi - Gj) / quad
        diff = ai - aj
        ai += delta
        aj += delta
        if diff > 0.0:
            if aj < 0.0:
                aj = 0.0
                ai = diff
            if ai > C:
                ai = C
                aj = C - diff
        else:
            if ai < 0.0:
                ai = 0.0
                aj = -diff
            if aj > C:
                aj = C
                ai = C + diff
    else:
        delta = (Gi - Gj) / quad
        total = ai + aj
        ai -= delta
        aj += delta
        if total > C:
            if ai > C:
                ai = C
                aj = total - C
            if aj > C:
                aj = C
                ai = total - C
        else:
            if aj < 0.0:
                aj = 0.0
                ai = total
            if ai < 0.0:
                ai = 0.0
                aj = total
    return ai, aj


def _last_argmax(v):
    """Index of the last maximum (the numba solver keeps the last of ties)."""
    return v.shape[0] - 1 - int(np.argmax(v[::-1]))


def solve(K, y, C, eps, tau, shrinking, max_iter):
    """Solve the C-SVM dual: NumPy for small, easy problems, numba otherwise.

    Returns ``(alpha, rho, objective, n_iter, converged)`` as
    :func:`structk._jit.smo.smo`. The choice depends on the problem only, so
    results are the same in every process whatever ran before.
    """
    n = K.shape[0]
    alpha, G, it = np.zeros(n), -np.ones(n), 0
    if n <= SMALL_N:
        budget = max(BUDGET, WORK // max(n, 1))
        alpha, G, it, converged = smo_numpy(K, y, C, eps, tau, min(max_iter, budget))
        if converged or it >= max_iter:
            return alpha, _rho(y, G, alpha, C), _objective(alpha, G), it, converged
    from .._jit.smo import smo

    alpha, rho, obj, more, converged = smo(K, y, C, eps, tau, shrinking, max_iter - it,
                                           alpha, G)
    return alpha, rho, obj, it + more, converged


def _objective(alpha, G):
    """Dual objective ``1/2 a^T Q a - e^T a`` from ``G = Q a - e``."""
    return float(alpha @ (G - 1.0)) / 2.0


def smo_numpy(K, y, C, eps, tau, max_iter):
    """At most ``max_iter`` iterations of the solver from ``alpha = 0``:
    ``(alpha, G, n_iter, converged)``."""
    n = K.shape[0]
    alpha = np.zeros(n)
    G = -np.ones(n)
    QD = np.ascontiguousarray(K.diagonal())
    pos = y > 0.0
    it = 0
    converged = False
    while it < max_iter:
        at_upper = alpha >= C
        at_lower = alpha <= 0.0
        up = np.where(pos, ~at_upper, ~at_lower)
        low = np.where(pos, ~at_lower, ~at_upper)
        yG = y * G
        v = np.where(up, -yG, -np.inf)
        i = _last_argmax(v)
        Gmax = v[i]
        if not low.any():
            converged = True
            break
        Gmax2 = yG[low].max()
        grad_diff = Gmax + yG
        cand = low & (grad_diff > 0.0)
        if Gmax + Gmax2 < eps or not cand.any():
            converged = True
            break
        Ki = K[i]
        quad = QD[i] + QD - 2.0 * Ki
        quad[quad <= 0.0] = tau
        obj = np.where(cand, -(grad_diff * grad_diff) / quad, np.inf)
        j = _last_argmax(-obj)
        it += 1

        Kj = K[j]
        q = QD[i] + QD[j] - 2.0 * Ki[j]
        if q <= 0.0:
            q = tau
        ai_old, aj_old = float(alpha[i]), float(alpha[j])
        ai, aj = two_variable_step(ai_old, aj_old, float(G[i]), float(G[j]),
                                   bool(y[i] == y[j]), float(q), C)
        alpha[i] = ai
        alpha[j] = aj
        ci = y[i] * (ai - ai_old)
        cj = y[j] * (aj - aj_old)
        G += y * (ci * Ki + cj * Kj)
    return alpha, G, it, converged


def _rho(y, G, alpha, C):
    """Offset: mean of ``y_i G_i`` over free variables, else the bounds' midpoint."""
    yG = y * G
    upper = alpha >= C
    lower = alpha <= 0.0
    free = ~(upper | lower)
    if free.any():
        return float(yG[free].mean())
    pos = y > 0.0
    # bounds as in the numba solver: at C a negative (at 0 a positive)
    # variable bounds the offset from above, the others from below
    ub_mask = (upper & ~pos) | (lower & pos)
    lb_mask = (upper & pos) | (lower & ~pos)
    ub = yG[ub_mask].min() if ub_mask.any() else np.inf
    lb = yG[lb_mask].max() if lb_mask.any() else -np.inf
    return float((ub + lb) / 2.0)
