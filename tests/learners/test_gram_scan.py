"""The pass that mirrors a kernel's Gram and scans it for the PSD check
(:func:`structk.algorithms.gram_blocks.mirror_and_scan`): the mirror, the
finiteness flag, the Cauchy-Schwarz excess and the norm against brute force;
the learners' verdict from the scan equals the verdict of their own pass;
closed-form kernels skip the Lanczos steps, the others do not."""

import numpy as np
import pytest

from structk.algorithms.gram_blocks import mirror_and_scan
from structk.exceptions import NotPSDError
from structk.kernels import FunctionKernel, Gaussian, Laplace, Linear, Normalize, Spectrum
from structk.learners import KernelRidge, KernelSVM
from structk.learners._base import closed_form_gram
from structk.learners._psd import check_psd_policy


def brute_scan(K):
    n = K.shape[0]
    s = np.sqrt(np.maximum(np.diag(K), 0.0))
    off = ~np.eye(n, dtype=bool)
    excess = (np.abs(K) - s[:, None] * s[None, :])[off]
    return np.isfinite(K).all(), excess.max(), float((K * K).sum())


def upper_only(K, fill):
    A = K.copy()
    A[np.tril_indices(K.shape[0], -1)] = fill
    return A


@pytest.mark.parametrize("n", [400, 401, 463, 1000])
def test_scan_mirrors_and_measures_like_brute_force(n):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 4))
    K = X @ X.T + rng.normal(scale=0.3, size=(n, n))  # not PSD: CS fails
    K = (K + K.T) / 2
    A = upper_only(K, 123.0)
    scan = mirror_and_scan(A)
    np.testing.assert_array_equal(A, K)
    finite, excess, sum_sq = brute_scan(K)
    assert scan.finite == finite
    assert scan.cs_excess == pytest.approx(excess, rel=1e-12)
    assert scan.sum_sq == pytest.approx(sum_sq, rel=1e-12)


@pytest.mark.parametrize("where", [(0, 1), (3, 450), (499, 499), (120, 121)])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_scan_sees_every_non_finite_entry_of_the_upper_triangle(where, value):
    K = np.eye(500)
    K[where] = value
    scan = mirror_and_scan(K)
    assert not scan.finite
    i, j = where
    assert np.isnan(K[j, i]) if np.isnan(value) else K[j, i] == value


def test_small_and_foreign_layout_grams_are_mirrored_without_a_scan():
    rng = np.random.default_rng(0)
    for K in (rng.normal(size=(50, 50)), np.asfortranarray(rng.normal(size=(600, 600)))):
        A = K.copy(order="K")
        assert mirror_and_scan(A) is None
        np.testing.assert_array_equal(np.triu(A), np.triu(K))
        np.testing.assert_array_equal(A, A.T)


def test_scan_does_not_depend_on_the_number_of_threads():
    import numba

    rng = np.random.default_rng(5)
    X = rng.normal(size=(2100, 3))
    K = Gaussian(sigma=2.0)(X)
    scans = []
    for threads in (1, 2):
        numba.set_num_threads(threads)
        try:
            scans.append(mirror_and_scan(upper_only(K, 0.0)))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert scans[0] == scans[1]  # bit for bit


@pytest.mark.parametrize("seed", range(6))
def test_policy_verdict_from_the_scan_equals_the_verdict_of_the_pass(tuning, seed):
    """The same Gram, checked from its scan and by the learners' own pass:
    both refuse or both accept (Grams that break Cauchy-Schwarz by a little
    and by a lot, with negative diagonals, and PSD ones)."""
    tuning.set(PSD_SMALL_CERTIFICATE_MAX_N=10)
    rng = np.random.default_rng(seed)
    n = 450
    X = rng.normal(size=(n, 3))
    K = Gaussian(sigma=1.0)(X)
    if seed % 3 == 1:  # one entry above sqrt(K_ii K_jj) by 10^(-seed)
        K[7, 300] = K[300, 7] = 1.0 + 10.0 ** (-seed)
    elif seed % 3 == 2:
        K[11, 11] = -1e-3 * seed
    verdicts = []
    for scan in (None, mirror_and_scan(upper_only(K, 0.0))):
        try:
            check_psd_policy(K, "auto", scan=scan)
            verdicts.append("passed")
        except NotPSDError:
            verdicts.append("refused")
    assert verdicts[0] == verdicts[1]
    assert verdicts[0] == ("passed" if seed % 3 == 0 else "refused")


def test_closed_form_kernels_are_the_vector_kernels_and_their_algebra():
    assert closed_form_gram(Gaussian(sigma=1.0))
    assert closed_form_gram(Normalize(Linear() + 2.0 * Laplace(sigma=1.0)) ** 2)
    assert not closed_form_gram(Gaussian(sigma=1.0) + Spectrum(3))
    assert not closed_form_gram(FunctionKernel(lambda x, y: float(x @ y)))
    assert not closed_form_gram("precomputed")


def test_lanczos_steps_follow_the_kind_of_gram(monkeypatch, tuning):
    """Closed-form kernels get PSD_LANCZOS_STEPS_CLOSED_FORM steps, the other
    structk kernels PSD_LANCZOS_STEPS, a given Gram PSD_LANCZOS_STEPS_USER
    (except KernelSVM's, which certifies its free support vectors instead)."""
    from structk.learners import _psd

    tuning.set(
        PSD_FACTORISE_MAX_N=60,
        PSD_SMALL_CERTIFICATE_MAX_N=60,
        PSD_LANCZOS_STEPS=7,
        PSD_LANCZOS_STEPS_CLOSED_FORM=2,
        PSD_LANCZOS_STEPS_USER=9,
    )
    seen = []
    monkeypatch.setattr(_psd, "lanczos_psd", lambda K, steps, scale: seen.append(steps))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    seqs = ["".join(rng.choice(list("ACGT"), 30)) for _ in range(120)]
    KernelSVM(Gaussian(sigma=1.0)).fit(X, y)
    KernelSVM(Normalize(Spectrum(3))).fit(seqs, y)
    KernelRidge("precomputed").fit(Gaussian(sigma=1.0)(X), y)
    assert seen == [2, 7, 9]
    KernelSVM("precomputed").fit(Gaussian(sigma=1.0)(X), y)
    assert seen == [2, 7, 9]  # no steps: tests/learners/test_svm_psd.py
