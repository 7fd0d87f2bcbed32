"""Part: a kernel on one part of each object, and sums of parts (multiple
kernel learning) -- against the brute-force definition on tiny inputs and
finite differences."""

import warnings

import networkx as nx
import numpy as np
import pytest

from structk.kernels import Gaussian, Linear, MinMax, Normalize, Part, Precomputed, WeisfeilerLehman
from structk.learners import GaussianProcessRegressor

RNG = np.random.default_rng(3)
COUNTS = [{"C": 2, "O": 1}, {"C": 3, "O": 1}, {"N": 1}, {"C": 1, "N": 2, "O": 1}, {}]
VECS = RNG.normal(size=(5, 2))


def _graph(n, labels):
    g = nx.path_graph(n)
    nx.set_node_attributes(g, dict(enumerate(labels)), "label")
    return g


GRAPHS_A = [_graph(3, "CCO"), _graph(2, "CN"), _graph(4, "CCCC"), _graph(1, "O"), _graph(3, "NCN")]
GRAPHS_B = [_graph(2, "OO"), _graph(3, "CNC"), _graph(1, "C"), _graph(4, "CCOC"), _graph(2, "CC")]
OBJECTS = [
    {"counts": c, "v": v, "a": a, "b": b} for c, v, a, b in zip(COUNTS, VECS, GRAPHS_A, GRAPHS_B)
]


def _minmax(x, y):
    """sum min / sum max of two multisets, the definition (two empty ones: 1)."""
    keys = set(x) | set(y)
    top = sum(max(x.get(t, 0), y.get(t, 0)) for t in keys)
    return sum(min(x.get(t, 0), y.get(t, 0)) for t in keys) / top if top else 1.0


def _gauss(x, y, sigma):
    return np.exp(-np.sum((x - y) ** 2) / (2 * sigma**2))


def _mkl(X, Y, c1, c2, sigma):
    return np.array(
        [
            [c1 * _minmax(x["counts"], y["counts"]) + c2 * _gauss(x["v"], y["v"], sigma) for y in Y]
            for x in X
        ]
    )


def test_part_is_the_inner_kernel_on_the_parts():
    k = Part(MinMax(), "counts")
    K = k(OBJECTS)
    expected = np.array([[_minmax(x, y) for y in COUNTS] for x in COUNTS])
    np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(k(OBJECTS[:2], OBJECTS[2:]), expected[:2, 2:], rtol=1e-12)
    np.testing.assert_allclose(k.diag(OBJECTS), np.diag(expected), rtol=1e-12)


def test_tuple_objects_and_positions():
    tuples = [(c, v) for c, v in zip(COUNTS, VECS)]
    K = (Part(MinMax(), 0) + Part(Gaussian(sigma=0.7), 1))(tuples)
    np.testing.assert_allclose(K, _mkl(OBJECTS, OBJECTS, 1.0, 1.0, 0.7), rtol=1e-12)


def test_weighted_sum_of_parts_against_brute_force():
    k = 0.3 * Part(MinMax(), "counts") + 2.0 * Part(Gaussian(sigma=1.3), "v")
    np.testing.assert_allclose(k(OBJECTS), _mkl(OBJECTS, OBJECTS, 0.3, 2.0, 1.3), rtol=1e-12)
    np.testing.assert_allclose(
        k(OBJECTS[:3], OBJECTS[1:]), _mkl(OBJECTS[:3], OBJECTS[1:], 0.3, 2.0, 1.3), rtol=1e-12
    )


def test_prepared_seam_take_and_features():
    k = Part(MinMax(), "counts")
    P = k.prepare(OBJECTS)
    K = k.gram_prepared(P)
    np.testing.assert_allclose(
        k.gram_prepared(k.take(P, [4, 1, 2])), K[np.ix_([4, 1, 2], [4, 1, 2])]
    )
    np.testing.assert_allclose(k.cross_prepared(k.take(P, slice(0, 2)), P), K[:2])
    assert not k.has_features  # as MinMax
    lin = Part(Linear(), "v")
    assert lin.has_features
    np.testing.assert_allclose(lin.features(OBJECTS), Linear().features(VECS))
    np.testing.assert_allclose(lin(OBJECTS), VECS @ VECS.T, rtol=1e-12)


def test_graph_parts_with_different_keys_do_not_share_their_reading():
    # WL kernels of one labelling share a parsed encoding inside a sum; parts
    # under different keys hold different graphs and must not
    wl = Normalize(WeisfeilerLehman(h=2))
    K = (Part(wl, "a") + Part(wl, "b"))(OBJECTS)
    np.testing.assert_allclose(K, wl(GRAPHS_A) + wl(GRAPHS_B), rtol=1e-12)
    same = (Part(wl, "a") + Part(WeisfeilerLehman(h=1), "a"))(OBJECTS)
    np.testing.assert_allclose(same, wl(GRAPHS_A) + WeisfeilerLehman(h=1)(GRAPHS_A), rtol=1e-12)


