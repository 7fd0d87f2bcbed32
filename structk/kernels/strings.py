"""String kernels: k-mer spectrum, (k, m)-mismatch, gappy pair and weighted
degree (with shifts).

All of them take a list of sequences (``str``, ``bytes``, sequences of
symbols, Biopython records) over an alphabet (``"dna"``, ``"rna"``,
``"protein"`` or given symbols); the input rules (case, symbols outside the
alphabet) are those of :func:`structk.sequences.encode`:

* ``ignore_case=True`` (default): ``"acgt"`` reads as ``"ACGT"``;
* ``unknown="error"`` (default): a symbol outside the alphabet raises an
  error naming the sequence, position and symbol; ``unknown="skip"`` drops
  every k-mer containing it (and, for :class:`WeightedDegree`, makes its
  position match nothing), never counting it as some other k-mer. This is
  how ``N`` and the other IUPAC ambiguity codes are best handled in DNA.
* ``reverse_complement=True`` (DNA/RNA, k-mer kernels): both strands, a
  k-mer and its reverse complement counted as one feature.

Alignment-based kernels for sequences of any length are in
:mod:`structk.kernels.alignment`.

A sequence shorter than ``k`` (the empty one included) has the zero feature
vector: its kernel values are 0, and normalised it gets a zero row and
column (diagonal included), never NaN.

``normalize=True`` is exactly ``Normalize(kernel)`` (cosine normalisation,
``k(x, y) / sqrt(k(x, x) k(y, y))``). It is offered as a flag as well because
normalised string kernels are the usual choice for sequences of unequal
length, and the flag keeps the kernel's parameters in one place for grid
searches (``kernel__normalize``).
"""

from __future__ import annotations

from collections.abc import Sequence

import math

import numpy as np

from .._validation import check_scalar, check_weights
from ..alphabets import resolve_alphabet
from ..sequences import NUCLEOTIDES, EncodedSequences, check_unknown, encode, reverse_complement
from ..algorithms import kmers, weighted_degree
from ..algorithms.kmers import MAX_SPACE, count_kmers
from ..algorithms.sparse_gram import (
    sparse_cross,
    sparse_gram,
    whole_number_product,
    whole_number_sq_norms,
)
from .algebra import (
    _warn_if_identity,
    normalized_cross,
    normalized_diag,
    normalized_features,
    normalized_gradient,
    normalized_gram,
)
from ._memo import remembered
from .base import Kernel, _row_sq_norms, mirror_upper
from .hyperparameters import declare_entries, entry_gradients, stack


def _space_exceeds(A, k, limit=MAX_SPACE):
    """Whether ``A ** k > limit``, without computing ``A ** k`` for large ``k``."""
    if A >= 2 and k > math.log2(limit):  # A ** k >= 2 ** k > limit
        return True
    return A**k > limit  # k is small here: exact and cheap


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")


class _SequenceKernel(Kernel):
    """Input handling and the ``normalize`` flag shared by the string kernels."""

    @property
    def _alphabet(self):
        """The alphabet's symbols, derived from ``alphabet`` when needed (never
        stored, so it cannot go stale after ``set_params``)."""
        return resolve_alphabet(self.alphabet)

    def _check_sequence_params(self):
        resolve_alphabet(self.alphabet)
        _check_bool(self.normalize, "normalize")
        _check_bool(self.ignore_case, "ignore_case")
        check_unknown(self.unknown)

    # the string kernels share one encoding of the sequences (codes and
    # offsets) when they read them alike: Spectrum(k=3) + Spectrum(k=5)
    # encodes once
    def _encoding_key(self):
        return ("sequences", self._alphabet, bool(self.ignore_case), self.unknown)

    def _encode(self, X, name):
        return encode(
            X, self._alphabet, ignore_case=self.ignore_case, unknown=self.unknown, name=name
        )

    def _take(self, P, index):
        if isinstance(P, EncodedSequences):
            return P.take(index)
        return super()._take(P, index)  # WeightedDegree: a 2-D code array

    # normalize=True is Normalize(kernel) computed by the same functions,
    # on the raw values (no Normalize object or kernel copy per call)
    def _gram(self, P):
        if self.normalize:
            K = normalized_gram(self._raw_gram(P))
            _warn_if_identity(self, K)
            return K
        return self._raw_gram(P)

    def _cross(self, P, Q):
        if self.normalize:
            return normalized_cross(self._raw_cross(P, Q), self._raw_diag(P), self._raw_diag(Q))
        return self._raw_cross(P, Q)

    def _diag(self, P):
        if self.normalize:
            return normalized_diag(self._raw_diag(P))
        return self._raw_diag(P)

    def _features(self, P):
        F = self._raw_features(P)
        if self.normalize:
            F = normalized_features(F)
        F.sort_indices()  # canonical CSR for users; Gram matrices skip this
        return F


