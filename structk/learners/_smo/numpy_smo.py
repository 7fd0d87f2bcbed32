"""SMO for small C-SVM duals, in NumPy (the twin of :mod:`.numba_smo`).

The algorithm of :mod:`.numba_smo` (the second-order working-set selection
of Fan, Chen & Lin, 2005) without shrinking, one vectorised NumPy pass over
the ``n`` variables per iteration: nothing to compile or load, which is what
a small problem wants (see :func:`structk.learners._smo.solve`).

The iterates are those of the numba solver with ``shrinking=False``: the
same choice of ``i`` and ``j`` (ties to the last index), the same
two-variable step (:func:`.step.two_variable_step`) and the same
elementwise gradient update.
"""

from __future__ import annotations

import numpy as np

from .step import two_variable_step


def objective(alpha, G):
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
        ai, aj = two_variable_step(
            ai_old, aj_old, float(G[i]), float(G[j]), signs[i] == signs[j], q, C
        )
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


def rho(y, G, alpha, C):
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
