"""SMO for the C-SVM dual on a precomputed Gram matrix (numba).

Solves ``min_a 1/2 a^T Q a - e^T a`` subject to ``0 <= a_i <= C`` and
``y^T a = 0`` with ``Q_ij = y_i y_j K_ij``, by sequential minimal optimisation
with the second-order working-set selection of Fan, Chen & Lin (2005) and
LIBSVM's shrinking heuristic (Chang & Lin, 2011, section 5).

The Gram matrix is fully in memory, so no kernel cache is needed. The solver
works on a *working problem*: the variables of a contiguous Gram block ``Kc``
(at first ``K`` itself), whose per-variable arrays (labels, gradient, alpha,
bound flags) are stored in ``Kc``'s order. Shrunk variables are skipped
through a sorted list of active positions; once fewer than half of the
working variables remain active, they are copied to a new, smaller block, so
that the rows read per iteration stay short (LIBSVM gets this effect from its
row cache). When all variables are needed again, the gradient of the shrunk
ones is rebuilt from the support vectors (``n_shrunk x n_SV`` work, a few
times per solve, instead of LIBSVM's ``G_bar`` bookkeeping on every change of
bound). The selection of the next ``i`` is fused into the gradient update.

Everything is validated by the caller: ``K`` is a finite, C-contiguous
float64 square matrix, ``y`` holds +-1.0, ``C > 0``.
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice
from .step import two_variable_step

_LOWER = 0
_UPPER = 1
_FREE = 2


@numba.njit(cache=True)
def _status(a, C):
    if a >= C:
        return _UPPER
    if a <= 0.0:
        return _LOWER
    return _FREE


@numba.njit(cache=True)
def _set_flags(p, a, y, C, status, up, low):
    """Bound status of working position ``p`` and its membership of I_up, I_low."""
    s = _status(a, C)
    status[p] = s
    if y > 0.0:
        up[p] = s != _UPPER
        low[p] = s != _LOWER
    else:
        up[p] = s != _LOWER
        low[p] = s != _UPPER


@numba.njit(cache=True)
def _select_i(yc, Gc, up, act, n_active):
    """Maximal violator: ``argmax -y_t G_t`` over the active part of I_up."""
    Gmax = -np.inf
    pi = -1
    for t in range(n_active):
        p = act[t]
        if up[p]:
            v = -yc[p] * Gc[p]
            if v >= Gmax:
                Gmax = v
                pi = p
    return pi, Gmax


@numba.njit(cache=True)
def _select_j(Kc, QDc, yc, Gc, low, act, n_active, pi, Gmax, tau):
    """Second-order choice of ``j`` given ``i`` (WSS3 of Fan, Chen & Lin).

    Returns ``(pj, Gmax2)`` with ``Gmax2 = max y_t G_t`` over the active part
    of I_low (``pj = -1`` when no pair makes progress).
    """
    Gmax2 = -np.inf
    pj = -1
    obj_min = np.inf
    Ki = Kc[max(pi, 0)]
    Kii = QDc[max(pi, 0)]
    full = n_active == Kc.shape[0]  # then act[t] == t: read in order, no gather
    for t in range(n_active):
        p = t if full else act[t]
        # branch-free: membership of I_low and a positive gain are random
        # from one variable to the next, so branches on them mispredict
        # (same values and comparisons as the NumPy twin: the same choice)
        yG = yc[p] * Gc[p]
        member = low[p]
        Gmax2 = max(Gmax2, yG if member else -np.inf)
        grad_diff = Gmax + yG
        quad = Kii + QDc[p] - 2.0 * Ki[p]
        quad = quad if quad > 0.0 else tau
        obj = -(grad_diff * grad_diff) / quad
        better = member & (grad_diff > 0.0) & (obj <= obj_min)
        pj = p if better else pj
        obj_min = obj if better else obj_min
    return pj, Gmax2


@numba.njit(cache=True)
def _shrink(yc, Gc, status, up, low, act, n_active):
    """LIBSVM's do_shrinking on the active positions; returns the new count.

    Also returns ``Gmax1 + Gmax2``, the current maximal violation.
    """
    Gmax1 = -np.inf  # max -y G over I_up
    Gmax2 = -np.inf  # max  y G over I_low
    for t in range(n_active):
        p = act[t]
        yG = yc[p] * Gc[p]
        if up[p]:
            Gmax1 = max(Gmax1, -yG)
        if low[p]:
            Gmax2 = max(Gmax2, yG)
    m = 0
    for t in range(n_active):
        p = act[t]
        drop = False
        if status[p] == _UPPER:
            drop = -Gc[p] > (Gmax1 if yc[p] > 0.0 else Gmax2)
        elif status[p] == _LOWER:
            drop = Gc[p] > (Gmax2 if yc[p] > 0.0 else Gmax1)
        if not drop:
            act[m] = p
            m += 1
    return m, Gmax1 + Gmax2


@numba.njit(cache=True)
def _write_back(idx, ac, Gc, act, n_active, alpha, G, is_active):
    """Copy the working alphas (all) and gradients (active ones) to full arrays."""
    is_active[:] = False
    for p in range(idx.shape[0]):
        alpha[idx[p]] = ac[p]
    for t in range(n_active):
        p = act[t]
        G[idx[p]] = Gc[p]
        is_active[idx[p]] = True


@numba.njit(cache=True)
def _reconstruct_gradient(K, y, alpha, G, is_active):
    """``G_k = (Q alpha)_k - 1`` for every inactive ``k``, from the support vectors."""
    n = K.shape[0]
    sv = np.empty(n, dtype=np.int64)
    coef = np.empty(n)
    n_sv = 0
    for k in range(n):
        if alpha[k] > 0.0:
            sv[n_sv] = k
            coef[n_sv] = y[k] * alpha[k]
            n_sv += 1
    for k in range(n):
        if is_active[k]:
            continue
        Kk = K[k]
        s = 0.0
        for t in range(n_sv):
            s += coef[t] * Kk[sv[t]]
        G[k] = y[k] * s - 1.0


@numba.njit(cache=True)
def _working_problem(K, idx, y, alpha, G, QD, C):
    """Gram block and per-variable arrays of the variables ``idx`` (sorted)."""
    m = idx.shape[0]
    n = K.shape[0]
    if m == n:
        Kc = K
    else:
        Kc = np.empty((m, m))
        for a in range(m):
            row = K[idx[a]]
            out = Kc[a]
            for b in range(m):
                out[b] = row[idx[b]]
    yc = np.empty(m)
    Gc = np.empty(m)
    ac = np.empty(m)
    QDc = np.empty(m)
    status = np.empty(m, dtype=np.int8)
    up = np.empty(m, dtype=np.bool_)
    low = np.empty(m, dtype=np.bool_)
    for p in range(m):
        k = idx[p]
        yc[p] = y[k]
        Gc[p] = G[k]
        ac[p] = alpha[k]
        QDc[p] = QD[k]
        _set_flags(p, alpha[k], y[k], C, status, up, low)
    return Kc, yc, Gc, ac, QDc, status, up, low


@numba.njit(cache=True)
def _unshrink(K, y, alpha, G, QD, C, idx, ac, Gc, act, n_active, is_active, identity):
    """Write the working problem back, rebuild the full gradient and return
    the whole problem as the working one (every variable active again)."""
    _write_back(idx, ac, Gc, act, n_active, alpha, G, is_active)
    _reconstruct_gradient(K, y, alpha, G, is_active)
    for t in range(identity.shape[0]):  # a loop: a slice copy compiles an error path
        act[t] = identity[t]
    return _working_problem(K, identity, y, alpha, G, QD, C)


@numba.njit(cache=True)
def _rho(y, G, alpha, C):
    """Offset: mean of ``y_i G_i`` over free variables, else the bounds' midpoint."""
    ub = np.inf
    lb = -np.inf
    n_free = 0
    s = 0.0
    for k in range(y.shape[0]):
        yG = y[k] * G[k]
        st = _status(alpha[k], C)
        if st == _UPPER:
            if y[k] < 0.0:
                ub = min(ub, yG)
            else:
                lb = max(lb, yG)
        elif st == _LOWER:
            if y[k] > 0.0:
                ub = min(ub, yG)
            else:
                lb = max(lb, yG)
        else:
            n_free += 1
            s += yG
    if n_free > 0:
        return s / n_free
    return (ub + lb) / 2.0


