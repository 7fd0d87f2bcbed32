"""The geometric random walk's decay ``lam`` and the exponential walk's
``beta`` as hyperparameters: analytic derivatives against a dense
brute-force reference (the product graph's adjacency written out, matrix
inverse and matrix exponential) and against finite differences of the
kernel, in every code path (spectral form, conjugate gradient, power and
Taylor series, both product layouts, directed graphs, edge labels, start /
stop weights); bounds read from the training graphs' spectral radii; and a
Gaussian process on MUTAG that learns ``lam`` by its marginal likelihood."""

import warnings

import networkx as nx
import numpy as np
import pytest
from scipy.linalg import expm

from learners_util import finite_differences

from structk import _tuning
from structk.kernels import Normalize, RandomWalk
from structk.learners import GaussianProcessRegressor


def _graphs(directed=False, edge_labels=False, n=6):
    out = []
    for seed in range(n):
        g = nx.gnp_random_graph(6, 0.45, seed=seed, directed=directed)
        nx.set_node_attributes(g, {v: (v + seed) % 2 for v in g}, "label")
        if edge_labels:
            nx.set_edge_attributes(g, {e: (e[0] + e[1]) % 2 for e in g.edges}, "bond")
        out.append(g)
    return out


GRAPHS = _graphs()
DIRECTED = _graphs(directed=True)
BONDS = _graphs(edge_labels=True)


def _radius(graphs):
    """The largest |eigenvalue| of the adjacency matrices (numpy, dense)."""
    return max(
        np.abs(np.linalg.eigvals(nx.to_numpy_array(g, nodelist=sorted(g)))).max() for g in graphs
    )


def _stop(g):
    return np.arange(1.0, g.number_of_nodes() + 1.0)


def _product(g, h, node_label, edge_label, start, stop):
    """The direct product graph's adjacency W and start / stop vectors."""
    gn, hn = list(g.nodes), list(h.nodes)

    def label(graph, v):
        return graph.nodes[v][node_label] if node_label else 0

    def weights(rule, graph, nodes):
        if rule is None:
            return np.ones(len(nodes))
        if rule == "uniform":
            return np.full(len(nodes), 1.0 / len(nodes))
        return np.asarray(rule(graph), dtype=float)

    pairs = [(a, b) for a in range(len(gn)) for b in range(len(hn))]
    pairs = [(a, b) for a, b in pairs if label(g, gn[a]) == label(h, hn[b])]
    W = np.zeros((len(pairs), len(pairs)))
    for s, (a, b) in enumerate(pairs):
        for t, (c, d) in enumerate(pairs):
            if not (g.has_edge(gn[a], gn[c]) and h.has_edge(hn[b], hn[d])):
                continue
            if edge_label is None or (
                g.edges[gn[a], gn[c]][edge_label] == h.edges[hn[b], hn[d]][edge_label]
            ):
                W[s, t] = 1.0
    pg, ph = weights(start, g, gn), weights(start, h, hn)
    qg, qh = weights(stop, g, gn), weights(stop, h, hn)
    p = np.array([pg[a] * ph[b] for a, b in pairs])
    q = np.array([qg[a] * qh[b] for a, b in pairs])
    return W, p, q


def brute_force(kernel, graphs):
    """``K`` and ``dK / d log lam`` (or ``log beta``) from dense matrices:
    geometric ``q^T B^-1 p``, ``lam q^T B^-1 W B^-1 p`` (``B = I - lam W``);
    exponential ``q^T e^{beta W} p``, ``beta q^T W e^{beta W} p``."""
    n = len(graphs)
    K, dK = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            W, p, q = _product(
                graphs[i],
                graphs[j],
                kernel.node_label,
                kernel.edge_label,
                kernel.start,
                kernel.stop,
            )
            if not len(p):
                continue
            if kernel.kind == "geometric":
                B = np.eye(len(p)) - kernel.lam * W
                x, y = np.linalg.solve(B, p), np.linalg.solve(B.T, q)
                K[i, j], dK[i, j] = q @ x, kernel.lam * y @ W @ x
            else:
                E = expm(kernel.beta * W)
                K[i, j], dK[i, j] = q @ E @ p, kernel.beta * q @ W @ E @ p
    return K, dK


