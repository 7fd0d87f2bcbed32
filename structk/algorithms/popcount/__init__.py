"""Counting set bits: one compiled definition for every loop that needs it.

:mod:`._numba` holds ``popcount`` (LLVM's ``ctpop``), which the compiled
loops of :mod:`structk.algorithms.weighted_degree` (matching runs) and
:mod:`structk.algorithms.gapped_kmers` (mismatches between l-mers) import
from there. It has no NumPy twin and no public function of its own: only
compiled code calls it. Importing this folder imports no numba.
"""