def test_hyperparameters_and_gradient_against_finite_differences():
    k = 0.3 * Part(MinMax(), "counts") + 2.0 * Part(Gaussian(sigma=1.3), "v")
    names = [h.name for h in k.hyperparameters]
    assert names == ["k1__factor", "k2__factor", "k2__kernel__kernel__sigma"]
    P = k.prepare(OBJECTS)
    K, dK = k.gram_gradient_prepared(P)
    np.testing.assert_allclose(K, _mkl(OBJECTS, OBJECTS, 0.3, 2.0, 1.3), rtol=1e-12)
    theta = k.theta
    eps = 1e-6
    for j in range(len(theta)):
        up, down = theta.copy(), theta.copy()
        up[j] += eps
        down[j] -= eps
        c1u, c2u, su = np.exp(up)
        c1d, c2d, sd = np.exp(down)
        fd = (_mkl(OBJECTS, OBJECTS, c1u, c2u, su) - _mkl(OBJECTS, OBJECTS, c1d, c2d, sd)) / (
            2 * eps
        )
        np.testing.assert_allclose(dK[:, :, j], fd, rtol=1e-6, atol=1e-8)
    back = k.with_theta(np.log([0.5, 1.5, 0.9]))
    assert isinstance(back.k2.kernel, Part) and back.k2.kernel.key == "v"
    assert back.k2.kernel.kernel.sigma == pytest.approx(0.9)


def test_gp_learns_the_weight_of_the_part_that_explains_y():
    rng = np.random.default_rng(0)
    n = 60
    informative = rng.normal(size=(n, 1))
    noise_part = rng.normal(size=(n, 3))
    X = [{"u": u, "w": w} for u, w in zip(informative, noise_part)]
    y = np.sin(2 * informative[:, 0]) + 0.05 * rng.normal(size=n)
    k = 1.0 * Part(Gaussian(sigma=1.0), "u") + 1.0 * Part(Gaussian(sigma=1.0), "w")
    gp = GaussianProcessRegressor(k, noise=0.1, normalize_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the useless weight may run to its bound
        gp.fit(X, y)
    assert gp.kernel_.k1.factor > 20 * gp.kernel_.k2.factor  # 3.25 against 0.03
    # the marginal likelihood's gradient against finite differences
    theta = np.concatenate([gp.kernel_.theta, [np.log(gp.noise_)]]) + 0.3
    value, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    for j in range(len(theta)):
        step = np.zeros_like(theta)
        step[j] = 1e-5
        lml_up, lml_down = (
            gp.log_marginal_likelihood(theta + step),
            gp.log_marginal_likelihood(theta - step),
        )
        fd = (lml_up - lml_down) / 2e-5
        assert grad[j] == pytest.approx(fd, rel=1e-5, abs=1e-6)
    # the same fit with the part's Gram looked up from a precomputed matrix
    Ku = Gaussian(sigma=0.8)(informative)
    rows = [{"row": i, "w": w} for i, w in enumerate(noise_part)]
    looked_up = 1.0 * Part(Precomputed(Ku), "row") + 1.0 * Part(Gaussian(sigma=1.0), "w")
    direct = 1.0 * Part(Gaussian(sigma=0.8, sigma_bounds="fixed"), "u") + 1.0 * Part(
        Gaussian(sigma=1.0), "w"
    )
    theta = np.log([0.7, 0.2, 1.1, 0.05])
    a = GaussianProcessRegressor(looked_up, noise=0.1, normalize_y=True).fit(rows, y)
    b = GaussianProcessRegressor(direct, noise=0.1, normalize_y=True).fit(X, y)
    assert a.log_marginal_likelihood(theta) == pytest.approx(
        b.log_marginal_likelihood(theta), rel=1e-10
    )


def test_fit_reaches_the_inner_kernel_through_the_part():
    from structk.kernels import RandomWalk

    graphs = [{"g": g} for g in GRAPHS_A]
    k = Part(RandomWalk(lam="auto"), "g")  # lam chosen by fit from the graphs
    assert k.needs_fit
    k.fit(graphs)
    expected = RandomWalk(lam="auto").fit(GRAPHS_A)
    assert k.kernel.lam_ == pytest.approx(expected.lam_)
    np.testing.assert_allclose(k(graphs), expected(GRAPHS_A), rtol=1e-12)


def test_errors_name_the_object_and_the_part():
    k = Part(Gaussian(), "v")
    with pytest.raises(ValueError, match=r"X\[1\] has no part 'v'"):
        k([{"v": [1.0, 2.0]}, {"w": [1.0, 2.0]}])
    with pytest.raises(ValueError, match=r"Y\[0\] has no part 'v'"):
        k([{"v": [1.0, 2.0]}], [5])
    with pytest.raises(ValueError, match=r"part 'v' of X.*nan|nan.*part 'v' of X"):
        k([{"v": [1.0, 2.0]}, {"v": [np.nan, 2.0]}])
    with pytest.raises(TypeError, match="key must be hashable"):
        Part(Gaussian(), ["v"])([{"v": [1.0]}])
    with pytest.raises(TypeError, match="kernel"):
        Part("Gaussian", "v")([{"v": [1.0]}])


def test_equality_repr_and_clone():
    from structk._estimator import clone

    k = 2.0 * Part(MinMax(), "counts")
    assert repr(k) == "2.0 * Part(MinMax(), 'counts')"
    assert Part(MinMax(), "counts") == Part(MinMax(), "counts")
    assert Part(MinMax(), "counts") != Part(MinMax(), "v")
    c = clone(k)
    np.testing.assert_allclose(c(OBJECTS), k(OBJECTS))
