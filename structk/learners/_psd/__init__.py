"""The learners' check of a training Gram: is it positive semi-definite?

Every learner assumes a PSD Gram matrix, and an indefinite one is a bug in a
kernel, not a modelling choice, so we **raise** (rather than warn): a clearly
non-PSD training Gram raises :class:`~structk.exceptions.NotPSDError`
carrying the :func:`~structk.psd.check_psd` report ("clearly": the smallest
eigenvalue is below ``-PSD_RTOL * ||K||_F``).

The policy (``psd_check`` of every learner)
-------------------------------------------
``"auto"`` (the default): a Gram of up to
``_tuning.PSD_SMALL_CERTIFICATE_MAX_N`` objects is certified by a
finite non-negative diagonal, symmetry and one Cholesky factorisation
(:func:`certify_small`). Otherwise one O(n^2) pass over the rows checks the
necessary conditions (finite entries, ``K_ii >= 0``,
``|K_ij| <= sqrt(K_ii K_jj)``, symmetry; for a Gram structk computed, read
from the pass that mirrored it, ``algorithms.gram_blocks.mirror_and_scan``),
followed for Grams of up to
``defaults.PSD_FACTORISE_MAX_N`` objects by one factorisation of
``K + PSD_RTOL ||K||_F I``. Larger Grams, whose factorisation would
dominate a fit, get the pass and :func:`principal_blocks_psd`: the first
``defaults.PSD_BLOCKS_CHECKED`` of the interleaved principal submatrices
``K[b::B, b::B]`` of at most ``defaults.PSD_FACTORISE_MAX_N`` objects, each
factorised with the same shift (O(m^3) per block of m objects, whatever
n). A principal submatrix with
an eigenvalue below ``-PSD_RTOL ||K||_F`` proves ``K`` clearly indefinite
(its eigenvector padded with zeros is a witness for ``K``); the blocks
passing proves nothing, but a negative part spread over many directions
shows in them. Then :func:`lanczos_psd` spends
``defaults.PSD_LANCZOS_STEPS`` products with ``K`` on a Krylov space
when structk's own kernels computed it (PSD by construction: the check
looks for bugs; ``defaults.PSD_LANCZOS_STEPS_CLOSED_FORM``, none, for the
vector kernels and the algebra over them, PSD by a theorem and computed in
closed form), ``defaults.PSD_LANCZOS_STEPS_USER`` on a Gram the learner
was given, or computed with a kernel written outside structk (there an
indefinite Gram is most likely, and the check cannot be weighed against
computing it). The steps find a negative eigenvalue wherever its
eigenvector lies, in fewer steps the further it stands out of the
near-zero eigenvalues: the log local alignment Gram of 1,600 synthetic
proteins (``lambda_min = -5.4e-4 ||K||_F``, while random principal
submatrices of 1,200 of them are PSD, so no block sees it) is found at
step 15. When a condition
fails, the full :func:`~structk.psd.check_psd` runs to confirm and report
(a failing block is reported from the block: the O(n^3) eigendecomposition
of ``K`` is the cost the blocks avoid).
``"full"`` always factorises; ``"none"`` skips the check (only finiteness
is checked).

What a precomputed SVM fit certifies
------------------------------------
:class:`~structk.learners.KernelSVM` on a Gram it is given
(``kernel="precomputed"``) of more than ``defaults.PSD_FACTORISE_MAX_N``
objects, with ``"auto"``, certifies what its answer depends on instead of
the whole spectrum (``check_psd_policy(..., solution_checked=True)``):

1. before the solve, the O(n^2) necessary pass above: finite entries,
   symmetry, ``K_ii >= -tol`` and every 2 x 2 principal minor
   (``|K_ij| <= sqrt(K_ii K_jj) + tol``, ``tol = PSD_RTOL max_i K_ii``).
   Every pair SMO may select therefore has a curvature ``K_ii + K_jj -
   2 K_ij >= -2 tol`` (along ``e_i -+ e_j``): the pair test the solver
   would make is made for all pairs at once, in the pass the finiteness
   check needs anyway. A failure is reported from the principal submatrix
   of the one or two objects (:func:`_raise_if_minor_indefinite`: its
   eigenvector padded with zeros is the witness, the report names the
   objects) when that is clearly indefinite; otherwise by the full report,
   as for every learner;
2. after the solve, :func:`solution_block_psd` on the block of each
   machine's free support vectors (``0 < alpha < C``): positive
   semi-definite to ``-PSD_RTOL ||K||_F``. That is the second-order
   condition of the returned KKT point (asked of the whole block, a little
   more than the directions with ``y^T d = 0`` the dual moves along): with
   an indefinite block the point can be a saddle, and moving the free
   variables along the negative direction lowers the dual objective; with
   a PSD block the dual restricted to the free variables is convex, so no
   such move exists (SMO's first-order stopping rule alone does not tell
   the two apart). A clearly negative eigenvalue
   raises :class:`~structk.exceptions.NotPSDError` with that block's
   eigenvector (padded with zeros) as the witness and the block's objects
   named, as for the principal submatrices above.

What it does not certify: a negative direction of ``K`` outside the free
support vectors (among the vectors at a bound or the non-support vectors)
is not detected, and the dual being non-convex there, the returned point
is then a local, not necessarily the global, minimum. ``psd_check="full"``
or :func:`structk.assert_psd` decide the whole Gram (one factorisation).
Its cost: the one pass (the finiteness check it replaces costs the same)
and one factorisation of ``m`` free support vectors (``m^3 / 3`` flops,
``8 m^2`` bytes of copy); the norm ``||K||_F`` is read only when a block
fails the cheaper shift ``PSD_RTOL ||block||_F``.

The result and the work done depend only on the matrix and ``psd_check``,
never on what ran before in the process. To cross-validate on one Gram,
certify it **once** and let the folds skip their check: every principal
submatrix of a PSD matrix is PSD, so ::

    structk.assert_psd(K)                       # once, O(n^3)
    search = GridSearchCV(KernelSVM(psd_check="none"), grid, cv=5).fit(K, y)

(``structk cv`` does this by itself.)

The algorithm's two forms
-------------------------
The necessary pass exists twice, with the same conditions and the same
first reported violation: :mod:`.numpy_pass` (blocks of rows, nothing to
compile or load) and :mod:`.numba_pass` (one compiled pass, no temporaries).
:func:`necessary_psd` picks one by the order of the matrix alone
(``_tuning.PSD_NUMPY_PASS_MAX_N``; the thresholds live in :mod:`structk._tuning`).
"""

