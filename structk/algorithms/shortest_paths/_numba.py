"""Shortest paths of the graph kernels: hop and weighted distances, path
keys and counts, GraphHopper weights (numba).

Graphs cross in as flat arrays: ``node_ptr`` (graph g owns
nodes ``node_ptr[g]:node_ptr[g+1]``) and a CSR adjacency over all nodes
(``adj_ptr`` indexed by global node, ``adj_idx`` holding *local* successor
indices). Validation (weights positive and finite, ...) happens in Python.
"""

import numpy as np
from numba import njit

from ... import _jit  # noqa: F401 - registers the first-compilation notice
from ..hashing import GOLD as _GOLD
from ..hashing import mix

_mix = njit(cache=True)(mix)  # splitmix64 compiled for scalars


@njit(cache=True)
def _bfs(base, n, adj_ptr, adj_idx, source, dist, queue):
    """Hop distances from local node ``source`` (-1: unreachable)."""
    for v in range(n):
        dist[v] = -1
    dist[source] = 0
    queue[0] = source
    head = 0
    tail = 1
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(adj_ptr[base + u], adj_ptr[base + u + 1]):
            v = adj_idx[k]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue[tail] = v
                tail += 1


@njit(cache=True)
def hop_distances(node_ptr, adj_ptr, adj_idx):
    """All-pairs hop distances, one BFS per node: for each graph its
    ``n x n`` matrix, flattened row-major at ``out[dptr[g]:dptr[g+1]]``
    (``dptr[g] = sum of n_h^2 over h < g``; ``inf``: unreachable)."""
    n_graphs = node_ptr.shape[0] - 1
    dptr = np.zeros(n_graphs + 1, np.int64)
    max_n = 0
    for g in range(n_graphs):
        n = node_ptr[g + 1] - node_ptr[g]
        dptr[g + 1] = dptr[g] + n * n
        max_n = max(max_n, n)
    out = np.empty(dptr[n_graphs], np.float64)
    dist = np.empty(max_n, np.int64)
    queue = np.empty(max_n, np.int64)
    for g in range(n_graphs):
        base = node_ptr[g]
        n = node_ptr[g + 1] - base
        for s in range(n):
            _bfs(base, n, adj_ptr, adj_idx, s, dist, queue)
            row = dptr[g] + s * n
            for v in range(n):
                out[row + v] = dist[v] if dist[v] >= 0 else np.inf
    return out, dptr


@njit(cache=True)
def weighted_distances(node_ptr, adj_ptr, adj_idx, weight):
    """All-pairs shortest-path lengths with positive arc weights (one per
    CSR entry), by Floyd-Warshall per graph; same layout and return values
    as :func:`hop_distances`."""
    n_graphs = node_ptr.shape[0] - 1
    dptr = np.zeros(n_graphs + 1, np.int64)
    for g in range(n_graphs):
        n = node_ptr[g + 1] - node_ptr[g]
        dptr[g + 1] = dptr[g] + n * n
    out = np.full(dptr[n_graphs], np.inf)
    for g in range(n_graphs):
        base = node_ptr[g]
        n = node_ptr[g + 1] - base
        D = out[dptr[g] : dptr[g + 1]].reshape((n, n))
        for u in range(n):
            D[u, u] = 0.0
            for k in range(adj_ptr[base + u], adj_ptr[base + u + 1]):
                v = adj_idx[k]
                if v != u and weight[k] < D[u, v]:
                    D[u, v] = weight[k]
        for m in range(n):
            for u in range(n):
                dum = D[u, m]
                if dum == np.inf:
                    continue
                for v in range(n):
                    alt = dum + D[m, v]
                    if alt < D[u, v]:
                        D[u, v] = alt
    return out, dptr


@njit(cache=True)
def _source_hash(key):
    """The hash of a path's first label; :func:`_pair_hash` adds the last."""
    return _mix(_mix(np.uint64(0x5350) * _GOLD) ^ key)


@njit(cache=True)
def _pair_hash(source, key):
    """The 64-bit hash of an ordered label pair (first label hashed by
    :func:`_source_hash`)."""
    return _mix(source + key * _GOLD)


