"""L-BFGS-B for the Gaussian processes' marginal likelihood, without
importing :mod:`scipy.optimize`.

Importing ``scipy.optimize`` imports the whole package (linear
programming, ``scipy.spatial``, ``scipy.special``, ``scipy.fft``, ...):
about 0.45 s of CPU at low load, a fifth of structk's whole Photoswitch
protocol (``benchmarks/bench_gauche.py``), for one routine. SciPy's
L-BFGS-B (Byrd, Lu, Nocedal & Zhu 1995; Zhu, Byrd, Lu & Nocedal 1997) is a
reverse-communication routine, ``setulb``, in the compiled module
``scipy.optimize._lbfgsb``: it asks for the objective and gradient at a
point, or reports a new iterate, and the caller loops. :func:`minimize`
loads that compiled module alone (from SciPy's own folder, without
running ``scipy/optimize/__init__.py``) and drives ``setulb`` exactly as
``scipy.optimize.minimize(fun, x0, method="L-BFGS-B", jac=True,
bounds=bounds)`` does with its default options (10 corrections,
``ftol = 2.22e-9``, ``gtol = 1e-5``, 15000 iterations and evaluations, 20
line-search steps): the same points asked for, in the same order, so the
same result to the last bit (``tests/learners/test_lbfgsb.py``).

``setulb`` is private to SciPy. Its arguments are those of SciPy 1.15 and
later (where the routine became C); with an older or unforeseen SciPy, a
compiled module that does not load, or a call that the routine refuses,
:func:`minimize` calls ``scipy.optimize.minimize`` itself. So do the cases
SciPy treats apart before the routine (every variable fixed by its bounds,
a lower bound above an upper one).
"""

from __future__ import annotations

import numpy as np

#: ``setulb`` of SciPy's compiled module once loaded; False when it cannot be
#: used (then scipy.optimize.minimize is); None before the first call.
_SETULB = None

#: scipy.optimize.minimize's defaults for method="L-BFGS-B".
_CORRECTIONS, _FTOL, _GTOL, _MAX_LS = 10, 2.2204460492503131e-09, 1e-5, 20
_MAX_ITER = _MAX_FUN = 15000

#: setulb's task codes (its ``task[0]``): evaluate f and g, a new iterate,
#: converged.
_FG, _NEW_X, _CONVERGED, _STOP = 3, 1, 4, 5


def minimize(fun, x0, bounds):
    """Minimise ``fun`` (returning the value and the gradient) from ``x0``
    within ``bounds`` (an ``(n, 2)`` array, infinite for no bound) by
    L-BFGS-B.

    Returns
    -------
    x : ndarray
        The minimiser found.
    fun : float
        Its value.
    success : bool
        Whether the routine converged.
    message : str
        The routine's reason for stopping.
    """
    x0 = np.atleast_1d(np.asarray(x0, dtype=np.float64)).ravel()
    bounds = np.asarray(bounds, dtype=np.float64).reshape(-1, 2)
    low, high = bounds[:, 0], bounds[:, 1]
    setulb = _setulb()
    ordinary = len(bounds) == x0.size and bool((low < high).all())
    if setulb and ordinary:
        try:
            return _drive(setulb, fun, x0, low, high)
        except _Refused:
            pass
    return _scipy_minimize(fun, x0, bounds)


class _Refused(Exception):
    """setulb did not accept its arguments (another SciPy's interface)."""


