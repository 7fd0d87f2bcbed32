"""Kernels compare by class and parameters, as scikit-learn's Gaussian-process
kernels do (``RBF(1.0) == RBF(1.0)``), and hash consistently with ``==``."""

import copy
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.gaussian_process.kernels import RBF, DotProduct

from structk.kernels import (
    Constant,
    Exp,
    FunctionKernel,
    FunctionScaled,
    Gaussian,
    Intersection,
    Linear,
    LocalAlignment,
    Mismatch,
    Normalize,
    Polynomial,
    RandomWalk,
    ShortestPath,
    Spectrum,
    WeisfeilerLehman,
)


def _len(s):
    return 1.0 + len(s)


def _makers():
    """Functions making equal but distinct kernels, each call a new object."""
    return [
        lambda: Gaussian(),
        lambda: Gaussian(sigma=2.5),
        lambda: Linear(),
        lambda: Spectrum(k=3, alphabet="ACGT"),
        lambda: Mismatch(k=4, m=1),
        lambda: Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2.0)),
        lambda: Exp(Linear()) * Intersection() ** 2,
        lambda: FunctionScaled(Spectrum(k=2), _len),
        lambda: RandomWalk(lam=0.01, weights=np.array([1.0, 0.5, 0.25])),
        lambda: ShortestPath() + WeisfeilerLehman(h=2),
        lambda: LocalAlignment(matrix=("AB", np.array([[1.0, -1.0], [-1.0, 1.0]]))),
        lambda: Constant(2.0),
    ]


MAKERS = _makers()


def test_equal_like_scikit_learns_gp_kernels():
    """The behaviour of sklearn's kernels is the reference."""
    assert RBF(1.0) == RBF(1.0) and RBF(1.0) != RBF(2.0)
    assert RBF(1.0) + DotProduct() == RBF(1.0) + DotProduct()
    assert Gaussian() == Gaussian()
    assert Gaussian(sigma=1) != Gaussian(sigma=2)
    assert Gaussian(sigma=1) == Gaussian(sigma=1.0) == Gaussian(sigma=np.float64(1.0))
    assert Gaussian() + Linear() == Gaussian() + Linear()
    assert Gaussian() + Linear() != Linear() + Gaussian()  # structure, not value


@pytest.mark.parametrize("make", MAKERS, ids=range(len(MAKERS)))
def test_equal_kernels_hash_equal(make):
    a, b = make(), make()
    assert a is not b and a == b and (a != b) is False
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    for other in (clone(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert other == a and hash(other) == hash(a)


@pytest.mark.parametrize("make", MAKERS, ids=range(len(MAKERS)))
def test_different_kernels_differ(make):
    a = make()
    others = [m() for m in MAKERS if m is not make]
    assert all(a != o for o in others)
    assert len({a, *others}) == len(MAKERS)  # no two makers equal


def test_nested_parameters_compare_structurally():
    a = Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2.0))
    b = Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2.0))
    b.set_params(kernel__k2__kernel__sigma=2.5)
    assert a != b
    b.set_params(kernel__k2__kernel__sigma=2.0)
    assert a == b and hash(a) == hash(b)
    assert Normalize(Gaussian()) != Exp(Gaussian())  # another class, same parameters


def test_arrays_compare_by_value():
    w = np.array([1.0, 0.5, 0.25])
    assert RandomWalk(weights=w) == RandomWalk(weights=w.copy())
    assert RandomWalk(weights=w) != RandomWalk(weights=w[:2])
    assert RandomWalk(weights=w) != RandomWalk(weights=w * 2)
    assert RandomWalk(weights=w) != RandomWalk(weights=list(w))  # a list is not an array
    ints = RandomWalk(weights=np.array([1, 0, 2]))
    floats = RandomWalk(weights=np.array([1.0, -0.0, 2.0]))
    assert ints == floats and hash(ints) == hash(floats)
    nan = RandomWalk(weights=np.array([np.nan, 1.0]))
    assert nan == RandomWalk(weights=np.array([np.nan, 1.0]))
    assert hash(nan) == hash(RandomWalk(weights=np.array([np.nan, 1.0])))


def test_nan_parameters_equal_themselves():
    assert Gaussian(sigma=float("nan")) == Gaussian(sigma=float("nan"))
    assert hash(Gaussian(sigma=float("nan"))) == hash(Gaussian(sigma=np.nan))


def test_functions_compare_by_their_own_equality():
    def f(x, y):
        return 1.0

    def g(x, y):
        return 1.0

    assert FunctionKernel(f) == FunctionKernel(f) and hash(FunctionKernel(f)) == hash(
        FunctionKernel(f)
    )
    assert FunctionKernel(f) != FunctionKernel(g)


def test_fitted_state_is_not_compared():
    import networkx as nx

    graphs = [nx.path_graph(3), nx.cycle_graph(4)]
    for g in graphs:
        nx.set_node_attributes(g, 0, "label")
    fitted = RandomWalk(lam="auto").fit(graphs)
    assert fitted == RandomWalk(lam="auto") and hash(fitted) == hash(RandomWalk(lam="auto"))


def test_a_kernel_is_not_equal_to_other_objects():
    k = Gaussian()
    assert k != "precomputed" and k != 1.0 and k != RBF(1.0) and k is not None
    assert (k == "precomputed") is False


def test_equality_works_as_dict_keys():
    grams = {Spectrum(k=3): "k3", Normalize(Spectrum(k=3)): "n3"}
    assert grams[Spectrum(k=3)] == "k3" and grams[Normalize(Spectrum(k=3))] == "n3"


@pytest.mark.parametrize(
    "make",
    [m for i, m in enumerate(MAKERS) if i not in (7,)],
    ids=[i for i in range(len(MAKERS)) if i not in (7,)],
)
def test_a_kernel_saved_and_loaded_is_equal(make, tmp_path):
    """A model file rebuilds the kernel from its parameters: equal, same hash
    (FunctionScaled of a local function cannot be saved: a file holds no code)."""
    import structk

    k = make()
    path = tmp_path / "k.structk"
    structk.save(k, path)
    loaded = structk.load(path)
    assert loaded is not k and loaded == k and hash(loaded) == hash(k)
