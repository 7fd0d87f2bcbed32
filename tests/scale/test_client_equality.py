"""Fits through ``client=`` equal the local fits, on a 2-process LocalCluster.

The local fits run with BLAS allowed two threads, the workers with Dask's
one: the blocks of Nyström features and the sparse GP's block sums are
computed on one BLAS thread everywhere and summed in the blocks' order,
so the features are equal bit for bit and the models downstream (conjugate
gradients, LIBLINEAR, L-BFGS) to 1e-12.
"""

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
threadpoolctl = pytest.importorskip("threadpoolctl")

from scale_util import count_kmer_counts, counted_sizes, process_cluster  # noqa: E402

from structk.kernels import Gaussian, Normalize, Spectrum  # noqa: E402
from structk.learners import (  # noqa: E402
    KernelRidge,
    KernelSVM,
    SparseGaussianProcessRegressor,
)
from structk.scale import Nystroem  # noqa: E402

RNG = np.random.default_rng(11)
X = RNG.normal(size=(900, 6))
Y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.2 * RNG.normal(size=900)
SEQS = ["".join(s) for s in RNG.choice(list("ACGT"), size=(700, 40))]
LABELS = np.array([s.count("GC") for s in SEQS]) > 2


@pytest.fixture(scope="module")
def client():
    with process_cluster() as c:
        yield c


def local(fit):
    """``fit()`` with BLAS allowed two threads in this process."""
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        return fit()


def test_nystroem_features_equal_bit_for_bit(client, tuning):
    tuning.set(LANDMARK_BLOCK_ROWS=200)  # 5 blocks, spread over both workers
    kw = dict(n_components=120, random_state=0)
    for kernel, objects in ((Gaussian(sigma=2.0), X), (Normalize(Spectrum(k=3)), SEQS)):
        here = local(lambda: Nystroem(kernel, **kw).fit(objects).transform(objects))
        there = Nystroem(kernel, client=client, **kw).fit(objects).transform(objects)
        assert np.array_equal(there, here)
        # and both are the features by their definition k(X, L) @ K_LL^(-1/2)
        ny = Nystroem(kernel, **kw).fit(objects)
        direct = kernel(objects, ny.components_) @ ny.normalization_
        np.testing.assert_allclose(there, direct, rtol=1e-10, atol=1e-12)


def test_nystroem_learners_equal(client, tuning):
    tuning.set(LANDMARK_BLOCK_ROWS=200)
    kw = dict(solver="nystroem", n_components=150, random_state=0)
    ridge = dict(alpha=1e-3, **kw)
    a = local(lambda: KernelRidge(Gaussian(sigma=1.5), **ridge).fit(X, Y).predict(X))
    # the solvers run in this process either way: under the same BLAS limit
    # (a two-thread and a one-thread product round differently, and
    # conjugate gradients carry that to ~1e-9 of the scale; another test in
    # the same worker may leave another limit)
    b = local(lambda: KernelRidge(Gaussian(sigma=1.5), client=client, **ridge).fit(X, Y).predict(X))
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-12 * np.abs(a).max())
    k = Normalize(Spectrum(k=3))
    a = local(lambda: KernelSVM(k, **kw).fit(SEQS, LABELS).decision_function(SEQS))
    b = local(lambda: KernelSVM(k, client=client, **kw).fit(SEQS, LABELS).decision_function(SEQS))
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-12 * np.abs(a).max())


def test_sparse_gp_through_a_client_equals_the_local_fit(client, tuning):
    tuning.set(SPARSE_GP_BLOCK_ROWS=100)  # 9 blocks, finishing in any order
    kw = dict(n_components=80, noise=0.3, random_state=0)
    here = local(lambda: SparseGaussianProcessRegressor(1.0 * Gaussian(1.0), **kw).fit(X, Y))
    there = SparseGaussianProcessRegressor(1.0 * Gaussian(1.0), client=client, **kw).fit(X, Y)
    np.testing.assert_allclose(there.kernel_.theta, here.kernel_.theta, rtol=1e-12, atol=0)
    assert abs(there.noise_ - here.noise_) <= 1e-12 * here.noise_
    mean_a, std_a = here.predict(X[:200], return_std=True)
    mean_b, std_b = there.predict(X[:200], return_std=True)
    np.testing.assert_allclose(mean_b, mean_a, rtol=0, atol=1e-12 * np.abs(mean_a).max())
    np.testing.assert_allclose(std_b, std_a, rtol=1e-12)
    assert abs(
        there.log_marginal_likelihood_value_ - here.log_marginal_likelihood_value_
    ) <= 1e-12 * abs(here.log_marginal_likelihood_value_)


def test_sparse_gp_kernel_sent_as_a_task_gives_the_same_fit(client, tuning):
    # DASK_INLINE_MAX_BYTES = 0: the kernel and its Cholesky factor go as a
    # task of their own each evaluation (the test above takes the default,
    # inside every block's task). The blocks are placed round robin on both
    # workers either way.
    tuning.set(SPARSE_GP_BLOCK_ROWS=100, DASK_INLINE_MAX_BYTES=0)
    kw = dict(n_components=40, noise=0.3, random_state=0)
    Xs, Ys = X[:400], Y[:400]
    here = local(lambda: SparseGaussianProcessRegressor(1.0 * Gaussian(1.0), **kw).fit(Xs, Ys))
    there = SparseGaussianProcessRegressor(1.0 * Gaussian(1.0), client=client, **kw).fit(Xs, Ys)
    np.testing.assert_allclose(there.kernel_.theta, here.kernel_.theta, rtol=1e-12, atol=0)
    np.testing.assert_allclose(
        there.predict(X[:50]), here.predict(X[:50]), rtol=0, atol=1e-12 * np.abs(Y).max()
    )


@pytest.mark.parametrize("inline", [True, False])
def test_nystroem_workers_count_the_landmarks_once(client, tuning, inline):
    """Each worker decodes the landmarks once (inside every task's
    specification, or as a task of their own) and counts their k-mers once
    for all its blocks; the features stay equal bit for bit."""
    tuning.set(LANDMARK_BLOCK_ROWS=200, DASK_INLINE_MAX_BYTES=(1 << 20) if inline else 0)
    k, kw = Normalize(Spectrum(k=3)), dict(n_components=120, random_state=0)
    ny = Nystroem(k, **kw).fit(SEQS)
    here = local(lambda: ny.transform(SEQS))
    client.run(count_kmer_counts)
    there = ny.set_params(client=client).transform(SEQS)
    assert np.array_equal(there, here)
    sizes = client.run(counted_sizes)
    # 700 objects in blocks of 200: 200, 200, 200, 100, each counted once on
    # the worker that ran it; the 120 landmarks once per worker that ran any
    assert sorted(s for w in sizes.values() for s in w if s != 120) == [100, 200, 200, 200]
    for worker_sizes in sizes.values():
        assert worker_sizes.count(120) == (1 if worker_sizes else 0)
