"""Shrinking a failing pool of objects to a small witness.

Two steps, both keeping the failure beyond the tolerance it was found with:

1. :func:`reduce_indices` removes objects. Guided by the eigenspace of the
   smallest eigenvalue (the weight of object ``i`` is ``z_i^2`` for a simple
   eigenvalue with eigenvector ``z``), it first drops in bulk the objects
   with the smallest weights (largest bulk found by bisection), then one
   object at a time, best first (the removal that keeps the eigenvalue most
   negative), until no single removal keeps it below ``-tol``: the witness
   is minimal in that sense (no proper subset one removal away still fails).

   Every decision is taken so that the rounding of the BLAS kernel (which
   OpenBLAS picks by CPU) cannot change it: weights, not eigenvectors, whose
   sign and basis are arbitrary; weights within
   :data:`~structk.testing.verdict.WEIGHT_TIE` and eigenvalues within
   :data:`EIGENVALUE_TIE` of the matrix scale are ties, broken by position.
2. :func:`simplify_objects` makes the remaining objects simpler (shorter
   strings, smaller sets, vectors with zero or integer entries, graphs with
   fewer nodes and edges) while the failure persists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import time

import numpy as np

from .verdict import WEIGHT_TIE, min_eigenvalue, smallest_eigenspace, tie_order

#: One-at-a-time removal tries every object when the set is at most this large.
_BEST_FIRST = 80
#: Eigenvalues of candidate subsets closer than this fraction of ``||K||_F``
#: are ties (the first in order wins): rounding differs by ~1e-16 between CPUs.
EIGENVALUE_TIE = 1e-9


def _lam(K, idx):
    return min_eigenvalue(K[np.ix_(idx, idx)])


def reduce_indices(K: np.ndarray, tol: float) -> list[int]:
    """Indices of a small subset of ``K`` whose smallest eigenvalue stays below ``-tol``.

    Parameters
    ----------
    K : ndarray, shape (n, n)
        Symmetric, with smallest eigenvalue below ``-tol``.
    tol : float

    Returns
    -------
    list of int
        Sorted indices; no single one can be removed with the eigenvalue
        staying below ``-tol``.
    """
    idx = np.arange(K.shape[0])
    tie = EIGENVALUE_TIE * float(np.linalg.norm(K))
    # bulk removal of the objects the eigenspace barely uses
    while len(idx) > 2:
        order = tie_order(smallest_eigenspace(K[np.ix_(idx, idx)])[1], WEIGHT_TIE)
        lo, hi = 0, len(idx) - 1  # lo: removable count known to work
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _lam(K, np.sort(idx[order[mid:]])) < -tol:
                lo = mid
            else:
                hi = mid - 1
        if lo <= max(1, len(idx) // 16):
            break
        idx = np.sort(idx[order[lo:]])
    # one at a time
    while len(idx) > 1:
        order = tie_order(smallest_eigenspace(K[np.ix_(idx, idx)])[1], WEIGHT_TIE)
        best, best_lam = None, np.inf
        for pos in order:
            rest = np.delete(idx, pos)
            lam = _lam(K, rest)
            if lam < -tol and (best is None or lam < best_lam - tie):
                best, best_lam = pos, lam
                if len(idx) > _BEST_FIRST:
                    break
        if best is None:
            break
        idx = np.delete(idx, best)
    return [int(i) for i in idx]


def simpler(x: Any) -> Iterator[Any]:
    """Candidate simplifications of one object (possibly none)."""
    import networkx as nx

    if isinstance(x, str):
        for i in range(len(x)):
            yield x[:i] + x[i + 1 :]
        if x:
            c = min(x)
            for i, ch in enumerate(x):
                if ch != c:
                    yield x[:i] + c + x[i + 1 :]
    elif isinstance(x, (set, frozenset)):
        for e in sorted(x, key=repr):
            yield type(x)(x - {e})
    elif isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind == "f":
        for j in np.flatnonzero(x):
            y = x.copy()
            y[j] = 0.0
            yield y
        for j in np.flatnonzero(x != np.round(x)):
            y = x.copy()
            y[j] = np.round(x[j])
            yield y
    elif isinstance(x, nx.Graph):
        for v in list(x.nodes):
            g = x.copy()
            g.remove_node(v)
            yield nx.convert_node_labels_to_integers(g)
        for e in list(x.edges):
            g = x.copy()
            g.remove_edge(*e[:2])
            yield g


def simplify_objects(
    objects: list[Any],
    accept: Callable[[list[Any], int], bool],
    *,
    key: Callable[[Any], Any],
    time_limit: float = 10.0,
) -> tuple[list[Any], bool]:
    """Replace objects by simpler ones while ``accept`` says the failure persists.

    Parameters
    ----------
    objects : list
        The witness; modified copies are passed to ``accept``.
    accept : callable
        ``accept(candidate_list, i)`` returns True (and commits whatever
        state it keeps) when the candidate, which differs from the current
        list at position ``i``, still fails.
    key : callable
        Identity of an object, to keep the witness free of repeats.
    time_limit : float
        Seconds after which the current (valid) witness is returned.

    Returns
    -------
    objects : list
    finished : bool
        False when the time limit stopped the simplification.
    """
    objects = list(objects)
    start = time.perf_counter()
    changed = True
    while changed:
        changed = False
        for i in range(len(objects)):
            seen = {key(o) for j, o in enumerate(objects) if j != i}
            for y in simpler(objects[i]):
                if time.perf_counter() - start > time_limit:
                    return objects, False
                if key(y) in seen:
                    continue
                candidate = objects[:i] + [y] + objects[i + 1 :]
                if accept(candidate, i):
                    objects = candidate
                    changed = True
                    break
    return objects, True
