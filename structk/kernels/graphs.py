"""Kernels on labelled graphs: random walks on the direct product graph and
the Weisfeiler-Lehman subtree kernel.

Graphs are ``networkx.Graph`` or ``networkx.DiGraph`` objects (not
multigraphs). Node labels are read from a node attribute (``node_label``,
``"label"`` by default, as written by :func:`structk.datasets.load_tu`),
edge labels from an edge attribute (``edge_label``). Two labels are equal
when they are equal numbers (``1 == 1.0``), equal strings or equal tuples of
those; other objects are compared by ``repr``. Labels are encoded by a
64-bit hash of that canonical form, so a graph's encoding never depends on
the other graphs it is compared with (two distinct labels collide with
probability about 2^-64).

Random-walk kernels
-------------------
:class:`RandomWalk` compares all walks of two graphs through their *direct
product graph* ``G_x``: one vertex per pair of nodes (v, v') with equal
labels, and an arc (u, u') -> (v, v') whenever u -> v is an arc of G and
u' -> v' one of G' (with equal edge labels when ``edge_label`` is set).
With ``A_x`` its adjacency matrix and start / stop weights ``p_x``, ``q_x``
(products of per-node weights, all ones by default),

=============  ===============================================================
``kind``       ``k(G, G')``
=============  ===============================================================
geometric      ``sum_t lam^t q_x^T A_x^t p_x = q_x^T (I - lam A_x)^-1 p_x``
exponential    ``q_x^T exp(beta A_x) p_x``
truncated      ``sum_{t=0}^{p} weights[t] q_x^T A_x^t p_x``
=============  ===============================================================

How it is computed (chosen by measurement, see ``docs/graphs.md``):

* unlabelled undirected graphs: each graph's eigendecomposition
  ``A = U diag(mu) U^T`` once; a pair then costs O(n n'):
  ``k = sum_ij w_i w'_j f(mu_i nu_j)`` with ``w = (U^T p) * (U^T q)``
  (all terms positive for the default weights: no cancellation);
* otherwise (node or edge labels, or directed graphs) the product graph is
  handled per pair, restricted to label-matched pairs, in whichever layout
  is cheaper: its arcs listed explicitly (O(product arcs), best for sparse
  graphs such as molecules), or the Kronecker-vec identity
  ``(A (x) A') vec X = vec(A X A'^T)`` applied in two sparse passes
  (O(|E| n') per product, best for denser graphs). The dense n n' x n n'
  Kronecker matrix is never formed. Geometric kernel on undirected graphs
  with ``start == stop``: conjugate gradient, whose error ``r^T B^-1 r`` is
  quadratic in the residual (about 4 iterations at lam = 0.01 on MUTAG);
  otherwise the power series (fixed point; conjugate gradient with a
  linear error bound when lam rho(A) rho(A') > 0.5 on undirected graphs),
  with Collatz-Wielandt bounds on its tail; exponential
  kernel: its Taylor series, whose terms are all non-negative (no
  cancellation). Every iteration stops on a rigorous bound of 1e-13 on the
  relative error.

Pairs are evaluated in parallel over all cores (numba ``prange`` over
chunks of pairs, each chunk reusing its scratch arrays; jobs below 5e5
product vertices run on one thread, since waking the thread pool costs
more); per-graph work (parsing, label encoding, eigendecompositions,
spectral radii) is done once per graph.

References
----------
T. Gärtner, P. Flach and S. Wrobel, "On graph kernels: hardness results and
efficient alternatives", COLT 2003.

S. V. N. Vishwanathan, N. N. Schraudolph, R. Kondor and K. M. Borgwardt,
"Graph kernels", Journal of Machine Learning Research 11:1201-1242, 2010.

N. Shervashidze, P. Schweitzer, E. J. van Leeuwen, K. Mehlhorn and
K. M. Borgwardt, "Weisfeiler-Lehman graph kernels", Journal of Machine
Learning Research 12:2539-2561, 2011.
"""

from __future__ import annotations

