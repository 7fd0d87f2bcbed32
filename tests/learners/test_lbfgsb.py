"""The GPs' L-BFGS-B (``learners/_lbfgsb.py``: SciPy's compiled routine
driven without importing ``scipy.optimize``) against
``scipy.optimize.minimize(method="L-BFGS-B", jac=True)`` itself: the same
points asked for in the same order, the same result to the last bit."""

import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import minimize as scipy_minimize

from structk.learners import _lbfgsb
from structk.learners._lbfgsb import minimize


def rosenbrock(x):
    f = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    g = np.zeros_like(x)
    g[:-1] = -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2.0 * (1 - x[:-1])
    g[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
    return f, g


def quadratic_with_hole(x):
    """A bowl that is undefined (inf) on part of the plane, as a marginal
    likelihood whose factorisation fails."""
    if x[0] > 1.5:
        return np.inf, np.zeros_like(x)
    return float(np.sum((x - [2.0, -1.0]) ** 2)), 2.0 * (x - [2.0, -1.0])


def wrong_gradient(x):
    """The gradient's sign flipped: the line search fails (ABNORMAL)."""
    return float(x @ x), -2.0 * x


INF = np.inf
PROBLEMS = {
    "rosenbrock, both bounds, one active": (
        rosenbrock,
        [-1.2, 1.0, 0.5],
        [[-2, 0.8], [-2, 2], [-2, 2]],
    ),
    "rosenbrock, no bounds": (rosenbrock, [-1.2, 1.0], [[-INF, INF], [-INF, INF]]),
    "rosenbrock, one-sided bounds": (
        rosenbrock,
        [3.0, 3.0, 3.0],
        [[1.1, INF], [-INF, 0.5], [-INF, INF]],
    ),
    "start outside the bounds (clipped)": (rosenbrock, [5.0, -5.0], [[-1, 1], [-1, 1]]),
    "infinite values on part of the space": (quadratic_with_hole, [0.0, 0.0], [[-5, 5], [-5, 5]]),
    "line search fails": (wrong_gradient, [1.0, -2.0], [[-5, 5], [-5, 5]]),
    "one variable": (lambda x: (float((x[0] - 0.3) ** 4), 4 * (x - 0.3) ** 3), [2.0], [[-3, 3]]),
}


def recorded(fun):
    points = []

    def wrapped(x):
        points.append(np.array(x))
        return fun(x)

    return wrapped, points


@pytest.mark.parametrize("name", PROBLEMS)
def test_same_points_and_result_as_scipy(name):
    fun, x0, bounds = PROBLEMS[name]
    x0, bounds = np.array(x0, dtype=float), np.array(bounds, dtype=float)
    ours, our_points = recorded(fun)
    theirs, their_points = recorded(fun)
    x, f, success, message = minimize(ours, x0, bounds)
    assert _lbfgsb._SETULB, "SciPy's compiled routine did not load: the test checks nothing"
    ref = scipy_minimize(theirs, x0, method="L-BFGS-B", jac=True, bounds=bounds)
    assert len(our_points) == len(their_points)
    for a, b in zip(our_points, their_points):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(x, ref.x)
    assert f == ref.fun
    assert success == ref.success
    assert message == ref.message or (not success and message.startswith("ABNORMAL"))


def test_equal_bounds_go_to_scipy():
    """A variable fixed by equal bounds: SciPy's minimize handles it (its
    own rules), so the result is SciPy's."""
    bounds = np.array([[0.5, 0.5], [-2.0, 2.0]])
    x, f, success, _ = minimize(rosenbrock, np.array([0.5, 1.5]), bounds)
    ref = scipy_minimize(rosenbrock, [0.5, 1.5], method="L-BFGS-B", jac=True, bounds=bounds)
    np.testing.assert_array_equal(x, ref.x)
    assert f == ref.fun and success == ref.success


def test_fallback_when_the_routine_is_unavailable(monkeypatch):
    """Another SciPy's interface (or a module that does not load):
    ``scipy.optimize.minimize``, the same result."""
    monkeypatch.setattr(_lbfgsb, "_SETULB", False)
    assert_scipy_result("rosenbrock, both bounds, one active")


def test_fallback_when_the_routine_refuses_its_arguments(monkeypatch):
    def other_interface(*args):
        raise TypeError("setulb() takes 18 positional arguments")

    monkeypatch.setattr(_lbfgsb, "_SETULB", other_interface)
    assert_scipy_result("rosenbrock, no bounds")


def assert_scipy_result(name):
    fun, x0, bounds = PROBLEMS[name]
    x, f, success, _ = minimize(fun, np.array(x0, float), np.array(bounds, float))
    ref = scipy_minimize(fun, x0, method="L-BFGS-B", jac=True, bounds=bounds)
    np.testing.assert_array_equal(x, ref.x)
    assert f == ref.fun and success


def test_gp_fit_does_not_import_scipy_optimize():
    """The point of the module: a GP fit by L-BFGS-B leaves scipy.optimize
    unimported (its import is ~0.45 s of CPU), and gives the same fit as
    with scipy.optimize's own L-BFGS-B."""
    code = (
        "import sys, numpy as np\n"
        "from structk.kernels import MinMax\n"
        "from structk.learners import GaussianProcessRegressor\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.poisson(0.7, size=(40, 12)).astype(float); X[:, 0] += 1\n"
        "y = X[:, :3] @ [1.0, -0.5, 0.3] + 0.3 * rng.normal(size=40)\n"
        "gp = GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True).fit(X, y)\n"
        "assert 'scipy.optimize' not in sys.modules, 'scipy.optimize imported'\n"
        "print(repr(float(gp.kernel_.factor)), repr(float(gp.noise_)))\n"
        # scipy.optimize imported afterwards loads and binds its module as usual
        "import scipy.optimize\n"
        "r = scipy.optimize.minimize(lambda x: (float(x @ x), 2 * x), [1.0, 2.0], jac=True,\n"
        "                            method='L-BFGS-B', bounds=[(0.5, 5), (-5, 5)])\n"
        "assert r.success and abs(r.x - [0.5, 0.0]).max() < 1e-8, r\n"
        "assert scipy.optimize._lbfgsb.setulb is not None\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    factor, noise = (float(v) for v in out.stdout.split())

    from structk.kernels import MinMax
    from structk.learners import GaussianProcessRegressor

    rng = np.random.default_rng(0)
    X = rng.poisson(0.7, size=(40, 12)).astype(float)
    X[:, 0] += 1
    y = X[:, :3] @ [1.0, -0.5, 0.3] + 0.3 * rng.normal(size=40)

    def scipy_optimizer(objective, theta, bounds):
        r = scipy_minimize(objective, theta, method="L-BFGS-B", jac=True, bounds=bounds)
        return r.x, r.fun

    ref = GaussianProcessRegressor(
        1.0 * MinMax(), noise=0.1, normalize_y=True, optimizer=scipy_optimizer
    ).fit(X, y)
    assert factor == float(ref.kernel_.factor)
    assert noise == float(ref.noise_)