def _drive(setulb, fun, x0, low, high):
    """scipy.optimize._lbfgsb_py._minimize_lbfgsb's loop with its defaults."""
    n, m = x0.size, _CORRECTIONS
    x = np.clip(x0, low, high)
    # the kind of each bound: 0 none, 1 lower only, 2 both, 3 upper only
    has_low, has_high = np.isfinite(low), np.isfinite(high)
    nbd = np.where(has_low, np.where(has_high, 2, 1), np.where(has_high, 3, 0)).astype(np.int32)
    lower = np.where(has_low, low, 0.0)
    upper = np.where(has_high, high, 0.0)
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m, np.float64)
    iwa = np.zeros(3 * n, np.int32)
    task, ln_task = np.zeros(2, np.int32), np.zeros(2, np.int32)
    lsave, isave, dsave = np.zeros(4, np.int32), np.zeros(44, np.int32), np.zeros(29, np.float64)
    factr = _FTOL / np.finfo(float).eps

    # SciPy evaluates at the clipped start first, then only at points that
    # differ from the last one evaluated; its first call (task START) gets
    # zeros
    at, (value, grad) = x.copy(), _evaluate(fun, x)
    f, g = np.array(0.0), np.zeros(n, np.float64)
    evaluations, iterations, first = 1, 0, True
    while True:
        g = g.astype(np.float64)
        try:
            setulb(
                m,
                x,
                lower,
                upper,
                nbd,
                f,
                g,
                factr,
                _GTOL,
                wa,
                iwa,
                task,
                lsave,
                isave,
                dsave,
                _MAX_LS,
                ln_task,
            )
        except TypeError as error:
            if first:
                raise _Refused from error
            raise
        first = False
        if task[0] == _FG:
            if not np.array_equal(x, at):
                at, (value, grad) = x.copy(), _evaluate(fun, x)
                evaluations += 1
            f, g = value, grad
        elif task[0] == _NEW_X:
            iterations += 1
            if iterations >= _MAX_ITER:
                task[:] = _STOP, 504
            elif evaluations > _MAX_FUN:
                task[:] = _STOP, 502
        else:
            break
    return x, float(f), bool(task[0] == _CONVERGED), _message(task)


def _evaluate(fun, x):
    """``fun``'s value (a float) and gradient (a float vector) at a copy of ``x``."""
    value, grad = fun(x.copy())
    if not np.isscalar(value):
        value = np.asarray(value).item()
    return value, np.atleast_1d(np.asarray(grad))


def _message(task):
    """The routine's stopping reason, in SciPy's words for the usual ones."""
    words = {
        401: "CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL",
        402: "CONVERGENCE: RELATIVE REDUCTION OF F <= FACTR*EPSMCH",
        502: "STOP: TOTAL NO. OF F,G EVALUATIONS EXCEEDS LIMIT",
        504: "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT",
        601: "WARNING: ROUNDING ERRORS PREVENT PROGRESS",
    }
    code = int(task[1])
    if code in words:
        return words[code]
    if task[0] == 8:
        return "ABNORMAL: the line search failed"
    return f"L-BFGS-B stopped with task code ({int(task[0])}, {code})"


def _scipy_minimize(fun, x0, bounds):
    from scipy.optimize import minimize as scipy_minimize

    result = scipy_minimize(fun, x0, method="L-BFGS-B", jac=True, bounds=bounds)
    return result.x, float(result.fun), bool(result.success), str(result.message)


def _setulb():
    global _SETULB
    if _SETULB is None:
        _SETULB = _load_setulb() or False
    return _SETULB


def _load_setulb():
    """SciPy's ``setulb`` from its compiled module, without its package's
    ``__init__``; None when this SciPy's interface is not the known one."""
    import sys

    import scipy

    name = "scipy.optimize._lbfgsb"
    loaded = sys.modules.get(name)
    try:
        version = tuple(int(part) for part in scipy.__version__.split(".")[:2])
    except ValueError:
        return None
    if not (1, 15) <= version < (2, 0):
        return None
    if loaded is not None:
        return getattr(loaded, "setulb", None)
    import importlib.machinery
    import importlib.util
    import os

    folder = os.path.join(os.path.dirname(scipy.__file__), "optimize")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, "_lbfgsb" + suffix)
        if os.path.exists(path):
            break
    else:
        return None
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - any failure: SciPy's own route instead
        return None
    finally:
        # loading registers the module without its package; a later import
        # of scipy.optimize must load and bind it as usual
        sys.modules.pop(name, None)
    return getattr(module, "setulb", None)
