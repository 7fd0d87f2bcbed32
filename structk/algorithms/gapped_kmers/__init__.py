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

:func:`choose` is the size rule between the two compiled forms; its numbers
are :data:`PAIRS_PER_SUBSET_ENTRY` and :data:`NUMPY_MAX_PAIRS`.
"""

from __future__ import annotations

from math import comb

#: One comparison of two l-mers (all-pairs form) costs about 1 / this of
#: handling one l-mer in one deletion pattern (counting form: key, two radix
#: passes, group scan), measured on nfe2 at l = 11, k = 7, d = 3.
PAIRS_PER_SUBSET_ENTRY = 6.0
#: All-pairs sums of at most this many l-mer comparisons run in NumPy.
NUMPY_MAX_PAIRS = 20_000


def n_subsets(l, d):
    """Deletion patterns the counting form visits: ``C(l, d)``."""
    return comb(l, d)


def choose(l, d, pair_count, entries):
    """``"numpy"``, ``"pairs"`` or ``"subsets"`` for a sum over
    ``pair_count`` l-mer comparisons of ``entries`` l-mers in all."""
    if pair_count <= NUMPY_MAX_PAIRS:
        return "numpy"
    subsets = n_subsets(l, d) * entries * PAIRS_PER_SUBSET_ENTRY
    return "pairs" if pair_count <= subsets else "subsets"