# (kernel, graphs, fraction of the convergence limit 1 / rho^2 for lam)
CASES = [
    (dict(), GRAPHS, 0.3),  # labelled, start = stop: conjugate gradient
    (dict(), GRAPHS, 0.85),  # the same at rate up to 0.85
    (dict(node_label=None), GRAPHS, 0.5),  # unlabelled: spectral form
    (dict(start="uniform", stop=_stop), GRAPHS, 0.3),  # start != stop: power series
    (dict(start="uniform", stop=_stop), GRAPHS, 0.85),  # ... where values use CG
    (dict(), DIRECTED, 0.5),  # directed: power series, column-sum bounds
    (dict(edge_label="bond"), BONDS, 0.6),
    (dict(kind="exponential", beta=0.2), GRAPHS, None),
    (dict(kind="exponential", beta=0.5, node_label=None), GRAPHS, None),  # spectral
    (dict(kind="exponential", beta=0.3, start="uniform", stop=_stop), DIRECTED, None),
]


def _kernel(params, graphs, fraction):
    kernel = RandomWalk(**params)
    if fraction is not None:
        kernel.set_params(lam=fraction / _radius(graphs) ** 2)
    return kernel.fit(graphs)


@pytest.mark.parametrize("layout", [1, 2], ids=["arcs", "split"])
@pytest.mark.parametrize("params, graphs, fraction", CASES)
def test_derivative_matches_brute_force_and_finite_differences(
    params, graphs, fraction, layout, monkeypatch, richardson_gradient
):
    monkeypatch.setattr(_tuning, "WALK_PRODUCT_LAYOUT", layout)
    kernel = _kernel(params, graphs, fraction)
    assert [h.name for h in kernel.hyperparameters] == ["lam" if fraction else "beta"]
    K, dK = kernel.gram_gradient_prepared(kernel.prepare(graphs))
    assert dK.shape == K.shape + (1,)
    np.testing.assert_allclose(K, kernel(graphs), rtol=1e-12)
    K_ref, dK_ref = brute_force(kernel, graphs)
    np.testing.assert_allclose(K, K_ref, rtol=1e-11)
    np.testing.assert_allclose(dK[:, :, 0], dK_ref, rtol=1e-10, atol=1e-12 * np.abs(dK_ref).max())
    fd = richardson_gradient(kernel, graphs)
    np.testing.assert_allclose(dK, fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max())


@pytest.mark.parametrize(
    "kernel",
    [Normalize(RandomWalk(lam=0.02)), 2.0 * RandomWalk(kind="exponential", beta=0.4)],
    ids=repr,
)
def test_derivative_through_the_algebra(kernel, richardson_gradient):
    kernel.fit(GRAPHS)
    K, dK = kernel.gram_gradient_prepared(kernel.prepare(GRAPHS))
    assert dK.shape == K.shape + (len(kernel.theta),)
    fd = richardson_gradient(kernel, GRAPHS)
    np.testing.assert_allclose(dK, fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max())


