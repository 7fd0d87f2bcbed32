"""Input validation shared by every kernel and learner.

Everything here runs at the door, in Python, before data reaches numba: a
user sees one clear message naming the offending item (its index, position
or parameter), never a numba traceback and never a silently wrong number.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np


def check_objects(X, name="X"):
    """Validate a collection of objects and return it as a list or array.

    Strings and bytes are rejected as collections: ``k("ACGT")`` almost
    always means ``k(["ACGT"])``, and treating it as four one-letter objects
    would silently give a wrong answer.
    """
    if isinstance(X, (str, bytes, bytearray)):
        raise TypeError(
            f"{name} must be a sequence of objects, got a single "
            f"{type(X).__name__}; wrap it in a list: [{X!r}]"
        )
    if isinstance(X, np.ndarray):
        if X.ndim == 0:
            raise TypeError(f"{name} must be a sequence of objects, got a 0-d array")
        if len(X) == 0:
            raise ValueError(f"{name} is empty: a Gram matrix needs at least one object")
        return X
    if hasattr(X, "tocsr"):  # scipy.sparse matrix of feature rows
        if X.shape[0] == 0:
            raise ValueError(f"{name} is empty: a Gram matrix needs at least one object")
        return X
    if not isinstance(X, Iterable):
        raise TypeError(
            f"{name} must be a sequence of objects, got {type(X).__name__}"
        )
    X = list(X)
    if len(X) == 0:
        raise ValueError(f"{name} is empty: a Gram matrix needs at least one object")
    return X


def as_vectors(X, name="X"):
    """Return ``X`` as a C-contiguous 2-D float64 array of finite values.

    Raises a ``ValueError`` naming the offending row (and column) for ragged
    input, non-numeric entries, NaN or infinity.
    """
    if hasattr(X, "tocsr"):
        raise TypeError(
            f"{name} is a scipy.sparse matrix; vector kernels take dense arrays "
            f"(use {name}.toarray())"
        )
    X = check_objects(X, name)
    if not isinstance(X, np.ndarray):
        lengths = []
        for i, x in enumerate(X):
            if isinstance(x, (str, bytes)) or np.ndim(x) != 1:
                raise ValueError(
                    f"{name}[{i}] is not a 1-D vector (got {type(x).__name__} "
                    f"with {np.ndim(x)} dimensions)"
                )
            lengths.append(len(x))
        if len(set(lengths)) > 1:
            first = lengths[0]
            bad = next(i for i, n in enumerate(lengths) if n != first)
            raise ValueError(
                f"ragged input: {name}[{bad}] has {lengths[bad]} features but "
                f"{name}[0] has {first}"
            )
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold numbers only: {exc}") from None
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_objects, n_features), got shape {A.shape}; "
            "reshape a single feature with X.reshape(-1, 1)"
        )
    if A.shape[1] == 0:
        raise ValueError(f"{name} has 0 features")
    if not np.isfinite(A).all():
        i, j = np.argwhere(~np.isfinite(A))[0]
        raise ValueError(
            f"{name}[{i}] holds a non-finite value ({A[i, j]}) at feature {j}"
        )
    return np.ascontiguousarray(A)


def check_same_dim(A, B, name_a="X", name_b="Y"):
    """Raise if two 2-D arrays have different numbers of features."""
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"{name_a} has {A.shape[1]} features but {name_b} has {B.shape[1]}"
        )


def check_scalar(value, name, *, lower=None, lower_inclusive=True, upper=None,
                 upper_inclusive=True, integer=False):
    """Validate a numeric parameter and return it as ``int`` or ``float``.

    ``bool`` is rejected even though it is an ``int`` subclass: ``degree=True``
    is a mistake, not a request for degree 1.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        kind = "an integer" if integer else "a real number"
        raise TypeError(f"{name} must be {kind}, got {value!r}")
    if integer:
        if not float(value).is_integer():
            raise ValueError(f"{name} must be an integer, got {value!r}")
        value = int(value)
    else:
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value!r}")
    if lower is not None:
        if value < lower or (value == lower and not lower_inclusive):
            sign = ">=" if lower_inclusive else ">"
            raise ValueError(f"{name} must be {sign} {lower}, got {value!r}")
    if upper is not None:
        if value > upper or (value == upper and not upper_inclusive):
            sign = "<=" if upper_inclusive else "<"
            raise ValueError(f"{name} must be {sign} {upper}, got {value!r}")
    return value
