"""Weisfeiler-Lehman relabelling in NumPy, for small batches of graphs.

The same 64-bit labels as the numba loop :func:`structk._jit.graph_labels.wl_relabel`
(the splitmix64 hash of the old label and the sorted multiset of the
neighbours' old labels), computed a whole batch at a time: one vectorised
pass per neighbour rank. For the graphs of a typical data set it costs less
than loading the compiled loop into a fresh process;
``_tuning.WL_NUMPY_MAX_ENTRIES`` bounds the batches it is used for.
"""

from __future__ import annotations

import numpy as np

from ... import _tuning

# splitmix64 constants (structk._jit.graphs compiles mix() with them)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
GOLD = np.uint64(0x9E3779B97F4A7C15)


def mix(z):
    """splitmix64 finaliser of uint64 values (wrapping arithmetic): a
    bijection with good avalanche. NumPy arrays here; numba compiles the
    same function for scalars (structk._jit.graphs)."""
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


def _const(value):
    """A uint64 constant as a 1-element array (array arithmetic wraps silently)."""
    return np.array([value], dtype=np.uint64)


def wl_relabel_numpy(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h):
    """Labels of every node for iterations 0..h; see ``wl_relabel``."""
    n = keys0.shape[0]
    keys = np.empty((h + 1, n), np.uint64)
    keys[0] = keys0
    deg = np.diff(adj_ptr)
    owner = np.repeat(np.arange(n), deg)  # node of each adjacency entry
    base = np.repeat(node_ptr[:-1], np.diff(node_ptr))  # first node of each node's graph
    nbr = base[owner] + adj_idx  # global index of each neighbour
    with_edges = edge_keys.shape[0] > 0
    edge_salt = mix(_const(0x45444745) * GOLD)
    edge_hash = mix(edge_keys ^ edge_salt) if with_edges else None
    by_degree = np.argsort(-deg, kind="stable")
    # number of nodes of degree > k, for k = 0 .. max degree - 1
    max_deg = int(deg.max(initial=0))
    n_above = n - np.cumsum(np.bincount(deg, minlength=max_deg + 1))[:max_deg]
    start = adj_ptr[:-1]
    deg64 = deg.astype(np.uint64)
    for it in range(1, h + 1):
        salt = mix(_const(it) * GOLD)
        if with_edges:
            salt = mix(salt ^ edge_salt)
        prev = keys[it - 1]
        nb = prev[nbr]
        if with_edges:
            nb = mix(edge_hash + nb * GOLD)
        nb = nb[np.lexsort((nb, owner))]  # each node's multiset, sorted
        z = mix(salt ^ prev)
        for k in range(max_deg):
            nodes = by_degree[:n_above[k]]
            z[nodes] = mix(z[nodes] + nb[start[nodes] + k] * GOLD)
        keys[it] = mix(z ^ deg64)
    return keys


def wl_relabel(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h):
    """NumPy for small batches, the numba loop for large ones (equal labels)."""
    if adj_idx.shape[0] <= _tuning.WL_NUMPY_MAX_ENTRIES:
        return wl_relabel_numpy(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h)
    from ..._jit.graph_labels import wl_relabel as jitted

    return jitted(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h)
