"""Small dense linear algebra shared by the PSD check, the learners and the
command line: the Frobenius norm, the Cholesky certificate and blocks of a
Gram matrix.

Kept apart from :mod:`structk.psd` so that a learner's first fit loads only
this (importing :mod:`structk.psd` and building its report class costs about
1 ms, as much as the certificate of a 170 x 170 Gram).
"""

from __future__ import annotations

import functools

import numpy as np


def frobenius(K):
    """``||K||_F``, rescaled when entries are near the float64 limits."""
    # einsum rather than BLAS: a BLAS-1 call next to the Cholesky factorisation
    # was measured to cost as much as the factorisation itself (OpenBLAS
    # thread hand-over), the einsum loop 2 ms at n = 2000
    with np.errstate(over="ignore", under="ignore"):
        f = float(np.sqrt(np.einsum("ij,ij->", K, K)))
    if np.isfinite(f) and f > 1e-150:
        return f
    m = float(np.abs(K).max())
    if m == 0.0:
        return 0.0
    return m * float(np.linalg.norm(K / m))


#: Up to this order the certificate factorises with LAPACK's unblocked
#: Cholesky (``dpotf2``), which works on the calling thread in every BLAS:
#: no thread pool to wake and no thread limit to set. Setting one costs
#: ~7 ms the first time in a process (threadpoolctl looks at every loaded
#: shared library), more than a small fit. Above it, the blocked ``dpotrf``
#: is 1.5-2x faster (n = 400: 0.86 against 1.4 ms) and runs under
#: :func:`~structk._threads.small_blas`. It is the SVM's NumPy-solver bound
#: too: larger fits load compiled code, which costs far more.
UNBLOCKED_CHOLESKY_MAX_N = 400


def cholesky_ok(K, shift):
    """Whether ``K + shift I`` has a Cholesky factorisation (``K`` symmetric)."""
    n = K.shape[0]
    # K is symmetric, so K.T (Fortran-ordered when K is C-ordered) is the
    # same matrix: copying it to Fortran order is a plain memory copy.
    A = np.array(K.T, dtype=np.float64, order="F", copy=True)
    A.flat[:: n + 1] += shift
    if n <= UNBLOCKED_CHOLESKY_MAX_N:
        return unblocked_cholesky()(A) == 0
    from scipy.linalg import lapack

    from ._threads import small_blas

    with small_blas(n):
        _, info = lapack.dpotrf(A, lower=1, clean=0, overwrite_a=1)
    return info == 0


@functools.cache
def unblocked_cholesky():
    """``dpotf2`` of SciPy's LAPACK (its Cython API) as ``f(A) -> info``.

    ``A`` is a Fortran-ordered float64 square matrix, factorised in place
    as ``A = R^T R`` (its upper triangle, which ends holding ``R``): OpenBLAS's
    upper variant works on contiguous columns, 20 % faster than the lower
    one at n = 170 (0.092 against 0.113 ms) and 8 % at n = 400.
    """
    import ctypes

    from scipy.linalg import cython_lapack

    capsule = cython_lapack.__pyx_capi__["dpotf2"]
    # Function objects of ctypes.pythonapi's own class (indexing makes new
    # ones; its attributes are shared with every other user), rather than a
    # new CFUNCTYPE prototype class, which costs more than the factorisation
    # of a 50 x 50 Gram (0.1 -> 0.05 ms once per process). dpotf2 therefore
    # runs holding the GIL: at most ~1 ms (n = 400).
    name = ctypes.pythonapi["PyCapsule_GetName"]
    name.restype, name.argtypes = ctypes.c_char_p, (ctypes.py_object,)
    pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
    pointer.restype, pointer.argtypes = ctypes.c_void_p, (ctypes.py_object, ctypes.c_char_p)
    dpotf2 = ctypes.pythonapi._FuncPtr(pointer(capsule, name(capsule)))
    dpotf2.restype = None

    def factorise(A):
        if not (A.dtype == np.float64 and A.flags.f_contiguous and A.ndim == 2
                and A.shape[0] == A.shape[1]):
            raise ValueError("dpotf2 needs a square Fortran-ordered float64 matrix")
        order, info = ctypes.c_int(A.shape[0]), ctypes.c_int(0)
        # the address without A.ctypes (whose first use costs ~0.1 ms)
        data = ctypes.c_void_p(A.__array_interface__["data"][0])
        dpotf2(b"U", ctypes.byref(order), data, ctypes.byref(order), ctypes.byref(info))
        return info.value

    return factorise


#: Blocks of at most this many entries (the largest one-vs-one block the SVM
#: solves with NumPy) are copied by NumPy: no compiled code to load.
SMALL_BLOCK = 400 * 400


def take_block(K, rows, cols=None, out=None):
    """``K[np.ix_(rows, cols)]`` (``cols`` defaults to ``rows``) as a new
    C-ordered float64 array, or written into ``out``.

    Large blocks are copied by a compiled row gather
    (:func:`structk._jit.gram.take_block`), 2-3 times faster than NumPy's
    fancy indexing; small ones by NumPy. The indices must be valid and
    non-negative: the compiled gather does not check them (its callers pass
    indices they made themselves: folds, classes, support vectors).
    """
    rows = np.asarray(rows, dtype=np.intp)
    cols = rows if cols is None else np.asarray(cols, dtype=np.intp)
    shape = (len(rows), len(cols))
    K = np.asarray(K)
    if (K.dtype != np.float64 or not K.flags.c_contiguous or K.ndim != 2
            or shape[0] * shape[1] <= SMALL_BLOCK):
        block = K[np.ix_(rows, cols)]
        if out is None:
            return np.ascontiguousarray(block, dtype=np.float64)
        out[...] = block
        return out
    from ._jit.gram import take_block as gather

    if out is None:
        out = np.empty(shape)
    gather(K, rows, cols, out)
    return out
