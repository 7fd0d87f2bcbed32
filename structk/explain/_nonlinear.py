"""Kernels that are smooth functions of decomposable kernels.

``Exp(k)``, products ``k1 * k2``, powers ``k ** p``, and sums and multiples
of those, with ``k``, ``k1``, ``k2`` decomposable (:mod:`._tree`: sums,
multiples, constants and normalisations of kernels with explicit features),
define ``K(x, y) = F(k_1(x, y), ..., k_J(x, y))`` for a function ``F`` of
the *blocks* ``k_j``. The decision function ``f(x) = b + sum_i c_i F(k(x,
s_i))`` is not linear in the blocks' features ``Phi_j(x)``; its integrated
gradients along the straight path ``t Phi(x)``, ``t`` from 0 to 1 (M.
Sundararajan, A. Taly and Q. Yan, "Axiomatic attribution for deep
networks", ICML 2017) are. Each block is linear in its own features, so
``k_j(t Phi(x), s_i) = t k_j(x, s_i)``, and the attribution of block ``j``
is its linear decomposition with the object's own coefficients

    a_ij = c_i int_0^1 dF/dk_j(t k(x, s_i)) dt,

while ``f(0) = b + sum_i c_i F(0)`` goes to the bias. Completeness
(``sum_j a_ij k_j = c_i (F(k) - F(0))``) makes the scores sum, with that
bias, to ``f(x)``. The integrals are taken by composite Gauss-Legendre
quadrature, refined until that identity holds to ``1e-12`` relative for
every support vector (``F`` is a polynomial for products and powers: one
panel is exact then). ``GappedKmer(gamma=g)`` (the RBF form ``exp(g (K_n -
1))``) is ``exp(-g) Exp(g K_n)`` here.
"""

from __future__ import annotations

import copy

import numpy as np

from . import _tree
from ._tree import NoExplicitFeaturesError

#: Gauss-Legendre nodes per panel.
_NODES = 16
#: Relative error allowed in the completeness identity, and the largest
#: number of panels tried to reach it.
_TOL = 1e-12
_MAX_PANELS = 4096


def parse(kernel):
    """``(expr, blocks)`` for a kernel that is nonlinear in its blocks'
    features, ``None`` for a decomposable kernel (explained linearly).

    ``expr`` nests ``("block", j)``, ``("sum", a, b)``, ``("scale", c,
    a)``, ``("prod", a, b)``, ``("pow", p, a)``, ``("exp", a)``; ``blocks``
    are the decomposable kernels ``k_j``."""
    if _decomposable(kernel):
        return None
    blocks = []

    def walk(k):
        from ..kernels.algebra import Exp, Normalize, Power, Product, Scaled, Sum
        from ..kernels.gapped_kmer import GappedKmer

        if isinstance(k, Normalize) and not _decomposable(k.kernel):
            parse(k.kernel)  # raises when a part has no explicit features
            raise NoExplicitFeaturesError(_why_not(k, kernel))
        if _decomposable(k):
            blocks.append(k)
            return ("block", len(blocks) - 1)
        if isinstance(k, Sum):
            return ("sum", walk(k.k1), walk(k.k2))
        if isinstance(k, Scaled):
            return ("scale", float(k.factor), walk(k.kernel))
        if isinstance(k, Product):
            return ("prod", walk(k.k1), walk(k.k2))
        if isinstance(k, Power):
            return ("pow", int(k.exponent), walk(k.kernel))
        if isinstance(k, Exp):
            return ("exp", walk(k.kernel))
        if type(k) is GappedKmer and k.gamma is not None:
            g = float(k.gamma)
            plain = copy.copy(k)
            plain.gamma = None
            return ("scale", float(np.exp(-g)), ("exp", ("scale", g, walk(plain))))
        _tree.build(k)  # raises naming the part without explicit features
        raise NoExplicitFeaturesError(_why_not(k, kernel))  # pragma: no cover

    return walk(kernel), blocks


