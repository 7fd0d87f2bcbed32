"""The Weisfeiler-Lehman subtree kernel (explicit sparse features).

References
----------
N. Shervashidze, P. Schweitzer, E. J. van Leeuwen, K. Mehlhorn and
K. M. Borgwardt, "Weisfeiler-Lehman graph kernels", Journal of Machine
Learning Research 12:2539-2561, 2011.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from ..._validation import check_scalar
from ...algorithms.sparse_gram import sparse_cross, sparse_gram
from ..base import Kernel, _row_sq_norms
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
    get the same label with probability about 2^-62 per pair. Column ``c``
    of :meth:`features` (a CSR matrix with 2^62 columns) counts the label
    whose hash is ``4 c`` to ``4 c + 3``, in every collection, so
    ``features(X) @ features(Y).T`` equals ``k(X, Y)``; the Gram matrices
    are computed from the same counts by structk's sparse product
    (:mod:`structk.algorithms.sparse_gram`); SciPy's own product of such
    matrices needs arrays as long as the column space, so renumber the
    columns present first. Directed graphs use out-neighbours. With
    ``edge_label=None`` the values equal GraKeL's ``WeisfeilerLehman`` +
    ``VertexHistogram``, which has no edge labels.

    References
    ----------
    N. Shervashidze, P. Schweitzer, E. J. van Leeuwen, K. Mehlhorn and
    K. M. Borgwardt, "Weisfeiler-Lehman graph kernels", JMLR
    12:2539-2561, 2011 (Section 3.1).
    """

    _repr_always = ("h",)

    has_features = True
    #: the columns are label hashes (``_feature_keys``: the index is the key)
    keyed_feature_columns = True

    def __init__(
        self, h: int = 5, node_label: Hashable | None = "label", edge_label: Hashable | None = None
    ) -> None:
        self.h = h
        self.node_label = node_label
        self.edge_label = edge_label

    def _check_params(self):
        check_scalar(self.h, "h", lower=0, integer=True)

    # WL, ShortestPath and RandomWalk share the parsed graphs when they read the
    # same node (and edge) labels: WeisfeilerLehman() + RandomWalk() parses once
    def _encoding_key(self):
        return ("graphs", self.node_label, self.edge_label)

    def _encode(self, X, name):
        return parse_graphs(X, name, self.node_label, self.edge_label)

    def _prepare_encoded(self, P, name):
        from ...algorithms.wl_relabel import wl_relabel

        keys = wl_relabel(P.node_keys, P.node_ptr, P.adj_ptr, P.adj_idx, P.edge_keys, int(self.h))
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
        F = label_counts(P, label_columns(P[1]), COLUMNS)
        F.sort_indices()  # canonical CSR for users; Gram matrices skip this
        return F

    # the Gram matrices are structk's sparse product of the same counts, on
    # the labels present numbered 0..L-1 (the same columns, renumbered)
    def _gram(self, P):
        (cols,) = dense_ids(label_columns(P[1]))
        return sparse_gram(label_counts(P, cols))

    def _cross(self, P, Q):
        cp, cq = dense_ids(label_columns(P[1]), label_columns(Q[1]))
        n_cols = int(max(cp.max(initial=-1), cq.max(initial=-1))) + 1
        return sparse_cross(label_counts(P, cp, n_cols), label_counts(Q, cq, n_cols))

    def _diag(self, P):
        (cols,) = dense_ids(label_columns(P[1]))
        return _row_sq_norms(label_counts(P, cols))


#: Columns of the feature map: a label's column is its 64-bit hash without
#: the two low bits, so it is the same in every collection (the k-mer
#: kernels' bound, int64 indices below 2^62).
COLUMNS = 2**62


def label_columns(keys):
    """The feature columns of uint64 label hashes."""
    return (np.asarray(keys, dtype=np.uint64) >> np.uint64(2)).astype(np.int64)


def label_counts(P, cols, n_cols=None):
    """CSR counts of the labels of prepared graphs ``P`` in columns ``cols``
    (one per node and iteration)."""
    import scipy.sparse as sp

    rows, keys, n = P
    n_cols = int(cols.max(initial=-1)) + 1 if n_cols is None else n_cols
    F = sp.csr_matrix(
        (np.ones(len(cols)), (np.tile(rows, len(keys) // max(len(rows), 1)), cols)),
        shape=(n, n_cols),
    )
    F.sum_duplicates()
    return F
