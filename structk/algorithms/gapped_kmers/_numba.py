"""Compiled loops of the gapped k-mer kernels.

Each l-mer is a 2-bit packed integer (first base most significant). Two
algorithms compute ``sum_m w[m] N_m`` (``N_m``: weighted pairs of l-mers
``m`` mismatches apart) for every pair of sequences:

* :func:`pairs_block` compares every l-mer of one sequence with every l-mer
  of the other (``popcount`` of the XOR): ``O(W_x W_y)`` per pair, no set-up;
* :func:`subsets_block` deletes each set of ``d`` positions in turn,
  groups the l-mers that agree on the ``l - d`` positions left (a stable
  radix sort) and compares the pairs within each group only; a pair is
  counted under one set of positions (its mismatches plus the lowest free
  ones). Its cost grows with the number of near pairs of l-mers, not with
  the number of all pairs.
"""

import numba
import numpy as np

from ... import _jit  # noqa: F401 - registers the first-compilation notice
from ..popcount._numba import popcount as _popcount


_LOW = 0x5555555555555555


@numba.njit(cache=True, nogil=True, inline="always")
def _mismatches(a, b):
    """Positions where two packed l-mers differ: the popcount of the base-wise
    difference, in int64 (keys are below 2^62, so the shift brings in no
    sign bit) and converted to uint64 once, for the popcount."""
    x = a ^ b
    x = (x | (x >> 1)) & _LOW
    return np.int64(_popcount(np.uint64(x)))