class _KmerKernel(_SequenceKernel):
    """Kernels whose feature map is a sparse matrix over the A^k k-mers."""

    has_features = True
    fixed_feature_columns = True

    def _check_sequence_params(self):
        super()._check_sequence_params()
        _check_bool(self.reverse_complement, "reverse_complement")
        if self.reverse_complement and self._alphabet not in NUCLEOTIDES:
            raise ValueError(
                f"reverse_complement=True needs the DNA or RNA alphabet ('dna', "
                f"'rna'), got alphabet {self.alphabet!r}: only nucleotides have "
                "complements"
            )

    def _strand_merged(self, features, P):
        """``features(P)``, or with reverse complements ``(F(x) + F(rc x)) /
        sqrt 2``: its Gram is ``k(x, y) + k(x, rc y)``, the kernel of the
        strand-merged features."""
        F = features(P)
        if not self.reverse_complement:
            return F
        return (F + features(reverse_complement(P))) * math.sqrt(0.5)

    def _check_k(self, bounded=True):
        k = check_scalar(self.k, "k", lower=1, integer=True)
        A = len(self._alphabet)
        if bounded and _space_exceeds(A, k):
            raise ValueError(
                f"k={k} is too large for an alphabet of {A} symbols: the "
                f"{A}^{k} k-mers do not fit in int64 feature indices (at most "
                f"2^62); use k <= {int(np.log(MAX_SPACE) / np.log(A))}"
            )
        return k, A

    def _kmers(self, P):
        ids, _, ptr = kmers.kmer_occurrences(P.codes, P.offsets, int(self.k), len(self._alphabet))
        return ids, ptr

    def _csr(self, indptr, indices, data):
        import scipy.sparse as sp

        shape = (len(indptr) - 1, len(self._alphabet) ** int(self.k))
        return sp.csr_matrix((data, indices, indptr), shape=shape)

    def _count_arrays(self, P):
        """The raw features as CSR arrays ``(indptr, indices, data,
        n_columns)`` of whole-number counts, made without SciPy, when
        ``_raw_features`` is exactly their CSR matrix; None otherwise."""

    def _counted(self, P):
        """``_raw_features(P)``, computed once for prepared objects that are
        used again and again (the landmarks of the Nystroem columns:
        :mod:`structk.kernels._memo`). Not modified by its users."""
        return remembered(self, "raw_features", P, lambda: self._raw_features(P))

    def _counted_arrays(self, P):
        """``_count_arrays(P)``, computed once as :meth:`_counted` is."""
        return remembered(self, "count_arrays", P, lambda: self._count_arrays(P))

    def _features_of(self, arrays, P):
        return self._counted(P) if arrays is None else self._csr(*arrays[:3])

    # Small products of counts are one exact dense product without SciPy
    # (sparse_gram.whole_number_product); the rest go to sparse_gram. Both
    # give the same values bit for bit.
    def _raw_gram(self, P):
        F = self._counted_arrays(P)
        K = None if F is None else whole_number_product(F)
        return sparse_gram(self._features_of(F, P)) if K is None else K

    def _raw_cross(self, P, Q):
        F, G = self._counted_arrays(P), self._counted_arrays(Q)
        K = None if F is None or G is None else whole_number_product(F, G)
        if K is None:
            return sparse_cross(self._features_of(F, P), self._features_of(G, Q))
        return K

    def _raw_diag(self, P):
        F = self._counted_arrays(P)
        d = None if F is None else whole_number_sq_norms(F)
        return _row_sq_norms(self._features_of(F, P)) if d is None else d


