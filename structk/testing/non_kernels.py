"""Plausible similarities that are NOT kernels, each with its counterexample found by the kit.

They are the kit's own test cases (every one is found by
:func:`~structk.testing.check_kernel` with its default settings) and a
reminder of how easily a natural similarity fails to be positive
semi-definite. Each is a plain function ``f(x, y)``; wrap it in
:class:`~structk.kernels.FunctionKernel`, or check it from the command
line: ``structk check-kernel structk.testing.non_kernels:exp_edit --objects strings:ab``.

=========================  ================  ==================================
function                   objects           what fails
=========================  ================  ==================================
``neg_sq_dist``            vectors           a negative eigenvalue (2 points)
``sigmoid``                vectors           ``k(0, 0) = tanh(-1) < 0``
``exp_cubed_dist``         vectors           a negative eigenvalue
``truncated_overlap``      sets              a negative eigenvalue
``containment``            sets              asymmetry
``overlap_coefficient``    sets              a negative eigenvalue
``exp_edit``               strings           a negative eigenvalue
``common_substring``       strings           a negative eigenvalue
``common_subsequence``     strings           a negative eigenvalue
``max_nodes``              graphs            a negative eigenvalue
=========================  ================  ==================================
"""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import networkx as nx


def neg_sq_dist(x: np.ndarray, y: np.ndarray) -> float:
    """``-||x - y||^2``: a conditionally, not a positive, definite function."""
    return -float(np.sum((x - y) ** 2))


def sigmoid(x: np.ndarray, y: np.ndarray) -> float:
    """``tanh(x . y - 1)``: the "sigmoid kernel" with a negative offset."""
    return math.tanh(float(x @ y) - 1.0)


def exp_cubed_dist(x: np.ndarray, y: np.ndarray) -> float:
    """``exp(-||x - y||^3)``: ``exp(-||x - y||^p)`` is a kernel only for ``p <= 2``."""
    return math.exp(-(float(np.sqrt(np.sum((x - y) ** 2))) ** 3))


def truncated_overlap(a: AbstractSet[Any], b: AbstractSet[Any]) -> int:
    """``max(0, |A & B| - 1)``: the overlap is a kernel, truncating it breaks it."""
    return max(0, len(a & b) - 1)


def containment(a: AbstractSet[Any], b: AbstractSet[Any]) -> float:
    """``|A & B| / |A|``: how much of A is in B. Asymmetric (and undefined for empty A)."""
    return len(a & b) / len(a)


def overlap_coefficient(a: AbstractSet[Any], b: AbstractSet[Any]) -> float:
    """Szymkiewicz-Simpson ``|A & B| / min(|A|, |B|)`` (1 when either is empty)."""
    m = min(len(a), len(b))
    return len(a & b) / m if m else 1.0


def levenshtein(s: str, t: str) -> int:
    """Edit distance (unit-cost insertions, deletions, substitutions)."""
    row = list(range(len(t) + 1))
    for i, a in enumerate(s, 1):
        diag, row[0] = row[0], i
        for j, b in enumerate(t, 1):
            diag, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diag + (a != b))
    return row[len(t)]


def exp_edit(s: str, t: str) -> float:
    """``exp(-levenshtein(s, t))``: the best-known non-PSD string similarity."""
    return math.exp(-levenshtein(s, t))


def common_substring(s: str, t: str) -> int:
    """Length of the longest common substring (contiguous)."""
    best, prev = 0, [0] * (len(t) + 1)
    for a in s:
        cur = [0] * (len(t) + 1)
        for j, b in enumerate(t, 1):
            if a == b:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def common_subsequence(s: str, t: str) -> int:
    """Length of the longest common subsequence (not necessarily contiguous)."""
    prev = [0] * (len(t) + 1)
    for a in s:
        cur = [0] * (len(t) + 1)
        for j, b in enumerate(t, 1):
            cur[j] = prev[j - 1] + 1 if a == b else max(prev[j], cur[j - 1])
        prev = cur
    return prev[len(t)]


def max_nodes(g: nx.Graph, h: nx.Graph) -> int:
    """``max(|V(G)|, |V(H)|)``: the minimum is a kernel, the maximum is not."""
    return max(g.number_of_nodes(), h.number_of_nodes())
