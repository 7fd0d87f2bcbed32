"""Gaussian processes learn the parameters of string and graph kernels:
the weighted-degree kernel's k-mer-length weights and the truncated random
walk's walk-length weights, by the marginal likelihood with analytic
gradients (checked here against finite differences of the likelihood)."""

import networkx as nx
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from learners_util import finite_differences

from structk.kernels import RandomWalk, WeightedDegree
from structk.learners import GaussianProcessRegressor, SparseGaussianProcessRegressor

RNG = np.random.default_rng(11)
SEQS = ["".join(RNG.choice(list("ACGT"), size=10)) for _ in range(60)]
# a target of single positions only: 1-mers explain it, 3-mers add noise
Y_SEQ = np.array([(s[2] == "A") + 2.0 * (s[7] == "G") for s in SEQS]) + 0.05 * RNG.normal(size=60)


def _graphs(n=40):
    out = []
    for seed in range(n):
        g = nx.gnp_random_graph(7, 0.2 + 0.4 * (seed % 5) / 4, seed=seed)
        nx.set_node_attributes(g, {v: v % 2 for v in g}, "label")
        out.append(g)
    return out


GRAPHS = _graphs()
Y_GRAPH = np.array([g.number_of_edges() for g in GRAPHS], dtype=float)


CASES = [
    (WeightedDegree(d=3, weights=[1.0, 1.0, 1.0]), SEQS, Y_SEQ),
    (RandomWalk(kind="truncated", weights=[1.0, 1.0, 1.0]), GRAPHS, Y_GRAPH),
]


@pytest.mark.filterwarnings("ignore:The optimal value")  # a weight at a bound
@pytest.mark.parametrize("kernel, X, y", CASES, ids=["weighted-degree", "random-walk"])
def test_marginal_likelihood_gradient_and_learning(kernel, X, y):
    start = GaussianProcessRegressor(kernel, noise=0.1, normalize_y=True, optimizer=None).fit(X, y)
    theta0 = np.append(start.kernel_.theta, np.log(0.1))
    for theta in (theta0, theta0 + RNG.uniform(-0.5, 0.5, size=theta0.size)):
        _, grad = start.log_marginal_likelihood(theta, eval_gradient=True)
        fd = finite_differences(start.log_marginal_likelihood, theta)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6 * np.abs(fd).max())
    gp = GaussianProcessRegressor(kernel, noise=0.1, normalize_y=True).fit(X, y)
    assert gp.log_marginal_likelihood_value_ > start.log_marginal_likelihood_value_ + 1.0
    learned = np.asarray(gp.kernel_.weights)
    assert not np.allclose(learned, 1.0, rtol=0.05)


def test_weighted_degree_learns_that_single_positions_matter():
    gp = GaussianProcessRegressor(
        WeightedDegree(d=3, weights=[1.0, 1.0, 1.0]), noise=0.1, normalize_y=True
    )
    # the 2- and 3-mers only add noise: their weights go to the lower bound
    with pytest.warns(
        ConvergenceWarning, match=r"weights\[[12]\] .* lower bound.*widen weights_bounds"
    ):
        gp.fit(SEQS, Y_SEQ)
    w = np.asarray(gp.kernel_.weights)
    assert w[0] > 10 * w[2]  # 1-mers over 3-mers


def test_sparse_gp_gradient_with_learned_weights():
    gp = SparseGaussianProcessRegressor(
        WeightedDegree(d=3, weights=[1.0, 0.5, 0.2], normalize=True),
        n_components=15,
        noise=0.1,
        optimizer=None,
        random_state=0,
    ).fit(SEQS, Y_SEQ)
    theta = np.append(gp.kernel_.theta, np.log(0.1)) + 0.2
    _, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    fd = finite_differences(gp.log_marginal_likelihood, theta)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6 * np.abs(fd).max())
