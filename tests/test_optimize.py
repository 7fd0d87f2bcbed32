"""Bayesian optimisation over a pool (structk.optimize): acquisition
functions against their closed forms, brute-force integration and Monte
Carlo; batch fantasies against a GP refitted with the fantasy observation;
Thompson sampling against the posterior probability of being the best."""

import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from structk.kernels import Gaussian, MinMax, Spectrum
from structk.learners import GaussianProcessClassifier, GaussianProcessRegressor
from structk.optimize import (
    expected_improvement,
    log_expected_improvement,
    log_h,
    suggest,
    upper_confidence_bound,
)


def _closed_form_ei(mu, sd, best, maximize=True):
    gain = mu - best if maximize else best - mu
    z = gain / sd
    return gain * stats.norm.cdf(z) + sd * stats.norm.pdf(z)


def _log_h_by_quadrature(z):
    """log h(z) for z < 0 by integrating (t - z) phi(t) over t > 0 ... written
    as phi(z) / z^2 * int_0^inf v exp(-v - v^2 / (2 z^2)) dv (t = -z + v/|z|
    about the tail's start), so nothing underflows."""
    a = abs(z)
    integral, _ = integrate.quad(
        lambda v: v * np.exp(-v - v * v / (2 * a * a)), 0, np.inf, epsabs=0, epsrel=1e-13, limit=200
    )
    return -0.5 * z * z - 0.5 * np.log(2 * np.pi) - 2 * np.log(a) + np.log(integral)


# ------------------------------------------------------------ acquisitions
def test_ei_matches_closed_form_both_directions():
    rng = np.random.default_rng(0)
    mu, sd = rng.normal(size=200), rng.uniform(0.05, 2, size=200)
    for maximize in (True, False):
        ref = _closed_form_ei(mu, sd, 0.3, maximize)
        got = expected_improvement(mu, sd, 0.3, maximize=maximize)
        np.testing.assert_allclose(got, ref, rtol=1e-11, atol=1e-300)


def test_ei_matches_monte_carlo():
    rng = np.random.default_rng(1)
    for mu, sd, best in [(0.0, 1.0, 0.5), (1.0, 0.3, 1.2), (-2.0, 2.0, 1.0)]:
        f = rng.normal(mu, sd, size=2_000_000)
        gain = np.maximum(f - best, 0)
        err = gain.std() / np.sqrt(f.size)
        assert abs(expected_improvement(mu, sd, best) - gain.mean()) < 4 * err
        loss = np.maximum(best - f, 0)
        assert abs(expected_improvement(mu, sd, best, maximize=False) - loss.mean()) < 4 * (
            loss.std() / np.sqrt(f.size)
        )


@pytest.mark.parametrize("z", [-1.0001, -1.5, -3.0, -8.0, -40.0, -300.0, -1e4, -1e7, -1e9])
def test_log_h_matches_quadrature_far_in_the_tail(z):
    got = float(log_h(np.array([z]))[0])
    assert np.isfinite(got)
    assert abs(got - _log_h_by_quadrature(z)) <= 1e-10 * max(1.0, abs(got)) + 1e-11


def test_log_ei_at_z_minus_40_is_finite_where_ei_underflows():
    # mu 40 standard deviations below the incumbent: EI ~ 1e-353
    mu, sd, best = np.array([0.0]), np.array([1.0]), 40.0
    assert expected_improvement(mu, sd, best)[0] == 0.0
    got = log_expected_improvement(mu, sd, best)[0]
    np.testing.assert_allclose(got, _log_h_by_quadrature(-40.0), rtol=1e-12)
    # the std enters as log(sd) + log h(z)
    got2 = log_expected_improvement(mu, np.array([2.0]), 80.0)[0]
    np.testing.assert_allclose(got2, np.log(2.0) + _log_h_by_quadrature(-40.0), rtol=1e-12)