#: the analytic two-variable step (:mod:`.step`), compiled
_two_variable_step = numba.njit(cache=True)(two_variable_step)


@numba.njit(cache=True, nogil=True)
def smo_stoppable(K, y, C, eps, tau, shrinking, max_iter, alpha0, G0, stop):
    """Solve the C-SVM dual; see the module docstring.

    Starts from the feasible point ``alpha0`` whose gradient is ``G0``
    (``0`` and ``-1`` for a cold start; both are copied). Another thread
    setting ``stop[0]`` to 1 ends the solve at its next shrinking
    checkpoint (every ``min(n, 1000)`` iterations), unconverged.

    Returns
    -------
    alpha : ndarray (n,)
    G : ndarray (n,)
        Gradient ``Q alpha - 1`` at ``alpha``.
    rho : float
        Decision function ``f(x) = sum_i alpha_i y_i k(x_i, x) - rho``.
    objective : float
        Dual objective ``1/2 a^T Q a - e^T a`` at ``alpha``.
    n_iter : int
    converged : bool
    """
    n = K.shape[0]
    alpha = alpha0.copy()
    G = G0.copy()
    QD = np.empty(n)
    for k in range(n):
        QD[k] = K[k, k]
    is_active = np.ones(n, dtype=np.bool_)
    identity = np.arange(n)
    idx = identity
    Kc, yc, Gc, ac, QDc, status, up, low = _working_problem(K, idx, y, alpha, G, QD, C)
    act = np.arange(n)  # active positions of the working problem, sorted
    n_active = n
    unshrunk = False
    counter = min(n, 1000) + 1
    it = 0
    converged = False
    pi, Gmax = _select_i(yc, Gc, up, act, n_active)
    while it < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, 1000)
            if shrinking:
                n_active, gap = _shrink(yc, Gc, status, up, low, act, n_active)
                if not unshrunk and gap <= eps * 10.0:
                    # close to the end: bring every variable back once, shrink again
                    unshrunk = True
                    Kc, yc, Gc, ac, QDc, status, up, low = _unshrink(
                        K, y, alpha, G, QD, C, idx, ac, Gc, act, n_active, is_active, identity
                    )
                    idx = identity
                    n_active, gap = _shrink(yc, Gc, status, up, low, act, n)
                if 0 < n_active < idx.shape[0] // 2:
                    _write_back(idx, ac, Gc, act, n_active, alpha, G, is_active)
                    new_idx = np.empty(n_active, dtype=np.int64)
                    for t in range(n_active):
                        new_idx[t] = idx[act[t]]
                        act[t] = t
                    idx = new_idx
                    Kc, yc, Gc, ac, QDc, status, up, low = _working_problem(
                        K, idx, y, alpha, G, QD, C
                    )
            pi, Gmax = _select_i(yc, Gc, up, act, n_active)
            if stop[0] != 0:
                break
        pj, Gmax2 = _select_j(Kc, QDc, yc, Gc, low, act, n_active, pi, Gmax, tau)
        if Gmax + Gmax2 < eps or pj == -1:
            if n_active == n:
                converged = True
                break
            # optimal on the shrunk problem: check on the whole one
            Kc, yc, Gc, ac, QDc, status, up, low = _unshrink(
                K, y, alpha, G, QD, C, idx, ac, Gc, act, n_active, is_active, identity
            )
            idx = identity
            n_active = n
            pi, Gmax = _select_i(yc, Gc, up, act, n_active)
            pj, Gmax2 = _select_j(Kc, QDc, yc, Gc, low, act, n_active, pi, Gmax, tau)
            if Gmax + Gmax2 < eps or pj == -1:
                converged = True
                break
            counter = 1  # shrink again at the next iteration
        it += 1

        Ki = Kc[pi]
        Kj = Kc[pj]
        quad = QDc[pi] + QDc[pj] - 2.0 * Ki[pj]
        if quad <= 0.0:
            quad = tau
        ai_old = ac[pi]
        aj_old = ac[pj]
        ai, aj = _two_variable_step(ai_old, aj_old, Gc[pi], Gc[pj], yc[pi] == yc[pj], quad, C)
        ac[pi] = ai
        ac[pj] = aj
        _set_flags(pi, ai, yc[pi], C, status, up, low)
        _set_flags(pj, aj, yc[pj], C, status, up, low)

        # gradient update, fused with the choice of the next i
        ci = yc[pi] * (ai - ai_old)
        cj = yc[pj] * (aj - aj_old)
        Gmax = -np.inf
        pi = -1
        full = n_active == Kc.shape[0]  # as in _select_j
        for t in range(n_active):
            p = t if full else act[t]
            g = Gc[p] + yc[p] * (ci * Ki[p] + cj * Kj[p])
            Gc[p] = g
            v = -yc[p] * g
            if up[p] & (v >= Gmax):  # one rarely taken branch, not one per member
                Gmax = v
                pi = p

    _write_back(idx, ac, Gc, act, n_active, alpha, G, is_active)
    if n_active < n:
        _reconstruct_gradient(K, y, alpha, G, is_active)
    rho = _rho(y, G, alpha, C)
    obj = 0.0
    for k in range(n):
        obj += alpha[k] * (G[k] - 1.0)
    return alpha, G, rho, obj / 2.0, it, converged
