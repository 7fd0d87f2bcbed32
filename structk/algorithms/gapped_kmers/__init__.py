"""The gapped k-mer kernels' algorithm: l-mers of each sequence and the
weighted sum over their pairs within ``d`` mismatches.

================  ==========================================================
``weights``       the mismatch weights of each kind (count, estimated l-mer
                  with full or truncated filter) and the level coefficients
``_numpy``        NumPy form: l-mers and the all-pairs sum, for small batches
                  and as the reference of the compiled loops
``_numba``        compiled forms: all pairs (:func:`~._numba.pairs_block`)
                  and counting over deleted positions
                  (:func:`~._numba.subsets_block`)
================  ==========================================================

:func:`choose` is the size rule between the forms; its numbers are
``GKM_PAIRS_PER_SUBSET_ENTRY`` and ``GKM_NUMPY_MAX_PAIRS`` in
:mod:`structk._tuning`.
"""

from __future__ import annotations

from math import comb

from ... import _tuning


def n_subsets(l, d):
    """Deletion patterns the counting form visits: ``C(l, d)``."""
    return comb(l, d)


def choose(l, k, d, pair_count, entries):
    """``"numpy"``, ``"pairs"`` or ``"subsets"`` for a sum over
    ``pair_count`` l-mer comparisons of ``entries`` l-mers in all.

    Beyond ``d = l - k`` (the full filter untruncated) the groups of the
    counting form hold a large share of all l-mers: all pairs then."""
    if pair_count <= _tuning.GKM_NUMPY_MAX_PAIRS:
        return "numpy"
    if d > l - k:
        return "pairs"
    subsets = n_subsets(l, d) * entries * _tuning.GKM_PAIRS_PER_SUBSET_ENTRY
    return "pairs" if pair_count <= subsets else "subsets"
