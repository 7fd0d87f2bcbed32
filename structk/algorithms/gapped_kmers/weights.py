"""Mismatch weights of the gapped k-mer kernels.

Every kernel of the family has the form

    K(x, y) = sum over l-mers a of x, b of y of  w[mm(a, b)]   (mm(a, b) <= d)

with ``mm`` the Hamming distance of two l-mers. Only the weight vector
``w[0..d]`` differs between the kinds:

``"count"``
    the gapped k-mer count kernel (gkm-SVM): two l-mers ``m`` positions apart
    share ``C(l - m, k)`` gapped k-mers (the k-subsets of their ``l - m``
    agreeing positions), so ``w[m] = C(l - m, k)``.
``"full"``
    the estimated l-mer kernel with the full filter: the l-mer count vector
    ``f`` is replaced by its least-squares estimate from the gapped k-mer
    counts, the orthogonal projection ``f_hat = P f`` onto the span of the
    gapped k-mer indicator functions. ``P`` is a function of the Hamming
    distance: on the Hamming scheme ``H(l, b)`` the span is the sum of the
    eigenspaces ``V_0 .. V_k``, so ``P[u, v] = g(mm(u, v))`` with
    ``g(m) = b^-l sum_{j <= k} K_j(m)`` (``K_j`` the Krawtchouk polynomials).
    Then ``<P f_x, P f_y> = f_x^T P f_y`` and ``w = g``.
``"truncated"``
    the estimated l-mer kernel with the truncated filter: ``g`` is set to 0
    from its first non-positive value on, and ``w[m] = (g_tr * g_tr)(m) =
    sum_u g_tr(mm(u, a)) g_tr(mm(u, b))`` for any ``a, b`` at distance ``m``
    (:func:`convolved_filter` counts the ``u`` by their agreements with ``a``
    and ``b``).

These are the weights LS-GKM computes (``calc_gkm_kernel_wt`` and
``calc_gkm_kernel_lmerest_wt``), derived here from the definitions above.

References
----------
M. Ghandi, D. Lee, M. Mohammad-Noori and M. A. Beer, "Enhanced regulatory
sequence prediction using gapped k-mer features", PLoS Computational Biology
10(7), 2014, e1003711.
D. Lee, "LS-GKM: a new gkm-SVM for large-scale datasets", Bioinformatics
32(14), 2016, 2196-2198.
"""

from __future__ import annotations

from math import comb, factorial

import numpy as np

KINDS = ("count", "full", "truncated")


def krawtchouk(j, m, l, b=4):
    """``K_j(m) = sum_i (-1)^i (b - 1)^(j - i) C(m, i) C(l - m, j - i)``."""
    return sum(
        (-1) ** i * (b - 1) ** (j - i) * comb(m, i) * comb(l - m, j - i) for i in range(j + 1)
    )


def lmer_filter(l, k, b=4):
    """``g(m)``, m = 0..l: the projection onto the gapped k-mer span as a
    function of the Hamming distance (the "full filter")."""
    return np.array(
        [sum(krawtchouk(j, m, l, b) for j in range(k + 1)) / b**l for m in range(l + 1)]
    )


def truncate_filter(g):
    """``g`` set to 0 from its first value that is not positive on."""
    out = np.array(g, dtype=np.float64)
    bad = np.flatnonzero(out <= 1e-50)
    if bad.size:
        out[bad[0] :] = 0.0
    return out


def convolved_filter(g, l, b=4):
    """``w(m) = sum_u g(mm(u, a)) g(mm(u, b'))`` for l-mers ``a, b'`` at
    distance ``m``, m = 0..l.

    Where ``a`` and ``b'`` agree (``l - m`` positions) ``u`` differs from both
    at ``s`` of them (``C(l - m, s) (b - 1)^s`` ways); where they differ ``u``
    equals ``a`` at ``p``, ``b'`` at ``q`` and neither at ``r`` positions
    (``m! / (p! q! r!) (b - 2)^r`` ways).
    """
    w = np.zeros(l + 1)
    for m in range(l + 1):
        total = 0.0
        for s in range(l - m + 1):
            agree = comb(l - m, s) * (b - 1) ** s
            for p in range(m + 1):
                for q in range(m - p + 1):
                    r = m - p - q
                    ways = factorial(m) // (factorial(p) * factorial(q) * factorial(r))
                    total += agree * ways * (b - 2) ** r * g[s + q + r] * g[s + p + r]
        w[m] = total
    return w


def mismatch_weights(l, k, d, kind, b=4):
    """The weights ``w[0..d]`` of the kernel ``kind`` (see the module docstring)."""
    if kind == "count":
        return np.array([float(comb(l - m, k)) for m in range(d + 1)])
    g = lmer_filter(l, k, b)
    if kind == "full":
        return g[: d + 1].copy()
    if kind == "truncated":
        return convolved_filter(truncate_filter(g), l, b)[: d + 1]
    raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


def lmer_eigenvalues(l, w, b=4):
    """Eigenvalues of the l-mer matrix ``[w(mm(u, v))]`` (``w`` padded with 0
    to length ``l + 1``), one per eigenspace ``V_j`` of the Hamming scheme.

    The kernel is positive semi-definite on all sequences exactly when none
    is negative.
    """
    full = np.zeros(l + 1)
    full[: len(w)] = w
    return np.array(
        [sum(full[m] * krawtchouk(m, j, l, b) for m in range(l + 1)) for j in range(l + 1)]
    )
