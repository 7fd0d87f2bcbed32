"""String kernels against brute-force definitions, CountVectorizer, PSD search and real data."""

import itertools
from collections import Counter

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from structk import check_psd
from structk.kernels import Mismatch, Normalize, Spectrum, WeightedDegree
from structk.sequences import kmer_strings
from structk.testing import assert_kernel_psd, strings

RNG = np.random.default_rng(7)


def random_strings(n, alphabet, lo, hi):
    return ["".join(RNG.choice(list(alphabet), RNG.integers(lo, hi + 1))) for _ in range(n)]


X_DNA = random_strings(12, "ACGT", 0, 14) + ["", "A", "ACGTACGT"]
Y_DNA = random_strings(5, "ACGT", 0, 9)
X_AB = random_strings(9, "ab", 0, 8)


# --------------------------------------------------------------- definitions
def kmers(s, k, bad=""):
    return [s[i : i + k] for i in range(len(s) - k + 1) if not set(s[i : i + k]) & set(bad)]


def spectrum_def(s, t, k, presence=False, bad=""):
    cs, ct = Counter(kmers(s, k, bad)), Counter(kmers(t, k, bad))
    if presence:
        cs, ct = Counter(set(cs)), Counter(set(ct))
    return float(sum(cs[u] * ct[u] for u in cs))


def hamming(u, v):
    return sum(a != b for a, b in zip(u, v))


def mismatch_def(s, t, k, m, alphabet):
    total = 0
    for beta in itertools.product(alphabet, repeat=k):
        fs = sum(hamming(a, beta) <= m for a in kmers(s, k))
        ft = sum(hamming(b, beta) <= m for b in kmers(t, k))
        total += fs * ft
    return float(total)


def wd_def(s, t, d):
    total = 0.0
    for k in range(1, d + 1):
        beta = 2 * (d - k + 1) / (d * (d + 1))
        total += beta * sum(s[i : i + k] == t[i : i + k] for i in range(len(s) - k + 1))
    return total


def brute(f, A, B):
    return np.array([[f(a, b) for b in B] for a in A], dtype=float)


# ------------------------------------------------------------ exact values
@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("presence", [False, True])
def test_spectrum_equals_definition(k, presence):
    kern = Spectrum(k=k, presence=presence)
    f = lambda s, t: spectrum_def(s, t, k, presence)  # noqa: E731
    np.testing.assert_array_equal(kern(X_DNA), brute(f, X_DNA, X_DNA))
    np.testing.assert_array_equal(kern(X_DNA, Y_DNA), brute(f, X_DNA, Y_DNA))
    np.testing.assert_array_equal(kern.diag(X_DNA), [f(s, s) for s in X_DNA])


def test_spectrum_on_user_alphabet():
    kern = Spectrum(k=3, alphabet="ab")
    np.testing.assert_array_equal(kern(X_AB), brute(lambda s, t: spectrum_def(s, t, 3), X_AB, X_AB))
    assert kern.features(X_AB).shape == (len(X_AB), 8)


@pytest.mark.parametrize(
    "k, m, alphabet, X",
    [
        (3, 1, "ACGT", X_DNA[:8]),
        (3, 2, "ACGT", X_DNA[:8]),
        (4, 1, "ab", X_AB),
        (4, 2, "ab", X_AB),
        (2, 0, "ACGT", X_DNA[:8]),
    ],
)
def test_mismatch_equals_definition(k, m, alphabet, X):
    kern = Mismatch(k=k, m=m, alphabet=alphabet)
    f = lambda s, t: mismatch_def(s, t, k, m, alphabet)  # noqa: E731
    np.testing.assert_array_equal(kern(X), brute(f, X, X))
    np.testing.assert_array_equal(kern(X, X[:3]), brute(f, X, X[:3]))
    np.testing.assert_array_equal(kern.diag(X), [f(s, s) for s in X])


def test_mismatch_zero_is_spectrum():
    np.testing.assert_array_equal(Mismatch(k=4, m=0)(X_DNA), Spectrum(k=4)(X_DNA))


