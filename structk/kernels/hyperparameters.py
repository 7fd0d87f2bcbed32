"""Kernel hyperparameters: the continuous parameters an optimiser may tune.

A kernel declares its own continuous parameters (``Gaussian.sigma``,
``Polynomial.gamma`` and ``coef0``, ``ExpIntersection.scale``, the factor
of ``c * k`` and the value of ``k + c``), each with bounds read from the
constructor argument ``<name>_bounds``: a pair ``(low, high)`` or
``"fixed"``. The algebra (sums, products, ``c * k``, ``k + c``, powers,
``Exp``, ``Normalize``, ``FunctionScaled``) also exposes its parts'
parameters, under their ``get_params`` names (``k1__sigma``,
``kernel__factor``)::

    k = 2.0 * Gaussian(sigma=1.5)
    [h.name for h in k.hyperparameters]   # ['factor', 'kernel__sigma']
    k.theta                               # log([2.0, 1.5]): the free ones
    k.bounds                              # log of their bounds, shape (2, 2)
    k.with_theta(np.log([1.0, 0.5]))      # a new kernel: 1.0 * Gaussian(sigma=0.5)
    K, dK = k.gram_gradient_prepared(k.prepare(X))   # dK: (n, n, 2)

As in scikit-learn's Gaussian-process kernels, ``theta`` is the vector of
the logarithms of the free parameters and ``dK[:, :, i]`` is the Gram's
derivative with respect to ``theta[i]``. A parameter at 0 (the
homogeneous polynomial's ``coef0``) has no logarithm and is fixed.

A sequence parameter (``WeightedDegree.weights``, the walk-length
``weights`` of a truncated ``RandomWalk``) gives one hyperparameter per
entry, ``weights[0]``, ``weights[1]``, ... (:func:`declare_entries`), all
bounded by ``weights_bounds``.

Derivatives are analytic for the vector kernels, ``ExpIntersection``,
``WeightedDegree``'s weights, the truncated ``RandomWalk``'s weights, the
geometric ``RandomWalk``'s ``lam`` and the exponential one's ``beta``
(whose bounds ``fit`` reads off the training graphs) and
the whole algebra (the chain rule through each closure rule). A kernel that
declares a parameter without an analytic derivative gets central finite
differences in log space on its prepared data
(:func:`finite_difference_gradient`): the step is relative to ``theta``,
and the derivative is recomputed with half the step; a disagreement beyond
rounding raises :class:`GradientAccuracyWarning`. Only parameters that do
not change the prepared data may be declared (the data are prepared once
and reused for every ``theta``).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import numbers
import warnings
from typing import NamedTuple

import numpy as np

#: Bounds of a parameter whose ``<name>_bounds`` is not given (as scikit-learn).
DEFAULT_BOUNDS = (1e-5, 1e5)
#: Relative step of the central differences: ``h = FD_STEP * max(1, |theta|)``
#: (eps^(1/3): truncation and rounding errors balance for a smooth function).
FD_STEP = float(np.finfo(np.float64).eps ** (1.0 / 3.0))
#: Largest disagreement allowed between the steps ``h`` and ``h / 2``,
#: relative to the largest value of the Gram and of its derivative.
FD_RTOL = 1e-6


class Hyperparameter(NamedTuple):
    """One continuous parameter of a kernel.

    Attributes
    ----------
    name : str
        Its name as ``get_params`` gives it (``"k1__sigma"`` in a composite).
    value : float
        Its current value.
    bounds : tuple of float
        ``(low, high)``, in the parameter's own units (not log).
    fixed : bool
        Whether optimisers leave it alone (``<name>_bounds="fixed"``, or a
        log-space parameter at 0).
    log : bool
        Whether ``theta`` holds its logarithm (True for every structk kernel).
    """

    name: str
    value: float
    bounds: tuple
    fixed: bool
    log: bool = True


class GradientAccuracyWarning(UserWarning):
    """Finite differences with steps ``h`` and ``h / 2`` disagreed."""


_OWN = object()  # declare's default: read from the kernel


def declare(kernel, name, log=True, *, value=_OWN, bounds=_OWN, owner=None):
    """The :class:`Hyperparameter` ``name`` of ``kernel``, with the bounds
    given by its attribute ``<name>_bounds`` (default :data:`DEFAULT_BOUNDS`).

    ``value`` and ``bounds`` given replace the attributes (bounds a kernel
    derives from data, a learner's own parameter); ``owner`` replaces the
    class name in the errors.

    Raises
    ------
    ValueError
        Bounds that are neither ``"fixed"`` nor an increasing pair (positive
        for a log-space parameter), naming the kernel and the parameter.
    """
    value = float(getattr(kernel, name) if value is _OWN else value)
    raw = getattr(kernel, f"{name}_bounds", DEFAULT_BOUNDS) if bounds is _OWN else bounds
    where = f"{owner or type(kernel).__name__}({name}_bounds={raw!r})"
    if isinstance(raw, str):
        if raw != "fixed":
            raise ValueError(f"{where}: bounds must be a pair (low, high) or 'fixed'")
        return Hyperparameter(name, value, (value, value), True, log)
    try:
        low, high = (float(b) for b in raw)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: bounds must be a pair (low, high) or 'fixed'") from None
    if not (low < high and np.isfinite(low) and np.isfinite(high)) or (log and low <= 0):
        need = "0 < low < high (optimised in log space)" if log else "low < high"
        raise ValueError(f"{where}: bounds must be finite with {need}")
    fixed = log and value <= 0  # no logarithm: the parameter cannot move
    return Hyperparameter(name, value, (low, high), fixed, log)


def declare_entries(kernel, name):
    """One :class:`Hyperparameter` per entry of the sequence parameter
    ``name`` of ``kernel`` (``weights[0]``, ``weights[1]``, ...), all with
    the bounds ``<name>_bounds``; an entry at 0 (no logarithm) is fixed.
    :func:`with_theta` writes them back as one list."""
    first = declare(kernel, name, value=1.0)  # the bounds, checked once
    values = np.asarray(getattr(kernel, name), dtype=np.float64).ravel()
    return [
        first._replace(
            name=f"{name}[{i}]",
            value=float(v),
            bounds=(float(v), float(v)) if first.fixed else first.bounds,
            fixed=bool(first.fixed or v <= 0),
        )
        for i, v in enumerate(values)
    ]


def entry_gradients(kernel, name, values, gram_with):
    """The derivatives ``dK / d log v_i = v_i K_i`` of a kernel linear in the
    entries ``v`` (``values``) of its sequence parameter ``name``, for its
    free entries in order: ``gram_with(unit)`` is the Gram with the weights
    ``e_i`` (the part ``K_i`` that entry ``i`` weighs)."""
    columns = []
    for h in kernel._own_hyperparameters():
        if not h.fixed:
            i = int(h.name[len(name) + 1 : -1])
            unit = np.zeros(values.size)
            unit[i] = 1.0
            columns.append(values[i] * gram_with(unit))
    return columns


def collect(kernel):
    """Every hyperparameter of ``kernel``: its own, then its parts' (for the
    kernels that propagate them) under prefixed names."""
    out = list(kernel._own_hyperparameters())
    for prefix, part in kernel._hyperparameter_parts():
        out += [h._replace(name=f"{prefix}__{h.name}") for h in collect(part)]
    return out


def free(kernel):
    """The hyperparameters an optimiser moves (the entries of ``theta``)."""
    return [h for h in collect(kernel) if not h.fixed]


#: The Grams of kernels without free hyperparameters inside :func:`fixed_grams`.
_FIXED_GRAMS: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "structk_fixed_grams", default=None
)


@contextlib.contextmanager
def fixed_grams():
    """Within the block, the Gram of a kernel (or part of a composite) that
    has no free hyperparameters is computed once per prepared data, however
    many ``theta`` an optimiser tries: ``1.0 * MinMax()`` learning its
    output scale computes the ``MinMax`` Gram once per fit, not once per
    step. The values are those of a fresh computation (each caller gets its
    own copy); the memory is freed when the block ends. Kernels are told
    apart by class and parameters (``==``), data by identity."""
    token = _FIXED_GRAMS.set({})
    try:
        yield
    finally:
        _FIXED_GRAMS.reset(token)


def fixed_gram(kernel, P):
    """``kernel``'s checked Gram of ``P``, a kernel without free
    hyperparameters: from the block's memory inside :func:`fixed_grams`."""
    memo = _FIXED_GRAMS.get()
    if memo is None:
        return kernel._checked_gram(P)
    try:
        key = (kernel, id(P))
        hit = memo.get(key)
    except TypeError:  # a parameter without a hash: computed every time
        return kernel._checked_gram(P)
    if hit is None:
        hit = memo[key] = (kernel._checked_gram(P), P)  # P kept: its id stays its own
    return hit[0].copy()


