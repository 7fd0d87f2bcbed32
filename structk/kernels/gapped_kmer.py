"""The gapped k-mer kernel family (gkm-SVM, LS-GKM) for DNA.

See :class:`GappedKmer`; the algorithm and its weights are in
:mod:`structk.algorithms.gapped_kmers`.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray


import numpy as np

from .._validation import check_scalar
from ..algorithms import gapped_kmers as gkm
from ..algorithms.gapped_kmers import LmerWindows, weights
from ..sequences import NUCLEOTIDES
from .base import Features, Objects
from .strings import _check_bool, _SequenceKernel

#: Longest l-mers: two bits a base in an int64.
MAX_L = 31


class GappedKmer(_SequenceKernel):
    """The gapped k-mer kernels of gkm-SVM and LS-GKM, on DNA.

    Every kernel of the family sums over the pairs of l-mers (words of
    length ``l``) of two sequences that differ in at most ``d`` positions::

        K(x, y) = sum_{a in x} sum_{b in y} v_a v_b w[mm(a, b)]

    with ``mm`` the number of mismatches, ``v`` the l-mers' weights (1, or
    the centre weights) and ``w`` set by ``kind`` (LS-GKM's ``-t``):

    ``"count"`` (``-t 0``, the gapped k-mer count kernel, "gkm")
        ``w[m] = C(l - m, k)``: the number of gapped k-mers (``k``
        informative positions among ``l``, the others gaps) two l-mers
        ``m`` apart share. With ``d = l - k`` this is exactly the inner
        product of the gapped k-mer count vectors.
    ``"full"`` (``-t 1``, estimated l-mer kernel with full filter)
        the inner product of the l-mer counts estimated from the gapped
        k-mer counts (their least-squares estimate, an orthogonal
        projection).
    ``"truncated"`` (``-t 2``, estimated l-mer kernel with truncated
        filter, the gkm-SVM default) the same with the estimation filter
        cut off where it stops being positive.

    ``center_weighted=True`` gives the l-mer starting ``D`` positions from
    the middle of its sequence the weight ``min(M, floor(M 2^(-D/H) + 1))``
    (LS-GKM's ``-t 4`` "wgkm" with ``kind="truncated"``, its ``gkmtrain``
    default); ``gamma`` gives the RBF form ``exp(gamma (K_n(x, y) - 1))`` of
    the normalised kernel ``K_n`` (``-t 3`` "gkmrbf", ``-t 5`` "wgkmrbf",
    ``-t 6``). As in LS-GKM, only pairs within ``d`` mismatches count.

    Positive semi-definite on every set of sequences (with or without
    reverse complements, centre weights, normalisation and the RBF form)
    are exactly these settings:

    * ``kind="count"`` with ``d = l - k``: the gapped k-mer inner product;
    * ``kind="truncated"`` with ``d = l``: the truncated filter applied
      twice weighs no pair beyond a few mismatches (``l - k`` for k at
      least about l / 2: (10, 6), (11, 7), (12, 8); 6 for (8, 3)), so
      ``d = l`` costs no more than ``d`` at that support, and the
      LS-GKM-compatible ``d = l - k`` is already exact at those ``(l, k)``;
    * ``kind="full"`` with ``d = l``: the projection itself. Its weights
      never vanish, so this compares all pairs of l-mers (the all-pairs
      algorithm), much slower than LS-GKM's truncation.

    (``d`` above ``l - k`` is allowed for these two kinds only.) A smaller
    ``d`` is LS-GKM's truncation, which leaves out weight the
    kernel needs and is not PSD on every set: at the LS-GKM default
    (``kind="truncated"``, l = 11, k = 7, d = 3) the l-mer weight matrix's
    smallest eigenvalue is -2.9e-4 of its largest, and ``"full"`` with
    ``d <= l - k`` is further off (see
    :func:`structk.algorithms.gapped_kmers.weights.lmer_eigenvalues`). The
    learners' PSD check rarely notices it on real sequences; use
    ``d = l - k`` (or ``kind="full"``, ``d = l``) to be exact.

    Reverse complements (``reverse_complement=True``, the default, as in
    LS-GKM, whose ``-R`` turns it off): an l-mer and its reverse complement
    are one feature, ``K(x, y) = K_1(x, y) + K_1(x, rc(y))`` with ``K_1``
    the single-strand kernel. It is the kernel of the strand-merged
    features ``phi(x) + phi(rc(x))`` (times ``1 / sqrt 2``): a sequence and
    its reverse complement are the same point.

    Input: ``N`` and every other symbol outside ACGT (IUPAC ambiguity
    codes) make the l-mers covering them unknown, and those are left out
    (``unknown="skip"``, the default; ``"error"`` refuses them). LS-GKM
    instead reads such a symbol as ``A`` (with a warning) and gkmsvm-lite
    refuses it. Lowercase (soft-masked) bases read as upper case. A
    sequence shorter than ``l`` has no l-mers: its kernel values are 0
    (normalised: a zero row; RBF: ``exp(-gamma)``).

    The Gram matrix sums over near pairs of l-mers by one of two compiled
    algorithms (:mod:`structk.algorithms.gapped_kmers`): all pairs
    compared by XOR and popcount (as gkmsvm-lite does), or, for larger
    inputs, counting over the ``sum_{t <= d} C(l, t)`` patterns of deleted
    positions (as GaKCo and FastSK count gapped k-mers), whose cost grows
    with the number of near pairs only; for short l-mers (``4^l`` float64
    in the cache, l <= 9) each sequence's l-mers spread their weights over
    a table of all l-mers, and every other sequence reads its sum off it,
    one look-up per l-mer ("table").

    Parameters
    ----------
    l : int, 1 <= l <= 31, default 11
        Word length.
    k : int, 1 <= k <= l, default 7
        Informative (non-gap) positions of a gapped k-mer.
    d : int, 0 <= d <= l - k (``"full"``, ``"truncated"``: d <= l), default 3
        Largest number of mismatches between two l-mers that counts.
    kind : {"count", "full", "truncated"}, default "truncated"
        The kernel (see above).
    reverse_complement : bool, default True
        Merge each l-mer with its reverse complement.
    center_weighted : bool, default False
        Weigh l-mers by their distance from the sequence's middle.
    M : int, 1 <= M <= 255, default 50
        Largest centre weight (LS-GKM's ``-M``).
    H : float > 0, default 50.0
        Half-life distance of the centre weights (LS-GKM's ``-H``).
    gamma : float > 0 or None, default None
        The RBF form's ``gamma`` (LS-GKM's ``-g``); None for the plain form.
    normalize : bool, default True
        Cosine-normalise (LS-GKM always does); must be True with ``gamma``.
    alphabet : {"dna", "rna"}, default "dna"
    ignore_case : bool, default True
    unknown : {"skip", "error"}, default "skip"
    algorithm : {"auto", "pairs", "subsets", "table", "numpy"}, default "auto"
        The summation (all give the same values up to rounding).

    Examples
    --------
    >>> from structk.kernels import GappedKmer
    >>> k = GappedKmer(l=4, k=2, d=2, kind="count", reverse_complement=False,
    ...                normalize=False)
    >>> k(["ACGTAC", "ACGAAC"])  # 3 l-mers each; 3 pairs one mismatch apart
    array([[18.,  9.],
           [ 9., 18.]])

    References
    ----------
    M. Ghandi, D. Lee, M. Mohammad-Noori and M. A. Beer, "Enhanced
    regulatory sequence prediction using gapped k-mer features", PLoS
    Computational Biology 10(7), 2014, e1003711.
    D. Lee, "LS-GKM: a new gkm-SVM for large-scale datasets",
    Bioinformatics 32(14), 2016, 2196-2198.
    M. Singh, A. Sekhon, J. Lanchantin, ... and Y. Qi, "GaKCo: a fast
    gapped k-mer string kernel using counting", ECML PKDD 2017.
    """

    _repr_always = ("l", "k", "d")

    def __init__(
        self,
        l: int = 11,
        k: int = 7,
        d: int = 3,
        kind: str = "truncated",
        reverse_complement: bool = True,
        center_weighted: bool = False,
        M: int = 50,
        H: float = 50.0,
        gamma: float | None = None,
        normalize: bool = True,
        alphabet: str = "dna",
        ignore_case: bool = True,
        unknown: str = "skip",
        algorithm: str = "auto",
    ) -> None:
        self.l = l
        self.k = k
        self.d = d
        self.kind = kind
        self.reverse_complement = reverse_complement
        self.center_weighted = center_weighted
        self.M = M
        self.H = H
        self.gamma = gamma
        self.normalize = normalize
        self.alphabet = alphabet
        self.ignore_case = ignore_case
        self.unknown = unknown
        self.algorithm = algorithm

    # ------------------------------------------------------------ parameters
    def _check_params(self):
        self._check_sequence_params()
        if self._alphabet not in NUCLEOTIDES:
            raise ValueError(
                f"GappedKmer works on DNA or RNA (alphabet 'dna' or 'rna'), got "
                f"alphabet {self.alphabet!r}: the l-mers are packed two bits a "
                "base and reverse complements pair A-T(U), C-G"
            )
        l = check_scalar(self.l, "l", lower=1, upper=MAX_L, integer=True)
        k = check_scalar(self.k, "k", lower=1, integer=True)
        if k > l:
            raise ValueError(
                f"k must be <= l (k informative positions of an l-mer), got k={k}, l={l}"
            )
        if self.kind not in weights.KINDS:
            raise ValueError(f"kind must be one of {weights.KINDS}, got {self.kind!r}")
        d = check_scalar(self.d, "d", lower=0, integer=True)
        if self.kind != "count" and d > l:
            raise ValueError(
                f"d must be <= l = {l} (l-mers differ in at most l positions), got d={d} with l={l}"
            )
        if self.kind == "count" and d > l - k:
            raise ValueError(
                f"d must be <= l - k = {l - k} (two l-mers more than l - k apart "
                f"share no gapped k-mer; the estimated l-mer kinds 'full' and "
                f"'truncated' allow d up to l), got d={d} with l={l}, k={k}"
            )
        _check_bool(self.reverse_complement, "reverse_complement")
        _check_bool(self.center_weighted, "center_weighted")
        check_scalar(self.M, "M", lower=1, upper=255, integer=True)
        check_scalar(self.H, "H", lower=0, lower_inclusive=False)
        if self.gamma is not None:
            check_scalar(self.gamma, "gamma", lower=0, lower_inclusive=False)
            if not self.normalize:
                raise ValueError(
                    "gamma (the RBF form exp(gamma (K_n - 1))) is defined on the "
                    "normalised kernel K_n; leave normalize=True"
                )
        if self.algorithm not in ("auto", "pairs", "subsets", "table", "numpy"):
            raise ValueError(
                "algorithm must be 'auto', 'pairs', 'subsets', 'table' or 'numpy', "
                f"got {self.algorithm!r}"
            )

    # ------------------------------------------------------------- features
    @property
    def has_features(self) -> bool:  # type: ignore[override]  # Kernel: class attribute
        """An explicit feature map exists for the gapped k-mer count kernel
        with every pair sharing a gapped k-mer counted (``kind="count"``,
        ``d = l - k``, no ``gamma``)."""
        return (
            self.kind == "count"
            and self.gamma is None
            and isinstance(self.d, (int, np.integer))
            and self.d == self.l - self.k
        )

    fixed_feature_columns = has_features

    def _no_features(self):
        if self.has_features:
            return
        raise TypeError(
            f"{self!r} has no explicit feature map: only the gapped k-mer count "
            f"kernel with d = l - k (kind='count', d={self.l}-{self.k}, gamma=None) "
            "is an inner product of feature vectors (the estimated l-mer kinds, the "
            "truncation d < l - k and the RBF form are not); compute its Gram "
            "matrix with k(X) instead"
        )

    def features(self, X: Objects) -> Features:
        """Gapped k-mer count features, CSR (``kind="count"``, ``d = l - k``).

        Column ``s 4^k + c``: the gapped k-mer with informative positions
        ``itertools.combinations(range(l), k)[s]`` and bases ``c`` (two bits
        a base, first most significant), each l-mer counted with its weight.
        With ``reverse_complement`` a gapped k-mer and its reverse complement
        share the smaller column (the other stays empty) holding the sum of
        their counts, and a palindromic one counts ``sqrt 2``: ``F(X) @
        F(Y).T`` is the kernel. Normalised rows with ``normalize``.
        """
        self._no_features()
        return super().features(X)

    def features_prepared(self, P: Any) -> Features:
        self._no_features()
        return super().features_prepared(P)

    def _features(self, P):
        import scipy.sparse as sp

        self._no_features()
        indptr, ids, vals, columns = gkm.gapped_kmer_counts(
            P, int(self.l), int(self.k), bool(self.reverse_complement), repr(self)
        )
        F = sp.csr_matrix((vals, ids, indptr), shape=(len(P), columns))
        if self.normalize:
            norms = np.sqrt(np.asarray(F.multiply(F).sum(axis=1)).ravel())
            scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
            F = sp.csr_matrix(sp.diags(scale) @ F)
        return F

    def mismatch_weights(self) -> NDArray[np.float64]:
        """``w[0..d]``: the weight of a pair of l-mers ``m`` mismatches apart."""
        self._check_params()
        return weights.mismatch_weights(int(self.l), int(self.k), int(self.d), self.kind)

    # ------------------------------------------------------------ preparing
    def _prepare_encoded(self, P, name):  # the strings' shared encoding
        keys, keys_rc, wts, _, ptr = gkm.lmer_occurrences(
            P.codes,
            P.offsets,
            int(self.l),
            bool(self.center_weighted),
            float(self.M),
            float(self.H),
        )
        return LmerWindows(keys, keys_rc, wts, ptr)

    def _take(self, P, index):
        return P.take(index)

    def _raw(self, P, Q, mode):
        """Unnormalised sums: mode 0 Gram, 1 cross, 2 diagonal."""
        return gkm.lmer_sums(
            P,
            Q,
            self.mismatch_weights(),
            int(self.l),
            int(self.k),
            bool(self.reverse_complement),
            mode,
            self.algorithm,
            repr(self),
        )

    # ------------------------------------------------------- kernel hooks
    def _finish(self, K, dx, dy):
        """Normalise (and take the RBF form of) the raw sums ``K`` in place:
        no n x n temporaries (at 20,000 sequences each is 3.2 GB)."""
        if not self.normalize:
            return K
        sx = np.sqrt(dx)
        sy = np.sqrt(dy)
        ix = np.divide(1.0, sx, out=np.zeros_like(sx), where=sx > 0)
        iy = np.divide(1.0, sy, out=np.zeros_like(sy), where=sy > 0)
        K *= ix[:, None]
        K *= iy[None, :]
        if self.gamma is not None:
            K -= 1.0
            K *= float(self.gamma)
            np.exp(K, out=K)
        return K

    def _gram(self, P):
        K = self._raw(P, None, 0)
        d = np.diag(K).copy()
        return self._finish(K, d, d)

    def _cross(self, P, Q):
        K = self._raw(P, Q, 1)
        if not self.normalize:
            return K
        return self._finish(K, self._raw(P, None, 2), self._raw(Q, None, 2))

    def expansion_prepared(self, P: Any, coef: NDArray[np.float64]) -> GappedKmerExpansion:
        """``f(Q) = K(Q, P) @ coef.T`` as a function of prepared sequences
        ``Q``: a kernel expansion such as an SVM's decision function (``P``
        the prepared support vectors, ``coef`` of shape ``(machines,
        len(P))`` their dual coefficients).

        Without ``gamma`` every kernel of the family is linear in the l-mers
        of its second argument, ``sum_j c_j K(x, y_j) = sum_{a in x} v_a
        S(a)``: the support vectors fold into one table ``S`` over all
        ``4^l`` l-mers (LS-GKM's ``gkmpredict`` folds them into its k-mer
        tree), built once, after which a sequence costs one look-up per
        l-mer (:func:`structk.algorithms.gapped_kmers.lmer_profile`). The
        function builds the table at its first call when that costs less
        than comparing the batch with every support vector, and keeps it;
        otherwise (and with ``gamma``) it computes the cross-Gram. Both give
        the same values up to rounding.
        """
        self._validate()
        coef = np.atleast_2d(np.asarray(coef, dtype=np.float64))
        if coef.ndim != 2 or coef.shape[1] != len(P):
            raise ValueError(
                f"coef must have shape (machines, {len(P)}) for {len(P)} prepared "
                f"sequences, got shape {coef.shape}"
            )
        return GappedKmerExpansion(self, P, coef)

    def _diag(self, P):
        d = self._raw(P, None, 2)
        if not self.normalize:
            return d
        one = np.where(d > 0, 1.0, 0.0)
        if self.gamma is not None:
            return np.exp(float(self.gamma) * (one - 1.0))
        return one


def _inverse_sqrt(d):
    """``1 / sqrt(d)``, 0 where ``d`` is 0 (as :meth:`GappedKmer._finish`)."""
    s = np.sqrt(d)
    return np.divide(1.0, s, out=np.zeros_like(s), where=s > 0)


class GappedKmerExpansion:
    """``Q -> K(Q, P) @ coef.T`` for a :class:`GappedKmer` (see
    :meth:`GappedKmer.expansion_prepared`).

    Attributes
    ----------
    tables : ndarray of shape (machines, 4^l) or None
        The folded support vectors (:func:`structk.algorithms.gapped_kmers.
        lmer_profile`), once a call has built them.
    """

    def __init__(self, kernel: GappedKmer, P: Any, coef: NDArray[np.float64]) -> None:
        self.kernel = kernel
        self.P = P
        self.coef = coef
        self.tables: NDArray[np.float64] | None = None

    def _foldable(self, Q):
        k = self.kernel
        return k.gamma is None and gkm.profile_pays(
            self.P,
            Q,
            k.mismatch_weights(),
            int(k.l),
            int(k.k),
            bool(k.reverse_complement),
            self.coef.shape[0],
        )

    def __call__(self, Q: Any) -> NDArray[np.float64]:
        """``K(Q, P) @ coef.T``, shape ``(len(Q), machines)``."""
        k = self.kernel
        if self.tables is None and not self._foldable(Q):
            return np.asarray(k.cross_prepared(Q, self.P)) @ self.coef.T
        if self.tables is None:
            coef = self.coef
            if k.normalize:
                coef = coef * _inverse_sqrt(k._raw(self.P, None, 2))[None, :]
            self.tables = gkm.lmer_profile(
                self.P, coef, k.mismatch_weights(), int(k.l), bool(k.reverse_complement)
            )
        out = gkm.profile_sums(Q, self.tables)
        if k.normalize:
            out *= _inverse_sqrt(k._raw(Q, None, 2))[:, None]
        return out
