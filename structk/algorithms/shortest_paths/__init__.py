"""Shortest paths of the graph kernels: the paths, their feature keys and
counts, GraphHopper's weights.

=================  ==========================================================
module             what
=================  ==========================================================
this one           the public functions: :func:`path_list` (every shortest
                   path, where it runs and its feature key),
                   :func:`path_counts` (the delta kernel's sparse feature
                   rows), :func:`hopper_weights`; the chunks of graphs per
                   compiled call
:mod:`._numba`     hop (breadth-first) and weighted (Floyd-Warshall)
                   distances, the path list, the path keys and their counts
                   per graph, GraphHopper's weights (numba)
=================  ==========================================================

Compiled only. Called by :class:`structk.kernels.ShortestPath`,
:class:`structk.kernels.GraphHopper` and the explanations of shortest-path
models (:mod:`structk.explain`), which all take a path's feature key from
:func:`path_list` or :func:`path_counts`: the keys hash with
:mod:`structk.algorithms.hashing` in one place, :mod:`._numba`.

Graphs cross in as flat arrays: ``node_ptr`` (graph g owns nodes
``node_ptr[g]:node_ptr[g+1]``), a CSR adjacency over all nodes (``adj_ptr``
indexed by global node, ``adj_idx`` holding *local* successor indices),
optionally a uint64 label hash per node (``node_keys``, ``None``: every
node alike) and a positive weight per CSR entry (``weights``, ``None``:
every edge has length 1). Validation happens before.

References
----------
K. M. Borgwardt and H.-P. Kriegel, "Shortest-path kernels on graphs",
ICDM 2005, 74-81.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _tuning
from ..._threads import compiled_call


class Paths(NamedTuple):
    """The shortest paths of a batch of graphs, one entry per ordered pair
    ``(u, v)``, ``u != v``, ``v`` reachable from ``u``; graph g owns
    entries ``ptr[g]:ptr[g+1]``."""

    ptr: np.ndarray  # int64 (n_graphs + 1,)
    source: np.ndarray  # int64: u, local to its graph
    target: np.ndarray  # int64: v, local to its graph
    labels: np.ndarray  # uint64: hash of the ordered pair (label of u, label of v)
    lengths: np.ndarray  # float64: the path's length
    keys: np.ndarray  # uint64: the feature key of (label pair, length)


def path_list(node_ptr, adj_ptr, adj_idx, node_keys=None, weights=None):
    """Every shortest path of every graph, with its end nodes and its
    feature key (:class:`Paths`), from the all-pairs distances (one
    breadth-first search per node, or Floyd-Warshall per graph with
    ``weights``). The key of a path is the one :func:`path_counts` counts,
    so the delta kernel's feature of a graph is the count of its paths per
    key."""
    from ._numba import path_keys
    from ._numba import path_list as compiled

    keys = _node_keys(node_ptr, node_keys)
    if weights is None:
        from ._numba import hop_distances

        D, dptr = compiled_call(hop_distances, node_ptr, adj_ptr, adj_idx)
    else:
        from ._numba import weighted_distances

        D, dptr = compiled_call(weighted_distances, node_ptr, adj_ptr, adj_idx, weights)
    ptr, source, target, labels, lengths = compiled_call(compiled, D, dptr, node_ptr, keys)
    return Paths(ptr, source, target, labels, lengths, compiled_call(path_keys, labels, lengths))


def path_counts(node_ptr, adj_ptr, adj_idx, node_keys=None, weights=None):
    """The sparse feature rows of the shortest-path kernel with a delta on
    lengths: ``(ptr, keys, counts)``, graph g holding its distinct
    (label pair, length) keys ``keys[ptr[g]:ptr[g+1]]``, sorted, and how
    many of its paths have each.

    Hop lengths are counted straight from one breadth-first search per node
    (no distance matrix, no path list), in calls over groups of graphs of
    about ``_tuning.SP_CHUNK_WORK`` search steps (nodes x (nodes + arcs)
    per graph) so that a Ctrl-C is answered between them; a graph's counts
    do not depend on its group. Weighted lengths are counted from
    :func:`path_list`.
    """
    from ._numba import segment_counts

    keys = _node_keys(node_ptr, node_keys)
    if weights is not None:
        paths = path_list(node_ptr, adj_ptr, adj_idx, keys, weights)
        return compiled_call(segment_counts, paths.ptr, paths.keys)
    from ..._threads import cost_bounds, join_row_parts
    from ._numba import hop_path_counts

    nodes = np.diff(node_ptr).astype(np.float64)
    arcs = np.diff(adj_ptr[node_ptr]).astype(np.float64)
    bounds = cost_bounds(nodes * (nodes + arcs), 1, _tuning.SP_CHUNK_WORK)
    return join_row_parts(
        [
            compiled_call(hop_path_counts, node_ptr[lo : hi + 1], adj_ptr, adj_idx, keys)
            for lo, hi in zip(bounds[:-1], bounds[1:])
        ]
    )


def hopper_weights(node_ptr, adj_ptr, adj_idx):
    """GraphHopper's per-node path counts of undirected graphs: ``M[v, t(a,
    b)]``, the number of shortest paths with ``b`` edges that visit ``v``
    as their ``a``-th node (``t(a, b) = b (b + 1) / 2 + a``, up to the
    largest diameter in the batch), and each graph's diameter (its nodes
    use the first ``(d + 1)(d + 2) / 2`` columns)."""
    from ._numba import hop_distances
    from ._numba import hopper_weights as compiled

    D, dptr = compiled_call(hop_distances, node_ptr, adj_ptr, adj_idx)
    depths = np.zeros(len(node_ptr) - 1, dtype=np.int64)
    finite = np.flatnonzero(np.isfinite(D))
    graph = np.searchsorted(dptr, finite, side="right") - 1
    np.maximum.at(depths, graph, D[finite].astype(np.int64))
    M = compiled_call(compiled, node_ptr, adj_ptr, adj_idx, int(depths.max(initial=0)))
    return M, depths


def _node_keys(node_ptr, node_keys):
    """The label hash of every node; all zeros for unlabelled graphs."""
    if node_keys is None:
        return np.zeros(int(node_ptr[-1]), dtype=np.uint64)
    return node_keys
