"""The Weisfeiler-Lehman optimal assignment kernel (explicit sparse features).

References
----------
N. M. Kriege, P.-L. Giscard and R. C. Wilson, "On valid optimal assignment
kernels and applications to graph classification", Advances in Neural
Information Processing Systems 29 (NeurIPS), 1623-1631, 2016.
"""

from __future__ import annotations

import numpy as np

from .weisfeiler_lehman import WeisfeilerLehman, _Prepared


class WeisfeilerLehmanOptimalAssignment(WeisfeilerLehman):
    """Weisfeiler-Lehman optimal assignment kernel (explicit sparse features).

    The optimal assignment of the nodes of two graphs under the
    Weisfeiler-Lehman hierarchy: node ``v`` of ``G`` and ``v'`` of ``G'``
    are similar by the number of iterations ``0 .. h`` at which their
    labels agree, and the kernel is the value of the best one-to-one
    assignment of the nodes. Because that similarity comes from a hierarchy
    (the WL labels of iteration ``t`` refine those of ``t - 1``), the
    optimal assignment equals a histogram intersection and is a valid
    kernel (Kriege et al., Theorem 2)::

        k(G, G') = sum over iterations t and labels c of
                   min(#nodes of G with label c at t, same for G')

    ``min(a, b)`` is the number of ``r < min(a, b)``, so the features are
    binary, one per (label, occurrence rank ``r``) present in the graph, and
    the Gram matrix is one sparse product. With unit weights on the
    hierarchy, as here, this is GraKeL's
    ``WeisfeilerLehmanOptimalAssignment(n_iter=h)``.

    Parameters
    ----------
    h : int, default=5
        Number of relabelling iterations (``>= 0``; ``h = 0`` is the
        intersection of the vertex label histograms).
    node_label : hashable or None, default="label"
        Node attribute holding the initial label; ``None`` starts every node
        with the same label.
    edge_label : hashable or None, default=None
        Edge attribute whose label joins each neighbour's label in the
        relabelling (see :class:`WeisfeilerLehman`); ``None`` ignores edge
        labels.

    Notes
    -----
    Labels are the 64-bit hashes of :class:`WeisfeilerLehman`, so a graph's
    features never depend on the other graphs passed: the columns of
    :meth:`features` are the (label, rank) pairs' hashes, as for
    :class:`WeisfeilerLehman`, and ``features(X) @ features(Y).T`` equals
    ``k(X, Y)``.

    References
    ----------
    N. M. Kriege, P.-L. Giscard and R. C. Wilson, "On valid optimal
    assignment kernels and applications to graph classification",
    NeurIPS 2016 (Sections 3 and 4).
    """

    def _prepare_encoded(self, E, name):
        from ...algorithms.wl_relabel import assignment_occurrences

        P = super()._prepare_encoded(E, name)
        rows, keys, n = P
        rows = np.tile(rows, len(keys) // max(len(rows), 1))
        features = assignment_occurrences(rows, keys)
        return _Prepared((rows[features.order], features.keys, n)).with_direction(P.directed)