@pytest.mark.parametrize("d", [1, 2, 3, 7])
def test_weighted_degree_equals_definition(d):
    X = random_strings(10, "ACGT", 9, 9) + ["AAAAAAAAA", "AAAAAAAAA"]
    Y = random_strings(4, "ACGT", 9, 9)
    kern = WeightedDegree(d=d)
    f = lambda s, t: wd_def(s, t, d)  # noqa: E731
    np.testing.assert_allclose(kern(X), brute(f, X, X), rtol=1e-14)
    np.testing.assert_allclose(kern(X, Y), brute(f, X, Y), rtol=1e-14)
    np.testing.assert_allclose(kern.diag(X), [f(s, s) for s in X], rtol=1e-14)


def test_weighted_degree_of_short_sequences_loads_only_the_one_word_path():
    """Sequences of at most 64 symbols never compile (or load) the general
    multi-word entry point (compiling it is the slow part of a first run)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "from structk.kernels import WeightedDegree\n"
        "from structk.algorithms.weighted_degree import _numba as s\n"
        "X = ['ACGT' * 16, 'ACGA' * 16, 'TTGA' * 16]\n"
        "k = WeightedDegree(d=3, shift=2)\n"
        "k(X); k(X, X[:2]); k.diag(X)\n"
        "print(len(s._wd_block_word.signatures), len(s._wd_block_words.signatures))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=300,
        check=True,
    )
    assert out.stdout.split() == ["1", "0"]


@pytest.mark.parametrize("length", [40, 150])  # one word per plane, several
def test_weighted_degree_in_chunks_of_rows_gives_the_one_call_values(length, tuning, chunk_counts):
    """Rows cut into calls of ``WD_CHUNK_WORK`` (a Ctrl-C is answered between
    them) give exactly the values of one call."""
    rng = np.random.default_rng(6)
    X = ["".join(rng.choice(list("ACGT"), length)) for _ in range(7)]
    Y = X[:2] + ["".join(rng.choice(list("ACGT"), length)) for _ in range(3)]
    kern = WeightedDegree(d=4, shift=2)
    whole = kern(X), kern(X, Y), kern.diag(X)
    chunk_counts.clear()
    tuning.set(WD_CHUNK_WORK=1)  # every row a chunk of its own
    cut = kern(X), kern(X, Y), kern.diag(X)
    assert chunk_counts == [7, 7, 7]
    for a, b in zip(whole, cut):
        np.testing.assert_array_equal(a, b)


def test_mismatch_in_chunks_of_rows_gives_the_one_call_features(tuning, monkeypatch):
    """Sequences cut into calls of ``MISMATCH_CHUNK_NEIGHBOURS`` neighbours
    (a Ctrl-C is answered between them) give exactly the features of one
    call, the calls' rows joined in order."""
    import structk._threads as threads_module

    rng = np.random.default_rng(7)
    X = ["".join(rng.choice(list("ACGT"), n)) for n in (12, 3, 20, 9, 15)]  # one too short
    kern = Mismatch(k=4, m=1)
    whole = kern.features(X)
    joined = []
    real = threads_module.join_row_parts

    def spy(parts):
        joined.append(len(parts))
        return real(parts)

    monkeypatch.setattr(threads_module, "join_row_parts", spy)
    # every sequence with k-mers a call of its own (of the compiled loop,
    # which small inputs reach only below MISMATCH_NUMPY_MAX_NEIGHBOURS)
    tuning.set(MISMATCH_CHUNK_NEIGHBOURS=1, MISMATCH_NUMPY_MAX_NEIGHBOURS=-1)
    cut = kern.features(X)
    assert joined == [4]  # the sequence too short for a 4-mer costs nothing: it rides along
    assert (cut != whole).nnz == 0
    np.testing.assert_array_equal(cut.indptr, whole.indptr)
    np.testing.assert_array_equal(kern(X), Mismatch(k=4, m=1)(X))


