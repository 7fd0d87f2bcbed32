"""Weisfeiler-Lehman relabelling: the two forms and the rule that picks one.

=======================  ====================================================
module                   what
=======================  ====================================================
:mod:`._numpy`           a whole batch at a time, one vectorised pass per
                         neighbour rank (NumPy)
:mod:`._numba`           node by node (numba)
:mod:`..hashing`         splitmix64, the hash both use (numba-free)
=======================  ====================================================

The features of both Weisfeiler-Lehman kernels come from here, for the
kernels and for the explanations of their models alike:
:func:`wl_relabel` gives the label of every node at every iteration (the
subtree kernel's features), :func:`assignment_occurrences` the optimal
assignment's (label, rank) features and the nodes they sit at.

:func:`wl_relabel` relabels batches of at most
``_tuning.WL_NUMPY_MAX_ENTRIES`` adjacency entries in NumPy, which needs
nothing compiled and for the graphs of a typical data set costs less than
loading the compiled loop into a fresh process; larger batches go to the
compiled loop. Both give the same 64-bit labels.

References
----------
N. Shervashidze, P. Schweitzer, E. J. van Leeuwen, K. Mehlhorn and
K. M. Borgwardt, "Weisfeiler-Lehman graph kernels", Journal of Machine
Learning Research 12:2539-2561, 2011.

N. M. Kriege, P.-L. Giscard and R. C. Wilson, "On valid optimal assignment
kernels and applications to graph classification", NeurIPS 29, 1623-1631,
2016 (the optimal assignment's features).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _tuning
from ..hashing import GOLD, mix
from ._numpy import wl_relabel_numpy


def wl_relabel(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h):
    """Labels of every node for iterations ``0..h``, shape ``(h + 1, n)``.

    The new label of a node hashes (iteration, its old label, the sorted
    multiset of its neighbours' old labels) to 64 bits, so it depends on the
    node's neighbourhood only, never on which other graphs are in the batch.
    With edge labels (``edge_keys``, one hash per CSR entry; ``None`` or
    empty for none) each neighbour enters the multiset as the pair
    (edge label, old label). ``keys0`` (one uint64 hash per node) ``None``
    starts every node with the same label.
    """
    if keys0 is None:
        keys0 = np.zeros(int(node_ptr[-1]), dtype=np.uint64)
    if edge_keys is None:
        edge_keys = np.zeros(0, dtype=np.uint64)
    _check_memory(h, keys0.shape[0])
    if adj_idx.shape[0] <= _tuning.WL_NUMPY_MAX_ENTRIES:
        return wl_relabel_numpy(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h)
    from ..._threads import cost_bounds, run_chunks
    from ._numba import wl_relabel as compiled

    # graphs in calls of about WL_CHUNK_WORK node and edge visits, so that a
    # Ctrl-C is answered between them (a node's labels depend on its graph only)
    keys = np.empty((int(h) + 1, keys0.shape[0]), np.uint64)
    visits = np.diff(node_ptr) + np.diff(adj_ptr[node_ptr])
    bounds = cost_bounds(visits * float(h), 1, _tuning.WL_CHUNK_WORK)
    run_chunks(
        lambda lo, hi: compiled(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, keys, lo, hi),
        bounds,
        1,
    )
    return keys


class Assignment(NamedTuple):
    """The optimal assignment's features of a batch: entry ``e`` is label
    ``labels[order[e]]`` of the flat labels (its node and iteration),
    ``rank[e]``-th of its graph's nodes with that label, and its feature
    ``keys[e]``, the hash of (label, rank)."""

    order: np.ndarray  # int64: positions in the flat labels, grouped by (graph, label)
    rank: np.ndarray  # int64: 0, 1, ... within each (graph, label) run
    keys: np.ndarray  # uint64: hash of (label, rank)


def assignment_occurrences(graph, labels):
    """The features of the Weisfeiler-Lehman optimal assignment kernel and
    where they occur.

    ``min(a, b)`` counts the ranks ``r < min(a, b)``, so the histogram
    intersection of two graphs' labels is the inner product of binary
    features, one per (label, rank ``r``) for every ``r`` below the number
    of the graph's nodes holding the label. ``labels`` holds the labels of
    every node at every iteration (:func:`wl_relabel`, flattened), ``graph``
    the graph of each; the entries are grouped by (graph, label), stably
    (iteration then node within a group), the ``r``-th of a group gets rank
    ``r`` and the feature key ``mix(mix(label ^ GOLD) + r GOLD)``. Returns
    an :class:`Assignment`.
    """
    graph = np.asarray(graph)
    labels = np.asarray(labels, dtype=np.uint64)
    order = np.lexsort((labels, graph))
    g, lab = graph[order], labels[order]
    start = np.ones(len(lab), dtype=bool)
    start[1:] = (g[1:] != g[:-1]) | (lab[1:] != lab[:-1])
    first = np.flatnonzero(start)
    run_first = np.repeat(first, np.diff(np.append(first, len(lab))))
    rank = np.arange(len(lab), dtype=np.int64) - run_first
    keys = mix(mix(lab ^ GOLD) + rank.astype(np.uint64) * GOLD)
    return Assignment(order.astype(np.int64), rank, keys)


#: Bytes per node and iteration that relabelling and the features built on
#: it hold at once (the labels, their sorted copy, the row ids).
_BYTES_PER_LABEL = 24


def _check_memory(h, n_nodes):
    """Refuse, before allocating, an ``h`` whose labels cannot fit in memory
    (``WeisfeilerLehman(h=10**9)`` would otherwise fail deep in NumPy or,
    in the compiled loop, run for hours)."""
    from ..._memory import available_memory

    need = (int(h) + 1) * int(n_nodes) * _BYTES_PER_LABEL
    available = available_memory()
    if available and need > available // 2:
        raise MemoryError(
            f"h={h}: the labels of {h + 1:,} iterations of {n_nodes:,} nodes take about "
            f"{need / 2**30:,.1f} GiB, more than half the {available / 2**30:.1f} GiB "
            f"available; colour refinement of {n_nodes:,} nodes stops splitting classes "
            f"within {max(n_nodes - 1, 0):,} iterations, and published WL results use h <= 10"
        )
