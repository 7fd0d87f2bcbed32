"""Jitted inner loops of the graph kernels (``structk.kernels.graphs``).

Graphs cross in as flat arrays: ``node_ptr`` (graph g owns nodes
``node_ptr[g]:node_ptr[g+1]``), a CSR adjacency over all nodes (``adj_ptr``
indexed by global node, ``adj_idx`` holding *local* successor indices),
optional per-entry edge-label ids ``elab`` and per-node class ids ``cls``
(node-label ids, sorted within each graph so that every label is one
contiguous block). Validation happens in Python before these are called.
"""

import numpy as np
from numba import njit, prange

GEOMETRIC = 0
EXPONENTIAL = 1
TRUNCATED = 2


# ---------------------------------------------------------------- random walks
@njit(cache=True)
def _match_ranges(cls, a0, na, cls_b, b0, nb, lo, hi):
    """For node j of graph a, the nodes of graph b with the same class are
    ``lo[j]:hi[j]`` (both graphs have their nodes sorted by class)."""
    ja = 0
    jb = 0
    while ja < na:
        c = cls[a0 + ja]
        ea = ja
        while ea < na and cls[a0 + ea] == c:
            ea += 1
        while jb < nb and cls_b[b0 + jb] < c:
            jb += 1
        eb = jb
        while eb < nb and cls_b[b0 + eb] == c:
            eb += 1
        for t in range(ja, ea):
            lo[t] = jb
            hi[t] = eb
        ja = ea
        jb = eb


@njit(cache=True)
def _product_matvec(X, Y, Z, ptr_a, idx_a, el_a, a0, na, lo_a, hi_a,
                    ptr_b, idx_b, el_b, b0, nb, lo_b, hi_b):
    """``Y = A_x X`` on the direct product graph, never forming ``A_x``.

    ``X[j, j']`` is the value on product vertex (j, j') (zero unless the
    labels of j and j' agree). ``(A_x X)[i, i'] = sum over arcs i->j, i'->j'
    with equal edge labels of X[j, j']`` (Kronecker-vec identity, split in
    two sparse passes through the scratch ``Z[edge label, i, j']``).
    """
    Z[:] = 0.0
    for i in range(na):
        for k in range(ptr_a[a0 + i], ptr_a[a0 + i + 1]):
            j = idx_a[k]
            e = el_a[k]
            for jp in range(lo_a[j], hi_a[j]):
                Z[e, i, jp] += X[j, jp]
    Y[:] = 0.0
    for ip in range(nb):
        for k in range(ptr_b[b0 + ip], ptr_b[b0 + ip + 1]):
            jp = idx_b[k]
            e = el_b[k]
            for i in range(lo_b[ip], hi_b[ip]):
                Y[i, ip] += Z[e, i, jp]


@njit(cache=True)
def _dot(A, B):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * B[i, j]
    return s


