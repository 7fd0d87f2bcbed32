"""Feature occurrences of the string kernels with explicit features.

One leaf per kernel: :class:`Spectrum` (k-mers), :class:`Mismatch` (each
k-mer counted for every k-mer within ``m`` mismatches of it),
:class:`GappyPair` (two k-mers ``g <= m`` positions apart) and
:class:`WeightedDegree` (the l-mer at each position, for ``l <= d``,
weighted ``sqrt(beta_l)``; with shifts its weight gathers nearby
positions'). Positions are 0-based; an
occurrence covers the positions of its symbols (not those of a gap).

The occurrences are the kernels' own: every leaf asks the algorithm the
kernel computes its features with (:mod:`structk.algorithms.kmers`,
:mod:`structk.algorithms.weighted_degree`) where each feature occurs, so the
two cannot disagree. Every leaf computes its table from the flat codes of a
batch of sequences
(``codes``, ``offsets`` as :func:`structk.sequences.encode` returns them)
and ``base``, the position in its sequence of each batch item's first
symbol: in-silico mutagenesis passes short windows of a sequence, and the
position-specific features of the weighted-degree kernel need their true
position.
"""

from __future__ import annotations

import numpy as np

from ..algorithms import kmers, weighted_degree
from ..alphabets import resolve_alphabet
from ..sequences import encode, kmer_strings
from ._occurrences import Occurrences


def _presence(kernel):
    presence = bool(getattr(kernel, "presence", False))
    if presence and getattr(kernel, "reverse_complement", False):
        raise NotImplementedError(
            f"{kernel!r}: presence features of both strands are not explained yet; "
            "use presence=False, or structk.explain.ism, which recomputes the "
            "decision function on every mutant"
        )
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
        units = np.where(
            back.units >= 0, lengths[:, None] - 1 - back.units + base[back.owner][:, None], -1
        )
        back = Occurrences(back.keys, back.owner, units, back.vals)
        both = Occurrences.concat([occ, back])
        both.vals = both.vals * np.sqrt(0.5)
        return both

    @staticmethod
    def n_units(enc):
        return np.asarray(enc.lengths, dtype=np.int64)

    def word(self, ids, k):
        """The k-mers of base-``A`` indices ``ids`` as strings (symbols of
        more than one character joined by ``-``)."""
        return [
            w if isinstance(w, str) else "-".join(map(str, w))
            for w in kmer_strings(ids, k, self.symbols)
        ]

    @staticmethod
    def _finish(starts, owner, base, pattern, keys, vals=None):
        """The table of occurrences starting at ``starts`` (positions in
        their sequences) and covering ``starts + pattern``."""
        units = starts[:, None] + pattern[None, :]
        if vals is None:
            vals = np.ones(len(keys))
        return Occurrences(keys, owner, units + base[owner][:, None], vals)

    def _kmers(self, codes, offsets):
        """``(ids, starts, owner)`` of the k-mers (the kernel's own count)."""
        ids, starts, ptr = kmers.kmer_occurrences(codes, offsets, self.k, self.A, positions=True)
        return ids, starts, _owners(ptr)


class SpectrumLeaf(SequenceLeaf):
    def __init__(self, kernel):
        super().__init__(kernel)
        self.k = int(kernel.k)
        self.presence = _presence(kernel)
        if self.A**self.k > kmers.MAX_SPACE:
            raise ValueError(f"{kernel!r}: k-mers beyond 2^62 indices cannot be explained")
        self.span = self.k

    def strand(self, codes, offsets, base):
        ids, starts, owner = self._kmers(codes, offsets)
        return self._finish(starts, owner, base, np.arange(self.k), ids)

    def names(self, keys):
        return self.word(keys, self.k)


class MismatchLeaf(SpectrumLeaf):
    """Each k-mer of the sequence is one occurrence of every k-mer within
    Hamming distance ``m``: the features of the mismatch kernel."""

    def __init__(self, kernel):
        super().__init__(kernel)
        self.m = int(kernel.m)

    def strand(self, codes, offsets, base):
        ids, starts, owner = self._kmers(codes, offsets)
        keys = kmers.mismatch_neighbours(ids, self.k, self.A, self.m)  # the kernel's own
        r = keys.shape[1]
        return self._finish(
            np.repeat(starts, r), np.repeat(owner, r), base, np.arange(self.k), keys.ravel()
        )