@njit(cache=True)
def path_list(dist, dptr, node_ptr, keys):
    """The shortest paths as a list: one entry per ordered pair of distinct
    nodes ``(u, v)`` with ``v`` reachable from ``u`` (``0 < dist < inf``),
    graph by graph, ``u`` then ``v`` ascending. Returns the pointer (graph
    g owns ``ptr[g]:ptr[g+1]``), the local ``u`` and ``v`` of each path,
    the 64-bit hash of its ordered label pair ``(keys[u], keys[v])`` and
    its length."""
    n_graphs = node_ptr.shape[0] - 1
    ptr = np.zeros(n_graphs + 1, np.int64)
    for g in range(n_graphs):
        c = 0
        for p in range(dptr[g], dptr[g + 1]):
            if dist[p] > 0 and dist[p] < np.inf:
                c += 1
        ptr[g + 1] = ptr[g] + c
    source = np.empty(ptr[n_graphs], np.int64)
    target = np.empty(ptr[n_graphs], np.int64)
    labels = np.empty(ptr[n_graphs], np.uint64)
    lengths = np.empty(ptr[n_graphs], np.float64)
    for g in range(n_graphs):
        base = node_ptr[g]
        n = node_ptr[g + 1] - base
        i = ptr[g]
        for u in range(n):
            zu = _source_hash(keys[base + u])
            row = dptr[g] + u * n
            for v in range(n):
                d = dist[row + v]
                if d > 0 and d < np.inf:
                    source[i] = u
                    target[i] = v
                    labels[i] = _pair_hash(zu, keys[base + v])
                    lengths[i] = d
                    i += 1
    return ptr, source, target, labels, lengths


@njit(cache=True)
def _path_key(pair, length_bits):
    """The feature key of a path: its label-pair hash combined with the
    bits of its (float64) length."""
    return _mix(_mix(pair ^ _GOLD) + length_bits * _GOLD)


@njit(cache=True)
def path_keys(labels, lengths):
    """The feature key of each path (:func:`_path_key`) from its label-pair
    hash and its length."""
    keys = np.empty(labels.shape[0], np.uint64)
    bits = lengths.view(np.uint64)
    for i in range(keys.shape[0]):
        keys[i] = _path_key(labels[i], bits[i])
    return keys


@njit(cache=True)
def segment_counts(ptr, keys):
    """Distinct keys of each segment with their counts (the sparse feature
    rows). Returns (pointer, keys, counts), keys sorted within each
    segment."""
    n_seg = ptr.shape[0] - 1
    out_ptr = np.zeros(n_seg + 1, np.int64)
    out_keys = np.empty(keys.shape[0], np.uint64)
    counts = np.empty(keys.shape[0], np.float64)
    j = 0
    for g in range(n_seg):
        seg = np.sort(keys[ptr[g] : ptr[g + 1]])
        for t in range(seg.shape[0]):
            if t > 0 and seg[t] == seg[t - 1]:
                counts[j - 1] += 1.0
            else:
                out_keys[j] = seg[t]
                counts[j] = 1.0
                j += 1
        out_ptr[g + 1] = j
    return out_ptr, out_keys[:j], counts[:j]


