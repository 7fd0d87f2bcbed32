"""One epoch of the dual (kernel) perceptron (numba)."""

import numba

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@numba.njit(cache=True)
def perceptron_epoch(K, y, order, alpha, g, b, R2):
    """Visit the training points in ``order``; update on every mistake.

    ``g = K @ (alpha * y)`` is kept up to date (one row of ``K`` per mistake),
    so a visit costs O(1) and a mistake O(n). A mistake is ``y_i (g_i + b) <= 0``;
    it sets ``alpha_i += 1`` and ``b += y_i R2``.

    Returns ``(mistakes, b)``; ``alpha`` and ``g`` are updated in place.
    """
    n = K.shape[0]
    mistakes = 0
    for t in range(order.shape[0]):
        i = order[t]
        yi = y[i]
        if yi * (g[i] + b) <= 0.0:
            alpha[i] += 1.0
            b += yi * R2
            Ki = K[i]
            for k in range(n):
                g[k] += yi * Ki[k]
            mistakes += 1
    return mistakes, b
