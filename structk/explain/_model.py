"""The linear read-out of a fitted kernel learner.

Every dual learner of :mod:`structk.learners` predicts
``f(x) = sum_i c_i k(x, s_i) + b``: the kernel ``kernel_``, the objects
``s_i`` (support vectors or all training objects), the coefficients ``c``
(one row per output: a binary problem, a one-vs-rest machine, a one-vs-one
pair, a regression target) and the intercept ``b``. :func:`readout` reads
them from the fitted attributes, whatever the learner.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Readout:
    """``f_o(x) = sum_i coef[o, i] k(x, objects[i]) + intercept[o]``."""

    kernel: object
    objects: list
    coef: np.ndarray  # (n_outputs, n_objects)
    intercept: np.ndarray  # (n_outputs,)
    output_names: list

    def row(self, output):
        """``(coefficients, intercept)`` of one output, checked."""
        n = self.coef.shape[0]
        if output is None:
            if n != 1:
                raise ValueError(
                    f"the model has {n} outputs ({', '.join(map(str, self.output_names))}); "
                    "choose one with output=INDEX"
                )
            output = 0
        if not (isinstance(output, (int, np.integer)) and 0 <= output < n):
            raise ValueError(f"output must be an integer in 0..{n - 1}, got {output!r}")
        return self.coef[int(output)], float(self.intercept[int(output)])


def readout(model):
    """The :class:`Readout` of a fitted structk learner.

    Raises a ``TypeError`` naming what is missing for models fitted on a
    precomputed Gram matrix (no kernel, no training objects) and for
    learners whose prediction is not a kernel expansion.
    """

    name = type(model).__name__
    _check_explainable(model, name)
    kernel = model.kernel_
    coef = np.asarray(model.dual_coef_, dtype=np.float64)
    if hasattr(model, "support_vectors_"):  # SVM, perceptron: rows are machines
        objects = model.support_vectors_
        coef = np.atleast_2d(coef)
        intercept = np.asarray(model.intercept_, dtype=np.float64).ravel()
    elif hasattr(model, "centerer_"):  # KernelPCA: the centred cross-Gram
        # f_o(x) = sum_i a_io (k(x, x_i) - mean_j k(x, x_j) - r_i + m), r the
        # training Gram's column means, m their mean: a kernel expansion with
        # coefficients a_o - sum(a_o) / n and intercept sum(a_o) m - a_o . r
        objects = model.X_fit_
        rows, mean = model.centerer_.K_fit_rows_, model.centerer_.K_fit_all_
        total = coef.sum(axis=0)
        intercept = total * mean - rows @ coef
        coef = (coef - total / coef.shape[0]).T
    elif hasattr(model, "X_fit_"):
        objects = model.X_fit_
        if hasattr(model, "classes_"):  # logistic: (n_outputs, n_train)
            coef = np.atleast_2d(coef)
        else:  # ridge: (n_train,) or (n_train, n_outputs)
            coef = coef.reshape(coef.shape[0], -1).T
        intercept = np.zeros(coef.shape[0])
    else:
        raise TypeError(f"{name} keeps no training objects; it cannot be explained")
    if objects is None:
        raise TypeError(f"{name} keeps no training objects; it cannot be explained")
    return Readout(
        kernel,
        list(objects),
        np.ascontiguousarray(coef),
        intercept,
        _output_names(model, coef.shape[0]),
    )


def _check_explainable(model, name):
    """A ``TypeError`` (or scikit-learn's ``NotFittedError``) saying why
    ``model`` cannot be read out as a kernel expansion, naming the model."""
    from sklearn.utils.validation import check_is_fitted

    module = type(model).__module__ or ""
    if not module.startswith("structk."):
        raise TypeError(
            f"{name} (from {module.split('.')[0] or 'unknown'}) is not a structk learner: "
            "explain reads a structk model's kernel and training objects; fit "
            "structk.learners.KernelSVM (or KernelRidge, KernelLogisticRegression, ...) "
            "with kernel=<a structk kernel> instead"
        )
    if hasattr(model, "fit") and not any(
        k.endswith("_") and not k.startswith("__") for k in vars(model)
    ):
        check_is_fitted(model)  # NotFittedError naming the model
    solver = getattr(model, "solver_", "dual")
    if solver in ("primal", "nystroem"):
        raise TypeError(
            f"{name} was fitted by solver={solver!r}: it holds weights on "
            f"{'the kernel' if solver == 'primal' else 'Nystroem'} features, not a kernel "
            "expansion f(x) = sum_i c_i k(x, s_i) + b over training objects; refit it "
            "with solver='dual' to explain it"
        )
    if not hasattr(model, "dual_coef_"):
        raise TypeError(
            f"{name} is not a kernel expansion f(x) = sum_i c_i k(x, s_i) + b "
            "(explain needs a fitted KernelSVM, KernelRidge, KernelRidgeCV, "
            "KernelLogisticRegression, KernelPerceptron or KernelPCA)"
        )
    if getattr(model, "kernel_", None) is None or isinstance(getattr(model, "kernel", None), str):
        raise TypeError(
            f"{name} was fitted on a precomputed Gram matrix: it holds neither "
            "its kernel nor its training objects, so there is nothing to explain; "
            "fit it with kernel=<a structk kernel> on the objects"
        )


def _output_names(model, n):
    if hasattr(model, "centerer_"):
        return [f"component {o + 1}" for o in range(n)]
    classes = getattr(model, "classes_", None)
    if classes is None:
        return [f"output {o}" for o in range(n)]
    classes = list(classes)
    if n == 1:
        return [f"{classes[-1]} vs {classes[0]}" if len(classes) == 2 else "output 0"]
    if n == len(classes) and getattr(model, "multi_class", "ovr") == "ovr":
        return [str(c) for c in classes]
    from itertools import combinations

    pairs = list(combinations(classes, 2))
    if n == len(pairs):
        return [f"{a} vs {b}" for a, b in pairs]
    return [f"output {o}" for o in range(n)]
