"""SparseGaussianProcessRegressor: with every training object a landmark it
is the exact GP (structk's and scikit-learn's); with fewer, its bound lies
below the exact log marginal likelihood; its gradient against finite
differences; memory that never holds an n x n matrix."""

import logging
import tracemalloc

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF, WhiteKernel
from sklearn.gaussian_process.kernels import ConstantKernel as C

from learners_util import finite_differences

import structk
from structk.kernels import Gaussian, Laplace, MinMax, Normalize, Spectrum
from structk.learners import GaussianProcessRegressor, SparseGaussianProcessRegressor

RNG = np.random.default_rng(7)
X = RNG.normal(size=(40, 3))
Y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * RNG.normal(size=40)
X_TEST = RNG.normal(size=(6, 3))
KERNEL = 1.5 * Gaussian(sigma=1.2)


def _all_landmarks(**kw):
    # a jitter far below the default: K_mm = K is nearly singular at the
    # optimiser's trial points, but here only the agreement is tested
    return SparseGaussianProcessRegressor(KERNEL, n_components=len(X), **kw)


def _relative(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(b))


@pytest.mark.parametrize("normalize_y", [False, True])
def test_all_landmarks_is_the_exact_gp(normalize_y):
    kw = dict(noise=0.05, optimizer=None, normalize_y=normalize_y)
    sparse = _all_landmarks(jitter=1e-10, **kw).fit(X, Y)
    exact = GaussianProcessRegressor(KERNEL, **kw).fit(X, Y)
    sk = SkGPR(C(1.5) * RBF(1.2) + WhiteKernel(0.05), optimizer=None, normalize_y=normalize_y)
    sk.fit(X, Y)
    for reference in (exact.log_marginal_likelihood_value_, sk.log_marginal_likelihood_value_):
        assert sparse.log_marginal_likelihood_value_ == pytest.approx(reference, rel=1e-8)
    mean, std = sparse.predict(X_TEST, return_std=True)
    for ref_mean, ref_std in (
        exact.predict(X_TEST, return_std=True),
        sk.predict(X_TEST, return_std=True),
    ):
        assert _relative(mean, ref_mean) < 1e-8
        assert _relative(std, ref_std) < 1e-8
    _, cov = sparse.predict(X_TEST, return_cov=True)
    _, ref_cov = sk.predict(X_TEST, return_cov=True)
    assert _relative(cov, ref_cov) < 1e-8
    # the gradient too, at other hyperparameters
    for theta in RNG.uniform(-1.0, 1.0, size=(3, 3)):
        value, grad = sparse.log_marginal_likelihood(theta, eval_gradient=True)
        ref_value, ref_grad = sk.log_marginal_likelihood(theta, eval_gradient=True)
        assert value == pytest.approx(ref_value, rel=1e-8)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-6, atol=1e-6 * np.abs(ref_grad).max())


def test_all_landmarks_reaches_the_exact_optimum():
    # the optimiser tries sigma = 1e5, where K_mm is all ones: the jitter
    # 1e-10 of the test above cannot factorise it, 1e-8 can (and moves the
    # optimum by about 1e-3 in theta)
    sparse = _all_landmarks(noise=0.05, normalize_y=True, jitter=1e-8).fit(X, Y)
    sk = SkGPR(C(1.5) * RBF(1.2) + WhiteKernel(0.05), normalize_y=True).fit(X, Y)
    ours = np.append(sparse.kernel_.theta, np.log(sparse.noise_))
    np.testing.assert_allclose(ours, sk.kernel_.theta, atol=1e-2)
    assert sparse.log_marginal_likelihood_value_ == pytest.approx(
        sk.log_marginal_likelihood_value_, rel=1e-4
    )


def test_bound_is_below_the_exact_log_marginal_likelihood():
    exact = GaussianProcessRegressor(KERNEL, noise=0.05, optimizer=None).fit(X, Y)
    for m in (3, 10, 25):
        sparse = SparseGaussianProcessRegressor(
            KERNEL, n_components=m, noise=0.05, optimizer=None, random_state=0
        ).fit(X, Y)
        for theta in RNG.uniform(-1.5, 1.5, size=(4, 3)):
            assert sparse.log_marginal_likelihood(theta) < exact.log_marginal_likelihood(theta)