class Spectrum(_KmerKernel):
    """The k-mer spectrum kernel: inner product of k-mer count vectors.

    ``k(x, y) = sum_u N_u(x) N_u(y)`` over all ``A ** k`` k-mers ``u``,
    where ``N_u(x)`` counts the occurrences of ``u`` in ``x`` (overlapping
    ones included), or with ``presence=True`` is 1 when ``u`` occurs.

    The feature map (:meth:`features`) is a ``scipy.sparse`` CSR matrix with
    one column per k-mer: k-mer ``s_1 .. s_k`` is column
    ``sum_j code(s_j) A ** (k - j)`` (see
    :func:`structk.sequences.kmer_strings`), so k = 10 on DNA or k = 5 on
    proteins (about 10^6 and 3.2 x 10^6 columns) stay sparse. Column
    indices are int64: beyond ``A ** k > 2^62`` (k > 31 on DNA, k > 14 on
    proteins) there is no feature map, and the Gram matrices are computed
    on the k-mers present, numbered jointly for X and Y. The counts
    equal ``sklearn.feature_extraction.text.CountVectorizer(analyzer="char",
    ngram_range=(k, k), lowercase=False)`` up to the column order. The Gram
    matrix is computed from the sparse features, common k-mers by BLAS and
    rare ones by a direct loop (:mod:`structk.algorithms.sparse_gram`).

    Parameters
    ----------
    k : int >= 1, default 3
        k-mer length.
    alphabet : str or sequence, default "dna"
        ``"dna"``, ``"rna"``, ``"protein"`` or the symbols.
    presence : bool, default False
        Count each k-mer once per sequence (binary features).
    normalize : bool, default False
        Cosine-normalise; identical to ``Normalize(Spectrum(...))``.
    ignore_case : bool, default True
        Letters match the alphabet in either case.
    unknown : {"error", "skip"}, default "error"
        Symbols outside the alphabet raise, or drop the k-mers containing
        them.
    reverse_complement : bool, default False
        DNA/RNA only: a k-mer and its reverse complement are one feature
        (both strands read). The feature vector is ``(phi(x) + phi(rc x)) /
        sqrt 2``, so ``k(x, y) = k_1(x, y) + k_1(x, rc y)`` with ``k_1``
        the single-strand kernel, and ``x`` and ``rc(x)`` are the same
        point. Off by default: the spectrum, mismatch and gappy pair
        kernels are defined on one strand (and serve proteins as well);
        :class:`~structk.kernels.GappedKmer` has it on, as LS-GKM does.

    Examples
    --------
    >>> from structk.kernels import Spectrum
    >>> Spectrum(k=2)(["ACGT", "CGTA", "AAAA"])
    array([[3., 2., 0.],
           [2., 3., 0.],
           [0., 0., 9.]])

    References
    ----------
    C. Leslie, E. Eskin and W. S. Noble, "The spectrum kernel: a string
    kernel for SVM protein classification", Pacific Symposium on
    Biocomputing 7, 2002, 564-575.
    """

    _repr_always = ("k",)

    def __init__(
        self,
        k: int = 3,
        alphabet: str | Sequence[str] = "dna",
        presence: bool = False,
        normalize: bool = False,
        ignore_case: bool = True,
        unknown: str = "error",
        reverse_complement: bool = False,
    ) -> None:
        self.k = k
        self.alphabet = alphabet
        self.presence = presence
        self.normalize = normalize
        self.ignore_case = ignore_case
        self.unknown = unknown
        self.reverse_complement = reverse_complement

    def _check_params(self):
        self._check_sequence_params()
        self._check_k(bounded=False)
        _check_bool(self.presence, "presence")
        if self.reverse_complement and self._beyond_int64():
            raise ValueError(
                f"reverse_complement=True needs k <= 31 on DNA (the k-mers as int64 "
                f"feature indices), got k={self.k}"
            )

    def _beyond_int64(self):
        return _space_exceeds(len(self._alphabet), int(self.k))

    def _raw_features(self, P):
        return self._strand_merged(self._counts, P)

    def _count_arrays(self, P):
        if self.reverse_complement or self._beyond_int64():
            return None
        ids, ptr = self._kmers(P)
        space = len(self._alphabet) ** int(self.k)
        return (*count_kmers(ids, ptr, bool(self.presence), space), space)

    def _counts(self, P):
        if self._beyond_int64():
            A, k = len(self._alphabet), int(self.k)
            raise ValueError(
                f"{self!r} has {A}^{k} possible k-mers, more than int64 feature "
                "indices hold, so it has no explicit feature map; its Gram "
                "matrices (k(X), k(X, Y), k.diag(X)) are computed on the k-mers "
                "present"
            )
        ids, ptr = self._kmers(P)
        space = len(self._alphabet) ** int(self.k)
        return self._csr(*count_kmers(ids, ptr, bool(self.presence), space))

    def _present_features(self, P):
        """Counts over the k-mers present in ``P``, numbered by sorted k-mer."""
        import scipy.sparse as sp

        if not self._beyond_int64():
            return self._counted(P)
        ids, ptr, space = kmers.present_kmer_ids(
            P.codes, P.offsets, int(self.k), len(self._alphabet)
        )
        indptr, indices, data = count_kmers(ids, ptr, bool(self.presence), space, jitted=True)
        return sp.csr_matrix((data, indices, indptr), shape=(len(P), space))

    def _raw_gram(self, P):
        if not self._beyond_int64():
            return super()._raw_gram(P)
        return sparse_gram(self._present_features(P))

    def _raw_cross(self, P, Q):
        if not self._beyond_int64():
            return super()._raw_cross(P, Q)
        # number the k-mers of X and Y together so that the columns agree
        both = EncodedSequences(
            np.concatenate([P.codes, Q.codes]),
            np.concatenate([P.offsets, Q.offsets[1:] + P.offsets[-1]]),
            P.alphabet,
        )
        F = self._present_features(both)
        return sparse_cross(F[: len(P)], F[len(P) :])

    def _raw_diag(self, P):
        if not self._beyond_int64():
            return super()._raw_diag(P)
        return _row_sq_norms(self._present_features(P))