def test_log_ei_equals_log_of_ei_where_representable():
    z = np.linspace(-35, 30, 1301)
    sd = np.full_like(z, 0.7)
    mu = 0.7 * z + 1.0  # best = 1.0
    log_ei = log_expected_improvement(mu, sd, 1.0)
    # reference: the direct formula where it does not cancel, quadrature below
    ref = np.where(
        z > -3,
        np.log(np.maximum(_closed_form_ei(mu, sd, 1.0), 1e-300)),
        np.log(0.7) + np.array([_log_h_by_quadrature(t) if t <= -3 else 0.0 for t in z]),
    )
    np.testing.assert_allclose(log_ei, ref, rtol=1e-10, atol=1e-12)
    ei = expected_improvement(mu, sd, 1.0)
    shown = ei > 1e-300
    np.testing.assert_allclose(np.log(ei[shown]), log_ei[shown], rtol=1e-12, atol=1e-12)
    assert np.all(np.diff(log_ei) > 0)  # increasing in the mean, no kink


def test_log_h_continuous_at_branch_points():
    for z0 in (-1.0, -1.0 / np.sqrt(np.finfo(float).eps)):
        z = np.array([z0 * (1 - 1e-12), z0, z0 * (1 + 1e-12)])
        v = log_h(z)
        assert np.all(np.abs(np.diff(v)) < 1e-8 * max(1, abs(v[1])) + 1e-9)


def test_ei_zero_std():
    got = log_expected_improvement([2.0, 0.5], [0.0, 0.0], 1.0)
    np.testing.assert_allclose(got, [0.0, -np.inf])
    np.testing.assert_allclose(expected_improvement([2.0, 0.5], [0.0, 0.0], 1.0), [1.0, 0.0])


def test_ucb_definition():
    mu, sd = np.array([0.0, 1.0, -2.0]), np.array([1.0, 0.5, 3.0])
    np.testing.assert_allclose(upper_confidence_bound(mu, sd, beta=4.0), mu + 2 * sd)
    np.testing.assert_allclose(
        upper_confidence_bound(mu, sd, beta=9.0, maximize=False), mu - 3 * sd
    )
    with pytest.raises(ValueError, match="beta"):
        upper_confidence_bound(mu, sd, beta=-1)


# ------------------------------------------------------------------ suggest
def _vector_gp(noise=1e-2, n=12, seed=0, **kw):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 6, size=(n, 2))
    y = np.sin(X[:, 0]) + np.cos(X[:, 1]) + 0.05 * rng.normal(size=n)
    gp = GaussianProcessRegressor(
        1.3 * Gaussian(1.2), noise=noise, noise_bounds="fixed", optimizer=None, **kw
    ).fit(X, y)
    pool = rng.uniform(0, 6, size=(25, 2))
    return gp, X, y, pool


def _latent(gp, pool):
    """Latent posterior from the public predict (its std/cov include the noise)."""
    mean, cov = gp.predict(pool, return_cov=True)
    scale = float(np.ravel(gp._y_std)[0]) ** 2
    return mean, cov - gp.noise_ * scale * np.eye(len(pool))


@pytest.mark.parametrize("normalize_y", [False, True])
def test_suggest_single_matches_predict(normalize_y):
    gp, X, y, pool = _vector_gp(normalize_y=normalize_y)
    mean, cov = _latent(gp, pool)
    sd = np.sqrt(np.diag(cov))
    for acq, maximize in [
        ("ei", True),
        ("ei", False),
        ("logei", True),
        ("ucb", True),
        ("ucb", False),
    ]:
        s = suggest(gp, pool, n=1, acquisition=acq, maximize=maximize)
        if acq == "ucb":
            ref = mean + 2 * sd if maximize else mean - 2 * sd
            j = np.argmax(ref) if maximize else np.argmin(ref)
        else:
            best = y.max() if maximize else y.min()
            ref = _closed_form_ei(mean, sd, best, maximize)
            if acq == "logei":
                ref = np.log(ref)
            j = np.argmax(ref)
        assert s.index[0] == j
        np.testing.assert_allclose(s.acquisition[0], ref[j], rtol=1e-8)
        np.testing.assert_allclose(s.mean[0], mean[j], rtol=1e-10)
        np.testing.assert_allclose(s.std[0], sd[j], rtol=1e-7)


