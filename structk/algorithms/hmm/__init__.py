"""The discrete hidden Markov model's recursions.

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     scaled forward-backward, Viterbi and the E-step's
                   expected counts over chunks of sequences (numba)
=================  ==========================================================

Compiled only. The chunking rule (``_tuning.HMM_PARALLEL_MIN_WORK``) is in
:mod:`structk.hmm`.
"""
