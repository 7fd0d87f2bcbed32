"""Feature occurrences of the string kernels with explicit features.

One leaf per kernel: :class:`Spectrum` (k-mers), :class:`Mismatch` (each
k-mer counted for every k-mer within ``m`` mismatches of it),
:class:`GappyPair` (two k-mers ``g <= m`` positions apart) and
:class:`WeightedDegree` (the l-mer at each position, for ``l <= d``,
weighted ``sqrt(beta_l)``; with shifts its weight gathers nearby
positions'). Positions are 0-based; an
occurrence covers the positions of its symbols (not those of a gap).

Every leaf computes its table from the flat codes of a batch of sequences
(``codes``, ``offsets`` as :func:`structk.sequences.encode` returns them)
and ``base``, the position in its sequence of each batch item's first
symbol: in-silico mutagenesis passes short windows of a sequence, and the
position-specific features of the weighted-degree kernel need their true
position.
"""

from __future__ import annotations

from itertools import combinations, product

import numpy as np

from ..alphabets import resolve_alphabet
from ..sequences import encode
from ._occurrences import Occurrences


def _kmer_starts(codes, offsets, k, A):
    """``(first, owner, ids)`` of every k-mer inside one sequence and free of
    unknown symbols: its flat start, its sequence and its base-``A`` index."""
    if codes.shape[0] < k:
        z = np.zeros(0, np.int64)
        return z, z, z
    windows = np.lib.stride_tricks.sliding_window_view(codes, k)
    owner = np.searchsorted(offsets, np.arange(windows.shape[0]), side="right") - 1
    inside = offsets[owner + 1] - np.arange(windows.shape[0]) >= k
    first = np.flatnonzero(inside & (windows < A).all(axis=1))
    ids = np.zeros(len(first), dtype=np.int64)
    for j in range(k):  # Horner over the window's columns, leading symbol first
        ids = ids * A + windows[first, j]
    return first, owner[first], ids


def _full_ids(codes, offsets, k, A):
    """The k-mer index at every flat start, -1 where there is none."""
    first, _, ids = _kmer_starts(codes, offsets, k, A)
    out = np.full(codes.shape[0], -1, dtype=np.int64)
    out[first] = ids
    return out


def _presence(kernel):
    presence = bool(getattr(kernel, "presence", False))
    if presence and getattr(kernel, "reverse_complement", False):
        raise NotImplementedError(
            f"{kernel!r}: presence features of both strands are not explained yet; "
            "use presence=False, or structk.explain.ism, which recomputes the "
            "decision function on every mutant")
    return presence


class SequenceLeaf:
    """What the string kernels share: encoding, names, positions."""

    unit = "position"
    presence = False

    def __init__(self, kernel):
        self.kernel = kernel
        self.symbols = resolve_alphabet(kernel.alphabet)
        self.A = len(self.symbols)

    def encode(self, X, name="X"):
        k = self.kernel
        return encode(X, k.alphabet, ignore_case=k.ignore_case, unknown=k.unknown, name=name)

    def occurrences(self, enc, base=None):
        offsets = np.asarray(enc.offsets, dtype=np.int64)
        if base is None:
            base = np.zeros(len(offsets) - 1, dtype=np.int64)
        return self.table(enc.codes, offsets, base)

    def table(self, codes, offsets, base):
        """The occurrences of a batch; with ``reverse_complement`` those of
        both strands, each of value ``1 / sqrt 2`` (the kernels' strand-merged
        features ``(phi(x) + phi(rc x)) / sqrt 2``), the reverse strand's
        mapped back onto the positions of ``x``."""
        occ = self.strand(codes, offsets, base)
        if not getattr(self.kernel, "reverse_complement", False):
            return occ
        from ..sequences import EncodedSequences, reverse_complement

        rc = reverse_complement(EncodedSequences(codes, offsets, self.kernel._alphabet))
        back = self.strand(rc.codes, offsets, np.zeros_like(base))
        lengths = np.diff(offsets)[back.owner]
        units = np.where(back.units >= 0,
                         lengths[:, None] - 1 - back.units + base[back.owner][:, None], -1)
        back = Occurrences(back.keys, back.owner, units, back.vals)
        both = Occurrences.concat([occ, back])
        both.vals = both.vals * np.sqrt(0.5)
        return both

    @staticmethod
    def n_units(enc):
        return np.asarray(enc.lengths, dtype=np.int64)

    def word(self, ids, k):
        """The k-mers of base-``A`` indices ``ids`` as strings."""
        out = []
        sep = "" if all(isinstance(s, str) and len(s) == 1 for s in self.symbols) else "-"
        for i in np.asarray(ids, dtype=np.int64).tolist():
            letters = []
            for _ in range(k):
                i, d = divmod(i, self.A)
                letters.append(str(self.symbols[d]))
            out.append(sep.join(reversed(letters)))
        return out

    def _finish(self, first, owner, offsets, base, pattern, keys, vals=None):
        local = first - offsets[owner]
        units = local[:, None] + pattern[None, :]
        if vals is None:
            vals = np.ones(len(keys))
        return Occurrences(keys, owner, units + base[owner][:, None], vals)


