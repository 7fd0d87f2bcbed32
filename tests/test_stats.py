"""structk.stats: definitions on tiny inputs, hyppo on vectors, level and power."""

import numpy as np
import pytest
from learners_util import string_data

from structk import Gaussian, Linear, Normalize, Spectrum
from structk.kernels import FunctionKernel
from structk.stats import alignment, hsic_test, mmd_test


def brute_mmd2_unbiased(k, X, Y):
    m, n = len(X), len(Y)
    sxx = sum(k(X[i], X[j]) for i in range(m) for j in range(m) if i != j)
    syy = sum(k(Y[i], Y[j]) for i in range(n) for j in range(n) if i != j)
    sxy = sum(k(x, y) for x in X for y in Y)
    return sxx / (m * (m - 1)) + syy / (n * (n - 1)) - 2 * sxy / (m * n)


def overlap(a, b):
    """Shared letters of two strings, counted with multiplicity (a PSD kernel)."""
    return float(sum(min(a.count(c), b.count(c)) for c in "ACGT"))


def gauss(sigma):
    return lambda a, b: float(np.exp(-np.sum((a - b) ** 2) / (2 * sigma**2)))


def test_mmd_equals_its_definition_on_strings():
    X, _ = string_data(7, seed=1)
    Y, _ = string_data(5, seed=2)
    res = mmd_test(FunctionKernel(overlap), X, Y, n_permutations=50, random_state=0)
    assert res.statistic == pytest.approx(brute_mmd2_unbiased(overlap, X, Y), rel=1e-12)
    assert res.null_distribution.shape == (50,)


