"""Input validation shared by every kernel and learner.

Everything here runs at the door, in Python, before data reaches numba: a
user sees one clear message naming the offending item (its index, position
or parameter), never a numba traceback and never a silently wrong number.
"""

from __future__ import annotations

import numbers
import warnings
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
    if _is_frame_like(X):
        # a pandas DataFrame (or another 2-D array-like): its rows are the
        # objects, not what iterating it gives (the column names)
        X = np.asarray(X)
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
        raise TypeError(f"{name} must be a sequence of objects, got {type(X).__name__}")
    X = list(X)
    if len(X) == 0:
        raise ValueError(f"{name} is empty: a Gram matrix needs at least one object")
    return X


def _is_frame_like(X):
    """A non-NumPy array-like to convert whole: a 2-D table (a pandas
    DataFrame) or an object that is an array only through ``__array__``."""
    if isinstance(X, np.ndarray) or hasattr(X, "tocsr") or not hasattr(X, "__array__"):
        return False
    return len(getattr(X, "shape", ())) == 2 or not isinstance(X, Iterable)


def as_vectors(X, name="X"):
    """Return ``X`` as a C-contiguous 2-D float64 array of finite values.

    Raises a ``ValueError`` naming the offending row (and feature) for ragged
    input, entries that are not real numbers (strings, nested lists,
    ``None``, complex numbers), NaN or infinity, and a ``TypeError`` for
    scipy.sparse input. Nothing is converted silently: numeric strings are
    not parsed and complex values are not truncated to their real part.
    """
    if hasattr(X, "tocsr"):
        raise TypeError(
            f"{name} is a scipy.sparse matrix; vector kernels take dense arrays "
            f"(use {name}.toarray())"
        )
    X = check_objects(X, name)
    if not isinstance(X, np.ndarray):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                arr = np.asarray(X)
            if arr.dtype.kind in "biuf":
                X = arr
        except (TypeError, ValueError):  # ragged or nested: diagnosed below
            pass
    if not (isinstance(X, np.ndarray) and X.dtype.kind in "biuf"):
        _check_rows(X, name)
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_objects, n_features), got shape {A.shape}; "
            "Reshape your data: X.reshape(-1, 1) for a single feature, "
            "X.reshape(1, -1) for a single object"
        )
    if A.shape[1] == 0:
        raise ValueError(
            f"{name} has 0 feature(s) (shape={A.shape}) while a minimum of 1 is required."
        )
    if not np.isfinite(A).all():
        i, j = np.argwhere(~np.isfinite(A))[0]
        raise ValueError(
            f"{name}[{i}] holds a non-finite value ({A[i, j]}) at feature {j}; "
            "NaN and inf are not allowed"
        )
    with np.errstate(over="ignore"):
        sq = np.einsum("ij,ij->i", A, A)
    if not np.isfinite(sq).all():
        i = int(np.flatnonzero(~np.isfinite(sq))[0])
        j = int(np.argmax(np.abs(A[i])))
        from .exceptions import KernelOverflowError

        raise KernelOverflowError(
            f"{name}[{i}] overflows float64: its squared norm is too large (its largest "
            f"entry is {A[i, j]:.3g}, at feature {j}); every vector kernel computes dot "
            "products or squared distances, so rescale the features (e.g. divide "
            f"{name} by its largest absolute value)"
        )
    return np.ascontiguousarray(A)


_COMPLEX_HINT = (
    "kernels on real vectors take real input: pass the real part, the "
    "modulus, or both as separate features, explicitly"
)


class NonNumericEntryError(TypeError, ValueError):
    """A vector holds an entry that is not a real number (a string, ``None``,
    a dict, ...): a ``TypeError`` as NumPy's conversion raises it, and a
    ``ValueError`` as the other bad values of a vector."""


