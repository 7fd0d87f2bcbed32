"""Alignment kernels: the local alignment kernel, and the Smith-Waterman score.

The local alignment (LA) kernel of Saigo, Vert, Ueda & Akutsu sums
``exp(beta * s(pi))`` over all local alignments ``pi`` of two sequences,
``s`` being the Smith-Waterman score (a substitution matrix and affine
gaps). It is a valid (PSD) kernel for sequences of any lengths; its
logarithm divided by ``beta`` tends to the Smith-Waterman score as
``beta`` grows. Neither the Smith-Waterman score nor ``log K / beta`` is a
kernel (see :func:`structk.psd.nearest_psd` and
:class:`~structk.kernels.empirical.EmpiricalKernelMap` for the repairs).

Substitution matrices come from Biopython
(``Bio.Align.substitution_matrices``): any name it lists (``"BLOSUM62"``,
``"PAM250"``, ``"NUC.4.4"``, ...), one of its ``Array`` objects, or a pair
``(alphabet, scores)`` for any alphabet. The matrix's alphabet is the
alphabet of the sequences: a symbol outside it is an error naming the
sequence, the position and the symbol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

import difflib
import functools

import numpy as np

from .._validation import check_objects, check_scalar
from ..algorithms import alignment
from ..sequences import UNKNOWN, encode
from .algebra import LogForm
from .base import Kernel, Objects, mirror_upper


@functools.lru_cache(maxsize=32)
def _named_matrix(name):
    from Bio.Align import substitution_matrices

    names = substitution_matrices.load()
    if name not in names:
        close = difflib.get_close_matches(name.upper(), names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"unknown substitution matrix {name!r}{hint} (Biopython names: "
            f"{', '.join(names)}); or pass a Bio.Align.substitution_matrices.Array "
            "or a pair (alphabet, scores)"
        )
    return substitution_matrices.load(name)


def substitution_matrix(matrix):
    """The symbols and the score table of a substitution matrix.

    Parameters
    ----------
    matrix : str, Bio.Align.substitution_matrices.Array or (alphabet, scores)
        A name Biopython knows (``substitution_matrices.load()`` lists
        them), one of its 2-D ``Array`` objects, or a pair of an alphabet (a
        string or sequence of distinct symbols) and a square array of
        scores in that order.

    Returns
    -------
    symbols : tuple
    scores : ndarray of float64, shape (A, A)
        Symmetric and finite.
    """
    if isinstance(matrix, str):
        matrix = _named_matrix(matrix)
    if type(matrix).__module__.startswith("Bio.") and hasattr(matrix, "alphabet"):
        alphabet, scores = matrix.alphabet, np.asarray(matrix)
    elif isinstance(matrix, (tuple, list)) and len(matrix) == 2:
        alphabet, scores = matrix
    else:
        raise TypeError(
            "matrix must be a Biopython matrix name (e.g. 'BLOSUM62'), a "
            "Bio.Align.substitution_matrices.Array, or a pair (alphabet, scores); "
            f"got {type(matrix).__name__}"
        )
    from ..alphabets import resolve_alphabet

    symbols = resolve_alphabet(alphabet)
    try:
        scores = np.array(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("the substitution scores must be a square array of numbers") from None
    A = len(symbols)
    if scores.shape != (A, A):
        raise ValueError(
            f"the substitution scores have shape {scores.shape}, but the alphabet has "
            f"{A} symbols: expected ({A}, {A})"
        )
    if A > 255:
        raise ValueError(f"an alphabet has at most 255 symbols, got {A}")
    if not np.isfinite(scores).all():
        i, j = np.argwhere(~np.isfinite(scores))[0]
        raise ValueError(
            f"the substitution score of {symbols[i]!r} and {symbols[j]!r} is "
            f"{scores[i, j]}; scores must be finite"
        )
    if not np.array_equal(scores, scores.T):
        i, j = np.argwhere(scores != scores.T)[0]
        raise ValueError(
            f"the substitution matrix is not symmetric: S[{symbols[i]!r}, {symbols[j]!r}] "
            f"= {scores[i, j]} but S[{symbols[j]!r}, {symbols[i]!r}] = {scores[j, i]}; "
            "an alignment kernel needs k(x, y) = k(y, x)"
        )
    return symbols, scores


def _encode(X, symbols, ignore_case, name, matrix):
    X = check_objects(X, name)
    P = encode(X, symbols, ignore_case=ignore_case, unknown="skip", name=name)
    bad = np.flatnonzero(P.codes == UNKNOWN)
    if bad.size:
        flat = int(bad[0])
        i = int(np.searchsorted(P.offsets, flat, side="right") - 1)
        pos = flat - int(P.offsets[i])
        x = X[i]
        x = str(getattr(x, "seq", x)) if type(x).__module__.startswith("Bio.") else x
        symbol = chr(x[pos]) if isinstance(x, bytes) else x[pos]
        shown = "".join(symbols) if all(isinstance(s, str) for s in symbols) else symbols
        label = matrix if isinstance(matrix, str) else "the substitution matrix"
        raise ValueError(
            f"{name}[{i}] has symbol {symbol!r} at position {pos}, which {label} does "
            f"not score (its alphabet: {shown!r}); remove it, or use a matrix with "
            "a symbol for unknown residues (BLOSUM62 has 'X')"
        )
    return P


def _check_gaps(gap_open, gap_extend):
    check_scalar(gap_open, "gap_open", lower=0)
    check_scalar(gap_extend, "gap_extend", lower=0)


class LocalAlignment(LogForm, Kernel):
    """The local alignment kernel: a sum over all local alignments.

    ``k(x, y) = sum_pi exp(beta * s(pi))`` over every local alignment
    ``pi`` of ``x`` and ``y`` (the empty one included, which contributes 1),
    with ``s(pi)`` its Smith-Waterman score: the substitution scores of the
    aligned pairs minus ``gap_open + (n - 1) * gap_extend`` for each gap of
    length ``n``. It is computed by the dynamic programme of Saigo et al.
    (2004) in ``O(|x| |y|)`` per pair (see :mod:`structk.algorithms.alignment`).

    Values grow like ``exp(beta * score)`` and exceed float64 for ordinary
    proteins at ``beta = 0.5`` beyond a few hundred residues. They are
    therefore computed as ``log k`` (in plain float64 when that does not
    overflow, else cell by cell in log space), so that
    ``Normalize(LocalAlignment(...))`` and :meth:`log_kernel` are finite
    for sequences of any length; ``k(X)`` itself raises
    :class:`~structk.exceptions.KernelOverflowError` (naming the entry)
    when a value does not fit in float64.

    Parameters
    ----------
    beta : float > 0, default 0.5
        Inverse temperature: large ``beta`` concentrates the sum on the best
        alignments (``log k / beta`` tends to the Smith-Waterman score),
        small ``beta`` spreads it over many.
    matrix : str, Biopython Array or (alphabet, scores), default "BLOSUM62"
        Substitution matrix (see :func:`substitution_matrix`); its alphabet
        is the alphabet of the sequences. Must be symmetric.
    gap_open : float >= 0, default 11
        Cost of the first position of a gap.
    gap_extend : float >= 0, default 1
        Cost of each further position.
    ignore_case : bool, default True
        Letters match the matrix's symbols in either case.

    Examples
    --------
    >>> from structk.kernels import LocalAlignment, Normalize
    >>> K = Normalize(LocalAlignment(beta=0.5))(["MKVLAAGIV", "MKVLSAGIV", "WWPHYC"])
    >>> K.round(3)
    array([[1.   , 0.223, 0.   ],
           [0.223, 1.   , 0.   ],
           [0.   , 0.   , 1.   ]])

    References
    ----------
    H. Saigo, J.-P. Vert, N. Ueda and T. Akutsu, "Protein homology detection
    using string alignment kernels", Bioinformatics 20(11), 2004, 1682-1689.
    J.-P. Vert, H. Saigo and T. Akutsu, "Local alignment kernels for
    biological sequences", in *Kernel Methods in Computational Biology*, MIT
    Press, 2004, 131-154.
    """

    _repr_always = ("beta",)

    def __init__(
        self,
        beta: float = 0.5,
        matrix: Any = "BLOSUM62",
        gap_open: float = 11,
        gap_extend: float = 1,
        ignore_case: bool = True,
    ) -> None:
        self.beta = beta
        self.matrix = matrix
        self.gap_open = gap_open
        self.gap_extend = gap_extend
        self.ignore_case = ignore_case

    def _check_params(self):
        check_scalar(self.beta, "beta", lower=0, lower_inclusive=False)
        _check_gaps(self.gap_open, self.gap_extend)
        if not isinstance(self.ignore_case, (bool, np.bool_)):
            raise TypeError(f"ignore_case must be True or False, got {self.ignore_case!r}")
        substitution_matrix(self.matrix)

    def _tables(self):
        beta = float(self.beta)
        L = beta * substitution_matrix(self.matrix)[1]
        with np.errstate(over="ignore", under="ignore"):
            E = np.exp(L)
        lgo = -beta * float(self.gap_open)
        lge = -beta * float(self.gap_extend)
        return E, L, float(np.exp(lgo)), float(np.exp(lge)), lgo, lge

    def _prepare(self, X, name):
        return _encode(X, substitution_matrix(self.matrix)[0], self.ignore_case, name, self.matrix)

    def _take(self, P, index):
        return P.take(index)

    # log k is what the dynamic programme returns; k = exp(log k), checked
    def _log_gram(self, P):
        K = alignment.la_log_gram(P.codes, P.offsets, self._tables())
        mirror_upper(K)
        return K

    def _log_cross(self, P, Q):
        return alignment.la_log_cross(P.codes, P.offsets, Q.codes, Q.offsets, self._tables())

    def _log_diag(self, P):
        return alignment.la_log_diag(P.codes, P.offsets, self._tables())

    def log_kernel(self, X: Objects, Y: Objects | None = None) -> NDArray[np.float64]:
        """``log k(x, y) / beta``: the LA kernel on the scale of alignment scores.

        Finite for sequences of any length. It is at least the
        Smith-Waterman score of the pair (one alignment's term of the sum)
        and tends to it as ``beta`` grows. It is **not** a kernel in general
        (Saigo et al. 2004 repair it by clipping the spectrum, see
        :func:`structk.psd.nearest_psd`, or by an empirical kernel map, see
        :class:`~structk.kernels.empirical.EmpiricalKernelMap`).

        Returns
        -------
        ndarray of float64, shape (len(X), len(Y))
        """
        self._validate()
        P = self._prepare(X, "X")
        if Y is None:
            L = self._log_gram(P)
        else:
            L = self._log_cross(P, self._prepare(Y, "Y"))
        return L / float(self.beta)


def smith_waterman(
    X: Sequence[Any],
    Y: Sequence[Any] | None = None,
    *,
    matrix: Any = "BLOSUM62",
    gap_open: float = 11,
    gap_extend: float = 1,
    ignore_case: bool = True,
) -> NDArray[np.float64]:
    """Smith-Waterman local alignment scores (affine gaps), pair by pair.

    The best score of a local alignment, a gap of length ``n`` costing
    ``gap_open + (n - 1) * gap_extend`` (Gotoh's recursion; the same
    convention as parasail and :class:`LocalAlignment`). A similarity, not
    a kernel: its matrices are not PSD in general.

    Parameters
    ----------
    X, Y : sequences of sequences
        ``Y = X`` when omitted.
    matrix, gap_open, gap_extend, ignore_case
        As for :class:`LocalAlignment`.

    Returns
    -------
    ndarray of float64, shape (len(X), len(Y))

    References
    ----------
    T. F. Smith and M. S. Waterman, "Identification of common molecular
    subsequences", J. Mol. Biol. 147, 1981, 195-197.
    O. Gotoh, "An improved algorithm for matching biological sequences",
    J. Mol. Biol. 162, 1982, 705-708.
    """
    _check_gaps(gap_open, gap_extend)
    symbols, scores = substitution_matrix(matrix)
    P = _encode(X, symbols, ignore_case, "X", matrix)
    Q = P if Y is None else _encode(Y, symbols, ignore_case, "Y", matrix)
    return alignment.sw_cross(P.codes, P.offsets, Q.codes, Q.offsets, scores, gap_open, gap_extend)
