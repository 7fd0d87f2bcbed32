"""Similarities looked up in a stored matrix.

A similarity that is expensive to compute (the local alignment of 4,352
proteins: minutes of dynamic programming) is computed once for every object
of a collection and stored; :class:`Precomputed` then answers ``s(x, y)``
for any two of those objects by looking the entry up. Each cross-validation
split, each family of a benchmark, each ``structk fit`` and ``predict`` of
the command line then costs a few index operations instead of a new
similarity matrix. The stored matrix need not be PSD: it is usually the
input of a repair fitted on each training split,
``SpectrumRepair(Precomputed(...), normalize=True)``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_objects
from .base import Kernel


@functools.lru_cache(maxsize=4)
def _load_matrix(path, stamp):
    """The matrix stored in ``path`` (``.npy``), memory-mapped read-only and
    checked once per version of the file (``stamp``: its size and mtime)."""
    try:
        M = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise FileNotFoundError(f"Precomputed: no matrix file {path!r}") from None
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"Precomputed: cannot read {path!r} as a .npy matrix ({exc}); save the "
            "similarity matrix with numpy.save"
        ) from None
    return _checked_matrix(M, repr(path))


def _checked_matrix(M, where):
    if M.dtype.kind not in "biuf":
        raise ValueError(f"Precomputed: the matrix {where} holds {M.dtype}, not real numbers")
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise ValueError(
            f"Precomputed: the matrix {where} has shape {M.shape}; it must be a "
            "non-empty square matrix, one row and one column per stored object"
        )
    bad = ~np.isfinite(M)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(
            f"Precomputed: entry [{i}, {j}] of the matrix {where} is {M[i, j]}; "
            "similarities must be finite"
        )
    return M


@functools.lru_cache(maxsize=4)
def _load_keys(path, stamp):
    """The keys a file names: the sequences of a FASTA file (a first line
    starting with ``>``), else one key per non-empty line."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(2)
    except FileNotFoundError:
        raise FileNotFoundError(f"Precomputed: no keys file {path!r}") from None
    if head[:1] == b">" or head == b"\x1f\x8b":  # FASTA, plain or gzip-compressed
        from ..sequences import read_fasta

        return tuple(read_fasta(path)[1])
    with open(path, encoding="utf-8") as handle:
        return tuple(line.rstrip("\r\n") for line in handle if line.strip())


def _stamp(path):
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns)