def _check_rows(X, name):
    """Raise naming the first row that is not a flat vector of real numbers
    of the common length; return when every row is one."""
    if isinstance(X, np.ndarray) and X.dtype.kind == "c":
        bad = np.argwhere(np.imag(X) != 0)
        where = f" ({name}[{bad[0][0]}] at feature {bad[0][-1]})" if len(bad) else ""
        raise ValueError(
            f"Complex data not supported: {name} holds complex numbers{where}; {_COMPLEX_HINT}"
        )
    first = None
    for i, x in enumerate(X):
        if (
            isinstance(x, np.ndarray)
            and x.ndim != 1
            or not isinstance(x, (np.ndarray, list, tuple))
        ):
            got = (
                f"an array of shape {x.shape}"
                if isinstance(x, np.ndarray)
                else f"a {type(x).__name__}"
            )
            raise ValueError(f"{name}[{i}] is not a 1-D vector of numbers (got {got})")
        for j, v in enumerate(x):
            if isinstance(v, (numbers.Real, np.bool_)):
                continue
            if isinstance(v, numbers.Complex):
                raise ValueError(  # noqa: TRY004 - a bad value, as numpy reports it
                    f"{name}[{i}] holds a complex number ({v!r}) at feature {j}; {_COMPLEX_HINT}"
                )
            raise NonNumericEntryError(
                f"{name}[{i}] holds {v!r} ({type(v).__name__}) at feature {j}: each "
                "argument must be a real number, not a string or another object "
                "(vector kernels take rows of real numbers only)"
            )
        if first is None:
            first = len(x)
        elif len(x) != first:
            raise ValueError(
                f"ragged input: {name}[{i}] has {len(x)} features but {name}[0] has {first}"
            )


def check_same_dim(A, B, name_a="X", name_b="Y"):
    """Raise if two 2-D arrays have different numbers of features."""
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"{name_a} has {A.shape[1]} features but {name_b} has {B.shape[1]}")


def check_scalar(
    value,
    name,
    *,
    lower=None,
    lower_inclusive=True,
    upper=None,
    upper_inclusive=True,
    integer=False,
):
    """Validate a numeric parameter and return it as ``int`` or ``float``.

    ``bool`` is rejected even though it is an ``int`` subclass: ``degree=True``
    is a mistake, not a request for degree 1.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        kind = "an integer" if integer else "a real number"
        raise TypeError(f"{name} must be {kind}, got {value!r}")
    if integer:
        if not isinstance(value, numbers.Integral) and not float(value).is_integer():
            raise ValueError(f"{name} must be an integer, got {value!r}")
        value = int(value)
    else:
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value!r}")
    if lower is not None and (value < lower or (value == lower and not lower_inclusive)):
        sign = ">=" if lower_inclusive else ">"
        raise ValueError(f"{name} must be {sign} {lower}, got {value!r}")
    if upper is not None and (value > upper or (value == upper and not upper_inclusive)):
        sign = "<=" if upper_inclusive else "<"
        raise ValueError(f"{name} must be {sign} {upper}, got {value!r}")
    return value


def fitted_kernel(kernel, X):
    """``kernel`` if it can evaluate as it is, else a clone of it fitted on ``X``
    (a kernel that learns from data and has not been fitted yet)."""
    from ._estimator import clone, is_not_fitted_error

    try:
        kernel.validate()
    except Exception as exc:
        if not is_not_fitted_error(exc):
            raise
        return clone(kernel).fit(X)
    return kernel


def check_weights(value, name, what):
    """``value`` as a non-empty 1-D float array of finite numbers >= 0 (the
    weights of a kernel's sum of parts), or an error naming ``name`` and the
    offending entry; ``what`` says what they weigh."""
    try:
        w = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of numbers, got {value!r}") from None
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got {value!r}")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        t = int(np.argmax(bad))
        raise ValueError(
            f"{name}[{t}] = {float(w[t])!r}: {what} must be finite and >= 0 "
            "(a negative weight can make the kernel indefinite)"
        )
    return w
