"""Repairs of similarities that are not kernels: nearest_psd and EmpiricalKernelMap,
on the Smith-Waterman score and the log of the local alignment kernel."""

import numpy as np
import pytest
from sklearn.base import clone

from structk import check_psd, gram
from structk.kernels import (
    EmpiricalKernelMap,
    FunctionKernel,
    LocalAlignment,
    Normalize,
    SpectrumRepair,
    smith_waterman,
)
from structk.psd import nearest_psd
from structk.testing import assert_kernel_psd, find_psd_counterexample, strings

RNG = np.random.default_rng(3)
AMINO = "ACDEFGHIKLMNPQRSTVWY"


def random_strings(n, alphabet, lo, hi):
    return ["".join(RNG.choice(list(alphabet), RNG.integers(lo, hi + 1))) for _ in range(n)]


def sw_pair(s, t):
    return smith_waterman([s], [t], gap_open=2, gap_extend=1)[0, 0]


def log_la_pair(s, t):
    return LocalAlignment(beta=0.5, gap_open=2, gap_extend=1).log_kernel([s], [t])[0, 0]


# ----------------------------------------------- the similarities are not PSD
@pytest.mark.parametrize("func", [sw_pair, log_la_pair], ids=["smith_waterman", "log_LA"])
def test_kit_finds_alignment_scores_are_not_psd(func):
    # non-PSD sets need several short sequences over few symbols
    cx = find_psd_counterexample(
        FunctionKernel(func, name=func.__name__),
        strings("AW", min_size=1, max_size=6),
        pool_sizes=(32, 64),
    )
    assert cx is not None and cx.min_eigenvalue < 0
    K = np.array([[func(s, t) for t in cx.objects] for s in cx.objects])
    assert np.linalg.eigvalsh(K)[0] == pytest.approx(cx.min_eigenvalue, rel=1e-6, abs=1e-9)


# ---------------------------------------------------------------- nearest_psd
def indefinite(n, seed=0):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return (A + A.T) / 2


@pytest.mark.parametrize("method", ["clip", "flip", "shift"])
def test_nearest_psd_spectra(method):
    K = indefinite(30)
    w, V = np.linalg.eigh(K)
    R = nearest_psd(K, method)
    assert (R == R.T).all() and check_psd(R)
    got = np.linalg.eigvalsh(R)
    want = {"clip": np.maximum(w, 0), "flip": np.abs(w), "shift": w - w[0]}[method]
    np.testing.assert_allclose(got, np.sort(want), atol=1e-12 * np.abs(w).max())
    if method == "shift":  # off-diagonal similarities untouched
        off = ~np.eye(30, dtype=bool)
        assert (R[off] == K[off]).all()
    else:  # same eigenvectors
        np.testing.assert_allclose(V.T @ R @ V, np.diag(want), atol=1e-10)


def test_clip_is_the_nearest_psd_matrix():
    K = indefinite(12, seed=4)
    R = nearest_psd(K, "clip")
    best = np.linalg.norm(K - R)
    rng = np.random.default_rng(0)
    for _ in range(200):  # no PSD matrix near R is nearer to K
        B = rng.normal(size=(12, 12)) * 0.05
        P = nearest_psd(R + (B + B.T) / 2, "clip")
        assert np.linalg.norm(K - P) >= best - 1e-12


def test_psd_input_is_kept():
    X = np.random.default_rng(1).normal(size=(20, 40))
    K = X @ X.T  # positive definite, smallest eigenvalue far from 0
    np.testing.assert_array_equal(nearest_psd(K, "shift"), K)
    for method in ("clip", "flip"):
        np.testing.assert_allclose(nearest_psd(K, method), K, atol=1e-12 * np.abs(K).max())


def test_nearest_psd_repairs_alignment_scores():
    X = random_strings(40, "AW", 1, 6)  # short, over two symbols: not PSD
    for S in (smith_waterman(X), LocalAlignment(beta=0.5).log_kernel(X)):
        assert not check_psd(S)
        for method in ("clip", "flip", "shift"):
            assert check_psd(nearest_psd(S, method))