def _refit(gp, X, y):
    return GaussianProcessRegressor(
        gp.kernel_, noise=gp.noise_, noise_bounds="fixed", optimizer=None, alpha=gp.alpha
    ).fit(X, y)


def _check_batch_against_refits(gp, X, y, pool, acquisition, fantasy, maximize=True, n=4):
    s = suggest(gp, pool, n=n, acquisition=acquisition, fantasy=fantasy, maximize=maximize)
    assert len(set(s.index.tolist())) == n
    Xf, yf = list(X), list(y)
    model = gp
    for step in range(n):
        mean, cov = _latent(model, pool)
        sd = np.sqrt(np.maximum(np.diag(cov), 0))
        best = max(yf) if maximize else min(yf)
        if acquisition == "ucb":
            ref = mean + 2 * sd if maximize else -(mean - 2 * sd)
        else:
            ref = log_expected_improvement(mean, sd, best, maximize=maximize)
        ref[s.index[:step]] = -np.inf
        j = int(np.argmax(ref))
        assert s.index[step] == j, (acquisition, step)
        shown = ref[j] if acquisition != "ucb" or maximize else -ref[j]
        if acquisition == "ei":
            shown = np.exp(shown)
        np.testing.assert_allclose(s.acquisition[step], shown, rtol=1e-6, atol=1e-12)
        observed = mean[j] if fantasy == "believer" else fantasy
        Xf.append(pool[j])
        yf.append(observed)
        model = _refit(gp, np.asarray(Xf) if isinstance(pool, np.ndarray) else Xf, np.array(yf))


@pytest.mark.parametrize("acquisition", ["ei", "logei", "ucb"])
@pytest.mark.parametrize("fantasy", ["believer", 0.5])
def test_batch_fantasies_equal_refitted_gp(acquisition, fantasy):
    gp, X, y, pool = _vector_gp()
    _check_batch_against_refits(gp, X, y, pool, acquisition, fantasy)
    _check_batch_against_refits(gp, X, y, pool, acquisition, fantasy, maximize=False)


def test_batch_fantasies_on_strings():
    rng = np.random.default_rng(3)
    seqs = ["".join(rng.choice(list("ACGT"), size=10)) for _ in range(40)]
    seqs = list(dict.fromkeys(seqs))
    y = np.array([s.count("GC") + 0.3 * s.count("A") for s in seqs])
    gp = GaussianProcessRegressor(
        1.0 * Spectrum(k=2), noise=0.1, noise_bounds="fixed", optimizer=None
    ).fit(seqs[:15], y[:15])
    _check_batch_against_refits(gp, seqs[:15], y[:15], seqs[15:], "ei", "believer", n=3)


def test_precomputed_gp_suggests_as_the_kernel_gp():
    rng = np.random.default_rng(5)
    sets = [set(rng.choice(20, size=rng.integers(2, 8), replace=False).tolist()) for _ in range(30)]
    y = np.array([len(s & {1, 2, 3, 4}) - 0.1 * len(s) for s in sets])
    k = MinMax()
    train, pool = sets[:12], sets[12:]
    gp = GaussianProcessRegressor(k, noise=0.05, noise_bounds="fixed", optimizer=None).fit(
        train, y[:12]
    )
    pre = GaussianProcessRegressor(
        "precomputed", noise=0.05, noise_bounds="fixed", optimizer=None
    ).fit(k(train), y[:12])
    for acq in ("ei", "ucb", "thompson"):
        a = suggest(gp, pool, n=4, acquisition=acq, random_state=2)
        b = suggest(pre, k(pool, train), n=4, acquisition=acq, test_gram=k(pool), random_state=2)
        np.testing.assert_array_equal(a.index, b.index)
        np.testing.assert_allclose(a.acquisition, b.acquisition, rtol=1e-9, atol=1e-12)
    one = suggest(pre, k(pool, train), test_gram=np.diag(k(pool)))
    assert one.index[0] == suggest(gp, pool).index[0]


