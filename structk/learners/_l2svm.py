"""The squared-hinge SVM in the primal, exactly, with an unpenalised bias.

Minimises

.. math::

    f(w, b) = \\tfrac12 \\|w\\|^2 + C \\sum_i \\max(0, 1 - s_i (x_i^\\top w + b))^2

over the feature rows ``x_i`` (dense or sparse) and signs ``s_i = +-1``: the
primal of :class:`~structk.learners.KernelSVM`'s ``loss="squared_hinge"``,
whose bias the dual leaves unpenalised. LIBLINEAR penalises the bias (a
constant feature), and its trust-region Newton method stops on a gradient
relative to the first one, which that feature inflates: on 30 spectrum
vectors it ended 10-60 % of the decision values' scale away from this
optimum. Here:

* ``f`` is convex and piecewise quadratic, so the modified finite Newton
  method of Keerthi & DeCoste (2005) applies: on the current set of margin
  violators ``I`` the problem is a least-squares one, solved by conjugate
  gradients (Jacobi-preconditioned, matrix-free: two products with the
  feature matrix per step); an exact line search along the Newton direction
  (a root of the monotone, piecewise-linear ``phi'(t)``) handles the change
  of ``I``. It stops when the gradient is ``GRADIENT_RTOL`` of its value at
  zero: decision values within rounding of the optimum, far inside the
  dual's own ``tol``.
* The generalised Hessian ``diag(1, ..., 1, 0) + 2C [X_I 1]^T [X_I 1]`` is
  positive definite whenever ``I`` is non-empty, so the bias needs no
  penalty. (``I`` empty means ``w = 0`` and every margin met, which the
  first step from zero never leaves: it starts with every object violating.)

References
----------
S. S. Keerthi and D. DeCoste, "A modified finite Newton method for fast
solution of large scale linear SVMs", JMLR 6 (2005).
O. L. Mangasarian, "A finite Newton method for classification",
Optimization Methods and Software 17 (2002).
"""

from __future__ import annotations

import numpy as np

#: The fit stops when ``||grad f|| <= GRADIENT_RTOL * ||grad f(0, 0)||``.
GRADIENT_RTOL = 1e-10
#: Conjugate-gradient steps per Newton step, at most, as a multiple of the
#: number of unknowns (and never fewer than 50).
CG_MAX_FACTOR = 2


def l2svm(F, s, C, tol=1e-3, max_iter=1000):
    """``(w, b, n_newton, converged)`` minimising ``f`` above.

    ``F``: feature rows (ndarray or SciPy sparse), ``s``: +-1.0 per row,
    ``C > 0``. ``tol`` (the estimator's) caps the conjugate-gradient
    tolerance of the early Newton steps; the end point meets
    ``GRADIENT_RTOL`` whatever it is. ``max_iter``: Newton steps.
    """
    s = np.asarray(s, dtype=np.float64)
    n, d = F.shape
    sparse = hasattr(F, "tocsr")
    if sparse:
        F = F.tocsr()
        if F.dtype != np.float64:
            F = F.astype(np.float64)
        Fsq = F.multiply(F).tocsr()
    else:
        F = np.asarray(F, dtype=np.float64)
        Fsq = F * F
    w = np.zeros(d)
    b = 0.0
    out = np.zeros(n)  # F w + b
    g_w, g_b, active = _gradient(F, s, C, w, b, out)
    stop = GRADIENT_RTOL * max(np.sqrt(g_w @ g_w + g_b * g_b), 1e-300)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        gnorm = np.sqrt(g_w @ g_w + g_b * g_b)
        if gnorm <= stop:
            converged = True
            it -= 1
            break
        rtol = min(0.1, tol, np.sqrt(gnorm / max(stop / GRADIENT_RTOL, 1e-300)))
        d_w, d_b = _newton_direction(F, Fsq, s, C, active, g_w, g_b, rtol, d)
        od = F @ d_w + d_b
        t = _line_search(s, C, w, b, out, d_w, od)
        w = w + t * d_w
        b = b + t * d_b
        out = out + t * od
        g_w, g_b, active = _gradient(F, s, C, w, b, out)
    else:
        gnorm = np.sqrt(g_w @ g_w + g_b * g_b)
        converged = gnorm <= stop
    return w, float(b), it, converged