def test_weighted_degree_weights_sum_to_one():
    # identical sequences of length 1: only k = 1 counts, weight 2d / (d (d + 1))
    assert WeightedDegree(d=4)(["A"])[0, 0] == pytest.approx(2 * 4 / 20)
    # the weights beta_1 .. beta_d sum to 1
    d = 6
    assert sum(2 * (d - k + 1) / (d * (d + 1)) for k in range(1, d + 1)) == pytest.approx(1)


# ------------------------------------------------------- CountVectorizer peer
@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("presence", [False, True])
def test_spectrum_features_equal_countvectorizer(k, presence):
    X = random_strings(30, "ACGT", k, 60)
    cv = CountVectorizer(analyzer="char", ngram_range=(k, k), lowercase=False, binary=presence)
    G = cv.fit_transform(X).toarray()
    F = Spectrum(k=k, presence=presence).features(X)
    assert F.has_sorted_indices
    F = F.tocsc()
    present = np.flatnonzero(F.getnnz(axis=0))
    names = kmer_strings(present, k)
    assert sorted(names) == sorted(cv.vocabulary_)
    for col, name in zip(present, names):
        np.testing.assert_array_equal(F[:, col].toarray().ravel(), G[:, cv.vocabulary_[name]])


def test_large_k_stays_sparse():
    X = random_strings(20, "ACGT", 30, 80)
    F = Spectrum(k=10).features(X)
    assert F.shape == (20, 4**10) and F.nnz <= sum(len(s) for s in X)
    P = random_strings(6, "ACDEFGHIKLMNPQRSTVWY", 20, 40)
    kern = Spectrum(k=5, alphabet="protein")
    assert kern.features(P).shape == (6, 20**5)
    f = lambda s, t: spectrum_def(s, t, 5)  # noqa: E731
    np.testing.assert_array_equal(kern(P), brute(f, P, P))
    np.testing.assert_array_equal(kern(P, P[:2]), brute(f, P, P[:2]))
    # k = 31 on DNA: 2^62 columns, renumbered internally
    long = random_strings(4, "ACGT", 40, 50) + ["ACGT" * 10]
    np.testing.assert_array_equal(
        Spectrum(k=31)(long), brute(lambda s, t: spectrum_def(s, t, 31), long, long)
    )


@pytest.mark.parametrize(
    "k, alphabet, unknown",
    [
        (32, "ACGT", "error"),
        (45, "ACGT", "skip"),
        (15, "ACDEFGHIKLMNPQRSTVWY", "error"),
    ],
)
def test_k_beyond_int64_feature_indices(k, alphabet, unknown):
    # 4^32, 4^45 and 20^15 k-mers exceed int64: Grams on the k-mers present
    X = random_strings(6, alphabet[:2], k - 3, k + 6) + [alphabet[0] * (k + 4), ""]
    if unknown == "skip":
        X += [alphabet[:2] * 30 + "N" + alphabet[:2] * 30]
    Y = X[2:5] + random_strings(3, alphabet[:2], k, k + 3)
    kern = Spectrum(k=k, alphabet=alphabet, unknown=unknown)
    f = lambda s, t: spectrum_def(s, t, k, bad="N")  # noqa: E731
    np.testing.assert_array_equal(kern(X), brute(f, X, X))
    np.testing.assert_array_equal(kern(X, Y), brute(f, X, Y))
    np.testing.assert_array_equal(kern.diag(X), [f(s, s) for s in X])
    presence = Spectrum(k=k, alphabet=alphabet, unknown=unknown, presence=True)
    g = lambda s, t: spectrum_def(s, t, k, presence=True, bad="N")  # noqa: E731
    np.testing.assert_array_equal(presence(X, Y), brute(g, X, Y))
    assert np.isfinite(Spectrum(k=k, alphabet=alphabet, unknown=unknown, normalize=True)(X)).all()
    assert kern(["", "A"]).sum() == 0  # no k-mer at all
    with pytest.raises(ValueError, match="no explicit feature map"):
        kern.features(X)


