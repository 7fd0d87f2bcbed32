"""SMO for the C-SVM dual: the two solvers and the rule that picks one.

============================  ===============================================
module                        what
============================  ===============================================
:mod:`.numba_smo`             the solver with LIBSVM's shrinking (numba)
:mod:`.numpy_smo`             the same iterates without shrinking (NumPy)
:mod:`.step`                  the two-variable step both use (plain Python)
:mod:`.dense_ipm`             an interior-point start for small, hard problems
============================  ===============================================

The solver is chosen per problem by :func:`solve`, from its size alone:

=================================  =========================================
problem                            path
=================================  =========================================
``n <= SVM_NUMPY_MAX_N``           the iterates without shrinking for a
                                   budget (NumPy first, unless the compiled
                                   solver is loaded or ``compiled_small``;
                                   compiled after a few hundred), then the
                                   compiled solver, shrinking as asked
larger                             the compiled solver
not solved after ``ipm_after(n)``  the interior point (:mod:`.dense_ipm`),
iterations, ``n <= SVM_IPM_MAX_N``  then the compiled solver to ``eps``
=================================  =========================================

Both SMO forms follow the same iterates bit for bit, and every hand-over
counts iterations whichever form ran them, so the result does not depend
on the path: which form runs is a matter of time only. NumPy saves a
fresh process the loading of compiled code (0.2-0.35 s) for its first
small fits; once the compiled solver is loaded (a problem went past the
NumPy budget) it runs every iterate, 10-40 times faster. A caller that
solves hundreds of small problems (a cross-validation with a grid) passes
``compiled_small=True`` to load it at once. It is an argument, never a
process-wide switch, so two fits in two threads never see each other's
choice.

SMO's iterations grow with ``C`` (millions at ``C = 1e6`` on a nearly
hard-margin problem of 180 variables); an interior-point method's do not.
A problem of at most ``defaults.SVM_IPM_EAGER_MAX_N`` variables that SMO has not
solved after ``defaults.SVM_IPM_AFTER`` iterations goes to the dense
interior point; so does a problem of up to
``defaults.SVM_IPM_MAX_N`` variables after SMO has spent about what
the interior point costs (``n^2 / SVM_IPM_WORK_DIVISOR`` iterations of
``O(n)`` each against its ``O(n^3)`` steps), so the solver's quality does
not fall off at a size threshold: a hard problem never ends at ``max_iter``
with a worse model merely for being one variable larger. The compiled SMO
finishes from the interior point to the same KKT tolerance ``eps`` as from
zero: the model differs from a cold SMO's only within that tolerance.

A problem may also start from a feasible point other than zero
(``alpha0``): :func:`seed` turns the solution for one ``C`` into a start
for another (alpha seeding along a regularisation path, DeCoste & Wagstaff,
2000), and the compiled solver goes on from there to the same optimum, to
``eps``.

References
----------
D. DeCoste and K. Wagstaff, "Alpha seeding for support vector machines",
Proc. KDD (2000).
"""

from __future__ import annotations

import sys

import numpy as np

from ... import _tuning, defaults
from ..._threads import small_blas, stoppable
from . import dense_ipm
from .numpy_smo import objective, rho, smo_numpy


def solve(K, y, C, eps, tau, shrinking, max_iter, start=None, *, compiled_small=False):
    """Solve the C-SVM dual ``min 1/2 a^T Q a - e^T a``, ``0 <= a <= C``,
    ``y^T a = 0``, ``Q_ij = y_i y_j K_ij`` (``K`` is only read).

    Returns ``(alpha, rho, objective, n_iter, converged)``;
    :func:`solve_with_gradient` also returns the gradient. A problem of at
    most ``SVM_NUMPY_MAX_N`` variables follows the no-shrinking iterates in
    NumPy (compiled with ``compiled_small``) for up to
    ``max(SVM_NUMPY_BUDGET, SVM_NUMPY_WORK // n)`` iterations (see
    :mod:`structk._tuning`); beyond, the compiled solver goes on from there
    (shrinking as asked). ``start``: a feasible ``(alpha, G)`` from
    :func:`seed`, where the compiled solver starts instead of zero -- unless
    the interior point may solve the problem (:func:`uses_start`): it starts
    from zero then.

    A problem the interior point may solve (:func:`ipm_after`) that SMO has
    not solved from zero in that many iterations is solved by the
    interior-point method of :mod:`.dense_ipm` and finished by the compiled
    SMO from its point, to the same ``eps`` (``n_iter`` counts the SMO
    iterations only). Should the interior point fail, SMO goes on from
    where it stopped, as without it.
    """
    alpha, _, rho_, obj, it, converged = solve_with_gradient(
        K, y, C, eps, tau, shrinking, max_iter, start, compiled_small=compiled_small
    )
    return alpha, rho_, obj, it, converged