@pytest.mark.parametrize(
    "K, method, message",
    [
        (np.eye(2), "eig", "method must be one of"),
        (np.array([[1.0, 2.0], [0.0, 1.0]]), "clip", "not symmetric"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), "clip", "non-finite"),
        (np.ones((2, 3)), "flip", "square"),
    ],
)
def test_nearest_psd_bad_input(K, method, message):
    with pytest.raises(ValueError, match=message):
        nearest_psd(K, method)


def test_nearest_psd_does_not_modify_input():
    K = indefinite(6)
    before = K.copy()
    nearest_psd(K, "shift")
    nearest_psd(K, "clip")
    assert (K == before).all()


# --------------------------------------------------------- empirical kernel map
X = random_strings(12, AMINO, 3, 30)
Z = random_strings(5, AMINO, 5, 25)


@pytest.mark.parametrize(
    "similarity",
    [
        smith_waterman,
        LocalAlignment(beta=0.5).log_kernel,
        FunctionKernel(sw_pair),
    ],
)
def test_ekm_is_the_inner_product_of_similarity_profiles(similarity):
    k = EmpiricalKernelMap(similarity, Z)
    S = (
        np.array([[sw_pair(x, z) for z in Z] for x in X])
        if isinstance(similarity, FunctionKernel)
        else np.asarray(similarity(X, Z))
    )
    np.testing.assert_allclose(k.features(X), S, rtol=1e-15)
    np.testing.assert_allclose(k(X), S @ S.T, rtol=1e-12)
    np.testing.assert_allclose(k(X, X[:4]), S @ S[:4].T, rtol=1e-12)
    np.testing.assert_allclose(k.diag(X), (S**2).sum(axis=1), rtol=1e-12)
    assert check_psd(k(X))


def test_ekm_of_non_kernels_is_psd_under_the_kit():
    for func in (sw_pair, log_la_pair):
        k = EmpiricalKernelMap(FunctionKernel(func), ["ACD", "WWA", "CCDA"])
        assert_kernel_psd(k, strings("ACDW", max_size=6), pool_sizes=(16, 64))
        assert_kernel_psd(Normalize(k), strings("ACDW", max_size=6), pool_sizes=(16, 32))


def test_ekm_blocks_clone_and_repr():
    k = EmpiricalKernelMap(smith_waterman, Z)
    np.testing.assert_allclose(gram(k, X, block_size=5), k(X), rtol=1e-15)
    c = clone(k)
    np.testing.assert_array_equal(c(X), k(X))
    assert repr(k) == "EmpiricalKernelMap(smith_waterman, landmarks=<5 objects>)"
    assert "landmarks" in k.get_params()


def test_ekm_bad_input():
    with pytest.raises(TypeError, match="similarity must be a structk Kernel or a function"):
        EmpiricalKernelMap("smith_waterman", Z)(X)
    with pytest.raises(ValueError, match="landmarks is empty"):
        EmpiricalKernelMap(smith_waterman, [])(X)
    with pytest.raises(ValueError, match=r"returned shape \(12, 4\), expected \(12, 5\)"):
        EmpiricalKernelMap(lambda A, B: np.zeros((len(A), 4)), Z)(X)

    def holey(A, B):
        out = np.ones((len(A), len(B)))
        out[2, 3] = np.nan
        return out

    with pytest.raises(ValueError, match=r"similarity\(X\[2\], landmarks\[3\]\) is nan"):
        EmpiricalKernelMap(holey, Z)(X)
    with pytest.raises(ValueError, match=r"X\[0\] has symbol 'J'"):
        EmpiricalKernelMap(smith_waterman, Z)(["MJK"])


# ------------------------------------------------------------- SpectrumRepair
def test_spectrum_repair_on_training_objects_is_the_repaired_matrix():
    T = random_strings(30, "AW", 1, 6)  # short, over two symbols: not PSD
    S = smith_waterman(T)
    assert not check_psd(S)
    for method in ("clip", "flip"):
        k = SpectrumRepair(smith_waterman, method=method).fit(T)
        np.testing.assert_allclose(k(T), nearest_psd(S, method), atol=1e-10 * np.abs(S).max())
        # the same from a copy of the list (similarities recomputed, not cached)
        np.testing.assert_allclose(k(list(map(str, T))), k(T), atol=1e-9 * np.abs(S).max())


