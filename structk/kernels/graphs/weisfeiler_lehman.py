"""The Weisfeiler-Lehman subtree kernel (explicit sparse features).

References
----------
N. Shervashidze, P. Schweitzer, E. J. van Leeuwen, K. Mehlhorn and
K. M. Borgwardt, "Weisfeiler-Lehman graph kernels", Journal of Machine
Learning Research 12:2539-2561, 2011.
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_scalar
from ..base import Kernel
from ._encoding import check_same_direction, dense_ids, offsets, parse_graphs, ranges


class _Prepared(tuple):
    """``(node rows, label keys, n_graphs)`` of a collection, and ``directed``."""

    directed = False

    def with_direction(self, directed):
        self.directed = directed
        return self


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
    edge_label : hashable or None, default=None
        Edge attribute holding a label (e.g. the bond type of a molecule).
        When set, the neighbour multiset of a node holds one
        (edge label, neighbour label) pair per arc, so two neighbourhoods
        match only when their bonds match too. ``None`` ignores edge
        labels.

    Notes
    -----
    Compressed labels are 64-bit hashes of (iteration, label, sorted
    neighbour labels), not indices into a dictionary grown while reading
    the data, so a graph's features never depend on the other graphs in the
    batch and ``k(X, Y)`` needs no shared state: two different neighbourhoods
    get the same label with probability about 2^-64 per pair. The columns of
    :meth:`features` are the distinct labels of the collection passed (in
    hash order), so compare two collections with ``k(X, Y)``, which aligns
    them. Directed graphs use out-neighbours. With ``edge_label=None`` the
    values equal GraKeL's ``WeisfeilerLehman`` + ``VertexHistogram``, which
    has no edge labels.

    References
    ----------
    N. Shervashidze, P. Schweitzer, E. J. van Leeuwen, K. Mehlhorn and
    K. M. Borgwardt, "Weisfeiler-Lehman graph kernels", JMLR
    12:2539-2561, 2011 (Section 3.1).
    """

    _repr_always = ('h',)

    has_features = True

    def __init__(self, h=5, node_label="label", edge_label=None):
        self.h = h
        self.node_label = node_label
        self.edge_label = edge_label
        self._check_params()

    def _check_params(self):
        check_scalar(self.h, "h", lower=0, integer=True)

    def _prepare(self, X, name):
        P = parse_graphs(X, name, self.node_label, self.edge_label)
        keys0 = (P.node_keys if P.node_keys is not None
                 else np.zeros(P.node_ptr[-1], dtype=np.uint64))
        from ...algorithms.wl_relabel import wl_relabel

        edges = P.edge_keys if P.edge_keys is not None else np.zeros(0, dtype=np.uint64)
        keys = wl_relabel(keys0, P.node_ptr, P.adj_ptr, P.adj_idx, edges, int(self.h))
        rows = np.repeat(np.arange(P.n_graphs, dtype=np.int64), P.sizes())
        return _Prepared((rows, keys.ravel(), P.n_graphs)).with_direction(P.directed)

    def _check_pair(self, P, Q):
        check_same_direction(P, Q)

    def _take(self, P, index):
        rows, keys, n = P
        index = np.arange(n)[index]
        if not len(rows):  # only empty graphs
            return _Prepared((rows, keys, len(index))).with_direction(P.directed)
        sizes = np.bincount(rows, minlength=n)
        nodes = ranges(offsets(sizes)[index], sizes[index])
        keys = keys.reshape(-1, len(rows))[:, nodes].ravel()
        rows = np.repeat(np.arange(len(index), dtype=np.int64), sizes[index])
        return _Prepared((rows, keys, len(index))).with_direction(P.directed)

    def _features(self, P):
        return self._sparse(P, *dense_ids(P[1]))[0]

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
        cp, cq = dense_ids(P[1], Q[1])
        n_cols = int(max(cp.max(initial=-1), cq.max(initial=-1))) + 1
        F = self._sparse(P, cp, n_cols)[0]
        G = self._sparse(Q, cq, n_cols)[0]
        return (F @ G.T).toarray()
