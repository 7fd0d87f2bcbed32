"""String kernels: k-mer spectrum, (k, m)-mismatch and weighted degree.

All three take a list of sequences (``str``, ``bytes``, sequences of
symbols, Biopython records) over an alphabet (``"dna"``, ``"rna"``,
``"protein"`` or given symbols); the input rules (case, symbols outside the
alphabet) are those of :func:`structk.sequences.encode`:

* ``ignore_case=True`` (default): ``"acgt"`` reads as ``"ACGT"``;
* ``unknown="error"`` (default): a symbol outside the alphabet raises an
  error naming the sequence, position and symbol; ``unknown="skip"`` drops
  every k-mer containing it (and, for :class:`WeightedDegree`, makes its
  position match nothing), never counting it as some other k-mer.

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

import copy

import numpy as np

from .._validation import check_scalar
from ..alphabets import resolve_alphabet
from ..sequences import EncodedSequences, check_unknown, encode
from ._sparse_gram import sparse_cross, sparse_gram
from .algebra import Normalize
from .base import Kernel, _row_sq_norms, mirror_upper

#: Largest k-mer index space (A ** k) held in int64 column indices.
MAX_SPACE = 2**62
#: Count k-mers through one counter per possible k-mer when there are at
#: most this many, or no more than the k-mers to count; else sort each row.
COUNTER_SPACE = 2**16


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")


class _SequenceKernel(Kernel):
    """Input handling and the ``normalize`` flag shared by the string kernels."""


    def _check_sequence_params(self):
        self._alphabet = resolve_alphabet(self.alphabet)
        _check_bool(self.normalize, "normalize")
        _check_bool(self.ignore_case, "ignore_case")
        check_unknown(self.unknown)

    def _prepare(self, X, name):
        return encode(X, self._alphabet, ignore_case=self.ignore_case,
                      unknown=self.unknown, name=name)

    def _take(self, P, index):
        if isinstance(P, EncodedSequences):
            return P.take(index)
        return super()._take(P, index)  # WeightedDegree: a 2-D code array

    def _unnormalized(self):
        raw = copy.copy(self)
        raw.normalize = False
        return raw

    def _gram(self, P):
        if self.normalize:
            return Normalize(self._unnormalized())._gram(P)
        return self._raw_gram(P)

    def _cross(self, P, Q):
        if self.normalize:
            return Normalize(self._unnormalized())._cross(P, Q)
        return self._raw_cross(P, Q)

    def _diag(self, P):
        if self.normalize:
            return Normalize(self._unnormalized())._diag(P)
        return self._raw_diag(P)

    def _features(self, P):
        if self.normalize:
            F = Normalize(self._unnormalized())._features(P)
        else:
            F = self._raw_features(P)
        F.sort_indices()  # canonical CSR for users; Gram matrices skip this
        return F


class _KmerKernel(_SequenceKernel):
    """Kernels whose feature map is a sparse matrix over the A^k k-mers."""

    has_features = True

    def _check_k(self, bounded=True):
        k = check_scalar(self.k, "k", lower=1, integer=True)
        A = len(self._alphabet)
        if bounded and A ** k > MAX_SPACE:
            raise ValueError(
                f"k={k} is too large for an alphabet of {A} symbols: the "
                f"{A}^{k} k-mers do not fit in int64 feature indices (at most "
                f"2^62); use k <= {int(np.log(MAX_SPACE) / np.log(A))}"
            )
        return k, A

    def _kmers(self, P):
        from .._jit.strings import kmer_ids

        return kmer_ids(P.codes, P.offsets, int(self.k), len(self._alphabet))

    def _csr(self, indptr, indices, data):
        import scipy.sparse as sp

        shape = (len(indptr) - 1, len(self._alphabet) ** int(self.k))
        return sp.csr_matrix((data, indices, indptr), shape=shape)

    def _raw_gram(self, P):
        return sparse_gram(self._raw_features(P))

    def _raw_cross(self, P, Q):
        return sparse_cross(self._raw_features(P), self._raw_features(Q))

    def _raw_diag(self, P):
        return _row_sq_norms(self._raw_features(P))


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
    rare ones by a direct loop (:mod:`structk.kernels._sparse_gram`).

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

    _repr_always = ('k',)

    def __init__(self, k=3, alphabet="dna", presence=False, normalize=False,
                 ignore_case=True, unknown="error"):
        self.k = k
        self.alphabet = alphabet
        self.presence = presence
        self.normalize = normalize
        self.ignore_case = ignore_case
        self.unknown = unknown
        self._check_params()

    def _check_params(self):
        self._check_sequence_params()
        self._check_k(bounded=False)
        _check_bool(self.presence, "presence")

    def _beyond_int64(self):
        return len(self._alphabet) ** int(self.k) > MAX_SPACE

    def _raw_features(self, P):
        from .._jit.strings import count_rows

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
        direct = space <= max(COUNTER_SPACE, ids.size)
        return self._csr(*count_rows(ids, ptr, bool(self.presence), space, direct))

    def _present_features(self, P):
        """Counts over the k-mers present in ``P``, numbered by sorted k-mer."""
        import scipy.sparse as sp

        from .._jit.strings import count_rows, kmer_chunks

        if not self._beyond_int64():
            return self._raw_features(P)
        A = len(self._alphabet)
        c = 1
        while A ** (c + 1) <= MAX_SPACE:
            c += 1
        chunks, ptr = kmer_chunks(P.codes, P.offsets, int(self.k), A, c)
        if chunks.shape[0] == 0:
            return sp.csr_matrix((len(P), 1))
        _, ids = np.unique(chunks, axis=0, return_inverse=True)
        ids = np.ascontiguousarray(ids.ravel(), dtype=np.int64)
        space = int(ids.max()) + 1
        indptr, indices, data = count_rows(ids, ptr, bool(self.presence), space,
                                           space <= max(COUNTER_SPACE, ids.size))
        return sp.csr_matrix((data, indices, indptr), shape=(len(P), space))

    def _raw_gram(self, P):
        return sparse_gram(self._present_features(P))

    def _raw_cross(self, P, Q):
        if not self._beyond_int64():
            return super()._raw_cross(P, Q)
        # number the k-mers of X and Y together so that the columns agree
        both = EncodedSequences(np.concatenate([P.codes, Q.codes]),
                                np.concatenate([P.offsets, Q.offsets[1:] + P.offsets[-1]]),
                                P.alphabet)
        F = self._present_features(both)
        return sparse_cross(F[: len(P)], F[len(P):])

    def _raw_diag(self, P):
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

    _repr_always = ('k', 'm')

    def __init__(self, k=5, m=1, alphabet="dna", normalize=False, ignore_case=True,
                 unknown="error"):
        self.k = k
        self.m = m
        self.alphabet = alphabet
        self.normalize = normalize
        self.ignore_case = ignore_case
        self.unknown = unknown
        self._check_params()

    def _check_params(self):
        self._check_sequence_params()
        k, _ = self._check_k()
        m = check_scalar(self.m, "m", lower=0, integer=True)
        if m >= k:
            raise ValueError(
                f"m must be < k (with m >= k every pair of k-mers matches), got "
                f"m={m}, k={k}"
            )

    def _raw_features(self, P):
        from .._jit.strings import mismatch_rows

        ids, ptr = self._kmers(P)
        A, k = len(self._alphabet), int(self.k)
        return self._csr(*mismatch_rows(ids, ptr, k, A, int(self.m), A ** k))


class WeightedDegree(_SequenceKernel):
    """The weighted-degree kernel for aligned sequences of equal length.

    ``k(x, y) = sum_{k=1}^{d} beta_k sum_{l=1}^{L-k+1} [x_{l..l+k-1} = y_{l..l+k-1}]``
    with the standard weights ``beta_k = 2 (d - k + 1) / (d (d + 1))``: the
    k-mers of ``x`` and ``y`` starting at the same position are compared, for
    every length ``k`` up to the degree ``d``. Unlike the spectrum kernel it
    is position-aware, which is what splice-site recognition needs.

    Computed pair by pair in ``O(L)``: the position that extends a run of
    matches to length ``r`` completes one matching k-mer for each
    ``k <= min(d, r)``, so it adds ``sum_{k <= min(d, r)} beta_k``.
    With ``unknown="skip"`` a position holding an unknown symbol matches
    nothing (itself included), i.e. the k-mers containing it are dropped.

    Parameters
    ----------
    d : int >= 1, default 5
        Degree: the longest k-mers compared.
    alphabet, normalize, ignore_case, unknown
        As for :class:`Spectrum`.

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
    S. Sonnenburg, G. Rätsch and B. Schölkopf, "Large scale genomic sequence
    SVM classifiers", ICML 2005.
    """

    _repr_always = ('d',)

    def __init__(self, d=5, alphabet="dna", normalize=False, ignore_case=True,
                 unknown="error"):
        self.d = d
        self.alphabet = alphabet
        self.normalize = normalize
        self.ignore_case = ignore_case
        self.unknown = unknown
        self._check_params()

    def _check_params(self):
        self._check_sequence_params()
        check_scalar(self.d, "d", lower=1, integer=True)

    def _prepare(self, X, name):
        P = super()._prepare(X, name)
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

    def _weights(self, L):
        from .._jit.strings import wd_increments

        return wd_increments(int(self.d), L)

    def _raw_gram(self, P):
        from .._jit.strings import wd_gram

        K = wd_gram(P, len(self._alphabet), self._weights(P.shape[1]))
        mirror_upper(K)
        return K

    def _raw_cross(self, P, Q):
        from .._jit.strings import wd_cross

        return wd_cross(P, Q, len(self._alphabet), self._weights(P.shape[1]))

    def _raw_diag(self, P):
        from .._jit.strings import wd_diag

        return wd_diag(P, len(self._alphabet), self._weights(P.shape[1]))