def solve_with_gradient(
    K, y, C, eps, tau, shrinking, max_iter, start=None, *, compiled_small=False
):
    """:func:`solve`, returning ``(alpha, G, rho, objective, n_iter,
    converged)``: also the gradient ``G = Q alpha - 1`` the solver kept, from
    which ``alpha^T Q alpha = sum_i alpha_i (G_i + 1)`` (the squared RKHS
    norm of the solution) costs ``O(n)`` instead of a pass over ``K``."""
    n = K.shape[0]
    after = ipm_after(n, C, max_iter)
    if start is not None and after is None:
        return _finish(K, y, C, eps, tau, shrinking, max_iter, *start, done=0)
    if n > defaults.SVM_NUMPY_MAX_N:
        alpha, G, rho_, obj, it, converged = _compiled(
            K,
            y,
            C,
            eps,
            tau,
            shrinking,
            max_iter if after is None else after,
            np.zeros(n),
            -np.ones(n),
        )
        if converged or after is None:
            return alpha, G, rho_, obj, it, converged
        return _after_ipm(K, y, C, eps, tau, shrinking, max_iter, alpha, G, it)
    budget = min(max_iter, max(defaults.SVM_NUMPY_BUDGET, defaults.SVM_NUMPY_WORK // max(n, 1)))
    if after is not None:
        budget = min(budget, after)
    alpha, G, it, converged = np.zeros(n), -np.ones(n), 0, False
    if not (compiled_small or _compiled_loaded()):
        # NumPy for the first iterates (nothing to load); for a problem the
        # interior point may take, only while they cost less than loading
        in_numpy = budget if after is None else min(budget, _tuning.SVM_NUMPY_IPM_BUDGET)
        alpha, G, it, converged = smo_numpy(K, y, C, eps, tau, in_numpy)
    if not converged and it < budget:  # the same iterates, compiled (without shrinking)
        alpha, G, _, _, more, converged = _compiled(K, y, C, eps, tau, False, budget - it, alpha, G)
        it += more
    if converged or it >= max_iter:
        return alpha, G, rho(y, G, alpha, C), objective(alpha, G), it, converged
    if after is not None:
        return _after_ipm(K, y, C, eps, tau, shrinking, max_iter, alpha, G, it)
    return _finish(K, y, C, eps, tau, shrinking, max_iter, alpha, G, done=it)


def _compiled_loaded():
    """Whether this process has the compiled SMO loaded already: then it
    runs the small problems' first iterates too. Both forms follow the same
    iterates bit for bit, so the choice changes the time, never the model."""
    module = sys.modules.get(f"{__name__}.numba_smo")
    return module is not None and bool(module.smo_stoppable.signatures)


def ipm_after(n, C, max_iter):
    """SMO iterations after which a problem of ``n`` variables goes to the
    interior point, or ``None`` when it never does (an infinite box -- the
    squared hinge --, too large a problem, or no room left in ``max_iter``).

    Up to ``SVM_IPM_EAGER_MAX_N`` variables: ``SVM_IPM_AFTER`` iterations,
    when ``max_iter`` exceeds ``SVM_IPM_AFTER``. Up to ``SVM_IPM_MAX_N``:
    the iterations whose cost matches the interior point's (``n^2 /
    SVM_IPM_WORK_DIVISOR``), at most half of ``max_iter`` -- a hard problem
    reaches the interior point well before SMO's iteration limit. The
    count is the same whichever form (NumPy or compiled) ran the iterates,
    so the model does not depend on the form.
    """
    if not (0 < n <= defaults.SVM_IPM_MAX_N and np.isfinite(C)):
        return None
    if n <= defaults.SVM_IPM_EAGER_MAX_N:
        return defaults.SVM_IPM_AFTER if max_iter > defaults.SVM_IPM_AFTER else None
    after = min(max(defaults.SVM_IPM_AFTER, n * n // defaults.SVM_IPM_WORK_DIVISOR), max_iter // 2)
    return after if max_iter > after else None


def uses_start(n, C, max_iter):
    """Whether :func:`solve` starts a problem of ``n`` variables from a
    given ``start``: not when a problem SMO has not solved in its first
    iterations goes to the interior point (:func:`ipm_after`), which solves
    it from zero. A caller builds the start (:func:`seed`, ``O(n^2)``) only
    when it is used."""
    return ipm_after(n, C, max_iter) is None


def _finish(K, y, C, eps, tau, shrinking, max_iter, alpha, G, done):
    """The compiled SMO from the feasible ``(alpha, G)``, reached after
    ``done`` iterations, to ``eps`` or ``max_iter`` iterations in all."""
    alpha, G, rho_, obj, more, converged = _compiled(
        K, y, C, eps, tau, shrinking, max_iter - done, alpha, G
    )
    return alpha, G, rho_, obj, done + more, converged


def _after_ipm(K, y, C, eps, tau, shrinking, max_iter, alpha, G, it):
    """The interior point of :mod:`.dense_ipm`, polished, and the compiled SMO
    from there to ``eps``; SMO from ``(alpha, G)`` (after ``it`` iterations)
    if the interior point fails."""
    try:
        with small_blas(len(y)):  # OpenBLAS's threads cost more than they gain here
            inner, bounds, _ = dense_ipm.interior_point(K, y, C)
            start = dense_ipm.polish(K, y, inner, bounds, C)
    except dense_ipm.IPMFailure:
        start = None
    if start is None:
        return _finish(K, y, C, eps, tau, shrinking, max_iter, alpha, G, done=it)
    return _finish(K, y, C, eps, tau, shrinking, max_iter, *start, done=it)


def seed(K, y, alpha, C):
    """A feasible start ``(alpha0, G0)`` for the dual with box ``[0, C]``
    from ``alpha``, the solution of the same problem for another ``C``.

    The start is ``t alpha``, which keeps ``y^T a = 0`` for every ``t``,
    with the ``t`` that minimises the dual objective
    ``t^2 a^T Q a / 2 - t e^T a`` on the ray within the new box
    (``t <= C / max(alpha)``). For a larger ``C`` this is ``t >= 1`` (at
    the old optimum ``a^T Q a <= e^T a``, the difference being ``C`` times
    the summed margin violations): the variables at the old bound move
    towards the new one and the free ones keep their proportions. The
    gradient ``G0 = Q alpha0 - 1`` is computed anew from ``K`` (``O(n^2)``,
    the cost of ``n`` SMO iterations).
    """
    alpha = np.asarray(alpha, dtype=np.float64)
    top = float(alpha.max()) if alpha.size else 0.0
    if top <= 0.0:
        return np.zeros(len(y)), -np.ones(len(y))
    Qa = y * (K @ (y * alpha))
    q, s = float(alpha @ Qa), float(alpha.sum())
    t = min(s / q, C / top) if q > 0.0 else C / top
    alpha0 = np.minimum(alpha * t, C)
    return alpha0, Qa * t - 1.0


def _compiled(K, y, C, eps, tau, shrinking, max_iter, alpha0, G0):
    """:func:`.numba_smo.smo_stoppable` through :func:`structk._threads.stoppable`:
    a Ctrl-C (or the cancelling of the chunk that runs this) stops the
    solver at its next checkpoint (milliseconds) and raises
    ``KeyboardInterrupt``. Uninterrupted, the result is that of the direct
    call."""
    from .numba_smo import smo_stoppable

    return stoppable(smo_stoppable, K, y, C, eps, tau, shrinking, max_iter, alpha0, G0)
