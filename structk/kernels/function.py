"""A kernel from a plain Python function, for experiments and property tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .base import Kernel, mirror_upper


class FunctionKernel(Kernel):
    """Kernel given by a Python function ``func(x, y) -> float``.

    Pairs are evaluated one by one in Python (the upper triangle only for
    ``k(X)``), so this is for prototyping a kernel and checking it with
    :mod:`structk.testing` before writing a fast version; nothing guarantees
    that ``func`` is positive semi-definite.

    Parameters
    ----------
    func : callable
        ``func(x, y)`` returns a finite real number; it should be symmetric.
    name : str, optional
        Shown in the repr instead of the function's name.

    Examples
    --------
    >>> from structk.kernels import FunctionKernel
    >>> k = FunctionKernel(lambda a, b: len(set(a) & set(b)), name="overlap")
    >>> k([{"a", "b"}, {"b"}])
    array([[2., 1.],
           [1., 1.]])
    """

    def __init__(self, func: Callable[[Any, Any], float], name: str | None = None) -> None:
        self.func = func
        self.name = name

    def _check_params(self):
        if not callable(self.func):
            raise TypeError(f"func must be callable, got {self.func!r}")

    def __repr__(self):
        if self.name is not None:
            return f"FunctionKernel({self.name})"
        return f"FunctionKernel({getattr(self.func, '__qualname__', repr(self.func))})"

    def _value(self, x, y, where):
        """``func(x, y)`` as a float; ``where`` names the pair (``X[2], Y[0]``)."""
        try:
            value = self.func(x, y)
            if isinstance(value, (str, bytes)) or np.iscomplexobj(value):
                raise TypeError(f"returned {type(value).__name__} {value!r:.40}, not a real number")
            value = float(value)
        except Exception as exc:
            raise ValueError(f"{self!r} failed on {where}: {type(exc).__name__}: {exc}") from exc
        return value

    def _gram(self, P):
        n = len(P)
        K = np.empty((n, n))
        for i in range(n):
            for j in range(i, n):
                K[i, j] = self._value(P[i], P[j], f"X[{i}], X[{j}]")
        mirror_upper(K)
        return K

    def _cross(self, P, Q):
        K = np.empty((len(P), len(Q)))
        for i, x in enumerate(P):
            for j, y in enumerate(Q):
                K[i, j] = self._value(x, y, f"X[{i}], Y[{j}]")
        return K

    def _diag(self, P):
        return np.array([self._value(x, x, f"X[{i}], X[{i}]") for i, x in enumerate(P)])