class Mismatch(_KmerKernel):
    """The (k, m)-mismatch kernel: k-mer counts allowing up to m mismatches.

    Feature ``u`` (one per k-mer over the alphabet) of a sequence ``x`` is
    the number of k-mers of ``x`` within Hamming distance ``m`` of ``u``;
    ``k(x, y)`` is the inner product of these vectors. ``m = 0`` is the
    spectrum kernel.

    Each k-mer of a sequence is expanded into its mismatch neighbourhood
    (``sum_{i <= m} C(k, i) (A - 1) ** i`` k-mers: 16 for (5, 1) on DNA, 106
    for (5, 2)), counted into a sparse feature row, and the Gram matrix is a
    sparse product as for :class:`Spectrum`.

    Parameters
    ----------
    k : int >= 1, default 5
        k-mer length.
    m : int, 0 <= m < k, default 1
        Largest number of mismatches.
    alphabet, normalize, ignore_case, unknown
        As for :class:`Spectrum`.

    References
    ----------
    C. Leslie, E. Eskin, J. Weston and W. S. Noble, "Mismatch string kernels
    for SVM protein classification", Advances in Neural Information
    Processing Systems 15, 2003, 1441-1448.
    """

    _repr_always = ("k", "m")

    def __init__(
        self,
        k: int = 5,
        m: int = 1,
        alphabet: str | Sequence[str] = "dna",
        normalize: bool = False,
        ignore_case: bool = True,
        unknown: str = "error",
        reverse_complement: bool = False,
    ) -> None:
        self.k = k
        self.m = m
        self.alphabet = alphabet
        self.normalize = normalize
        self.ignore_case = ignore_case
        self.unknown = unknown
        self.reverse_complement = reverse_complement

    def _check_params(self):
        self._check_sequence_params()
        k, _ = self._check_k()
        m = check_scalar(self.m, "m", lower=0, integer=True)
        if m >= k:
            raise ValueError(
                f"m must be < k (with m >= k every pair of k-mers matches), got m={m}, k={k}"
            )

    def _prepare_encoded(self, P, name):
        # the expansion into mismatch neighbourhoods is the costly part: done
        # once per object here, so Gram tiles, cross-Grams and the diagonal
        # reuse it and _take slices its rows
        strands = 2 if self.reverse_complement else 1
        self._check_memory(np.repeat(np.maximum(P.lengths - int(self.k) + 1, 0), strands))
        F = self._strand_merged(self._expand, P)
        F.sort_indices()  # canonical now, so later calls never write to it
        return F

    def _expand(self, P):
        A, k, m = len(self._alphabet), int(self.k), int(self.m)
        ids, ptr = self._kmers(P)
        return self._csr(*kmers.mismatch_features(ids, ptr, k, A, m))

    def _raw_features(self, P):
        return P

    def _check_memory(self, kmers_per_row):
        """Refuse, naming ``m``, an expansion that would not fit in memory."""
        kmers.check_mismatch_memory(
            kmers_per_row, int(self.k), len(self._alphabet), int(self.m), repr(self)
        )