def test_dense_and_rare_column_paths_agree(tuning):
    X = random_strings(60, "ACGT", 50, 200)
    expected = brute(lambda s, t: spectrum_def(s, t, 2), X, X)
    for ratio in (0.0, 1e-3, 30.0, 1e9):  # all rare ... all dense
        tuning.set(SPARSE_DENSE_RATIO=ratio)
        np.testing.assert_array_equal(Spectrum(k=2)(X), expected)
        np.testing.assert_array_equal(Spectrum(k=2)(X, X[:7]), expected[:, :7])


# ------------------------------------------------------------- normalisation
@pytest.mark.parametrize(
    "kern", [Spectrum(k=3), Spectrum(k=2, presence=True), Mismatch(k=3, m=1)], ids=repr
)
def test_normalize_flag_equals_normalize(kern):
    flagged = kern.set_params(normalize=False).__class__(**{**kern.get_params(), "normalize": True})
    np.testing.assert_allclose(flagged(X_DNA), Normalize(kern)(X_DNA), rtol=1e-15, atol=0)
    np.testing.assert_allclose(flagged(X_DNA, Y_DNA), Normalize(kern)(X_DNA, Y_DNA), rtol=1e-15)
    np.testing.assert_array_equal(flagged.diag(X_DNA), Normalize(kern).diag(X_DNA))
    F = flagged.features(X_DNA)
    np.testing.assert_allclose((F @ F.T).toarray(), flagged(X_DNA), rtol=1e-14, atol=1e-15)


def test_weighted_degree_normalize_flag():
    X = random_strings(8, "ACGT", 10, 10)
    np.testing.assert_allclose(
        WeightedDegree(d=4, normalize=True)(X), Normalize(WeightedDegree(d=4))(X), rtol=1e-15
    )


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("kern", [Spectrum(k=3), Mismatch(k=3, m=1)], ids=repr)
def test_short_and_empty_strings_have_zero_features(kern):
    X = ["", "AC", "ACG", "ACGTT"]
    K = kern(X)
    np.testing.assert_array_equal(K[:2], 0)
    np.testing.assert_array_equal(K[:, :2], 0)
    assert K[2, 2] > 0
    for normed in (Normalize(kern), kern.set_params(normalize=True)):
        N = normed(X)
        assert np.isfinite(N).all()
        np.testing.assert_array_equal(np.diag(N), [0, 0, 1, 1])
        np.testing.assert_array_equal(N[:2], 0)
        np.testing.assert_array_equal(normed.diag(X), [0, 0, 1, 1])
        assert np.isfinite(normed(X, ["", "ACG"])).all()
    kern.set_params(normalize=False)
    assert kern(["", ""]).sum() == 0


def test_unknown_symbols_raise_or_are_skipped():
    with pytest.raises(ValueError, match=r"X\[1\] has symbol 'N' at position 2"):
        Spectrum(k=2)(["ACGT", "ACNT"])
    with pytest.raises(ValueError, match=r"Y\[0\] has symbol 'N' at position 0"):
        Spectrum(k=2)(["ACGT"], ["NA"])
    X = ["ACNGTNNAC", "NNN", "ACGTAC", "RACGS"]
    for k in (1, 2, 3):
        kern = Spectrum(k=k, unknown="skip")
        f = lambda s, t: spectrum_def(s, t, k, bad="NRS")  # noqa: E731
        np.testing.assert_array_equal(kern(X), brute(f, X, X))
    # mismatch: k-mers with an unknown symbol are dropped, not mutated
    Xc = [s.replace("N", "").replace("R", "").replace("S", "") for s in X]
    K = Mismatch(k=3, m=1, unknown="skip")(X)
    assert K[2, 2] == Mismatch(k=3, m=1)([Xc[2]])[0, 0]
    assert K[1].sum() == 0
    # weighted degree: an unknown position matches nothing, itself included
    W = WeightedDegree(d=2, unknown="skip")(["ANC", "ANC"])
    assert (
        W[0, 1] == W[0, 0] == pytest.approx(2 * (2 * 2 / 6))
    )  # two 1-mers (beta_1 = 2/3), no 2-mer


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Spectrum(k=0), "k must be >= 1"),
        (lambda: Spectrum(k=2.5), "k must be an integer"),
        (lambda: Spectrum(k=True), "k must be an integer"),
        (lambda: Mismatch(k=32, m=1), "k=32 is too large for an alphabet of 4"),
        (lambda: Spectrum(presence=1), "presence must be True or False"),
        (lambda: Spectrum(unknown="drop"), "unknown must be 'error' or 'skip'"),
        (lambda: Spectrum(alphabet=""), "alphabet is empty"),
        (lambda: Mismatch(k=3, m=3), "m must be < k"),
        (lambda: Mismatch(k=3, m=-1), "m must be >= 0"),
        (lambda: WeightedDegree(d=0), "d must be >= 1"),
        (lambda: WeightedDegree(normalize="yes"), "normalize must be True or False"),
    ],
)
def test_bad_parameters(make, match):
    kern = make()  # constructors store their arguments; evaluation checks them
    with pytest.raises((ValueError, TypeError), match=match):
        kern(["ACGT"])


