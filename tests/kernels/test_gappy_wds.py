"""GappyPair and WeightedDegree(shift) against brute-force definitions, strkernel and the PSD kit."""

from collections import Counter

import numpy as np
import pytest

from structk import gram
from structk.kernels import GappyPair, Normalize, Spectrum, WeightedDegree
from structk.testing import assert_kernel_psd, strings

RNG = np.random.default_rng(11)


def random_strings(n, alphabet, lo, hi):
    return ["".join(RNG.choice(list(alphabet), RNG.integers(lo, hi + 1))) for _ in range(n)]


X_DNA = random_strings(12, "ACGT", 0, 16) + ["", "A", "ACGTACGT", "AAAAAAAAAA"]
Y_DNA = random_strings(5, "ACGT", 0, 12)


def brute(f, A, B):
    return np.array([[f(a, b) for b in B] for a in A], dtype=float)


# --------------------------------------------------------------- gappy pair
def gappy_counts(s, k, m, bad=""):
    out = Counter()
    for p in range(len(s)):
        for g in range(m + 1):
            u, v = s[p : p + k], s[p + k + g : p + 2 * k + g]
            if len(u) == k and len(v) == k and not set(u + v) & set(bad):
                out[(u, g, v)] += 1
    return out


def gappy_def(s, t, k, m, presence=False, bad=""):
    cs, ct = gappy_counts(s, k, m, bad), gappy_counts(t, k, m, bad)
    if presence:
        cs, ct = Counter(set(cs)), Counter(set(ct))
    return float(sum(cs[f] * ct[f] for f in cs))


@pytest.mark.parametrize("k, m", [(1, 0), (1, 1), (1, 3), (2, 2), (3, 1)])
@pytest.mark.parametrize("presence", [False, True])
def test_gappy_pair_equals_definition(k, m, presence):
    kern = GappyPair(k=k, m=m, presence=presence)
    f = lambda s, t: gappy_def(s, t, k, m, presence)  # noqa: E731
    np.testing.assert_array_equal(kern(X_DNA), brute(f, X_DNA, X_DNA))
    np.testing.assert_array_equal(kern(X_DNA, Y_DNA), brute(f, X_DNA, Y_DNA))
    np.testing.assert_array_equal(kern.diag(X_DNA), [f(s, s) for s in X_DNA])


def test_gappy_pair_feature_columns():
    k, m, A = 2, 2, "ACGT"
    F = GappyPair(k=k, m=m).features(X_DNA)
    assert F.shape == (len(X_DNA), (m + 1) * 4 ** (2 * k)) and F.has_sorted_indices

    def column(u, g, v):
        index = 0
        for c in u + v:
            index = index * 4 + A.index(c)
        return g * 4 ** (2 * k) + index

    for i, s in enumerate(X_DNA):
        expected = {column(*f): c for f, c in gappy_counts(s, k, m).items()}
        row = F[i]
        assert dict(zip(row.indices.tolist(), row.data.tolist())) == expected


def test_gappy_pair_gap_zero_is_spectrum_of_2k():
    np.testing.assert_array_equal(GappyPair(k=2, m=0)(X_DNA), Spectrum(k=4)(X_DNA))


def test_gappy_pair_unknown_skip_and_user_alphabet():
    X = ["ACNGTAC", "NNACGT", "ACGTNACGT", "N"]
    kern = GappyPair(k=1, m=2, unknown="skip")
    f = lambda s, t: gappy_def(s, t, 1, 2, bad="N")  # noqa: E731
    np.testing.assert_array_equal(kern(X), brute(f, X, X))
    # a symbol in the gap is ignored, not an unknown k-mer
    assert kern(["ANC"])[0, 0] == 1.0
    X = random_strings(8, "xyz", 0, 9)
    f = lambda s, t: gappy_def(s, t, 2, 1)  # noqa: E731
    np.testing.assert_array_equal(GappyPair(k=2, m=1, alphabet="xyz")(X), brute(f, X, X))