class GappyPair(_KmerKernel):
    """The gappy pair kernel: pairs of k-mers separated by a gap of 0..m positions.

    Feature ``(u, g, v)`` of a sequence ``x`` counts the positions ``p`` with
    ``x[p:p+k] = u`` and ``x[p+k+g:p+2k+g] = v``, for k-mers ``u, v`` and gap
    lengths ``0 <= g <= m`` (the symbols in the gap are ignored);
    ``k(x, y)`` is the inner product of these counts, or with
    ``presence=True`` of their 0/1 indicators. ``m = 0`` counts the
    (2k)-mers, i.e. it is :class:`Spectrum` with ``k`` doubled. This is
    kebabs' ``gappyPairKernel(k, m)`` (whose feature names write the gap as
    dots: ``"AC..GT"`` is ``u = AC``, ``g = 2``, ``v = GT``), with
    normalisation off by default as for the other structk string kernels.

    The feature map is a ``scipy.sparse`` CSR matrix with
    ``(m + 1) A^(2k)`` columns: ``(u, g, v)`` is column
    ``g A^(2k) + index(u) A^k + index(v)`` with ``index`` the k-mer number of
    :class:`Spectrum`; the Gram matrix is the same sparse product. A
    sequence has at most ``(m + 1) L`` pairs, so the cost is linear in the
    total length.

    Parameters
    ----------
    k : int >= 1, default 2
        Length of each k-mer of a pair.
    m : int >= 0, default 2
        Longest gap between the two k-mers.
    alphabet, presence, normalize, ignore_case, unknown
        As for :class:`Spectrum`; with ``unknown="skip"`` a pair is dropped
        when either k-mer holds an unknown symbol (the gap may hold any).

    Examples
    --------
    >>> from structk.kernels import GappyPair
    >>> GappyPair(k=1, m=1)(["ACG", "ACGA"])
    array([[3., 3.],
           [3., 5.]])

    References
    ----------
    P. Kuksa, P.-H. Huang and V. Pavlovic, "A fast, large-scale learning
    method for protein sequence classification", 8th International Workshop
    on Data Mining in Bioinformatics (BIOKDD), 2008, 29-37.
    J. Palme, S. Hochreiter and U. Bodenhofer, "KeBABS: an R package for
    kernel-based analysis of biological sequences", Bioinformatics 31(15),
    2015, 2574-2576.
    """

    _repr_always = ("k", "m")

    def __init__(
        self,
        k: int = 2,
        m: int = 2,
        alphabet: str | Sequence[str] = "dna",
        presence: bool = False,
        normalize: bool = False,
        ignore_case: bool = True,
        unknown: str = "error",
        reverse_complement: bool = False,
    ) -> None:
        self.k = k
        self.m = m
        self.alphabet = alphabet
        self.presence = presence
        self.normalize = normalize
        self.ignore_case = ignore_case
        self.unknown = unknown
        self.reverse_complement = reverse_complement

    def _check_params(self):
        self._check_sequence_params()
        k = check_scalar(self.k, "k", lower=1, integer=True)
        m = check_scalar(self.m, "m", lower=0, integer=True)
        _check_bool(self.presence, "presence")
        A = len(self._alphabet)
        if (m + 1) * A ** (2 * k) > MAX_SPACE:
            raise ValueError(
                f"GappyPair(k={k}, m={m}) has (m + 1) * {A}^(2k) features on an "
                f"alphabet of {A} symbols, more than int64 feature indices hold "
                "(2^62); use a smaller k or m"
            )

    def _space(self):
        return (int(self.m) + 1) * len(self._alphabet) ** (2 * int(self.k))

    def _raw_features(self, P):
        return self._strand_merged(self._pairs, P)

    def _pairs(self, P):
        import scipy.sparse as sp

        ids, _, ptr = kmers.gappy_pair_occurrences(
            P.codes, P.offsets, int(self.k), int(self.m), len(self._alphabet)
        )
        space = self._space()
        indptr, indices, data = count_kmers(ids, ptr, bool(self.presence), space, jitted=True)
        return sp.csr_matrix((data, indices, indptr), shape=(len(P), space))