def test_bad_parameter_set_later_is_caught_before_evaluation():
    kern = Mismatch(k=3, m=1)
    kern.set_params(m=5)
    with pytest.raises(ValueError, match="m must be < k"):
        kern(["ACGT"])


def test_weighted_degree_needs_equal_lengths():
    with pytest.raises(ValueError, match=r"X\[2\] has length 3 but X\[0\] has length 4"):
        WeightedDegree()(["ACGT", "ACGA", "ACG"])
    with pytest.raises(ValueError, match="X holds sequences of length 4 but Y of length 2"):
        WeightedDegree()(["ACGT"], ["AC"])
    assert WeightedDegree()(["", ""]).sum() == 0
    assert np.isfinite(WeightedDegree(normalize=True)(["", ""])).all()
    with pytest.raises(TypeError, match="no explicit feature map"):
        WeightedDegree().features(["AC"])


def test_params_and_repr():
    from sklearn.base import clone

    kern = Spectrum(k=4, presence=True)
    assert repr(kern) == "Spectrum(k=4, presence=True)"  # defining + non-default parameters
    assert repr(Spectrum()) == "Spectrum(k=3)"
    assert clone(kern).get_params() == kern.get_params()
    assert repr(Normalize(Mismatch(k=5, m=2))).startswith("Normalize(Mismatch(k=5, m=2")


# ------------------------------------------------------------- PSD property
PSD_CASES = [
    (Spectrum(k=2), strings("dna", max_size=10)),
    (Spectrum(k=3, presence=True), strings("dna", max_size=10)),
    (Normalize(Spectrum(k=2)), strings("dna", max_size=10)),
    (Spectrum(k=2, alphabet="ab", normalize=True), strings("ab", max_size=8)),
    (Mismatch(k=3, m=1), strings("dna", max_size=10)),
    (Mismatch(k=3, m=2, alphabet="ab"), strings("ab", max_size=8)),
    (Normalize(Mismatch(k=3, m=1)), strings("dna", max_size=10)),
    (WeightedDegree(d=3), strings("dna", min_size=6, max_size=6)),
    (Normalize(WeightedDegree(d=2, alphabet="ab")), strings("ab", min_size=5, max_size=5)),
    # unknown symbols skipped: still valid kernels
    (Spectrum(k=2, unknown="skip"), strings("ACGN", max_size=10)),
    (Mismatch(k=2, m=1, unknown="skip", normalize=True), strings("ACGN", max_size=10)),
    (WeightedDegree(d=3, unknown="skip"), strings("ACN", min_size=5, max_size=5)),
]


@pytest.mark.parametrize("kern, objects", PSD_CASES, ids=[repr(k) for k, _ in PSD_CASES])
def test_psd_property(kern, objects):
    assert_kernel_psd(kern, objects, pool_sizes=(16, 64))


# ---------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def splice(structk_data):
    from structk.datasets import load_splice

    return load_splice(structk_data("sequences/splice/splice.data"))


