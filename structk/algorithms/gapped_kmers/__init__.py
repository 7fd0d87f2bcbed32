"""The gapped k-mer kernels' algorithm: l-mers of each sequence and the
weighted sum over their pairs within ``d`` mismatches, and how it is run
(which form, threads, memory).

================  ==========================================================
``weights``       the mismatch weights of each kind (count, estimated l-mer
                  with full or truncated filter) and the level coefficients
``_numpy``        NumPy form: l-mers and the all-pairs sum, for small batches
                  and as the reference of the compiled loops
``_numba``        compiled forms: all pairs (:func:`~._numba.pairs_block`),
                  counting over deleted positions
                  (:func:`~._numba.subsets_block`; its Gram in blocks
                  of sequences, :func:`~._numba.blocked_subsets_gram`),
                  a table over all l-mers
                  (:func:`~._numba.table_block`) and the
                  Walsh-Hadamard convolution of the model profile
                  (:func:`~._numba.hamming_convolve`)
================  ==========================================================

:func:`lmer_occurrences` lists the l-mers of sequences at their positions
(the kernel's prepared data, and the occurrences :mod:`structk.explain`
places on a sequence); :func:`lmer_sums` sums over their pairs (the
kernel's Gram matrices, and the explainer's changes of ``K(x, x)``);
:func:`gapped_kmer_counts` is the explicit feature map of the count kernel.
:func:`lmer_profile` folds weighted sequences (the support vectors of a
model) into one table over all ``4^l`` l-mers, so that :func:`profile_sums`
scores a sequence with one look-up per l-mer (:func:`convolve_lmers`, the
Hamming-scheme transform, also gives the explainer its l-mer weights).
:func:`choose` and :func:`table_pays` are the size rule between the
forms; their numbers are ``GKM_PAIRS_PER_SUBSET_ENTRY``,
``GKM_NUMPY_MAX_PAIRS`` and ``GKM_TABLE_MAX_BYTES`` in
:mod:`structk._tuning`. :func:`mirror_codes` lets the packed counting
form compute a Gram of both strands over half the deletion patterns
(``GKM_MIRROR_PATTERNS``), :func:`_blocks_pay` gives that Gram to the
loop over blocks of sequences (``GKM_BLOCK_ROWS``,
``GKM_BLOCK_MAX_GROUP_BITS``, ``GKM_BLOCK_MIN_FILL``), and
:func:`table_index` lists the l-mers the table form reads its tables by
(``GKM_TABLE_ROWS``, ``GKM_TABLE_COLUMNS``). Importing this folder loads
no numba.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import comb

import numpy as np

from ... import _memory, _threads, _tuning, defaults
from . import _numpy, weights


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


@dataclass(frozen=True)
class LmerWindows:
    """The l-mers of a collection of sequences (:func:`lmer_occurrences`).

    Attributes
    ----------
    keys, keys_rc : ndarray of int64
        Each l-mer free of unknown symbols, packed two bits a base, and its
        reverse complement; those of sequence ``i`` at ``ptr[i]:ptr[i + 1]``.
    weights : ndarray of float64
        The l-mers' weights (1, or the centre weights).
    ptr : ndarray of int64, shape (n + 1,)
    """

    keys: np.ndarray
    keys_rc: np.ndarray
    weights: np.ndarray
    ptr: np.ndarray

    def __len__(self):
        return self.ptr.shape[0] - 1

    def take(self, index):
        idx = np.arange(len(self))[index]
        counts = np.diff(self.ptr)[idx]
        ptr = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        if len(idx):
            pos = np.concatenate([np.arange(self.ptr[i], self.ptr[i + 1]) for i in idx])
        else:
            pos = np.zeros(0, dtype=np.int64)
        return LmerWindows(self.keys[pos], self.keys_rc[pos], self.weights[pos], ptr)


def lmer_occurrences(
    codes, offsets, l, center=False, M=50.0, H=50.0, base=None, full=None, positions=False
):
    """Every l-mer free of unknown symbols (codes >= 4), row by row.

    Parameters
    ----------
    codes, offsets : ndarray
        DNA sequences, flat (codes 0-3 for A, C, G, T).
    l : int
    center, M, H
        Centre weights (LS-GKM's ``-t 4``): the l-mer starting ``D``
        positions from the middle start ``(L - l + 1) // 2`` weighs
        ``min(M, floor(M 2^(-D / H) + 1))``; else 1.
    base, full : ndarray of int64, optional
        Sequence ``i`` is a window starting at position ``base[i]`` of a
        sequence of length ``full[i]`` (default: the sequences themselves).
    positions : bool
        Also return each l-mer's start (in the full sequence).

    Returns
    -------
    keys, keys_rc, weights, starts, ptr
        The packed l-mers (two bits a base, first most significant), their
        reverse complements, weights, starts (empty without ``positions``)
        and the row pointers. NumPy up to ``_tuning.GKM_NUMPY_MAX_SYMBOLS``
        symbols, else compiled.
    """
    n = offsets.shape[0] - 1
    base = np.zeros(n, dtype=np.int64) if base is None else np.asarray(base, dtype=np.int64)
    full = np.diff(offsets) if full is None else np.asarray(full, dtype=np.int64)
    args = (
        codes,
        offsets,
        int(l),
        4,
        bool(center),
        float(M),
        float(H),
        base,
        full,
        bool(positions),
    )
    if codes.shape[0] <= _tuning.GKM_NUMPY_MAX_SYMBOLS:
        return _numpy.lmer_windows(*args)
    from ._numba import lmer_windows

    return _threads.compiled_call(lmer_windows, *args)


def _trimmed(w):
    """``w`` without its trailing zeros (the truncated filter weighs no
    pair beyond its support): the sums need not visit those pairs."""
    w = np.asarray(w, dtype=np.float64)
    nonzero = np.flatnonzero(w)
    return w[: nonzero[-1] + 1] if nonzero.size else w[:1]


def method(P, Q, w, l, k, rc, mode, algorithm="auto"):
    """The form :func:`lmer_sums` uses: ``algorithm`` unless ``"auto"``,
    else :func:`choose` for the pairs the sum compares, or the table form
    where :func:`table_pays`."""
    if algorithm != "auto":
        return algorithm
    d = _trimmed(w).shape[0] - 1
    strands = 2 if rc else 1
    if mode == 2:
        pairs = float(np.sum(np.diff(P.ptr).astype(np.float64) ** 2))
        return choose(int(l), int(k), d, pairs * strands, P.keys.shape[0] * strands)
    R = P if Q is None else Q
    nx, ny = P.keys.shape[0], R.keys.shape[0]
    pairs = nx * ny * strands / (2 if mode == 0 else 1)
    entries = (nx + (0 if mode == 0 else ny)) * strands
    how = choose(int(l), int(k), d, pairs, entries)
    if how != "numpy" and table_pays(int(l), d, nx, max(len(P), 1), pairs, entries, how):
        return "table"
    return how


def table_pays(l, d, nx, rows, pairs, entries, how):
    """Whether the table form (:func:`._numba.table_block`) beats ``how``:
    its table of ``4^l`` float64 within ``_tuning.GKM_TABLE_MAX_BYTES`` (it
    must stay in the cache), and its writes (each of the ``nx`` l-mers of
    the rows to its ``V`` neighbours and back) and look-ups (``pairs`` over
    the l-mers a row) fewer than ``how``'s work: the pairs, or the counting
    form's ``C(l, d)`` passes over the ``entries`` with the pairs in their
    groups (``4^(l - d)`` of them, as if the l-mers were uniform); a
    comparison, a look-up and a write cost about the same."""
    if 8.0 * 4.0**l > _tuning.GKM_TABLE_MAX_BYTES:
        return False
    V = sum(comb(l, m) * 3**m for m in range(d + 1))
    table = 4.0**l + 2.0 * nx * V + pairs / max(nx / rows, 1.0)
    if how == "pairs":
        return table < pairs
    per_pattern = entries * _tuning.GKM_PAIRS_PER_SUBSET_ENTRY + entries**2 / (2 * 4.0 ** (l - d))
    return table < n_subsets(l, d) * per_pattern


def lmer_sums(P, Q, w, l, k, rc, mode, algorithm="auto", name="GappedKmer"):
    """``sum_{a in x, b in y (and rc y)} v_a v_b w[mm(a, b)]`` for pairs of
    sequences of :class:`LmerWindows` ``P`` and ``Q``: mode 0 the Gram of
    ``P`` (``Q`` None), 1 the cross-Gram, 2 the diagonal of ``P``, shape
    ``(n,)``.

    ``w[m]`` weighs a pair of l-mers ``m`` mismatches apart (zero beyond
    its length); ``k`` enters only the choice of form (:func:`method`).
    Refuses, naming ``name``, a result and working set that would not fit
    in memory.
    """
    w = _trimmed(w)
    n = len(P)
    m = n if Q is None else len(Q)
    shape = (n, 1) if mode == 2 else (n, m)
    _check_memory(P, Q, shape[0] * shape[1], rc, name)
    how = method(P, Q, w, l, k, rc, mode, algorithm)
    out = np.zeros(shape)
    R = P if Q is None else Q
    if how == "subsets":
        keys, rows, wts = _subset_input([P] if Q is None else [P, Q], rc, mode == 1)
        _subsets(keys, rows, wts, w, int(l), n, mode, out, rc)
    elif how == "numpy":
        if mode == 2:
            _numpy.pairs_diag(P.keys, P.keys_rc, P.weights, P.ptr, w, rc, out[:, 0])
        else:
            _numpy.pairs_block(
                P.keys, P.weights, P.ptr, R.keys, R.keys_rc, R.weights, R.ptr, w, rc, mode == 0, out
            )
    elif mode == 2:
        from ._numba import pairs_diag

        _threads.compiled_call(pairs_diag, P.keys, P.keys_rc, P.weights, P.ptr, w, rc, out[:, 0])
    else:
        _pairs(P, R, w, rc, mode == 0, out, int(l) if how == "table" else None)
    if mode == 0:
        from ..dense import mirror_upper

        mirror_upper(out)
    return out[:, 0] if mode == 2 else out


def _available():
    return _memory.available_memory() or defaults.GKM_MEMORY_FALLBACK


def _check_memory(P, Q, cells, rc, name):
    strands = 2 if rc else 1
    entries = (P.keys.shape[0] + (Q.keys.shape[0] if Q is not None else 0)) * strands
    need = 8 * cells + 8 * 8 * entries
    available = _available()
    if need > available:
        raise MemoryError(
            f"{name} would need {need / 2**30:.3g} GiB (available: "
            f"{available / 2**30:.3g} GiB) for a {cells}-entry result and "
            f"{entries} l-mers; compute it in blocks with structk.gram(..., out=...)"
        )


def _subset_input(parts, rc, cross=False):
    """The l-mers (both strands with ``rc``) of the parts, sequences
    numbered across them; row ``2 i`` forward, ``2 i + 1`` reverse
    complement (:func:`._numba.subsets_block`). With ``cross`` (a
    cross-Gram of the first part against the others) the first part's
    reverse complements are left out: only a forward l-mer of ``x`` starts
    a pair, and in a cross-Gram only ``x`` starts pairs."""
    keys, rows, wts = [], [], []
    offset = 0
    for z, P in enumerate(parts):
        r = 2 * np.repeat(np.arange(len(P), dtype=np.int64) + offset, np.diff(P.ptr))
        keys.append(P.keys)
        rows.append(r)
        wts.append(P.weights)
        if rc and not (cross and z == 0):
            keys.append(P.keys_rc)
            rows.append(r + 1)
            wts.append(P.weights)
        offset += len(P)
    rows = np.concatenate(rows)
    order = np.argsort(rows, kind="stable")
    return (
        np.ascontiguousarray(np.concatenate(keys)[order]),
        rows[order],
        np.ascontiguousarray(np.concatenate(wts)[order]),
    )


def _subsets(keys, rows, wts, w, l, n, mode, out, rc=False):
    """The counting form into ``out``: the deletion patterns split among
    threads (:func:`structk._threads.num_threads`, each adding into its
    own copy of ``out`` while memory allows), then the self pairs. A Gram
    of both strands in the packed loop visits half the patterns
    (:func:`mirror_codes`, with ``_tuning.GKM_MIRROR_PATTERNS``)."""
    from ._numba import blocked_subsets_gram, packed_subsets_block, self_pairs, subsets_block

    d = len(w) - 1
    packed = _packs(keys, rows, wts, l, d)
    codes, vals = np.zeros((0, 1), dtype=np.int64), np.zeros(1)
    mirror = packed and mode == 0 and rc and _tuning.GKM_MIRROR_PATTERNS
    if mirror:
        combos, codes, vals = mirror_codes(l, w)
    else:
        combos = list(itertools.combinations(range(l), d))
    blocked = packed and mode == 0 and (mirror or not rc) and _blocks_pay(keys, l, d, n)
    subsets = np.array(combos, dtype=np.int64).reshape(len(combos), d)
    threads = _threads.threads_for(keys.shape[0] * len(combos), _tuning.GKM_THREADED_MIN_WORK)
    if threads > 1:
        per_thread = out.nbytes + 8 * 8 * keys.shape[0]
        threads = max(1, min(threads, int(_available() // (2 * per_thread))))
    bounds = _threads.even_bounds(len(combos), threads)
    buffer_hits = _tuning.GKM_BUFFER_HITS if out.nbytes > _tuning.GKM_DIRECT_BYTES else 0
    outs = [out] + [np.zeros_like(out) for _ in range(len(bounds) - 2)]

    def chunk(lo, hi):  # on a thread of its own, stopped by a Ctrl-C
        if blocked:
            block = int(_tuning.GKM_BLOCK_ROWS)
            part = outs[bounds.index(lo)]
            _threads.stoppable(
                blocked_subsets_gram, keys, rows, l, subsets[lo:hi], w, part, block, codes[lo:hi],
                vals,
            )  # fmt: skip
            return
        head = (keys, rows) if packed else (keys, rows, wts)
        _threads.stoppable(
            packed_subsets_block if packed else subsets_block,
            *head,
            l,
            subsets[lo:hi],
            w,
            n,
            mode,
            outs[bounds.index(lo)],
            _tuning.GKM_RADIX_BITS,
            _tuning.GKM_TILE_BITS,
            buffer_hits,
            *((codes[lo:hi], vals) if packed else ()),
        )

    _threads.run_chunks(chunk, bounds, threads)
    for extra in outs[1:]:
        out += extra
    if mode != 1:
        self_pairs(rows, wts, float(w[0]), mode, out)


def _blocks_pay(keys, l, d, n):
    """Whether the packed counting form's Gram takes the blocked loop
    (:func:`._numba.blocked_subsets_gram`): at most
    ``2^GKM_BLOCK_MAX_GROUP_BITS`` groups a pattern (its offset tables,
    one per block of ``GKM_BLOCK_ROWS`` sequences, are read whole for each
    pair of blocks), at least ``GKM_BLOCK_MIN_FILL`` l-mers a group, and
    the sequence numbers within the 32 bits of a packed l-mer."""
    group_bits = 2 * (l - d)
    if group_bits > _tuning.GKM_BLOCK_MAX_GROUP_BITS:
        return False
    if keys.shape[0] < _tuning.GKM_BLOCK_MIN_FILL * 2.0**group_bits:
        return False
    return n < 2 ** (32 - 2 * d)


def _mirrored(T, l):
    return tuple(sorted(l - 1 - p for p in T))


def _completed(M, l, d):
    """``M`` (sorted positions) with the ``d - len(M)`` free positions of
    smallest index."""
    free = [p for p in range(l) if p not in M]
    return tuple(sorted(M + tuple(free[: d - len(M)])))


def _pattern_shares(M, l, d):
    """``{pattern: share}``: the deletion patterns (``d`` positions, sorted)
    that count a pair of l-mers differing at the positions ``M``, and the
    share of the pair each counts (summing to 1), such that the mirror
    image of ``M`` (position ``p`` read as ``l - 1 - p``: the pair's
    reverse complements) goes to the mirror images of the patterns, with
    the same shares. An ``M`` that is not its own mirror image is
    completed in one of the two orientations (the one of the smaller
    tuple); one that is gets a mirror-symmetric completion (the centre,
    then pairs ``p, l - 1 - p``) where one exists, else half the pair to
    each of two mirrored completions."""
    mM = _mirrored(M, l)
    if M < mM:
        return {_completed(M, l, d): 1.0}
    if M > mM:
        return {_mirrored(_completed(mM, l, d), l): 1.0}
    S, need = set(M), d - len(M)
    if need % 2 and l % 2 and (l - 1) // 2 not in S:
        S.add((l - 1) // 2)
        need -= 1
    for p in range(l // 2):
        if need >= 2 and p not in S and l - 1 - p not in S:
            S.update((p, l - 1 - p))
            need -= 2
    if need == 0:
        return {tuple(sorted(S)): 1.0}
    a = _completed(M, l, d)
    b = _mirrored(a, l)
    return {a: 1.0} if a == b else {a: 0.5, b: 0.5}


def mirror_codes(l, w):
    """The deletion patterns, pair tables and weights of the packed
    counting form's Gram of both strands over half the patterns
    (:func:`._numba.packed_subsets_block` with ``codes_in``).

    With every sequence's l-mers on both strands in the sort, ``K(x, y)``
    is half the sum over all pairs of them (``w(rc a, rc b) = w(a, b)``),
    and the pairs one pattern ``S`` counts, reverse-complemented, are those
    its mirror image counts, when each pair goes to its patterns by
    :func:`_pattern_shares` (mirror-equivariant). So each pair of patterns
    ``S != mirror(S)`` is visited once, as the smaller, with every l-mer
    starting pairs; a pattern that is its own mirror image counts half. A
    pair of l-mers of one sequence is visited once and counts twice
    (``K(x, x)`` is the sum over ordered pairs; the pair of an l-mer with
    itself is left to :func:`._numba.self_pairs`).

    Returns ``(patterns, codes, vals)``: ``codes[z, u 4^d + v]`` for the
    deleted bases ``u``, ``v`` of two l-mers of a group of pattern ``z``
    (as :func:`._numba._pattern_codes`) is ``-1`` or ``c``, the pair
    weighing ``vals[2 c]`` between two sequences and ``vals[2 c + 1]``
    within one: ``c = m`` for ``w[m]``, ``c = m + d + 1`` for ``w[m] / 2``.
    """
    w = np.asarray(w, dtype=np.float64)
    d = len(w) - 1
    vals = np.empty(4 * (d + 1))
    for m in range(d + 1):
        for c, share in ((m, 1.0), (m + d + 1, 0.5)):
            vals[2 * c], vals[2 * c + 1] = w[m] * share, 2.0 * w[m] * share
    size = 4**d
    u, v = np.divmod(np.arange(size * size, dtype=np.int64), size)
    mask = np.zeros(size * size, dtype=np.int64)  # coordinates where u, v differ
    for j in range(d):
        mask |= (((u >> (2 * j)) & 3) != ((v >> (2 * j)) & 3)).astype(np.int64) << j
    patterns, codes = [], []
    for S in itertools.combinations(range(l), d):
        mS = _mirrored(S, l)
        if mS < S:
            continue
        half = 0.5 if mS == S else 1.0
        lut = np.full(2**d, -1, dtype=np.int64)
        for bits in range(2**d):
            M = tuple(S[j] for j in range(d) if bits >> j & 1)
            share = _pattern_shares(M, l, d).get(S, 0.0) * half
            if share:
                lut[bits] = len(M) + (0 if share == 1.0 else d + 1)
        patterns.append(S)
        codes.append(lut[mask])
    return patterns, np.array(codes, dtype=np.int64).reshape(len(patterns), size * size), vals


def _packs(keys, rows, wts, l, d):
    """Whether the counting form may pack each l-mer into one int64
    (:func:`._numba.packed_subsets_block`): all weights 1, a pattern table
    of ``4^(2 d)`` entries at most ``4^(2 GKM_PACKED_MAX_D)``, and the kept
    bases, row and deleted bases within 63 bits."""
    if d > _tuning.GKM_PACKED_MAX_D or not np.all(wts == 1.0):
        return False
    row_bits = int(rows.max()).bit_length() if rows.size else 1
    return 2 * l + max(row_bits, 1) <= 63


def neighbour_deltas(l, w):
    """``(deltas, dweights)``: the XOR masks that take a packed l-mer to each
    l-mer within ``d = len(w) - 1`` mismatches of it (``m`` non-zero 2-bit
    fields), and the weight ``w[m]`` of each (the table form)."""
    deltas, dweights = [], []
    for m in range(len(w)):
        for where in itertools.combinations(range(int(l)), m):
            for bases in itertools.product((1, 2, 3), repeat=m):
                deltas.append(sum(b << (2 * p) for b, p in zip(bases, where)))
                dweights.append(w[m])
    return np.array(deltas, dtype=np.int64), np.array(dweights, dtype=np.float64)


def table_index(R, rc, l, columns):
    """The l-mers of the sequences of :class:`LmerWindows` ``R`` (and their
    reverse complements with ``rc``) as the table form's index
    (:func:`._numba.table_block`): the sequences in blocks of ``columns``
    (bounds ``cols``), in each block its distinct l-mers ascending
    (``ukeys[ustart[c]:ustart[c + 1]]``), and each one's occurrences
    (``uptr[g]:uptr[g + 1]`` into ``occ_col``, the sequence, and ``occ_w``,
    the l-mer's weight)."""
    n = len(R)
    col = np.repeat(np.arange(n, dtype=np.int64), np.diff(R.ptr))
    keys, wts = R.keys, R.weights
    if rc:
        keys = np.concatenate([keys, R.keys_rc])
        col = np.concatenate([col, col])
        wts = np.concatenate([wts, wts])
    combined = ((col // columns) << (2 * int(l))) | keys
    order = np.argsort(combined, kind="stable")
    combined = combined[order]
    new = np.ones(combined.size, dtype=bool)
    new[1:] = combined[1:] != combined[:-1]
    starts = np.flatnonzero(new)
    cols = np.r_[np.arange(0, n, columns, dtype=np.int64), n]
    ustart = np.searchsorted(combined[starts] >> (2 * int(l)), np.arange(len(cols)), side="left")
    uptr = np.r_[starts, combined.size].astype(np.int64)
    ukeys = np.ascontiguousarray(combined[starts] & ((1 << (2 * int(l))) - 1))
    return cols, ustart.astype(np.int64), ukeys, uptr, col[order], np.ascontiguousarray(wts[order])


def _pairs(P, R, w, rc, symmetric, out, table_l=None):
    """The all-pairs form (or with ``table_l``, the table form over the
    ``4^table_l`` l-mers, :func:`._numba.table_block`) into ``out``, chunks
    of rows on threads, cut at equal numbers of l-mer comparisons, none of
    many more than ``_tuning.GKM_PAIRS_CHUNK_WORK`` (a Ctrl-C is answered
    between them; a row's values do not depend on its chunk); the table
    form's chunks are cut at equal numbers of table writes and look-ups."""
    from ._numba import pairs_block, table_block

    if table_l is not None:
        deltas, dweights = neighbour_deltas(table_l, w)
        index = table_index(R, rc, table_l, int(_tuning.GKM_TABLE_COLUMNS))

    cx = np.diff(P.ptr).astype(np.float64)
    cy = np.diff(R.ptr).astype(np.float64)
    later = np.cumsum(cy[::-1])[::-1] if symmetric else np.full(len(cx), cy.sum())
    work = cx * later[: len(cx)]  # per row: l-mer comparisons
    if table_l is not None:  # table writes and look-ups
        work = cx * deltas.shape[0] + later[: len(cx)] * (2 if rc else 1)
    threads = _threads.threads_for(float(work.sum()), _tuning.GKM_THREADED_MIN_WORK)
    parts = 1 if threads == 1 else _tuning.GKM_CHUNKS_PER_THREAD * threads
    bounds = _threads.cost_bounds(work, parts, _tuning.GKM_PAIRS_CHUNK_WORK)

    def chunk(lo, hi):
        if table_l is not None:
            rows = max(1, min(int(_tuning.GKM_TABLE_ROWS), hi - lo))
            table_block(P.keys, P.weights, P.ptr[lo : hi + 1], deltas, dweights, *index,
                        symmetric, out[lo:hi], lo, np.zeros((rows, 4**table_l)),
                        np.zeros((int(_tuning.GKM_TABLE_COLUMNS), rows)))  # fmt: skip
            return
        pairs_block(
            P.keys,
            P.weights,
            P.ptr[lo : hi + 1],
            R.keys,
            R.keys_rc,
            R.weights,
            R.ptr,
            w,
            rc,
            symmetric,
            out[lo:hi],
            lo,
        )

    _threads.run_chunks(chunk, bounds, threads)


def gapped_kmer_counts(P, l, k, rc, name="GappedKmer"):
    """The gapped k-mer count features of :class:`LmerWindows` ``P``: CSR
    ``(indptr, indices, data)`` over ``C(l, k) 4^k`` columns.

    Column ``s 4^k + c``: the gapped k-mer with informative positions
    ``itertools.combinations(range(l), k)[s]`` and bases ``c`` (two bits a
    base, first most significant), each l-mer counted with its weight. With
    ``rc`` a gapped k-mer and its reverse complement share the smaller
    column (the other stays empty) holding the sum of their counts, and a
    palindromic one counts ``sqrt 2``. Refuses, naming ``name``, columns
    beyond int64 and an expansion that would not fit in memory.
    """
    from ._numba import count_features

    combos = list(itertools.combinations(range(l), k))
    if len(combos) * 4.0**k > 2.0**62:
        raise ValueError(
            f"the C({l}, {k}) 4^{k} gapped k-mer columns of {name} do not fit int64 indices"
        )
    need = 16 * P.keys.shape[0] * len(combos) * 2
    if need > _available():
        raise MemoryError(
            f"{name}.features would need {need / 2**30:.3g} GiB for "
            f"{P.keys.shape[0]} l-mers times {len(combos)} gapped k-mers each "
            f"(available: {_available() / 2**30:.3g} GiB); use k(X) instead"
        )
    index = {c: s for s, c in enumerate(combos)}
    mirror = np.array([index[tuple(sorted(l - 1 - p for p in c))] for c in combos], dtype=np.int64)
    kept = np.array([[2 * (l - 1 - p) for p in c] for c in combos], dtype=np.int64).reshape(
        len(combos), k
    )
    indptr, ids, vals = _threads.compiled_call(
        count_features, P.keys, P.keys_rc, P.weights, P.ptr, kept, mirror, bool(rc)
    )
    return indptr, ids, vals, len(combos) * 4**k


def profile_fits(l, machines):
    """Whether :func:`lmer_profile` may build its ``machines`` tables of
    ``4^l`` float64: ``l <= _tuning.GKM_PROFILE_MAX_L`` and a quarter of the
    available memory at most."""
    if l > _tuning.GKM_PROFILE_MAX_L:
        return False
    return 8.0 * machines * 4.0**l <= _available() / 4


def profile_pays(P, Q, w, l, k, rc, machines):
    """Whether folding the sequences of ``P`` into :func:`lmer_profile`
    tables costs less than the cross-Gram of ``Q`` against them: the
    tables' two transforms, ``_tuning.GKM_PROFILE_PAIRS_PER_ENTRY`` l-mer
    comparisons per table entry and l-mer position, against the pairs the
    cross-Gram compares (or its counting form's work, :func:`choose`)."""
    if not profile_fits(l, machines):
        return False
    d = _trimmed(w).shape[0] - 1
    strands = 2 if rc else 1
    nx, ny = Q.keys.shape[0], P.keys.shape[0]
    cross = float(nx) * ny * strands
    if d <= l - k:
        cross = min(
            cross, n_subsets(l, d) * (nx + ny) * strands * _tuning.GKM_PAIRS_PER_SUBSET_ENTRY
        )
    table = machines * l * 4.0**l * _tuning.GKM_PROFILE_PAIRS_PER_ENTRY
    return table < cross


def convolve_lmers(table, l, w):
    """``table[a] <- sum_u table[u] w[mm(a, u)]`` for every l-mer ``a``, in
    place (``table`` float64 of length ``4^l``, indexed by the packed
    l-mer; ``w[m]`` zero beyond its length): the product with the ``4^l x
    4^l`` matrix ``[w(mm(a, u))]``, which the Hamming scheme diagonalises
    (eigenvalues :func:`.weights.lmer_eigenvalues`), as two Walsh-Hadamard
    transforms and a scaling, ``O(l 4^l)``
    (:func:`._numba.hamming_convolve`)."""
    from ._numba import hamming_convolve

    eig = np.asarray(weights.lmer_eigenvalues(int(l), np.asarray(w, dtype=np.float64)))
    return _threads.compiled_call(hamming_convolve, table, int(l), eig.astype(np.float64))


def lmer_profile(P, coef, w, l, rc):
    """The tables ``S[m, a] = sum_i coef[m, i] sum_{b in y_i (and rc b)}
    v_b w[mm(a, b)]`` over every l-mer ``a`` (packed, ``4^l`` of them), for
    the sequences ``y_i`` of :class:`LmerWindows` ``P`` and each row of
    ``coef`` (shape ``(machines, len(P))``).

    ``sum_{a in x} v_a S[m, a]`` is then ``sum_i coef[m, i] K(x, y_i)`` of
    the unnormalised kernel (:func:`profile_sums`): a model's decision
    function scores a sequence with one look-up per l-mer instead of
    comparing it with every support vector. The tables cost ``O(l 4^l)``
    each, whatever the number of sequences folded in; call
    :func:`profile_fits` first.
    """
    from ._numba import profile_table

    coef = np.ascontiguousarray(np.atleast_2d(coef), dtype=np.float64)
    tables = np.zeros((coef.shape[0], 4 ** int(l)))
    _threads.compiled_call(
        profile_table, P.keys, P.keys_rc, P.weights, P.ptr, coef, bool(rc), int(l), tables
    )
    w = _trimmed(w)
    for t in tables:
        convolve_lmers(t, l, w)
    return tables


def profile_sums(Q, tables):
    """``out[i, m] = sum_{a in x_i} v_a tables[m, a]`` over the forward
    l-mers of the sequences of :class:`LmerWindows` ``Q``: with the tables
    of :func:`lmer_profile`, ``sum_j coef[m, j] K(x_i, y_j)``."""
    n = len(Q)
    owner = np.repeat(np.arange(n), np.diff(Q.ptr))
    out = np.empty((n, tables.shape[0]))
    for m, t in enumerate(tables):
        out[:, m] = np.bincount(owner, weights=Q.weights * t[Q.keys], minlength=n)
    return out
