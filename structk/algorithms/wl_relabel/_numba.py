"""Weisfeiler-Lehman relabelling (numba).

Graphs cross in as flat arrays: ``node_ptr`` per graph, a CSR adjacency over
all nodes with *local* successor indices, and one edge-label hash per CSR
entry.
"""

import numpy as np
from numba import njit

from ... import _jit  # noqa: F401 - registers the first-compilation notice
from ..hashing import GOLD as _GOLD
from ..hashing import mix

_mix = njit(cache=True)(mix)  # splitmix64 compiled for scalars


@njit(cache=True, nogil=True)
def wl_relabel(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, keys, g0, g1):
    """Weisfeiler-Lehman labels of the nodes of graphs ``g0 .. g1 - 1`` for
    iterations ``0..h`` into their columns of ``keys``, shape ``(h + 1, n)``.

    The new label of v hashes (iteration, old label of v, sorted multiset of
    its neighbours' old labels) to 64 bits, so it depends on the node's
    neighbourhood only, never on which other graphs are in the batch (or in
    the call). With edge labels (``edge_keys``, one per CSR entry; empty for
    none) each neighbour enters the multiset as the pair (edge label, old
    label).
    """
    h = keys.shape[0] - 1
    keys[0, node_ptr[g0] : node_ptr[g1]] = keys0[node_ptr[g0] : node_ptr[g1]]
    with_edges = edge_keys.shape[0] > 0
    edge_salt = _mix(np.uint64(0x45444745) * _GOLD)
    for it in range(1, h + 1):
        salt = _mix(np.uint64(it) * _GOLD)
        if with_edges:
            salt = _mix(salt ^ edge_salt)
        for g in range(g0, g1):
            base = node_ptr[g]
            for v in range(base, node_ptr[g + 1]):
                start = adj_ptr[v]
                deg = adj_ptr[v + 1] - start
                nb = np.empty(deg, np.uint64)
                for k in range(deg):
                    nb[k] = keys[it - 1, base + adj_idx[start + k]]
                    if with_edges:
                        e = _mix(edge_keys[start + k] ^ edge_salt)
                        nb[k] = _mix(e + nb[k] * _GOLD)
                nb.sort()
                z = _mix(salt ^ keys[it - 1, v])
                for k in range(deg):
                    z = _mix(z + nb[k] * _GOLD)
                keys[it, v] = _mix(z ^ np.uint64(deg))
    return keys