@pytest.mark.parametrize(
    "kernel, y, kw",
    [
        (KERNEL, Y, {}),
        (KERNEL, np.c_[Y, np.cos(X[:, 2])], {"normalize_y": True}),  # two outputs
        (Normalize(0.5 * Laplace(sigma=2.0)) * Gaussian(sigma=3.0), Y, {"jitter": 1e-4}),
        (KERNEL, Y, {"noise_bounds": "fixed"}),
    ],
    ids=["rbf", "two-outputs", "product-normalized", "noise-fixed"],
)
def test_gradient_matches_finite_differences(kernel, y, kw, tuning):
    tuning.set(SPARSE_GP_BLOCK_ROWS=7)  # several blocks, the last one short
    gp = SparseGaussianProcessRegressor(
        kernel, n_components=12, noise=0.1, optimizer=None, random_state=2, **kw
    ).fit(X, y)
    theta0 = gp._space(gp.kernel_)[0]
    for shift in RNG.uniform(-0.5, 0.5, size=(3, theta0.size)):
        theta = theta0 + shift
        _, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
        fd = finite_differences(gp.log_marginal_likelihood, theta)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(fd).max()))


def test_blocks_do_not_change_the_result(tuning):
    kw = dict(n_components=10, noise=0.1, random_state=0)
    whole = SparseGaussianProcessRegressor(KERNEL, **kw).fit(X, Y)
    tuning.set(SPARSE_GP_BLOCK_ROWS=6, LANDMARK_BLOCK_ROWS=4)
    parts = SparseGaussianProcessRegressor(KERNEL, **kw).fit(X, Y)
    np.testing.assert_allclose(parts.kernel_.theta, whole.kernel_.theta, rtol=1e-6)
    np.testing.assert_allclose(
        parts.predict(X_TEST, return_std=True), whole.predict(X_TEST, return_std=True), rtol=1e-6
    )


def test_optimisation_raises_the_bound_and_predicts_well():
    Xl = RNG.uniform(-3, 3, size=(400, 1))
    yl = np.sin(2 * Xl[:, 0]) + 0.1 * RNG.normal(size=400)
    start = SparseGaussianProcessRegressor(
        1.0 * Gaussian(sigma=3.0), n_components=30, noise=1.0, optimizer=None, random_state=0
    ).fit(Xl, yl)
    gp = clone(start).set_params(optimizer="fmin_l_bfgs_b").fit(Xl, yl)
    assert gp.log_marginal_likelihood_value_ > start.log_marginal_likelihood_value_ + 100
    grid = np.linspace(-2.5, 2.5, 50)[:, None]
    mean, std = gp.predict(grid, return_std=True)
    assert np.max(np.abs(mean - np.sin(2 * grid[:, 0]))) < 0.1
    assert gp.noise_ == pytest.approx(0.01, rel=0.5)
    assert np.all(std > 0.09) and np.all(std < 0.2)  # noise std 0.1 and a little


def test_strings_with_minmax_and_spectrum():
    words = ["".join(RNG.choice(list("ACGT"), size=8)) for _ in range(120)]
    y = np.array([w.count("A") - w.count("T") for w in words], dtype=float)
    gp = SparseGaussianProcessRegressor(
        1.0 * Spectrum(k=1), n_components=20, noise=0.5, random_state=0, normalize_y=True
    ).fit(words[:100], y[:100])
    mean = gp.predict(words[100:])
    assert np.corrcoef(mean, y[100:])[0, 1] > 0.95
    counts = [{c: w.count(c) for c in w} for w in words]
    gp = SparseGaussianProcessRegressor(
        1.0 * MinMax(), n_components=20, noise=0.5, random_state=0
    ).fit(counts, y)
    assert gp.predict(counts[:3], return_std=True)[1].shape == (3,)