@njit(cache=True)
def _grown(a, size):
    out = np.empty(size, a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _count_graph_paths(
    base, n, adj_ptr, adj_idx, keys, length_bits, stamp, t_key, t_cnt, t_stamp, used, dist, queue
):
    """Count the shortest paths of one graph by key in an open-addressing
    table (slots of this graph carry ``stamp``; keys are already mixed, so
    their low bits index the table). Returns the number of distinct keys
    (their slots in ``used``), or -1 when they would fill more than half of
    the table (the caller retries with a larger one)."""
    mask = t_key.shape[0] - 1
    limit = t_key.shape[0] // 2
    n_used = 0
    for s in range(n):
        _bfs(base, n, adj_ptr, adj_idx, s, dist, queue)
        zu = _source_hash(keys[base + s])
        for v in range(n):
            d = dist[v]
            if d <= 0:
                continue
            key = _path_key(_pair_hash(zu, keys[base + v]), length_bits[d])
            slot = np.int64(key & np.uint64(mask))
            while t_stamp[slot] == stamp and t_key[slot] != key:
                slot = (slot + 1) & mask
            if t_stamp[slot] == stamp:
                t_cnt[slot] += 1.0
            elif n_used == limit:
                return -1
            else:
                t_stamp[slot] = stamp
                t_key[slot] = key
                t_cnt[slot] = 1.0
                used[n_used] = slot
                n_used += 1
    return n_used


@njit(cache=True)
def hop_path_counts(node_ptr, adj_ptr, adj_idx, keys):
    """The sparse (label pair, hop length) counts of each graph, straight
    from one breadth-first search per node: the same (pointer, keys,
    counts) as :func:`segment_counts` of the :func:`path_keys` of
    :func:`path_list` of :func:`hop_distances`, without
    the all-pairs distance matrix or the list of paths. Each graph's paths
    are counted in a hash table; its distinct keys are then sorted."""
    n_graphs = node_ptr.shape[0] - 1
    max_n = 0
    for g in range(n_graphs):
        max_n = max(max_n, node_ptr[g + 1] - node_ptr[g])
    length_bits = np.arange(max_n + 1).astype(np.float64).view(np.uint64)
    dist = np.empty(max_n, np.int64)
    queue = np.empty(max_n, np.int64)
    cap = 1024  # table slots, a power of two
    t_key = np.empty(cap, np.uint64)
    t_cnt = np.empty(cap, np.float64)
    t_stamp = np.zeros(cap, np.int64)
    used = np.empty(cap // 2, np.int64)
    stamp = 0
    out_ptr = np.zeros(n_graphs + 1, np.int64)
    out_keys = np.empty(max(1024, 16 * n_graphs), np.uint64)
    out_counts = np.empty(out_keys.shape[0], np.float64)
    j = 0
    for g in range(n_graphs):
        base = node_ptr[g]
        n = node_ptr[g + 1] - base
        n_used = -1
        while n_used < 0:
            stamp += 1
            n_used = _count_graph_paths(
                base,
                n,
                adj_ptr,
                adj_idx,
                keys,
                length_bits,
                stamp,
                t_key,
                t_cnt,
                t_stamp,
                used,
                dist,
                queue,
            )
            if n_used < 0:  # table too small for this graph: a larger one
                cap *= 4
                t_key = np.empty(cap, np.uint64)
                t_cnt = np.empty(cap, np.float64)
                t_stamp = np.zeros(cap, np.int64)
                used = np.empty(cap // 2, np.int64)
        if j + n_used > out_keys.shape[0]:
            size = max(2 * out_keys.shape[0], j + n_used)
            out_keys = _grown(out_keys, size)
            out_counts = _grown(out_counts, size)
        found = np.empty(n_used, np.uint64)
        for t in range(n_used):
            found[t] = t_key[used[t]]
        found.sort()
        mask = cap - 1
        for t in range(n_used):
            key = found[t]
            slot = np.int64(key & np.uint64(mask))
            while t_stamp[slot] != stamp or t_key[slot] != key:
                slot = (slot + 1) & mask
            out_keys[j] = key
            out_counts[j] = t_cnt[slot]
            j += 1
        out_ptr[g + 1] = j
    return out_ptr, out_keys[:j], out_counts[:j]


@njit(cache=True)
def hopper_weights(node_ptr, adj_ptr, adj_idx, depth):
    """GraphHopper's per-node path counts, ``M[v, t(a, b)]``: the number of
    shortest paths (with multiplicity, over all ordered pairs of endpoints,
    including the path of length 0 from v to itself) that have ``b`` edges
    and visit v as their ``a``-th node, ``t(a, b) = b (b + 1) / 2 + a``,
    ``0 <= a <= b <= depth``. One breadth-first search per root: paths from
    the root to v (``sigma``) times paths down the shortest-path DAG from v
    (``des``)."""
    n_nodes = node_ptr[-1]
    width = (depth + 1) * (depth + 2) // 2
    M = np.zeros((n_nodes, width))
    max_n = 0
    for g in range(node_ptr.shape[0] - 1):
        max_n = max(max_n, node_ptr[g + 1] - node_ptr[g])
    dist = np.empty(max_n, np.int64)
    queue = np.empty(max_n, np.int64)
    sigma = np.empty(max_n)
    des = np.empty((max_n, depth + 1))
    for g in range(node_ptr.shape[0] - 1):
        base = node_ptr[g]
        n = node_ptr[g + 1] - base
        for root in range(n):
            _bfs(base, n, adj_ptr, adj_idx, root, dist, queue)
            reached = 0
            for v in range(n):
                sigma[v] = 0.0
                if dist[v] >= 0:
                    reached += 1
            sigma[root] = 1.0
            for i in range(reached):  # queue holds the BFS order
                u = queue[i]
                for k in range(adj_ptr[base + u], adj_ptr[base + u + 1]):
                    w = adj_idx[k]
                    if dist[w] == dist[u] + 1:
                        sigma[w] += sigma[u]
            for i in range(reached - 1, -1, -1):
                u = queue[i]
                des[u, 0] = 1.0
                for m in range(1, depth + 1):
                    des[u, m] = 0.0
                for k in range(adj_ptr[base + u], adj_ptr[base + u + 1]):
                    w = adj_idx[k]
                    if dist[w] == dist[u] + 1:
                        for m in range(depth):
                            des[u, m + 1] += des[w, m]
            for i in range(reached):
                u = queue[i]
                a = dist[u]
                for m in range(depth + 1 - a):
                    if des[u, m] == 0.0:
                        break
                    b = a + m
                    M[base + u, b * (b + 1) // 2 + a] += sigma[u] * des[u, m]
    return M
