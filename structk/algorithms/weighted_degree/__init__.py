"""The weighted-degree kernel (with shifts): its features and its
bit-parallel Gram matrices.

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     bit planes of the codes and the matching k-mers counted
                   along each diagonal by shift-and-popcount (numba); the
                   one-word entry point for sequences of at most 64 symbols
:mod:`._numpy`     the same values without shifts, by runs of matches along
                   whole arrays of pairs, for small batches
=================  ==========================================================

:func:`weighted_degree` computes Gram matrices pair by pair, compiled, or in
NumPy without shifts for at most ``_tuning.WD_NUMPY_MAX_WORK`` pairs x
positions x ``d`` (nothing compiled to load; the same values bit for bit);
:func:`wd_occurrences` lists the kernel's features,
the l-mers at their positions, from :func:`structk.algorithms.kmers.kmer_occurrences`
(their inner products are the kernel without shifts). Called by
:class:`structk.kernels.WeightedDegree` and :mod:`structk.explain`.
Importing this folder loads no numba.
"""

from __future__ import annotations

import numpy as np

from ... import _threads, _tuning
from ..kmers import kmer_occurrences
from . import _numpy


def wd_weights(d):
    """``beta_l = 2 (d - l + 1) / (d (d + 1))`` for ``l = 1 .. d``."""
    l = np.arange(1, d + 1, dtype=np.float64)
    return 2.0 * (d - l + 1.0) / (d * (d + 1.0))


def weighted_degree(S, T, part, d, shift, A, beta=None):
    """Weighted-degree kernel values of the rows of ``S`` (n, L) of codes
    (against those of ``T`` when ``part=1``; ``T`` is None otherwise), with
    the weights ``beta`` of the k-mer lengths ``1 .. d`` (default
    :func:`wd_weights`):

    * ``part=0``: the Gram's upper triangle and diagonal, shape (n, n) (the
      caller mirrors it);
    * ``part=1``: the cross-Gram, shape (n, m);
    * ``part=2``: ``k(x_i, x_i)``, shape (n, 1).

    Shifts beyond ``L - 1`` add nothing and are dropped. Rows in chunks of
    about ``_tuning.WD_CHUNK_WORK`` word comparisons, so that a Ctrl-C is
    answered between them (a row does not depend on the others).
    """
    shift = min(int(shift), max(S.shape[1] - 1, 0))
    beta = wd_weights(int(d)) if beta is None else np.ascontiguousarray(beta, dtype=np.float64)
    n, m = S.shape[0], (S if T is None else T).shape[0]
    work = (n if part == 2 else n * m) * S.shape[1] * beta.shape[0]
    if shift == 0 and work <= _tuning.WD_NUMPY_MAX_WORK and not _threads.tiled():
        return _numpy.weighted_degree(S, T, part, A, beta)
    from ._numba import wd_function, wd_planes

    F, W = _threads.compiled_call(wd_planes, S, A)
    G = F if T is None else _threads.compiled_call(wd_planes, T, A)[0]
    out = np.empty((n, n) if part == 0 else (n, m) if part == 1 else (n, 1))
    fn = wd_function(W)
    partners = n - np.arange(n) if part == 0 else np.full(n, m if part == 1 else 1)
    bounds = _threads.cost_bounds(partners * float(W * (2 * shift + 1)), 1, _tuning.WD_CHUNK_WORK)
    _threads.run_chunks(lambda lo, hi: fn(F, G, W, beta, shift, part, out, lo, hi), bounds, 1)
    return out


def wd_occurrences(codes, offsets, d, A, base=None, beta=None):
    """The weighted-degree features of sequences, at their positions.

    Feature ``(l, p, u)`` is the l-mer ``u`` starting at position ``p``
    (``1 <= l <= d``), of value ``sqrt(beta_l)`` (``beta``, default
    :func:`wd_weights`), so
    that the inner product of two sequences' features is the kernel
    without shifts. Its key is ``(p d + l - 1) A^d + index(u)``.

    Parameters
    ----------
    codes, offsets : ndarray
        The sequences, flat, as :func:`structk.sequences.encode` gives them.
    d, A : int
        The degree and the alphabet's size.
    base : ndarray of int64, optional
        The position of each sequence's first symbol in the sequence it is
        a window of (0 by default): positions ``p`` count from there.

    Returns
    -------
    keys, owner, starts, lengths : ndarray of int64
        Each occurrence's key, sequence, position ``p`` (``base`` added)
        and ``l``.
    values : ndarray of float64
    """
    n = offsets.shape[0] - 1
    if base is None:
        base = np.zeros(n, dtype=np.int64)
    beta = wd_weights(int(d)) if beta is None else np.asarray(beta, dtype=np.float64)
    parts = []
    for l in range(1, d + 1):
        ids, starts, ptr = kmer_occurrences(codes, offsets, l, A, positions=True)
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
        pos = starts + base[owner]
        parts.append(
            (
                wd_key(pos, l, ids, d, A),
                owner,
                pos,
                np.full(ids.shape[0], l, dtype=np.int64),
                np.full(ids.shape[0], np.sqrt(beta[l - 1])),
            )
        )
    return tuple(np.concatenate(column) for column in zip(*parts))


def wd_key(pos, l, ids, d, A):
    """The key of the l-mers of indices ``ids`` at positions ``pos``:
    ``(p d + l - 1) A^d + index(u)``; a shift of ``s`` positions adds
    ``s d A^d``."""
    return (pos * d + (l - 1)) * A**d + ids


def wd_key_parts(keys, d, A):
    """``(p, l, index(u))`` of the keys of :func:`wd_occurrences`."""
    pl, ids = np.divmod(np.asarray(keys, dtype=np.int64), A**d)
    pos, lm1 = np.divmod(pl, d)
    return pos, lm1 + 1, ids
