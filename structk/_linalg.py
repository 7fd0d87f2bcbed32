"""Small dense linear algebra shared by the PSD check, the learners and the
command line: the Frobenius norm, the Cholesky certificate, and blocks of a
Gram matrix (:func:`take_block`, from :mod:`structk.algorithms.gram_blocks`).

Kept apart from :mod:`structk.psd` so that a learner's first fit loads only
this, not the report machinery.
"""

from __future__ import annotations

import functools

import numpy as np

from . import _tuning
from .algorithms.gram_blocks import take_block  # noqa: F401 - the learners' and cv's import


def frobenius(K):
    """``||K||_F``, rescaled when entries are near the float64 limits."""
    # einsum rather than BLAS: no hand-over to OpenBLAS's threads next to
    # the factorisation
    with np.errstate(over="ignore", under="ignore"):
        f = float(np.sqrt(np.einsum("ij,ij->", K, K)))
    if np.isfinite(f) and f > 1e-150:
        return f
    m = float(np.abs(K).max())
    if m == 0.0:
        return 0.0
    return m * float(np.linalg.norm(K / m))


def cholesky_ok(K, shift):
    """Whether ``K + shift I`` has a Cholesky factorisation (``K`` symmetric).

    Up to ``_tuning.NUMPY_CHOLESKY_MAX_N`` rows by ``numpy.linalg.cholesky``
    (:func:`_numpy_cholesky_ok`), which NumPy's OpenBLAS runs on the calling
    thread there; up to ``_tuning.PSD_SMALL_CERTIFICATE_MAX_N`` rows by
    LAPACK's unblocked ``dpotf2``, which runs on the calling thread in every
    BLAS: no thread pool to wake and no thread limit to set. That
    ``dpotf2`` is NumPy's own (:func:`numpy_dpotf2`), reached without
    importing anything: SciPy's (:func:`unblocked_cholesky`, used where
    NumPy's BLAS is not the OpenBLAS of its wheels) made the first fit of a
    process pay 0.19 s of CPU for ``scipy.linalg`` and its Cython LAPACK,
    ten times the fit of 170 objects it certified. Above, SciPy's ``dpotrf``
    on one BLAS thread (:func:`~structk._threads.small_blas`): SciPy's
    ``dpotrf`` hands even a 170 x 170 factorisation to OpenBLAS's threads,
    which on a busy machine costs hundreds of times the arithmetic.
    """
    n = K.shape[0]
    if n <= _tuning.NUMPY_CHOLESKY_MAX_N:
        return _numpy_cholesky_ok(K, shift)
    # K is symmetric, so K.T (Fortran-ordered when K is C-ordered) is the
    # same matrix: copying it to Fortran order is a plain memory copy.
    A = np.array(K.T, dtype=np.float64, order="F", copy=True)
    A.flat[:: n + 1] += shift
    if n <= _tuning.PSD_SMALL_CERTIFICATE_MAX_N:
        info = (numpy_dpotf2() or unblocked_cholesky())(A)
    else:
        from scipy.linalg import lapack

        from ._threads import small_blas

        with small_blas(n):
            _, info = lapack.dpotrf(A, lower=0, clean=0, overwrite_a=1)
    return info == 0 and _finite_positive(A.diagonal())


def _finite_positive(d):
    """Whether the diagonal ``d`` of a Cholesky factor is finite and
    positive: OpenBLAS's factorisations stop only at a diagonal entry that
    is not positive, which a NaN is not, and a NaN or an infinity anywhere
    in the triangle read reaches the diagonal (measured: a NaN on the
    diagonal passed ``dpotf2``)."""
    return bool((d > 0.0).all() and np.isfinite(d).all())


def _numpy_cholesky_ok(K, shift):
    """:func:`cholesky_ok` by ``numpy.linalg.cholesky`` (its lower
    triangle; ``K`` is symmetric), for matrices small enough that NumPy's
    BLAS factorises them on the calling thread (OpenBLAS: below 64 rows).

    A factorisation that ran into a NaN or an infinity is a failure, as in
    the other forms (:func:`_finite_positive`).
    """
    A = K + shift * np.eye(K.shape[0])
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return False
    return _finite_positive(L.diagonal())


@functools.cache
def _lapack_address(name):
    """The address of LAPACK routine ``name`` of SciPy's Cython API (the
    LAPACK SciPy itself calls)."""
    import ctypes

    from scipy.linalg import cython_lapack

    capsule = cython_lapack.__pyx_capi__[name]
    get_name = ctypes.pythonapi["PyCapsule_GetName"]
    get_name.restype, get_name.argtypes = ctypes.c_char_p, (ctypes.py_object,)
    pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
    pointer.restype, pointer.argtypes = ctypes.c_void_p, (ctypes.py_object, ctypes.c_char_p)
    return pointer(capsule, get_name(capsule))