def test_spectrum_repair_extends_to_new_objects_by_projection():
    T = random_strings(30, "AW", 1, 6)
    N = random_strings(10, "AW", 1, 6)
    S = smith_waterman(T)
    k = SpectrumRepair(smith_waterman).fit(T)
    # reference: s(z, T) P s(T, y) / ... written with the clipped matrix S+:
    # k(z, y) = s(z, T) pinv(S+) s(T, y), restricted to the positive eigenspace
    Sp = nearest_psd(S, "clip")
    w, V = np.linalg.eigh(Sp)
    keep = w > 1e-10 * np.abs(np.linalg.eigvalsh(S)).max()
    pinv = (V[:, keep] / w[keep]) @ V[:, keep].T
    SN = smith_waterman(N, T)
    np.testing.assert_allclose(k(N), SN @ pinv @ SN.T, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(k(N, T), SN @ pinv @ Sp, rtol=1e-8, atol=1e-8)
    # valid on training and new objects together
    assert check_psd(k(T + N))


def test_spectrum_repair_in_a_learner_fits_on_the_training_fold_only():
    from sklearn.model_selection import StratifiedKFold, cross_validate

    from structk.learners import KernelSVM

    rng = np.random.default_rng(0)
    a, b = "MKVLAAGIVHHW", "PQERTYDDCSNG"
    X = [
        "".join(c if rng.random() > 0.3 else AMINO[rng.integers(20)] for c in s)
        for s in [a] * 15 + [b] * 15
    ]
    y = np.repeat([0, 1], 15)
    k = Normalize(SpectrumRepair(LocalAlignment(beta=0.5).log_kernel))
    svm = KernelSVM(kernel=k).fit(X[:10] + X[15:25], y[list(range(10)) + list(range(15, 25))])
    assert svm.kernel_.kernel.landmarks_ == X[:10] + X[15:25]
    assert not hasattr(k.kernel, "landmarks_")  # the learner fitted a clone
    cv = StratifiedKFold(3)
    out = cross_validate(KernelSVM(kernel=k), X, y, cv=cv, return_estimator=True)
    for est, (train, _) in zip(out["estimator"], cv.split(X, y)):
        assert est.kernel_.kernel.landmarks_ == [X[i] for i in train]  # no test object
    assert out["test_score"].mean() >= 0.9


def test_normalised_identity_gram_warns_naming_the_kernel():
    X = random_strings(8, AMINO, 60, 80)  # unrelated proteins
    with pytest.warns(
        UserWarning,
        match=r"Normalize\(LocalAlignment\(beta=0.5\)\).*"
        r"numerically the identity.*"
        r"SpectrumRepair\(LocalAlignment\(beta=...\).log_kernel, normalize=True\)",
    ):
        Normalize(LocalAlignment(beta=0.5))(X)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = Normalize(SpectrumRepair(LocalAlignment(beta=0.5).log_kernel)).fit(X)
        K = k(X)
    assert check_psd(K) and np.abs(K - np.eye(8)).max() > 0.1


# ------------------------------------------- the identity warning, SCOP-like
def _mutate(seq, rate):
    return "".join(AMINO[RNG.integers(20)] if RNG.random() < rate else c for c in seq)


def test_identity_warning_fires_when_a_few_objects_have_near_copies():
    """SCOP's training sets: most domains unrelated to all others, a minority
    with a close homologue (the former rule, 90 % of objects without any
    neighbour above 1e-8, stayed silent at 72-87 %)."""
    import warnings

    from structk.kernels.algebra import IDENTITY_ROW_MASS

    lonely = random_strings(24, AMINO, 60, 80)
    pairs = random_strings(4, AMINO, 60, 80)
    X = lonely + pairs + [_mutate(p, 0.02) for p in pairs]  # 24 of 32 lonely: 75 %
    k = Normalize(LocalAlignment(beta=0.5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        K = k(X)
    off = np.abs(K - np.diag(np.diag(K)))
    # the case the former rule missed: a quarter of the objects has a neighbour
    assert np.mean(off.max(axis=1) < 1e-8) < 0.9
    assert np.sum(off.max(axis=1) >= 1e-8) == 8
    # the rule, computed here from its definition: the median row mass
    assert np.median(off.sum(axis=1)) < IDENTITY_ROW_MASS
    alone = int(np.sum(off.sum(axis=1) < IDENTITY_ROW_MASS))
    assert len(caught) == 1 and "numerically the identity" in str(caught[0].message)
    assert f"{alone} of 32 objects" in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the line that computed the Gram


@pytest.mark.parametrize(
    "make",
    [
        lambda: (Normalize(LocalAlignment(beta=0.1)), random_strings(30, AMINO, 60, 80)),
        lambda: (
            Normalize(SpectrumRepair(LocalAlignment(beta=0.5).log_kernel)),
            random_strings(30, AMINO, 60, 80),
        ),
    ],
    ids=["LA-beta-0.1", "repaired-log-LA"],
)
def test_identity_warning_is_silent_when_objects_see_each_other(make):
    import warnings

    from structk.kernels.algebra import IDENTITY_ROW_MASS

    k, X = make()
    k = k.fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        K = k(X)
    off = np.abs(K - np.diag(np.diag(K)))
    assert np.median(off.sum(axis=1)) >= IDENTITY_ROW_MASS


# ------------------------------------ normalising before the repair (SCOP)
def _repaired_by_hand(S, train, test, normalize):
    """The definition: (normalised) training block, clipped spectrum, test
    rows projected, in plain NumPy."""
    S = np.asarray(S, dtype=float)
    if normalize:
        d = np.sqrt(np.diag(S))
        S = S / d[:, None] / d[None, :]
    w, V = np.linalg.eigh(S[np.ix_(train, train)])
    keep = w > 1e-10 * np.abs(w).max()
    C = V[:, keep] / np.sqrt(w[keep])
    F = S[np.ix_(train, train)] @ C
    G = S[np.ix_(test, train)] @ C
    return F @ F.T, G @ F.T


@pytest.mark.parametrize("normalize", [False, True])
def test_spectrum_repair_normalize_is_the_definition(normalize):
    X = random_strings(14, AMINO, 20, 40)
    L = LocalAlignment(beta=0.5).log_kernel(X)
    train, test = list(range(9)), list(range(9, 14))
    K_train, K_test = _repaired_by_hand(L, train, test, normalize)
    k = SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=normalize)
    k.fit([X[i] for i in train])
    np.testing.assert_allclose(k([X[i] for i in train]), K_train, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(
        k([X[i] for i in test], [X[i] for i in train]), K_test, rtol=1e-8, atol=1e-9
    )
    if normalize:
        # the normalised training block has a unit diagonal; the clip moves it little
        np.testing.assert_allclose(k.self_similarities_, np.diag(L)[train])
        assert check_psd(k([X[i] for i in test + train]))
    assert repr(k) == (
        "SpectrumRepair(LocalAlignment(beta=0.5).log_kernel"
        + (", normalize=True)" if normalize else ")")
    )


def test_spectrum_repair_normalize_refuses_a_non_positive_self_similarity():
    def sim(X, Z):
        return np.array([[float(len(set(x) & set(z))) - (x == "WW") * 2 for z in Z] for x in X])

    with pytest.raises(ValueError, match=r"similarity\(X\[2\], X\[2\]\) = -1 is not positive"):
        SpectrumRepair(sim, normalize=True).fit(["MKV", "MKL", "WW"])
    k = SpectrumRepair(sim, normalize=True).fit(["MKV", "MKL", "MVL"])
    with pytest.raises(ValueError, match=r"similarity\(Y\[0\], Y\[0\]\) = -1"):
        k(["MK"], ["WW"])
    with pytest.raises(TypeError, match="normalize must be True or False"):
        SpectrumRepair(sim, normalize="yes").fit(["MKV"])