def theta_of(hyperparameters):
    """``theta`` of free hyperparameters: their logarithms (or values)."""
    return np.array(
        [np.log(h.value) if h.log else h.value for h in hyperparameters], dtype=np.float64
    )


def bounds_of(hyperparameters):
    """Bounds of ``theta``, shape ``(p, 2)``, in the same space."""
    b = np.array([h.bounds for h in hyperparameters], dtype=np.float64).reshape(-1, 2)
    logs = np.array([h.log for h in hyperparameters], dtype=bool)
    b[logs] = np.log(b[logs])
    return b


def with_theta(kernel, theta):
    """A copy of ``kernel`` whose free hyperparameters are ``theta`` (its
    fitted state, if any, kept); ``kernel`` is unchanged."""
    hyper = free(kernel)
    theta = np.asarray(theta, dtype=np.float64).ravel()
    if theta.shape != (len(hyper),):
        raise ValueError(
            f"theta has {theta.size} entries but {kernel!r} has {len(hyper)} free "
            f"hyperparameter(s) {[h.name for h in hyper]}"
        )
    if not np.isfinite(theta).all():
        i = int(np.flatnonzero(~np.isfinite(theta))[0])
        raise ValueError(f"theta[{i}] ({hyper[i].name}) is {theta[i]}: it must be finite")
    new = copy.deepcopy(kernel)
    updates, current = {}, None
    for h, t in zip(hyper, theta):
        value = float(np.exp(t)) if h.log else float(t)
        base, bracket, index = h.name.rstrip("]").rpartition("[")
        if not bracket:  # a scalar parameter
            updates[h.name] = value
            continue
        if base not in updates:  # an entry of a sequence (declare_entries)
            current = current or new.get_params(deep=True)
            updates[base] = [float(v) for v in np.asarray(current[base], dtype=float).ravel()]
        updates[base][int(index)] = value
    new.set_params(**updates)
    return new


