"""The shortest-path kernel (explicit sparse features with a delta on lengths).

References
----------
K. M. Borgwardt and H.-P. Kriegel, "Shortest-path kernels on graphs",
Proceedings of the Fifth IEEE International Conference on Data Mining
(ICDM), 74-81, 2005.
"""

from __future__ import annotations

from collections.abc import Hashable

from dataclasses import dataclass

import numpy as np

from ..._validation import check_scalar
from ...algorithms.sparse_gram import sparse_cross, sparse_gram
from ..base import Kernel
from ._encoding import check_same_direction, dense_ids, parse_graphs, take_segments

_LENGTH_KERNELS = ("delta", "brownian", "gaussian")


@dataclass
class _Paths:
    """The shortest paths of a batch of graphs, one entry per ordered pair
    ``(u, v)``, ``u != v``, ``v`` reachable from ``u``; graph g owns entries
    ``ptr[g]:ptr[g+1]``."""

    ptr: np.ndarray  # (n_graphs + 1,)
    labels: np.ndarray  # uint64 hash of (label of u, label of v)
    lengths: np.ndarray  # float64 path length
    directed: bool

    @property
    def n_graphs(self):
        return len(self.ptr) - 1

    def rows(self):
        return np.repeat(np.arange(self.n_graphs, dtype=np.int64), np.diff(self.ptr))

    def take(self, index):
        sel, ptr = take_segments(self.ptr, index)
        return _Paths(ptr, self.labels[sel], self.lengths[sel], self.directed)


@dataclass
class _Counts:
    """The sparse feature rows of the delta kernel: graph g holds the
    distinct (label pair, length) keys ``keys[ptr[g]:ptr[g+1]]`` (sorted)
    with their path counts."""

    ptr: np.ndarray
    keys: np.ndarray  # uint64
    counts: np.ndarray  # float64
    directed: bool

    def take(self, index):
        sel, ptr = take_segments(self.ptr, index)
        return _Counts(ptr, self.keys[sel], self.counts[sel], self.directed)

    def csr(self, cols, n_cols):
        import scipy.sparse as sp

        return sp.csr_matrix((self.counts, cols, self.ptr), shape=(len(self.ptr) - 1, n_cols))


