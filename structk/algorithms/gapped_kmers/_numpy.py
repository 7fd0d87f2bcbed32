"""NumPy form of the gapped k-mer loops (the reference of ``_numba``).

Same results as :func:`._numba.lmer_windows`, :func:`._numba.pairs_block`
and :func:`._numba.pairs_diag`, by whole-array operations; used for small
batches, where loading the compiled loops into a fresh process costs more.
"""

from __future__ import annotations

import numpy as np


def lmer_windows(codes, offsets, l, A, center, M, H, base, full, positions):
    """``(keys, keys_rc, weights, starts, ptr)`` as :func:`._numba.lmer_windows`."""
    n = offsets.shape[0] - 1
    codes = codes.astype(np.int64)
    keys, keys_rc, weights, firsts = [], [], [], []
    counts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        s = codes[offsets[i] : offsets[i + 1]]
        L = s.shape[0]
        if L < l:
            continue
        starts = np.arange(L - l + 1)
        win = s[starts[:, None] + np.arange(l)]
        ok = (win < A).all(axis=1)
        win, starts = win[ok], starts[ok] + base[i]
        powers = 4 ** np.arange(l - 1, -1, -1, dtype=np.int64)
        keys.append(win @ powers)
        keys_rc.append((3 - win[:, ::-1]) @ powers)
        firsts.append(starts)
        if center:
            dist = np.abs((full[i] - l + 1) // 2 - starts)
            wt = np.floor(M * np.exp(-np.log(2.0) * dist / H) + 1.0)
            weights.append(np.minimum(wt, float(M)))
        else:
            weights.append(np.ones(starts.shape[0]))
        counts[i] = starts.shape[0]
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    empty = np.zeros(0, dtype=np.int64)
    if not keys:
        return empty, empty.copy(), np.zeros(0), empty.copy(), ptr
    starts = np.concatenate(firsts).astype(np.int64) if positions else empty
    return (np.concatenate(keys), np.concatenate(keys_rc), np.concatenate(weights), starts, ptr)


def _mismatches(a, b):
    x = np.bitwise_xor.outer(a, b)
    x = (x | (x >> 1)) & 0x5555555555555555
    out = np.zeros(x.shape, dtype=np.int64)
    while x.any():
        out += x & 1
        x >>= 2
    return out


def _pair_sum(ka, wa, kb, wb, w):
    mm = _mismatches(ka, kb)
    table = np.zeros(int(mm.max(initial=0)) + 1 if mm.size else 1)
    table[: min(table.shape[0], w.shape[0])] = w[: table.shape[0]]
    return float(wa @ table[mm] @ wb) if mm.size else 0.0


def pairs_block(kx, wx, px, ky, kry, wy, py, w, rc, symmetric, out):
    """As :func:`._numba.pairs_block`."""
    for i in range(px.shape[0] - 1):
        a = slice(px[i], px[i + 1])
        for j in range(i if symmetric else 0, py.shape[0] - 1):
            b = slice(py[j], py[j + 1])
            s = _pair_sum(kx[a], wx[a], ky[b], wy[b], w)
            if rc:
                s += _pair_sum(kx[a], wx[a], kry[b], wy[b], w)
            out[i, j] = s
    return out


def pairs_diag(kx, krx, wx, px, w, rc, out):
    """As :func:`._numba.pairs_diag`."""
    for i in range(px.shape[0] - 1):
        a = slice(px[i], px[i + 1])
        s = _pair_sum(kx[a], wx[a], kx[a], wx[a], w)
        if rc:
            s += _pair_sum(kx[a], wx[a], krx[a], wx[a], w)
        out[i] = s
    return out