class WeightedDegree(_SequenceKernel):
    """The weighted-degree kernel (with shifts) for aligned sequences of equal length.

    ``k(x, y) = sum_{k=1}^{d} beta_k sum_{l=1}^{L-k+1} [x_{l..l+k-1} = y_{l..l+k-1}]``
    with the standard weights ``beta_k = 2 (d - k + 1) / (d (d + 1))``: the
    k-mers of ``x`` and ``y`` starting at the same position are compared, for
    every length ``k`` up to the degree ``d``. Unlike the spectrum kernel it
    is position-aware, which is what splice-site recognition needs.

    With ``shift = S > 0`` (Rätsch, Sonnenburg & Schölkopf 2005) a k-mer may
    also match one up to ``S`` positions away::

        k(x, y) = sum_k beta_k sum_l sum_{s=0}^{S} delta_s mu_{k,l,s}(x, y)
        mu_{k,l,s} = [u_{k,l+s}(x) = u_{k,l}(y)] + [u_{k,l}(x) = u_{k,l+s}(y)]
        delta_s = 1 / (2 (s + 1))

    where ``u_{k,l}(x)`` is the k-mer of ``x`` at position ``l`` and only
    k-mers inside the sequences count (``l + s + k - 1 <= L``); the paper's
    position weights ``gamma_l`` are 1. ``shift=0`` is the plain kernel
    (``delta_0 mu = [match]``). It is a valid kernel for every ``S``: it is
    ``sum_{p,q} W_{pq} [u_p(x) = u_q(y)]`` with the symmetric Toeplitz
    band ``W_{pp} = 1``, ``W_{p,p+s} = delta_s``, which is positive definite
    (its symbol ``1 + sum_s cos(s t) / (s + 1)`` is positive).

    Computed pair by pair, bit-parallel: each sequence is held as bit
    planes of its codes, so the positions where two sequences match along a
    diagonal (offset ``s``) take a few word operations per 64 positions,
    and the matching k-mers of every length ``k <= d`` are counted by
    ``d`` shift-and-popcount passes over those words:
    ``O((L / 64) (log2 |alphabet| + d) (2S + 1))`` per pair.
    With ``unknown="skip"`` a position holding an unknown symbol matches
    nothing (itself included), i.e. the k-mers containing it are dropped.

    Parameters
    ----------
    d : int >= 1, default 5
        Degree: the longest k-mers compared.
    shift : int >= 0, default 0
        Largest shift ``S`` between matching k-mers (shifts beyond ``L - 1``
        add nothing).
    alphabet, normalize, ignore_case, unknown
        As for :class:`Spectrum`.
    weights : sequence of d floats >= 0, optional
        The weights ``beta_1 .. beta_d`` of the k-mer lengths instead of the
        standard ones. Given, they are hyperparameters (``weights[0]``, ...,
        :mod:`structk.kernels.hyperparameters`) that a Gaussian process
        learns by its marginal likelihood, with analytic derivatives: the
        kernel is linear in them, ``dK / d log beta_k = beta_k K_k`` with
        ``K_k`` the kernel of the k-mers of length ``k`` alone. ``None``:
        the standard weights, fixed.
    weights_bounds : pair of float or "fixed", default (1e-5, 1e5)
        Bounds of every weight for an optimiser.

    Raises
    ------
    ValueError
        When the sequences do not all have the same length (naming the
        first that differs).

    References
    ----------
    G. Rätsch and S. Sonnenburg, "Accurate splice site prediction for
    Caenorhabditis elegans", in *Kernel Methods in Computational Biology*,
    MIT Press, 2004, 277-298.
    G. Rätsch, S. Sonnenburg and B. Schölkopf, "RASE: recognition of
    alternatively spliced exons in C. elegans", Bioinformatics 21 (suppl. 1),
    2005, i369-i377 (the weighted-degree kernel with shifts).
    S. Sonnenburg, G. Rätsch and B. Schölkopf, "Large scale genomic sequence
    SVM classifiers", ICML 2005.
    """

    _repr_always = ("d",)

    def __init__(
        self,
        d: int = 5,
        alphabet: str | Sequence[str] = "dna",
        normalize: bool = False,
        ignore_case: bool = True,
        unknown: str = "error",
        shift: int = 0,
        weights: Sequence[float] | np.ndarray | None = None,
        weights_bounds: tuple[float, float] | str = (1e-5, 1e5),
    ) -> None:
        self.d = d
        self.shift = shift
        self.alphabet = alphabet
        self.normalize = normalize
        self.ignore_case = ignore_case
        self.unknown = unknown
        self.weights = weights
        self.weights_bounds = weights_bounds

    def _check_params(self):
        self._check_sequence_params()
        check_scalar(self.d, "d", lower=1, integer=True)
        check_scalar(self.shift, "shift", lower=0, integer=True)
        self._beta()

    def _beta(self):
        """The weights of the k-mer lengths (None: the standard ones)."""
        if self.weights is None:
            return None
        beta = check_weights(self.weights, "weights", "the weights of the k-mer lengths")
        if beta.shape != (int(self.d),):
            raise ValueError(
                f"weights must hold d={self.d} numbers (one per k-mer length 1..d), "
                f"got {self.weights!r}"
            )
        return beta

    def _own_hyperparameters(self):
        return [] if self.weights is None else declare_entries(self, "weights")

    def _gram_gradient(self, P):
        # linear in the weights: dK / d log beta_k = beta_k K_k, K_k the raw
        # Gram of the k-mers of length k alone (weights e_k)
        K = self._raw_gram(P)
        columns = entry_gradients(
            self, "weights", self._beta(), lambda unit: self._raw_gram(P, unit)
        )
        dK = stack(K, columns)
        if self.normalize:
            return normalized_gradient(K, dK)
        return K, dK

    def _prepare_encoded(self, P, name):
        lengths = P.lengths
        if np.any(lengths != lengths[0]):
            i = int(np.flatnonzero(lengths != lengths[0])[0])
            raise ValueError(
                f"{name}[{i}] has length {lengths[i]} but {name}[0] has length "
                f"{lengths[0]}: the weighted-degree kernel compares aligned "
                "sequences of equal length"
            )
        return P.codes.reshape(len(P), int(lengths[0]))

    def _check_pair(self, P, Q):
        if P.shape[1] != Q.shape[1]:
            raise ValueError(
                f"X holds sequences of length {P.shape[1]} but Y of length "
                f"{Q.shape[1]}: the weighted-degree kernel compares aligned "
                "sequences of equal length"
            )

    def _fill(self, P, Q, part, beta=None):
        return weighted_degree.weighted_degree(
            P,
            Q,
            part,
            int(self.d),
            int(self.shift),
            len(self._alphabet),
            self._beta() if beta is None else beta,
        )

    def _raw_gram(self, P, beta=None):
        K = self._fill(P, None, 0, beta)
        mirror_upper(K)
        return K

    def _raw_cross(self, P, Q):
        return self._fill(P, Q, 1)

    def _raw_diag(self, P):
        return self._fill(P, None, 2)[:, 0]
