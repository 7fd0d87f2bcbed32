"""Jitted loops for Gram matrices of sparse non-negative feature matrices.

Columns arrive in CSC form (``colptr``, ``rows``, ``vals``), rows sorted
within each column. Each column adds ``vals[a] * vals[b]`` to ``K[rows[a],
rows[b]]``: the work is the sum of squared column occupancies, which is
small for the rare columns this is used on.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def add_column_pairs(K, colptr, rows, vals):
    """``K += F F^T`` over the given columns, upper triangle only (rows sorted)."""
    for c in range(colptr.shape[0] - 1):
        lo, hi = colptr[c], colptr[c + 1]
        for a in range(lo, hi):
            ra = rows[a]
            va = vals[a]
            for b in range(a, hi):
                K[ra, rows[b]] += va * vals[b]


@numba.njit(cache=True)
def add_column_pairs_cross(K, colptr_x, rows_x, vals_x, colptr_y, rows_y, vals_y):
    """``K += F G^T`` over columns shared by ``F`` (x) and ``G`` (y)."""
    for c in range(colptr_x.shape[0] - 1):
        for a in range(colptr_x[c], colptr_x[c + 1]):
            ra = rows_x[a]
            va = vals_x[a]
            for b in range(colptr_y[c], colptr_y[c + 1]):
                K[ra, rows_y[b]] += va * vals_y[b]
