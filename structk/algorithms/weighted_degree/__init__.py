"""The weighted-degree kernel (with shifts), bit-parallel.

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     bit planes of the codes and the matching k-mers counted
                   along each diagonal by shift-and-popcount (numba); the
                   one-word entry point for sequences of at most 64 symbols
=================  ==========================================================

Compiled only: there is no NumPy form. Called by
:class:`structk.kernels.WeightedDegree`.
"""
