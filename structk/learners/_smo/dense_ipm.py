"""A dense primal-dual interior-point method for small C-SVM duals.

SMO's iterations grow with ``C``: on a nearly hard-margin problem (the
one-vs-one machines of a normalised random walk on ENZYMES, ~180 objects,
at ``C = 1e6``) it needs millions of two-variable steps. An interior-point
method needs 10-25 Newton steps whatever ``C``, each a Cholesky
factorisation of an ``n x n`` matrix: for a few hundred variables,
milliseconds. :func:`structk.learners._smo.solve` runs it on small
problems and hands its point to SMO, which finishes to the same KKT
tolerance as from zero (so the model does not depend on the path).

The problem is solved in the scaled variables ``u = alpha / C`` in
``[0, 1]``::

    min 1/2 u^T H u - e^T u / C,   H = Q,   0 <= u <= 1,   y^T u = 0

(the C-SVM dual divided by ``C^2``), with Mehrotra's predictor-corrector
steps (Mehrotra, 1992; Wright, 1997, ch. 11 and 16). The Newton matrix
``H + D`` (``D`` the barrier's diagonal) is positive definite at every
interior point even for a rank-deficient ``Q``; a regularisation of
``1e-12 max |H_ij|`` on its diagonal keeps the factorisation defined when
``D`` underflows. The stopping rule asks for relative residuals and a
relative duality gap below ``tol``.

After the interior point, :func:`polish` guesses the active set (the
variables the barrier pushed to a bound), solves the equality-constrained
problem on the free variables exactly, and returns a feasible point of the
original dual (``0 <= alpha <= C``, ``y^T alpha = 0`` to rounding) close to
the optimum: SMO from there usually stops within a few iterations.

References
----------
S. Mehrotra, "On the implementation of a primal-dual interior point
method", SIAM J. Optimization 2 (1992).
S. J. Wright, Primal-Dual Interior-Point Methods, SIAM (1997).
M. C. Ferris and T. S. Munson, "Interior-point methods for massive support
vector machines", SIAM J. Optimization 13 (2002).
"""

from __future__ import annotations

import numpy as np

#: Newton steps before the method gives up (it typically needs 10-25).
MAX_ITER = 100
#: Relative residuals and duality gap at which the interior point stops.
TOL = 1e-9
#: Fraction of the distance to the boundary a step may go.
STEP_FRACTION = 0.995
#: ``|y^T alpha|`` below ``BALANCE_TOL * C * n`` is left (rounding).
BALANCE_TOL = 1e-14


class IPMFailure(RuntimeError):
    """The interior-point method did not converge (or met a non-finite
    number): the caller goes on with SMO alone."""


def interior_point(K, y, C, tol=TOL, max_iter=MAX_ITER):
    """Solve the C-SVM dual on ``Q = y y^T * K`` by Mehrotra's
    predictor-corrector method.

    Returns ``(alpha, bounds, n_iter)``: ``alpha`` strictly inside the box
    ``(0, C)`` (an interior point) with ``y^T alpha`` zero to ``tol``, and
    ``bounds`` the variables' guessed places at the optimum (-1 at 0, +1 at
    ``C``, 0 free): at a bound whose distance is smaller than its dual
    variable (near the optimum their product is the barrier parameter
    ``mu``, so one of the two goes to zero, as ``mu``). Raises
    :class:`IPMFailure` when the method stops before ``tol``.
    """
    # imported here: SciPy's linear algebra costs a fresh `structk fit`
    # 0.3-0.4 s of CPU, and most fits never reach the interior point
    from scipy.linalg.lapack import dpotrf, dpotrs

    n = K.shape[0]
    if not (np.isfinite(C) and np.all(np.isfinite(K))):
        raise IPMFailure("a non-finite Gram entry or C")
    H = K * np.outer(y, y)
    c = np.full(n, -1.0 / C)
    scale = max(float(np.max(np.abs(np.diagonal(H)))), float(np.max(np.abs(H))), 1.0 / C)
    H = H / scale  # objective scale is immaterial; entries O(1) for the tolerances
    c = c / scale
    reg = 1e-12
    # start: u inside the box with y^T u = 0 (the larger class scaled down)
    pos = y > 0
    n_pos, n_neg = int(pos.sum()), n - int(pos.sum())
    if n_pos == 0 or n_neg == 0:
        return np.zeros(n), np.full(n, -1), 0  # y^T u = 0, u >= 0: only u = 0
    x = np.where(pos, 0.5 * min(1.0, n_neg / n_pos), 0.5 * min(1.0, n_pos / n_neg))
    g = H @ x + c
    zl = np.maximum(g, 0.0) + 1.0
    zu = np.maximum(-g, 0.0) + 1.0
    nu = 0.0
    norm_c = 1.0 + float(np.max(np.abs(c)))
    for it in range(max_iter):
        s = 1.0 - x
        Hx = H @ x
        rd = Hx + c - nu * y - zl + zu
        rp = float(y @ x)
        gap = float(x @ zl + s @ zu)
        mu = gap / (2 * n)
        primal = 0.5 * float(x @ Hx) + float(c @ x)
        if not (np.isfinite(gap) and np.isfinite(primal) and np.all(np.isfinite(rd))):
            raise IPMFailure(f"non-finite interior point at step {it}")
        if (
            float(np.max(np.abs(rd))) <= tol * norm_c
            and abs(rp) <= tol
            and gap <= tol * (abs(primal) + float(np.max(np.abs(c))))
        ):
            bounds = np.where(x < zl, -1, np.where(s < zu, 1, 0))
            return x * C, bounds, it
        M = H.copy()
        M.flat[:: n + 1] += zl / x + zu / s + reg
        F, info = dpotrf(M.T, lower=1, clean=0, overwrite_a=1)  # M.T: Fortran order
        if info != 0:
            raise IPMFailure(f"Newton matrix not positive definite at step {it}")

        def direction(rl, ru, v=None):
            # (H + D) dx - y dnu = -rd + rl / x - ru / s,  y^T dx = -rp, with
            # v = (H + D)^-1 y (solved with the first right-hand side)
            rhs = -rd + rl / x - ru / s
            if v is None:
                both, _ = dpotrs(F, np.column_stack((rhs, y)), lower=1)
                u, v = both[:, 0], both[:, 1]
            else:
                u, _ = dpotrs(F, rhs, lower=1)
            dnu = (-rp - float(y @ u)) / float(y @ v)
            dx = u + v * dnu
            dzl = (rl - zl * dx) / x
            dzu = (ru + zu * dx) / s
            return dx, dnu, dzl, dzu, v

        def longest(dx, dzl, dzu):
            # the largest step in (0, 1] keeping x, 1 - x, zl, zu positive
            val = np.concatenate((x, s, zl, zu))
            d = np.concatenate((dx, -dx, dzl, dzu))
            down = d < 0.0
            return min(1.0, float(np.min(val[down] / -d[down]))) if down.any() else 1.0

        # predictor (affine scaling), then Mehrotra's centring and corrector
        dx, dnu, dzl, dzu, v = direction(-x * zl, -s * zu)
        a = longest(dx, dzl, dzu)
        mu_aff = float((x + a * dx) @ (zl + a * dzl) + (s - a * dx) @ (zu + a * dzu)) / (2 * n)
        sigma = min(1.0, (mu_aff / mu) ** 3)
        dx, dnu, dzl, dzu, _ = direction(
            -x * zl - dx * dzl + sigma * mu, -s * zu + dx * dzu + sigma * mu, v
        )
        a = min(1.0, STEP_FRACTION * longest(dx, dzl, dzu))
        x = x + a * dx
        zl = zl + a * dzl
        zu = zu + a * dzu
        nu += a * dnu
    raise IPMFailure(f"no convergence in {max_iter} Newton steps")


