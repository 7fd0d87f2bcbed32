"""The learners' PSD check of Grams too large to factorise: principal
submatrices catch clearly indefinite Grams, and the report states the
threshold actually applied.

``KernelSVM`` on a *given* Gram too large to factorise certifies the block
of its free support vectors instead (tests/learners/test_svm_psd.py); the
SVM cases here give it the Gram through a user's kernel (:func:`lookup`),
whose Gram takes the general check tested here.
"""

import numpy as np
import pytest
from learners_util import gram_with_hidden_direction, gram_with_negative_part

from structk.exceptions import NotPSDError
from structk.learners import KernelRidge, KernelSVM


def lookup(K):
    """A user's kernel (``FunctionKernel``) whose Gram on the objects
    ``index`` (one row per object: its number) is ``K``."""
    from structk.kernels import FunctionKernel

    return FunctionKernel(lambda a, b: K[int(a[0]), int(b[0])], name="K lookup")


def fit_by_gram(learner, K, y):
    """``learner`` on the Gram ``K``: the SVM through a user's kernel that
    reads ``K`` (the general check, as a kernel's Gram), the others on
    ``K`` itself."""
    if isinstance(learner, KernelSVM):
        index = np.arange(float(K.shape[0]))[:, None]
        return KernelSVM(kernel=lookup(K)).fit(index, y)
    return learner.fit(K, y)


@pytest.mark.parametrize("learner", [KernelSVM(), KernelRidge()])
def test_clearly_indefinite_large_gram_is_refused(tuning, learner):
    tuning.set(PSD_FACTORISE_MAX_N=60, PSD_SMALL_CERTIFICATE_MAX_N=60)
    K, y = gram_with_negative_part(240, 40, 2.3e-5)
    assert np.linalg.eigvalsh(K)[0] < -1e-5 * np.linalg.norm(K)
    with pytest.raises(NotPSDError) as info:
        fit_by_gram(learner, K, y)
    report = info.value.report
    z = report.witness
    # the witness is a witness for the whole Gram (checked independently)
    assert z.shape == (240,) and z @ K @ z < -1e-6 * np.linalg.norm(K)
    assert z @ K @ z == pytest.approx(report.min_eigenvalue, rel=1e-6)
    text = str(info.value)
    assert "1e-6*||K||_F" in text and "10*n*eps" not in text
    assert "principal submatrix" in text and "objects 0, 4, 8" in text


def test_psd_large_gram_passes_and_none_skips(tuning):
    tuning.set(PSD_FACTORISE_MAX_N=60, PSD_SMALL_CERTIFICATE_MAX_N=60)
    K, y = gram_with_negative_part(240, 0, 0.0)
    KernelSVM().fit(K, y)
    K, y = gram_with_negative_part(240, 40, 2.3e-5)
    KernelSVM(psd_check="none").fit(K, y)


def test_small_gram_report_names_the_learners_threshold():
    K, y = gram_with_negative_part(50, 5, 1e-3)
    with pytest.raises(NotPSDError) as info:
        KernelSVM().fit(K, y)
    text = str(info.value)
    assert "tolerance:" in text and "the learners' 1e-6*||K||_F" in text
    assert info.value.report.tol == pytest.approx(1e-6 * np.linalg.norm(K))
    assert "10*n*eps" not in text


def test_check_psd_names_its_default_and_a_given_tolerance():
    from structk import check_psd

    K = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert "default 10*n*eps*||K||_F" in str(check_psd(K))
    assert "(given;" in str(check_psd(K, tol=0.5))


@pytest.mark.parametrize("learner", [KernelSVM(), KernelRidge()])
def test_isolated_negative_direction_outside_the_block_is_found(tuning, learner):
    from structk.learners._psd import necessary_psd, principal_blocks_psd

    tuning.set(PSD_FACTORISE_MAX_N=60, PSD_SMALL_CERTIFICATE_MAX_N=60)
    K, y = gram_with_hidden_direction(240, 0.01)
    scale = np.linalg.norm(K)
    assert np.linalg.eigvalsh(K)[0] < -0.01 * scale
    assert necessary_psd(K)  # the O(n^2) conditions hold,
    principal_blocks_psd(K)  # the submatrix cannot see it ...
    with pytest.raises(NotPSDError) as info:  # ... the Lanczos steps do
        fit_by_gram(learner, K, y)
    report = info.value.report
    z = report.witness
    assert report.method == "lanczos" and z.shape == (240,)
    assert z @ z == pytest.approx(1.0)
    assert z @ K @ z < -1e-6 * scale  # a witness for K, checked independently
    assert z @ K @ z == pytest.approx(report.min_eigenvalue, rel=1e-8)
    assert report.min_eigenvalue >= np.linalg.eigvalsh(K)[0]  # an upper bound
    text = str(info.value)
    assert "Lanczos" in text and "the learners' 1e-6*||K||_F" in text
    # without the steps, the direction goes unseen: the steps found it
    tuning.set(PSD_LANCZOS_STEPS=0, PSD_LANCZOS_STEPS_USER=0)
    fit_by_gram(learner, K, y)