def test_thompson_frequencies_match_probability_of_being_best():
    rng = np.random.default_rng(7)
    X = np.array([[0.0], [1.0], [3.0]])
    gp = GaussianProcessRegressor(
        1.0 * Gaussian(1.0), noise=0.3, noise_bounds="fixed", optimizer=None
    )
    gp.fit(X, [0.0, 0.4, 0.1])
    pool = np.array([[0.5], [1.6], [2.3]])
    mean, cov = _latent(gp, pool)
    draws = rng.multivariate_normal(mean, cov, size=1_000_000)
    for maximize in (True, False):
        winner = draws.argmax(1) if maximize else draws.argmin(1)
        p = np.bincount(winner, minlength=3) / len(draws)
        assert p.min() > 0.05  # a pool where each candidate has a real chance
        trials = 3000
        picks = [
            suggest(gp, pool, acquisition="thompson", maximize=maximize, random_state=s).index[0]
            for s in range(trials)
        ]
        freq = np.bincount(picks, minlength=3) / trials
        np.testing.assert_array_less(np.abs(freq - p), 4.5 * np.sqrt(p * (1 - p) / trials))


def test_thompson_seeded_batches_without_repeats():
    gp, X, y, pool = _vector_gp()
    a = suggest(gp, pool, n=8, acquisition="thompson", random_state=11)
    b = suggest(gp, pool, n=8, acquisition="thompson", random_state=11)
    np.testing.assert_array_equal(a.index, b.index)
    np.testing.assert_array_equal(a.acquisition, b.acquisition)
    assert len(set(a.index.tolist())) == 8
    everything = suggest(gp, pool, n=len(pool), acquisition="thompson", random_state=0)
    assert sorted(everything.index.tolist()) == list(range(len(pool)))
    # the first pick is the argmax of the first joint draw from the posterior
    mean, cov = _latent(gp, pool)
    sd = np.sqrt(np.diag(cov))
    assert np.all(np.abs(a.acquisition - mean[a.index]) < 8 * sd[a.index] + 1e-9)


def test_skip_training_objects():
    gp, X, y, pool = _vector_gp()
    mixed = np.vstack([pool[:5], X[3:4], pool[5:]])
    s = suggest(gp, mixed, n=len(pool), in_training="skip")
    assert 5 not in s.index.tolist()
    k = suggest(gp, mixed, n=len(mixed), acquisition="ucb", in_training="keep")
    assert 5 in k.index.tolist()