def test_mmd_null_statistics_equal_the_definition_on_their_splits():
    """Every permuted statistic is the MMD of some re-split of the pooled sample."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    Z = np.concatenate([X, Y])
    from itertools import combinations

    k = gauss(1.0)
    all_splits = {
        round(brute_mmd2_unbiased(k, Z[list(c)], Z[[i for i in range(7) if i not in c]]), 10)
        for c in combinations(range(7), 4)
    }
    res = mmd_test(Gaussian(sigma=1.0), X, Y, n_permutations=40, random_state=1)
    assert {round(v, 10) for v in res.null_distribution} <= all_splits


def _mmd_matches_hyppo_on_vectors():
    """hyppo's MMD (bias=True) is c * sqrt(HSIC(K, S) / sqrt(HSIC(K, K) HSIC(S, S)))
    with S the same-group indicator and c = 2 m^2 n^2 / N^4, and HSIC(K, S) =
    c * MMD_b^2 (Shen & Vogelstein 2020); MMD_b^2 is our unbiased value with the
    diagonal terms put back."""
    from hyppo.ksample import MMD

    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(30, 3)), rng.normal(loc=0.4, size=(25, 3))
    m, n, N = 30, 25, 55
    k = Gaussian(sigma=1.5)
    ours = mmd_test(k, X, Y, n_permutations=1000, random_state=0)
    Z = np.concatenate([X, Y])
    K = k(Z)
    Kxx, Kyy, Kxy = K[:m, :m], K[m:, m:], K[:m, m:]
    # put the diagonals back: the within-group sums of the unbiased estimate
    within = ours.statistic + 2 * Kxy.sum() / (m * n)  # = sxx/(m(m-1)) + syy/(n(n-1))
    assert within == pytest.approx(
        (Kxx.sum() - np.trace(Kxx)) / (m * (m - 1)) + (Kyy.sum() - np.trace(Kyy)) / (n * (n - 1)),
        rel=1e-12,
    )
    mmd_b = Kxx.sum() / m**2 + Kyy.sum() / n**2 - 2 * Kxy.sum() / (m * n)
    H = np.eye(N) - 1.0 / N
    S = np.zeros((N, N))
    S[:m, :m] = S[m:, m:] = 1.0
    hsic_kk = hsic_test(k, k, Z, Z, n_permutations=0).statistic
    hsic_ss = np.sum((H @ S @ H) ** 2) / N**2
    c = 2 * m**2 * n**2 / N**4
    expected = c * np.sqrt(c * mmd_b / np.sqrt(hsic_kk * hsic_ss))
    ref = MMD(compute_kernel=lambda a: k(a), bias=True)
    assert ref.statistic(X, Y) == pytest.approx(expected, rel=1e-8)
    # both permutation p-values estimate the same exact p-value
    _, p_ref = ref.test(X, Y, reps=1000, random_state=0)
    assert abs(ours.pvalue - p_ref) < 0.05


def _hsic_matches_hyppo_on_vectors():
    """hyppo's Hsic (bias=True) is the square root of HSIC normalised by the two
    self-HSICs (its biased distance covariances are square-rooted)."""
    from hyppo.independence import Hsic

    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 2))
    y = np.column_stack([x[:, 0] ** 2, rng.normal(size=40)]) + 0.3 * rng.normal(size=(40, 2))
    kx, ky = Gaussian(sigma=1.0), Gaussian(sigma=2.0)
    ours = hsic_test(kx, ky, x, y, n_permutations=1000, random_state=0)
    Kx, Ky = kx(x), ky(y)
    H = np.eye(40) - 1 / 40
    assert ours.statistic == pytest.approx(np.trace(Kx @ H @ Ky @ H) / 40**2, rel=1e-12)
    sxx = hsic_test(kx, kx, x, x, n_permutations=0).statistic
    syy = hsic_test(ky, ky, y, y, n_permutations=0).statistic
    ref = Hsic(compute_kernel=None, bias=True)
    assert ref.statistic(Kx, Ky) ** 2 == pytest.approx(
        ours.statistic / np.sqrt(sxx * syy), rel=1e-8
    )
    _, p_ref = ref.test(Kx, Ky, reps=1000, random_state=0)
    assert abs(ours.pvalue - p_ref) < 0.05


def test_mmd_and_hsic_match_hyppo_on_vectors():
    """Both comparisons with hyppo in one test: hyppo's first import compiles
    its numba code (~50 s with a cold cache), and two tests ran it on both
    pytest-xdist workers at once."""
    _mmd_matches_hyppo_on_vectors()
    _hsic_matches_hyppo_on_vectors()


def test_level_over_repeated_null_splits():
    """Type I error at 0.05 over 400 null data sets stays below 0.07 for both tests."""
    rng = np.random.default_rng(5)
    k = Gaussian(sigma=1.0)
    rejected_mmd = rejected_hsic = 0
    reps = 400
    for _ in range(reps):
        pool = rng.standard_t(df=3, size=(24, 2))
        rejected_mmd += (
            mmd_test(k, pool[:12], pool[12:], n_permutations=99, random_state=rng).pvalue <= 0.05
        )
        rejected_hsic += (
            hsic_test(k, k, pool[:12], pool[12:], n_permutations=99, random_state=rng).pvalue
            <= 0.05
        )
    assert rejected_mmd / reps <= 0.07
    assert rejected_hsic / reps <= 0.07
    # and the tests are not trivially conservative
    assert rejected_mmd / reps >= 0.02 and rejected_hsic / reps >= 0.02


def test_pvalue_is_one_when_nothing_differs():
    X = np.zeros((5, 2))
    res = mmd_test(Linear(), X, X, n_permutations=30, random_state=0)
    assert res.pvalue == 1.0


def test_alignment_definition_and_special_cases():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(20, 3))
    y = np.where(X[:, 0] > 0, "pos", "neg")
    K = Gaussian(sigma=1.0)(X)
    H = np.eye(20) - 1 / 20
    s = np.where(y == "pos", 1.0, -1.0)
    Kc, Lc = H @ K @ H, H @ np.outer(s, s) @ H
    want = np.sum(Kc * Lc) / (np.linalg.norm(Kc) * np.linalg.norm(Lc))
    assert alignment(K, y).statistic == pytest.approx(want, rel=1e-12)
    assert alignment(Gaussian(sigma=1.0), y, X=X).statistic == pytest.approx(want, rel=1e-12)
    # a Gram built from the labels themselves is perfectly aligned
    assert alignment(np.outer(s, s), y).statistic == pytest.approx(1.0)
    # real targets use y y^T
    t = X[:, 0].copy()
    assert alignment(np.outer(t, t), t).statistic == pytest.approx(1.0)
    res = alignment(K, y, n_permutations=200, random_state=0)
    assert res.pvalue < 0.01 and res.pvalue >= 1 / 201


def test_alignment_ranks_kernels_on_strings():
    X, y = string_data(60, seed=7)  # labels: more A than T
    good = alignment(Normalize(Spectrum(k=1)), y, X=X).statistic
    poor = alignment(FunctionKernel(lambda a, b: float(len(a) * len(b))), y, X=X).statistic
    assert good > 0.2 > poor


def test_power_on_splice(structk_data):
    from structk.datasets import load_splice

    data = load_splice(structk_data("sequences/splice/splice.data"))
    seqs = np.array(data.sequences, dtype=object)
    rng = np.random.default_rng(0)
    ei = list(rng.choice(seqs[data.target == "EI"], 40, replace=False))
    ie = list(rng.choice(seqs[data.target == "IE"], 40, replace=False))
    k = Normalize(Spectrum(k=3, unknown="skip"))
    assert mmd_test(k, ei, ie, n_permutations=200, random_state=0).pvalue < 0.01
    labels = np.array(["EI"] * 40 + ["IE"] * 40)
    onehot = np.column_stack([labels == "EI", labels == "IE"]).astype(float)
    assert hsic_test(k, Linear(), ei + ie, onehot, n_permutations=200, random_state=0).pvalue < 0.01
    # two halves of the same class pool: no difference found
    assert mmd_test(k, ei[:20], ei[20:], n_permutations=200, random_state=0).pvalue > 0.05


# ------------------------------------------------------------ precomputed
def test_precomputed_mmd_is_the_kernel_path_on_the_pooled_gram():
    X, _ = string_data(9, seed=1)
    Y, _ = string_data(6, seed=2)
    k = Normalize(Spectrum(k=2))
    ours = mmd_test(k, X, Y, n_permutations=200, random_state=3)
    for labels in ([0] * 9 + [1] * 6, ["x"] * 9 + ["y"] * 6):
        pre = mmd_test("precomputed", k(X + Y), labels, n_permutations=200, random_state=3)
        assert pre.statistic == ours.statistic and pre.pvalue == ours.pvalue
        np.testing.assert_array_equal(pre.null_distribution, ours.null_distribution)
    # a Gram written as nested lists is a Gram too
    pre = mmd_test(
        "precomputed", k(X + Y).tolist(), [0] * 9 + [1] * 6, n_permutations=200, random_state=3
    )
    assert pre.pvalue == ours.pvalue


def test_precomputed_mmd_with_interleaved_rows_is_the_definition():
    """Labels mark the samples wherever their rows are; the statistic is the
    unbiased MMD of the two groups, by brute force."""
    X, _ = string_data(6, seed=4)
    Y, _ = string_data(5, seed=5)
    pooled = [None] * 11
    labels = np.array(["b", "a", "b", "a", "a", "b", "b", "a", "b", "a", "b"])
    it_x, it_y = iter(X), iter(Y)
    for i, lab in enumerate(labels):
        pooled[i] = next(it_y) if lab == "a" else next(it_x)
    K = FunctionKernel(overlap)(pooled)
    res = mmd_test("precomputed", K, labels, n_permutations=30, random_state=0)
    # "a" sorts first: it is the first sample; the statistic is symmetric anyway
    assert res.statistic == pytest.approx(brute_mmd2_unbiased(overlap, Y, X), rel=1e-12)
    assert res.statistic == pytest.approx(brute_mmd2_unbiased(overlap, X, Y), rel=1e-12)


def test_precomputed_hsic_is_the_kernel_path():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(25, 1))
    y = x**2 + 0.3 * rng.normal(size=(25, 1))
    kx, ky = Gaussian(sigma=1.0), Gaussian(sigma=0.5)
    ours = hsic_test(kx, ky, x, y, n_permutations=300, random_state=7)
    K, L = kx(x), ky(y)
    for pre in (
        hsic_test("precomputed", "precomputed", K, L, n_permutations=300, random_state=7),
        hsic_test("precomputed", ky, K, y, n_permutations=300, random_state=7),
        hsic_test(kx, "precomputed", x, L, n_permutations=300, random_state=7),
    ):
        assert pre.statistic == ours.statistic and pre.pvalue == ours.pvalue
        np.testing.assert_array_equal(pre.null_distribution, ours.null_distribution)
    # and the statistic is tr(KHLH) / n^2
    H = np.eye(25) - 1 / 25
    assert ours.statistic == pytest.approx(np.trace(K @ H @ L @ H) / 25**2, rel=1e-10)


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: mmd_test("precomputed", np.ones((3, 4)), [0, 0, 1]),
            r"kernel='precomputed', X must be a square Gram matrix, got shape \(3, 4\)",
        ),
        (
            lambda: mmd_test("precomputed", ["AC", "GT", "TT"], [0, 0, 1]),
            "X must be a square Gram matrix, got a list of objects; to test objects, give a "
            "structk kernel as kernel",
        ),
        (
            lambda: mmd_test("precomputed", np.eye(4), [0, 0, 1]),
            r"Y must hold one sample label per row of the Gram matrix X \(4\), got shape \(3,\)",
        ),
        (lambda: mmd_test("precomputed", np.eye(4), [[0, 0], [1, 1]]), "got shape \\(2, 2\\)"),
        (
            lambda: mmd_test("precomputed", np.eye(4), [0, 0, 0, 0]),
            "Y must hold exactly 2 distinct sample labels, got 1",
        ),
        (lambda: mmd_test("precomputed", np.eye(4), [0, 1, 2, 2]), "exactly 2 distinct"),
        (
            lambda: mmd_test("precomputed", np.eye(4), ["s", "t", "t", "t"]),
            "the sample labelled 's' in Y has 1 object",
        ),
        (
            lambda: mmd_test("precomputed", [[1, 2], [0, 1]], [0, 1]),
            r"X must be a symmetric Gram matrix: X\[0, 1\] = 2 but X\[1, 0\] = 0",
        ),
        (
            lambda: mmd_test("precomputed", np.diag([1.0, np.nan]), [0, 1]),
            r"X holds a non-finite value nan at entry \(1, 1\)",
        ),
        (
            lambda: hsic_test("precomputed", "precomputed", np.eye(4), np.eye(3)),
            "X is a Gram matrix of 4 objects but Y is a Gram matrix of 3 objects",
        ),
        (
            lambda: hsic_test(Linear(), "precomputed", np.ones((4, 2)), np.eye(3)),
            "X has 4 objects but Y is a Gram matrix of 3 objects",
        ),
        (
            lambda: hsic_test(Linear(), "precomputed", np.ones((3, 2)), np.ones((3, 2))),
            r"kernel_y='precomputed', Y must be a square Gram matrix, got shape \(3, 2\)",
        ),
        (
            lambda: hsic_test("precomputed", Linear(), np.ones(3), np.ones((3, 2))),
            r"kernel_x='precomputed', X must be a square Gram matrix, got shape \(3,\); to test "
            "objects, give a structk kernel as kernel_x",
        ),
        (
            lambda: hsic_test("rbf", Linear(), np.ones((3, 2)), np.ones((3, 2))),
            "kernel_x must be a structk Kernel or 'precomputed'",
        ),
    ],
)
def test_bad_precomputed_input_names_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: mmd_test(Linear(), np.ones((1, 2)), np.ones((3, 2))), "X has 1 object"),
        (lambda: mmd_test(Linear(), np.ones((3, 2)), np.ones((3, 3))), "different shapes"),
        (
            lambda: mmd_test(Linear(), np.ones((3, 2)), np.ones((3, 2)), n_permutations=-1),
            "n_permutations must be >= 0",
        ),
        (lambda: mmd_test("rbf", np.ones((3, 2)), np.ones((3, 2))), "structk Kernel"),
        (
            lambda: hsic_test(Linear(), Linear(), np.ones((4, 2)), np.ones((3, 2))),
            "X has 4 objects but Y has 3",
        ),
        (lambda: alignment(np.eye(3), [0, 1]), "y has 2"),
        (lambda: alignment(np.eye(3), [0, 0, 0]), "y is constant"),
        (lambda: alignment(np.ones((3, 3)), [0, 1, 1]), "constant kernel"),
        (lambda: alignment(Linear(), [0, 1, 1]), "pass the objects as X"),
        (lambda: alignment(np.eye(3), [0.0, 1.0, np.nan]), r"y\[2\] is nan"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_reachable_after_import_structk():
    import structk

    assert structk.stats.mmd_test is mmd_test
    assert "stats" in dir(structk)
