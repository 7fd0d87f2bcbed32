"""Random walks on product graphs: the walks of pairs of graphs, on threads.

=================  ==========================================================
module             what
=================  ==========================================================
this one           :func:`pair_values`, the one entry: which form (spectral
                   or product graph), the arcs sorted by label, the chunks
                   of pairs and the threads (``_tuning.WALK_PARALLEL_WORK``,
                   ``WALK_CHUNKS_PER_THREAD``, ``WALK_CHUNK_WORK``), the
                   product layout (``WALK_PRODUCT_LAYOUT``) and the stopping
                   rule
:mod:`._numba`     the product-graph iterations (fixed point, conjugate
                   gradient, exponential and truncated series) in either
                   product layout, and the spectral form for unlabelled
                   undirected graphs (numba)
=================  ==========================================================

Compiled only. Called by :class:`structk.kernels.RandomWalk`, which
validates its parameters, checks the decay against the convergence region
and prepares each graph once (start and stop weights, spectral radii,
eigendecompositions).

References
----------
S. V. N. Vishwanathan, N. N. Schraudolph, R. Kondor and K. M. Borgwardt,
"Graph kernels", Journal of Machine Learning Research 11:1201-1242, 2010.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import _tuning

#: The kinds of walk kernel, in the order of the compiled loops' codes.
KINDS = ("geometric", "exponential", "truncated")
#: Relative residual at which the iterations stop, and their step limit.
TOL = 1e-13
MAXITER = 10000


class WalkBatch(NamedTuple):
    """A batch of graphs as the walks read it.

    ``node_ptr``, ``adj_ptr``, ``adj_idx``: graph g owns nodes
    ``node_ptr[g]:node_ptr[g+1]``, a CSR adjacency over all nodes with
    *local* successor indices; ``cls``: class (node-label id, shared with
    the other batch) per node, sorted within each graph so that every label
    is one contiguous block; ``elab``: edge-label id per CSR entry; ``p``,
    ``q``: start and stop weight per node; ``rho``, ``col``: per graph,
    bounds on the spectral radius and the largest column sum (in-degree)
    of the adjacency; ``mu``, ``w``: for the spectral form of unlabelled
    undirected graphs, each node's eigenvalue ``mu`` of its graph's
    adjacency ``U diag(mu) U^T`` and weight ``(U^T p) * (U^T q)``, else
    ``None``.
    """

    node_ptr: np.ndarray
    adj_ptr: np.ndarray
    adj_idx: np.ndarray
    cls: np.ndarray
    elab: np.ndarray
    p: np.ndarray
    q: np.ndarray
    rho: np.ndarray
    col: np.ndarray
    mu: np.ndarray | None = None
    w: np.ndarray | None = None


def pair_values(i, j, A, B, kind, lam, beta, weights, symmetric, same_pq, gradient=False):
    """Random-walk kernel values of the graph pairs ``(A[i[t]], B[j[t]])``.

    ``A``, ``B``: :class:`WalkBatch` (the same object for a Gram matrix);
    ``kind`` one of :data:`KINDS` with its ``lam`` (a decay inside the
    convergence region), ``beta`` or ``weights``; ``symmetric``: the graphs
    are undirected; ``same_pq``: start and stop weights are equal.

    Batches with eigendecompositions (``A.mu``) use the spectral form,
    O(n n') per pair; otherwise the product graph of each pair is iterated,
    restricted to label-matched node pairs, in the cheaper product layout.
    Pairs run in chunks of about equal cost (product vertices) on
    :func:`structk._threads.num_threads` threads, or inline for small jobs;
    a value depends only on its pair, so the result is the same bit for bit
    whatever the chunks and threads.

    ``gradient``: also each value's derivative in ``log lam`` (geometric)
    or ``log beta`` (exponential), from the same iterations: the series
    ``sum_t t c_t`` of the value's terms ``c_t``, ``lam x^T A_x x`` from the
    conjugate-gradient solve ``x`` (start = stop weights), ``lam x f(x)^2``
    or ``beta x f(x)`` per eigenvalue pair in the spectral form; held to
    the same relative tolerance as the value.

    Returns ``(values, failed)``, or ``(values, derivatives, failed)`` with
    ``gradient``: ``failed`` is the first ``t`` whose iteration did not
    converge within :data:`MAXITER` steps, else ``-1``.
    """
    from . import _numba as compiled

    code = KINDS.index(kind)
    lam, beta = float(lam), float(beta)
    weights = np.zeros(1) if weights is None else np.asarray(weights, dtype=np.float64)
    out = np.empty(len(i))
    dout = np.empty(len(i) if gradient else 0)
    # product vertices to visit; not np.dot, whose threaded BLAS call
    # leaves an OpenBLAS thread spinning on the core the walks need
    work = np.diff(A.node_ptr)[i].astype(np.float64) * np.diff(B.node_ptr)[j]
    if A.mu is not None and B.mu is not None:

        def spectral(lo, hi):
            compiled.spectral_pairs(
                i,
                j,
                A.node_ptr,
                A.mu,
                A.w,
                B.node_ptr,
                B.mu,
                B.w,
                code,
                lam,
                beta,
                weights,
                bool(gradient),
                lo,
                hi,
                out,
                dout,
            )

        _run_pairs(spectral, work / _tuning.WALK_SPECTRAL_COST)
        return (out, dout, -1) if gradient else (out, -1)
    n_el = max(1, int(max(A.elab.max(initial=0), B.elab.max(initial=0))) + 1)
    n_cls = int(max(A.cls.max(initial=0), B.cls.max(initial=0))) + 1
    GA = _walk_graphs(compiled, A, n_el, n_cls)
    GB = GA if B is A else _walk_graphs(compiled, B, n_el, n_cls)
    settings = compiled.WalkSettings(
        code,
        lam,
        beta,
        weights,
        n_el,
        bool(symmetric),
        bool(same_pq),
        TOL,
        MAXITER,
        _tuning.WALK_PRODUCT_LAYOUT,
        bool(gradient),
    )
    iters = np.empty(len(i), np.int64)
    max_a = int(np.diff(A.node_ptr).max(initial=0))
    max_b = int(np.diff(B.node_ptr).max(initial=0))

    def walks(lo, hi):
        compiled.walk_pairs(i, j, GA, GB, settings, max_a, max_b, lo, hi, out, dout, iters)

    _run_pairs(walks, work)
    failed = iters < 0
    first = int(np.argmax(failed)) if failed.any() else -1
    return (out, dout, first) if gradient else (out, first)


def _walk_graphs(compiled, A, n_el, n_cls):
    """A batch packed as the compiled loops read it (:class:`._numba.WalkGraphs`)."""
    return compiled.WalkGraphs(
        A.node_ptr,
        A.adj_ptr,
        A.adj_idx,
        A.elab,
        A.cls,
        A.p,
        A.q,
        A.rho,
        A.col,
        *_sorted_arcs(A, n_el, n_cls),
    )


def _sorted_arcs(A, n_el, n_cls):
    """Each graph's arcs sorted by the key (class of source, edge label,
    class of target), kept within the graph's CSR range: (keys, local
    sources, local targets)."""
    n_graphs = len(A.node_ptr) - 1
    src_global = np.repeat(np.arange(A.node_ptr[-1], dtype=np.int64), np.diff(A.adj_ptr))
    graph = np.repeat(np.arange(n_graphs, dtype=np.int64), np.diff(A.adj_ptr[A.node_ptr]))
    base = A.node_ptr[graph]
    key = (A.cls[src_global] * n_el + A.elab) * n_cls + A.cls[base + A.adj_idx]
    order = np.lexsort((key, graph))
    return (
        np.ascontiguousarray(key[order]),
        src_global[order] - base[order],
        np.ascontiguousarray(A.adj_idx[order]),
    )


def _run_pairs(fn, work):
    """``fn(lo, hi)`` over chunks of the pairs, whose costs (product
    vertices) are ``work``: inline below ``_tuning.WALK_PARALLEL_WORK`` in
    all, else on :func:`structk._threads.num_threads` threads,
    ``WALK_CHUNKS_PER_THREAD`` chunks each or more so that pairs of unequal
    cost keep the threads balanced; and no chunk of much more than
    ``WALK_CHUNK_WORK``, so that a Ctrl-C is answered between chunks. Every
    value depends only on its pair: the same for any chunks and thread count."""
    from ..._threads import cost_bounds, run_chunks, threads_for

    threads = threads_for(float(work.sum()), _tuning.WALK_PARALLEL_WORK)
    parts = 1 if threads == 1 else _tuning.WALK_CHUNKS_PER_THREAD * threads
    run_chunks(fn, cost_bounds(work, parts, _tuning.WALK_CHUNK_WORK), threads)