def test_gappy_pair_normalize_and_blocks():
    kern = GappyPair(k=1, m=2)
    flagged = GappyPair(k=1, m=2, normalize=True)
    np.testing.assert_allclose(flagged(X_DNA), Normalize(kern)(X_DNA), rtol=1e-15)
    np.testing.assert_allclose(flagged(X_DNA, Y_DNA), Normalize(kern)(X_DNA, Y_DNA), rtol=1e-15)
    assert flagged(["", "A"])[0].tolist() == [0.0, 0.0]  # no pair: zero row, no NaN
    np.testing.assert_allclose(gram(kern, X_DNA, block_size=5), kern(X_DNA), rtol=1e-15)


def test_gappy_pair_matches_strkernel():
    """strkernel's gappy pairs with gap lengths merged equal ours summed over g."""
    strkernel = pytest.importorskip("strkernel.gappy_kernel")
    X = random_strings(15, "ACGT", 6, 30)
    k, m = 2, 2
    ours = GappyPair(k=k, m=m).features(X).toarray()
    merged = ours.reshape(len(X), m + 1, 4 ** (2 * k)).sum(axis=1)
    theirs = strkernel.gappypair_kernel(
        X, k=k, g=m, gapDifferent=False, sparse=False, include_flanking=True
    )
    np.testing.assert_array_equal(merged, theirs)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(k=0), "k must be >= 1"),
        (dict(k=40), "more than int64 feature indices"),
        (dict(k=7, m=2, alphabet="protein"), "use a smaller k or m"),
        (dict(m=-1), "m must be >= 0"),
        (dict(m=1.5), "m must be an integer"),
        (dict(presence=1), "presence must be True or False"),
    ],
)
def test_gappy_pair_bad_parameters(params, message):
    kern = GappyPair(**params)
    with pytest.raises((ValueError, TypeError), match=message):
        kern(["ACGT"])


def test_gappy_pair_unknown_symbol_is_named():
    with pytest.raises(ValueError, match=r"X\[1\].*'N'.*position 2"):
        GappyPair()(["ACGT", "ACNT"])


# ------------------------------------------------------ weighted degree shift
def wds_def(s, t, d, S):
    """Rätsch, Sonnenburg & Schölkopf (2005), literally."""
    L = len(s)
    total = 0.0
    for k in range(1, d + 1):
        beta = 2 * (d - k + 1) / (d * (d + 1))
        for l in range(L - k + 1):
            for sh in range(S + 1):
                if l + sh + k > L:
                    break
                mu = (s[l + sh : l + sh + k] == t[l : l + k]) + (
                    s[l : l + k] == t[l + sh : l + sh + k]
                )
                total += beta * mu / (2 * (sh + 1))
    return total


@pytest.mark.parametrize("d, S", [(1, 1), (3, 1), (3, 4), (5, 2), (2, 20)])
def test_weighted_degree_shift_equals_definition(d, S):
    X = random_strings(10, "ACGT", 11, 11) + ["AAAAAAAAAAA", "ACACACACACA"]
    Y = random_strings(4, "ACGT", 11, 11)
    kern = WeightedDegree(d=d, shift=S)
    f = lambda s, t: wds_def(s, t, d, S)  # noqa: E731
    np.testing.assert_allclose(kern(X), brute(f, X, X), rtol=1e-13)
    np.testing.assert_allclose(kern(X, Y), brute(f, X, Y), rtol=1e-13)
    np.testing.assert_allclose(kern.diag(X), [f(s, s) for s in X], rtol=1e-13)


def tokens(s, unknown):
    """Symbols of ``s``, each unknown one replaced by a fresh object (equal to
    nothing, itself included), for the definitions."""
    return [object() if c in unknown else c for c in s]


