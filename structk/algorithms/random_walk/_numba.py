"""Random walks on product graphs, and their spectral form (numba).

The loops of :class:`structk.kernels.graphs.RandomWalk`; the orchestration
(validation, decay, the threading rule) is in :mod:`.random_walk`.

Graphs cross in as flat arrays: ``node_ptr`` (graph g owns nodes
``node_ptr[g]:node_ptr[g+1]``), a CSR adjacency over all nodes (``adj_ptr``
indexed by global node, ``adj_idx`` holding *local* successor indices),
optional per-entry edge-label ids ``elab`` and per-node class ids ``cls``
(node-label ids, sorted within each graph so that every label is one
contiguous block). Validation happens in Python before these are called.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ... import _jit  # noqa: F401 - registers the first-compilation notice

GEOMETRIC = 0
EXPONENTIAL = 1
TRUNCATED = 2


class WalkGraphs(NamedTuple):
    """One collection of graphs, as the random-walk loops read it.

    ``node_ptr``, ``adj_ptr``, ``adj_idx``: the CSR layout of the module
    docstring; ``elab``: edge-label id per CSR entry; ``cls``: class
    (node-label id) per node; ``p``, ``q``: start and stop weight per node;
    ``rho``, ``col``: per graph, bounds on the spectral radius and the
    largest column sum (in-degree) of the adjacency; ``arc_key``,
    ``arc_src``, ``arc_tgt``: each graph's arcs sorted by (class of source,
    edge label, class of target), at the positions of its CSR entries.
    """

    node_ptr: np.ndarray
    adj_ptr: np.ndarray
    adj_idx: np.ndarray
    elab: np.ndarray
    cls: np.ndarray
    p: np.ndarray
    q: np.ndarray
    rho: np.ndarray
    col: np.ndarray
    arc_key: np.ndarray
    arc_src: np.ndarray
    arc_tgt: np.ndarray


class WalkSettings(NamedTuple):
    """The kernel's settings: ``kind`` (GEOMETRIC, EXPONENTIAL, TRUNCATED),
    ``lam``, ``beta``, ``weights``; ``n_elabels`` edge-label ids;
    ``symmetric`` (undirected graphs), ``same_pq`` (start == stop weights);
    the stopping rule ``tol``, ``maxiter``; ``layout`` 0 picks the cheaper
    product layout per pair, 1 arcs, 2 split; ``gradient``: also the
    derivative of each value in ``log lam`` (geometric) or ``log beta``
    (exponential)."""

    kind: int
    lam: float
    beta: float
    weights: np.ndarray
    n_elabels: int
    symmetric: bool
    same_pq: bool
    tol: float
    maxiter: int
    layout: int
    gradient: bool


class _Product(NamedTuple):
    """The product graph of one pair, as the matrix-vector product reads it:
    graph a (nodes ``a0 .. a0 + na - 1``, CSR ``ptr_a``, ``idx_a``, edge
    labels ``el_a``) matched with graph b, label-matched partners
    ``lo_a[i]:hi_a[i]`` (and ``lo_b``, ``hi_b``), and either the product
    arcs ``psrc -> ptgt`` (``use_arcs``) or the scratch ``Z`` of the split
    layout. Only these arrays, not whole collections: numba passes a tuple
    as its fields, so a lean tuple keeps each call cheap."""

    ptr_a: np.ndarray
    idx_a: np.ndarray
    el_a: np.ndarray
    a0: np.int64
    na: np.int64
    lo_a: np.ndarray
    hi_a: np.ndarray
    ptr_b: np.ndarray
    idx_b: np.ndarray
    el_b: np.ndarray
    b0: np.int64
    nb: np.int64
    lo_b: np.ndarray
    hi_b: np.ndarray
    use_arcs: bool
    psrc: np.ndarray
    ptgt: np.ndarray
    Z: np.ndarray


# ---------------------------------------------------------------- random walks
#
# A vector on the product graph is a 1-D array in one of two layouts:
# * "arcs": one entry per matched pair (label-equal nodes), with the
#   product graph's arcs listed explicitly (built per pair in O(product
#   arcs) by merging the two graphs' arcs sorted by label key); best for
#   sparse graphs such as molecules;
# * "split": the n x n' array X[j, j'] (flattened, zero on unmatched pairs),
#   multiplied by the Kronecker-vec identity in two sparse passes with
#   O(|E| n') work and no product arcs stored; best for denser graphs.
# Each pair uses the layout with the smaller estimated cost.


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
def _product_arcs(
    key_a, src_a, tgt_a, ea0, ea1, key_b, src_b, tgt_b, eb0, eb1, off, lo_a, psrc, ptgt
):
    """The arcs of the direct product graph as (source, target) vertex lists.

    Each graph's arcs come sorted by the key (class of source, edge label,
    class of target); arcs i->j and i'->j' with equal keys make the product
    arc (i, i') -> (j, j'), so a merge over the keys visits only real
    product arcs. The vertex of matched pair (i, i') is
    ``off[i] + i' - lo_a[i]``. Returns the number of product arcs; they are
    written to ``psrc``, ``ptgt`` while they fit (the rest only counted).
    """
    cap = psrc.shape[0]
    cnt = 0
    ka = ea0
    kb = eb0
    while ka < ea1 and kb < eb1:
        xa = key_a[ka]
        xb = key_b[kb]
        if xa < xb:
            ka += 1
        elif xb < xa:
            kb += 1
        else:
            ra = ka + 1
            while ra < ea1 and key_a[ra] == xa:
                ra += 1
            rb = kb + 1
            while rb < eb1 and key_b[rb] == xa:
                rb += 1
            if cnt + (ra - ka) * (rb - kb) > cap:
                cap = 0  # too many for the buffers: count the rest only
                cnt += (ra - ka) * (rb - kb)
            else:
                for x in range(ka, ra):
                    sbase = off[src_a[x]] - lo_a[src_a[x]]
                    tbase = off[tgt_a[x]] - lo_a[tgt_a[x]]
                    for y in range(kb, rb):
                        psrc[cnt] = sbase + src_b[y]
                        ptgt[cnt] = tbase + tgt_b[y]
                        cnt += 1
            ka = ra
            kb = rb
    return cnt


@njit(cache=True)
def _matvec_split(X, Y, g):
    """``Y = A_x X`` for n x n' arrays by the Kronecker-vec identity
    ``(A (x) A') vec X = vec(A X A'^T)``: ``Z[e] = A_e X`` then
    ``Y = sum_e Z[e] A'_e^T`` on matched pairs (e: edge label)."""
    Z = g.Z
    ptr_a, idx_a, el_a, a0 = g.ptr_a, g.idx_a, g.el_a, g.a0
    ptr_b, idx_b, el_b, b0 = g.ptr_b, g.idx_b, g.el_b, g.b0
    lo_a, hi_a = g.lo_a, g.hi_a
    Z[:] = 0.0
    for i in range(g.na):
        for k in range(ptr_a[a0 + i], ptr_a[a0 + i + 1]):
            j = idx_a[k]
            e = el_a[k]
            for jp in range(lo_a[j], hi_a[j]):
                Z[e, i, jp] += X[j, jp]
    for i in range(g.na):
        for ip in range(lo_a[i], hi_a[i]):
            s = 0.0
            for k in range(ptr_b[b0 + ip], ptr_b[b0 + ip + 1]):
                s += Z[el_b[k], i, idx_b[k]]
            Y[i, ip] = s


@njit(cache=True)
def _matvec(x, y, g):
    """``y = A_x x`` in either layout."""
    if g.use_arcs:  # psrc, ptgt: sources and targets of the product arcs
        y[:] = 0.0
        pptr = g.psrc
        pidx = g.ptgt
        for e in range(pptr.shape[0]):
            y[pptr[e]] += x[pidx[e]]
    else:
        _matvec_split(x.reshape((g.na, g.nb)), y.reshape((g.na, g.nb)), g)


@njit(cache=True)
def _walk_pair(ga, gb, A, B, s, ibuf, fbuf, zbuf, psrc, ptgt):
    """One random-walk kernel value ``q_x^T f(A_x) p_x`` of graph ``ga`` of
    ``A`` and graph ``gb`` of ``B`` (:class:`WalkGraphs`) under settings
    ``s`` (:class:`WalkSettings`); returns (value, derivative, iterations),
    iterations = -1 when the solver did not converge within ``maxiter``, -2
    when ``psrc`` / ``ptgt`` are too small (the caller grows them and calls
    again). The derivative (in ``log lam`` or ``log beta``, with
    ``s.gradient``; else 0) is ``sum_t t c_t`` for the series' terms
    ``c_t`` of the value, summed in the same pass.

    Scratch (reused across the pairs of a chunk): ``ibuf`` (5, max n + 1),
    ``fbuf`` (8, max n n'), ``zbuf`` (edge labels * max n n'), ``psrc`` and
    ``ptgt``.
    """
    a0 = A.node_ptr[ga]
    na = A.node_ptr[ga + 1] - a0
    b0 = B.node_ptr[gb]
    nb = B.node_ptr[gb + 1] - b0
    if na == 0 or nb == 0:
        return 0.0, 0.0, 0
    lo_a = ibuf[0, :na]
    hi_a = ibuf[1, :na]
    lo_b = ibuf[2, :nb]
    hi_b = ibuf[3, :nb]
    off = ibuf[4, : na + 1]
    _match_ranges(A.cls, a0, na, B.cls, b0, nb, lo_a, hi_a)
    _match_ranges(B.cls, b0, nb, A.cls, a0, na, lo_b, hi_b)
    off[0] = 0
    for i in range(na):
        off[i + 1] = off[i] + hi_a[i] - lo_a[i]
    if off[na] == 0:
        return 0.0, 0.0, 0  # no label-matched node pair: no common walk
    ea0 = A.adj_ptr[a0]
    ea1 = A.adj_ptr[a0 + na]
    eb0 = B.adj_ptr[b0]
    eb1 = B.adj_ptr[b0 + nb]
    arcs = _product_arcs(
        A.arc_key,
        A.arc_src,
        A.arc_tgt,
        ea0,
        ea1,
        B.arc_key,
        B.arc_src,
        B.arc_tgt,
        eb0,
        eb1,
        off,
        lo_a,
        psrc,
        ptgt,
    )
    # operation count of one split product (only needed when not obviously larger)
    split = (s.n_elabels + 1) * na * nb
    if s.layout == 0 and arcs > split:
        for i in range(na):
            for k in range(A.adj_ptr[a0 + i], A.adj_ptr[a0 + i + 1]):
                split += hi_a[A.adj_idx[k]] - lo_a[A.adj_idx[k]]
        for ip in range(nb):
            split += (B.adj_ptr[b0 + ip + 1] - B.adj_ptr[b0 + ip]) * (hi_b[ip] - lo_b[ip])
    use_arcs = arcs <= split if s.layout == 0 else s.layout == 1
    # start / stop weights on the product vertices
    if use_arcs:
        if arcs > psrc.shape[0]:
            return 0.0, 0.0, -2
        pptr = psrc[:arcs]  # written by the call above
        pidx = ptgt[:arcs]
        m = off[na]
        Z = zbuf[:0].reshape((0, 0, 0))
    else:
        pptr = psrc[:0]
        pidx = ptgt[:0]
        m = na * nb
        Z = zbuf[: s.n_elabels * m].reshape((s.n_elabels, na, nb))
    g = _Product(
        A.adj_ptr,
        A.adj_idx,
        A.elab,
        a0,
        na,
        lo_a,
        hi_a,
        B.adj_ptr,
        B.adj_idx,
        B.elab,
        b0,
        nb,
        lo_b,
        hi_b,
        use_arcs,
        pptr,
        pidx,
        Z,
    )
    P = fbuf[0, :m]
    Q = fbuf[1, :m]
    Y = fbuf[2, :m]
    D = fbuf[3, :m]
    if not use_arcs:  # unmatched pairs stay zero (arcs: every entry is matched)
        P[:] = 0.0
        Q[:] = 0.0
        Y[:] = 0.0
    for i in range(na):
        for ip in range(lo_a[i], hi_a[i]):
            v = off[i] + ip - lo_a[i] if use_arcs else i * nb + ip
            P[v] = A.p[a0 + i] * B.p[b0 + ip]
            Q[v] = A.q[a0 + i] * B.q[b0 + ip]
    for v in range(m):  # D = P (an explicit loop: slice assignment compiles slowly)
        D[v] = P[v]

    kind = s.kind
    weights = s.weights
    if kind == TRUNCATED:
        value = weights[0] * np.dot(Q, D)
        for t in range(1, weights.shape[0]):
            _matvec(D, Y, g)
            D, Y = Y, D
            value += weights[t] * np.dot(Q, D)
        return value, 0.0, weights.shape[0] - 1

    lam = s.lam
    beta = s.beta
    symmetric = s.symmetric
    col = A.col[ga] * B.col[gb]  # bound on the max column sum of A_x
    rho = A.rho[ga] * B.rho[gb]  # bound on rho(A_x)
    rate = lam * rho
    qn = np.sqrt(np.dot(Q, Q))
    # conjugate gradient; with the derivative only for p = q (dk / d log lam
    # = lam x^T A_x x from the one solve x), else the series below
    if kind == GEOMETRIC and symmetric and (s.same_pq or (rate > 0.5 and not s.gradient)):
        return _conjugate_gradient(
            P,
            Q,
            Y,
            fbuf[4, :m],
            fbuf[5, :m],
            fbuf[6, :m],
            fbuf[7, :m],
            g,
            lam,
            rate,
            qn,
            s.same_pq,
            s.gradient,
            s.tol,
            s.maxiter,
        )

    # Power series: geometric sum_t (lam A_x)^t p_x (fixed point) or
    # exponential sum_t (beta A_x)^t / t! p_x (Taylor). Every term is >= 0
    # (A_x >= 0, weights >= 0): no cancellation, and rigorous bounds on the
    # remaining tail T after each step:
    # * Collatz-Wielandt: if c_lo d_{t-1} <= d_t <= c_hi d_{t-1}
    #   componentwise then every later geometric step keeps those ratios
    #   (A_x is monotone), so (q.d_t) c_lo / (1 - c_lo) <= T <=
    #   (q.d_t) c_hi / (1 - c_hi); the geometric value adds the midpoint
    #   and stops when the half-width is below tol (the exponential series
    #   shrinks faster still and uses the upper bound only);
    # * norms: ||A_x d||_2 <= rho ||d||_2 (symmetric A_x), else
    #   ||A_x d||_1 <= col ||d||_1.
    # The derivative in log lam (log beta) is sum_t t c_t for the terms c_t
    # = q.d_t of the value (d/dlog lam of lam^t, of beta^t / t!), and the
    # same ratio bounds c_{t+s} <= c^s c_t bound its tail by
    # c_t (t c / (1 - c) + c / (1 - c)^2).
    tol = s.tol
    gradient = s.gradient
    value = np.dot(Q, D)
    deriv = 0.0
    qscale = qn
    if not symmetric:  # max |Q| (Q >= 0)
        qscale = 0.0
        for v in range(m):
            qscale = max(qscale, abs(Q[v]))
    for t in range(1, s.maxiter + 1):
        _matvec(D, Y, g)
        D, Y = Y, D  # D: A_x d_{t-1} (unscaled), Y: d_{t-1}
        sc = lam if kind == GEOMETRIC else beta / t
        dv = 0.0
        size = 0.0
        c_hi = 0.0
        c_lo = np.inf
        for v in range(m):
            d = sc * D[v]
            D[v] = d
            dv += Q[v] * d
            size += d * d if symmetric else abs(d)
            old = Y[v]
            if d > c_hi * old:  # divide only when a bound moves
                c_hi = d / old if old > 0.0 else np.inf
            if d < c_lo * old:
                c_lo = d / old
        value += dv
        deriv += t * dv
        if size == 0.0:
            return value, deriv, t
        if symmetric:
            c = rate if kind == GEOMETRIC else beta * rho / (t + 1)
            size = np.sqrt(size)
        else:
            c = lam * col if kind == GEOMETRIC else beta * col / (t + 1)
        tail_hi = qscale * size * c / (1.0 - c) if c < 1.0 else np.inf
        dtail_hi = qscale * size * _moment(c, t)
        if c_hi < 1.0:
            tail_hi = min(tail_hi, dv * c_hi / (1.0 - c_hi))
            dtail_hi = min(dtail_hi, dv * _moment(c_hi, t))
        if not gradient:
            dtail_hi = 0.0
        if kind == GEOMETRIC and c_hi < 1.0:
            tail_lo = dv * c_lo / (1.0 - c_lo) if c_lo < 1.0 else 0.0
            tail_lo = min(tail_lo, tail_hi)
            dtail_lo = min(dv * _moment(c_lo, t), dtail_hi) if c_lo < 1.0 else 0.0
            if not gradient:
                dtail_lo = 0.0
            if 0.5 * (tail_hi - tail_lo) <= tol * abs(value) and 0.5 * (
                dtail_hi - dtail_lo
            ) <= tol * abs(deriv):
                return value + 0.5 * (tail_hi + tail_lo), deriv + 0.5 * (dtail_hi + dtail_lo), t
        elif tail_hi <= tol * abs(value) and dtail_hi <= tol * abs(deriv):
            return value, deriv, t
    return value, deriv, -1


@njit(cache=True)
def _moment(c, t):
    """``sum_{s >= 1} (t + s) c^s = t c / (1 - c) + c / (1 - c)^2`` (inf
    for ``c >= 1``): the derivative's tail factor after step ``t``."""
    if c >= 1.0:
        return np.inf
    return t * c / (1.0 - c) + c / ((1.0 - c) * (1.0 - c))


@njit(cache=True)
def _conjugate_gradient(P, Q, Y, x, r, d, ax, g, lam, rate, qn, same_pq, gradient, tol, maxiter):
    """Solve ``(I - lam A_x) x = p_x`` (A_x symmetric, the product graph
    ``g``) and return ``(q_x^T x, derivative, iterations)``.

    With ``B = I - lam A_x`` (eigenvalues in [1 - rate, 1 + rate]) and
    residual r, the error is ``q^T B^-1 r``. When q = p it equals the
    energy-norm error ``r^T B^-1 r`` (x_0 = 0), which lies between
    ``||r||^2 / (1 + rate)`` and ``||r||^2 / (1 - rate)``: the value adds the
    midpoint and the error is quadratic in the residual. Otherwise
    ``q^T B^-1 r = q^T r + lam q^T A_x B^-1 r`` is at most
    ``|q^T r| + rate ||q|| ||r|| / (1 - rate)``.

    ``gradient`` (q = p only): also ``dk / d log lam = lam p^T B^-1 A_x B^-1 p
    = lam x^T A_x x`` (``ax``: scratch for ``A_x x``), a sum of non-negative
    terms, from the same solve. With the error ``e = B^-1 r`` of ``x``
    (``||e|| <= ||r|| / (1 - rate)``) it is off by at most
    ``2 lam ||e|| ||A_x x|| + rate ||e||^2``; once the value has converged,
    each further step checks this against the tolerance (one more
    product with ``A_x`` per check) and iterates on until it holds.
    """
    m = P.shape[0]
    for v in range(m):
        x[v] = 0.0
        r[v] = P[v]
        d[v] = P[v]
        ax[v] = 0.0  # the split layout's product writes only matched pairs
    rs = np.dot(r, r)
    if rs == 0.0:
        return 0.0, 0.0, 0
    value = 0.0
    for it in range(1, maxiter + 1):
        _matvec(d, Y, g)
        dBd = 0.0
        for v in range(m):
            y = d[v] - lam * Y[v]
            Y[v] = y
            dBd += d[v] * y
        alpha = rs / dBd
        rs_new = 0.0
        value = 0.0
        qr = 0.0
        for v in range(m):
            x[v] += alpha * d[v]
            r[v] -= alpha * Y[v]
            rs_new += r[v] * r[v]
            value += Q[v] * x[v]
            qr += Q[v] * r[v]
        if same_pq:
            mid = rs_new / (1.0 - rate * rate)
            if rate * mid <= tol * (value + mid):
                if not gradient:
                    return value + mid, 0.0, it
                _matvec(x, ax, g)
                xax = np.dot(x, ax)
                err = np.sqrt(rs_new) / (1.0 - rate)
                if lam * 2.0 * err * np.sqrt(np.dot(ax, ax)) + rate * err * err <= tol * lam * xax:
                    return value + mid, lam * xax, it
        elif abs(qr) + rate * qn * np.sqrt(rs_new) / (1.0 - rate) <= tol * abs(value):
            return value, 0.0, it
        g_ = rs_new / rs
        for v in range(m):
            d[v] = r[v] + g_ * d[v]
        rs = rs_new
    return value, 0.0, -1


@njit(cache=True, nogil=True)
def walk_pairs(pair_a, pair_b, A, B, s, max_a, max_b, lo, hi, out, dout, iters):
    """Random-walk kernel values of the graph pairs ``(pair_a[t], pair_b[t])``
    for ``t`` in ``lo:hi`` (graphs of ``A`` and ``B``, :class:`WalkGraphs`;
    settings ``s``, :class:`WalkSettings`; ``max_a``, ``max_b`` the most
    nodes of a graph in each) into ``out[t]``, their derivatives into
    ``dout[t]`` (with ``s.gradient``; else ``dout`` may be empty), and each
    pair's iteration count into ``iters[t]``. Serial, without the GIL: the caller
    runs chunks of pairs on threads (:func:`structk._threads.run_chunks`),
    each call with its own scratch; a value depends only on its pair."""
    max_m = max_a * max_b
    ibuf = np.empty((5, max(max_a, max_b) + 1), np.int64)
    fbuf = np.empty((8, max_m))
    zbuf = np.empty(s.n_elabels * max_m)
    psrc = np.empty(8 * max_m, np.int64)
    ptgt = np.empty(8 * max_m, np.int64)
    for t in range(lo, hi):
        while True:
            v, dv, it = _walk_pair(pair_a[t], pair_b[t], A, B, s, ibuf, fbuf, zbuf, psrc, ptgt)
            if it != -2:
                break
            psrc = np.empty(2 * psrc.shape[0], np.int64)
            ptgt = np.empty(2 * ptgt.shape[0], np.int64)
        out[t] = v
        if s.gradient:
            dout[t] = dv
        iters[t] = it


@njit(cache=True, nogil=True)
def spectral_pairs(
    pair_a,
    pair_b,
    ptr_a,
    mu_a,
    w_a,
    ptr_b,
    mu_b,
    w_b,
    kind,
    lam,
    beta,
    weights,
    gradient,
    lo,
    hi,
    out,
    dout,
):
    """Unlabelled undirected walks from each graph's eigendecomposition, for
    the pairs ``lo:hi`` into ``out`` (serial, without the GIL, as
    :func:`walk_pairs`).

    With ``A = U diag(mu) U^T``, ``A' = V diag(nu) V^T`` and
    ``w = (U^T p) * (U^T q)`` (elementwise), ``q_x^T f(A (x) A') p_x =
    sum_ij w_i w'_j f(mu_i nu_j)``: O(n n') per pair. ``gradient``: also
    the derivative in ``log lam`` (geometric: ``lam x f(x)^2``) or
    ``log beta`` (exponential: ``beta x f(x)``) into ``dout``.
    """
    n_w = weights.shape[0]
    for t in range(lo, hi):
        ga = pair_a[t]
        gb = pair_b[t]
        s = 0.0
        ds = 0.0
        for i in range(ptr_a[ga], ptr_a[ga + 1]):
            wi = w_a[i]
            if wi == 0.0:
                continue
            mi = mu_a[i]
            acc = 0.0
            dacc = 0.0
            for j in range(ptr_b[gb], ptr_b[gb + 1]):
                x = mi * mu_b[j]
                if kind == GEOMETRIC:
                    f = 1.0 / (1.0 - lam * x)
                    df = lam * x * f * f
                elif kind == EXPONENTIAL:
                    f = np.exp(beta * x)
                    df = beta * x * f
                else:
                    f = weights[n_w - 1]
                    for k in range(n_w - 2, -1, -1):
                        f = f * x + weights[k]
                    df = 0.0
                acc += w_b[j] * f
                dacc += w_b[j] * df
            s += wi * acc
            ds += wi * dacc
        out[t] = s
        if gradient:
            dout[t] = ds
