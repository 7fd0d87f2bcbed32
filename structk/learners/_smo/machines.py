"""The binary machines of an SVM on one Gram matrix: blocks, threads, Platt.

A classifier with ``c`` classes is ``1`` (two classes), ``c`` (one-vs-rest)
or ``c (c - 1) / 2`` (one-vs-one) binary problems on the same Gram matrix.
:func:`problems` lists them; :func:`solve_machines` solves them all with
:func:`structk.learners._smo.solve` and, if asked, fits each one's Platt
sigmoid (:mod:`.platt`). Where each machine's Gram block lives:

==========================================  ================================
case                                        block
==========================================  ================================
binary, one-vs-rest                         the Gram itself (all rows)
one-vs-one, buffers small against the Gram  a copy per thread, machines on
                                            threads (the compiled solver
                                            releases the GIL)
one-vs-one, a buffer large against the      one buffer, one machine at a
Gram, Gram not owned                        time
one-vs-one, large blocks, Gram owned        the Gram permuted in place so
                                            that the block comes first: no
                                            second copy of most of the Gram
==========================================  ================================

"Owned" means the fit computed the Gram itself (or was handed it by
:func:`structk.learners._base.fit_with_gram`, whose caller gives it up): a
Gram that belongs to the caller is only ever read.

Results do not depend on the thread count or the order the machines run
in; Platt scaling runs the machines in order (its folds draw from one
random generator).
"""

from __future__ import annotations

import threading
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ... import _tuning, defaults
from ..._linalg import FrontBlocks, take_block
from ..._threads import run_chunks, small_blas, threads_for
from . import seed, solve_with_gradient, uses_start
from .platt import cv_decision_values, fit_sigmoid

#: Curvature used when ``K_ii + K_jj - 2 K_ij <= 0`` (indefinite or repeated points).
TAU = 1e-12


@dataclass(frozen=True)
class SMOOptions:
    """What every machine's solve shares: the box ``C`` (``inf`` for the
    squared hinge), the KKT tolerance, shrinking, the iteration limit per
    machine, and whether small machines run compiled from the start."""

    C: float
    tol: float
    shrinking: bool
    max_iter: int
    compiled_small: bool = False


@dataclass
class Solution:
    """One machine's dual solution on its rows of the training set;
    ``quadratic`` is ``alpha^T Q alpha`` (read from the solver's gradient)."""

    alpha: np.ndarray
    rho: float
    objective: float
    n_iter: int
    converged: bool
    quadratic: float


def problems(codes, n_classes, multi_class):
    """``(rows, signs)`` of each binary problem; ``rows=None`` means all
    objects. One machine for two classes (positive side ``classes_[1]``);
    per class for "ovr"; per pair ``(a, b)`` in lexicographic order for
    "ovo" (positive side ``a``)."""
    if n_classes == 2:
        return [(None, np.where(codes == 1, 1.0, -1.0))]
    if multi_class == "ovr":
        return [(None, np.where(codes == c, 1.0, -1.0)) for c in range(n_classes)]
    out = []
    for a, b in combinations(range(n_classes), 2):
        rows = np.flatnonzero((codes == a) | (codes == b))
        out.append((rows, np.where(codes[rows] == a, 1.0, -1.0)))
    return out


def solve_machines(K, machines, options, *, owned, starts=None, probability=False, rng=None):
    """Solve every binary problem of ``machines`` on the Gram ``K``.

    Returns ``(solutions, platt, order)``: a :class:`Solution` per machine,
    the Platt ``(A, B)`` per machine (``probability``; else empty), and the
    order of ``K``'s rows and columns after the solve (``slice(None)``
    unless an owned ``K`` was permuted in place: then ``K[i, j]`` is the
    original ``K[order[i], order[j]]``). ``starts``: per machine the
    ``|alpha|`` over all objects of a solution for another ``C``
    (:func:`structk.learners._smo.seed`), or ``None``.
    """
    n = K.shape[0]
    largest = max(len(signs) for _, signs in machines)
    # large machines (the compiled solver, which releases the GIL) run on
    # threads, with the same results in any order
    work = sum(len(signs) for _, signs in machines if len(signs) > defaults.SVM_NUMPY_MAX_N)
    threads = 1 if probability else threads_for(work, 2 * defaults.SVM_NUMPY_MAX_N)
    budget = _tuning.SVM_BLOCK_COPY_MAX_FRACTION * n * n
    front = None
    if machines[0][0] is not None and threads * largest**2 > budget:
        threads = 1  # one buffer, or none
        if largest**2 > budget and owned and K.flags.writeable:
            front = FrontBlocks(K)
    buffers = threading.local()

    def block(rows):
        if rows is None:
            return K
        if front is not None:
            return front.block(rows)
        m = len(rows)
        if m <= defaults.SVM_NUMPY_MAX_N:
            return take_block(K, rows)
        if not hasattr(buffers, "data"):
            buffers.data = np.empty(largest * largest)
        return take_block(K, rows, out=buffers.data[: m * m].reshape(m, m))

    def machine_solve(Ks, signs, start=None):
        alpha, G, *rest = solve_with_gradient(
            Ks,
            signs,
            options.C,
            options.tol,
            TAU,
            options.shrinking,
            options.max_iter,
            start,
            compiled_small=options.compiled_small,
        )
        # G = Q alpha - 1, so alpha^T Q alpha without another read of Ks
        return Solution(alpha, *rest, quadratic=float(alpha @ (G + 1.0)))

    solutions = [None] * len(machines)
    platt = []

    def run(lo, hi):
        for t in range(lo, hi):
            rows, signs = machines[t]
            Ks = block(rows)
            start = None
            if starts is not None and uses_start(len(signs), options.C, options.max_iter):
                s = starts[t] if rows is None else starts[t][rows]
                start = seed(Ks, signs, s, options.C)
            solutions[t] = machine_solve(Ks, signs, start)
            if probability:  # in order: the folds draw from one rng

                def cold(Kf, side):
                    sol = machine_solve(Kf, side)
                    return sol.alpha, sol.rho

                platt.append(fit_sigmoid(cv_decision_values(Ks, signs, cold, rng), signs))

    # the interior point factorises on one BLAS thread (small_blas); that
    # limit is process-wide and each holder restores what it saw on entry,
    # so with machines on threads the calling thread sets it for all of
    # them (else one machine leaving could lift it under another, or one
    # entering under another restore "one thread" for good)
    shared_limit = (
        small_blas(largest) if threads > 1 and largest <= defaults.SVM_IPM_MAX_N else nullcontext()
    )
    with shared_limit:
        run_chunks(run, list(range(len(machines) + 1)), threads)
    order = slice(None) if front is None else front.order
    return solutions, platt, order
