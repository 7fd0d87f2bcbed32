"""``KernelSVM`` on a given Gram too large to factorise: what its default
``psd_check="auto"`` certifies (structk.learners._psd, "What a precomputed
SVM fit certifies"). The O(n^2) necessary conditions before the solve, a
failing one reported from its 2 x 2 (or 1 x 1) principal submatrix, and
after the solve the block of the free support vectors (0 < alpha < C);
nothing else of the spectrum."""

import numpy as np
import pytest
from learners_util import blobs, gram_with_hidden_direction, gram_with_negative_part, rbf_gram

import structk.psd
from structk.exceptions import NotPSDError
from structk.learners import KernelSVM
from structk.learners._psd import necessary_psd, solution_block_psd

LARGE = {"PSD_FACTORISE_MAX_N": 60, "PSD_SMALL_CERTIFICATE_MAX_N": 60}


def gaussian_problem(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return np.exp(-0.1 * ((X[:, None] - X[None]) ** 2).sum(-1)), y


def free_objects(model):
    return model.support_[np.abs(model.dual_coef_).max(axis=0) < model.C]


def saddle(seed, C=10.0, rel=1e-4):
    """A fitted model on a PSD Gram ``K0`` and a Gram ``K`` with a negative
    direction ``u`` inside that model's free support vectors, orthogonal to
    its coefficients: ``K (y alpha) = K0 (y alpha)``, so the model's point
    is still a KKT point of ``K``'s dual (a saddle: the block of the free
    support vectors is indefinite), and SMO started there stops at once."""
    K0, y = gaussian_problem(240, seed)
    model = KernelSVM(C=C).fit(K0, y)
    free = free_objects(model)
    c = np.zeros(len(y))
    c[model.support_] = model.dual_coef_[0]
    u = np.zeros(len(y))
    u[free] = np.random.default_rng(seed).normal(size=len(free))
    u[free] -= (u[free] @ c[free]) / (c[free] @ c[free]) * c[free]
    u /= np.linalg.norm(u)
    K = K0 - (rel * np.linalg.norm(K0) + u @ K0 @ u) * np.outer(u, u)
    return (K + K.T) / 2, y, model, u


@pytest.mark.parametrize("seed", [0, 1])
def test_a_negative_direction_among_the_free_support_vectors_is_reported(tuning, seed):
    tuning.set(SVM_IPM_MAX_N=0, **LARGE)  # SMO from the given start (no interior point)
    K, y, start, u = saddle(seed)
    scale = np.linalg.norm(K)
    free = free_objects(start)
    assert u @ K @ u < -1e-5 * scale  # indefinite along u,
    assert necessary_psd(K)  # which no 2 x 2 principal submatrix shows
    stuck = KernelSVM(C=10.0, psd_check="none").fit(K, y, init=start)
    assert stuck.n_iter_[0] == 0 and np.array_equal(free_objects(stuck), free)
    with pytest.raises(NotPSDError) as info:
        KernelSVM(C=10.0).fit(K, y, init=start)
    report = info.value.report
    z = report.witness
    assert report.method == "submatrix" and z.shape == (240,)
    assert set(np.flatnonzero(z)) <= set(free)  # a direction of the free block
    assert z @ K @ z < -1e-6 * scale  # a witness for K, checked independently
    block_min = np.linalg.eigvalsh(K[np.ix_(free, free)])[0]
    assert report.min_eigenvalue == pytest.approx(block_min, rel=1e-8)
    text = str(info.value)
    assert "NOT positive semi-definite" in text and "the learners' 1e-6*||K||_F" in text
    assert f"the block of the {len(free)} free support vectors (0 < alpha < C)" in text
    assert "objects " + ", ".join(str(i) for i in free[:8]) in text
    # the full check finds it too
    with pytest.raises(NotPSDError):
        KernelSVM(C=10.0, psd_check="full").fit(K, y, init=start)


def test_an_indefinite_direction_off_the_free_support_vectors_is_not_certified(tuning):
    """What the default does not see (documented): a negative direction
    outside the free support vectors passes; the full check refuses it."""
    tuning.set(**LARGE)
    K, y = gram_with_negative_part(240, 40, 2.3e-5)
    assert np.linalg.eigvalsh(K)[0] < -1e-5 * np.linalg.norm(K)
    model = KernelSVM().fit(K, y)
    free = free_objects(model)
    assert np.linalg.eigvalsh(K[np.ix_(free, free)])[0] > -1e-6 * np.linalg.norm(K)
    with pytest.raises(NotPSDError):
        KernelSVM(psd_check="full").fit(K, y)
    with pytest.raises(NotPSDError):
        structk.assert_psd(K)


@pytest.mark.parametrize(
    "options",
    [{}, {"loss": "squared_hinge"}, {"C": 100.0}, {"multi_class": "ovo"}, {"multi_class": "ovr"}],
)
def test_a_psd_gram_passes_and_only_the_free_block_is_factorised(
    tuning, monkeypatch, factorisations, options
):
    from structk.learners import _psd

    tuning.set(**LARGE)
    classes = 3 if "multi_class" in options else 2
    X, y = blobs(240, n_classes=classes, noise=2.0, seed=7)
    K = rbf_gram(X)

    def must_not_run(*args, **kwargs):
        raise AssertionError("a check of the whole spectrum ran")

    for name in ("principal_blocks_psd", "lanczos_psd", "raise_if_not_psd"):
        monkeypatch.setattr(_psd, name, must_not_run)
    monkeypatch.setattr(structk.psd, "check_psd", must_not_run)
    model = KernelSVM(**options).fit(K, y)
    unchecked = KernelSVM(**options, psd_check="none").fit(K, y)
    for name in ("support_", "dual_coef_", "intercept_", "rkhs_norm_", "n_iter_"):
        np.testing.assert_array_equal(getattr(model, name), getattr(unchecked, name))
    # one factorisation per machine, of its free support vectors' block
    machines = model.dual_coef_.shape[0]
    assert len(factorisations) == machines
    sizes = []
    for t in range(machines):
        c = np.abs(model.dual_coef_[t])
        top = np.inf if options.get("loss") == "squared_hinge" else model.C
        sizes.append(int(((c > 0) & (c < top)).sum()))
    assert [n for n, _ in factorisations] == sizes
    # the RKHS norm read from the solver's gradient is the definition's
    block = K[np.ix_(model.support_, model.support_)]
    want = np.sqrt(np.einsum("mi,ij,mj->m", model.dual_coef_, block, model.dual_coef_))
    np.testing.assert_allclose(model.rkhs_norm_, want, rtol=1e-10)


@pytest.mark.parametrize("entry", ["pair", "diagonal"])
def test_a_broken_small_minor_is_the_witness_with_its_objects(tuning, monkeypatch, entry):
    """A failing necessary condition is reported from the principal
    submatrix of its objects (the SMO pair's curvature K_ii + K_jj - 2 K_ij
    along e_i - e_j is at least twice its smallest eigenvalue), without the
    eigendecomposition of the whole Gram."""
    tuning.set(**LARGE)
    X, y = blobs(240, seed=4)
    K = rbf_gram(X)
    if entry == "pair":
        K[5, 7] = K[7, 5] = 3.0  # |K_57| > sqrt(K_55 K_77)
        objects, where = [5, 7], "objects 5 and 7"
    else:
        K[9, 9] = -1.0
        objects, where = [9], "object 9"
    check_psd = structk.psd.check_psd

    def small_only(A, *args, **kwargs):
        assert A.shape[0] <= 2, "the whole Gram was decomposed"
        return check_psd(A, *args, **kwargs)

    monkeypatch.setattr(structk.psd, "check_psd", small_only)
    with pytest.raises(NotPSDError) as info:
        KernelSVM().fit(K, y)
    report = info.value.report
    z = report.witness
    assert report.method == "submatrix" and z.shape == (240,)
    assert sorted(np.flatnonzero(z)) == objects
    assert z @ K @ z < -1e-6 * np.linalg.norm(K)  # checked independently
    assert z @ K @ z == pytest.approx(report.min_eigenvalue, rel=1e-10)
    if entry == "pair":
        eta = K[5, 5] + K[7, 7] - 2 * K[5, 7]
        assert eta < 0 and report.min_eigenvalue <= eta / 2
    assert f"the principal submatrix of {where}" in str(info.value)


def test_a_large_free_block_gets_its_own_principal_block_and_lanczos(tuning):
    """Past PSD_SOLUTION_FACTORISE_MAX_N objects the free block is searched
    (not factorised); the witness is written at the objects' indices."""
    tuning.set(PSD_SOLUTION_FACTORISE_MAX_N=100, PSD_FACTORISE_MAX_N=60)
    K, _ = gram_with_hidden_direction(240, 0.01)
    n = 480
    big = np.eye(n)
    objects = np.arange(1, n, 2)  # the block's objects, every other one
    big[np.ix_(objects, objects)] = K
    with pytest.raises(NotPSDError) as info:
        solution_block_psd(big, objects, objects, "the test block")
    z = info.value.report.witness
    assert z.shape == (n,) and not z[::2].any()
    assert z @ big @ z < -1e-6 * np.linalg.norm(big)
    assert "the test block" in str(info.value)
    solution_block_psd(np.eye(n), objects, objects, "a PSD block")  # passes


def test_the_free_blocks_are_read_where_a_permuted_gram_holds_them(tuning, monkeypatch):
    """One-vs-one on a Gram the fit owns (here a Fortran-ordered copy) may
    permute it in place (``_linalg.FrontBlocks``): each certified block is
    still the free support vectors' block of the caller's Gram."""
    from structk.learners import _svm_paths
    from structk.learners._smo import machines

    tuning.set(SVM_BLOCK_COPY_MAX_FRACTION=0.0, **LARGE)  # permute, copy nothing
    permuted = []

    class Recorded(machines.FrontBlocks):
        def block(self, rows):
            permuted.append(len(rows))
            return super().block(rows)

    monkeypatch.setattr(machines, "FrontBlocks", Recorded)
    X, y = blobs(240, n_classes=3, noise=2.0, seed=7)
    K = rbf_gram(X)
    blocks = []
    certify = _svm_paths.solution_block_psd

    def seen(G, positions, objects, what):
        blocks.append((G[np.ix_(positions, positions)].copy(), np.array(objects)))
        return certify(G, positions, objects, what)

    monkeypatch.setattr(_svm_paths, "solution_block_psd", seen)
    model = KernelSVM().fit(np.asfortranarray(K), y)
    assert len(blocks) == 3
    for t, (block, objects) in enumerate(blocks):
        np.testing.assert_array_equal(block, K[np.ix_(objects, objects)])
        c = np.abs(model.dual_coef_[t])
        np.testing.assert_array_equal(objects, model.support_[(c > 0) & (c < model.C)])
    assert permuted  # the Gram was permuted in place