def _decomposable(kernel):
    from ..kernels.gapped_kmer import GappedKmer

    if type(kernel) is GappedKmer and kernel.gamma is not None:
        return False
    try:
        _tree.build(kernel)
    except NoExplicitFeaturesError:
        return False
    return True


def _why_not(part, whole):
    return (
        f"{part!r} (in {whole!r}) cannot be decomposed into contributions: "
        f"{type(part).__name__} of a kernel that is itself nonlinear in its "
        "features (a normalisation of a product, power or exponential) has no "
        "straight path from the zero vector along which its integrated "
        "gradients are defined. For sequence models, "
        "structk.explain.ism(model, sequence) still gives the exact effect of "
        "every single-symbol substitution (by recomputing the decision "
        "function on each mutant)"
    )


def evaluate(expr, values):
    """``(F, [dF/dk_j])`` at the block values ``values[j]`` (arrays of one
    shape); a gradient is ``None`` where ``F`` does not depend on block
    ``j``."""
    kind = expr[0]
    if kind == "block":
        v = values[expr[1]]
        grads = [None] * len(values)
        grads[expr[1]] = np.ones_like(v)
        return v, grads
    if kind == "sum":
        (a, ga), (b, gb) = evaluate(expr[1], values), evaluate(expr[2], values)
        return a + b, [_add(x, y) for x, y in zip(ga, gb)]
    if kind == "scale":
        a, ga = evaluate(expr[2], values)
        return expr[1] * a, [None if g is None else expr[1] * g for g in ga]
    if kind == "prod":
        (a, ga), (b, gb) = evaluate(expr[1], values), evaluate(expr[2], values)
        return a * b, [
            _add(None if x is None else b * x, None if y is None else a * y) for x, y in zip(ga, gb)
        ]
    if kind == "pow":
        p = expr[1]
        a, ga = evaluate(expr[2], values)
        outer = p * a ** (p - 1)
        return a**p, [None if g is None else outer * g for g in ga]
    a, ga = evaluate(expr[1], values)  # exp
    e = np.exp(a)
    return e, [None if g is None else e * g for g in ga]


def _add(x, y):
    if x is None:
        return y
    if y is None:
        return x
    return x + y


def path_coefficients(expr, K):
    """``A[j] = int_0^1 dF/dk_j(t K) dt`` (each ``(n_x, n_sv)``) for block
    values ``K[j]`` ``(n_x, n_sv)``, and ``F(0)``, by composite
    Gauss-Legendre quadrature refined until ``sum_j A[j] K[j] = F(K) -
    F(0)`` to ``1e-12`` relative."""
    J = len(K)
    full = evaluate(expr, K)[0]
    zero = evaluate(expr, [np.zeros_like(k) for k in K])[0]
    scale = np.maximum(np.abs(full - zero), np.abs(full)) + 1e-300
    x, w = np.polynomial.legendre.leggauss(_NODES)
    panels = 1
    while True:
        edges = np.linspace(0.0, 1.0, panels + 1)
        A = [np.zeros_like(k) for k in K]
        for lo, hi in zip(edges[:-1], edges[1:]):
            for xn, wn in zip(x, w):
                t = lo + (hi - lo) * (xn + 1.0) / 2.0
                grads = evaluate(expr, [t * k for k in K])[1]
                for j in range(J):
                    if grads[j] is not None:
                        A[j] += (hi - lo) / 2.0 * wn * grads[j]
        total = sum(a * k for a, k in zip(A, K))
        err = float(np.max(np.abs(total - (full - zero)) / scale, initial=0.0))
        if err <= _TOL or panels >= _MAX_PANELS:
            return A, zero, err
        panels *= 4


def gradient_at_zero(expr, n_blocks, shape):
    """``dF/dk_j`` at ``k = 0`` for each block (arrays of ``shape``)."""
    grads = evaluate(expr, [np.zeros(shape) for _ in range(n_blocks)])[1]
    return [np.zeros(shape) if g is None else g for g in grads]
