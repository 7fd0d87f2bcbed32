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

from .._lazy import jit_loaded

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


def solve(K, y, C, eps, tau, shrinking, max_iter):
    """Solve the C-SVM dual: NumPy for small, easy problems, numba otherwise.

    Returns ``(alpha, rho, objective, n_iter, converged)`` as
    :func:`structk._jit.smo.smo`. Results depend on the problem only, never
    on what ran before in the process: a small problem follows the
    no-shrinking iterates (in NumPy, or in numba when the compiled solver is
    already loaded — the same numbers) for up to ``max(BUDGET, WORK // n)``
    iterations; beyond, the compiled solver goes on from there, with the
    gradient recomputed from ``alpha`` either way.
    """
    n = K.shape[0]
    if n > SMALL_N:
        from .._jit.smo import smo

        alpha, _, rho, obj, it, converged = smo(K, y, C, eps, tau, shrinking, max_iter,
                                                np.zeros(n), -np.ones(n))
        return alpha, rho, obj, it, converged
    budget = min(max_iter, max(BUDGET, WORK // max(n, 1)))
    if _compiled_solver_loaded():
        from .._jit.smo import smo

        alpha, G, _, _, it, converged = smo(K, y, C, eps, tau, False, budget,
                                            np.zeros(n), -np.ones(n))
    else:
        alpha, G, it, converged = smo_numpy(K, y, C, eps, tau, budget)
    if converged or it >= max_iter:
        return alpha, _rho(y, G, alpha, C), _objective(alpha, G), it, converged
    from .._jit.smo import smo

    G = y * np.einsum("ij,j->i", K, y * alpha) - 1.0  # the same in both cases
    alpha, _, rho, obj, more, converged = smo(K, y, C, eps, tau, shrinking, max_iter - it,
                                              alpha, G)
    return alpha, rho, obj, it + more, converged


def _compiled_solver_loaded():
    """Whether this process has already loaded (or compiled) numba's solver."""
    return jit_loaded("structk._jit.smo", "smo")


def _objective(alpha, G):
    """Dual objective ``1/2 a^T Q a - e^T a`` from ``G = Q a - e``."""
    return float(alpha @ (G - 1.0)) / 2.0


def smo_numpy(K, y, C, eps, tau, max_iter):
    """At most ``max_iter`` iterations of the solver from ``alpha = 0``:
    ``(alpha, G, n_iter, converged)``.

    Membership of I_up and I_low is kept as penalties (0 for members,
    -inf for the others) updated at the two changed variables only.
    """
    n = K.shape[0]
    alpha = np.zeros(n)
    G = -np.ones(n)
    QD = np.ascontiguousarray(K.diagonal())
    signs = y.tolist()
    pen_up = np.where(y > 0.0, 0.0, -np.inf)  # alpha = 0: I_up = {y > 0}
    pen_low = np.where(y > 0.0, -np.inf, 0.0)
    last = n - 1
    it = 0
    converged = False
    while it < max_iter:
        yG = y * G
        v = pen_up - yG  # -y G over I_up
        i = last - int(v[::-1].argmax())  # ties to the last index
        Gmax = float(v[i])
        w = yG + pen_low  # y G over I_low
        if Gmax + float(w.max()) < eps:
            converged = True
            break
        grad_diff = Gmax + w
        gain = grad_diff > 0.0
        if not gain.any():
            converged = True
            break
        Ki = K[i]
        quad = (QD[i] + QD) - 2.0 * Ki
        quad[quad <= 0.0] = tau
        t = grad_diff * grad_diff
        t /= quad
        obj = np.where(gain, -t, np.inf)
        j = last - int(obj[::-1].argmin())
        it += 1

        Kj = K[j]
        q = float(QD[i] + QD[j] - 2.0 * Ki[j])
        if q <= 0.0:
            q = tau
        ai_old, aj_old = float(alpha[i]), float(alpha[j])
        ai, aj = two_variable_step(ai_old, aj_old, float(G[i]), float(G[j]),
                                   signs[i] == signs[j], q, C)
        alpha[i] = ai
        alpha[j] = aj
        for p, a in ((i, ai), (j, aj)):
            inside_top, inside_bottom = a < C, a > 0.0
            if signs[p] > 0.0:
                pen_up[p] = 0.0 if inside_top else -np.inf
                pen_low[p] = 0.0 if inside_bottom else -np.inf
            else:
                pen_up[p] = 0.0 if inside_bottom else -np.inf
                pen_low[p] = 0.0 if inside_top else -np.inf
        ci = signs[i] * (ai - ai_old)
        cj = signs[j] * (aj - aj_old)
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
