"""SMO for the C-SVM dual on a precomputed Gram matrix (numba).

Solves ``min_a 1/2 a^T Q a - e^T a`` subject to ``0 <= a_i <= C`` and
``y^T a = 0`` with ``Q_ij = y_i y_j K_ij``, by sequential minimal optimisation
with the second-order working-set selection of Fan, Chen & Lin (2005) and
LIBSVM's shrinking heuristic (Chang & Lin, 2011, section 5). The Gram matrix
is fully in memory, so rows are read straight from ``K`` (no kernel cache);
an inactive (shrunk) variable is skipped through the sorted ``active`` index
list, and its gradient is rebuilt from ``G_bar`` when needed.

Everything is validated by the caller: ``K`` is a finite, C-contiguous
float64 square matrix, ``y`` holds +-1.0, ``C > 0``.
"""

import numba
import numpy as np

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
def _select_working_set(K, QD, y, G, status, active, n_active, eps, tau):
    """WSS3: ``i`` maximal violating, ``j`` by the second-order gain.

    Returns ``(i, j)``, or ``(-1, -1)`` when the maximal violation
    ``Gmax + Gmax2`` is below ``eps`` (optimal on the active set).
    """
    Gmax = -np.inf
    i = -1
    for t in range(n_active):
        k = active[t]
        if y[k] > 0.0:
            if status[k] != _UPPER and -G[k] >= Gmax:
                Gmax = -G[k]
                i = k
        else:
            if status[k] != _LOWER and G[k] >= Gmax:
                Gmax = G[k]
                i = k
    Gmax2 = -np.inf
    j_best = -1
    obj_min = np.inf
    Ki = K[max(i, 0)]
    Kii = QD[max(i, 0)]
    for t in range(n_active):
        j = active[t]
        if y[j] > 0.0:
            if status[j] != _LOWER:
                grad_diff = Gmax + G[j]
                if G[j] >= Gmax2:
                    Gmax2 = G[j]
                if grad_diff > 0.0:
                    quad = Kii + QD[j] - 2.0 * Ki[j]
                    if quad <= 0.0:
                        quad = tau
                    obj = -(grad_diff * grad_diff) / quad
                    if obj <= obj_min:
                        j_best = j
                        obj_min = obj
        else:
            if status[j] != _UPPER:
                grad_diff = Gmax - G[j]
                if -G[j] >= Gmax2:
                    Gmax2 = -G[j]
                if grad_diff > 0.0:
                    quad = Kii + QD[j] - 2.0 * Ki[j]
                    if quad <= 0.0:
                        quad = tau
                    obj = -(grad_diff * grad_diff) / quad
                    if obj <= obj_min:
                        j_best = j
                        obj_min = obj
    if Gmax + Gmax2 < eps or j_best == -1:
        return -1, -1
    return i, j_best


@numba.njit(cache=True)
def _reconstruct_gradient(K, y, alpha, G, G_bar, status, active, n_active):
    """Exact gradient of the shrunk variables from ``G_bar`` and the free ones."""
    n = K.shape[0]
    if n_active == n:
        return
    is_active = np.zeros(n, dtype=np.bool_)
    for t in range(n_active):
        is_active[active[t]] = True
    free = np.empty(n_active, dtype=np.int64)
    n_free = 0
    for t in range(n_active):
        k = active[t]
        if status[k] == _FREE:
            free[n_free] = k
            n_free += 1
    for k in range(n):
        if is_active[k]:
            continue
        Kk = K[k]
        s = 0.0
        for t in range(n_free):
            f = free[t]
            s += y[f] * alpha[f] * Kk[f]
        G[k] = G_bar[k] - 1.0 + y[k] * s


@numba.njit(cache=True)
def _be_shrunk(k, y, G, status, Gmax1, Gmax2):
    if status[k] == _UPPER:
        if y[k] > 0.0:
            return -G[k] > Gmax1
        return -G[k] > Gmax2
    if status[k] == _LOWER:
        if y[k] > 0.0:
            return G[k] > Gmax2
        return G[k] > Gmax1
    return False


@numba.njit(cache=True)
def _shrink(K, y, alpha, G, G_bar, status, active, n_active, eps, unshrunk):
    """LIBSVM's do_shrinking; returns the new ``(n_active, unshrunk)``."""
    n = K.shape[0]
    Gmax1 = -np.inf  # max -y_i G_i over I_up
    Gmax2 = -np.inf  # max  y_i G_i over I_low
    for t in range(n_active):
        k = active[t]
        if y[k] > 0.0:
            if status[k] != _UPPER:
                Gmax1 = max(Gmax1, -G[k])
            if status[k] != _LOWER:
                Gmax2 = max(Gmax2, G[k])
        else:
            if status[k] != _UPPER:
                Gmax2 = max(Gmax2, -G[k])
            if status[k] != _LOWER:
                Gmax1 = max(Gmax1, G[k])
    if not unshrunk and Gmax1 + Gmax2 <= eps * 10.0:
        # close to the end: bring every variable back once, then shrink again
        unshrunk = True
        _reconstruct_gradient(K, y, alpha, G, G_bar, status, active, n_active)
        for k in range(n):
            active[k] = k
        n_active = n
    m = 0
    for t in range(n_active):
        k = active[t]
        if not _be_shrunk(k, y, G, status, Gmax1, Gmax2):
            active[m] = k
            m += 1
    return m, unshrunk