class GappyPairLeaf(SequenceLeaf):
    def __init__(self, kernel):
        super().__init__(kernel)
        self.k, self.m = int(kernel.k), int(kernel.m)
        self.presence = _presence(kernel)
        self.span = 2 * self.k + self.m

    def strand(self, codes, offsets, base):
        k = self.k
        ids, starts, ptr = kmers.gappy_pair_occurrences(
            codes, offsets, k, self.m, self.A, positions=True
        )
        g = kmers.gappy_pair_parts(ids, k, self.A)[0]
        # the pair covers p .. p + k - 1 and p + k + g .. p + 2k + g - 1
        units = (
            np.concatenate([np.arange(k), k + np.arange(k)])[None, :]
            + np.where(np.arange(2 * k) < k, 0, 1)[None, :] * g[:, None]
        )
        owner = _owners(ptr)
        return Occurrences(
            ids, owner, starts[:, None] + units + base[owner][:, None], np.ones(len(ids))
        )

    def names(self, keys):
        k = self.k
        g, u, v = kmers.gappy_pair_parts(keys, k, self.A)
        return [
            a + "." * int(gap) + b
            for a, gap, b in zip(self.word(u, k), g.tolist(), self.word(v, k))
        ]


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
        # the weights of the k-mer lengths (None: the standard ones)
        self.beta = None if kernel.weights is None else np.asarray(kernel.weights, dtype=float)
        self.span = self.d
        self.length = None  # set from the training objects

    def encode(self, X, name="X"):
        enc = super().encode(X, name)
        if self.shift:
            enc = EncodedWithDiag(enc, self.kernel.diag(X))
        lengths = enc.lengths
        if self.length is None and len(lengths):
            self.length = int(lengths[0])
            if self.length * self.d * float(self.A) ** self.d >= 2**62:
                raise ValueError(
                    f"{self.kernel!r}: sequences of length {self.length} "
                    "have too many features to index"
                )
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
        mutants = [
            text[:p] + str(self.symbols[a]) + text[p + 1 :]
            for p, a in zip(pos.tolist(), sym.tolist())
        ]
        return np.asarray(self.kernel.diag(mutants), dtype=np.float64)

    def weights_at(self, sv_keys, W, keys):
        """The weights of ``keys``: with shifts, the support vectors' weights
        of the same l-mer up to ``S`` positions away, times ``T``."""
        from ._occurrences import lookup

        keys = np.asarray(keys, dtype=np.int64)
        out = lookup(sv_keys, W, keys)
        step = weighted_degree.wd_key(1, 1, 0, self.d, self.A)  # one position on
        for s in range(1, self.shift + 1):
            t = 1.0 / (2.0 * (s + 1.0))
            out = out + t * (
                lookup(sv_keys, W, keys + s * step) + lookup(sv_keys, W, keys - s * step)
            )
        return out

    def strand(self, codes, offsets, base):
        d = self.d
        keys, owner, starts, lengths, vals = weighted_degree.wd_occurrences(
            codes, offsets, d, self.A, base, self.beta
        )
        units = starts[:, None] + np.arange(d)[None, :]
        units[np.arange(d)[None, :] >= lengths[:, None]] = -1
        return Occurrences(keys, owner, units, vals)

    def names(self, keys):
        pos, lengths, ids = weighted_degree.wd_key_parts(keys, self.d, self.A)
        return [
            f"{self.word([i], int(l))[0]}@{int(p)}"
            for i, l, p in zip(ids.tolist(), lengths.tolist(), pos.tolist())
        ]


def _owners(ptr):
    """The row of each entry of a CSR-style list with row pointers ``ptr``."""
    return np.repeat(np.arange(ptr.shape[0] - 1, dtype=np.int64), np.diff(ptr))