@pytest.mark.parametrize(
    "L, d, S", [(63, 5, 0), (64, 8, 2), (65, 70, 1), (130, 9, 3), (130, 80, 0), (140, 4, 66)]
)
@pytest.mark.parametrize("alphabet", ["ab", "ACGT", "abcde", "ACDEFGHIKLMNPQRSTVWY"])
def test_weighted_degree_across_word_boundaries_equals_definition(L, d, S, alphabet):
    """The bit-parallel kernel holds 64 positions a word: sequences longer
    than a word, runs and shifts across words, codes of 1 to 5 bits, and
    unknown symbols that match nothing."""
    rng = np.random.default_rng(L * d + S)
    symbols = list(alphabet[:2]) + ["N"] if alphabet == "ACGT" else list(alphabet[:2])
    # long runs of few symbols, so that matches cross the word boundaries
    X = ["".join(rng.choice(symbols, L)) for _ in range(5)] + [alphabet[0] * L]
    Y = ["".join(rng.choice(list(alphabet), L)) for _ in range(2)] + [alphabet[0] * L]
    unknown = "N" if alphabet == "ACGT" else ""
    kern = WeightedDegree(
        d=d,
        shift=S,
        alphabet="dna" if alphabet == "ACGT" else alphabet,
        unknown="skip" if unknown else "error",
    )
    f = lambda s, t: wds_def(tokens(s, unknown), tokens(t, unknown), d, S)  # noqa: E731
    # rtol: the definitions add up to 10^5 terms one by one
    np.testing.assert_allclose(kern(X), brute(f, X, X), rtol=1e-12)
    np.testing.assert_allclose(kern(X, Y), brute(f, X, Y), rtol=1e-12)
    np.testing.assert_allclose(kern.diag(Y), [f(t, t) for t in Y], rtol=1e-12)


def test_weighted_degree_shift_zero_is_plain_and_shift_finds_moved_motif():
    X = random_strings(8, "ACGT", 20, 20)
    np.testing.assert_array_equal(WeightedDegree(d=4, shift=0)(X), WeightedDegree(d=4)(X))
    x, y = "AAAAAGATTACAAAAAAA", "AAAAAAAGATTACAAAAA"  # the motif moved by 2
    plain = WeightedDegree(d=6)([x], [y])[0, 0]
    assert WeightedDegree(d=6, shift=1)([x], [y])[0, 0] > plain
    assert (
        WeightedDegree(d=6, shift=2)([x], [y])[0, 0] > WeightedDegree(d=6, shift=1)([x], [y])[0, 0]
    )


def test_weighted_degree_shift_unknown_skip_and_normalize():
    X = ["ACGNTA", "CGTANA", "NNNNNN", "ACGTAC"]
    kern = WeightedDegree(d=3, shift=2, unknown="skip")
    K = kern(X)
    assert K[2].tolist() == [0.0] * 4  # unknown positions match nothing
    clean = WeightedDegree(d=3, shift=2)
    assert K[3, 3] == clean(["ACGTAC"])[0, 0]
    np.testing.assert_allclose(
        WeightedDegree(d=3, shift=2, normalize=True, unknown="skip")(X),
        Normalize(kern)(X),
        rtol=1e-15,
    )


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(shift=-1), "shift must be >= 0"),
        (dict(shift=0.5), "shift must be an integer"),
        (dict(shift=True), "shift must be an integer"),
    ],
)
def test_weighted_degree_bad_shift(params, message):
    kern = WeightedDegree(**params)
    with pytest.raises((ValueError, TypeError), match=message):
        kern(["ACGT"])


def test_weighted_degree_huge_shift_is_capped():
    X = random_strings(5, "ACGT", 7, 7)
    np.testing.assert_allclose(
        WeightedDegree(d=3, shift=10**9)(X), WeightedDegree(d=3, shift=6)(X), rtol=1e-15
    )


# ------------------------------------------------------------- PSD property
PSD_CASES = [
    (GappyPair(k=1, m=2), strings("dna", max_size=10)),
    (GappyPair(k=2, m=1, presence=True), strings("dna", max_size=10)),
    (GappyPair(k=1, m=3, alphabet="ab", normalize=True), strings("ab", max_size=9)),
    (WeightedDegree(d=3, shift=2), strings("dna", min_size=7, max_size=7)),
    (WeightedDegree(d=2, shift=5, alphabet="ab"), strings("ab", min_size=6, max_size=6)),
    (Normalize(WeightedDegree(d=4, shift=3, alphabet="ab")), strings("ab", min_size=6, max_size=6)),
]


@pytest.mark.parametrize("kern, objects", PSD_CASES, ids=[repr(k) for k, _ in PSD_CASES])
def test_psd_property(kern, objects):
    assert_kernel_psd(kern, objects, pool_sizes=(16, 64))
