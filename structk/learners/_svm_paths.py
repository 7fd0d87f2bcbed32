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

from ..feature_space import rkhs_norm
from ._base import owns_gram, take
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
        K, objects = svm._train_gram(X, len(codes))
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
        coefs = np.zeros((len(machines), n))
        for t, ((rows, signs), sol) in enumerate(zip(machines, solutions)):
            coefs[t, slice(None) if rows is None else rows] = sol.alpha * signs
        support = np.flatnonzero((coefs != 0).any(axis=0))
        svm.solver_ = self.name
        svm.support_ = support
        svm.support_vectors_ = None if objects is None else take(objects, support)
        svm._keep_training(objects, support)
        svm.dual_coef_ = coefs[:, support]
        # on the whole Gram (zero coefficients off the support vectors): no
        # copy of the support vectors' block; K's rows are in ``order``
        svm.rkhs_norm_ = rkhs_norm(coefs[:, order], K)
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
