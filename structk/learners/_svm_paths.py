"""The three ways :class:`~structk.learners.KernelSVM` fits, one object each.

=============  ==============================================================
path           what it solves
=============  ==============================================================
``dual``       the dual on the training Gram: SMO with its interior-point
               finish (:mod:`structk.learners._smo`), a machine per binary
               problem (:mod:`structk.learners._smo.machines`)
``primal``     the primal on the kernel's explicit features
               (:func:`structk.learners.primal.fit_svm`)
``nystroem``   the same primal on Nyström features of any kernel
=============  ==============================================================

Which path a fit takes is decided in one place,
:func:`structk.learners.primal.resolve_solver` (a table). Each path's
``fit`` sets the fitted attributes of its model and returns how many
machines stopped at their iteration limit (the estimator warns about them
in the caller's thread, pointing at the caller's line).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._base import owns_gram, take
from ._psd import solution_block_psd
from ._smo.machines import SMOOptions, problems, solve_machines
from .primal import fit_svm


@dataclass(frozen=True)
class FitOptions:
    """A fit's validated parameters that every path reads."""

    C: float
    tol: float
    max_iter: int  # -1: the path's own default
    compiled_small: bool  # small SMO machines compiled from the start
    rng: Any  # numpy RandomState (Platt's folds, Nystroem's landmarks)


class DualPath:
    """SMO on the training Gram (a kernel's, or a precomputed one)."""

    name = "dual"

    @staticmethod
    def loss(loss):
        """The loss a fit with ``KernelSVM(loss=loss)`` solves on this path."""
        return "hinge" if loss == "auto" else loss

    def fit(self, svm, X, codes, n_classes, options, init=None):
        K, objects, certify = svm._train_gram(X, len(codes), solution_checked=True)
        n = K.shape[0]
        max_iter = options.max_iter if options.max_iter != -1 else max(10_000_000, 100 * n)
        machines = problems(codes, n_classes, svm.multi_class)
        owned = owns_gram(K, X)
        C, diagonal = options.C, None
        if svm.loss_ == "squared_hinge":  # the hinge dual with K + I/(2C), no upper bound
            if not owned:
                K, owned = K.copy(), True  # the caller's Gram is never written
            diagonal = np.diag(K).copy()  # put back exactly afterwards
            K.flat[:: n + 1] += 0.5 / C
            C = np.inf
        smo = SMOOptions(
            C=C,
            tol=options.tol,
            shrinking=bool(svm.shrinking),
            max_iter=max_iter,
            compiled_small=options.compiled_small,
        )
        solutions, platt, order = solve_machines(
            K,
            machines,
            smo,
            owned=owned,
            starts=_starts(svm, init, n),
            probability=svm.probability,
            rng=options.rng,
        )
        if diagonal is not None:
            np.fill_diagonal(K, diagonal[order])
        if certify:
            _certify_free_blocks(K, machines, solutions, C, order)
        coefs = np.zeros((len(machines), n))
        for t, ((rows, signs), sol) in enumerate(zip(machines, solutions)):
            coefs[t, slice(None) if rows is None else rows] = sol.alpha * signs
        support = np.flatnonzero((coefs != 0).any(axis=0))
        svm.solver_ = self.name
        svm.support_ = support
        svm.support_vectors_ = None if objects is None else take(objects, support)
        svm._keep_training(objects, support)
        svm.dual_coef_ = coefs[:, support]
        # a^T K a = alpha^T Q alpha from each solver's gradient (no pass over
        # K); the squared hinge solved with K + I/(2C): less |alpha|^2/(2C)
        ridge = 0.0 if diagonal is None else 0.5 / options.C
        quadratic = np.array([sol.quadratic - ridge * (sol.alpha @ sol.alpha) for sol in solutions])
        svm.rkhs_norm_ = np.sqrt(np.maximum(quadratic, 0.0))
        svm.intercept_ = -np.array([sol.rho for sol in solutions])
        svm.n_support_ = np.bincount(codes[support], minlength=n_classes)
        svm.dual_objective_ = np.array([sol.objective for sol in solutions])
        svm.n_iter_ = np.array([sol.n_iter for sol in solutions])
        if platt:
            svm.probA_, svm.probB_ = (np.array(v) for v in zip(*platt))
        else:
            svm.probA_ = svm.probB_ = np.empty(0)
        return sum(not sol.converged for sol in solutions), max_iter


class FeaturePath:
    """LIBLINEAR-style machines on feature rows: the kernel's own
    (``primal``) or Nyström features (``nystroem``)."""

    def __init__(self, name):
        self.name = name

    @staticmethod
    def loss(loss):
        """The loss a fit with ``KernelSVM(loss=loss)`` solves on this path:
        ``"auto"`` is the squared hinge, solved exactly (the hinge's
        coordinate descent is the slow one here)."""
        return "squared_hinge" if loss == "auto" else loss

    def fit(self, svm, X, codes, n_classes, options, init=None):
        return fit_svm(svm, X, codes, n_classes, self.name, options)


PATHS = {"dual": DualPath(), "primal": FeaturePath("primal"), "nystroem": FeaturePath("nystroem")}


def _certify_free_blocks(K, machines, solutions, C, order):
    """The PSD certificate of a given Gram too large to factorise
    (:func:`structk.learners._psd.check_psd_policy` deferred it): each
    machine's block of free support vectors (``0 < alpha < C``; every support
    vector for the squared hinge, ``C = inf``) must be PSD: the solution's
    second-order condition (SMO stops on first derivatives; with a
    negative direction in that block its point may be a saddle of the
    dual). ``K``'s rows are in ``order`` (an owned Gram permuted in place)."""
    where = np.arange(K.shape[0])
    if not isinstance(order, slice):
        where[order] = np.arange(K.shape[0])  # object -> its row in K
    for t, ((rows, _), sol) in enumerate(zip(machines, solutions)):
        free = np.flatnonzero((sol.alpha > 0.0) & (sol.alpha < C))
        objects = free if rows is None else rows[free]
        machine = "" if len(machines) == 1 else f" of machine {t}"
        listed = ", ".join(str(i) for i in objects[:8]) + (", ..." if len(objects) > 8 else "")
        solution_block_psd(
            K,
            where[objects],
            objects,
            f"the block of the {len(free)} free support vectors (0 < alpha < C){machine}: "
            f"objects {listed}",
        )


def _starts(svm, init, n):
    """Each machine's ``|alpha|`` over all ``n`` training objects in the
    fitted SMO model ``init`` (``None`` when it cannot seed this fit)."""
    from .svm import KernelSVM

    if (
        init is None
        or svm.probability
        or svm.loss_ != "hinge"
        or not isinstance(init, KernelSVM)
        or getattr(init, "solver_", None) != "dual"
        or getattr(init, "loss_", None) != "hinge"
        or init.multi_class != svm.multi_class
        or init.n_train_ != n
        or not np.array_equal(init.classes_, svm.classes_)
    ):
        return None
    coefs = np.zeros((init.dual_coef_.shape[0], n))
    coefs[:, init.support_] = np.abs(init.dual_coef_)
    return coefs
