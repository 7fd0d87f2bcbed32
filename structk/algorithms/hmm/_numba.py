"""Inner loops of the discrete HMM (numba): scaled forward-backward, Viterbi, E-step.

Sequences arrive as one flat ``int64`` symbol array ``seq`` plus ``offsets``
(sequence ``i`` is ``seq[offsets[i]:offsets[i + 1]]``, never empty). Model
parameters are ``pi`` (K,), ``A`` (K, K) and ``BT`` (M, K), the *transposed*
emission matrix, so that the emission column of a symbol is contiguous.

Scaling (Rabiner 1989, Sec. V.A): ``alpha[t]`` is normalised to sum to one
and the normaliser ``c[t]`` kept; ``log p(x) = sum_t log c[t]``. A zero
normaliser means the sequence has probability exactly zero: the functions
return ``-inf`` for it and leave its statistics untouched, never taking
``log(0)``.

Work is split into contiguous ``chunks`` of sequences (bounds in
``chunk_starts``, fixed by the data and the model, never by the thread
count); each chunk owns its partial sums, so :func:`expected_counts` can
run on disjoint chunk ranges in several threads (``nogil``, driven by
:func:`structk._threads.run_chunks`) without two threads writing the same
memory, and the totals are the same whatever the thread count. Scoring is
serial: threads did not pay on it (benchmarks/bench_fisher.py).
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice

_NEG_INF = -np.inf
# _loglik_only rescales its forward variables only when their sum drops below this
_RESCALE = 1e-100


@numba.njit(cache=True)
def _forward(seq, start, stop, pi, A, BT, alpha, scale):
    """Scaled forward pass of one sequence into ``alpha[:T]``, ``scale[:T]``.

    Returns the log-likelihood, ``-inf`` if the sequence is impossible.
    """
    K = pi.shape[0]
    x = seq[start]
    c = 0.0
    for k in range(K):
        a = pi[k] * BT[x, k]
        alpha[0, k] = a
        c += a
    if not c > 0.0:
        return _NEG_INF
    inv = 1.0 / c
    for k in range(K):
        alpha[0, k] *= inv
    scale[0] = c
    ll = np.log(c)
    for t in range(1, stop - start):
        x = seq[start + t]
        c = 0.0
        for j in range(K):
            s = 0.0
            for i in range(K):
                s += alpha[t - 1, i] * A[i, j]
            s *= BT[x, j]
            alpha[t, j] = s
            c += s
        if not c > 0.0:
            return _NEG_INF
        inv = 1.0 / c
        for j in range(K):
            alpha[t, j] *= inv
        scale[t] = c
        ll += np.log(c)
    return ll


@numba.njit(cache=True)
def _ab_step(a, ABT, x, b):
    """``b = (a @ A) * B[:, x]`` from ``ABT[x, j, i] = A[i, j] B[j, x]``; returns sum(b)."""
    K = a.shape[0]
    c = 0.0
    for j in range(K):
        s = 0.0
        for i in range(K):
            s += a[i] * ABT[x, j, i]
        b[j] = s
        c += s
    return c


@numba.njit(cache=True)
def _rescale(a, total):
    inv = 1.0 / total
    for k in range(a.shape[0]):
        a[k] *= inv


@numba.njit(cache=True)
def _loglik_one(seq, start, stop, pi, BT, ABT, a, b):
    """Log-likelihood of one sequence with two length-K buffers (no storage).

    The forward variables are rescaled only when their sum drops below
    ``_RESCALE`` (once per ~hundreds of symbols), which keeps the division
    and the ``log`` off the per-symbol path. Before a step that would fall
    below it, the previous variables are normalised and the step redone, so
    one step can shrink the sum to ``_RESCALE * (step factor)`` at worst: no
    underflow unless a single symbol has probability below ~1e-200, and a
    sum of exactly zero after a normalised step means an impossible
    sequence (``-inf``).
    """
    K = pi.shape[0]
    x = seq[start]
    total = 0.0
    for k in range(K):
        a[k] = pi[k] * BT[x, k]
        total += a[k]
    if not total > 0.0:
        return _NEG_INF
    ll = 0.0
    for t in range(start + 1, stop):
        x = seq[t]
        c = _ab_step(a, ABT, x, b)
        if not c >= _RESCALE:
            if total != 1.0:  # normalise the previous variables and redo
                ll += np.log(total)
                _rescale(a, total)
                c = _ab_step(a, ABT, x, b)
            if not c > 0.0:
                return _NEG_INF
            if c < _RESCALE:
                ll += np.log(c)
                _rescale(b, c)
                c = 1.0
        total = c
        a, b = b, a
    return ll + np.log(total)


@numba.njit(cache=True)
def loglik(seq, offsets, pi, A, BT):
    """Log-likelihood of every sequence, shape (n,)."""
    n = offsets.shape[0] - 1
    K = pi.shape[0]
    M = BT.shape[0]
    ABT = np.empty((M, K, K))
    for x in range(M):
        for j in range(K):
            for i in range(K):
                ABT[x, j, i] = A[i, j] * BT[x, j]
    out = np.empty(n)
    a = np.empty(K)
    b = np.empty(K)
    for q in range(n):
        out[q] = _loglik_one(seq, offsets[q], offsets[q + 1], pi, BT, ABT, a, b)
    return out


@numba.njit(cache=True)
def _backward_stats(
    seq,
    start,
    stop,
    A,
    BT,
    alpha,
    scale,
    beta,
    beta_next,
    tmp,
    s_start,
    s_trans,
    s_emitT,
    gamma_out,
):
    """Scaled backward pass fused with the accumulation of expected counts.

    Adds to ``s_start`` (gamma_0), ``s_trans`` (sum_t xi_t) and ``s_emitT``
    (``s_emitT[x, k] += gamma_t(k)`` for ``x = x_t``). If ``gamma_out`` has
    rows, the posteriors are written there too (row ``t`` for time ``t``).
    """
    K = A.shape[0]
    T = stop - start
    write = gamma_out.shape[0] > 0
    for k in range(K):
        beta_next[k] = 1.0
    x = seq[stop - 1]
    for k in range(K):
        g = alpha[T - 1, k]
        s_emitT[x, k] += g
        if write:
            gamma_out[T - 1, k] = g
    for t in range(T - 2, -1, -1):
        x_next = seq[start + t + 1]
        inv = 1.0 / scale[t + 1]
        for j in range(K):
            tmp[j] = BT[x_next, j] * beta_next[j] * inv
        x = seq[start + t]
        for i in range(K):
            ai = alpha[t, i]
            s = 0.0
            for j in range(K):
                w = A[i, j] * tmp[j]
                s += w
                s_trans[i, j] += ai * w
            beta[i] = s
            g = ai * s
            s_emitT[x, i] += g
            if write:
                gamma_out[t, i] = g
        for i in range(K):
            beta_next[i] = beta[i]
    for k in range(K):
        s_start[k] += alpha[0, k] * beta_next[k]


@numba.njit(cache=True)
def _forward_backward(seq, offsets, i, pi, A, BT, work, s_start, s_trans, s_emitT, gamma_out):
    """Sequence ``i``'s forward pass and, unless it is impossible, its
    backward pass adding its statistics (:func:`_backward_stats`);
    ``work`` holds the buffers ``(alpha, scale, beta, beta_next, tmp)``.
    Returns its log-likelihood (``-inf``: impossible, nothing added)."""
    alpha, scale, beta, beta_next, tmp = work
    start, stop = offsets[i], offsets[i + 1]
    ll = _forward(seq, start, stop, pi, A, BT, alpha, scale)
    if ll != _NEG_INF:
        _backward_stats(
            seq, start, stop, A, BT, alpha, scale, beta, beta_next, tmp,
            s_start, s_trans, s_emitT, gamma_out,
        )  # fmt: skip
    return ll


@numba.njit(cache=True)
def _chunk_max_length(offsets, lo, hi):
    m = 0
    for i in range(lo, hi):
        T = offsets[i + 1] - offsets[i]
        if T > m:
            m = T
    return m


@numba.njit(cache=True, nogil=True)
def expected_counts(
    seq, offsets, pi, A, BT, chunk_starts, c0, c1, per_sequence, ll, s_start, s_trans, s_emitT
):
    """Expected sufficient statistics (the E-step of Baum-Welch) of the
    sequences of chunks ``c0:c1``, added to the caller's arrays.

    Writes the per-sequence log-likelihoods into ``ll`` (n,) and adds the
    sums of gamma_0 into ``s_start`` (R, K), of xi into ``s_trans``
    (R, K, K) and of emission counts into ``s_emitT`` (R, M, K) (all zero to
    begin with), where row ``r`` is chunk ``r`` (``R`` chunks; sum the rows
    for the totals) or, with ``per_sequence``, sequence ``r`` (``R = n``;
    for Fisher scores). Impossible sequences (``ll = -inf``) contribute
    nothing. Serial, without the GIL: the caller may run disjoint chunk
    ranges on threads, and the sums do not depend on which thread ran a
    chunk.
    """
    K = pi.shape[0]
    beta = np.empty(K)
    beta_next = np.empty(K)
    tmp = np.empty(K)
    no_gamma = np.empty((0, K))
    T = _chunk_max_length(offsets, chunk_starts[c0], chunk_starts[c1])
    alpha = np.empty((T, K))
    scale = np.empty(T)
    for c in range(c0, c1):
        for i in range(chunk_starts[c], chunk_starts[c + 1]):
            r = i if per_sequence else c
            ll[i] = _forward_backward(
                seq, offsets, i, pi, A, BT, (alpha, scale, beta, beta_next, tmp),
                s_start[r], s_trans[r], s_emitT[r], no_gamma,
            )  # fmt: skip


@numba.njit(cache=True)
def posteriors(seq, offsets, pi, A, BT):
    """Posterior state probabilities ``gamma`` of every position, (N, K)."""
    n = offsets.shape[0] - 1
    K = pi.shape[0]
    M = BT.shape[0]
    ll = np.empty(n)
    gamma = np.zeros((seq.shape[0], K))
    T = _chunk_max_length(offsets, 0, n)
    alpha = np.empty((T, K))
    scale = np.empty(T)
    beta = np.empty(K)
    beta_next = np.empty(K)
    tmp = np.empty(K)
    s_start = np.zeros(K)
    s_trans = np.zeros((K, K))
    s_emitT = np.zeros((M, K))
    for i in range(n):
        ll[i] = _forward_backward(
            seq, offsets, i, pi, A, BT, (alpha, scale, beta, beta_next, tmp),
            s_start, s_trans, s_emitT, gamma[offsets[i] : offsets[i + 1]],
        )  # fmt: skip
    return ll, gamma


@numba.njit(cache=True)
def viterbi(seq, offsets, log_pi, log_A, log_BT):
    """Most probable state path of every sequence (log space).

    Returns ``(logprob, states)``: the log-probability of each best path,
    ``-inf`` for impossible sequences (their states are then meaningless),
    and the flat state array aligned with ``seq``.
    """
    n = offsets.shape[0] - 1
    K = log_pi.shape[0]
    logprob = np.empty(n)
    states = np.zeros(seq.shape[0], dtype=np.int64)
    T = _chunk_max_length(offsets, 0, n)
    back = np.zeros((T, K), dtype=np.int64)
    delta = np.empty(K)
    new = np.empty(K)
    for i in range(n):
        start = offsets[i]
        stop = offsets[i + 1]
        x = seq[start]
        for k in range(K):
            delta[k] = log_pi[k] + log_BT[x, k]
        for t in range(1, stop - start):
            x = seq[start + t]
            for j in range(K):
                best = _NEG_INF
                arg = 0
                for k in range(K):
                    v = delta[k] + log_A[k, j]
                    if v > best:
                        best = v
                        arg = k
                new[j] = best + log_BT[x, j]
                back[t, j] = arg
            for j in range(K):
                delta[j] = new[j]
        best = _NEG_INF
        arg = 0
        for k in range(K):
            if delta[k] > best:
                best = delta[k]
                arg = k
        logprob[i] = best
        states[stop - 1] = arg
        for t in range(stop - start - 1, 0, -1):
            arg = back[t, arg]
            states[start + t - 1] = arg
    return logprob, states
