"""The dual (kernel) perceptron's epochs.

=================  ==========================================================
module             what
=================  ==========================================================
this one           :func:`perceptron_epoch`, the entry the estimator calls
:mod:`._numba`     one epoch over the training points (numba)
=================  ==========================================================

Compiled only: an epoch visits every point and costs O(n) per mistake, a
loop NumPy cannot vectorise (each update changes the next visit's test).
Importing this package does not import numba; the first call does.

References
----------
F. Rosenblatt, "The perceptron", Psychological Review 65 (1958).
"""

from __future__ import annotations

from ..._threads import compiled_call


def perceptron_epoch(K, y, order, alpha, g, b, R2):
    """Visit the training points in ``order`` and update on every mistake
    (see :func:`._numba.perceptron_epoch`); ``alpha`` and ``g = K @ (alpha
    * y)`` are updated in place. Returns ``(mistakes, b)``."""
    from ._numba import perceptron_epoch as compiled

    return compiled_call(compiled, K, y, order, alpha, g, b, R2)
