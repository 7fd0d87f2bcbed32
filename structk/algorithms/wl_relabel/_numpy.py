"""Weisfeiler-Lehman relabelling in NumPy, for small batches of graphs.

The same 64-bit labels as the numba loop :func:`._numba.wl_relabel`
(the splitmix64 hash of the old label and the sorted multiset of the
neighbours' old labels), computed a whole batch at a time: one vectorised
pass per neighbour rank.
"""

from __future__ import annotations

import numpy as np

from ..hashing import GOLD, mix


def _const(value):
    """A uint64 constant as a 1-element array (array arithmetic wraps silently)."""
    return np.array([value], dtype=np.uint64)


def wl_relabel_numpy(keys0, node_ptr, adj_ptr, adj_idx, edge_keys, h):
    """Labels of every node for iterations 0..h; see
    :func:`structk.algorithms.wl_relabel.wl_relabel`."""
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
            nodes = by_degree[: n_above[k]]
            z[nodes] = mix(z[nodes] + nb[start[nodes] + k] * GOLD)
        keys[it] = mix(z ^ deg64)
    return keys
