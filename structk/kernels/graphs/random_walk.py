"""Random-walk kernels on the direct product graph of two labelled graphs.

Graphs and labels are read as described in :mod:`structk.kernels.graphs._encoding`.

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

Pairs are evaluated in chunks on :func:`structk._threads.num_threads`
threads (numba's setting; serial ``nogil`` loops, each chunk reusing its
scratch arrays; jobs below 5e5 product vertices run inline on one thread,
since starting threads costs more); a value depends only on its pair, so
the Gram is the same bit for bit whatever the thread count. Per-graph work
(parsing, label encoding, eigendecompositions, spectral radii) is done once
per graph, here; the pairs' walks, their chunks and threads are
:func:`structk.algorithms.random_walk.pair_values`.

References
----------
T. Gärtner, P. Flach and S. Wrobel, "On graph kernels: hardness results and
efficient alternatives", COLT 2003.

S. V. N. Vishwanathan, N. N. Schraudolph, R. Kondor and K. M. Borgwardt,
"Graph kernels", Journal of Machine Learning Research 11:1201-1242, 2010.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ... import defaults
from ..._threads import small_eigh_blas
from ..._validation import check_objects, check_scalar, check_weights
from ...algorithms.random_walk import KINDS
from ..base import Kernel, Objects
from ..hyperparameters import DEFAULT_BOUNDS, declare, declare_entries, entry_gradients, stack

if TYPE_CHECKING:
    from typing_extensions import Self

from ._encoding import (
    check_same_direction,
    dense_ids,
    pairs_all,
    pairs_upper,
    parse_graphs,
    sorted_by_label,
)

_PER_GRAPH = ("rho", "col")  # cached per graph; the other cached arrays are per node
#: ``lam="auto"`` is this fraction of the convergence limit 1 / rho^2.
_AUTO_FRACTION = 0.5
#: ``lam_bounds="auto"``: these fractions of the convergence limit 1 / rho^2
#: of the graphs the kernel was fitted on (an optimiser stays where the
#: series converges fast: lam rho(A_x) <= 0.9); a given upper bound above
#: the top one is clipped to it.
_LAM_BOUNDS = (1e-4, 0.9)
#: ``beta_bounds="auto"``: these multiples of 1 / rho^2 (at the top, the
#: exponential's largest factor exp(beta rho^2) is e^20).
_BETA_BOUNDS = (1e-4, 20.0)


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
        value otherwise. ``"auto"``: :meth:`fit` picks
        ``lam_ = 0.5 / rho_max^2`` from the largest spectral radius of the
        training graphs and every evaluation uses it (so train and test Gram
        matrices agree); an unfitted ``"auto"`` kernel raises
        ``NotFittedError``. Ignored by the other kinds.
    beta : float, default=1.0
        Scale of the exponential kernel (``> 0``). Ignored by the other kinds.
    weights : sequence of float, optional
        ``weights[t] >= 0`` for walks of length ``t = 0 .. p`` (required by,
        and only used by, ``kind="truncated"``). With ``kind="truncated"``
        the positive ones are hyperparameters (``weights[0]``, ...,
        :mod:`structk.kernels.hyperparameters`) that a Gaussian process
        learns by its marginal likelihood, with analytic derivatives: the
        kernel is linear in them, ``dK / d log w_t = w_t K_t`` with ``K_t``
        the kernel of the walks of length ``t`` alone.
    weights_bounds : pair of float or "fixed", default=(1e-5, 1e5)
        Bounds of every walk-length weight for an optimiser.
    lam_bounds, beta_bounds : "auto", pair of float or "fixed", default="auto"
        Bounds of the decay ``lam`` (geometric, a number) and the scale
        ``beta`` (exponential) as hyperparameters that a Gaussian process
        learns by its marginal likelihood, with analytic derivatives (the
        geometric ``dk / d log lam = sum_t t lam^t q_x^T A_x^t p_x``, from
        the same iterations as the value; see
        :func:`structk.algorithms.random_walk.pair_values`). The admissible
        decay depends on the graphs, so the bounds are set by :meth:`fit`
        from the largest spectral radius ``rho`` of the training graphs
        (stored as ``spectral_radius_``): ``"auto"`` is
        ``(1e-4, 0.9) / rho^2`` for ``lam`` (the series converges for
        ``lam < 1 / rho^2``) and ``(1e-4, 20) / rho^2`` for ``beta``; a
        pair whose upper bound for ``lam`` reaches past ``0.9 / rho^2`` is
        clipped to it with a warning, so an optimiser never steps outside
        the convergence region. An unfitted kernel with ``"auto"`` declares
        no hyperparameter (nothing to bound it by yet); learners fit their
        kernels on the training objects. Graphs without edges (``rho = 0``):
        the kernel does not depend on ``lam`` or ``beta``, bounds
        ``(1e-5, 1e5)``.
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
        The decay chosen by :meth:`fit` for ``lam="auto"`` (only then).
    spectral_radius_ : float
        The largest spectral radius (a bound for labelled graphs) of the
        graphs given to :meth:`fit`, which sets ``lam_bounds`` and
        ``beta_bounds`` (only when ``lam`` or ``beta`` is a hyperparameter).

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

    def __init__(
        self,
        kind: str = "geometric",
        lam: float | str = 0.01,
        beta: float = 1.0,
        weights: Sequence[float] | np.ndarray | None = None,
        node_label: Hashable | None = "label",
        edge_label: Hashable | None = None,
        start: str | Callable[..., Any] | None = None,
        stop: str | Callable[..., Any] | None = None,
        weights_bounds: tuple[float, float] | str = (1e-5, 1e5),
        lam_bounds: tuple[float, float] | str = "auto",
        beta_bounds: tuple[float, float] | str = "auto",
    ) -> None:
        self.kind = kind
        self.lam = lam
        self.beta = beta
        self.weights = weights
        self.node_label = node_label
        self.edge_label = edge_label
        self.start = start
        self.stop = stop
        self.weights_bounds = weights_bounds
        self.lam_bounds = lam_bounds
        self.beta_bounds = beta_bounds

    # ------------------------------------------------------------ parameters
    def _check_params(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if not _is_auto(self.lam):
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
        for name in ("lam_bounds", "beta_bounds"):
            value = getattr(self, name)
            if isinstance(value, str) and value not in ("auto", "fixed"):
                raise ValueError(
                    f"{name} must be 'auto', 'fixed' or a pair (low, high), got {value!r}"
                )
        for which in ("start", "stop"):
            value = getattr(self, which)
            if not (
                value is None or (isinstance(value, str) and value == "uniform") or callable(value)
            ):
                raise ValueError(
                    f"{which} must be None, 'uniform' or a callable G -> node "
                    f"weights, got {value!r}"
                )

    def _weights(self):
        return check_weights(self.weights, "weights", "walk-length weights")

    # -------------------------------------------------------- hyperparameters
    @property
    def _decay_name(self):
        """The continuous parameter of this kind (None: the truncated walk's
        weights, or ``lam="auto"``, which fit chooses)."""
        if self.kind == "exponential":
            return "beta"
        if self.kind == "geometric" and not _is_auto(self.lam):
            return "lam"
        return None

    def _decay_bounds(self, warn=False):
        """Bounds of ``lam`` / ``beta`` from ``<name>_bounds`` and the
        fitted spectral radius: "fixed", a pair, or None (``"auto"``, not
        fitted). ``warn``: say so when a given ``lam`` bound is clipped."""
        name = self._decay_name
        raw = getattr(self, f"{name}_bounds")
        auto = isinstance(raw, str) and raw == "auto"
        if isinstance(raw, str) and raw == "fixed":
            return raw
        radius = getattr(self, "spectral_radius_", None)
        if radius is None:
            return None if auto else raw
        if radius == 0.0:  # no walk longer than 0: lam and beta do nothing
            return DEFAULT_BOUNDS if auto else raw
        scale = 1.0 / radius**2
        low, top = (f * scale for f in (_LAM_BOUNDS if name == "lam" else _BETA_BOUNDS))
        if auto:
            return (low, top)
        try:
            given_low, given_high = (float(b) for b in raw)
        except (TypeError, ValueError):
            return raw  # declare names the bad bounds
        if name == "lam" and given_high > top:
            where = (
                f"RandomWalk(lam_bounds={raw!r}): the geometric series converges only "
                f"for lam < 1 / rho^2 = {scale:.6g} on the graphs this kernel was fitted "
                f"on (largest spectral radius rho = {radius:.6g})"
            )
            if given_low >= top:
                raise ValueError(
                    f"{where}; the lower bound is not below {top:.6g} (0.9 of that): give "
                    f"lam_bounds below it, or lam_bounds='auto'"
                )
            if warn:
                warnings.warn(
                    f"{where}; the upper bound is clipped to {top:.6g} (0.9 of that) so "
                    "that an optimiser stays inside",
                    UserWarning,
                    stacklevel=3,
                )
            return (given_low, top)
        return raw

    def _own_hyperparameters(self):
        if self.kind == "truncated":
            return [] if self.weights is None else declare_entries(self, "weights")
        name = self._decay_name
        if name is None:
            return []
        bounds = self._decay_bounds()
        if bounds is None:
            return []
        return [declare(self, name, bounds=bounds)]

    def _gram_gradient(self, P):
        if not any(not h.fixed for h in self._own_hyperparameters()):
            return super()._gram_gradient(P)
        if self.kind == "truncated":
            # linear in the weights: dK / d log w_t = w_t K_t, K_t the Gram
            # of the walks of length t alone (weights e_t)
            def gram_with(unit):
                part = copy.copy(self)
                part.weights = unit
                return part._gram(P)

            K = self._gram(P)
            return K, stack(K, entry_gradients(self, "weights", self._weights(), gram_with))
        # lam or beta: each pair's derivative from the same iterations
        i, j = pairs_upper(P.n_graphs)
        values, derivatives = self._values(P, P, i, j, "X", "X", gradient=True)
        K = np.zeros((P.n_graphs, P.n_graphs))
        dK = np.zeros((P.n_graphs, P.n_graphs, 1))
        K[i, j] = values
        K[j, i] = values
        dK[i, j, 0] = derivatives
        dK[j, i, 0] = derivatives
        return K, dK

    def fit(self, X: Objects, y: Any = None) -> Self:
        """Check the parameters; choose ``lam_`` (``lam="auto"``); and, when
        ``lam`` or ``beta`` is a hyperparameter, record the largest spectral
        radius of ``X`` (``spectral_radius_``), which bounds it. Returns
        ``self``."""
        super().fit(X, y)
        if self._decay_name is not None and not (
            isinstance(getattr(self, f"{self._decay_name}_bounds"), str)
            and getattr(self, f"{self._decay_name}_bounds") == "fixed"
        ):
            P = self._prepare(check_objects(X, "X"), "X")
            self.spectral_radius_ = float(P.cache["rho"].max(initial=0.0))
            self._decay_bounds(warn=True)
        return self

    # ---------------------------------------------------------------- fitting
    @property
    def _needs_fit(self):
        return self.kind == "geometric" and _is_auto(self.lam)

    def _fit(self, X):
        P = self._prepare(X, "X")
        rho = float(P.cache["rho"].max())
        self.lam_ = _AUTO_FRACTION / rho**2 if rho else _AUTO_FRACTION

    def _check_fitted(self):
        if self._needs_fit and not hasattr(self, "lam_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                "This RandomWalk(lam='auto') is not fitted yet: lam_ is chosen "
                "from the spectral radii of training graphs. Call k.fit(graphs) "
                "first (learners do it on their training objects), or give lam "
                "a number."
            )

    @property
    def _spectral(self):
        return self.node_label is None and self.edge_label is None

    # ----------------------------------------------------------------- input
    # the graphs as WeisfeilerLehman parses them (shared in a composite such as
    # WeisfeilerLehman() + RandomWalk()), reordered here by node label
    def _encoding_key(self):
        return ("graphs", self.node_label, self.edge_label)

    def _encode(self, X, name):
        return parse_graphs(X, name, self.node_label, self.edge_label)

    def _prepare_encoded(self, E, name):
        P = sorted_by_label(E)
        sizes = P.sizes()
        P.cache["p"] = self._node_weights(P, self.start, "start", name)
        P.cache["q"] = (
            P.cache["p"]
            if self.stop == self.start
            else self._node_weights(P, self.stop, "stop", name)
        )
        if self._spectral and not P.directed:
            self._eigen(P)
        else:
            P.cache["rho"] = _spectral_radii(P)
        in_deg = np.bincount(
            P.adj_idx + np.repeat(P.node_ptr[:-1], np.diff(P.adj_ptr[P.node_ptr]).astype(np.int64)),
            minlength=P.node_ptr[-1],
        )
        col = np.zeros(P.n_graphs)
        for g in range(P.n_graphs):
            if sizes[g]:
                col[g] = in_deg[P.node_ptr[g] : P.node_ptr[g + 1]].max()
        P.cache["col"] = col
        return P

    def _take(self, P, index):
        part, index, nodes = P.take(index)
        for key, value in P.cache.items():
            part.cache[key] = value[index if key in _PER_GRAPH else nodes]
        return part

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
            out[P.node_ptr[g] : P.node_ptr[g + 1]] = w[[index[v] for v in P.orders[g]]]
        return out

    def _eigen(self, P):
        mu = np.zeros(P.node_ptr[-1])
        w = np.zeros(P.node_ptr[-1])
        rho = np.zeros(P.n_graphs)
        p, q = P.cache["p"], P.cache["q"]
        with small_eigh_blas(int(P.sizes().max(initial=0))):
            for gs, A in P.by_size():
                vals, vecs = np.linalg.eigh(A)
                idx = P.node_ptr[gs][:, None] + np.arange(A.shape[1])
                mu[idx] = vals
                w[idx] = np.einsum("gij,gi->gj", vecs, p[idx]) * np.einsum(
                    "gij,gi->gj", vecs, q[idx]
                )
                rho[gs] = np.abs(vals).max(axis=1)
        P.cache.update(mu=mu, w=w, rho=rho)

    def _check_pair(self, P, Q):
        check_same_direction(P, Q)

    # ----------------------------------------------------------- evaluation
    def _gram(self, P):
        i, j = pairs_upper(P.n_graphs)
        K = np.zeros((P.n_graphs, P.n_graphs))
        K[i, j] = self._values(P, P, i, j, "X", "X")
        K[j, i] = K[i, j]
        return K

    def _cross(self, P, Q):
        i, j = pairs_all(P.n_graphs, Q.n_graphs)
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
        lam = self.lam_ if _is_auto(self.lam) else self.lam
        if lam * bound >= 1.0:
            what = (
                "exact for unlabelled graphs"
                if self._spectral
                else ("rho(A) rho(A') bounds the spectral radius of the labelled product graph")
            )
            raise ValueError(
                f"lam={lam!r} is outside the convergence region of the geometric "
                f"random walk on these graphs: it needs lam * rho(A_x) < 1, i.e. "
                f"lam < 1 / (rho(A) rho(A')) = {limit:.6g} ({what}); the largest "
                f"spectral radii are {rp[gp]:.6g} ({name_p}[{gp}]) and "
                f"{rq[gq]:.6g} ({name_q}[{gq}]). Use lam < {limit:.6g}, "
                "lam='auto', or kind='truncated'."
            )
        return float(lam)

    def _values(self, P, Q, i, j, name_p, name_q, gradient=False):
        """The pairs' values, and with ``gradient`` their derivatives in
        ``log lam`` (geometric) or ``log beta`` (exponential)."""
        from ...algorithms.random_walk import MAXITER, pair_values

        lam = self._decay(P, Q, name_p, name_q) if self.kind == "geometric" else 0.0
        weights = self._weights() if self.kind == "truncated" else None
        A, B = _walk_batches(P, Q, spectral=self._spectral and not P.directed)
        out, *derivatives, failed = pair_values(
            i,
            j,
            A,
            B,
            self.kind,
            lam,
            self.beta,
            weights,
            not P.directed,
            self.start == self.stop,
            gradient=gradient,
        )
        if failed >= 0:
            raise RuntimeError(
                f"{self!r}: the iteration for the pair ({name_p}[{i[failed]}], "
                f"{name_q}[{j[failed]}]) did not converge in {MAXITER} steps "
                "(lam is very close to the convergence limit, or beta is very "
                "large); use a smaller lam / beta"
            )
        return (out, derivatives[0]) if gradient else out


def _walk_batches(P, Q, spectral):
    """Two prepared collections as :class:`structk.algorithms.random_walk.WalkBatch`
    (the same object twice when ``Q`` is ``P``), with node and edge labels
    numbered in common."""
    from ...algorithms.random_walk import WalkBatch

    if P.node_keys is None:
        cls_p = np.zeros(P.node_ptr[-1], np.int64)
        cls_q = np.zeros(Q.node_ptr[-1], np.int64)
    else:
        cls_p, cls_q = dense_ids(P.node_keys, Q.node_keys)
    if P.edge_keys is None:
        el_p = np.zeros(len(P.adj_idx), np.int64)
        el_q = np.zeros(len(Q.adj_idx), np.int64)
    else:
        el_p, el_q = dense_ids(P.edge_keys, Q.edge_keys)

    def batch(R, cls, el):
        c = R.cache
        return WalkBatch(
            R.node_ptr,
            R.adj_ptr,
            R.adj_idx,
            cls,
            el,
            c["p"],
            c["q"],
            c["rho"],
            c["col"],
            c["mu"] if spectral else None,
            c["w"] if spectral else None,
        )

    A = batch(P, cls_p, el_p)
    return A, A if Q is P else batch(Q, cls_q, el_q)


def _is_auto(lam):
    return isinstance(lam, str) and lam == "auto"


def _spectral_radii(P):
    """rho(A) of each graph: eigenvalues of the dense adjacency (batched by
    size); above ``defaults.WALK_DENSE_EIG_MAX_N`` nodes the safe bound
    min(max out-degree, max in-degree)."""
    rho = np.zeros(P.n_graphs)
    sizes = P.sizes()
    dense_max = defaults.WALK_DENSE_EIG_MAX_N
    with small_eigh_blas(int(sizes[sizes <= dense_max].max(initial=0))):
        for gs, A in P.by_size(dense_max):
            vals = np.linalg.eigvals(A) if P.directed else np.linalg.eigvalsh(A)
            rho[gs] = np.abs(vals).max(axis=1)
    for g in np.flatnonzero(sizes > dense_max):
        a, n = P.node_ptr[g], sizes[g]
        rows = np.diff(P.adj_ptr[a : a + n + 1])
        cols = np.bincount(P.adj_idx[P.adj_ptr[a] : P.adj_ptr[a + n]], minlength=n)
        rho[g] = float(min(rows.max(), cols.max()))
    return rho
