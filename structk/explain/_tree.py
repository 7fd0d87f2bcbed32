"""A kernel expression as a linear function of its leaves' explicit features.

Sums, non-negative multiples, constants and cosine normalisations of
kernels with explicit features (the leaves) have the explicit feature map
``Phi(x) = concat over leaves of gamma_leaf(x) phi_leaf(x)``, where the
factor ``gamma_leaf(x)`` multiplies ``sqrt(c)`` for every ``c * k`` and
``1 / ||Phi_N(x)||`` for every ``Normalize`` node ``N`` on the way from the
root to the leaf (0 when that norm is 0, as :class:`Normalize` defines it).
The factors depend on the object only through the squared norms
``q_leaf(x) = ||phi_leaf(x)||^2`` of its leaves' feature vectors, so a
decision function ``f(x) = b + sum_i c_i k(x, s_i)`` is::

    f(x) = b + sum_leaf gamma_leaf(x) <W_leaf, phi_leaf(x)>,
    W_leaf = sum_i c_i gamma_leaf(s_i) phi_leaf(s_i),

exactly: linear in each leaf's features once ``gamma`` is fixed.
"""

from __future__ import annotations

import numpy as np

from ._occurrences import Occurrences


class NoExplicitFeaturesError(TypeError):
    """The model's kernel has no explicit feature map that explain can
    decompose (use :func:`structk.explain.ism` for sequences)."""


class ConstantLeaf:
    """``Constant(v)``: one feature ``sqrt(v)`` that covers no unit."""

    unit = None
    presence = False
    span = 1

    def __init__(self, kernel):
        self.kernel = kernel
        self.root = np.sqrt(float(kernel.value))

    def encode(self, X, name="X"):
        return len(X)

    def occurrences(self, n, base=None):
        return self._rows(int(n))

    def table(self, codes, offsets, base):
        return self._rows(len(offsets) - 1)

    def _rows(self, n):
        return Occurrences(
            np.zeros(n, np.int64),
            np.arange(n, dtype=np.int64),
            np.full((n, 1), -1, np.int64),
            np.full(n, self.root),
        )

    def names(self, keys, *context):
        return ["constant"] * len(keys)


def _leaf_for(kernel):
    from ..kernels.gapped_kmer import GappedKmer
    from ..kernels.graphs import ShortestPath, WeisfeilerLehman, WeisfeilerLehmanOptimalAssignment
    from ..kernels.strings import GappyPair, Mismatch, Spectrum, WeightedDegree
    from . import _gkm, _graphs, _sequences

    if isinstance(kernel, WeisfeilerLehmanOptimalAssignment):
        return _graphs.WLOptimalAssignmentLeaf
    table = [
        (Mismatch, _sequences.MismatchLeaf),
        (Spectrum, _sequences.SpectrumLeaf),
        (GappyPair, _sequences.GappyPairLeaf),
        (WeightedDegree, _sequences.WeightedDegreeLeaf),
        (GappedKmer, _gkm.GappedKmerLeaf),
        (WeisfeilerLehman, _graphs.WeisfeilerLehmanLeaf),
        (ShortestPath, _graphs.ShortestPathLeaf),
    ]
    for cls, leaf in table:
        if type(kernel) is cls:
            return leaf
    return None


def build(kernel):
    """``(tree, leaves)``: the expression as nested tuples ``("leaf", i)``,
    ``("sum", a, b)``, ``("scale", c, a)``, ``("norm", a)``, and the leaf
    objects. Raises :class:`NoExplicitFeaturesError` naming the part that
    has no explicit features or is not linear in them."""
    import copy

    from ..kernels.algebra import Constant, Normalize, Scaled, Sum

    leaves = []

    def walk(k):
        if isinstance(k, Sum):
            return ("sum", walk(k.k1), walk(k.k2))
        if isinstance(k, Scaled):
            return ("scale", float(k.factor), walk(k.kernel))
        if isinstance(k, Normalize):
            return ("norm", walk(k.kernel))
        if isinstance(k, Constant):
            leaves.append(ConstantLeaf(k))
            return ("leaf", len(leaves) - 1)
        if getattr(k, "normalize", False) is True:
            raw = copy.copy(k)
            raw.normalize = False
            return ("norm", walk(raw))
        leaf = _leaf_for(k)
        if leaf is None:
            raise NoExplicitFeaturesError(_why(k, kernel))
        leaves.append(leaf(k))
        return ("leaf", len(leaves) - 1)

    return walk(kernel), leaves


def _why(part, whole):
    where = "" if part is whole else f" (in {whole!r})"
    if getattr(part, "has_features", False):
        reason = (
            "its feature map is not a count of features that occur at "
            "positions or nodes of an object"
        )
    else:
        reason = "it has no explicit feature map"
    name = type(part).__name__
    if name in ("Power", "Product") or (name == "Exp" and part is not whole):
        reason = f"the decision function is not linear in the features of {name}'s inner kernel"
    return (
        f"{part!r}{where} cannot be decomposed into contributions: {reason}. "
        "For sequence models, structk.explain.ism(model, sequence) still gives "
        "the exact effect of every single-symbol substitution (by recomputing "
        "the decision function on each mutant)"
    )


def gammas(tree, Q):
    """``gamma_leaf`` for each leaf, given the leaves' squared norms ``Q``
    (a list of arrays of one shape)."""
    out = [None] * len(Q)
    shape = np.shape(Q[0])

    def norm2(node):
        kind = node[0]
        if kind == "leaf":
            return Q[node[1]]
        if kind == "sum":
            return norm2(node[1]) + norm2(node[2])
        if kind == "scale":
            return node[1] * norm2(node[2])
        return (norm2(node[1]) > 0).astype(np.float64)

    def down(node, factor):
        kind = node[0]
        if kind == "leaf":
            out[node[1]] = factor
        elif kind == "sum":
            down(node[1], factor)
            down(node[2], factor)
        elif kind == "scale":
            down(node[2], factor * np.sqrt(node[1]))
        else:
            q = norm2(node[1])
            inv = np.divide(1.0, np.sqrt(q), out=np.zeros(shape), where=q > 0)
            down(node[1], factor * inv)

    down(tree, np.ones(shape))
    return out