def _address(A):
    """The address of ``A``'s data."""
    import ctypes

    return ctypes.c_void_p(A.__array_interface__["data"][0])


def _check_fortran_square(A, routine):
    if not (
        A.dtype == np.float64 and A.flags.f_contiguous and A.ndim == 2 and A.shape[0] == A.shape[1]
    ):
        raise ValueError(f"{routine} needs a square Fortran-ordered float64 matrix")


@functools.cache
def numpy_dpotf2():
    """LAPACK's ``dpotf2`` of NumPy's own OpenBLAS as ``f(A) -> info``
    (as :func:`unblocked_cholesky`), or None.

    NumPy's wheels bring an OpenBLAS with 64-bit integers
    (``scipy_dpotf2_64_``; NumPy 1.x: ``dpotf2_64_``), loaded with NumPy
    itself: the routine is found through NumPy's core extension (whose
    dependencies ``dlsym`` searches) without importing anything. None where
    NumPy's BLAS is another library (MKL, Accelerate, a distribution's
    OpenBLAS with 32-bit integers) or the platform does not resolve the
    symbols of a module's dependencies (Windows): the callers then use
    SciPy's. The routine is recognised only by those names, whose suffix
    ``64_`` is OpenBLAS's mark for 64-bit integers. OpenBLAS's ``dpotf2``
    runs its level-2 kernels on the calling thread. Called through ctypes
    holding the GIL, as :func:`unblocked_cholesky` (a factorisation of at
    most ``_tuning.PSD_SMALL_CERTIFICATE_MAX_N`` rows).
    """
    import ctypes

    try:
        try:
            from numpy._core import _multiarray_umath as core
        except ImportError:  # NumPy 1.x
            from numpy.core import _multiarray_umath as core
        library = ctypes.PyDLL(core.__file__)
    except (ImportError, OSError, AttributeError):
        return None
    for name in ("scipy_dpotf2_64_", "dpotf2_64_"):
        dpotf2 = getattr(library, name, None)
        if dpotf2 is not None:
            break
    else:
        return None
    return _dpotf2_caller(dpotf2, ctypes.c_int64)


@functools.cache
def unblocked_cholesky():
    """``dpotf2`` of SciPy's LAPACK (its Cython API) as ``f(A) -> info``.

    ``A`` is a Fortran-ordered float64 square matrix, factorised in place
    as ``A = R^T R`` (its upper triangle, which ends holding ``R``). Called
    through a function object of ``ctypes.pythonapi``'s own class (a new
    ``CFUNCTYPE`` prototype costs more than a small factorisation), so it
    runs holding the GIL.
    """
    import ctypes

    return _dpotf2_caller(ctypes.pythonapi._FuncPtr(_lapack_address("dpotf2")), ctypes.c_int)


def _dpotf2_caller(dpotf2, integer):
    """``f(A) -> info`` calling the ctypes function ``dpotf2`` (LAPACK's
    arguments, integers of the ctypes type ``integer``) on the upper
    triangle of a Fortran-ordered float64 square ``A``, in place."""
    import ctypes

    dpotf2.restype = None

    def factorise(A):
        _check_fortran_square(A, "dpotf2")
        order, info = integer(A.shape[0]), integer(0)
        dpotf2(b"U", ctypes.byref(order), _address(A), ctypes.byref(order), ctypes.byref(info))
        return info.value

    return factorise


def orthogonal_of_tridiagonal(A, tau):
    """LAPACK ``dorgtr`` (lower) in place: turn the reflectors ``dsytrd``
    (lower) left in the Fortran-ordered ``A`` (with ``tau``) into the
    orthogonal ``Q`` of ``K = Q T Q^T``; returns ``A``.

    SciPy's ``lapack`` module has no ``dorgtr``, and its ``dorgqr`` on the
    reflector block ``A[1:, :n-1]`` (what ``dorgtr`` calls) copies that
    non-contiguous block in, and the block must then be copied into an
    n x n ``Q``: two more n x n arrays than this, and a slower KernelRidgeCV
    (``benchmarks/bench_end_to_end.py --cases ridge``, see
    ``docs/performance.md``). Runs without the GIL.
    """
    import ctypes

    _check_fortran_square(A, "dorgtr")
    n = A.shape[0]
    tau = np.ascontiguousarray(tau, dtype=np.float64)
    if tau.shape != (max(n - 1, 0),):
        raise ValueError(f"tau must have n - 1 = {max(n - 1, 0)} entries, got {tau.shape}")
    dorgtr = _dorgtr()
    order, info = ctypes.c_int(n), ctypes.c_int(0)
    lwork = max(1, 64 * (n - 1))  # (n - 1) x LAPACK's block size (32), with room
    work = np.empty(lwork)
    dorgtr(
        b"L",
        ctypes.byref(order),
        _address(A),
        ctypes.byref(order),
        _address(tau),
        _address(work),
        ctypes.byref(ctypes.c_int(lwork)),
        ctypes.byref(info),
    )
    if info.value != 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"LAPACK dorgtr failed (info={info.value})")
    return A