class SpectrumLeaf(SequenceLeaf):
    def __init__(self, kernel):
        super().__init__(kernel)
        self.k = int(kernel.k)
        self.presence = _presence(kernel)
        if self.A ** self.k >= 2**62:
            raise ValueError(f"{kernel!r}: k-mers beyond 2^62 indices cannot be explained")
        self.span = self.k

    def strand(self, codes, offsets, base):
        first, owner, ids = _kmer_starts(codes, offsets, self.k, self.A)
        return self._finish(first, owner, offsets, base, np.arange(self.k), ids)

    def names(self, keys):
        return self.word(keys, self.k)


class MismatchLeaf(SpectrumLeaf):
    """Each k-mer of the sequence is one occurrence of every k-mer within
    Hamming distance ``m``: the features of the mismatch kernel."""

    def __init__(self, kernel):
        super().__init__(kernel)
        self.m = int(kernel.m)

    def strand(self, codes, offsets, base):
        first, owner, ids = _kmer_starts(codes, offsets, self.k, self.A)
        k, A = self.k, self.A
        powers = A ** np.arange(k - 1, -1, -1, dtype=np.int64)  # weight of symbol j
        parts = [ids]
        for i in range(1, self.m + 1):
            for pos in combinations(range(k), i):
                digits = [(ids // powers[j]) % A for j in pos]
                for subst in product(range(1, A), repeat=i):
                    v = ids.copy()
                    for j, d, s in zip(pos, digits, subst):
                        v += ((d + s) % A - d) * powers[j]
                    parts.append(v)
        r = len(parts)
        keys = np.stack(parts, axis=1).ravel()
        return self._finish(np.repeat(first, r), np.repeat(owner, r), offsets, base,
                            np.arange(k), keys)


class GappyPairLeaf(SequenceLeaf):
    def __init__(self, kernel):
        super().__init__(kernel)
        self.k, self.m = int(kernel.k), int(kernel.m)
        self.presence = _presence(kernel)
        self.span = 2 * self.k + self.m

    def strand(self, codes, offsets, base):
        k, A = self.k, self.A
        ids = _full_ids(codes, offsets, k, A)
        N = codes.shape[0]
        owner_at = np.searchsorted(offsets, np.arange(N), side="right") - 1
        parts = []
        for g in range(self.m + 1):
            reach = 2 * k + g
            if N < reach:
                break
            p = np.arange(N - reach + 1, dtype=np.int64)
            q = p + k + g
            ok = (ids[p] >= 0) & (ids[q] >= 0) & (owner_at[p] == owner_at[q])
            p, q = p[ok], q[ok]
            keys = (g * A ** (2 * k) + ids[p] * A ** k + ids[q]).astype(np.int64)
            pattern = np.concatenate([np.arange(k), k + g + np.arange(k)])
            parts.append(self._finish(p, owner_at[p], offsets, base, pattern, keys))
        return Occurrences.concat(parts) if parts else Occurrences.empty(2 * k)

    def names(self, keys):
        k, A = self.k, self.A
        keys = np.asarray(keys, dtype=np.int64)
        g, rest = np.divmod(keys, A ** (2 * k))
        u, v = np.divmod(rest, A ** k)
        return [a + "." * int(gap) + b
                for a, gap, b in zip(self.word(u, k), g.tolist(), self.word(v, k))]


class EncodedWithDiag:
    """Encoded sequences and their raw self-kernels ``K(x, x)`` (for
    kernels whose ``K(x, x)`` is not a sum of squared features)."""

    def __init__(self, enc, diag):
        self.enc, self.diag = enc, diag
        self.codes, self.offsets = enc.codes, enc.offsets

    @property
    def lengths(self):
        return self.enc.lengths

    def __getitem__(self, i):
        return self.enc[i]


class WeightedDegreeLeaf(SequenceLeaf):
    """Features ``(l, p, u)``: the l-mer ``u`` at position ``p``, value
    ``sqrt(beta_l)``; key ``(p d + l - 1) A^d + index(u)``.

    With shifts (``S > 0``) the kernel is ``sum_l beta_l sum_{p, q} T_{pq}
    [u_{l,p}(x) = u_{l,q}(y)]`` with the Toeplitz band ``T_pp = 1``,
    ``T_{p, p +- s} = 1 / (2 (s + 1))`` (``s <= S``), so ``f`` is still a
    sum over the l-mers of ``x`` at their positions: the weight of ``(l, p,
    u)`` is ``sum_s T_{p, p + s} W(l, p + s, u)``, the support vectors'
    collapsed counts smoothed along the positions (:meth:`weights_at`), and
    ``K(x, x)`` (the normalisation) comes from the kernel."""

    def __init__(self, kernel):
        super().__init__(kernel)
        self.shift = int(kernel.shift)
        self.d = int(kernel.d)
        self.span = self.d
        self.length = None  # set from the training objects
        d = self.d
        self.beta = 2.0 * (d - np.arange(1, d + 1) + 1.0) / (d * (d + 1.0))

    def encode(self, X, name="X"):
        enc = super().encode(X, name)
        if self.shift:
            enc = EncodedWithDiag(enc, self.kernel.diag(X))
        lengths = enc.lengths
        if self.length is None and len(lengths):
            self.length = int(lengths[0])
            if self.length * self.d * float(self.A) ** self.d >= 2**62:
                raise ValueError(f"{self.kernel!r}: sequences of length {self.length} "
                                 "have too many features to index")
        bad = np.flatnonzero(lengths != self.length)
        if len(bad):
            i = int(bad[0])
            raise ValueError(
                f"{name}[{i}] has length {lengths[i]} but the model's sequences have "
                f"length {self.length}: the weighted-degree kernel compares aligned "
                "sequences of equal length"
            )
        return enc

    def norms(self, enc):
        """``K(x, x)`` with shifts (not a sum of squared features)."""
        return np.asarray(enc.diag, dtype=np.float64) if self.shift else None

    def mutant_norms(self, text, pos, sym):
        """``K(m, m)`` of each single substitution ``m`` of ``text`` (symbol
        ``sym[j]`` at ``pos[j]``), from the kernel: with shifts a
        substitution changes matches up to ``S`` positions away."""
        mutants = [text[:p] + str(self.symbols[a]) + text[p + 1:]
                   for p, a in zip(pos.tolist(), sym.tolist())]
        return np.asarray(self.kernel.diag(mutants), dtype=np.float64)

    def weights_at(self, sv_keys, W, keys):
        """The weights of ``keys``: with shifts, the support vectors' weights
        of the same l-mer up to ``S`` positions away, times ``T``."""
        from ._occurrences import lookup

        keys = np.asarray(keys, dtype=np.int64)
        out = lookup(sv_keys, W, keys)
        step = self.d * self.A ** self.d  # one position in the key
        for s in range(1, self.shift + 1):
            t = 1.0 / (2.0 * (s + 1.0))
            out = out + t * (lookup(sv_keys, W, keys + s * step)
                             + lookup(sv_keys, W, keys - s * step))
        return out

    def strand(self, codes, offsets, base):
        d, A = self.d, self.A
        space = A ** d
        parts = []
        for l in range(1, d + 1):
            first, owner, ids = _kmer_starts(codes, offsets, l, A)
            pos = first - offsets[owner] + base[owner]
            keys = (pos * d + (l - 1)) * space + ids
            occ = self._finish(first, owner, offsets, base, np.arange(l), keys,
                               np.full(len(keys), np.sqrt(self.beta[l - 1])))
            occ.units = np.pad(occ.units, ((0, 0), (0, d - l)), constant_values=-1)
            parts.append(occ)
        return Occurrences.concat(parts)

    def names(self, keys):
        d, A = self.d, self.A
        pl, ids = np.divmod(np.asarray(keys, dtype=np.int64), A ** d)
        pos, lm1 = np.divmod(pl, d)
        return [f"{self.word([i], int(l) + 1)[0]}@{int(p)}"
                for i, l, p in zip(ids.tolist(), lm1.tolist(), pos.tolist())]
