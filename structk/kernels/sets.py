"""Set kernels: intersection size, its exponential, and Jaccard (Tanimoto).

Objects are finite sets of hashable tokens: ``set``, ``frozenset``, or any
other iterable of tokens (a ``list`` or ``tuple`` is read as the set of its
elements, duplicates ignored). A ``str`` is refused as a set, since
``"abc"`` for ``{"a", "b", "c"}`` is more often a mistake than a wish; write
``set("abc")``.

Each Gram matrix maps the tokens to integer ids once and takes the
intersection sizes ``|A n B|`` from the product of the sparse 0/1 indicator
matrix with its transpose (:mod:`structk.kernels._sparse_gram`); the
benchmark ``benchmarks/bench_sets.py`` compares this with a jitted
merge of sorted id arrays, which it outruns.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_objects, check_scalar
from ._sparse_gram import sparse_cross, sparse_gram
from .algebra import exp_checked
from .base import Kernel


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


def _indicator(sets, vocabulary):
    """Sparse 0/1 matrix (rows: sets, columns: token ids), growing ``vocabulary``."""
    import scipy.sparse as sp

    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    ids = []
    for i, s in enumerate(sets):
        for t in s:
            ids.append(vocabulary.setdefault(t, len(vocabulary)))
        indptr[i + 1] = len(ids)
    indices = np.asarray(ids, dtype=np.int64)
    data = np.ones(indices.size, dtype=np.float64)
    return sp.csr_matrix((data, indices, indptr), shape=(len(sets), max(len(vocabulary), 1)))


def _intersections(P, Q=None):
    """``|A n B|`` for all pairs, by one sparse product over a shared vocabulary."""
    vocabulary = {}
    F = _indicator(P, vocabulary)
    if Q is None:
        return sparse_gram(F)
    G = _indicator(Q, vocabulary)
    F.resize(F.shape[0], G.shape[1])
    return sparse_cross(F, G)


def _sizes(P):
    return np.fromiter((len(s) for s in P), np.float64, len(P))


class _SetKernel(Kernel):

    def _prepare(self, X, name):
        return _as_sets(X, name)


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

    def __init__(self):
        self._check_params()

    def _features(self, P):
        return _indicator(P, {})

    def _gram(self, P):
        return _intersections(P)

    def _cross(self, P, Q):
        return _intersections(P, Q)

    def _diag(self, P):
        return _sizes(P)


class ExpIntersection(_SetKernel):
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

    References
    ----------
    J. Shawe-Taylor and N. Cristianini, *Kernel Methods for Pattern
    Analysis*, Cambridge University Press, 2004, Sections 3.4 and 9.1.
    """

    _repr_always = ('scale',)

    _has_log_form = True

    def __init__(self, scale=1.0):
        self.scale = scale
        self._check_params()

    def _check_params(self):
        check_scalar(self.scale, "scale", lower=0, lower_inclusive=False)

    def _log_gram(self, P):
        return float(self.scale) * _intersections(P)

    def _log_cross(self, P, Q):
        return float(self.scale) * _intersections(P, Q)

    def _log_diag(self, P):
        return float(self.scale) * _sizes(P)

    def _gram(self, P):
        return exp_checked(self._log_gram(P), self)

    def _cross(self, P, Q):
        return exp_checked(self._log_cross(P, Q), self)

    def _diag(self, P):
        return exp_checked(self._log_diag(P), self, what="object")


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

    def __init__(self):
        self._check_params()

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
        return np.ones(len(P))