import hashlib
import numbers
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_objects, check_scalar
from .base import Kernel

_KINDS = ("geometric", "exponential", "truncated")
_TOL = 1e-13
_MAXITER = 10000
_AUTO_FRACTION = 0.5
_DENSE_EIG_MAX = 2000  # above this many nodes rho(A) is bounded by degrees
_PAIR_CHUNK = 1 << 20
_PARALLEL_WORK = 5e5  # below this many product vertices (sum of n n') run on one thread
_LAYOUT = 0  # product-graph layout: 0 cheaper per pair, 1 arcs, 2 split (for tests)


# ====================================================================== input
@dataclass
class _Graphs:
    """A batch of graphs as flat arrays (see ``structk._jit.graphs``)."""

    directed: bool
    node_ptr: np.ndarray          # (n_graphs + 1,)
    adj_ptr: np.ndarray           # (n_nodes + 1,) CSR over all nodes
    adj_idx: np.ndarray           # local index of each successor
    node_keys: np.ndarray | None  # uint64 label hash per node
    edge_keys: np.ndarray | None  # uint64 label hash per CSR entry
    graphs: list                  # the networkx graphs
    orders: list                  # node order used for graph g
    cache: dict = field(default_factory=dict)

    @property
    def n_graphs(self):
        return len(self.node_ptr) - 1

    def sizes(self):
        return np.diff(self.node_ptr)

    def dense_adjacency(self, g):
        a, b = self.node_ptr[g], self.node_ptr[g + 1]
        A = np.zeros((b - a, b - a))
        rows = np.repeat(np.arange(b - a), np.diff(self.adj_ptr[a:b + 1]))
        A[rows, self.adj_idx[self.adj_ptr[a]:self.adj_ptr[b]]] = 1.0
        return A

    def by_size(self, max_size=None):
        """Yield ``(graph indices, stacked dense adjacency matrices)`` per size > 0."""
        sizes = self.sizes()
        for n in np.unique(sizes):
            if n == 0 or (max_size is not None and n > max_size):
                continue
            gs = np.flatnonzero(sizes == n)
            yield gs, np.stack([self.dense_adjacency(g) for g in gs])


def _canonical(value):
    if isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, complex):
        f = float(value)
        if f.is_integer():
            return ("n", int(f))
        return ("n", f)
    if isinstance(value, (str, np.str_)):
        return ("s", str(value))
    if isinstance(value, bytes):
        return ("y", value)
    if isinstance(value, tuple):
        return ("t", tuple(_canonical(v) for v in value))
    return ("r", type(value).__name__, repr(value))


def _label_key(value, cache):
    try:
        return cache[value]
    except KeyError:
        pass
    digest = hashlib.blake2b(repr(_canonical(value)).encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "little")
    cache[value] = key
    return key


