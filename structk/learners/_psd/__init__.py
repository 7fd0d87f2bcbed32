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
``|K_ij| <= sqrt(K_ii K_jj)``, symmetry), followed for Grams of up to
``_tuning.PSD_FACTORISE_MAX_N`` objects by one factorisation of
``K + PSD_RTOL ||K||_F I``. Larger Grams, whose factorisation would
dominate a fit, get the pass and :func:`principal_blocks_psd`: the first
``_tuning.PSD_BLOCKS_CHECKED`` of the interleaved principal submatrices
``K[b::B, b::B]`` of at most ``_tuning.PSD_FACTORISE_MAX_N`` objects, each
factorised with the same shift (O(m^3) per block of m objects, whatever
n). A principal submatrix with
an eigenvalue below ``-PSD_RTOL ||K||_F`` proves ``K`` clearly indefinite
(its eigenvector padded with zeros is a witness for ``K``); the blocks
passing proves nothing, but a negative part spread over many directions
(the log of the local alignment kernel) shows in them. When a condition
fails, the full :func:`~structk.psd.check_psd` runs to confirm and report
(a failing block is reported from the block: the O(n^3) eigendecomposition
of ``K`` is the cost the blocks avoid).
``"full"`` always factorises; ``"none"`` skips the check (only finiteness
is checked).

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

from ... import _linalg, _tuning

#: "Clearly" non-PSD: an eigenvalue below ``-PSD_RTOL * ||K||_F``. Smaller
#: negative eigenvalues are rounding noise (a Gram computed in float32 has
#: them around 1e-8 ||K||_F) and harmless to the solvers.
PSD_RTOL = 1e-6

PSD_CHECKS = ("auto", "full", "none")


def check_psd_policy(K, psd_check, factorise=True):
    """Apply the ``psd_check`` policy (module docstring) to a training Gram.

    ``factorise=False`` (a learner that computes the eigenvalues of ``K``
    itself and raises on a clearly negative one) runs the necessary
    conditions only.
    """
    if psd_check not in PSD_CHECKS:
        raise ValueError(f"psd_check must be one of {PSD_CHECKS}, got {psd_check!r}")
    if psd_check == "none":
        return
    n = K.shape[0]
    wants_factor = factorise and (psd_check == "full" or n <= _tuning.PSD_FACTORISE_MAX_N)
    if wants_factor and n <= _tuning.PSD_SMALL_CERTIFICATE_MAX_N and certify_small(K):
        return
    # the necessary conditions (and, if they pass, the factorisation): a
    # failure of the small path is reported exactly as a large Gram's is
    if necessary_psd(K):
        if not wants_factor:
            if factorise:
                principal_blocks_psd(K)  # raises on a clearly negative block
            return
        if _linalg.cholesky_ok(K, PSD_RTOL * _linalg.frobenius(K)):
            return
    raise_if_not_psd(K)


def principal_blocks_psd(K, block=None, count=None):
    """Raise :class:`NotPSDError` when one of the first ``count`` (default
    ``_tuning.PSD_BLOCKS_CHECKED``, ``None`` there: all) interleaved principal
    submatrices ``K[b::B, b::B]`` of at most ``block`` (default
    ``_tuning.PSD_FACTORISE_MAX_N``) objects has an eigenvalue below
    ``-PSD_RTOL ||K||_F``; each block is factorised with that shift first,
    and only a failing one is decomposed (for the report)."""
    from dataclasses import replace

    from ...exceptions import NotPSDError
    from ...psd import check_psd

    n = K.shape[0]
    block = _tuning.PSD_FACTORISE_MAX_N if block is None else block
    B = -(-n // block)
    scale = _linalg.frobenius(K)
    tol = PSD_RTOL * scale
    count = _tuning.PSD_BLOCKS_CHECKED if count is None else count
    for b in range(B if count is None else min(B, count)):
        sub = np.ascontiguousarray(K[b::B, b::B])
        if _linalg.cholesky_ok(sub, tol):
            continue
        report = check_psd(sub, tol=tol, method="eigh")
        if report.is_psd:
            continue
        z = np.zeros(n)
        z[b::B] = report.witness
        raise NotPSDError(replace(
            report, n=n, scale=scale, witness=z, method="submatrix",
            tol_rule=f"the learners' 1e-6*||K||_F; the submatrix of objects {b}, "
                     f"{b + B}, {b + 2 * B}, ..."))


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
        block = K[start:start + rows] - K[:, start:start + rows].T
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
    d = np.diag(K)
    scale = max(float(np.abs(d).max()), float(np.finfo(float).tiny))
    tol = PSD_RTOL * scale  # as the eigenvalue tolerance
    if not d.min() >= -tol:  # also NaN: check_psd reports it
        return False
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
    return i == -1


def first_nonfinite(K):
    """Flat index of the first NaN or infinity of ``K``, or -1."""
    if K.size <= _tuning.PSD_NUMPY_FINITE_SCAN_MAX:
        from .numpy_pass import first_nonfinite as scan
    else:
        from .numba_pass import first_nonfinite as scan
    return scan(K)


def raise_nonfinite(K, i, j, name="K"):
    raise ValueError(f"{name} holds a non-finite value {K[i, j]} at entry ({i}, {j}); "
                     "NaN and inf are not allowed")
