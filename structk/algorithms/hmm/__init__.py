"""The discrete hidden Markov model's recursions: the compiled loops and how
they are called (chunks of sequences, threads).

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     scaled forward-backward, Viterbi and the E-step's
                   expected counts over chunks of sequences (numba)
=================  ==========================================================

Compiled only: there is no NumPy form. Importing this folder loads no
numba; each function below loads the compiled loops on its first call.
Sequences arrive as one flat ``int64`` array of symbol codes plus offsets,
the parameters as ``(pi, A, BT)`` (``BT`` the emission matrix transposed,
symbols by states), all C-contiguous float64. Called by
:class:`structk.hmm.DiscreteHMM` and the Fisher kernels.
"""

from __future__ import annotations

import numpy as np

from ... import _threads, _tuning


def loglik(seq, offsets, pi, A, BT):
    """``log p(x_i)`` of each sequence, shape ``(n,)`` (``-inf`` when impossible)."""
    from ._numba import loglik as compiled

    return _by_sequences(compiled, seq, offsets, pi, A, BT)


def posteriors(seq, offsets, pi, A, BT):
    """``(loglik, gamma)``: each sequence's log-likelihood and the posterior
    state probabilities of every symbol, ``gamma`` of shape ``(N, K)`` with
    the rows of sequence ``i`` at ``offsets[i]:offsets[i + 1]``."""
    from ._numba import posteriors as compiled

    return _by_sequences(compiled, seq, offsets, pi, A, BT)


def viterbi(seq, offsets, log_pi, log_A, log_BT):
    """``(log_prob, states)``: the best path's log-probability per sequence
    and its states, flat as ``seq``."""
    from ._numba import viterbi as compiled

    return _by_sequences(compiled, seq, offsets, log_pi, log_A, log_BT)


def expected_counts(seq, offsets, params, per_sequence):
    """The E-step over all sequences: ``(loglik, s0, s1, s2)``, the expected
    start, transition and emission counts, one row per sequence with
    ``per_sequence``, else one per chunk (sum them).

    From ``_tuning.HMM_PARALLEL_MIN_WORK`` (symbols x states^2) the work is
    split into chunks of about ``_tuning.HMM_CHUNK_WORK`` on threads. The
    chunks, and so the order in which the expected counts are summed, depend
    only on the sequences and the number of states, never on the thread
    count: fitted parameters are the same bit for bit with any number of
    threads (below the threshold: one chunk, a plain serial loop)."""
    from ._numba import expected_counts as compiled

    pi, _, BT = params
    K, M, n = pi.shape[0], BT.shape[0], offsets.shape[0] - 1
    work = seq.shape[0] * K * K
    n_chunks = 1 if work < _tuning.HMM_PARALLEL_MIN_WORK else -(-work // _tuning.HMM_CHUNK_WORK)
    chunk_starts = _chunk_starts(offsets, n_chunks)
    R = n if per_sequence else chunk_starts.shape[0] - 1
    out = np.empty(n), np.zeros((R, K)), np.zeros((R, K, K)), np.zeros((R, M, K))

    def chunks(c0, c1):
        compiled(seq, offsets, *params, chunk_starts, c0, c1, per_sequence, *out)

    threads = _threads.threads_for(work, _tuning.HMM_PARALLEL_MIN_WORK)
    _threads.run_chunks(chunks, range(chunk_starts.shape[0]), threads)
    return out


def _by_sequences(fn, seq, offsets, *params):
    """``fn(seq, offsets, *params)`` for a compiled ``fn`` whose results are
    per sequence (an array, or a tuple of arrays, per sequence or per symbol,
    in order): called on contiguous groups of sequences of at most about
    ``_tuning.HMM_CALL_WORK`` (symbols x states^2) each, so that a Ctrl-C is
    answered between calls, and the groups' results concatenated. A
    sequence's values do not depend on its group: the same as one call."""
    K = params[0].shape[0]
    bounds = _threads.cost_bounds(np.diff(offsets) * float(K * K), 1, _tuning.HMM_CALL_WORK)
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        a, b = offsets[lo], offsets[hi]
        parts.append(_threads.compiled_call(fn, seq[a:b], offsets[lo : hi + 1] - a, *params))
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(group) for group in zip(*parts))
    return np.concatenate(parts)


def _chunk_starts(offsets, n_chunks):
    """Split sequences into contiguous chunks of about equal symbol counts."""
    n = offsets.shape[0] - 1
    C = max(1, min(n, n_chunks))
    targets = offsets[-1] * np.arange(1, C) / C
    cuts = np.searchsorted(offsets, targets)
    return np.unique(np.concatenate(([0], cuts, [n]))).astype(np.int64)