def own_gradient(kernel, K, derivatives):
    """``(K, dK)`` for a kernel with analytic derivatives of its own
    parameters: ``derivatives`` maps each declared name to a function
    returning ``dK / dtheta`` (an n x n array), called for the free ones
    only, in declaration order."""
    columns = [derivatives[h.name]() for h in kernel._own_hyperparameters() if not h.fixed]
    return K, stack(K, columns)


def stack(K, columns):
    """The derivative matrices ``columns`` (each n x m, or n x m x p) as one
    ``(n, m, p)`` array."""
    parts = [c[:, :, None] if c.ndim == 2 else c for c in columns]
    if not parts:
        return np.zeros(K.shape + (0,))
    return np.concatenate(parts, axis=2)


def finite_difference_gradient(kernel, P):
    """``(K, dK)`` of ``kernel`` on prepared data ``P`` by central
    differences in ``theta``, checked by halving the step.

    For each free hyperparameter ``theta_i`` the step is
    ``h = FD_STEP * max(1, |theta_i|)``; the derivative
    ``(K(theta + h e_i) - K(theta - h e_i)) / 2h`` is compared with the one
    for ``h / 2``, and a difference above ``FD_RTOL`` times the largest
    value of ``K`` and of the derivative raises
    :class:`GradientAccuracyWarning` naming the parameter (the ``h / 2``
    derivative is then returned).
    """
    K = kernel._checked_gram(P)
    hyper = free(kernel)
    theta = theta_of(hyper)
    dK = np.empty(K.shape + (len(hyper),))
    for i, h_param in enumerate(hyper):
        step = FD_STEP * max(1.0, abs(theta[i]))
        coarse = _central(kernel, P, theta, i, step)
        fine = _central(kernel, P, theta, i, step / 2)
        gap = float(np.max(np.abs(coarse - fine), initial=0.0))
        scale = max(float(np.max(np.abs(K), initial=0.0)), float(np.max(np.abs(fine), initial=0.0)))
        if gap > FD_RTOL * scale:
            warnings.warn(
                f"{kernel!r}: the finite-difference derivative with respect to "
                f"{h_param.name} changes by {gap:.3g} (relative {gap / scale:.3g}) when "
                f"its step is halved from {step:.3g}: the Gram is not smooth there, and "
                "gradients in this parameter are inaccurate; fix it "
                f"({h_param.name.rsplit('__', 1)[-1]}_bounds='fixed') or choose it from "
                "a list",
                GradientAccuracyWarning,
                stacklevel=3,
            )
            coarse = fine
        dK[:, :, i] = coarse
    return K, dK


def _central(kernel, P, theta, i, step):
    up, down = theta.copy(), theta.copy()
    up[i] += step
    down[i] -= step
    K_up = with_theta(kernel, up)._checked_gram(P)
    K_down = with_theta(kernel, down)._checked_gram(P)
    return (K_up - K_down) / (2.0 * step)


# ------------------------------------------------- discrete parameters
def expand_lists(kernel):
    """The kernels a kernel with list-valued numeric parameters stands for.

    ``Spectrum(k=[2, 3, 4])`` (a list of numbers for a parameter whose
    default is a number, the rule ``structk cv`` applies to kernel
    expressions, :func:`structk.cli.spec.kernel_grid`) stands for one
    kernel per value; several lists give every combination, in order.

    Returns
    -------
    list of (dict, Kernel)
        The parameter values of each combination (``{}`` for a kernel with
        no list) and the kernel, a copy of ``kernel`` with those values.
    """
    import inspect
    from itertools import product

    grid = {}

    def walk(k, prefix):
        signature = inspect.signature(type(k).__init__).parameters
        for name in k._get_param_names():
            value = getattr(k, name)
            if hasattr(value, "_get_param_names"):
                walk(value, f"{prefix}{name}__")
                continue
            default = signature[name].default
            if (
                isinstance(value, list)
                and value
                and _is_real(default)
                and all(_is_real(v) for v in value)
            ):
                grid[f"{prefix}{name}"] = list(value)

    walk(kernel, "")
    if not grid:
        return [({}, kernel)]
    out = []
    for combo in product(*grid.values()):
        params = dict(zip(grid, combo))
        out.append((params, copy.deepcopy(kernel).set_params(**params)))
    return out


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)