@numba.njit(cache=True)
def _rho(y, G, status):
    """Offset: mean of ``y_i G_i`` over free variables, else the bounds' midpoint."""
    ub = np.inf
    lb = -np.inf
    n_free = 0
    s = 0.0
    for k in range(y.shape[0]):
        yG = y[k] * G[k]
        if status[k] == _UPPER:
            if y[k] < 0.0:
                ub = min(ub, yG)
            else:
                lb = max(lb, yG)
        elif status[k] == _LOWER:
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


@numba.njit(cache=True)
def smo(K, y, C, eps, tau, shrinking, max_iter):
    """Solve the C-SVM dual; see the module docstring.

    Returns
    -------
    alpha : ndarray (n,)
    rho : float
        Decision function ``f(x) = sum_i alpha_i y_i k(x_i, x) - rho``.
    objective : float
        Dual objective ``1/2 a^T Q a - e^T a`` at ``alpha``.
    n_iter : int
    converged : bool
    """
    n = K.shape[0]
    alpha = np.zeros(n)
    G = -np.ones(n)
    G_bar = np.zeros(n)
    status = np.zeros(n, dtype=np.int8)
    QD = np.empty(n)
    for k in range(n):
        QD[k] = K[k, k]
    active = np.arange(n)
    n_active = n
    unshrunk = False
    counter = min(n, 1000) + 1
    it = 0
    converged = False
    while it < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, 1000)
            if shrinking:
                n_active, unshrunk = _shrink(
                    K, y, alpha, G, G_bar, status, active, n_active, eps, unshrunk
                )
        i, j = _select_working_set(K, QD, y, G, status, active, n_active, eps, tau)
        if i == -1:
            if n_active == n:
                converged = True
                break
            _reconstruct_gradient(K, y, alpha, G, G_bar, status, active, n_active)
            for k in range(n):
                active[k] = k
            n_active = n
            i, j = _select_working_set(K, QD, y, G, status, active, n_active, eps, tau)
            if i == -1:
                converged = True
                break
            counter = 1  # shrink again at the next iteration
        it += 1

        # --- analytic solution of the two-variable subproblem (LIBSVM)
        Ki = K[i]
        Kj = K[j]
        Kij = Ki[j]
        ai_old = alpha[i]
        aj_old = alpha[j]
        quad = QD[i] + QD[j] - 2.0 * Kij
        if quad <= 0.0:
            quad = tau
        ai = ai_old
        aj = aj_old
        if y[i] != y[j]:
            delta = (-G[i] - G[j]) / quad
            diff = ai - aj
            ai += delta
            aj += delta
            if diff > 0.0:
                if aj < 0.0:
                    aj = 0.0
                    ai = diff
            else:
                if ai < 0.0:
                    ai = 0.0
                    aj = -diff
            if diff > 0.0:
                if ai > C:
                    ai = C
                    aj = C - diff
            else:
                if aj > C:
                    aj = C
                    ai = C + diff
        else:
            delta = (G[i] - G[j]) / quad
            total = ai + aj
            ai -= delta
            aj += delta
            if total > C:
                if ai > C:
                    ai = C
                    aj = total - C
            else:
                if aj < 0.0:
                    aj = 0.0
                    ai = total
            if total > C:
                if aj > C:
                    aj = C
                    ai = total - C
            else:
                if ai < 0.0:
                    ai = 0.0
                    aj = total
        alpha[i] = ai
        alpha[j] = aj

        # --- gradient of the active variables
        ci = y[i] * (ai - ai_old)
        cj = y[j] * (aj - aj_old)
        for t in range(n_active):
            k = active[t]
            G[k] += y[k] * (ci * Ki[k] + cj * Kj[k])

        # --- statuses and G_bar (gradient part from variables at the upper bound)
        for v in (i, j):
            old = status[v]
            new = _status(alpha[v], C)
            status[v] = new
            if (old == _UPPER) != (new == _UPPER):
                s = C * y[v] if new == _UPPER else -C * y[v]
                Kv = K[v]
                for k in range(n):
                    G_bar[k] += s * y[k] * Kv[k]

    if n_active < n:
        _reconstruct_gradient(K, y, alpha, G, G_bar, status, active, n_active)
    rho = _rho(y, G, status)
    obj = 0.0
    for k in range(n):
        obj += alpha[k] * (G[k] - 1.0)
    return alpha, rho, obj / 2.0, it, converged
