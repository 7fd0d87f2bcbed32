"""The gapped k-mer kernels (:class:`~structk.kernels.GappedKmer`) as a leaf.

Every kernel of the family is ``K(x, y) = sum_{a in x} sum_{b in y} v_a v_b
w[mm(a, b)]`` over the l-mers ``a``, ``b`` of two sequences (weights ``v``:
1 or the centre weights; ``w[m]`` zero beyond ``d`` mismatches), so a
decision function is ``f(x) = b + gamma(x) sum_{a in x} v_a Omega(a)`` with
the l-mer weight

    Omega(a) = sum_b C_b w[mm(a, b)],   C_b = sum_i c_i gamma(s_i) v_b [b in s_i],

as GkmExplain computes it. ``Omega`` is the product of the ``4^l x 4^l``
matrix ``[w(mm(a, b))]`` with the collapsed support vectors ``C``; that
matrix is diagonal in the character basis of the Hamming scheme
(eigenvalues :func:`~structk.algorithms.gapped_kmers.weights.lmer_eigenvalues`),
so ``Omega`` for all ``4^l`` l-mers costs ``2 l`` passes of a 4 x 4
transform over a ``4^l`` array (l = 11: 4.2 million entries;
:func:`~structk.algorithms.gapped_kmers.convolve_lmers`, which also folds
the support vectors for prediction). Each occurrence of an
l-mer then contributes ``gamma(x) v_a Omega(a)``, shared among its ``l``
positions; with reverse complements both strands of every l-mer occur
(value ``v_a / sqrt 2`` each) on the same positions.

``K(x, x)`` (the normalisation) is not a sum of squared features in this
basis: it comes from the kernel itself, and in in-silico mutagenesis from
the change of the pair sums the substitution causes.

The l-mers, their weights and reverse complements, and the pair sums are
the kernel's own (:func:`structk.algorithms.gapped_kmers.lmer_occurrences`
and :func:`~structk.algorithms.gapped_kmers.lmer_sums`).
"""

from __future__ import annotations

import copy

import numpy as np

from .. import defaults
from ..algorithms import gapped_kmers as gkm
from ._occurrences import Occurrences
from ._sequences import EncodedWithDiag, SequenceLeaf, _owners


class GappedKmerLeaf(SequenceLeaf):
    presence = False

    def __init__(self, kernel):
        super().__init__(kernel)
        if kernel.gamma is not None:
            raise NotImplementedError(
                f"{kernel!r}: the RBF form exp(gamma (K_n - 1)) is not linear in "
                "the l-mers, so it has no exact decomposition; structk.explain.ism "
                "recomputes the decision function on every mutant instead"
            )
        self.l = int(kernel.l)
        if self.l > defaults.EXPLAIN_GKM_MAX_DENSE_L:
            raise NotImplementedError(
                f"{kernel!r}: explaining needs a table of 4^l l-mer weights, at most "
                f"l = {defaults.EXPLAIN_GKM_MAX_DENSE_L} (a table of 4^l float64; "
                "structk.defaults.EXPLAIN_GKM_MAX_DENSE_L); structk.explain.ism "
                "recomputes the decision function on every mutant instead"
            )
        self.span = self.l
        self.w = np.asarray(kernel.mismatch_weights(), dtype=np.float64)
        self.raw = copy.copy(kernel)
        self.raw.normalize = False
        self.rc = bool(kernel.reverse_complement)

    # ---------------------------------------------------------- occurrences
    def encode(self, X, name="X"):
        enc = super().encode(X, name)
        return EncodedWithDiag(enc, self.raw.diag(X))

    def table(self, codes, offsets, base, full_lengths=None):
        """Both strands of every l-mer (``v / sqrt 2`` each with reverse
        complements), covering the l-mer's positions; ``full_lengths`` are
        the lengths of the sequences the items are windows of (for the
        centre weights)."""
        k = self.kernel
        keys, keys_rc, vals, starts, ptr = gkm.lmer_occurrences(
            codes,
            offsets,
            self.l,
            bool(k.center_weighted),
            float(k.M),
            float(k.H),
            base=base,
            full=full_lengths,
            positions=True,
        )
        owner = _owners(ptr)
        units = starts[:, None] + np.arange(self.l)[None, :]
        occ = Occurrences(keys, owner, units, vals)
        if not self.rc:
            return occ
        both = Occurrences.concat([occ, Occurrences(keys_rc, owner, units, vals)])
        both.vals = both.vals * np.sqrt(0.5)
        return both

    def names(self, keys):
        return self.word(keys, self.l)

    # --------------------------------------------------------------- weights
    def transform_weights(self, keys, C):
        """``Omega`` for all ``4^l`` l-mers from the collapsed weights ``C``
        of the l-mers ``keys``: ``(arange(4^l), Omega)``
        (:func:`structk.algorithms.gapped_kmers.convolve_lmers`)."""
        l = self.l
        T = np.bincount(keys, weights=C, minlength=4**l).astype(np.float64)
        return np.arange(4**l, dtype=np.int64), gkm.convolve_lmers(T, l, self.w)

    # ----------------------------------------------------------------- norms
    @staticmethod
    def norms(enc):
        return np.asarray(enc.diag, dtype=np.float64)

    def norm_deltas(self, codes, old, new, m):
        """``K(mutant, mutant) - K(x, x)`` for each mutation ``j``: the
        occurrences ``old`` (owner j) replaced by ``new`` (owner j)."""
        full = self.table(codes, np.array([0, len(codes)], np.int64), np.zeros(1, np.int64))
        qkeys = np.concatenate([old.keys, new.keys])
        uniq, inv = np.unique(qkeys, return_inverse=True)
        queries = gkm.LmerWindows(
            uniq, uniq, np.ones(len(uniq)), np.arange(len(uniq) + 1, dtype=np.int64)
        )
        pool = gkm.LmerWindows(full.keys, full.keys, full.vals, np.array([0, len(full)], np.int64))
        R = self._sums(queries, pool, 1)[:, 0][inv.ravel()]
        sign = np.concatenate([-np.ones(len(old)), np.ones(len(new))])
        vals = np.concatenate([old.vals, new.vals])
        owner = np.concatenate([old.owner, new.owner])
        linear = np.bincount(owner, weights=2.0 * sign * vals * R, minlength=m)
        order = np.argsort(owner, kind="stable")
        ptr = np.zeros(m + 1, np.int64)
        np.cumsum(np.bincount(owner, minlength=m), out=ptr[1:])
        keys = qkeys[order]
        quad = self._sums(gkm.LmerWindows(keys, keys, (sign * vals)[order], ptr), None, 2)
        return linear + quad

    def _sums(self, P, Q, mode):
        """The kernel's pair sums of single-strand l-mers (both strands are
        in the tables already)."""
        return gkm.lmer_sums(
            P, Q, self.w, self.l, int(self.kernel.k), False, mode, name=repr(self.kernel)
        )
