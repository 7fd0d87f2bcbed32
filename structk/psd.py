"""Checking that a Gram matrix is positive semi-definite (PSD), with a diagnosis.

A symmetric matrix ``K`` is PSD when ``z^T K z >= 0`` for every vector ``z``,
equivalently when its smallest eigenvalue is ``>= 0``. A function ``k`` is a
valid kernel exactly when every Gram matrix it produces is PSD.

In floating point a Gram matrix of a valid kernel is only PSD up to
rounding: a float64 Gram of size n routinely has smallest eigenvalues around
``-4 eps lambda_max`` (eps = 2.2e-16). The check therefore accepts
``lambda_min >= -tol`` with the default tolerance

    tol = 10 * n * eps * ||K||_F

``||K||_F`` (the Frobenius norm) is an upper bound of ``max |lambda|`` that
costs one pass over the matrix, so the default leaves a margin of at least
``2.5 n`` over the rounding level observed in practice, while a genuine
violation (an eigenvalue of ``-1e-8 ||K||`` or below at n = 4000) is caught.

``eps`` is that of the Gram's own dtype: a float32 Gram (eps = 1.2e-7) is
PSD only up to float32 rounding, and gets ``10 n eps_32 ||K||_F``. Integer
Grams are exact and get the float64 tolerance. A float16 Gram (three
significant digits) is refused: at n = 100 its rounding alone allows
eigenvalues of ``-||K||_F``, so no answer would mean anything.

How it is computed: the Cholesky factorisation of ``K + tol * I`` exists
exactly when ``lambda_min > -tol`` (up to the factorisation's own rounding,
about ``n eps max K_ii``, far below ``tol``). It costs ``n^3 / 3`` flops in
BLAS-3 blocks, several times less than an eigendecomposition, so a PSD
matrix is certified by Cholesky alone. Only when it fails is the smallest
eigenpair computed, to report ``lambda_min`` and its eigenvector as a witness
``z`` with ``z^T K z = lambda_min < 0``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _linalg, _tuning
from ._validation import check_scalar
from .exceptions import NotPSDError

EPS = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class PSDReport:
    """Result of :func:`check_psd`.

    Attributes
    ----------
    is_psd : bool
        Whether ``lambda_min >= -tol``.
    n : int
        Size of the matrix.
    tol : float
        The tolerance used (absolute).
    scale : float
        ``||K||_F``, the matrix scale the default tolerance is relative to.
    asymmetry : float
        ``max |K - K^T|`` found in the input (the check uses ``(K + K^T) / 2``).
    min_eigenvalue : float or None
        Smallest eigenvalue; ``None`` when the Cholesky fast path certified
        the matrix without computing eigenvalues (then ``lambda_min > -tol``).
    witness : ndarray or None
        When not PSD, a unit vector ``z`` with ``z^T K z = min_eigenvalue < -tol``.
    method : str
        ``"cholesky"`` or ``"eigh"``: what decided the answer;
        ``"submatrix"`` when the learners' check found a principal
        submatrix with an eigenvalue below ``-tol`` (then
        ``min_eigenvalue`` is that submatrix's, an upper bound on ``K``'s);
        ``"lanczos"`` when it found a direction by Lanczos steps (then
        ``min_eigenvalue`` is the witness's Rayleigh quotient ``z^T K z``,
        also an upper bound).
    tol_rule : str
        How ``tol`` was set: ``"10*n*eps*||K||_F (default)"``, ``"given"``,
        or the rule of the caller (the learners: ``1e-6*||K||_F``).
    """

    is_psd: bool
    n: int
    tol: float
    scale: float
    asymmetry: float
    min_eigenvalue: float | None
    witness: np.ndarray | None = field(default=None, repr=False)
    method: str = "cholesky"
    tol_rule: str = "given"

    def __bool__(self) -> bool:
        return bool(self.is_psd)

    def __str__(self) -> str:
        lines = []
        if self.is_psd:
            lines.append(f"K ({self.n} x {self.n}) is positive semi-definite")
        else:
            lines.append(f"K ({self.n} x {self.n}) is NOT positive semi-definite")
        if self.min_eigenvalue is None:
            lines.append(
                "  smallest eigenvalue > -tol (certified by Cholesky of K + tol*I; "
                "eigenvalues not computed)"
            )
        else:
            rel = self.min_eigenvalue / self.scale if self.scale > 0 else 0.0
            how = {
                "submatrix": "smallest eigenvalue at most (that of a principal submatrix)",
                "lanczos": "smallest eigenvalue at most (a Rayleigh quotient, Lanczos)",
            }.get(self.method, "smallest eigenvalue:")
            lines.append(f"  {how} {self.min_eigenvalue:.6g} ({rel:.3g} x ||K||_F)")
        lines.append(f"  tolerance: {self.tol:.3g} ({self.tol_rule}; ||K||_F = {self.scale:.6g})")
        lines.append(f"  asymmetry max|K - K^T|: {self.asymmetry:.3g}")
        if self.witness is not None:
            z = self.witness
            top = np.argsort(-np.abs(z))[: min(5, len(z))]
            parts = ", ".join(f"z[{i}]={z[i]:+.3g}" for i in top)
            lines.append(
                f"  witness z (unit norm) with z^T K z = {self.min_eigenvalue:.6g} < 0; "
                f"largest entries: {parts}"
            )
        return "\n".join(lines)


def _as_square(K):
    """``K`` as a finite square float64 array, and the machine epsilon of its dtype."""
    if hasattr(K, "toarray"):
        K = K.toarray()
    K = np.asarray(K)
    if K.dtype.kind == "c":
        raise ValueError("K must be real; got a complex matrix")
    if K.dtype.kind not in "biuf":
        raise ValueError(f"K must hold real numbers, got dtype {K.dtype}")
    eps = max(EPS, float(np.finfo(K.dtype).eps)) if K.dtype.kind == "f" else EPS
    if eps > 1e-4:
        raise ValueError(
            f"K has dtype {K.dtype}, whose {-int(np.log10(eps))} significant digits are "
            "too few to decide positive semi-definiteness; compute or store the Gram "
            "matrix in float32 or float64"
        )
    K = K.astype(np.float64, copy=False)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    if K.shape[0] == 0:
        raise ValueError("K is empty (0 x 0)")
    # a finite sum proves every entry finite in one pass without a temporary
    if not np.isfinite(np.sum(K)) and not np.isfinite(K).all():
        i, j = np.argwhere(~np.isfinite(K))[0]
        raise ValueError(
            f"K holds a non-finite value {K[i, j]} at entry ({i}, {j}); NaN and inf are not allowed"
        )
    return K, eps


def _max_asymmetry(K, block=None):
    """``max |K - K^T|`` and where, computed block by block (no n^2 temporary)."""
    n = K.shape[0]
    block = block or _tuning.ASYMMETRY_BLOCK
    worst, where = 0.0, (0, 0)
    for i0 in range(0, n, block):
        i1 = min(i0 + block, n)
        for j0 in range(i0, n, block):
            j1 = min(j0 + block, n)
            D = np.abs(K[i0:i1, j0:j1] - K[j0:j1, i0:i1].T)
            m = float(D.max())
            if m > worst:
                a, b = np.unravel_index(int(D.argmax()), D.shape)
                worst, where = m, (i0 + int(a), j0 + int(b))
    return worst, where


def _symmetric_part(K, sym_rtol):
    """Return ``(K + K^T)/2`` and ``max|K - K^T|``, refusing clearly asymmetric input."""
    asym, (i, j) = _max_asymmetry(K)
    if asym == 0.0:
        return K, 0.0
    limit = sym_rtol * float(np.abs(K).max())
    if asym > limit:
        raise ValueError(
            f"K is not symmetric: K[{i}, {j}] = {float(K[i, j])!r} but K[{j}, {i}] = "
            f"{float(K[j, i])!r} (|difference| {asym:.3g} > sym_rtol * max|K| = {limit:.3g}); "
            "a Gram matrix of a kernel must be symmetric"
        )
    S = K + K.T
    S *= 0.5
    return S, asym


def _smallest_eigenpair(K):
    from scipy.linalg import eigh

    w, v = eigh(K, subset_by_index=[0, 0], check_finite=False)
    return float(w[0]), v[:, 0]


def check_psd(
    K: ArrayLike, tol: float | None = None, *, method: str = "auto", sym_rtol: float = 1e-10
) -> PSDReport:
    """Check whether a Gram matrix is positive semi-definite.

    Parameters
    ----------
    K : array_like, shape (n, n)
        Real, finite and symmetric up to ``sym_rtol``.
    tol : float, optional
        Absolute tolerance: ``K`` is accepted when ``lambda_min >= -tol``.
        Default ``10 * n * eps * ||K||_F`` with the ``eps`` of ``K``'s dtype
        (see the module documentation).
    method : {"auto", "eigh"}
        ``"auto"`` certifies PSD matrices by a Cholesky factorisation and
        computes the smallest eigenpair only when that fails; ``"eigh"``
        always computes it, so ``min_eigenvalue`` is always filled in.
    sym_rtol : float
        Largest accepted ``max|K - K^T|`` relative to ``max|K|``.

    Returns
    -------
    PSDReport
        Truthy when PSD; ``str(report)`` is a readable diagnosis.

    Raises
    ------
    ValueError
        For non-square, empty, complex, float16, non-finite or non-symmetric
        ``K``, and a negative or non-finite ``tol``.
    TypeError
        For a ``tol`` that is not a real number.

    Examples
    --------
    >>> import numpy as np
    >>> from structk import check_psd
    >>> check_psd(np.array([[2.0, 1.0], [1.0, 2.0]])).is_psd
    True
    >>> r = check_psd(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> r.is_psd, round(r.min_eigenvalue, 12)
    (False, -1.0)
    """
    if method not in ("auto", "eigh"):
        raise ValueError(f"method must be 'auto' or 'eigh', got {method!r}")
    S, eps = _as_square(K)
    if tol is not None:
        tol = check_scalar(tol, "tol", lower=0.0)
    check_scalar(sym_rtol, "sym_rtol", lower=0.0)
    S, asym = _symmetric_part(S, sym_rtol)
    n = S.shape[0]
    scale = _linalg.frobenius(S)
    rule = "given"
    if tol is None:
        tol = 10.0 * n * eps * scale
        rule = "default 10*n*eps*||K||_F"

    if method == "auto" and _linalg.cholesky_ok(S, tol):
        return PSDReport(True, n, tol, scale, asym, None, None, "cholesky", rule)
    from ._threads import small_blas

    with small_blas(n):
        lam, z = _smallest_eigenpair(S)
    ok = lam >= -tol
    return PSDReport(ok, n, tol, scale, asym, lam, None if ok else z, "eigh", rule)


def assert_psd(K: ArrayLike, tol: float | None = None, **kwargs: Any) -> PSDReport:
    """Like :func:`check_psd` but raise :class:`NotPSDError` when ``K`` is not PSD.

    Returns the report when ``K`` is PSD.
    """
    report = check_psd(K, tol, **kwargs)
    if not report.is_psd:
        raise NotPSDError(report)
    return report


_REPAIRS = ("clip", "flip", "shift")


def nearest_psd(
    K: ArrayLike, method: str = "clip", *, sym_rtol: float = 1e-10
) -> NDArray[np.float64]:
    """Repair a symmetric similarity matrix into a PSD one, by its spectrum.

    With ``K = V diag(lambda) V^T`` (``K`` symmetrised first):

    ``"clip"``
        ``V diag(max(lambda, 0)) V^T``: the PSD matrix nearest to ``K`` in
        Frobenius norm (Higham 1988). Treats negative eigenvalues as noise.
    ``"flip"``
        ``V diag(|lambda|) V^T``: keeps the information in the negative
        directions, as if they were positive (Graepel et al. 1999).
    ``"shift"``
        ``K - min(lambda_min, 0) I``: adds the same amount to every
        diagonal entry, which changes no eigenvector and no off-diagonal
        similarity, but moves every point away from all others (only the
        smallest eigenvalue is computed).

    All three are **transductive**: the repaired matrix depends on the
    whole of ``K``, so the objects to predict must be in ``K`` when it is
    repaired (train and test together, Chen et al. 2009, Section 4); a new
    object cannot be added without recomputing it, and a learner fitted on
    a repaired training block and applied to raw test similarities is
    inconsistent. For an inductive repair (new objects at any time) use
    :class:`~structk.kernels.empirical.EmpiricalKernelMap`.

    Parameters
    ----------
    K : array_like, shape (n, n)
        Real, finite, symmetric up to ``sym_rtol`` (relative to ``max|K|``).
    method : {"clip", "flip", "shift"}, default "clip"
    sym_rtol : float
        Largest accepted ``max|K - K^T|`` relative to ``max|K|``.

    Returns
    -------
    ndarray of float64, shape (n, n)
        Exactly symmetric and PSD up to rounding (``check_psd`` accepts it).
        A PSD input is returned unchanged by ``"shift"`` and up to rounding by
        ``"clip"`` and ``"flip"``.

    Examples
    --------
    >>> import numpy as np
    >>> from structk.psd import nearest_psd
    >>> K = np.array([[1.0, 2.0], [2.0, 1.0]])          # eigenvalues 3 and -1
    >>> nearest_psd(K, "clip")
    array([[1.5, 1.5],
           [1.5, 1.5]])
    >>> nearest_psd(K, "flip")
    array([[2., 1.],
           [1., 2.]])
    >>> nearest_psd(K, "shift")
    array([[2., 2.],
           [2., 2.]])

    References
    ----------
    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi and L. Cazzanti,
    "Similarity-based classification: concepts and algorithms", Journal of
    Machine Learning Research 10, 2009, 747-776.
    N. J. Higham, "Computing a nearest symmetric positive semidefinite
    matrix", Linear Algebra and its Applications 103, 1988, 103-118.
    """
    if method not in _REPAIRS:
        raise ValueError(f"method must be one of {_REPAIRS}, got {method!r}")
    K, _ = _as_square(K)
    S, _ = _symmetric_part(K, sym_rtol)
    S = np.array(S, dtype=np.float64)  # never modify the caller's matrix
    if method == "shift":
        lam, _ = _smallest_eigenpair(S)
        if lam < 0:
            S.flat[:: S.shape[0] + 1] -= lam
        return S
    from scipy.linalg import eigh

    w, V = eigh(S, check_finite=False)
    w = np.maximum(w, 0.0) if method == "clip" else np.abs(w)
    R = (V * w) @ V.T
    R += R.T  # exactly symmetric
    R *= 0.5
    return R