class Precomputed(Kernel):
    """``s(x, y)`` looked up in a stored similarity matrix.

    The objects are the rows of ``matrix``: integer row numbers, or (with
    ``keys``) the objects the rows stand for -- the sequences of a FASTA file,
    identifiers, any hashable objects. ``k(X, Y)`` is ``matrix[rows(X)][:,
    rows(Y)]``; computing the matrix once and looking it up serves every
    split, fold and family at the cost of indexing.

    Nothing makes the stored matrix PSD: a learner's PSD check refuses it
    when it is not. A similarity (a Smith-Waterman score, the logarithm of
    the local alignment kernel) is made a kernel on each training split by
    :class:`~structk.kernels.empirical.SpectrumRepair`, e.g.
    ``SpectrumRepair(Precomputed("la.npy", keys="proteins.fa"), normalize=True)``.

    Parameters
    ----------
    matrix : array-like of shape (n, n), or str
        The similarities of the ``n`` stored objects (finite; symmetric for
        the Gram matrix of a collection), or the path of a ``.npy`` file
        holding them (memory-mapped, read when evaluated).
    keys : sequence of n hashable objects, or str, optional
        What each row stands for, in row order. A string is the path of a
        file: a FASTA file (its sequences, as written) or a text file (one
        key per line). Then the objects passed to the kernel are keys (e.g.
        the sequences of a FASTA file a command reads) and each is looked up
        by equality; a key repeated in ``keys`` must have equal rows. Without
        ``keys`` the objects are row numbers ``0 .. n - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.kernels import Precomputed
    >>> S = np.array([[4.0, 1.0, 0.0], [1.0, 5.0, 2.0], [0.0, 2.0, 3.0]])
    >>> Precomputed(S)([2, 0])
    array([[3., 0.],
           [0., 4.]])
    >>> Precomputed(S, keys=["MKV", "MKL", "WWP"])(["WWP"], ["MKV", "MKL"])
    array([[0., 2.]])
    """

    _repr_always = ("matrix",)

    def __init__(
        self,
        matrix: np.ndarray | str | os.PathLike[str],
        keys: Sequence[Any] | str | os.PathLike[str] | None = None,
    ) -> None:
        self.matrix = matrix
        self.keys = keys

    def __repr__(self):
        matrix = (
            repr(self.matrix)
            if isinstance(self.matrix, (str, os.PathLike))
            else f"<{'x'.join(map(str, np.shape(self.matrix)))} matrix>"
        )
        if self.keys is None:
            return f"Precomputed({matrix})"
        keys = (
            repr(self.keys)
            if isinstance(self.keys, (str, os.PathLike))
            else f"<{len(self.keys)} keys>"
        )
        return f"Precomputed({matrix}, keys={keys})"

    def _check_params(self):
        self._matrix()
        self._lookup()

    def _matrix(self):
        if isinstance(self.matrix, (str, os.PathLike)):
            path = os.fspath(self.matrix)
            try:
                stamp = _stamp(path)
            except FileNotFoundError:
                raise FileNotFoundError(f"Precomputed: no matrix file {path!r}") from None
            return _load_matrix(path, stamp)
        try:
            M = np.asarray(self.matrix)
        except (TypeError, ValueError):
            raise TypeError(
                "matrix must be a square array of numbers or the path of a "
                f".npy file, got {type(self.matrix).__name__}"
            ) from None
        return _checked_matrix(M, "given")

    def _lookup(self):
        """``None`` (objects are row numbers) or a dict key -> row."""
        if self.keys is None:
            return None
        if isinstance(self.keys, (str, os.PathLike)):
            path = os.fspath(self.keys)
            try:
                keys = _load_keys(path, _stamp(path))
            except FileNotFoundError:
                raise FileNotFoundError(f"Precomputed: no keys file {path!r}") from None
            where = f"the keys file {path!r}"
        else:
            keys = check_objects(self.keys, "keys")
            where = "keys"
        M = self._matrix()
        if len(keys) != M.shape[0]:
            raise ValueError(
                f"Precomputed: {where} names {len(keys)} objects but the matrix has "
                f"{M.shape[0]} rows; give one key per row, in row order"
            )
        rows = {}
        for i, key in enumerate(keys):
            try:
                first = rows.setdefault(key, i)
            except TypeError:
                raise TypeError(
                    f"Precomputed: {where}[{i}] is a {type(key).__name__}, "
                    "which cannot be looked up (keys must be hashable)"
                ) from None
            if first != i and not (
                np.array_equal(M[first], M[i]) and np.array_equal(M[:, first], M[:, i])
            ):
                raise ValueError(
                    f"Precomputed: {where}[{first}] and {where}[{i}] are the same key "
                    f"but rows {first} and {i} of the matrix differ; a key must stand "
                    "for one object"
                )
        return rows

    def _prepare(self, X, name):
        X = check_objects(X, name)
        n = self._matrix().shape[0]
        rows = self._lookup()
        out = np.empty(len(X), dtype=np.intp)
        for i, x in enumerate(X):
            if rows is None:
                if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
                    raise TypeError(
                        f"{name}[{i}] is {x!r:.60}, not a row number: without keys the "
                        f"objects of Precomputed are the integers 0 .. {n - 1}; give "
                        "keys=... to look objects up by value"
                    )
                if not 0 <= x < n:
                    raise ValueError(
                        f"{name}[{i}] = {x} is not a row of the {n} x {n} matrix "
                        f"(rows 0 .. {n - 1})"
                    )
                out[i] = x
                continue
            if type(x).__module__.startswith("Bio."):  # a Biopython record or Seq
                x = str(getattr(x, "seq", x))
            try:
                out[i] = rows[x]
            except (KeyError, TypeError):
                raise ValueError(
                    f"{name}[{i}] ({x!r:.60}) is not among the {n} keys of {self!r}: "
                    "every object must be one the matrix was computed for"
                ) from None
        return out

    def _cross(self, P, Q):
        M = self._matrix()
        return np.array(M[np.ix_(P, Q)], dtype=np.float64)

    def _gram(self, P):
        K = self._cross(P, P)
        asym = np.abs(K - K.T)
        if asym.max(initial=0.0) > 1e-12 * max(1.0, float(np.abs(K).max())):
            i, j = (int(v) for v in np.unravel_index(np.argmax(asym), asym.shape))
            raise ValueError(
                f"{self!r} is not symmetric: entry [{P[i]}, {P[j]}] is {K[i, j]} but "
                f"[{P[j]}, {P[i]}] is {K[j, i]}; a Gram matrix needs s(x, y) = s(y, x) "
                "(symmetrise the stored matrix, e.g. (S + S.T) / 2)"
            )
        return K

    def _diag(self, P):
        M = self._matrix()
        return np.array(M[P, P], dtype=np.float64)