@pytest.fixture(scope="module")
def promoters(structk_data):
    from structk.datasets import load_promoters

    return load_promoters(structk_data("sequences/promoters/promoters.data"))


def test_splice_ambiguity_codes_are_handled_as_documented(splice):
    seqs = splice.sequences
    with pytest.raises(ValueError, match=r"X\[\d+\] has symbol '[NDRS]' at position \d+"):
        Spectrum(k=3)(seqs)
    amb = [i for i, s in enumerate(seqs) if set(s) - set("ACGT")]
    sub = [seqs[i] for i in amb]
    K = Spectrum(k=3, unknown="skip")(sub)
    np.testing.assert_array_equal(
        K, brute(lambda s, t: spectrum_def(s, t, 3, bad="NDRS"), sub, sub)
    )
    # with the ambiguity codes as symbols of their own, they count as k-mers
    from structk.datasets.uci import IUPAC_DNA

    K2 = Spectrum(k=3, alphabet=IUPAC_DNA)(sub)
    np.testing.assert_array_equal(K2, brute(lambda s, t: spectrum_def(s, t, 3), sub, sub))


@pytest.mark.parametrize(
    "kern",
    [
        Spectrum(k=3, unknown="skip"),
        Spectrum(k=8, unknown="skip", normalize=True),
        Mismatch(k=5, m=1, unknown="skip"),
        WeightedDegree(d=8, unknown="skip"),
    ],
    ids=repr,
)
def test_splice_grams_are_psd(splice, kern):
    K = kern(splice.sequences)
    assert K.shape == (3190, 3190)
    report = check_psd(K)
    assert report.is_psd, str(report)


@pytest.mark.parametrize(
    "kern",
    [
        Spectrum(k=4),
        Normalize(Mismatch(k=5, m=2)),
        WeightedDegree(d=5),
        Spectrum(k=2, presence=True, normalize=True),
    ],
    ids=repr,
)
def test_promoter_grams_are_psd(promoters, kern):
    report = check_psd(kern(promoters.sequences))
    assert report.is_psd, str(report)


def make_svm():
    """structk's own SVM on precomputed Gram matrices."""
    from structk.learners import KernelSVM

    return KernelSVM(kernel="precomputed", C=1.0)


def test_weighted_degree_svm_splice_accuracy(splice, make_estimator=make_svm):
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    K = WeightedDegree(d=8, unknown="skip")(splice.sequences)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_val_score(make_estimator(), K, splice.target, cv=cv)
    assert scores.mean() >= 0.95, scores


def test_promoter_leave_one_out_accuracy(promoters, make_estimator=make_svm):
    from sklearn.model_selection import LeaveOneOut, cross_val_score

    K = WeightedDegree(d=5)(promoters.sequences)
    acc = cross_val_score(make_estimator(), K, promoters.target, cv=LeaveOneOut()).mean()
    assert acc >= 0.9, acc  # UCI notes: KBANN 102/106, 3-NN 93/106


# ------------------------------------------------------- huge parameters
@pytest.mark.parametrize("k", [10**10, 10**400])
def test_huge_k_is_cheap_and_exact(k):
    # no k-mer of that length exists: every value is 0, computed without A ** k
    kernel = Spectrum(k=k)
    np.testing.assert_array_equal(kernel(["ACGT", "AC"]), np.zeros((2, 2)))
    np.testing.assert_array_equal(kernel(["ACGT"], ["A"]), np.zeros((1, 1)))
    np.testing.assert_array_equal(kernel.diag(["ACGT"]), [0.0])


def test_huge_mismatch_k_is_refused_naming_k():
    with pytest.raises(ValueError, match=r"k=10000000000 is too large .* use k <= 31"):
        Mismatch(k=10**10, m=1)(["ACGT"])


def test_mismatch_memory_is_estimated_before_allocating():
    with pytest.raises(
        MemoryError,
        match=r"Mismatch\(k=20, m=10\) would need .* m=10 "
        r"mismatches .* lower m or k",
    ):
        Mismatch(k=20, m=10)(["ACGT" * 10])
