"""Checks shared by the kernel tests."""

import numpy as np


def feature_product(F, G=None):
    """``F @ G.T`` (``G = F`` when omitted) as a dense array, over the columns
    either matrix holds: SciPy's own product allocates arrays as long as the
    column space, 2^62 for the WeisfeilerLehman kernels' hashed labels."""
    import scipy.sparse as sp

    G = F if G is None else G
    if not sp.issparse(F):
        return np.asarray(F @ G.T)
    F, G = sp.csr_matrix(F), sp.csr_matrix(G)
    cols, inverse = np.unique(np.concatenate([F.indices, G.indices]), return_inverse=True)
    inverse = inverse.ravel()
    shape = len(cols) + 1
    F = sp.csr_matrix((F.data, inverse[: F.nnz], F.indptr), shape=(F.shape[0], shape))
    G = sp.csr_matrix((G.data, inverse[F.nnz :], G.indptr), shape=(G.shape[0], shape))
    return (F @ G.T).toarray()


def assert_matches_reference(k, X, R, rows, cols, split=3, tol=1e-12):
    """``k``'s Gram, cross-Gram (``X[:split]`` against the rest), diagonal,
    and the cross-Gram of blocks of its prepared data (objects ``rows``
    against objects ``cols``, as blockwise evaluation slices them) all
    equal the reference Gram ``R`` of ``X`` up to ``tol``."""

    def close(a, b):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)

    close(k(X), R)
    close(k(X[:split], X[split:]), R[:split, split:])
    close(k.diag(X), np.diag(R))
    P = k.prepare(X, "X")
    close(k.cross_prepared(k.take(P, rows), k.take(P, cols)), R[rows][:, cols])


def random_labelled_graphs(n, seed, min_nodes, max_nodes, p, n_labels):
    """``n`` networkx G(n, p) graphs of ``min_nodes .. max_nodes - 1`` nodes
    with integer node labels below ``n_labels`` under ``"label"``."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    out = []
    for s in range(n):
        G = nx.gnp_random_graph(int(rng.integers(min_nodes, max_nodes)), p, seed=s)
        nx.set_node_attributes(G, {v: int(rng.integers(n_labels)) for v in G}, "label")
        out.append(G)
    return out
