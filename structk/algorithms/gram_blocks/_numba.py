"""The copy of a block of a Gram matrix (numba)."""

import numba

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@numba.njit(cache=True, nogil=True)
def take_block(K, rows, cols, out):
    """``out[:] = K[np.ix_(rows, cols)]``, a row at a time.

    Faster than NumPy's fancy indexing for the large blocks of a Gram
    matrix that cross-validation and one-vs-one machines copy, and it
    releases the GIL.
    """
    for i in range(rows.shape[0]):
        src = K[rows[i]]
        dst = out[i]
        for j in range(cols.shape[0]):
            dst[j] = src[cols[j]]