@numba.njit(cache=True, nogil=True)
def lmer_windows(codes, offsets, l, A, center, M, H, base, full, positions):
    """Every l-mer free of unknown symbols (codes >= A), row by row.

    Returns ``(keys, keys_rc, weights, starts, ptr)``: the packed l-mer, its
    reverse complement (code ``c`` pairs with ``3 - c``), its weight (1, or
    with ``center`` LS-GKM's ``min(M, floor(M 2^(-D / H) + 1))``, ``D`` the
    distance of its start from the middle start ``(L - l + 1) // 2``) and,
    with ``positions``, its start (else ``starts`` is empty). Sequence ``i``
    is a window of a sequence of length ``full[i]`` starting at its position
    ``base[i]``: starts and ``L`` are those of the full sequence.
    """
    n = offsets.shape[0] - 1
    cap = 0
    for i in range(n):
        cap += max(0, offsets[i + 1] - offsets[i] - l + 1)
    keys = np.empty(cap, dtype=np.int64)
    keys_rc = np.empty(cap, dtype=np.int64)
    weights = np.empty(cap, dtype=np.float64)
    starts = np.empty(cap if positions else 0, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    mask = (np.int64(1) << (2 * l)) - 1
    top = 2 * (l - 1)
    t = 0
    for i in range(n):
        start = offsets[i]
        length = offsets[i + 1] - start
        middle = (full[i] - l + 1) // 2
        run = 0
        key = np.int64(0)
        rc = np.int64(0)
        for p in range(length):
            c = np.int64(codes[start + p])
            if c >= A:
                run = 0
                continue
            key = ((key << 2) | c) & mask
            rc = (rc >> 2) | ((3 - c) << top)
            run += 1
            if run >= l:
                keys[t] = key
                keys_rc[t] = rc
                if positions:
                    starts[t] = base[i] + p - l + 1
                if center:
                    dist = abs(middle - (base[i] + p - l + 1))
                    wt = np.floor(M * np.exp(-np.log(2.0) * dist / H) + 1.0)
                    weights[t] = min(wt, float(M))
                else:
                    weights[t] = 1.0
                t += 1
        ptr[i + 1] = t
    return keys[:t], keys_rc[:t], weights[:t], starts[: t if positions else 0], ptr


@numba.njit(cache=True, nogil=True)
def pairs_block(kx, wx, px, ky, kry, wy, py, w, rc, symmetric, out, row0=0):
    """``out[i, j] = sum_{a in x_i, b in y_j (and rc)} wx_a wy_b w[mm(a, b)]``.

    With ``symmetric`` (``x`` is ``y``) only ``j >= i`` is filled; ``row0``
    is the number of ``x_0`` among the ``y`` then (``px``, ``out`` a chunk
    of rows).
    """
    d = w.shape[0] - 1
    n = px.shape[0] - 1
    m = py.shape[0] - 1
    for i in range(n):
        j0 = i + row0 if symmetric else 0
        for j in range(j0, m):
            s = 0.0
            for a in range(px[i], px[i + 1]):
                ka = kx[a]
                acc = 0.0
                for b in range(py[j], py[j + 1]):
                    mm = _mismatches(ka, ky[b])
                    if mm <= d:
                        acc += wy[b] * w[mm]
                    if rc:
                        mm = _mismatches(ka, kry[b])
                        if mm <= d:
                            acc += wy[b] * w[mm]
                s += wx[a] * acc
            out[i, j] = s
    return out


@numba.njit(cache=True, nogil=True)
def pairs_diag(kx, krx, wx, px, w, rc, out):
    """``out[i]``: :func:`pairs_block` of each sequence with itself."""
    d = w.shape[0] - 1
    for i in range(px.shape[0] - 1):
        s = 0.0
        for a in range(px[i], px[i + 1]):
            acc = 0.0
            for b in range(px[i], px[i + 1]):
                mm = _mismatches(kx[a], kx[b])
                if mm <= d:
                    acc += wx[b] * w[mm]
                if rc:
                    mm = _mismatches(kx[a], krx[b])
                    if mm <= d:
                        acc += wx[b] * w[mm]
            s += wx[a] * acc
        out[i] = s
    return out


@numba.njit(cache=True, nogil=True)
def _gather(v, kept, n_kept):
    c = np.int64(0)
    for j in range(n_kept):
        c = (c << 2) | ((v >> kept[j]) & 3)
    return c


@numba.njit(cache=True, nogil=True)
def _sort_by_kept(keys, rows, weights, kept, n_kept, buffers, counts, radix_bits, unit):
    """Sort ``(keys, rows, weights)`` by the 2-bit fields at bit offsets
    ``kept`` of the keys: a stable LSD radix sort with digits of at most
    ``radix_bits`` bits (equal fields keep their order, so rows stay
    ascending; with ``unit`` the weights, all 1, are not moved). Returns the
    sorted ``(gathered fields, keys, rows, weights)``, views of ``buffers``.

    Digits of 8 bits (two passes for 8 kept positions) beat one pass of 16:
    256 write streams stay in the cache, 65,536 do not (1,166 nfe2
    windows, l = 11, d = 3: the 165 sorts take 1.9 s against 3.4 s)."""
    N = keys.shape[0]
    ck0, sk0, sr0, sw0, ck1, sk1, sr1, sw1 = buffers
    bits = 2 * n_kept
    passes = max(1, (bits + radix_bits - 1) // radix_bits)
    digit = (bits + passes - 1) // passes
    base = np.int64(1) << digit
    dmask = base - 1
    for q in range(N):
        ck1[q] = _gather(keys[q], kept, n_kept)
    src_c, src_k, src_r, src_w = ck1, keys, rows, weights
    dst_c, dst_k, dst_r, dst_w = ck0, sk0, sr0, sw0
    for ps in range(passes):
        shift = ps * digit
        counts[: base + 1] = 0
        for q in range(N):
            counts[((src_c[q] >> shift) & dmask) + 1] += 1
        for b in range(base):
            counts[b + 1] += counts[b]
        for q in range(N):
            c = src_c[q]
            key = (c >> shift) & dmask
            z = counts[key]
            counts[key] = z + 1
            dst_c[z] = c
            dst_k[z] = src_k[q]
            dst_r[z] = src_r[q]
            if not unit:
                dst_w[z] = src_w[q]
        if ps % 2 == 0:
            src_c, src_k, src_r, src_w = ck0, sk0, sr0, sw0
            dst_c, dst_k, dst_r, dst_w = ck1, sk1, sr1, sw1
        else:
            src_c, src_k, src_r, src_w = ck1, sk1, sr1, sw1
            dst_c, dst_k, dst_r, dst_w = ck0, sk0, sr0, sw0
    return src_c, src_k, src_r, src_w


@numba.njit(cache=True, nogil=True)
def self_pairs(rows, weights, w0, mode, out):
    """The pair of every forward l-mer (even ``rows``, see
    :func:`subsets_block`) with itself: ``w0 v_a^2`` on its row's diagonal
    (mode 0) or diagonal entry (mode 2); :func:`subsets_block` leaves these
    out."""
    for a in range(rows.shape[0]):
        if rows[a] & 1:
            continue
        r = rows[a] >> 1
        v = w0 * weights[a] * weights[a]
        if mode == 0:
            out[r, r] += v
        else:
            out[r, 0] += v
    return out


@numba.njit(cache=True, nogil=True)
def _split_pattern(subset, l, deleted, kept, gone):
    """The kept and deleted positions of one deletion pattern ``subset``
    as bit offsets (position ``p`` is at ``2 (l - 1 - p)``), written into
    ``kept`` and ``gone`` in order of position; returns ``(n_kept, smask,
    fbit)``: the mask of the deleted positions' bits and the lowest kept
    position's low bit, below which a pair's agreements in the pattern must
    all lie for it to count here (``2^(2 l)`` when all are deleted, d = l:
    every pair counts)."""
    deleted[:] = False
    for j in range(subset.shape[0]):
        deleted[subset[j]] = True
    n_kept = 0
    n_gone = 0
    smask = np.int64(0)
    low = np.int64(0)
    for p in range(l):
        offset = 2 * (l - 1 - p)
        low |= np.int64(1) << offset
        if deleted[p]:
            smask |= np.int64(1) << offset
            gone[n_gone] = offset
            n_gone += 1
        else:
            kept[n_kept] = offset
            n_kept += 1
    free = low & ~smask
    fbit = free & -free
    if free == 0:
        fbit = np.int64(1) << (2 * l)
    return n_kept, smask, fbit


@numba.njit(cache=True, nogil=True)
def subsets_block(
    keys, rows, weights, l, subsets, w, n_x, mode, out, radix_bits, tile_bits, buffer_hits, stop
):
    """``out += sum over pairs of distinct l-mers within d = len(w) - 1
    mismatches`` of ``w[mm] v_a v_b``, by grouping over deleted positions.

    For every set ``S`` of ``d`` positions (the rows of ``subsets``) the
    l-mers are sorted by the other ``l - d`` positions; a pair within ``d``
    mismatches agrees there for every ``S`` holding its mismatches, and is
    counted in one of them only: ``S`` = its mismatches plus the lowest free
    positions (lowest bit offsets), i.e. the positions of ``S`` where the
    pair agrees all lie below the lowest position outside ``S``.

    ``keys, rows, weights``: the l-mers of all sequences, ``rows`` ascending;
    ``rows[a]`` is ``2 i`` for an l-mer of sequence ``i`` read forward and
    ``2 i + 1`` for the reverse complement of one (present when reverse
    complements count). ``K(x, y) = sum_{a in x, b in y} w(a, b) + w(a,
    rc b)``, and ``w(rc a, rc b) = w(a, b)``, ``w(rc a, b) = w(a, rc b)``,
    so a pair of l-mers of two sequences counts once when the one of the
    earlier sequence is forward, and not at all when it is a reverse
    complement; within one sequence two forward l-mers count twice (both
    orders), a forward and a reverse one once. A reverse-complement l-mer
    therefore starts no pair (its loop ends at once): half the pair visits
    of comparing both strands with both.

    ``mode`` 0: Gram of sequences ``0..n - 1`` (upper triangle of ``out``);
    1: cross-Gram of sequences ``< n_x`` against those ``>= n_x``; 2: the
    diagonal only (``out[i, 0]``). The pair of an l-mer with itself is left
    to :func:`self_pairs` (only the full set of patterns would count it,
    once). Separate calls over disjoint sets of patterns add up to the call
    over their union.

    With ``buffer_hits > 0`` the pairs found are not added into ``out`` one
    by one (each a cache miss once ``out`` outgrows the cache) but gathered,
    ``buffer_hits`` at a time, and added tile by tile of ``2^tile_bits``
    rows and columns (:func:`_add_by_tiles`).

    The loop ends early, ``out`` incomplete, once ``stop[0]`` is set
    (another thread's request, checked before each pattern).
    """
    d = w.shape[0] - 1
    n_cols = out.shape[1]
    buffered = buffer_hits > 0 and mode != 2
    cap = buffer_hits if buffered else 1
    hr = np.empty(cap, dtype=np.int32)
    hc = np.empty(cap, dtype=np.int32)
    hv = np.empty(cap, dtype=np.float64)
    tr = np.empty(cap, dtype=np.int32)
    tc = np.empty(cap, dtype=np.int32)
    tv = np.empty(cap, dtype=np.float64)
    n_tr = ((out.shape[0] - 1) >> tile_bits) + 1
    n_tc = ((n_cols - 1) >> tile_bits) + 1
    tcount = np.empty(n_tr * n_tc + 1 if buffered else 1, dtype=np.int64)
    nh = 0
    N = keys.shape[0]
    buffers = (
        np.empty(N, dtype=np.int64),
        np.empty(N, dtype=np.int64),
        np.empty(N, dtype=np.int64),
        np.empty(N, dtype=np.float64),
        np.empty(N, dtype=np.int64),
        np.empty(N, dtype=np.int64),
        np.empty(N, dtype=np.int64),
        np.empty(N, dtype=np.float64),
    )
    counts = np.empty((np.int64(1) << radix_bits) + 1, dtype=np.int64)
    unit = True  # all weights 1: the sort need not move them
    for a in range(N):
        if weights[a] != 1.0:
            unit = False
            break
    deleted = np.zeros(l, dtype=np.bool_)
    kept = np.empty(l, dtype=np.int64)
    gone = np.empty(max(d, 1), dtype=np.int64)
    low = np.int64(0)
    for p in range(l):
        low |= np.int64(1) << (2 * p)
    for z in range(subsets.shape[0]):
        if stop[0]:
            break
        n_kept, smask, fbit = _split_pattern(subsets[z], l, deleted, kept, gone)
        ck, sk, sr, sw = _sort_by_kept(
            keys, rows, weights, kept, n_kept, buffers, counts, radix_bits, unit
        )
        q = 0
        while q < N:
            e = q + 1
            while e < N and ck[e] == ck[q]:
                e += 1
            for a in range(q, e - 1):
                sa = sr[a]
                if sa & 1:
                    continue  # a reverse complement starts no pair
                ra = sa >> 1
                if mode == 1 and ra >= n_x:
                    break  # rows ascend within a group: the rest are y rows
                ka = sk[a]
                wa = 1.0 if unit else sw[a]
                for b in range(a + 1, e):
                    sb = sr[b]
                    rb = sb >> 1
                    if mode == 1:
                        if rb < n_x:
                            continue
                    elif mode == 2 and rb != ra:
                        break
                    x = ka ^ sk[b]
                    x = (x | (x >> 1)) & low
                    v = w[int(_popcount(np.uint64(x)))] * wa  # within d: same group
                    if not unit:
                        v *= sw[b]
                    if sb == sa:
                        v *= 2.0  # two forward l-mers of one sequence: both orders
                    if buffered:  # written always, kept when counted here (no branch)
                        hr[nh] = ra
                        hc[nh] = rb if mode == 0 else rb - n_x
                        hv[nh] = v
                        nh += (smask & ~x) < fbit
                    else:
                        if (smask & ~x) >= fbit:
                            continue  # counted under another set of positions
                        if mode == 2:
                            out[ra, 0] += v
                        else:
                            out[ra, rb if mode == 0 else rb - n_x] += v
                        continue
                    if nh == cap:
                        _add_by_tiles(hr, hc, hv, nh, out, tile_bits, n_tc, tcount, tr, tc, tv)
                        nh = 0
            q = e
    if nh:
        _add_by_tiles(hr, hc, hv, nh, out, tile_bits, n_tc, tcount, tr, tc, tv)
    return out


@numba.njit(cache=True, nogil=True)
def _add_by_tiles(hr, hc, hv, nh, out, tile_bits, n_tc, tcount, tr, tc, tv):
    """``out[hr[h], hc[h]] += hv[h]`` for ``h < nh``, tile by tile: a
    counting sort of the entries by their tile of ``2^tile_bits`` rows and
    columns (into ``tr, tc, tv``), then the additions in that order, each
    tile's block of ``out`` staying in the cache while it is written.

    1,166 nfe2 windows at (11, 7, 3): 9.9e7 additions into the 10.9 MB Gram
    took 3.3 s one by one (33 ns each, a cache miss)."""
    tcount[:] = 0
    for h in range(nh):
        t = (hr[h] >> tile_bits) * n_tc + (hc[h] >> tile_bits)
        tcount[t + 1] += 1
    for t in range(tcount.shape[0] - 1):
        tcount[t + 1] += tcount[t]
    for h in range(nh):
        t = (hr[h] >> tile_bits) * n_tc + (hc[h] >> tile_bits)
        z = tcount[t]
        tcount[t] = z + 1
        tr[z] = hr[h]
        tc[z] = hc[h]
        tv[z] = hv[h]
    for z in range(nh):
        out[tr[z], tc[z]] += tv[z]


@numba.njit(cache=True, nogil=True)
def count_features(keys, keys_rc, weights, ptr, kept, mirror, rc):
    """Gapped k-mer counts of each row as CSR ``(indptr, indices, data)``.

    ``kept[s]``: bit offsets of the ``k`` informative positions of pattern
    ``s`` (first position most significant); the gapped k-mer of l-mer ``a``
    under ``s`` is column ``s 4^k + (a's bases there)``. With ``rc`` a
    gapped k-mer and its reverse complement (pattern ``mirror[s]`` of the
    reverse-complemented l-mer) are one column, the smaller; a palindromic
    one (its own reverse complement) counts ``sqrt 2``. Columns ascend
    within each row; equal ones are summed.
    """
    S, k = kept.shape
    n = ptr.shape[0] - 1
    ids = np.empty(ptr[n] * S, dtype=np.int64)
    vals = np.empty(ptr[n] * S, dtype=np.float64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    root2 = np.sqrt(2.0)
    t = 0
    for i in range(n):
        start = t
        for a in range(ptr[i], ptr[i + 1]):
            for s in range(S):
                g = (np.int64(s) << (2 * k)) | _gather(keys[a], kept[s], k)
                v = weights[a]
                if rc:
                    r = mirror[s]
                    g2 = (np.int64(r) << (2 * k)) | _gather(keys_rc[a], kept[r], k)
                    if g2 == g:
                        v *= root2
                    elif g2 < g:
                        g = g2
                ids[t] = g
                vals[t] = v
                t += 1
        seg = ids[start:t]
        order = np.argsort(seg, kind="mergesort")
        sid = seg[order]
        sval = vals[start:t][order]
        u = indptr[i]
        for q in range(sid.shape[0]):
            if q > 0 and sid[q] == sid[q - 1]:
                vals[u - 1] += sval[q]
            else:
                ids[u] = sid[q]
                vals[u] = sval[q]
                u += 1
        indptr[i + 1] = u
        t = u
    return indptr, ids[:t].copy(), vals[:t].copy()


@numba.njit(cache=True, nogil=True)
def _pattern_codes(deleted_offsets, d, fbit):
    """The packed form's pair table of one deletion pattern: entry ``u 4^d +
    v`` for two l-mers whose bases at the ``d`` deleted positions are ``u``
    and ``v`` (two bits each, in ``deleted_offsets`` order): their number of
    mismatches, or -1 when the pair is counted under another pattern (it
    agrees at a deleted position at or above the lowest kept one, bit
    offset ``fbit``; see :func:`subsets_block`)."""
    size = np.int64(1) << (2 * d)
    codes = np.empty(size * size, dtype=np.int64)
    for u in range(size):
        for v in range(size):
            mm = 0
            ok = True
            for j in range(d):
                if ((u >> (2 * j)) & 3) != ((v >> (2 * j)) & 3):
                    mm += 1
                elif (np.int64(1) << deleted_offsets[j]) >= fbit:
                    ok = False
            codes[u * size + v] = mm if ok else -1
    return codes


@numba.njit(cache=True, nogil=True)
def _packing_tables(kept, n_kept, gone, d, cshift, chunk_bits, tables):
    """``tables[c, v]``: what the key bits ``v << (c chunk_bits)`` put into
    the packed l-mer of :func:`packed_subsets_block` (their kept bases,
    gathered, at ``cshift``; their deleted bases at the bottom). Each bit of
    a key goes to one place, so a key's packed form (without its row) is
    the OR over its chunks: two look-ups at l = 11 instead of gathering
    ``l`` fields one by one."""
    for c in range(tables.shape[0]):
        lo = c * chunk_bits
        for v in range(tables.shape[1]):
            key = np.int64(v) << lo
            dd = np.int64(0)
            for j in range(d):
                dd |= ((key >> gone[j]) & 3) << (2 * j)
            tables[c, v] = (_gather(key, kept, n_kept) << cshift) | dd


@numba.njit(cache=True, nogil=True)
def packed_subsets_block(
    keys, rows, l, subsets, w, n_x, mode, out, radix_bits, tile_bits, buffer_hits, codes_in,
    vals_in, stop,
):  # fmt: skip
    """:func:`subsets_block` for l-mers all of weight 1 and a short pattern
    (``4^(2 d)`` table entries), with each l-mer packed into one int64 per
    pattern: its bases at the kept positions (the group), its row and its
    bases at the ``d`` deleted positions, from high bits to low.

    The packed form is the OR of a few table look-ups per l-mer
    (:func:`_packing_tables`). The radix sort then moves one array instead
    of four (the gathered field, key, row and weight), and a pair's weight and whether it counts
    under this pattern are one look-up of the two l-mers' deleted bases in
    a table built per pattern (:func:`_pattern_codes`); within a group the
    kept bases agree, so the deleted ones decide both. Same arguments and
    result as :func:`subsets_block` (``rows`` below ``2^(63 - 2 l)``),
    the same additions in the same order.

    With ``codes_in`` of one row per pattern (mode 0, both strands: the
    mirror-pattern Gram of :func:`structk.algorithms.gapped_kmers.mirror_codes`)
    the pair tables are given instead: entry ``c >= 0`` weighs a pair of
    two sequences ``vals_in[2 c]`` and a pair within one sequence
    ``vals_in[2 c + 1]``, and every l-mer starts pairs, reverse
    complements too.
    """
    d = w.shape[0] - 1
    N = keys.shape[0]
    n_cols = out.shape[1]
    buffered = buffer_hits > 0 and mode != 2
    cap = buffer_hits if buffered else 1
    hits = np.empty(cap, dtype=np.int64)
    sorted_hits = np.empty(cap, dtype=np.int64)
    col_bits = 1
    while (np.int64(1) << col_bits) <= n_cols:
        col_bits += 1
    given = codes_in.shape[0] > 0
    vals = np.empty(2 * (d + 1), dtype=np.float64)  # mm, and both orders
    for m in range(d + 1):
        vals[2 * m] = w[m]
        vals[2 * m + 1] = 2.0 * w[m]
    if given:
        vals = vals_in
    n_tr = ((out.shape[0] - 1) >> tile_bits) + 1
    n_tc = ((n_cols - 1) >> tile_bits) + 1
    tcount = np.empty(n_tr * n_tc + 1 if buffered else 1, dtype=np.int64)
    nh = 0
    top = np.int64(0)
    for a in range(N):
        top = max(top, rows[a])
    row_bits = 1
    while (np.int64(1) << row_bits) <= top:
        row_bits += 1
    dshift = 2 * d
    dsize = np.int64(1) << dshift
    dmask_low = dsize - 1
    rshift = dshift
    rmask = (np.int64(1) << row_bits) - 1
    cshift = rshift + row_bits
    n_kept = l - d
    bits = 2 * n_kept
    passes = max(1, (bits + radix_bits - 1) // radix_bits)
    digit = (bits + passes - 1) // passes
    base = np.int64(1) << digit
    bmask = base - 1
    chunk_bits = min(2 * l, 11)
    tables = np.empty(((2 * l + chunk_bits - 1) // chunk_bits, 1 << chunk_bits), dtype=np.int64)
    chunk_mask = (np.int64(1) << chunk_bits) - 1
    rowpart = np.empty(N, dtype=np.int64)
    for q in range(N):
        rowpart[q] = rows[q] << rshift
    src = np.empty(N, dtype=np.int64)
    dst = np.empty(N, dtype=np.int64)
    counts = np.empty((passes, base + 1), dtype=np.int64)
    deleted = np.zeros(l, dtype=np.bool_)
    kept = np.empty(l, dtype=np.int64)
    gone = np.empty(max(d, 1), dtype=np.int64)
    for z in range(subsets.shape[0]):
        if stop[0]:
            break
        fbit = _split_pattern(subsets[z], l, deleted, kept, gone)[2]
        codes = codes_in[z] if given else _pattern_codes(gone, d, fbit)
        _packing_tables(kept, n_kept, gone, d, cshift, chunk_bits, tables)
        counts[:, :] = 0
        for q in range(N):  # pack, and count every pass's digits at once
            v = keys[q]
            e = rowpart[q]
            for c in range(tables.shape[0]):
                e |= tables[c, (v >> (c * chunk_bits)) & chunk_mask]
            src[q] = e
            for ps in range(passes):
                counts[ps, ((e >> (cshift + ps * digit)) & bmask) + 1] += 1
        for ps in range(passes):
            for b in range(base):
                counts[ps, b + 1] += counts[ps, b]
            shift = cshift + ps * digit
            for q in range(N):
                e = src[q]
                key = (e >> shift) & bmask
                t = counts[ps, key]
                counts[ps, key] = t + 1
                dst[t] = e
            src, dst = dst, src
        q = 0
        while q < N:
            g = src[q] >> cshift
            e = q + 1
            while e < N and (src[e] >> cshift) == g:
                e += 1
            ystart = q  # mode 1: the group's first y row (rows ascend)
            if mode == 1:
                while ystart < e and ((src[ystart] >> rshift) & rmask) >> 1 < n_x:
                    ystart += 1
            for a in range(q, e - 1):
                ea = src[a]
                sa = (ea >> rshift) & rmask
                if sa & 1 and not given:
                    continue  # a reverse complement starts no pair
                ra = sa >> 1
                if mode == 1 and ra >= n_x:
                    break  # rows ascend within a group: the rest are y rows
                ta = (ea & dmask_low) << dshift
                for b in range(max(a + 1, ystart), e):
                    eb = src[b]
                    sb = (eb >> rshift) & rmask
                    rb = sb >> 1
                    if mode == 2 and rb != ra:
                        break
                    code = codes[ta | (eb & dmask_low)]
                    # two forward l-mers of one sequence count in both orders
                    vc = 2 * max(code, 0) + ((rb == ra) if given else (sb == sa))
                    if buffered:  # written always, kept when counted here
                        col = rb if mode == 0 else rb - n_x
                        hits[nh] = (((np.int64(ra) << col_bits) | col) << 4) | vc
                        nh += code >= 0
                        if nh == cap:
                            _add_packed_hits(
                                hits, nh, out, col_bits, vals, tile_bits, n_tc, tcount, sorted_hits
                            )
                            nh = 0
                    elif code >= 0:
                        if mode == 2:
                            out[ra, 0] += vals[vc]
                        else:
                            out[ra, rb if mode == 0 else rb - n_x] += vals[vc]
            q = e
    if nh:
        _add_packed_hits(hits, nh, out, col_bits, vals, tile_bits, n_tc, tcount, sorted_hits)
    return out


@numba.njit(cache=True, nogil=True)
def blocked_subsets_gram(keys, rows, l, subsets, w, out, block_rows, codes_in, vals_in, stop):
    """The Gram (upper triangle) of :func:`packed_subsets_block` (mode 0)
    with the sequences in blocks of ``block_rows`` and no buffered hits.

    For each deletion pattern each block's l-mers are sorted on their own
    by one counting pass over the ``4^(l - d)`` groups (the kept bases),
    keeping an offset table per block (``G + 1`` entries); then each pair
    of blocks ``I <= J`` is visited group by group, pairs of an l-mer of
    ``I`` with a later one of ``J`` in the group, adding straight into
    ``out[I, J]`` (``block_rows^2`` float64, which stays in the cache while
    the pair of blocks is visited). A pair's value is one look-up of the
    two l-mers' deleted bases in a table of the pattern (0 when the pair
    is counted under another pattern, so that the loop has no branch),
    doubled for two l-mers of one sequence (both orders).

    Every l-mer starts pairs: with ``codes_in`` and ``vals_in`` those of
    :func:`structk.algorithms.gapped_kmers.mirror_codes` (both strands in
    ``keys``, half the patterns), else the l-mers of one strand (``rows``
    even) and :func:`_pattern_codes`. Each l-mer is packed as its sequence
    and deleted bases in 32 bits (``rows >> 1`` below ``2^(32 - 2 d)``).
    The pairs of each entry of ``out`` are added in the order of
    :func:`packed_subsets_block`'s (patterns, groups, then l-mers in
    ascending order), so the two give the same Gram bit for bit.

    The loop ends early, ``out`` incomplete, once ``stop[0]`` is set
    (checked before each pattern).
    """
    N = keys.shape[0]
    n = out.shape[0]
    d = w.shape[0] - 1
    given = codes_in.shape[0] > 0
    dshift = 2 * d
    dmask = (np.int64(1) << dshift) - 1
    n_kept = l - d
    G = np.int64(1) << (2 * n_kept)
    nb = (n + block_rows - 1) // block_rows
    sptr = np.zeros(n + 1, dtype=np.int64)  # each sequence's l-mers (rows ascend)
    for q in range(N):
        sptr[(rows[q] >> 1) + 1] += 1
    for i in range(n):
        sptr[i + 1] += sptr[i]
    chunk_bits = min(2 * l, 11)
    tables = np.empty(((2 * l + chunk_bits - 1) // chunk_bits, 1 << chunk_bits), dtype=np.int64)
    n_tables = tables.shape[0]
    chunk_mask = (np.int64(1) << chunk_bits) - 1
    packed = np.empty(N, dtype=np.int64)  # group << 32 | sequence << 2 d | deleted
    srt = np.empty(N, dtype=np.uint32)
    ends = np.empty((nb, G), dtype=np.int64)
    size = np.int64(1) << dshift
    cval = np.empty(size * size)
    deleted = np.zeros(l, dtype=np.bool_)
    kept = np.empty(l, dtype=np.int64)
    gone = np.empty(max(d, 1), dtype=np.int64)
    # unsigned indices: no wraparound test for negative ones in the loops
    ush = np.uint64(dshift)
    umask = np.uint64(dmask)
    ucols = np.uint64(n)
    one = np.uint64(1)
    flat = out.reshape(n * n)
    low32 = (np.int64(1) << 32) - 1
    for z in range(subsets.shape[0]):
        if stop[0]:
            break
        fbit = _split_pattern(subsets[z], l, deleted, kept, gone)[2]
        codes = codes_in[z] if given else _pattern_codes(gone, d, fbit)
        for t in range(size * size):
            c = codes[t]
            cval[t] = 0.0 if c < 0 else (vals_in[2 * c] if given else w[c])
        _packing_tables(kept, n_kept, gone, d, 32, chunk_bits, tables)
        for bi in range(nb):  # counting sort of each block by its groups
            o = ends[bi]
            o[:] = 0
            i0 = bi * block_rows
            i1 = min(n, i0 + block_rows)
            for i in range(i0, i1):
                part = np.int64(i) << dshift
                for q in range(sptr[i], sptr[i + 1]):
                    v = keys[q]
                    e = part
                    for c in range(n_tables):
                        e |= tables[c, (v >> (c * chunk_bits)) & chunk_mask]
                    packed[q] = e
                    o[e >> 32] += 1
            acc = sptr[i0]
            for g in range(G):
                c = o[g]
                o[g] = acc
                acc += c
            for q in range(sptr[i0], sptr[i1]):
                e = packed[q]
                g = e >> 32
                t = o[g]
                srt[t] = np.uint32(e & low32)
                o[g] = t + 1  # at the end: the end of group g
        for bi in range(nb):
            oi = ends[bi]
            for bj in range(bi, nb):
                oj = ends[bj]
                s0 = sptr[bi * block_rows]
                if bi == bj:
                    for g in range(G):
                        s1 = oi[g]
                        if s1 - s0 >= 2:
                            for a in range(np.uint64(s0), np.uint64(s1 - 1)):
                                ea = np.uint64(srt[a])
                                ra = ea >> ush
                                ta = (ea & umask) << ush
                                base = ra * ucols
                                for b in range(a + one, np.uint64(s1)):
                                    eb = np.uint64(srt[b])
                                    rb = eb >> ush
                                    v = cval[ta | (eb & umask)]
                                    if rb == ra:
                                        v += v  # two l-mers of one sequence: both orders
                                    flat[base + rb] += v
                        s0 = s1
                    continue
                u0 = sptr[bj * block_rows]
                for g in range(G):
                    s1 = oi[g]
                    u1 = oj[g]
                    if s1 != s0 and u1 != u0:
                        for a in range(np.uint64(s0), np.uint64(s1)):
                            ea = np.uint64(srt[a])
                            ta = (ea & umask) << ush
                            base = (ea >> ush) * ucols
                            for b in range(np.uint64(u0), np.uint64(u1)):
                                eb = np.uint64(srt[b])
                                flat[base + (eb >> ush)] += cval[ta | (eb & umask)]
                    s0 = s1
                    u0 = u1
    return out


@numba.njit(cache=True, nogil=True)
def _add_packed_hits(hits, nh, out, col_bits, vals, tile_bits, n_tc, tcount, sorted_hits):
    """:func:`_add_by_tiles` for the hits of :func:`packed_subsets_block`,
    each one int64 (row, column, and a 4-bit index into ``vals``)."""
    cmask = (np.int64(1) << col_bits) - 1
    tcount[:] = 0
    for h in range(nh):
        e = hits[h] >> 4
        t = ((e >> col_bits) >> tile_bits) * n_tc + ((e & cmask) >> tile_bits)
        tcount[t + 1] += 1
    for t in range(tcount.shape[0] - 1):
        tcount[t + 1] += tcount[t]
    for h in range(nh):
        e = hits[h] >> 4
        t = ((e >> col_bits) >> tile_bits) * n_tc + ((e & cmask) >> tile_bits)
        z = tcount[t]
        tcount[t] = z + 1
        sorted_hits[z] = hits[h]
    for z in range(nh):
        e = sorted_hits[z]
        f = e >> 4
        out[f >> col_bits, f & cmask] += vals[e & 15]


@numba.njit(cache=True, nogil=True)
def profile_table(keys, keys_rc, weights, ptr, coef, rc, l, out):
    """``out[m, u] += coef[m, i] v_b`` for every l-mer ``b = u`` of
    sequence ``i`` (and, with ``rc``, its reverse complement ``rc b = u``):
    the l-mers of all sequences, each weighted by its sequence's
    coefficient, as one dense table over the ``4^l`` l-mers per row of
    ``coef`` (:func:`hamming_convolve` then turns it into every l-mer's
    kernel sum against them)."""
    for m in range(coef.shape[0]):
        for i in range(ptr.shape[0] - 1):
            c = coef[m, i]
            if c == 0.0:
                continue
            for b in range(ptr[i], ptr[i + 1]):
                v = c * weights[b]
                out[m, keys[b]] += v
                if rc:
                    out[m, keys_rc[b]] += v
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def _hadamard4(t, l):
    """The Walsh-Hadamard transform of ``t`` (length ``4^l``) in place, one
    2-bit l-mer position at a time: ``t[s] <- sum_u (-1)^popcount(s & u)
    t[u]``, without scaling."""
    h = 1
    for _ in range(l):
        for start in range(0, t.shape[0], 4 * h):
            for j in range(start, start + h):
                a = t[j]
                b = t[j + h]
                c = t[j + 2 * h]
                e = t[j + 3 * h]
                ab, amb = a + b, a - b
                ce, cme = c + e, c - e
                t[j] = ab + ce
                t[j + h] = amb + cme
                t[j + 2 * h] = ab - ce
                t[j + 3 * h] = amb - cme
        h *= 4


@numba.njit(cache=True, nogil=True)
def hamming_convolve(t, l, eig):
    """``t[a] <- sum_u t[u] w[mm(a, u)]`` for every l-mer ``a`` (``t`` of
    length ``4^l``, l-mers packed two bits a base), given the eigenvalues
    ``eig[j] = sum_m w[m] K_m(j)`` of the weight matrix (``K_m`` the
    Krawtchouk polynomials of the Hamming scheme H(l, 4)).

    Reading a base's two bits as an element of Z_2 x Z_2, the characters
    ``(-1)^popcount(s & u)`` of Z_2^(2 l) diagonalise every matrix
    ``[w(mm(a, u))]``: character ``s`` has eigenvalue ``eig[j]``, ``j`` the
    number of positions where ``s`` is not 00. So the sum is one
    Walsh-Hadamard transform, a scaling by ``eig[j] / 4^l`` and a second
    transform: ``O(l 4^l)``, whatever the number of l-mers in ``t``."""
    _hadamard4(t, l)
    scale = np.empty(eig.shape[0])
    for j in range(eig.shape[0]):
        scale[j] = eig[j] / t.shape[0]
    for s in range(t.shape[0]):
        x = (s | (s >> 1)) & _LOW
        t[s] *= scale[_popcount(np.uint64(x))]
    _hadamard4(t, l)
    return t


@numba.njit(cache=True, nogil=True)
def table_block(
    kx, wx, px, deltas, dweights, cols, ustart, ukeys, uptr, occ_col, occ_w, symmetric, out,
    row0, table, acc,
):  # fmt: skip
    """:func:`pairs_block` through dense tables over all ``4^l`` l-mers, a
    block of sequences ``x_i`` at a time: each of the block's ``R =
    table.shape[0]`` sequences gets its own table, with ``v_a w[m]`` at
    every l-mer ``a ^ deltas[t]`` within ``d`` mismatches of each of its
    l-mers ``a`` (``dweights[t] = w[m]``, ``m`` the non-zero 2-bit fields
    of ``deltas[t]``: every neighbour once); then ``out[i, j] = sum_u
    table_i[u] (occurrences of u in y_j)`` (and in its reverse complement),
    read off an index of the ``y`` l-mers (:func:`table_index`): the
    columns in blocks (``cols[c]:cols[c + 1]``), in each block the distinct
    l-mers ascending (``ukeys[ustart[c]:ustart[c + 1]]``, occurrences
    ``uptr[g]:uptr[g + 1]`` with their column ``occ_col`` and weight
    ``occ_w``). So the tables are read in order, each entry once per
    column block for all ``R`` rows, and the sums ``acc`` (block columns
    by ``R``) stay in the cache; the entries written are set back to 0
    (``table`` comes and goes all zeros).

    ``O(W_x V + W_x W_y / W_x)`` per pair instead of ``O(W_x W_y)``, with
    ``V = sum_{m <= d} C(l, m) 3^m`` neighbours an l-mer: it pays for short
    l-mers, where a table stays in the cache while it is written and ``V``
    is small (l = 8, d = 2: 512 KiB, V = 277). ``out`` gets the rows
    ``row0 + (0 .. len(px) - 2)``, with ``symmetric`` only its entries
    ``j >= i``."""
    n = px.shape[0] - 1
    R = table.shape[0]
    n_deltas = deltas.shape[0]
    size = table.shape[1]
    tv = np.empty(R)
    for i0 in range(0, n, R):
        nb = min(R, n - i0)
        writes = 0
        for r in range(nb):
            for a in range(px[i0 + r], px[i0 + r + 1]):
                ka = kx[a]
                va = wx[a]
                for t in range(n_deltas):
                    table[r, ka ^ deltas[t]] += va * dweights[t]
            writes += (px[i0 + r + 1] - px[i0 + r]) * n_deltas
        first = i0 + row0 if symmetric else 0
        for c in range(cols.shape[0] - 1):
            c0 = cols[c]
            c1 = cols[c + 1]
            if c1 <= first:
                continue
            acc[: c1 - c0, :] = 0.0
            for g in range(ustart[c], ustart[c + 1]):
                u = ukeys[g]
                for r in range(nb):
                    tv[r] = table[r, u]
                for o in range(uptr[g], uptr[g + 1]):
                    j = occ_col[o] - c0
                    wo = occ_w[o]
                    for r in range(nb):
                        acc[j, r] += wo * tv[r]
            for j in range(max(c0, first), c1):
                for r in range(nb):
                    if not symmetric or j >= i0 + row0 + r:
                        out[i0 + r, j] = acc[j - c0, r]
        if writes >= nb * size:
            table[:nb, :] = 0.0  # fewer writes than undoing each
            continue
        for r in range(nb):
            for a in range(px[i0 + r], px[i0 + r + 1]):
                ka = kx[a]
                for t in range(n_deltas):
                    table[r, ka ^ deltas[t]] = 0.0
    return out
