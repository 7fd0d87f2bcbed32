"""The GraphHopper kernel for graphs with continuous node attributes.

References
----------
A. Feragen, N. Kasenburg, J. Petersen, M. de Bruijne and K. Borgwardt,
"Scalable kernels for graphs with continuous attributes", Advances in
Neural Information Processing Systems 26 (NeurIPS), 216-224, 2013.
"""

from __future__ import annotations

from collections.abc import Hashable

import numbers
from dataclasses import dataclass

import numpy as np

from ..._validation import check_scalar
from ..base import Kernel
from ._encoding import parse_graphs, take_segments

_NODE_KERNELS = ("linear", "gaussian")


@dataclass
class _Hopper:
    """Per node: its path counts ``M`` (n_nodes x (depth+1)(depth+2)/2) and
    its attribute vector; graph g owns rows ``node_ptr[g]:node_ptr[g+1]``."""

    node_ptr: np.ndarray
    M: np.ndarray
    attrs: np.ndarray
    width: np.ndarray  # per graph: the columns of M its nodes can use

    @property
    def n_graphs(self):
        return len(self.node_ptr) - 1

    def take(self, index):
        sel, ptr = take_segments(self.node_ptr, index)
        g = np.arange(self.n_graphs)[index]
        return _Hopper(ptr, self.M[sel], self.attrs[sel], self.width[g])