def _gradient(F, s, C, w, b, out):
    """Gradient of ``f`` at ``(w, b)`` (``out = F w + b``) and the margin
    violators."""
    m = 1.0 - s * out
    active = m > 0.0
    r = np.where(active, s * m, 0.0)
    g_w = w - 2.0 * C * np.asarray(F.T @ r).ravel()
    g_b = -2.0 * C * float(r.sum())
    return g_w, g_b, active


def _newton_direction(F, Fsq, s, C, active, g_w, g_b, rtol, d):
    """``H^{-1} (-g)`` by preconditioned conjugate gradients, ``H`` the
    generalised Hessian on the violators ``active``."""
    mask = active.astype(np.float64)
    n_active = float(mask.sum())
    diag_w = 1.0 + 2.0 * C * np.asarray(Fsq.T @ mask).ravel()
    diag_b = max(2.0 * C * n_active, 1e-12)

    def H(v_w, v_b):
        u = (np.asarray(F @ v_w).ravel() + v_b) * mask
        return v_w + 2.0 * C * np.asarray(F.T @ u).ravel(), 2.0 * C * float(u.sum())

    x_w, x_b = np.zeros(d), 0.0
    r_w, r_b = -g_w, -g_b
    z_w, z_b = r_w / diag_w, r_b / diag_b
    p_w, p_b = z_w.copy(), z_b
    rz = r_w @ z_w + r_b * z_b
    target = rtol * np.sqrt(r_w @ r_w + r_b * r_b)
    for _ in range(max(50, CG_MAX_FACTOR * (d + 1))):
        q_w, q_b = H(p_w, p_b)
        pq = p_w @ q_w + p_b * q_b
        if pq <= 0.0:  # pragma: no cover - H is positive definite
            break
        a = rz / pq
        x_w += a * p_w
        x_b += a * p_b
        r_w -= a * q_w
        r_b -= a * q_b
        if np.sqrt(r_w @ r_w + r_b * r_b) <= target:
            break
        z_w, z_b = r_w / diag_w, r_b / diag_b
        rz_new = r_w @ z_w + r_b * z_b
        beta = rz_new / rz
        rz = rz_new
        p_w = z_w + beta * p_w
        p_b = z_b + beta * p_b
    return x_w, x_b


def _line_search(s, C, w, b, out, d_w, od):
    """The exact minimiser ``t`` of ``f(w + t d_w, b + t d_b)``: the root of
    ``phi'(t) = w.d_w + t |d_w|^2 - 2C sum_{m_i(t) > 0} s_i od_i m_i(t)``
    with ``m_i(t) = 1 - s_i (out_i + t od_i)``, monotone and piecewise
    linear in ``t``; safeguarded Newton steps inside a bracket."""
    wd, dd = float(w @ d_w), float(d_w @ d_w)
    m0 = 1.0 - s * out
    sod = s * od

    def slope(t):
        m = m0 - t * sod
        on = m > 0.0
        return (
            wd + t * dd - 2.0 * C * float(sod[on] @ m[on]),
            dd + 2.0 * C * float(sod[on] @ sod[on]),
        )

    lo, hi = 0.0, 1.0
    g_lo = slope(0.0)[0]
    if g_lo >= 0.0:  # pragma: no cover - not a descent direction (rounding)
        return 0.0
    g_hi, _ = slope(hi)
    while g_hi < 0.0:  # the minimiser lies beyond t = 1: extend the bracket
        lo, g_lo = hi, g_hi
        hi *= 2.0
        g_hi, _ = slope(hi)
        if hi > 1e12:  # pragma: no cover - unbounded below cannot happen
            return lo
    t = 1.0 if g_hi >= 0.0 and lo == 0.0 else 0.5 * (lo + hi)
    for _ in range(100):
        g, curv = slope(t)
        if g == 0.0:
            return t
        if g < 0.0:
            lo = t
        else:
            hi = t
        if hi - lo <= 1e-15 * max(1.0, hi):
            break
        step = t - g / curv if curv > 0.0 else 0.5 * (lo + hi)
        t = step if lo < step < hi else 0.5 * (lo + hi)
    return t