def test_memory_stays_far_below_one_n_by_n_matrix():
    n, m = 8000, 40
    Xl = RNG.normal(size=(n, 2))
    yl = np.sin(Xl[:, 0]) + 0.1 * RNG.normal(size=n)
    gp = SparseGaussianProcessRegressor(1.0 * Gaussian(sigma=1.0), n_components=m, noise=0.1)
    tracemalloc.start()
    try:
        gp.fit(Xl, yl)
        gp.predict(Xl, return_std=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n * n * 8 / 20  # one n x n float64 matrix is 512 MB


@pytest.mark.slow
def test_twenty_thousand_strings_in_bounded_memory():
    n, m = 20_000, 200  # Spectrum(k=2) of 12-mers has rank <= 16: m = 200 is plenty
    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list("ACGT"), size=12)) for _ in range(n)]
    y = np.array([w.count("GC") for w in words], dtype=float)
    gp = SparseGaussianProcessRegressor(
        1.0 * Normalize(Spectrum(k=2)), n_components=m, noise=0.5, random_state=0
    )
    tracemalloc.start()
    try:
        gp.fit(words, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n * n * 8 / 20  # 3.2 GB for one n x n matrix
    assert np.corrcoef(gp.predict(words[:500]), y[:500])[0, 1] > 0.9


def test_bad_input_names_the_parameter():
    gp = SparseGaussianProcessRegressor(KERNEL, n_components=50)
    with pytest.raises(ValueError, match=r"n_components=50 is more than the 40 training objects"):
        gp.fit(X, Y)
    for bad in (0, -3):
        with pytest.raises(ValueError, match="n_components"):
            SparseGaussianProcessRegressor(KERNEL, n_components=bad).fit(X, Y)
    with pytest.raises(ValueError, match="landmarks must be one of"):
        SparseGaussianProcessRegressor(KERNEL, n_components=5, landmarks="random").fit(X, Y)
    with pytest.raises(ValueError, match="noise"):
        SparseGaussianProcessRegressor(KERNEL, n_components=5, noise=0.0).fit(X, Y)
    with pytest.raises(ValueError, match="precomputed"):
        SparseGaussianProcessRegressor("precomputed", n_components=5).fit(KERNEL(X), Y)
    with pytest.raises(NotFittedError):
        SparseGaussianProcessRegressor(KERNEL).predict(X)
    fitted = SparseGaussianProcessRegressor(KERNEL, n_components=5, optimizer=None).fit(X, Y)
    with pytest.raises(ValueError, match=r"theta has 2 entries; this model has 3"):
        fitted.log_marginal_likelihood([0.0, 0.0])
    with pytest.raises(RuntimeError, match="At most one"):
        fitted.predict(X, return_std=True, return_cov=True)


def test_clone_params_and_model_file(tmp_path):
    gp = SparseGaussianProcessRegressor(KERNEL, n_components=8, noise=0.1, random_state=0)
    assert clone(gp).get_params() == gp.get_params()
    gp.fit(X, np.c_[Y, -Y])
    path = tmp_path / "sgp.structk"
    structk.save(gp, path)
    again = structk.load(path)
    for a, b in zip(again.predict(X_TEST, return_std=True), gp.predict(X_TEST, return_std=True)):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    with pytest.raises(ValueError, match="refit"):
        again.log_marginal_likelihood(again.kernel_.theta.tolist() + [0.0])


def test_dask_client_gives_the_same_fit():
    distributed = pytest.importorskip("distributed")
    kw = dict(n_components=10, noise=0.1, random_state=0)
    local = SparseGaussianProcessRegressor(KERNEL, **kw).fit(X, Y)
    with distributed.Client(
        processes=False,
        n_workers=1,
        threads_per_worker=1,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as client:
        remote = SparseGaussianProcessRegressor(KERNEL, client=client, **kw).fit(X, Y)
        np.testing.assert_allclose(remote.kernel_.theta, local.kernel_.theta, rtol=1e-8)
        for a, b in zip(
            remote.predict(X_TEST, return_std=True), local.predict(X_TEST, return_std=True)
        ):
            np.testing.assert_allclose(a, b, rtol=1e-8)


def test_low_rank_kernel_learns_a_small_noise():
    # Spectrum(k=1) + 1 has rank 5: K_mm of 50 landmarks is singular but for
    # its jitter, and the optimiser tries noises near 1e-5; accumulated in
    # the landmarks' whitened basis the bound stays computable there
    rng = np.random.default_rng(3)
    seqs = ["".join(s) for s in rng.choice(list("ACGT"), size=(600, 12))]
    gc = np.array([s.count("G") + s.count("C") for s in seqs]) + 0.3 * rng.normal(size=600)
    gp = SparseGaussianProcessRegressor(
        1.0 * Spectrum(k=1) + 1.0, n_components=50, noise=1.0, random_state=0
    ).fit(seqs, gc)
    assert gp.noise_ == pytest.approx(0.09, rel=0.25)
    mean = gp.predict(["GGCCGCGATCGA", "ATATATATATGC"])
    np.testing.assert_allclose(mean, [9.0, 2.0], atol=0.15)


@pytest.mark.parametrize("landmarks", ["uniform", "kmeans++", "leverage"])
def test_landmarks_are_nystroems(landmarks):
    from structk.scale import Nystroem

    kw = dict(n_components=8, landmarks=landmarks, random_state=4)
    gp = SparseGaussianProcessRegressor(KERNEL, noise=0.1, optimizer=None, **kw).fit(X, Y)
    ny = Nystroem(KERNEL, **kw).fit(X)
    np.testing.assert_array_equal(gp.component_indices_, ny.component_indices_)
    np.testing.assert_array_equal(gp.components_, X[ny.component_indices_])