class GraphHopper(Kernel):
    """GraphHopper kernel: compare the nodes that shortest paths visit.

    ``k(G, G') = sum over pairs of shortest paths (P, P') of equal length of
    sum_a k_node(P[a], P'[a])``: every pair of equally long shortest paths
    compares their nodes position by position with a kernel on the node
    attributes. Feragen et al. rewrite this per node pair::

        k(G, G') = sum_{v in G, v' in G'} <M(v), M(v')> k_node(x_v, x_v')

    where ``M(v)[a, b]`` counts the shortest paths with ``b`` edges that
    visit ``v`` as their ``a``-th node (all shortest paths between every
    ordered pair of nodes, and the path of length 0 from each node to
    itself). ``M`` is computed once per graph with one breadth-first search
    per node; with the linear node kernel the kernel has explicit features
    ``sum_v M(v)[a, b] x_v`` (one vector of attributes per ``(a, b)``).

    Parameters
    ----------
    node_attr : hashable, default="attributes"
        Node attribute holding a real vector (any length, the same for every
        node; a number counts as a vector of length 1), as written by
        :func:`structk.datasets.load_tu` from ``NAME_node_attributes.txt``.
    node_kernel : {"linear", "gaussian"}, default="linear"
        ``<x, x'>`` or ``exp(-gamma |x - x'|^2)``.
    gamma : float, default=1.0
        Width of the Gaussian node kernel (``> 0``); unused by the linear one.

    Notes
    -----
    Graphs must be undirected; edges count as length 1 (hop counts) and
    self-loops are ignored. A graph without nodes has kernel value 0 with
    every graph. The values equal GraKeL's ``GraphHopper`` with
    ``kernel_type="linear"`` and ``("gaussian", gamma)``.

    References
    ----------
    A. Feragen, N. Kasenburg, J. Petersen, M. de Bruijne and K. Borgwardt,
    "Scalable kernels for graphs with continuous attributes", NeurIPS 2013
    (Section 3).
    """

    def __init__(
        self, node_attr: Hashable = "attributes", node_kernel: str = "linear", gamma: float = 1.0
    ) -> None:
        self.node_attr = node_attr
        self.node_kernel = node_kernel
        self.gamma = gamma

    @property
    def has_features(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.node_kernel == "linear"

    def _check_params(self):
        if self.node_kernel not in _NODE_KERNELS:
            raise ValueError(
                f"node_kernel must be one of {_NODE_KERNELS}, got {self.node_kernel!r}"
            )
        check_scalar(self.gamma, "gamma", lower=0, lower_inclusive=False)

    # ------------------------------------------------------------ prepare
    # the graphs as WeisfeilerLehman(node_label=None) or ShortestPath(node_label=None)
    # parse them (shared in a composite)
    def _encoding_key(self):
        return ("graphs", None, None)

    def _encode(self, X, name):
        return parse_graphs(X, name)

    def _prepare_encoded(self, P, name):
        from ...algorithms.shortest_paths import hopper_weights

        if P.directed:
            raise ValueError(
                f"{name} holds directed graphs; GraphHopper takes undirected graphs "
                "(convert with G.to_undirected())"
            )
        M, depths = hopper_weights(P.node_ptr, P.adj_ptr, P.adj_idx)
        width = (depths + 1) * (depths + 2) // 2
        return _Hopper(P.node_ptr, M, _node_attributes(P, self.node_attr, name), width)

    def _take(self, P, index):
        return P.take(index)

    def _check_pair(self, P, Q):
        if P.attrs.shape[1] != Q.attrs.shape[1] and len(P.attrs) and len(Q.attrs):
            raise ValueError(
                f"node attribute {self.node_attr!r} has length {P.attrs.shape[1]} in X "
                f"but {Q.attrs.shape[1]} in Y"
            )

    # ------------------------------------------------------------- linear
    def _features(self, P, width=None):
        width = P.M.shape[1] if width is None else width
        d = P.attrs.shape[1]
        F = np.zeros((P.n_graphs, width, d))
        for g in range(P.n_graphs):  # sum over the nodes v of M(v) x_v'
            a, b = P.node_ptr[g], P.node_ptr[g + 1]
            F[g, : P.M.shape[1]] = P.M[a:b].T @ P.attrs[a:b]
        return F.reshape(P.n_graphs, width * d)

    def _cross(self, P, Q):
        if not (len(P.attrs) and len(Q.attrs)):
            return np.zeros((P.n_graphs, Q.n_graphs))
        if self.node_kernel == "linear":
            width = max(P.M.shape[1], Q.M.shape[1])
            return self._features(P, width) @ self._features(Q, width).T
        return self._gaussian(P, Q, symmetric=False)

    def _gram(self, P):
        if self.node_kernel == "linear":
            return super()._gram(P)
        return self._gaussian(P, P, symmetric=True)

    def _diag(self, P):
        if self.node_kernel == "linear":
            return super()._diag(P)
        out = np.empty(P.n_graphs)
        for g in range(P.n_graphs):
            a, b = P.node_ptr[g], P.node_ptr[g + 1]
            w = P.width[g]
            out[g] = self._block(P.M[a:b, :w], P.attrs[a:b], P.M[a:b, :w], P.attrs[a:b]).sum()
        return out

    # ----------------------------------------------------------- gaussian
    def _block(self, Ma, Xa, Mb, Xb):
        """Node-pair terms ``<M(v), M(v')> exp(-gamma |x_v - x_v'|^2)``."""
        W = Ma @ Mb.T
        sq = (
            np.einsum("ij,ij->i", Xa, Xa)[:, None]
            + np.einsum("ij,ij->i", Xb, Xb)[None, :]
            - 2.0 * (Xa @ Xb.T)
        )
        np.maximum(sq, 0.0, out=sq)
        return W * np.exp(-float(self.gamma) * sq)

    def _gaussian(self, P, Q, symmetric):
        K = np.zeros((P.n_graphs, Q.n_graphs))
        sizes_q = np.diff(Q.node_ptr)
        for g in range(P.n_graphs):
            a, b = P.node_ptr[g], P.node_ptr[g + 1]
            if a == b:
                continue
            first = g if symmetric else 0  # the upper triangle is enough
            c = Q.node_ptr[first]
            w = min(P.width[g], Q.M.shape[1])  # the counts of graph g end there
            S = self._block(P.M[a:b, :w], P.attrs[a:b], Q.M[c:, :w], Q.attrs[c:]).sum(axis=0)
            K[g, first:] = _segment_sums(S, sizes_q[first:])
        return K


def _segment_sums(values, sizes):
    out = np.zeros(len(sizes))
    nonempty = sizes > 0
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[nonempty]
    if len(starts):
        out[nonempty] = np.add.reduceat(values, starts)
    return out


def _node_attributes(P, attr, name):
    """The attribute vector of every node (rows in CSR node order), validated:
    present, real, finite, one length for all."""
    rows, dim, first = [], None, None
    for g, (G, order) in enumerate(zip(P.graphs, P.orders)):
        for v in order:
            data = G.nodes[v]
            if attr not in data:
                raise ValueError(
                    f"{name}[{g}]: node {v!r} has no attribute {attr!r} "
                    f"(node_attr={attr!r}; GraphHopper needs a real vector per node)"
                )
            value = data[attr]
            if isinstance(value, (bool, np.bool_, str, bytes)):
                x = None
            elif isinstance(value, numbers.Real):
                x = np.array([float(value)])
            else:
                try:
                    x = np.asarray(value, dtype=np.float64)
                except (TypeError, ValueError):
                    x = None
                if x is not None and (x.ndim != 1 or np.iscomplexobj(value)):
                    x = None
            if x is None:
                raise TypeError(
                    f"{name}[{g}]: node {v!r} has {attr}={value!r}; GraphHopper needs "
                    "a real number or a 1-D vector of reals"
                )
            if not np.isfinite(x).all():
                raise ValueError(f"{name}[{g}]: node {v!r} has a non-finite {attr}: {value!r}")
            if dim is None:
                dim, first = len(x), (g, v)
            elif len(x) != dim:
                raise ValueError(
                    f"{name}[{g}]: node {v!r} has {attr} of length {len(x)} but node "
                    f"{first[1]!r} of {name}[{first[0]}] has length {dim}"
                )
            rows.append(x)
    if not rows:
        return np.zeros((0, 0))
    return np.vstack(rows)