def test_lanczos_is_deterministic():
    from structk.learners._psd import lanczos_psd

    K, _ = gram_with_hidden_direction(260, 0.01, seed=3)
    witnesses = []
    for _ in range(2):
        with pytest.raises(NotPSDError) as info:
            lanczos_psd(K, steps=12)
        witnesses.append(info.value.report.witness)
    np.testing.assert_array_equal(*witnesses)


@pytest.mark.parametrize("kind", ["gaussian", "rank 3", "rounding", "identity"])
def test_lanczos_passes_psd_grams(kind):
    """Ritz values never go below the smallest eigenvalue, so PSD Grams
    (with rounding-size negative eigenvalues, or of low rank, where the
    Krylov space becomes invariant after a few steps) always pass."""
    from structk.learners._psd import lanczos_psd

    rng = np.random.default_rng(1)
    n = 300
    if kind == "gaussian":
        K, _ = gram_with_negative_part(n, 0, 0.0)
    elif kind == "rank 3":
        A = rng.normal(size=(n, 3))
        K = A @ A.T
    elif kind == "rounding":
        K, _ = gram_with_negative_part(n, 20, 1e-9)
    else:
        K = np.eye(n)
    lanczos_psd(np.ascontiguousarray(K), steps=40)
    lanczos_psd(np.asfortranarray(K), steps=40)
    lanczos_psd(K.astype(np.float32), steps=40)  # the plain product path


def test_grams_from_outside_structk_get_the_longer_lanczos_check(tuning):
    """A Gram the learner was given, or computed with a user's function,
    gets ``PSD_LANCZOS_STEPS_USER`` steps: this one's negative eigenvalue
    (-2.3e-5 ||K||_F, the figure of the issue's SCOP block) needs more than
    20 steps (structk's own kernels get 10). (``KernelSVM`` given the Gram
    certifies its free support vectors instead: tests/learners/test_svm_psd.py.)"""
    from structk.learners._psd import lanczos_psd

    tuning.set(
        PSD_FACTORISE_MAX_N=60,
        PSD_SMALL_CERTIFICATE_MAX_N=60,
        PSD_BLOCKS_CHECKED=0,
        PSD_LANCZOS_STEPS=20,
        PSD_LANCZOS_STEPS_USER=60,
    )
    K, y = gram_with_negative_part(240, 40, 2.3e-5)
    assert np.linalg.eigvalsh(K)[0] < -2e-5 * np.linalg.norm(K)
    lanczos_psd(K, steps=20)  # not seen in 20 steps
    with pytest.raises(NotPSDError) as info:
        KernelRidge(kernel="precomputed").fit(K, y)
    assert info.value.report.method == "lanczos"
    z = info.value.report.witness
    assert z @ K @ z < -1e-6 * np.linalg.norm(K)  # checked independently
    index = np.arange(240.0)[:, None]
    with pytest.raises(NotPSDError, match="Lanczos"):
        KernelSVM(kernel=lookup(K)).fit(index, y)


def test_which_grams_count_as_from_outside_structk():
    from structk.kernels import FunctionKernel, Gaussian, Linear, Normalize, Spectrum
    from structk.kernels.base import Kernel
    from structk.learners._base import user_gram

    class Mine(Kernel):
        def _cross(self, X, Y):
            return np.asarray(X, float) @ np.asarray(Y, float).T

    assert user_gram("precomputed")
    assert user_gram(FunctionKernel(lambda a, b: 1.0))
    assert user_gram(Normalize(Gaussian() + 2 * FunctionKernel(lambda a, b: 1.0)))
    assert user_gram(Mine()) and user_gram(Linear() * Mine())
    assert not user_gram(Spectrum(k=3))
    assert not user_gram(Normalize(Gaussian(sigma=2.0) + Linear()) ** 2)