from __future__ import annotations

import numpy as np

from ... import _linalg, _tuning, defaults
from ..._threads import one_blas_thread

#: "Clearly" non-PSD: an eigenvalue below ``-PSD_RTOL * ||K||_F``. Smaller
#: negative eigenvalues are rounding noise (a Gram computed in float32 has
#: them around 1e-8 ||K||_F) and harmless to the solvers.
PSD_RTOL = 1e-6

PSD_CHECKS = ("auto", "full", "none")


def check_psd_policy(
    K,
    psd_check,
    factorise=True,
    user_gram=False,
    closed_form=False,
    scan=None,
    solution_checked=False,
):
    """Apply the ``psd_check`` policy (module docstring) to a training Gram.

    ``factorise=False`` (a learner that computes the eigenvalues of ``K``
    itself and raises on a clearly negative one) runs the necessary
    conditions only. ``user_gram``: ``K`` was given, or computed by a
    kernel written outside structk (``learners._base.user_gram``), and gets
    ``defaults.PSD_LANCZOS_STEPS_USER`` Lanczos steps instead of
    ``defaults.PSD_LANCZOS_STEPS``; ``closed_form``: every part of the
    kernel computes a PSD Gram by a closed formula
    (``learners._base.closed_form_gram``), and gets
    ``defaults.PSD_LANCZOS_STEPS_CLOSED_FORM``. ``scan``: the
    :class:`~structk.algorithms.gram_blocks.GramScan` of the pass that
    mirrored a Gram structk computed (exactly symmetric, finite): the
    necessary conditions and the norm are read from it instead of from
    ``K`` (the same conditions, the same verdict).

    ``solution_checked``: the caller certifies its solution instead
    (:class:`~structk.learners.KernelSVM` on a given Gram, "What a
    precomputed SVM fit certifies" in the module docstring). A Gram too
    large to factorise then gets the necessary conditions only, a failing
    one is reported from its failing diagonal entry or 2 x 2 principal
    submatrix when that is clearly indefinite, and the return value is
    ``True``: the caller must run :func:`solution_block_psd` on its
    solution. Otherwise it returns ``False``.
    """
    if psd_check not in PSD_CHECKS:
        raise ValueError(f"psd_check must be one of {PSD_CHECKS}, got {psd_check!r}")
    if psd_check == "none":
        return False
    n = K.shape[0]
    wants_factor = factorise and (psd_check == "full" or n <= defaults.PSD_FACTORISE_MAX_N)
    if wants_factor and n <= _tuning.PSD_SMALL_CERTIFICATE_MAX_N and certify_small(K):
        return False
    deferred = solution_checked and factorise and not wants_factor and scan is None
    # the necessary conditions (and, if they pass, the factorisation): a
    # failure of the small path is reported exactly as a large Gram's is
    violation = None
    if scan is None:
        violation = necessary_violation(K)
        passed = violation is None
    else:
        passed = _scan_passes(K, scan)
    if passed:
        if deferred:
            return True  # the caller certifies the block its solution rests on
        if not wants_factor:
            if factorise:
                scale = _linalg.frobenius(K) if scan is None else _scan_norm(K, scan)
                principal_blocks_psd(K, scale=scale)  # raise on a clearly
                steps = (
                    defaults.PSD_LANCZOS_STEPS_USER
                    if user_gram
                    else defaults.PSD_LANCZOS_STEPS_CLOSED_FORM
                    if closed_form
                    else defaults.PSD_LANCZOS_STEPS
                )
                lanczos_psd(K, steps=steps, scale=scale)  # negative block or direction
            return False
        if _linalg.cholesky_ok(K, PSD_RTOL * _linalg.frobenius(K)):
            return False
    elif deferred:
        _raise_if_minor_indefinite(K, *violation)  # no O(n^3) report if it suffices
    raise_if_not_psd(K)
    return False