def polish(K, y, alpha, bounds, C):
    """A feasible point of the dual near the interior point ``alpha`` and
    its gradient: ``(alpha0, G0)`` for SMO.

    The variables guessed at a bound (``bounds`` from
    :func:`interior_point`) go to it (the barrier never puts them there
    exactly); the free ones solve the equality-constrained problem with the
    bounded ones fixed (one least-squares solve of its KKT system, defined
    for a singular ``Q`` too), unless that leaves the box, when they keep the interior
    point's values. ``y^T alpha0 = 0`` is restored on the variables with the
    most room, and ``G0 = Q alpha0 - 1`` computed anew.
    """
    alpha = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, C)
    alpha[bounds < 0] = 0.0
    alpha[bounds > 0] = C
    free = np.flatnonzero(bounds == 0)
    if free.size:
        Kf = K[np.ix_(free, free)] * np.outer(y[free], y[free])
        bound = np.flatnonzero(bounds > 0)
        rhs = np.ones(free.size)
        if bound.size:
            rhs -= y[free] * (K[np.ix_(free, bound)] @ (y[bound] * C))
        m = free.size
        A = np.zeros((m + 1, m + 1))
        A[:m, :m] = Kf
        A[:m, m] = -y[free]  # Q_ff a_f - nu y_f = e_f - Q_fb a_b
        A[m, :m] = y[free]  # y_f^T a_f = -y_b^T a_b
        b = np.append(rhs, -float(y[bound].sum() * C) if bound.size else 0.0)
        with np.errstate(all="ignore"):
            sol = np.linalg.lstsq(A, b, rcond=None)[0][:m]
        room = 1e-9 * C
        if np.all(np.isfinite(sol)) and np.all((sol >= -room) & (sol <= C + room)):
            alpha[free] = np.clip(sol, 0.0, C)
    _restore_balance(y, alpha, C)
    G = y * (K @ (y * alpha)) - 1.0
    return alpha, G


def _restore_balance(y, alpha, C):
    """Make ``y^T alpha = 0`` (in place) by moving the variables of one
    class, the one whose move has room inside the box, largest room first."""
    r = float(y @ alpha)
    if abs(r) <= BALANCE_TOL * C * len(y):  # rounding: the sum's own error
        return
    # r > 0: lower a positive variable or raise a negative one
    for k in np.argsort(-np.minimum(alpha, C - alpha)):
        room = alpha[k] if (y[k] > 0) == (r > 0) else C - alpha[k]
        move = min(abs(r), room)
        if move <= 0.0:
            continue
        alpha[k] += -move if (y[k] > 0) == (r > 0) else move
        r = float(y @ alpha)
        if abs(r) <= BALANCE_TOL * C * len(y):
            return
