"""Local alignment: the LA kernel's and Smith-Waterman's dynamic programmes.

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     Gram, cross-Gram and diagonal of the LA kernel (plain,
                   scaled and log-space passes) and Smith-Waterman scores,
                   a range of rows per call (numba)
=================  ==========================================================

Compiled only. The threading rule (``_tuning.ALIGNMENT_PARALLEL_CELLS``)
is in :mod:`structk.kernels.alignment`.
"""