def _parse_graphs(X, name, node_label=None, edge_label=None, sort_by_label=False):
    """Validate networkx graphs and encode them as flat arrays, once.

    Errors name the graph (``X[3]``), the node or edge and the attribute.
    With ``sort_by_label`` the nodes of each graph are ordered by label
    key, so that each label is one contiguous block.
    """
    import networkx as nx

    X = check_objects(X, name)
    cache = {}
    node_ptr = [0]
    rows, cols, ekeys, nkeys, orders = [], [], [], [], []
    directed = None
    for g, G in enumerate(X):
        if not isinstance(G, nx.Graph):
            raise TypeError(
                f"{name}[{g}] is a {type(G).__name__}, not a networkx graph"
            )
        if G.is_multigraph():
            raise TypeError(
                f"{name}[{g}] is a multigraph; graph kernels take simple graphs "
                "(convert with networkx.Graph(G) or networkx.DiGraph(G))"
            )
        if directed is None:
            directed = G.is_directed()
        elif G.is_directed() != directed:
            kinds = ("undirected", "directed")
            raise ValueError(
                f"{name}[{g}] is {kinds[G.is_directed()]} but {name}[0] is "
                f"{kinds[directed]}: a collection must be all directed or all "
                "undirected (convert with G.to_directed() or G.to_undirected())"
            )
        nodes = list(G.nodes)
        n = len(nodes)
        if node_label is not None:
            keys = np.empty(n, dtype=np.uint64)
            for i, (v, data) in enumerate(G.nodes(data=True)):
                if node_label not in data:
                    raise ValueError(
                        f"{name}[{g}]: node {v!r} has no attribute {node_label!r} "
                        f"(node_label={node_label!r}; pass node_label=None for "
                        "unlabelled graphs)"
                    )
                keys[i] = _label_key(_hashable(data[node_label], name, g, v), cache)
            order = np.argsort(keys, kind="stable") if sort_by_label else np.arange(n)
            nkeys.append(keys[order])
        else:
            order = np.arange(n)
        orders.append([nodes[i] for i in order])
        position = {nodes[i]: r for r, i in enumerate(order)}
        src, dst, ek = [], [], []
        for u, v, data in G.edges(data=True):
            pu, pv = position[u], position[v]
            if edge_label is not None:
                if edge_label not in data:
                    raise ValueError(
                        f"{name}[{g}]: edge {(u, v)!r} has no attribute "
                        f"{edge_label!r} (edge_label={edge_label!r}; pass "
                        "edge_label=None to ignore edge labels)"
                    )
                key = _label_key(_hashable(data[edge_label], name, g, (u, v)), cache)
            else:
                key = 0
            src.append(pu)
            dst.append(pv)
            ek.append(key)
            if not directed and pu != pv:
                src.append(pv)
                dst.append(pu)
                ek.append(key)
        base = node_ptr[-1]
        rows.append(np.asarray(src, dtype=np.int64) + base)
        cols.append(np.asarray(dst, dtype=np.int64))
        ekeys.append(np.asarray(ek, dtype=np.uint64))
        node_ptr.append(base + n)

    node_ptr = np.asarray(node_ptr, dtype=np.int64)
    row = np.concatenate(rows)
    col = np.concatenate(cols)
    ekey = np.concatenate(ekeys)
    perm = np.lexsort((col, row))
    row, col, ekey = row[perm], col[perm], ekey[perm]
    adj_ptr = np.zeros(node_ptr[-1] + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=node_ptr[-1]), out=adj_ptr[1:])
    return _Graphs(
        directed=bool(directed),
        node_ptr=node_ptr,
        adj_ptr=adj_ptr,
        adj_idx=np.ascontiguousarray(col),
        node_keys=np.concatenate(nkeys) if node_label is not None else None,
        edge_keys=ekey if edge_label is not None else None,
        graphs=list(X),
        orders=orders,
    )


def _hashable(value, name, g, where):
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"{name}[{g}]: the label of {where!r} is an unhashable "
            f"{type(value).__name__}; labels must be numbers, strings or tuples"
        ) from None
    return value


def _check_same_direction(P, Q):
    if P.directed != Q.directed:
        kinds = ("undirected", "directed")
        raise ValueError(
            f"X holds {kinds[P.directed]} graphs but Y holds {kinds[Q.directed]} "
            "ones: convert one collection (G.to_directed() / G.to_undirected())"
        )


def _dense_ids(*arrays):
    """Map uint64 keys of several arrays to shared dense ids 0..L-1."""
    sizes = [len(a) for a in arrays]
    _, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    inverse = inverse.astype(np.int64).ravel()
    return np.split(inverse, np.cumsum(sizes)[:-1])


def _pairs_upper(n):
    i, j = np.triu_indices(n)
    return i.astype(np.int64), j.astype(np.int64)


def _pairs_all(n, m):
    i, j = np.divmod(np.arange(n * m, dtype=np.int64), m)
    return i, j


