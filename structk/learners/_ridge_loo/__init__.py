"""Leave-one-out of kernel ridge regression for many penalties from one
tridiagonal reduction ``K = Q T Q^T``.

=================  ==========================================================
module             what
=================  ==========================================================
this one           :func:`tridiagonal_loo`, the entry the estimator calls
:mod:`._numba`     the ``L D L^T`` sweeps of ``T + alpha I``, a block of
                   penalties per pass over ``Q^T`` (numba)
=================  ==========================================================

Compiled only; :class:`structk.learners.KernelRidgeCV` uses it above
``_tuning.RIDGE_CV_EIGH_MAX_N`` training objects (an eigendecomposition
below) and passes the block of penalties swept together
(``_tuning.RIDGE_LOO_PENALTY_BLOCK``, which changes the time, never the
result). Importing this package does not import numba; the first call does.

References
----------
G. H. Golub and C. F. Van Loan, "Matrix Computations", 4th ed., Johns
Hopkins University Press (2013), sections 4.3 (``L D L^T``) and 8.3
(tridiagonalisation).
"""

from __future__ import annotations

from ..._threads import compiled_call


def tridiagonal_loo(P, d, e, alphas, Z, G, X, block):
    """For every penalty ``alpha``: ``diag((K + alpha I)^{-1})`` into ``G``
    and ``(T + alpha I)^{-1} Z`` into ``X`` (see
    :func:`._numba.tridiagonal_loo`). Returns the index of the first penalty
    for which ``T + alpha I`` is not numerically positive definite, else
    ``-1``."""
    from ._numba import tridiagonal_loo as compiled

    return compiled_call(compiled, P, d, e, alphas, Z, G, X, block)
