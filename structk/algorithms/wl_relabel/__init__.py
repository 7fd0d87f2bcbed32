"""Weisfeiler-Lehman relabelling: the two forms and the rule that picks one.

=======================  ====================================================
module                   what
=======================  ====================================================
:mod:`._numpy`           a whole batch at a time, one vectorised pass per
                         neighbour rank (NumPy)
:mod:`._numba`           node by node; and the optimal assignment's
                         occurrence keys (numba)
:mod:`..hashing`         splitmix64, the hash both use (numba-free)
=======================  ====================================================

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
"""

from __future__ import annotations

import numpy as np

from ... import _tuning
from ._numpy import wl_relabel_numpy


def wl_relabel(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h):
    """Labels of every node for iterations ``0..h``, shape ``(h + 1, n)``.

    The new label of a node hashes (iteration, its old label, the sorted
    multiset of its neighbours' old labels) to 64 bits, so it depends on the
    node's neighbourhood only, never on which other graphs are in the batch.
    With edge labels (``edge_keys``, one hash per CSR entry; empty for none)
    each neighbour enters the multiset as the pair (edge label, old label).
    """
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
    run_chunks(lambda lo, hi: compiled(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, keys,
                                       lo, hi), bounds, 1)
    return keys


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
