"""Set kernels: intersection size, its exponential, Jaccard (Tanimoto), and
MinMax (Tanimoto on counts, for multisets).

Objects are finite sets of hashable tokens: ``set``, ``frozenset``, or any
other iterable of tokens (a ``list`` or ``tuple`` is read as the set of its
elements, duplicates ignored). A ``str`` is refused as a set, since
``"abc"`` for ``{"a", "b", "c"}`` is more often a mistake than a wish; write
``set("abc")``.

Preparing a collection maps its tokens to integer ids once (a vocabulary
in order of first appearance) and builds the sparse 0/1 indicator matrix;
a Gram matrix takes the intersection sizes ``|A n B|`` from the product of
that matrix with its transpose (:mod:`structk.algorithms.sparse_gram`), and a
cross-Gram first maps the other collection's vocabulary onto this one's
(one look-up per distinct token, not per occurrence); the
benchmark ``benchmarks/bench_sets.py`` compares this with a jitted
merge of sorted id arrays, which it outruns. ``MinMax`` writes each
multiset out as the set of its ``(token, level)`` pairs in NumPy
(:mod:`structk.algorithms.multisets`): one dict look-up per distinct token
of an object (none for the columns of a count matrix), not one per pair.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import check_objects, check_scalar
from ..algorithms.multisets import (
    MAX_COUNT,
    aligned,
    distinct_sorted,
    level_indicator,
    recode,
)
from ..algorithms.sparse_gram import sparse_cross, sparse_gram
from .algebra import LogForm, exp_checked
from .base import Kernel
from .hyperparameters import DEFAULT_BOUNDS, declare, own_gradient


def _as_sets(X, name):
    X = check_objects(X, name)
    out = []
    for i, x in enumerate(X):
        if isinstance(x, (str, bytes)):
            raise TypeError(
                f"{name}[{i}] is a {type(x).__name__}, not a set of tokens; wrap "
                f"it as {{{x!r}}} for a one-token set, or set({x!r}) for its "
                "characters"
            )
        if isinstance(x, frozenset):
            out.append(x)
            continue
        try:
            out.append(frozenset(x))
        except TypeError as exc:
            if not hasattr(x, "__iter__"):
                raise TypeError(
                    f"{name}[{i}] is a {type(x).__name__}, not a set of tokens"
                ) from None
            bad = next((t for t in x if not _hashable(t)), None)
            raise TypeError(
                f"{name}[{i}] holds an unhashable token {bad!r} "
                f"({type(bad).__name__}): set tokens must be hashable ({exc})"
            ) from None
    return out


def _hashable(t):
    try:
        hash(t)
    except TypeError:
        return False
    return True


class _Indicator(NamedTuple):
    """Prepared sets: the 0/1 indicator matrix and its column vocabulary."""

    F: object  # scipy.sparse CSR, rows: sets, columns: token ids
    vocabulary: dict  # token -> column id, in order of first appearance


def _indicator(sets):
    """The indicator matrix of sets, with its vocabulary built on the way."""
    import scipy.sparse as sp

    vocabulary = {}
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    ids = []
    for i, s in enumerate(sets):
        for t in s:
            ids.append(vocabulary.setdefault(t, len(vocabulary)))
        indptr[i + 1] = len(ids)
    indices = np.asarray(ids, dtype=np.int64)
    data = np.ones(indices.size, dtype=np.float64)
    F = sp.csr_matrix((data, indices, indptr), shape=(len(sets), max(len(vocabulary), 1)))
    return _Indicator(F, vocabulary)


def _aligned(P, Q):
    """The indicator matrices of ``P`` and ``Q`` over one column space:
    ``Q``'s token ids mapped onto ``P``'s, new tokens numbered after them."""
    import scipy.sparse as sp

    if Q.vocabulary is P.vocabulary:
        return P.F, Q.F
    index = P.vocabulary
    n = max(len(index), 1)
    new = 0
    remap = np.empty(max(len(Q.vocabulary), 1), dtype=np.int64)
    for t, j in Q.vocabulary.items():
        i = index.get(t)
        if i is None:
            i, new = n + new, new + 1
        remap[j] = i
    G = Q.F
    G = sp.csr_matrix((G.data, remap[G.indices], G.indptr), shape=(G.shape[0], n + new))
    F = P.F
    if new:
        F = sp.csr_matrix((F.data, F.indices, F.indptr), shape=(F.shape[0], n + new))
    return F, G


def _intersections(P, Q=None):
    """``|A n B|`` for all pairs, by one sparse product."""
    if Q is None:
        return sparse_gram(P.F)
    return sparse_cross(*_aligned(P, Q))


def _sizes(P):
    return np.diff(P.F.indptr).astype(np.float64)


class _SetKernel(Kernel):
    def _prepare(self, X, name):
        return _indicator(_as_sets(X, name))

    def _take(self, P, index):
        return _Indicator(P.F[index], P.vocabulary)


class Intersection(_SetKernel):
    """The intersection kernel ``k(A, B) = |A n B|``.

    The inner product of the sets' 0/1 indicator vectors, which are its
    feature map (:meth:`features` gives them with columns numbered by first
    appearance of each token in ``X``).

    Examples
    --------
    >>> from structk.kernels import Intersection
    >>> Intersection()([{"a", "b"}, ["b", "c", "c"], set()])
    array([[2., 1., 0.],
           [1., 2., 0.],
           [0., 0., 0.]])
    """

    has_features = True
    keyed_feature_columns = True

    def _features(self, P):
        return P.F

    def _feature_keys(self, P):
        keys = np.empty(P.F.shape[1], dtype=object)  # one column when no token
        keys[: len(P.vocabulary)] = list(P.vocabulary)  # in order of their ids
        return keys

    def _gram(self, P):
        return _intersections(P)

    def _cross(self, P, Q):
        return _intersections(P, Q)

    def _diag(self, P):
        return _sizes(P)


class ExpIntersection(LogForm, _SetKernel):
    """The exponential intersection kernel ``k(A, B) = exp(scale |A n B|)``.

    Valid as the exponential of a valid kernel. A value beyond the float64
    range (``scale |A n B| > 709.78``) raises
    :class:`~structk.exceptions.KernelOverflowError` rather than returning
    ``inf``. ``Normalize(ExpIntersection(scale))``, i.e.
    ``exp(scale (|A n B| - (|A| + |B|) / 2))`` = ``exp(-scale |A ^ B| / 2)``
    (``^``: symmetric difference), is computed in log space and is finite
    for sets of any size.

    Parameters
    ----------
    scale : float > 0, default 1.0
    scale_bounds : pair of float or "fixed", default (1e-5, 1e5)
        Range of ``scale`` for a Gaussian process's optimiser (``"fixed"``:
        not optimised); see :mod:`structk.kernels.hyperparameters`.

    References
    ----------
    J. Shawe-Taylor and N. Cristianini, *Kernel Methods for Pattern
    Analysis*, Cambridge University Press, 2004, Sections 3.4 and 9.1.
    """

    _repr_always = ("scale",)

    def __init__(
        self, scale: float = 1.0, scale_bounds: tuple[float, float] = DEFAULT_BOUNDS
    ) -> None:
        self.scale = scale
        self.scale_bounds = scale_bounds

    def _check_params(self):
        check_scalar(self.scale, "scale", lower=0, lower_inclusive=False)

    def _log_gram(self, P):
        return float(self.scale) * _intersections(P)

    def _log_cross(self, P, Q):
        return float(self.scale) * _intersections(P, Q)

    def _log_diag(self, P):
        return float(self.scale) * _sizes(P)

    def _own_hyperparameters(self):
        return [declare(self, "scale")]

    def _gram_gradient(self, P):
        # d/dlog(s) of exp(s I) is K s I = K log K
        L = self._log_gram(P)
        K = exp_checked(L, self)
        return own_gradient(self, K, {"scale": lambda: K * L})


class Jaccard(_SetKernel):
    """The Jaccard (Tanimoto) kernel ``k(A, B) = |A n B| / |A u B|``.

    Positive semi-definite (Gower 1971; Bouchard et al. 2013). Two empty
    sets are equal, so ``k({}, {}) = 1`` (the limit of ``A = B``), and
    ``k({}, B) = 0`` for non-empty ``B``.

    References
    ----------
    M. Bouchard, A.-L. Jousselme and P.-E. Doré, "A proof for the positive
    definiteness of the Jaccard index matrix", International Journal of
    Approximate Reasoning 54(5), 2013, 615-626.
    """

    def _from_intersections(self, inter, a, b):
        union = a[:, None] + b[None, :] - inter
        K = np.ones_like(inter)
        np.divide(inter, union, out=K, where=union > 0)
        return K

    def _gram(self, P):
        a = _sizes(P)
        return self._from_intersections(_intersections(P), a, a)

    def _cross(self, P, Q):
        return self._from_intersections(_intersections(P, Q), _sizes(P), _sizes(Q))

    def _diag(self, P):
        return np.ones(P.F.shape[0])


class MinMax(Jaccard):
    """The MinMax kernel (Tanimoto on counts),
    ``k(a, b) = sum_t min(a_t, b_t) / sum_t max(a_t, b_t)``.

    Objects are multisets of hashable tokens with non-negative integer
    counts: a mapping ``{token: count}`` (a ``collections.Counter``), any
    other iterable of tokens (repeats counted: ``["C", "C", "O"]``), or the
    collection given as a 2-D array or ``scipy.sparse`` matrix of counts
    (rows are objects, column indices the tokens). On sets it is
    :class:`Jaccard`; two empty multisets give 1.

    Computed as the Jaccard kernel of the multisets written out as sets,
    ``{(t, 1), ..., (t, a_t)}``: ``|A n B| = sum min`` and
    ``|A u B| = sum max``, which also proves it positive semi-definite.
    Counts must be integers (a fingerprint's counts of substructures,
    n-grams, fragments); a fractional or negative one is refused, naming the
    object and the token.

    References
    ----------
    L. Ralaivola, S. J. Swamidass, H. Saigo and P. Baldi, "Graph kernels for
    chemical informatics", Neural Networks 18(8), 2005, 1093-1110 (the
    MinMax kernel); the proof of positive semi-definiteness is that of
    :class:`Jaccard` (Bouchard et al. 2013).

    Examples
    --------
    >>> from structk.kernels import MinMax
    >>> MinMax()([{"C": 3, "O": 1}, ["C", "C", "N"]])
    array([[1. , 0.4],
           [0.4, 1. ]])
    """

    def _prepare(self, X, name):
        indptr, token_ids, counts, vocabulary = _count_entries(X, name)
        F, codes = level_indicator(indptr, token_ids, counts)
        return _Levels(F, vocabulary, codes)

    def _take(self, P, index):
        return P._replace(F=P.F[index])

    def _cross(self, P, Q):
        codes = Q.codes
        if Q.vocabulary is not P.vocabulary:  # Q's token ids as P's
            index, n = P.vocabulary, len(P.vocabulary)
            ids = np.empty(max(len(Q.vocabulary), 1), dtype=np.int64)
            new = 0
            for t, j in Q.vocabulary.items():  # one look-up per distinct token
                i = index.get(t)
                if i is None:
                    i, new = n + new, new + 1
                ids[j] = i
            codes = recode(codes, ids)
        F, G = aligned(P.F, P.codes, Q.F, codes)
        return self._from_intersections(sparse_cross(F, G), _sizes(P), _sizes(Q))


class _Levels(NamedTuple):
    """Prepared multisets: the indicator matrix of their ``(token, level)``
    pairs (:func:`structk.algorithms.multisets.level_indicator`)."""

    F: object  # scipy.sparse CSR, rows: multisets, columns: pairs
    vocabulary: dict  # token -> id, in order of first appearance (columns: sorted)
    codes: np.ndarray  # the code id << 32 | (level - 1) of each column, increasing


def _count_entries(X, name):
    """``(indptr, token ids, counts, vocabulary)`` of the multisets ``X``:
    the entries of multiset ``i`` are ``indptr[i]:indptr[i + 1]``, one per
    distinct token, counts positive; ``vocabulary`` maps tokens to ids."""
    if (isinstance(X, np.ndarray) and X.ndim == 2) or hasattr(X, "tocsr"):
        return _matrix_entries(X, name)
    from itertools import chain, count

    multisets = _as_counts(X, name)
    # the tokens to ids in C loops: dict.fromkeys keeps the first appearance
    tokens = list(chain.from_iterable(multisets))
    vocabulary = dict(zip(dict.fromkeys(tokens), count()))
    n = len(tokens)
    counts = list(chain.from_iterable(c.values() for c in multisets))
    if counts and max(counts) > MAX_COUNT:
        i = next(i for i, c in enumerate(multisets) if c and max(c.values()) > MAX_COUNT)
        _too_large(multisets[i], name, i)
    return (
        np.concatenate([[0], np.cumsum(np.fromiter(map(len, multisets), np.int64))]),
        np.fromiter(map(vocabulary.__getitem__, tokens), np.int64, count=n),
        np.array(counts, dtype=np.int64),
        vocabulary,
    )


def _matrix_entries(X, name):
    """:func:`_count_entries` of the rows of a 2-D array or ``scipy.sparse``
    matrix of counts (the tokens: column indices; repeated entries of a
    sparse matrix summed, as in ``toarray``)."""
    import scipy.sparse as sp

    rows = sp.csr_matrix(X)
    if rows.shape[0] == 0:
        raise ValueError(f"{name} is empty: a Gram matrix needs at least one object")
    if not rows.has_canonical_format:
        rows = rows.copy()  # never sort or sum the caller's arrays
        rows.sum_duplicates()
    data = rows.data
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(data) & (data >= 0) & (data == np.round(data)))
    bad |= data > MAX_COUNT
    if bad.any():  # the counts checked at once; the first bad one named
        k = int(np.flatnonzero(bad)[0])
        i = int(np.searchsorted(rows.indptr, k, side="right") - 1)
        c = {int(rows.indices[k]): float(data[k])}
        _checked_counts(c, name, i)
        _too_large(c, name, i)
    keep = data != 0
    indptr = np.concatenate([[0], np.cumsum(keep)])[rows.indptr]
    tokens, ids = distinct_sorted(rows.indices[keep], rows.shape[1])
    vocabulary = dict(zip(tokens.tolist(), range(tokens.size)))
    return indptr, ids, data[keep].astype(np.int64), vocabulary


def _too_large(counts, name, i):
    t, c = max(counts.items(), key=lambda item: item[1])
    if c > MAX_COUNT:
        raise ValueError(
            f"{name}[{i}] gives token {t!r} the count {c!r}: MinMax takes counts up "
            f"to {MAX_COUNT} (each unit is one entry of the prepared data)"
        )


def _as_counts(X, name):
    """Each object of ``X`` (a sequence of multisets) as a dict token ->
    positive integer count."""
    from collections.abc import Mapping

    out = []
    for i, x in enumerate(check_objects(X, name)):
        if isinstance(x, (str, bytes)):
            raise TypeError(
                f"{name}[{i}] is a {type(x).__name__}, not a multiset of tokens; give "
                f"a mapping token -> count, or list({x!r}) for its characters"
            )
        if isinstance(x, Mapping):
            out.append(_checked_counts(x, name, i))
            continue
        if not hasattr(x, "__iter__"):
            raise TypeError(
                f"{name}[{i}] is a {type(x).__name__}, not a multiset of "
                "tokens (a mapping token -> count, or an iterable of tokens)"
            )
        counts = {}
        for t in x:
            if not _hashable(t):
                raise TypeError(
                    f"{name}[{i}] holds an unhashable token {t!r} "
                    f"({type(t).__name__}): tokens must be hashable"
                )
            counts[t] = counts.get(t, 0) + 1
        out.append(counts)
    return out


def _checked_counts(mapping, name, i):
    values = mapping.values()
    if not values or (set(map(type, values)) == {int} and min(values) > 0):
        return mapping  # positive Python ints, checked in C loops
    counts = {}
    for t, c in mapping.items():
        ok = isinstance(c, (int, float, np.integer, np.floating)) and not isinstance(c, bool)
        if not (ok and np.isfinite(c) and c >= 0 and float(c).is_integer()):
            raise ValueError(
                f"{name}[{i}] gives token {t!r} the count {c!r}: MinMax "
                "needs non-negative integer counts"
            )
        if c:
            counts[t] = int(c)
    return counts