@functools.cache
def _dorgtr():
    import ctypes

    # a prototype of its own (CFUNCTYPE) so the call releases the GIL: it
    # runs for tens of milliseconds on the Grams that come here
    pointer = ctypes.POINTER
    prototype = ctypes.CFUNCTYPE(
        None,
        ctypes.c_char_p,
        pointer(ctypes.c_int),
        ctypes.c_void_p,
        pointer(ctypes.c_int),
        ctypes.c_void_p,
        ctypes.c_void_p,
        pointer(ctypes.c_int),
        pointer(ctypes.c_int),
    )
    return prototype(_lapack_address("dorgtr"))


def restore_lower(K, d, rows=None):
    """Put back the lower triangle (from the intact upper one) and the
    diagonal ``d`` of a symmetric ``K`` whose lower part a factorisation
    overwrote."""
    n = K.shape[0]
    rows = rows or _tuning.LOWER_TRIANGLE_BLOCK_ROWS
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        block = K[start:stop, :stop]
        upper = K[:stop, start:stop].T
        lower = np.tri(stop - start, stop, start - 1, dtype=bool)
        block[lower] = upper[lower]
    np.fill_diagonal(K, d)


def rkhs_norm_from_upper(K, d, A, rows=None):
    """``sqrt(a^T K a)`` of each column ``a`` of ``A`` from the strict upper
    triangle of ``K`` and its diagonal ``d`` (the rest of ``K`` may hold a
    factor): ``sum_i d_i a_i^2 + 2 sum_{i<j} a_i K_ij a_j``, by row blocks."""
    A2 = A.reshape(A.shape[0], -1)
    n = K.shape[0]
    rows = rows or _tuning.LOWER_TRIANGLE_BLOCK_ROWS
    sq = d @ (A2 * A2)
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        inner = np.triu(K[start:stop, start:stop], 1) @ A2[start:stop]
        if stop < n:
            inner += K[start:stop, stop:] @ A2[stop:]
        sq += 2.0 * np.einsum("ik,ik->k", A2[start:stop], inner)
    out = np.sqrt(np.maximum(sq, 0.0))
    return float(out[0]) if A.ndim == 1 else out


class FrontBlocks:
    """Principal blocks of a symmetric matrix as views, without copies.

    :meth:`block` permutes ``K`` in place, rows and columns, so that the
    block's rows come first in the order given, and returns the view
    ``K[:m, :m]`` (C-ordered rows, row stride ``n``). ``order`` tracks the
    permutation: ``K[i, j]`` is now ``K0[order[i], order[j]]`` of the
    original ``K0``; :meth:`restore` puts ``K`` back in its original order
    (exactly: entries are moved, never computed). Each permutation moves
    the whole matrix once, as a copy of the block would, but needs only a
    row and a strip of rows of scratch memory.
    """

    def __init__(self, K):
        self.K = K
        self.order = np.arange(K.shape[0])

    def block(self, rows):
        rows = np.asarray(rows, dtype=np.intp)
        n = self.K.shape[0]
        member = np.zeros(n, dtype=bool)
        member[rows] = True
        new = np.concatenate([rows, self.order[~member[self.order]]])
        self._permute(new)
        m = len(rows)
        return self.K[:m, :m]

    def restore(self):
        """Put ``K`` back in its original order."""
        self._permute(np.arange(self.K.shape[0]))

    def _permute(self, new):
        position = np.empty_like(self.order)
        position[self.order] = np.arange(len(self.order))
        q = position[new]  # K becomes K[q][:, q]
        if not np.array_equal(q, np.arange(len(q))):
            permute_symmetric(self.K, q)
        self.order = new


def permute_symmetric(K, q, strip_bytes=None):
    """``K[...] = K[q][:, q]`` in place (``q`` a permutation): rows moved
    along the permutation's cycles with one row of scratch, then columns
    gathered a strip of rows at a time (``strip_bytes`` of scratch, at most
    a sixteenth of ``K``; ``None``: ``_tuning.PERMUTE_STRIP_BYTES``)."""
    n = K.shape[0]
    strip_bytes = strip_bytes or _tuning.PERMUTE_STRIP_BYTES
    done = q == np.arange(n)
    row = np.empty(n, dtype=K.dtype)
    for i in np.flatnonzero(~done).tolist():
        if done[i]:
            continue
        row[:] = K[i]
        j = i
        while True:
            done[j] = True
            k = int(q[j])
            if k == i:
                K[j] = row
                break
            K[j] = K[k]
            j = k
    step = max(1, min(strip_bytes // max(1, K.itemsize * n), n // 16))
    for a in range(0, n, step):
        K[a : a + step] = K[a : a + step][:, q]