@njit(cache=True)
def _abs_sum(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += abs(A[i, j])
    return s


@njit(cache=True)
def _walk_pair(ga, gb, node_ptr_a, ptr_a, idx_a, el_a, cls_a, p_a, q_a, rho_a, col_a,
               node_ptr_b, ptr_b, idx_b, el_b, cls_b, p_b, q_b, rho_b, col_b,
               n_elabels, kind, lam, beta, weights, symmetric, tol, maxiter):
    """One random-walk kernel value ``q_x^T f(A_x) p_x``; returns (value, iterations),
    iterations = -1 when the solver did not converge within ``maxiter``."""
    a0 = node_ptr_a[ga]
    na = node_ptr_a[ga + 1] - a0
    b0 = node_ptr_b[gb]
    nb = node_ptr_b[gb + 1] - b0
    if na == 0 or nb == 0:
        return 0.0, 0
    lo_a = np.empty(na, np.int64)
    hi_a = np.empty(na, np.int64)
    lo_b = np.empty(nb, np.int64)
    hi_b = np.empty(nb, np.int64)
    _match_ranges(cls_a, a0, na, cls_b, b0, nb, lo_a, hi_a)
    _match_ranges(cls_b, b0, nb, cls_a, a0, na, lo_b, hi_b)
    # start and stop weights on the product vertices (matched pairs only)
    P = np.zeros((na, nb))
    Q = np.zeros((na, nb))
    qmax = 0.0
    for i in range(na):
        for ip in range(lo_a[i], hi_a[i]):
            P[i, ip] = p_a[a0 + i] * p_b[b0 + ip]
            Q[i, ip] = q_a[a0 + i] * q_b[b0 + ip]
            if abs(Q[i, ip]) > qmax:
                qmax = abs(Q[i, ip])
    Z = np.empty((n_elabels, na, nb))
    Y = np.empty((na, nb))
    col = col_a[ga] * col_b[gb]  # bound on the max column sum of A_x

    if kind == TRUNCATED:
        D = P.copy()
        value = weights[0] * _dot(Q, D)
        for t in range(1, weights.shape[0]):
            _product_matvec(D, Y, Z, ptr_a, idx_a, el_a, a0, na, lo_a, hi_a,
                            ptr_b, idx_b, el_b, b0, nb, lo_b, hi_b)
            D[:] = Y
            value += weights[t] * _dot(Q, D)
        return value, weights.shape[0] - 1

    if kind == EXPONENTIAL:
        # Taylor series: every term is >= 0 (A_x >= 0, weights >= 0), so no
        # cancellation; ||A_x d||_1 <= col ||d||_1 bounds the tail rigorously
        D = P.copy()
        value = _dot(Q, D)
        for t in range(1, maxiter + 1):
            _product_matvec(D, Y, Z, ptr_a, idx_a, el_a, a0, na, lo_a, hi_a,
                            ptr_b, idx_b, el_b, b0, nb, lo_b, hi_b)
            s = beta / t
            for i in range(na):
                for ip in range(nb):
                    D[i, ip] = s * Y[i, ip]
            value += _dot(Q, D)
            size = _abs_sum(D)
            if size == 0.0:
                return value, t
            c = beta * col / (t + 1)
            if c <= 0.5 and qmax * size * c / (1.0 - c) <= tol * abs(value):
                return value, t
        return value, -1

    rate = lam * rho_a[ga] * rho_b[gb]  # bound on lam * rho(A_x), < 1 (checked)
    if symmetric:
        # conjugate gradient on (I - lam A_x) x = p_x, A_x symmetric
        x = np.zeros((na, nb))
        r = P.copy()
        d = P.copy()
        rs = _dot(r, r)
        qn = np.sqrt(_dot(Q, Q))
        if rs == 0.0:
            return 0.0, 0
        value = 0.0
        for it in range(1, maxiter + 1):
            _product_matvec(d, Y, Z, ptr_a, idx_a, el_a, a0, na, lo_a, hi_a,
                            ptr_b, idx_b, el_b, b0, nb, lo_b, hi_b)
            for i in range(na):
                for ip in range(nb):
                    Y[i, ip] = d[i, ip] - lam * Y[i, ip]
            alpha = rs / _dot(d, Y)
            for i in range(na):
                for ip in range(nb):
                    x[i, ip] += alpha * d[i, ip]
                    r[i, ip] -= alpha * Y[i, ip]
            rs_new = _dot(r, r)
            value = _dot(Q, x)
            # |q^T (x* - x)| <= ||q|| ||r|| / (1 - lam rho(A_x))
            if qn * np.sqrt(rs_new) <= tol * (1.0 - rate) * abs(value):
                return value, it
            beta_cg = rs_new / rs
            for i in range(na):
                for ip in range(nb):
                    d[i, ip] = r[i, ip] + beta_cg * d[i, ip]
            rs = rs_new
        return value, -1

    # fixed point x <- p + lam A_x x (A_x not symmetric: directed graphs)
    ratio = lam * col
    if ratio >= 1.0:
        ratio = rate  # asymptotic contraction factor
    D = P.copy()
    value = _dot(Q, D)
    for it in range(1, maxiter + 1):
        _product_matvec(D, Y, Z, ptr_a, idx_a, el_a, a0, na, lo_a, hi_a,
                        ptr_b, idx_b, el_b, b0, nb, lo_b, hi_b)
        for i in range(na):
            for ip in range(nb):
                D[i, ip] = lam * Y[i, ip]
        value += _dot(Q, D)
        size = _abs_sum(D)
        if size == 0.0 or qmax * size * ratio / (1.0 - ratio) <= tol * abs(value):
            return value, it
    return value, -1


@njit(parallel=True, cache=True)
def walk_pairs(pair_a, pair_b,
               node_ptr_a, ptr_a, idx_a, el_a, cls_a, p_a, q_a, rho_a, col_a,
               node_ptr_b, ptr_b, idx_b, el_b, cls_b, p_b, q_b, rho_b, col_b,
               n_elabels, kind, lam, beta, weights, symmetric, tol, maxiter):
    """Random-walk kernel values of the graph pairs ``(pair_a[t], pair_b[t])``,
    in parallel over pairs; also returns each pair's iteration count."""
    n = pair_a.shape[0]
    out = np.empty(n)
    iters = np.empty(n, np.int64)
    for t in prange(n):
        v, it = _walk_pair(
            pair_a[t], pair_b[t],
            node_ptr_a, ptr_a, idx_a, el_a, cls_a, p_a, q_a, rho_a, col_a,
            node_ptr_b, ptr_b, idx_b, el_b, cls_b, p_b, q_b, rho_b, col_b,
            n_elabels, kind, lam, beta, weights, symmetric, tol, maxiter)
        out[t] = v
        iters[t] = it
    return out, iters


@njit(parallel=True, cache=True)
def spectral_pairs(pair_a, pair_b, ptr_a, mu_a, w_a, ptr_b, mu_b, w_b,
                   kind, lam, beta, weights):
    """Unlabelled undirected walks from each graph's eigendecomposition.

    With ``A = U diag(mu) U^T``, ``A' = V diag(nu) V^T`` and
    ``w = (U^T p) * (U^T q)`` (elementwise), ``q_x^T f(A (x) A') p_x =
    sum_ij w_i w'_j f(mu_i nu_j)``: O(n n') per pair.
    """
    n = pair_a.shape[0]
    out = np.empty(n)
    n_w = weights.shape[0]
    for t in prange(n):
        ga = pair_a[t]
        gb = pair_b[t]
        s = 0.0
        for i in range(ptr_a[ga], ptr_a[ga + 1]):
            wi = w_a[i]
            if wi == 0.0:
                continue
            mi = mu_a[i]
            acc = 0.0
            for j in range(ptr_b[gb], ptr_b[gb + 1]):
                x = mi * mu_b[j]
                if kind == GEOMETRIC:
                    f = 1.0 / (1.0 - lam * x)
                elif kind == EXPONENTIAL:
                    f = np.exp(beta * x)
                else:
                    f = weights[n_w - 1]
                    for k in range(n_w - 2, -1, -1):
                        f = f * x + weights[k]
                acc += w_b[j] * f
            s += wi * acc
        out[t] = s
    return out


# ------------------------------------------------------------ Weisfeiler-Lehman
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _mix(z):
    """splitmix64 finaliser: a bijection of uint64 with good avalanche."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def wl_relabel(keys0, node_ptr, adj_ptr, adj_idx, h):
    """Weisfeiler-Lehman labels of every node for iterations 0..h.

    The new label of v hashes (iteration, old label of v, sorted multiset of
    its neighbours' old labels) to 64 bits, so it depends on the node's
    neighbourhood only, never on which other graphs are in the batch.
    """
    n = keys0.shape[0]
    keys = np.empty((h + 1, n), np.uint64)
    keys[0] = keys0
    n_graphs = node_ptr.shape[0] - 1
    for it in range(1, h + 1):
        salt = _mix(np.uint64(it) * _GOLD)
        for g in range(n_graphs):
            base = node_ptr[g]
            for v in range(base, node_ptr[g + 1]):
                start = adj_ptr[v]
                deg = adj_ptr[v + 1] - start
                nb = np.empty(deg, np.uint64)
                for k in range(deg):
                    nb[k] = keys[it - 1, base + adj_idx[start + k]]
                nb.sort()
                z = _mix(salt ^ keys[it - 1, v])
                for k in range(deg):
                    z = _mix(z + nb[k] * _GOLD)
                keys[it, v] = _mix(z ^ np.uint64(deg))
    return keys