# =============================================================== random walk
class RandomWalk(Kernel):
    """Random-walk kernel on the direct product graph (geometric, exponential
    or truncated).

    Counts pairs of walks with matching label sequences, one in each graph,
    weighted by their length. See the module docstring for the definition
    and the algorithms.

    Parameters
    ----------
    kind : {"geometric", "exponential", "truncated"}, default="geometric"
        ``geometric``: ``sum_t lam^t q_x^T A_x^t p_x``; ``exponential``:
        ``q_x^T exp(beta A_x) p_x``; ``truncated``:
        ``sum_{t=0}^{p} weights[t] q_x^T A_x^t p_x``.
    lam : float or "auto", default=0.01
        Decay of the geometric kernel, ``0 < lam < 1 / rho(A_x)``. The
        kernel checks ``lam * rho(A) * rho(A') < 1`` for the largest
        spectral radii in the two collections (exact for unlabelled
        graphs, a bound for labelled ones since ``A_x`` is entrywise at most
        ``A (x) A'``) and raises ``ValueError`` naming the largest admissible
        value otherwise. ``"auto"`` picks ``lam = 0.5 / (rho_max rho'_max)``
        on the first evaluation, stores it in ``lam_``, warns, and keeps it
        for later evaluations (so train and test Gram matrices agree);
        ``del k.lam_`` to pick again. Ignored by the other kinds.
    beta : float, default=1.0
        Scale of the exponential kernel (``> 0``). Ignored by the other kinds.
    weights : sequence of float, optional
        ``weights[t] >= 0`` for walks of length ``t = 0 .. p`` (required by,
        and only used by, ``kind="truncated"``).
    node_label : hashable or None, default="label"
        Node attribute holding the label; ``None`` for unlabelled graphs.
        Every node must have it.
    edge_label : hashable or None, default=None
        Edge attribute holding the edge label; ``None`` ignores edge labels.
    start, stop : None, "uniform" or callable, default=None
        Per-node start and stop weights ``p``, ``q`` of each graph; the
        product graph uses ``p_x(v, v') = p(v) p'(v')`` on its vertices.
        ``None``: all ones (``k = 1^T (I - lam A_x)^-1 1`` over the product
        vertices, the textbook kernel); ``"uniform"``: ``1 / n``; a callable
        ``f(G)`` returns one finite weight ``>= 0`` per node, in the order of
        ``G.nodes``. Any such choice keeps the kernel positive semi-definite.

    Attributes
    ----------
    lam_ : float
        The decay chosen by ``lam="auto"`` (only then).

    Notes
    -----
    Empty graphs have kernel 0 with every graph. A graph without edges has
    only walks of length 0: ``k(G, G') = weights[0]`` (truncated) or 1
    (geometric, exponential) times ``q_x^T p_x``, the number of
    label-matched node pairs with the default weights. A self-loop is an arc
    from a node to itself (``A[v, v] = 1``). Directed graphs follow arcs
    forwards; a collection must not mix directed and undirected graphs.

    GraKeL's ``RandomWalkLabeled`` differs from this (textbook) definition:
    its start vector covers every node pair, so each label-mismatched pair
    adds exactly 1 to its value, and its ``method_type="fast"`` transposes the
    label pairs of the second graph; its ``"baseline"`` mode equals ``k``
    plus the number of mismatched pairs (tested).

    References
    ----------
    T. Gärtner, P. Flach and S. Wrobel, "On graph kernels: hardness results
    and efficient alternatives", COLT 2003.

    S. V. N. Vishwanathan, N. N. Schraudolph, R. Kondor and K. M. Borgwardt,
    "Graph kernels", JMLR 11:1201-1242, 2010 (Sections 2 and 4).

    Examples
    --------
    >>> import networkx as nx
    >>> from structk.kernels import RandomWalk
    >>> path = nx.path_graph(3)
    >>> k = RandomWalk(lam=0.1, node_label=None)
    >>> round(float(k([path])[0, 0]), 6)   # 1^T (I - 0.1 A (x) A)^-1 1
    11.041667
    """

    @property
    def _repr_always(self):
        defining = {"geometric": "lam", "exponential": "beta", "truncated": "weights"}
        return ("kind", defining.get(self.kind, "lam"))

    def __init__(self, kind="geometric", lam=0.01, beta=1.0, weights=None,
                 node_label="label", edge_label=None, start=None, stop=None):
        self.kind = kind
        self.lam = lam
        self.beta = beta
        self.weights = weights
        self.node_label = node_label
        self.edge_label = edge_label
        self.start = start
        self.stop = stop
        self._check_params()

    # ------------------------------------------------------------ parameters
    def _check_params(self):
        if self.kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {self.kind!r}")
        if not (isinstance(self.lam, str) and self.lam == "auto"):
            if isinstance(self.lam, str):
                raise ValueError(f"lam must be a positive number or 'auto', got {self.lam!r}")
            check_scalar(self.lam, "lam", lower=0, lower_inclusive=False)
        check_scalar(self.beta, "beta", lower=0, lower_inclusive=False)
        if self.kind == "truncated" and self.weights is None:
            raise ValueError(
                "kind='truncated' needs weights=(w_0, ..., w_p), the weight of "
                "walks of each length 0..p"
            )
        if self.weights is not None:
            self._weights()
        for which in ("start", "stop"):
            value = getattr(self, which)
            if not (value is None or value == "uniform" or callable(value)):
                raise ValueError(
                    f"{which} must be None, 'uniform' or a callable G -> node "
                    f"weights, got {value!r}"
                )

    def _weights(self):
        try:
            w = np.asarray(self.weights, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"weights must be a sequence of numbers, got {self.weights!r}"
            ) from None
        if w.ndim != 1 or w.size == 0:
            raise ValueError(f"weights must be a non-empty 1-D sequence, got {self.weights!r}")
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            t = int(np.argmax(bad))
            raise ValueError(
                f"weights[{t}] = {float(w[t])!r}: walk-length weights must be finite and "
                ">= 0 (a negative weight can make the kernel indefinite)"
            )
        return w

    @property
    def _spectral(self):
        return self.node_label is None and self.edge_label is None

    # ----------------------------------------------------------------- input
    def _prepare(self, X, name):
        P = _parse_graphs(X, name, self.node_label, self.edge_label, sort_by_label=True)
        sizes = P.sizes()
        P.cache["p"] = self._node_weights(P, self.start, "start", name)
        P.cache["q"] = (P.cache["p"] if self.stop == self.start
                        else self._node_weights(P, self.stop, "stop", name))
        if self._spectral and not P.directed:
            self._eigen(P)
        else:
            P.cache["rho"] = _spectral_radii(P)
        in_deg = np.bincount(P.adj_idx + np.repeat(
            P.node_ptr[:-1], np.diff(P.adj_ptr[P.node_ptr]).astype(np.int64)),
            minlength=P.node_ptr[-1])
        col = np.zeros(P.n_graphs)
        for g in range(P.n_graphs):
            if sizes[g]:
                col[g] = in_deg[P.node_ptr[g]:P.node_ptr[g + 1]].max()
        P.cache["col"] = col
        return P

    def _node_weights(self, P, rule, which, name):
        sizes = P.sizes()
        if rule is None:
            return np.ones(P.node_ptr[-1])
        if rule == "uniform":
            return np.repeat(1.0 / np.maximum(sizes, 1), sizes)
        out = np.empty(P.node_ptr[-1])
        for g, G in enumerate(P.graphs):
            try:
                w = np.asarray(rule(G), dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{which}({name}[{g}]) did not return numbers: {exc}") from None
            if w.shape != (sizes[g],):
                raise ValueError(
                    f"{which}({name}[{g}]) returned shape {w.shape}; expected one "
                    f"weight per node, ({sizes[g]},)"
                )
            if not (np.isfinite(w).all() and (w >= 0).all()):
                raise ValueError(
                    f"{which}({name}[{g}]) returned a weight that is negative or not finite"
                )
            index = {v: i for i, v in enumerate(G.nodes)}
            out[P.node_ptr[g]:P.node_ptr[g + 1]] = w[[index[v] for v in P.orders[g]]]
        return out

    def _eigen(self, P):
        mu = np.zeros(P.node_ptr[-1])
        w = np.zeros(P.node_ptr[-1])
        rho = np.zeros(P.n_graphs)
        p, q = P.cache["p"], P.cache["q"]
        for gs, A in P.by_size():
            vals, vecs = np.linalg.eigh(A)
            idx = P.node_ptr[gs][:, None] + np.arange(A.shape[1])
            mu[idx] = vals
            w[idx] = (np.einsum("gij,gi->gj", vecs, p[idx])
                      * np.einsum("gij,gi->gj", vecs, q[idx]))
            rho[gs] = np.abs(vals).max(axis=1)
        P.cache.update(mu=mu, w=w, rho=rho)

    def _check_pair(self, P, Q):
        _check_same_direction(P, Q)

    # ----------------------------------------------------------- evaluation
    def _gram(self, P):
        i, j = _pairs_upper(P.n_graphs)
        K = np.zeros((P.n_graphs, P.n_graphs))
        K[i, j] = self._values(P, P, i, j, "X", "X")
        K[j, i] = K[i, j]
        return K

    def _cross(self, P, Q):
        i, j = _pairs_all(P.n_graphs, Q.n_graphs)
        return self._values(P, Q, i, j, "X", "Y").reshape(P.n_graphs, Q.n_graphs)

    def _diag(self, P):
        i = np.arange(P.n_graphs, dtype=np.int64)
        return self._values(P, P, i, i, "X", "X")

    def _decay(self, P, Q, name_p, name_q):
        """The geometric decay, checked against the convergence region."""
        rp, rq = P.cache["rho"], Q.cache["rho"]
        gp, gq = int(np.argmax(rp)), int(np.argmax(rq))
        bound = float(rp[gp] * rq[gq])
        limit = np.inf if bound == 0 else 1.0 / bound
        lam = self.lam
        if isinstance(lam, str):
            if not hasattr(self, "lam_"):
                self.lam_ = _AUTO_FRACTION * limit if bound else _AUTO_FRACTION
                warnings.warn(
                    f"RandomWalk(lam='auto') chose lam_={self.lam_:.6g} "
                    f"(= {_AUTO_FRACTION} / (rho_max rho'_max) with largest spectral "
                    f"radii {rp[gp]:.6g} at {name_p}[{gp}] and {rq[gq]:.6g} at "
                    f"{name_q}[{gq}]); it is kept for later calls",
                    UserWarning, stacklevel=5,
                )
            lam = self.lam_
        if lam * bound >= 1.0:
            what = "exact for unlabelled graphs" if self._spectral else (
                "rho(A) rho(A') bounds the spectral radius of the labelled product graph")
            raise ValueError(
                f"lam={lam!r} is outside the convergence region of the geometric "
                f"random walk on these graphs: it needs lam * rho(A_x) < 1, i.e. "
                f"lam < 1 / (rho(A) rho(A')) = {limit:.6g} ({what}); the largest "
                f"spectral radii are {rp[gp]:.6g} ({name_p}[{gp}]) and "
                f"{rq[gq]:.6g} ({name_q}[{gq}]). Use lam < {limit:.6g}, "
                "lam='auto', or kind='truncated'."
            )
        return float(lam)

    def _values(self, P, Q, i, j, name_p, name_q):
        from .._jit import graphs as jit

        kind = _KINDS.index(self.kind)
        lam = self._decay(P, Q, name_p, name_q) if self.kind == "geometric" else 0.0
        beta = float(self.beta)
        weights = self._weights() if self.kind == "truncated" else np.zeros(1)
        out = np.empty(len(i))
        work = float(np.dot(P.sizes()[i].astype(np.float64), Q.sizes()[j]))
        if self._spectral and not P.directed:
            with _threads_for(work / 10):
                for s in range(0, len(i), _PAIR_CHUNK):
                    sl = slice(s, s + _PAIR_CHUNK)
                    out[sl] = jit.spectral_pairs(
                        i[sl], j[sl], P.node_ptr, P.cache["mu"], P.cache["w"],
                        Q.node_ptr, Q.cache["mu"], Q.cache["w"], kind, lam, beta, weights)
            return out
        if P.node_keys is None:
            cls_p = np.zeros(P.node_ptr[-1], np.int64)
            cls_q = np.zeros(Q.node_ptr[-1], np.int64)
        else:
            cls_p, cls_q = _dense_ids(P.node_keys, Q.node_keys)
        if P.edge_keys is None:
            el_p = np.zeros(len(P.adj_idx), np.int64)
            el_q = np.zeros(len(Q.adj_idx), np.int64)
            n_el = 1
        else:
            el_p, el_q = _dense_ids(P.edge_keys, Q.edge_keys)
            n_el = max(1, int(max(el_p.max(initial=0), el_q.max(initial=0))) + 1)
        n_cls = int(max(cls_p.max(initial=0), cls_q.max(initial=0))) + 1
        arcs_p = _sorted_arcs(P, cls_p, el_p, n_el, n_cls)
        arcs_q = arcs_p if Q is P else _sorted_arcs(Q, cls_q, el_q, n_el, n_cls)
        with _threads_for(work) as threads:
            for s in range(0, len(i), _PAIR_CHUNK):
                sl = slice(s, s + _PAIR_CHUNK)
                vals, iters = jit.walk_pairs(
                    i[sl], j[sl],
                    P.node_ptr, P.adj_ptr, P.adj_idx, el_p, cls_p, P.cache["p"],
                    P.cache["q"], P.cache["rho"], P.cache["col"],
                    Q.node_ptr, Q.adj_ptr, Q.adj_idx, el_q, cls_q, Q.cache["p"],
                    Q.cache["q"], Q.cache["rho"], Q.cache["col"],
                    n_el, kind, lam, beta, weights, not P.directed,
                    self.start == self.stop, _TOL, _MAXITER, _LAYOUT, 8 * threads,
                    *arcs_p, *arcs_q)
                if (iters < 0).any():
                    t = int(np.argmax(iters < 0))
                    raise RuntimeError(
                        f"{self!r}: the iteration for the pair ({name_p}[{i[sl][t]}], "
                        f"{name_q}[{j[sl][t]}]) did not converge in {_MAXITER} steps "
                        "(lam is very close to the convergence limit, or beta is very "
                        "large); use a smaller lam / beta"
                    )
                out[sl] = vals
        return out


def _sorted_arcs(P, cls, el, n_el, n_cls):
    """Each graph's arcs sorted by the key (class of source, edge label,
    class of target), kept within the graph's CSR range: (keys, local
    sources, local targets)."""
    src_global = np.repeat(np.arange(P.node_ptr[-1], dtype=np.int64), np.diff(P.adj_ptr))
    graph = np.repeat(np.arange(P.n_graphs, dtype=np.int64), np.diff(P.adj_ptr[P.node_ptr]))
    base = P.node_ptr[graph]
    key = (cls[src_global] * n_el + el) * n_cls + cls[base + P.adj_idx]
    order = np.lexsort((key, graph))
    return (np.ascontiguousarray(key[order]), src_global[order] - base[order],
            np.ascontiguousarray(P.adj_idx[order]))


@contextmanager
def _threads_for(work):
    """Run small jobs on one thread: waking the thread pool costs more than
    it saves below ``_PARALLEL_WORK`` product vertices (measured)."""
    import numba

    before = numba.get_num_threads()
    threads = before if work >= _PARALLEL_WORK else 1
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(before)


def _spectral_radii(P):
    """rho(A) of each graph: eigenvalues of the dense adjacency (batched by
    size); above ``_DENSE_EIG_MAX`` nodes the safe bound
    min(max out-degree, max in-degree)."""
    rho = np.zeros(P.n_graphs)
    for gs, A in P.by_size(_DENSE_EIG_MAX):
        vals = np.linalg.eigvals(A) if P.directed else np.linalg.eigvalsh(A)
        rho[gs] = np.abs(vals).max(axis=1)
    sizes = P.sizes()
    for g in np.flatnonzero(sizes > _DENSE_EIG_MAX):
        a, n = P.node_ptr[g], sizes[g]
        rows = np.diff(P.adj_ptr[a:a + n + 1])
        cols = np.bincount(P.adj_idx[P.adj_ptr[a]:P.adj_ptr[a + n]], minlength=n)
        rho[g] = float(min(rows.max(), cols.max()))
    return rho


# ========================================================= Weisfeiler-Lehman
class WeisfeilerLehman(Kernel):
    """Weisfeiler-Lehman subtree kernel (explicit sparse features).

    Iteration 0 labels each node with its label; iteration ``t`` relabels
    each node by its label and the sorted multiset of its neighbours' labels
    at iteration ``t - 1``. The feature vector of a graph counts each label
    of each iteration ``0 .. h``, so ``k(G, G')`` is the number of pairs of
    nodes with equal labels, summed over the iterations, and the Gram matrix
    is one sparse product.

    Parameters
    ----------
    h : int, default=5
        Number of relabelling iterations (``>= 0``; ``h = 0`` is the vertex
        label histogram).
    node_label : hashable or None, default="label"
        Node attribute holding the initial label; ``None`` starts every node
        with the same label.

    Notes
    -----
    Compressed labels are 64-bit hashes of (iteration, label, sorted
    neighbour labels), not indices into a dictionary grown while reading
    the data, so a graph's features never depend on the other graphs in the
    batch and ``k(X, Y)`` needs no shared state: two different neighbourhoods
    get the same label with probability about 2^-64 per pair. The columns of
    :meth:`features` are the distinct labels of the collection passed (in
    hash order), so compare two collections with ``k(X, Y)``, which aligns
    them. Directed graphs use out-neighbours; edge labels are ignored.

    References
    ----------
    N. Shervashidze, P. Schweitzer, E. J. van Leeuwen, K. Mehlhorn and
    K. M. Borgwardt, "Weisfeiler-Lehman graph kernels", JMLR
    12:2539-2561, 2011 (Section 3.1).
    """

    _repr_always = ('h',)

    has_features = True

    def __init__(self, h=5, node_label="label"):
        self.h = h
        self.node_label = node_label
        self._check_params()

    def _check_params(self):
        check_scalar(self.h, "h", lower=0, integer=True)

    def _prepare(self, X, name):
        from .._jit.graphs import wl_relabel

        P = _parse_graphs(X, name, self.node_label)
        keys0 = (P.node_keys if P.node_keys is not None
                 else np.zeros(P.node_ptr[-1], dtype=np.uint64))
        keys = wl_relabel(keys0, P.node_ptr, P.adj_ptr, P.adj_idx, int(self.h))
        rows = np.repeat(np.arange(P.n_graphs, dtype=np.int64), P.sizes())
        return rows, keys.ravel(), P.n_graphs

    def _features(self, P):
        return self._sparse(P, *_dense_ids(P[1]))[0]

    @staticmethod
    def _sparse(P, cols, n_cols=None):
        import scipy.sparse as sp

        rows, keys, n = P
        n_cols = int(cols.max(initial=-1)) + 1 if n_cols is None else n_cols
        F = sp.csr_matrix(
            (np.ones(len(cols)), (np.tile(rows, len(keys) // max(len(rows), 1)), cols)),
            shape=(n, n_cols),
        )
        F.sum_duplicates()
        return F, n_cols

    def _cross(self, P, Q):
        cp, cq = _dense_ids(P[1], Q[1])
        n_cols = int(max(cp.max(initial=-1), cq.max(initial=-1))) + 1
        F = self._sparse(P, cp, n_cols)[0]
        G = self._sparse(Q, cq, n_cols)[0]
        return (F @ G.T).toarray()