def _scan_passes(K, scan):
    """:func:`necessary_psd`'s verdict on an exactly symmetric, finite ``K``
    from its :class:`~structk.algorithms.gram_blocks.GramScan` (the same
    tolerance, relative to the largest diagonal entry)."""
    d = np.diag(K)
    tol = PSD_RTOL * _diagonal_scale(d)
    return bool(d.min() >= -tol and scan.cs_excess <= tol)


def _diagonal_scale(d):
    """The scale of the necessary conditions' tolerances: the largest
    ``|K_ii|`` (at least the smallest normal float)."""
    return max(float(np.abs(d).max()), float(np.finfo(float).tiny))


def _scan_norm(K, scan):
    """``||K||_F`` from the scan's sum of squares (:func:`_linalg.frobenius`
    rescales when that sum over- or underflows)."""
    f = float(np.sqrt(scan.sum_sq))
    return f if np.isfinite(f) and f > 1e-150 else _linalg.frobenius(K)


def principal_blocks_psd(K, block=None, count=None, scale=None):
    """Raise :class:`NotPSDError` when one of the first ``count`` (default
    ``defaults.PSD_BLOCKS_CHECKED``, ``None`` there: all) interleaved principal
    submatrices ``K[b::B, b::B]`` of at most ``block`` (default
    ``defaults.PSD_FACTORISE_MAX_N``) objects has an eigenvalue below
    ``-PSD_RTOL ||K||_F``; each block is factorised with that shift first,
    and only a failing one is decomposed (for the report)."""
    n = K.shape[0]
    block = defaults.PSD_FACTORISE_MAX_N if block is None else block
    B = -(-n // block)
    scale = _linalg.frobenius(K) if scale is None else scale
    tol = PSD_RTOL * scale
    count = defaults.PSD_BLOCKS_CHECKED if count is None else count
    for b in range(B if count is None else min(B, count)):
        sub = np.ascontiguousarray(K[b::B, b::B])
        if _linalg.cholesky_ok(sub, tol):
            continue
        _raise_if_block_indefinite(
            sub,
            slice(b, None, B),
            n,
            scale,
            f"the submatrix of objects {b}, {b + B}, {b + 2 * B}, ...",
        )


def _raise_if_block_indefinite(sub, where, n, scale, rule):
    """Raise :class:`NotPSDError` when the principal submatrix ``sub`` of an
    ``n x n`` Gram (its objects at ``where``, an index or a slice) has an
    eigenvalue below ``-PSD_RTOL * scale``: its eigenvector, padded with
    zeros, is the witness for the whole Gram (``rule`` names the block)."""
    from dataclasses import replace

    from ...exceptions import NotPSDError
    from ...psd import check_psd

    report = check_psd(sub, tol=PSD_RTOL * scale, method="eigh")
    if report.is_psd:
        return
    z = np.zeros(n)
    z[where] = report.witness
    raise NotPSDError(
        replace(
            report,
            n=n,
            scale=scale,
            witness=z,
            method="submatrix",
            tol_rule=f"the learners' 1e-6*||K||_F; {rule}",
        )
    )


def _raise_if_minor_indefinite(K, i, j):
    """Report the failed necessary condition at ``(i, j)`` of
    :func:`necessary_violation` from the principal submatrix of objects
    ``i`` and ``j`` (one object for a diagonal entry) when that is clearly
    indefinite: a witness without the O(n^3) eigendecomposition of ``K``.
    Returns (for the full report to decide) when it is not, or when the
    failure is an asymmetry or a non-finite entry."""
    pair = np.unique([i, j])
    sub = K[np.ix_(pair, pair)]
    if not (np.isfinite(sub).all() and np.array_equal(sub, sub.T)):
        return
    scale = _linalg.frobenius(K)
    what = f"object {i}" if i == j else f"objects {pair[0]} and {pair[1]}"
    _raise_if_block_indefinite(sub, pair, K.shape[0], scale, f"the principal submatrix of {what}")


def solution_block_psd(K, positions, objects, what):
    """Certify the principal submatrix of ``K`` that a solution rests on
    (e.g. the free support vectors of an SVM): raise :class:`NotPSDError`
    when it has an eigenvalue below ``-PSD_RTOL ||K||_F``, with its
    eigenvector padded with zeros as the witness, as for the blocks of
    :func:`principal_blocks_psd`.

    ``positions``: the block's rows in ``K``; ``objects``: the same objects'
    indices in the caller's order (they differ when the solver permuted
    ``K`` in place), where the witness is written; ``what`` names the block
    in the report. Up to ``defaults.PSD_SOLUTION_FACTORISE_MAX_N`` objects
    the block is factorised (first with the shift ``PSD_RTOL ||block||_F``,
    at most the tolerance, so that a PSD block never pays for ``||K||_F``:
    a pass over all of ``K``); a larger block gets
    :func:`principal_blocks_psd` and ``defaults.PSD_LANCZOS_STEPS_USER``
    Lanczos steps (:func:`lanczos_psd`). A copy of the block is made
    (``8 m^2`` bytes for ``m`` objects).
    """
    positions = np.asarray(positions, dtype=np.intp)
    m = len(positions)
    if m == 0:
        return
    sub = K[np.ix_(positions, positions)]
    if m <= defaults.PSD_SOLUTION_FACTORISE_MAX_N:
        if _linalg.cholesky_ok(sub, PSD_RTOL * _linalg.frobenius(sub)):
            return
        scale = _linalg.frobenius(K)
        _raise_if_block_indefinite(sub, np.asarray(objects), K.shape[0], scale, what)
        return
    from dataclasses import replace

    from ...exceptions import NotPSDError

    scale = _linalg.frobenius(K)
    try:
        principal_blocks_psd(sub, scale=scale)
        lanczos_psd(sub, steps=defaults.PSD_LANCZOS_STEPS_USER, scale=scale)
    except NotPSDError as error:
        report = error.report
        z = np.zeros(K.shape[0])
        z[np.asarray(objects)] = report.witness
        rule = report.tol_rule.replace("the learners' 1e-6*||K||_F; ", "")
        raise NotPSDError(
            replace(
                report,
                n=K.shape[0],
                witness=z,
                tol_rule=f"the learners' 1e-6*||K||_F; {what}, in it {rule}",
            )
        ) from None


def lanczos_psd(K, steps=None, scale=None):
    """Raise :class:`NotPSDError` when ``steps`` (default
    ``defaults.PSD_LANCZOS_STEPS``) Lanczos steps on ``K`` find a direction
    ``x`` with ``x^T K x < -PSD_RTOL ||K||_F x^T x``.

    The Krylov space of a fixed start vector (seeded: the same for every
    matrix of one order) is grown with full reorthogonalisation, and the
    smallest Ritz value of the tridiagonal matrix is watched after every
    step. Ritz values are Rayleigh quotients, never below the smallest
    eigenvalue, so a clearly negative one proves ``K`` clearly indefinite;
    its Ritz vector is checked by one more product with ``K`` (the report
    gives that Rayleigh quotient, an upper bound on the smallest
    eigenvalue, and the vector as the witness). Nothing found proves
    nothing: the closer a negative eigenvalue sits to the near-zero
    eigenvalues a Gram has by the thousand, the more steps it takes (the
    module docstring's log-LA spectrum and its shifts: 15 steps at ``-5.4e-4
    ||K||_F``, 31 at ``-1e-4``, 42 at ``-2.3e-5``, 52 at ``-1e-5``, from
    the fixed start; 41 to 78 at ``-2.3e-5`` over nine starts); only
    a factorisation decides every
    case. Each step is one matrix-vector product (one read of ``K``), on one
    BLAS thread (:func:`structk._threads.one_blas_thread`).

    References
    ----------
    Lanczos, C. (1950). An iteration method for the solution of the
    eigenvalue problem of linear differential and integral operators.
    J. Res. Nat. Bur. Standards 45, 255-282.
    Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed.,
    section 10.1 (Ritz values bound the extreme eigenvalues).
    """
    n = K.shape[0]
    steps = min(defaults.PSD_LANCZOS_STEPS if steps is None else steps, n)
    if steps <= 0:
        return
    scale = _linalg.frobenius(K) if scale is None else scale
    tol = PSD_RTOL * scale
    with one_blas_thread():
        _lanczos_steps(K, steps, tol, scale)


def _lanczos_steps(K, steps, tol, scale):
    from scipy.linalg import eigh_tridiagonal

    n = K.shape[0]
    Q = np.empty((steps, n))
    alpha = np.empty(steps)
    beta = np.empty(steps)
    q = np.random.default_rng(_LANCZOS_SEED).standard_normal(n)
    q /= np.linalg.norm(q)
    product = _symmetric_product(K)
    for j in range(steps):
        Q[j] = q
        w = product(q)
        alpha[j] = q @ w
        basis = Q[: j + 1]
        for _ in range(2):  # twice is enough (Parlett's "twice is enough")
            w -= basis.T @ (basis @ w)
        theta, s = eigh_tridiagonal(alpha[: j + 1], beta[:j], select="i", select_range=(0, 0))
        if theta[0] < -tol:
            x = basis.T @ s[:, 0]
            x /= np.linalg.norm(x)
            quotient = float(x @ product(x))
            if quotient < -tol:
                _raise_direction(K, x, quotient, scale, j + 1)
        beta[j] = np.linalg.norm(w)
        if not beta[j] > np.finfo(float).eps * scale:
            return  # an invariant subspace: its Ritz values are eigenvalues
        q = w / beta[j]


def _symmetric_product(K):
    """``q -> K q`` for a symmetric ``K``: BLAS ``dsymv`` reads one triangle
    (half the memory traffic of ``K @ q``) when ``K`` is contiguous float64."""
    from scipy.linalg import blas

    if K.dtype == np.float64 and (K.flags.c_contiguous or K.flags.f_contiguous):
        A = K if K.flags.f_contiguous else K.T  # the same matrix, Fortran order
        return lambda q: blas.dsymv(1.0, A, q)
    return lambda q: K @ q


#: The seed of the Lanczos start vector (fixed: the check depends only on K).
_LANCZOS_SEED = 20041


def _raise_direction(K, x, quotient, scale, steps):
    from ...exceptions import NotPSDError
    from ...psd import PSDReport, _max_asymmetry

    raise NotPSDError(
        PSDReport(
            is_psd=False,
            n=K.shape[0],
            tol=PSD_RTOL * scale,
            scale=scale,
            asymmetry=_max_asymmetry(K)[0],
            min_eigenvalue=quotient,
            witness=x,
            method="lanczos",
            tol_rule=f"the learners' 1e-6*||K||_F; a direction found by {steps} Lanczos steps",
        )
    )


def certify_small(K):
    """Certify a small Gram without the O(n^2) necessary pass: a finite
    non-negative diagonal, symmetry as strict as the pass's, then a Cholesky
    factorisation of ``K + PSD_RTOL max_i(K_ii) I`` (it fails on any
    non-finite entry it reads, and reads one triangle: the symmetry test
    covers the other).

    The shift is at most the reporting tolerance ``PSD_RTOL ||K||_F``, so a
    pass here is a pass there too, and it is still a million times the
    factorisation's rounding (about ``n eps max_i K_ii``): no PSD Gram fails
    it by rounding. ``False`` means "not certified here", not "not PSD": the
    caller then runs the necessary pass and reports.
    """
    d = K.diagonal()
    low, scale = float(d.min()), float(d.max())
    if not (low >= -PSD_RTOL * scale and 0.0 < scale < np.inf):  # also NaN
        return False
    if not _symmetric(K, 1e-10 * scale):
        return False
    return _linalg.cholesky_ok(K, PSD_RTOL * scale)


def _symmetric(K, tol, rows=None):
    """``max |K - K^T| <= tol``, a block of rows at a time (no n x n temporary)."""
    rows = rows or _tuning.PSD_SYMMETRY_BLOCK_ROWS
    for start in range(0, K.shape[0], rows):
        block = K[start : start + rows] - K[:, start : start + rows].T
        np.abs(block, out=block)
        if not block.max() <= tol:  # also NaN
            return False
    return True


def raise_if_not_psd(K):
    """Raise :class:`NotPSDError` with the report when ``K`` is clearly not PSD.

    "Clearly": an eigenvalue below ``-PSD_RTOL * ||K||_F``.
    """
    from ...exceptions import NotPSDError
    from ...psd import check_psd

    from dataclasses import replace

    report = check_psd(K, tol=PSD_RTOL * _linalg.frobenius(K))
    if not report.is_psd:
        raise NotPSDError(replace(report, tol_rule="the learners' 1e-6*||K||_F"))


def necessary_psd(K):
    """O(n^2) necessary conditions: symmetry, ``K_ii >= 0``, Cauchy-Schwarz.

    Tolerances are relative to the largest diagonal entry; ``False`` sends the
    matrix to the full check. A non-finite entry raises ``ValueError`` naming it.
    """
    return necessary_violation(K) is None


def necessary_violation(K):
    """:func:`necessary_psd`'s pass, returning where it failed: ``(i, i)``
    for a diagonal entry below the tolerance (or NaN), the first failing
    ``(i, j)`` of Cauchy-Schwarz or symmetry, or ``None`` when all hold."""
    d = np.diag(K)
    scale = _diagonal_scale(d)
    tol = PSD_RTOL * scale  # as the eigenvalue tolerance
    if not d.min() >= -tol:  # also NaN: check_psd reports it
        low = np.flatnonzero(~(d >= -tol))[0]
        return int(low), int(low)
    if not np.isfinite(d).all():  # inf passes Cauchy-Schwarz (inf <= inf)
        i = int(np.flatnonzero(~np.isfinite(d))[0])
        raise_nonfinite(K, i, i)
    # symmetry as strict as check_psd's (sym_rtol=1e-10), which would refuse K
    if K.shape[0] <= _tuning.PSD_NUMPY_PASS_MAX_N:
        from .numpy_pass import necessary_psd_violation
    else:
        from .numba_pass import necessary_psd_violation
    i, j = necessary_psd_violation(K, tol, 1e-10 * scale)
    if i >= 0 and not (np.isfinite(K[i, j]) and np.isfinite(K[j, i])):
        raise_nonfinite(K, *((i, j) if not np.isfinite(K[i, j]) else (j, i)))
    return None if i == -1 else (int(i), int(j))


def first_nonfinite(K):
    """Flat index of the first NaN or infinity of ``K``, or -1."""
    if K.size <= _tuning.PSD_NUMPY_FINITE_SCAN_MAX:
        from .numpy_pass import first_nonfinite as scan
    else:
        from .numba_pass import first_nonfinite as scan
    return scan(K)


def raise_nonfinite(K, i, j, name="K"):
    raise ValueError(
        f"{name} holds a non-finite value {K[i, j]} at entry ({i}, {j}); "
        "NaN and inf are not allowed"
    )