# ----------------------------------------------------------------- bad input
def test_bad_input_names_the_parameter():
    gp, X, y, pool = _vector_gp()
    with pytest.raises(ValueError, match=r"n=26 but the pool has 25 candidates"):
        suggest(gp, pool, n=26)
    with pytest.raises(ValueError, match=r"n must be|n=0|n "):
        suggest(gp, pool, n=0)
    with pytest.raises(
        ValueError, match=r"acquisition='pi' is not known.*ei, logei, ucb, thompson"
    ):
        suggest(gp, pool, acquisition="pi")
    with pytest.raises(ValueError, match=r"in_training="):
        suggest(gp, pool, in_training="drop")
    with pytest.raises(ValueError, match=r"fantasy"):
        suggest(gp, pool, n=2, fantasy=float("nan"))
    with pytest.raises(ValueError, match=r"best"):
        suggest(gp, pool, best=float("inf"))
    with pytest.raises(ValueError, match=r"beta"):
        suggest(gp, pool, acquisition="ucb", beta=-2)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        suggest(GaussianProcessRegressor(), pool)
    clf = GaussianProcessClassifier(1.0 * Gaussian(1.0)).fit(X, (y > 0).astype(int))
    with pytest.raises(
        TypeError,
        match=r"gp must be a fitted structk GaussianProcessRegressor.*"
        r"GaussianProcessClassifier",
    ):
        suggest(clf, pool)
    with pytest.raises(ValueError, match=r"pool\[2\] is training object X\[7\]"):
        suggest(gp, np.vstack([pool[:2], X[7:8], pool[2:]]))
    bad = pool.copy()
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"pool"):
        suggest(gp, bad)
    with pytest.raises(ValueError, match=r"pool has 1 features.*expecting 2"):
        suggest(gp, pool[:, :1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        two = GaussianProcessRegressor(1.0 * Gaussian(1.0), noise=0.1).fit(X, np.c_[y, y])
    with pytest.raises(ValueError, match=r"2 targets"):
        suggest(two, pool)
    pre = GaussianProcessRegressor("precomputed", noise=0.1).fit(Gaussian(1.0)(X), y)
    with pytest.raises(ValueError, match=r"test_gram"):
        suggest(pre, Gaussian(1.0)(pool, X))
    with pytest.raises(ValueError, match=r"test_gram"):
        suggest(gp, pool, test_gram=np.eye(25))


# --------------------------------------------------------------- calibration
def test_calibration_against_direct_counts():
    from structk.optimize import calibration

    rng = np.random.default_rng(8)
    n = 20000
    std = rng.uniform(0.2, 3.0, size=n)
    mean = rng.normal(size=n)
    y = mean + std * rng.normal(size=n)  # calibrated by construction
    c = calibration(y, mean, std, levels=(0.5, 0.9, 0.95), n_bins=4)
    for level, cov in zip((0.5, 0.9, 0.95), c.coverage):
        assert abs(cov - level) < 4.5 * np.sqrt(level * (1 - level) / n)
        half = stats.norm.interval(level)[1]
        assert cov == np.mean(np.abs(y - mean) <= half * std)
    np.testing.assert_allclose(c.nlpd, -np.mean(stats.norm.logpdf(y, mean, std)), rtol=1e-12)
    np.testing.assert_allclose(c.bin_rmse / c.bin_std, 1.0, atol=0.05)
    order = np.argsort(std)
    first = order[: n // 4]
    np.testing.assert_allclose(c.bin_std[0], np.sqrt(np.mean(std[first] ** 2)))
    assert c.std_error_correlation > 0.3
    # overconfident predictions: coverage below nominal
    tight = calibration(y, mean, std / 2, levels=(0.9,))
    assert tight.coverage[0] < 0.7
    with pytest.raises(ValueError, match=r"std\[1\] is 0.0"):
        calibration([1.0, 2.0], [1.0, 2.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="levels"):
        calibration([1.0], [1.0], [1.0], levels=(1.5,))
    with pytest.raises(ValueError, match="one length"):
        calibration([1.0, 2.0], [1.0], [1.0])


def test_batch_fantasies_on_graphs():
    from structk.datasets import bundled_path, load_tu
    from structk.kernels import Normalize, WeisfeilerLehman

    graphs, labels = load_tu(bundled_path("graph_families"))
    y = np.array(
        [g.number_of_edges() - g.number_of_nodes() + 0.3 * lab for g, lab in zip(graphs, labels)]
    )
    train, pool = graphs[:20], graphs[20:60]
    gp = GaussianProcessRegressor(
        1.0 * Normalize(WeisfeilerLehman(h=2)), noise=0.1, noise_bounds="fixed", optimizer=None
    ).fit(train, y[:20])
    _check_batch_against_refits(gp, train, y[:20], pool, "ucb", "believer", n=3)
    a = suggest(gp, pool, n=3, acquisition="thompson", random_state=4, in_training="keep")
    b = suggest(gp, pool, n=3, acquisition="thompson", random_state=4, in_training="keep")
    np.testing.assert_array_equal(a.index, b.index)