class ShortestPath(Kernel):
    """Shortest-path kernel: compare all shortest paths of two graphs.

    Each graph is represented by its shortest paths, one per ordered pair of
    distinct nodes ``(u, v)`` with ``v`` reachable from ``u``: the labels of
    the endpoints and the length ``d(u, v)``. Two paths match when their
    endpoint labels are equal (in order) and their lengths are compared by
    ``length_kernel``::

        k(G, G') = sum_{(u, v) in G} sum_{(u', v') in G'}
                   [l(u) = l(u')] [l(v) = l(v')] k_len(d(u, v), d'(u', v'))

    With the default ``length_kernel="delta"`` this counts pairs of paths
    with equal endpoint labels and equal lengths: the explicit feature
    vector of a graph counts each (label, label, length) triple, and the
    Gram matrix is one sparse product (GraKeL's
    ``ShortestPath(with_labels=True)``).

    Parameters
    ----------
    node_label : hashable or None, default="label"
        Node attribute holding the label; ``None`` ignores labels (compare
        path lengths only).
    length_kernel : {"delta", "brownian", "gaussian"}, default="delta"
        Kernel on the two lengths: ``[d = d']``, the Brownian bridge
        ``max(0, length_scale - |d - d'|)`` (Borgwardt & Kriegel) or the
        Gaussian ``exp(-(d - d')^2 / (2 length_scale^2))``. All three are
        positive semi-definite on the real line, so the kernel is.
    length_scale : float, default=2.0
        ``c`` of the Brownian bridge, ``sigma`` of the Gaussian (``> 0``);
        unused by the delta kernel.
    edge_weight : hashable or None, default=None
        Edge attribute holding a positive, finite weight; the length of a
        path is then the sum of its weights (Floyd-Warshall per graph).
        ``None``: every edge has length 1 (breadth-first search per node).

    Notes
    -----
    All-pairs shortest paths are computed once per graph and call. Directed
    graphs use directed paths. A graph without edges (or nodes) has no
    paths and kernel value 0 with every graph. Weighted lengths are
    compared exactly by the delta kernel, so two paths of equal length
    summed in a different order may differ in the last bit; prefer integer
    weights or a smooth ``length_kernel`` for real-valued weights.

    References
    ----------
    K. M. Borgwardt and H.-P. Kriegel, "Shortest-path kernels on graphs",
    ICDM 2005, 74-81 (Section 4).
    """

    def __init__(
        self,
        node_label: Hashable | None = "label",
        length_kernel: str = "delta",
        length_scale: float = 2.0,
        edge_weight: Hashable | None = None,
    ) -> None:
        self.node_label = node_label
        self.length_kernel = length_kernel
        self.length_scale = length_scale
        self.edge_weight = edge_weight

    @property
    def has_features(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.length_kernel == "delta"

    @property
    def keyed_feature_columns(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        return self.has_features

    def _check_params(self):
        if self.length_kernel not in _LENGTH_KERNELS:
            raise ValueError(
                f"length_kernel must be one of {_LENGTH_KERNELS}, got {self.length_kernel!r}"
            )
        check_scalar(self.length_scale, "length_scale", lower=0, lower_inclusive=False)

    # ------------------------------------------------------------ prepare
    def _encoding_key(self):  # the graphs as WeisfeilerLehman parses them
        return ("graphs", self.node_label, None)

    def _encode(self, X, name):
        return parse_graphs(X, name, self.node_label)

    def _prepare_encoded(self, P, name):
        from ...algorithms.shortest_paths import path_counts, path_list

        weights = None if self.edge_weight is None else arc_weights(P, self.edge_weight, name)
        if self.length_kernel == "delta":
            return _Counts(
                *path_counts(P.node_ptr, P.adj_ptr, P.adj_idx, P.node_keys, weights), P.directed
            )
        paths = path_list(P.node_ptr, P.adj_ptr, P.adj_idx, P.node_keys, weights)
        return _Paths(paths.ptr, paths.labels, paths.lengths, P.directed)

    def _take(self, P, index):
        return P.take(index)

    def _check_pair(self, P, Q):
        check_same_direction(P, Q)

    # ------------------------------------------------------------- delta
    def _features(self, P):
        (cols,) = dense_ids(P.keys)
        F = P.csr(cols, int(cols.max(initial=-1)) + 1)
        F.sort_indices()
        return F

    def _feature_keys(self, P):
        return np.unique(P.keys)  # column c: the c-th smallest (labels, length) key

    def _gram(self, P):
        if self.length_kernel == "delta":
            return sparse_gram(self._features(P), jitted=True)
        F, _, B = self._smooth_parts(P, None)
        return (F @ B @ F.T).toarray()

    # ----------------------------------------------------------- general
    def _cross(self, P, Q):
        if self.length_kernel == "delta":
            cp, cq = dense_ids(P.keys, Q.keys)
            n_cols = int(max(cp.max(initial=-1), cq.max(initial=-1))) + 1
            return sparse_cross(P.csr(cp, n_cols), Q.csr(cq, n_cols), jitted=True)
        F, G, B = self._smooth_parts(P, Q)
        return (F @ B @ G.T).toarray()

    def _diag(self, P):
        if self.length_kernel == "delta":
            return super()._diag(P)
        F, _, B = self._smooth_parts(P, None)
        return np.asarray((F @ B).multiply(F).sum(axis=1)).ravel()

    def _smooth_parts(self, P, Q):
        """Counts of each (label pair, length) and the block-diagonal matrix
        of the length kernel within each label pair."""
        import scipy.sparse as sp

        parts = [P] if Q is None else [P, Q]
        labels = np.concatenate([R.labels for R in parts])
        lengths = np.concatenate([R.lengths for R in parts])
        cols = np.lexsort((lengths, labels))
        lab, length = labels[cols], lengths[cols]
        new = np.ones(len(cols), dtype=bool)
        new[1:] = (lab[1:] != lab[:-1]) | (length[1:] != length[:-1])
        column = np.cumsum(new) - 1
        col_of = np.empty(len(cols), dtype=np.int64)
        col_of[cols] = column
        n_cols = int(column[-1]) + 1 if len(column) else 0
        ulab, ulen = lab[new], length[new]
        starts = np.flatnonzero(np.r_[True, ulab[1:] != ulab[:-1]])
        stops = np.r_[starts[1:], len(ulab)]
        blocks = [self._length_gram(ulen[a:b]) for a, b in zip(starts, stops) if b > a]
        B = sp.block_diag(blocks, format="csr") if blocks else sp.csr_matrix((0, 0))
        sizes = np.cumsum([0] + [len(R.labels) for R in parts])
        mats = []
        for i, R in enumerate(parts):
            M = sp.csr_matrix(
                (np.ones(len(R.labels)), (R.rows(), col_of[sizes[i] : sizes[i + 1]])),
                shape=(R.n_graphs, n_cols),
            )
            M.sum_duplicates()
            mats.append(M)
        return mats[0], mats[-1], B

    def _length_gram(self, d):
        diff = np.abs(d[:, None] - d[None, :])
        c = float(self.length_scale)
        if self.length_kernel == "brownian":
            return np.maximum(0.0, c - diff)
        return np.exp(-0.5 * (diff / c) ** 2)


def arc_weights(P, attr, name):
    """The weight of each CSR arc, validated (positive, finite, real)."""
    w = np.empty(len(P.adj_idx), dtype=np.float64)
    for g, (G, order) in enumerate(zip(P.graphs, P.orders)):
        base = P.node_ptr[g]
        for i, u in enumerate(order):
            for k in range(P.adj_ptr[base + i], P.adj_ptr[base + i + 1]):
                v = order[P.adj_idx[k]]
                data = G.edges[u, v]
                if attr not in data:
                    raise ValueError(
                        f"{name}[{g}]: edge {(u, v)!r} has no attribute {attr!r} "
                        f"(edge_weight={attr!r}; pass edge_weight=None for unweighted "
                        "shortest paths)"
                    )
                value = data[attr]
                try:
                    x = float(value)
                except (TypeError, ValueError):
                    x = np.nan
                if isinstance(value, bool) or not np.isfinite(x) or x <= 0:
                    raise ValueError(
                        f"{name}[{g}]: edge {(u, v)!r} has {attr}={value!r}; shortest-path "
                        "weights must be positive finite numbers"
                    )
                w[k] = x
    return w