def test_bounds_come_from_the_training_graphs():
    rho = _radius(GRAPHS)
    unfitted = RandomWalk(lam=0.01)
    assert unfitted.hyperparameters == []  # "auto" bounds: nothing to read them from yet
    k = RandomWalk(lam=0.01).fit(GRAPHS)
    assert k.spectral_radius_ == pytest.approx(rho, rel=1e-12)
    (h,) = k.hyperparameters
    assert (h.name, h.fixed) == ("lam", False)
    np.testing.assert_allclose(h.bounds, np.array([1e-4, 0.9]) / rho**2, rtol=1e-12)
    np.testing.assert_allclose(k.bounds, np.log([[1e-4 / rho**2, 0.9 / rho**2]]), rtol=1e-12)
    (b,) = RandomWalk(kind="exponential").fit(GRAPHS).hyperparameters
    np.testing.assert_allclose(b.bounds, np.array([1e-4, 20.0]) / rho**2, rtol=1e-12)
    # a given upper bound past the convergence region is clipped, with a note
    with pytest.warns(UserWarning, match=r"converges only for lam < 1 / rho\^2 = .*clipped"):
        clipped = RandomWalk(lam=0.01, lam_bounds=(1e-3, 1.0)).fit(GRAPHS)
    np.testing.assert_allclose(clipped.hyperparameters[0].bounds, (1e-3, 0.9 / rho**2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inside = RandomWalk(lam=0.01, lam_bounds=(1e-3, 0.05)).fit(GRAPHS)
    assert inside.hyperparameters[0].bounds == (1e-3, 0.05)
    with pytest.raises(ValueError, match=r"lower bound is not below"):
        RandomWalk(lam=0.01, lam_bounds=(0.5, 1.0)).fit(GRAPHS)
    assert RandomWalk(lam=0.01, lam_bounds="fixed").fit(GRAPHS).theta.size == 0
    assert RandomWalk(lam="auto").fit(GRAPHS).hyperparameters == []  # lam_ is fitted
    with pytest.raises(ValueError, match=r"lam_bounds must be 'auto', 'fixed' or a pair"):
        RandomWalk(lam_bounds="wide").fit(GRAPHS)
    # graphs without edges: no walk beyond length 0, the kernel ignores lam
    empty = [nx.empty_graph(3), nx.empty_graph(2)]
    nx.set_node_attributes(empty[0], 0, "label")
    nx.set_node_attributes(empty[1], 0, "label")
    k0 = RandomWalk(lam=0.3).fit(empty)
    K, dK = k0.gram_gradient_prepared(k0.prepare(empty))
    assert k0.hyperparameters[0].bounds == (1e-5, 1e5)
    np.testing.assert_array_equal(dK, 0.0)
    np.testing.assert_array_equal(K, [[9.0, 6.0], [6.0, 4.0]])


@pytest.fixture(scope="module")
def mutag(structk_data):
    """40 MUTAG molecules and a target that short walks explain: the number
    of carbon atoms plus half the number of carbon-carbon bonds."""
    from structk.datasets import load_tu

    graphs, _ = load_tu(structk_data("graphs/MUTAG"))
    graphs = graphs[:40]

    def carbon(g, v):
        return g.nodes[v]["label"] == 0

    y = [
        sum(carbon(g, v) for v in g) + 0.5 * sum(carbon(g, u) and carbon(g, v) for u, v in g.edges)
        for g in graphs
    ]
    return graphs, np.array(y, dtype=float)


@pytest.mark.slow
def test_gp_learns_lam_on_mutag_inside_the_convergence_region(mutag):
    X, y = mutag
    rho = _radius(X)
    low, top = 1e-4 / rho**2, 0.9 / rho**2
    seen = []

    def optimizer(objective, theta, bounds):
        from scipy.optimize import minimize

        seen.append(np.array(bounds))

        def recorded(t):
            assert bounds[1, 0] <= t[1] <= bounds[1, 1]  # lam never outside
            return objective(t)

        result = minimize(recorded, theta, method="L-BFGS-B", jac=True, bounds=bounds)
        return result.x, result.fun

    kernel = 1.0 * RandomWalk(lam=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no parameter at a bound, no clipping
        gp = GaussianProcessRegressor(kernel, noise=0.1, normalize_y=True, optimizer=optimizer)
        gp.fit(X, y)
    names = [h.name for h in gp.kernel_.hyperparameters if not h.fixed]
    assert names == ["factor", "kernel__lam"]
    np.testing.assert_allclose(seen[0][1], np.log([low, top]), rtol=1e-12)
    lam = gp.kernel_.kernel.lam
    assert low * 1.01 < lam < top * 0.99  # an interior optimum, learned
    # the marginal likelihood's gradient (factor, lam, noise) against
    # differences, away from the optimum (where it is 0 to rounding)
    theta = np.append(gp.kernel_.theta, np.log(gp.noise_))
    for t in (theta + np.array([0.3, -0.5, 0.2]), theta + np.array([-0.4, -2.0, 0.5])):
        _, grad = gp.log_marginal_likelihood(t, eval_gradient=True)
        fd = finite_differences(gp.log_marginal_likelihood, t)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6 * np.abs(fd).max())
    # at least as good as a grid of fixed decays (factor and noise learned)
    grid = [
        GaussianProcessRegressor(
            1.0 * RandomWalk(lam=f * top, lam_bounds="fixed"), noise=0.1, normalize_y=True
        )
        .fit(X, y)
        .log_marginal_likelihood_value_
        for f in (1e-3, 0.1, 0.5, 0.95, 1.0)
    ]
    assert gp.log_marginal_likelihood_value_ >= max(grid) - 1e-6
