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
from numba.core import types
from numba.extending import intrinsic


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a ``uint64`` (LLVM ``ctpop``)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


_LOW = np.uint64(0x5555555555555555)
_ONE = np.uint64(1)


@numba.njit(cache=True, nogil=True, inline="always")
def _mismatches(a, b):
    x = np.uint64(a ^ b)
    return int(_popcount((x | (x >> _ONE)) & _LOW))


@numba.njit(cache=True, nogil=True)
def lmer_windows(codes, offsets, l, A, center, M, H):
    """Every l-mer free of unknown symbols (codes >= A), row by row.

    Returns ``(keys, keys_rc, weights, ptr)``: the packed l-mer, its reverse
    complement (code ``c`` pairs with ``3 - c``), and its weight (1, or with
    ``center`` LS-GKM's ``min(M, floor(M 2^(-D / H) + 1))``, ``D`` the
    distance of its start from the middle start ``(L - l + 1) // 2``).
    """
    n = offsets.shape[0] - 1
    cap = 0
    for i in range(n):
        cap += max(0, offsets[i + 1] - offsets[i] - l + 1)
    keys = np.empty(cap, dtype=np.int64)
    keys_rc = np.empty(cap, dtype=np.int64)
    weights = np.empty(cap, dtype=np.float64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    mask = (np.int64(1) << (2 * l)) - 1
    top = 2 * (l - 1)
    t = 0
    for i in range(n):
        start = offsets[i]
        length = offsets[i + 1] - start
        middle = (length - l + 1) // 2
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
                if center:
                    dist = abs(middle - (p - l + 1))
                    wt = np.floor(M * np.exp(-np.log(2.0) * dist / H) + 1.0)
                    weights[t] = min(wt, float(M))
                else:
                    weights[t] = 1.0
                t += 1
        ptr[i + 1] = t
    return keys[:t], keys_rc[:t], weights[:t], ptr


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
def _sort_by_kept(keys, rows, weights, kept, n_kept, buffers, counts):
    """Sort ``(keys, rows, weights)`` by the 2-bit fields at bit offsets
    ``kept`` of the keys: a stable LSD radix sort with digits of at most 16
    bits (equal fields keep their order, so rows stay ascending). Returns
    the sorted ``(gathered fields, keys, rows, weights)``, views of
    ``buffers``."""
    N = keys.shape[0]
    ck0, sk0, sr0, sw0, ck1, sk1, sr1, sw1 = buffers
    bits = 2 * n_kept
    passes = max(1, (bits + 15) // 16)
    digit = (bits + passes - 1) // passes
    base = np.int64(1) << digit
    dmask = base - 1
    for q in range(N):
        ck1[q] = _gather(keys[q], kept, n_kept)
    src_c, src_k, src_r, src_w = ck1, keys, rows, weights
    dst_c, dst_k, dst_r, dst_w = ck0, sk0, sr0, sw0
    for ps in range(passes):
        shift = ps * digit
        counts[:base + 1] = 0
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
    """The pair of every l-mer with itself: ``w0 v_a^2`` on its row's
    diagonal (mode 0) or diagonal entry (mode 2); :func:`subsets_block`
    leaves these out."""
    for a in range(rows.shape[0]):
        v = w0 * weights[a] * weights[a]
        if mode == 0:
            out[rows[a], rows[a]] += v
        else:
            out[rows[a], 0] += v
    return out


@numba.njit(cache=True, nogil=True)
def subsets_block(keys, rows, weights, l, subsets, w, n_x, mode, out):
    """``out += sum over pairs of distinct l-mers within d = len(w) - 1
    mismatches`` of ``w[mm] v_a v_b``, by grouping over deleted positions.

    For every set ``S`` of ``d`` positions (the rows of ``subsets``) the
    l-mers are sorted by the other ``l - d`` positions; a pair within ``d``
    mismatches agrees there for every ``S`` holding its mismatches, and is
    counted in one of them only: ``S`` = its mismatches plus the lowest free
    positions (lowest bit offsets), i.e. the positions of ``S`` where the
    pair agrees all lie below the lowest position outside ``S``.

    ``keys, rows, weights``: the l-mers (both strands when reverse
    complements count) of all sequences, ``rows`` ascending. ``mode`` 0:
    Gram of rows ``0..n - 1`` (upper triangle of ``out``; a pair within one
    row counts in both orders); 1: cross-Gram of rows ``< n_x`` against rows
    ``>= n_x``; 2: the diagonal only (``out[i, 0]``). The pair of an l-mer
    with itself is left to :func:`self_pairs` (only the full set of
    patterns would count it, once). Separate calls over disjoint sets of
    patterns add up to the call over their union.
    """
    d = w.shape[0] - 1
    N = keys.shape[0]
    buffers = (np.empty(N, dtype=np.int64), np.empty(N, dtype=np.int64),
               np.empty(N, dtype=np.int64), np.empty(N, dtype=np.float64),
               np.empty(N, dtype=np.int64), np.empty(N, dtype=np.int64),
               np.empty(N, dtype=np.int64), np.empty(N, dtype=np.float64))
    counts = np.empty((1 << 16) + 1, dtype=np.int64)
    deleted = np.zeros(l, dtype=np.bool_)
    kept = np.empty(l, dtype=np.int64)
    low = np.int64(0)
    for p in range(l):
        low |= np.int64(1) << (2 * p)
    for z in range(subsets.shape[0]):
        deleted[:] = False
        for j in range(d):
            deleted[subsets[z, j]] = True
        n_kept = 0
        smask = np.int64(0)
        for p in range(l):  # position p is at bit offset 2 (l - 1 - p)
            if deleted[p]:
                smask |= np.int64(1) << (2 * (l - 1 - p))
            else:
                kept[n_kept] = 2 * (l - 1 - p)
                n_kept += 1
        free = low & ~smask
        fbit = free & -free  # lowest kept position: agreements in S must lie below
        ck, sk, sr, sw = _sort_by_kept(keys, rows, weights, kept, n_kept, buffers, counts)
        q = 0
        while q < N:
            e = q + 1
            while e < N and ck[e] == ck[q]:
                e += 1
            for a in range(q, e - 1):
                ka = sk[a]
                ra = sr[a]
                if mode == 1 and ra >= n_x:
                    break  # rows ascend within a group: the rest are y rows
                wa = sw[a]
                for b in range(a + 1, e):
                    rb = sr[b]
                    if mode == 1:
                        if rb < n_x:
                            continue
                    elif mode == 2 and rb != ra:
                        break
                    x = ka ^ sk[b]
                    x = (x | (x >> 1)) & low
                    if (smask & ~x) >= fbit:
                        continue  # counted under another set of positions
                    v = w[int(_popcount(np.uint64(x)))] * wa * sw[b]
                    if mode == 0:
                        if ra == rb:
                            v *= 2.0
                        out[ra, rb] += v
                    elif mode == 1:
                        out[ra, rb - n_x] += v
                    else:
                        out[ra, 0] += 2.0 * v
            q = e
    return out


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
