"""Set kernels against their definitions, overflow guards, PSD search, bad input."""

import numpy as np
import pytest

from structk import KernelOverflowError
from structk.kernels import ExpIntersection, Intersection, Jaccard, Normalize
from structk.testing import assert_kernel_psd, token_sets

RNG = np.random.default_rng(3)
TOKENS = ["a", "b", 3, (1, 2), frozenset({"x"}), None, 2.5, "c"]


def random_sets(n, hi):
    return [
        set(RNG.choice(len(TOKENS), RNG.integers(0, hi + 1), replace=False).tolist())
        for _ in range(n)
    ]


X = [{TOKENS[i] for i in s} for s in random_sets(15, 6)] + [set(), set()]
Y = [[TOKENS[i] for i in s] * 2 for s in random_sets(6, 5)]  # lists with repeats


def brute(f, A, B):
    return np.array([[f(set(a), set(b)) for b in B] for a in A], dtype=float)


def inter(a, b):
    return len(a & b)


def jaccard(a, b):
    return len(a & b) / len(a | b) if a | b else 1.0


def test_intersection_equals_definition():
    k = Intersection()
    np.testing.assert_array_equal(k(X), brute(inter, X, X))
    np.testing.assert_array_equal(k(X, Y), brute(inter, X, Y))
    np.testing.assert_array_equal(k.diag(Y), [len(set(y)) for y in Y])
    F = k.features(X)
    np.testing.assert_array_equal((F @ F.T).toarray(), k(X))


def test_exp_intersection_equals_definition():
    k = ExpIntersection(scale=0.7)
    f = lambda a, b: np.exp(0.7 * inter(a, b))  # noqa: E731
    np.testing.assert_allclose(k(X), brute(f, X, X), rtol=1e-15)
    np.testing.assert_allclose(k(X, Y), brute(f, X, Y), rtol=1e-15)
    np.testing.assert_allclose(k.diag(X), [f(x, x) for x in X], rtol=1e-15)


def test_jaccard_equals_definition():
    k = Jaccard()
    np.testing.assert_allclose(k(X), brute(jaccard, X, X), rtol=1e-15)
    np.testing.assert_allclose(k(X, Y), brute(jaccard, X, Y), rtol=1e-15)
    np.testing.assert_array_equal(k.diag(X), 1.0)
    assert k([set(), set(), {"a"}]).tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 1]]


def test_many_tokens_use_both_gram_paths(tuning):
    sets = [
        set(RNG.choice(200, RNG.integers(0, 80), replace=False).tolist()) | {"common"}
        for _ in range(40)
    ]
    expected = brute(inter, sets, sets)
    for ratio in (0.0, 30.0, 1e9):
        tuning.set(SPARSE_DENSE_RATIO=ratio)
        np.testing.assert_array_equal(Intersection()(sets), expected)
        np.testing.assert_array_equal(Intersection()(sets, sets[:5]), expected[:, :5])


def test_exp_intersection_overflow_points_to_normalize():
    big = [set(range(1000)), set(range(500, 1500))]
    k = ExpIntersection(scale=1.0)
    with pytest.raises(KernelOverflowError, match=r"entry \(0, 0\).*Normalize"):
        k(big)
    with pytest.raises(KernelOverflowError, match=r"object 0"):
        k.diag(big)
    with pytest.raises(KernelOverflowError, match="Normalize"):
        k(big, [set(range(800))])


def test_normalized_exp_intersection_is_stable_for_any_size():
    big = [set(range(100_000)), set(range(50_000, 150_000)), set(), {"a"}]
    K = Normalize(ExpIntersection(scale=1e-4))(big)
    # exp(s (|A n B| - (|A| + |B|) / 2)) = exp(-s |A ^ B| / 2)
    assert K[0, 1] == pytest.approx(np.exp(-1e-4 * 100_000 / 2), rel=1e-12)
    assert K[0, 0] == K[2, 2] == 1.0
    assert K[2, 3] == pytest.approx(np.exp(-1e-4 / 2), rel=1e-12)
    K = Normalize(ExpIntersection(scale=1.0))(big)  # e^100000 never formed
    assert np.isfinite(K).all() and K[0, 1] == 0.0 and K[0, 0] == 1.0
    C = Normalize(ExpIntersection(scale=2.0))(big[:2], big[1:])
    assert C[1, 0] == 1.0 and C[0, 0] == 0.0


def test_set_input_forms_and_errors():
    k = Intersection()
    assert k([frozenset("ab"), ["a", "a", "b"], ("b",)]).tolist() == [
        [2, 2, 1],
        [2, 2, 1],
        [1, 1, 1],
    ]
    with pytest.raises(TypeError, match=r"X\[1\] holds an unhashable token \['x'\]"):
        k([{"a"}, [["x"], "y"]])
    with pytest.raises(TypeError, match=r"Y\[0\] is a str, not a set of tokens"):
        k([{"a"}], ["abc"])
    with pytest.raises(TypeError, match=r"X\[0\] is a int, not a set"):
        k([5])
    with pytest.raises(ValueError, match="X is empty"):
        k([])
    with pytest.raises(ValueError, match="scale must be > 0"):
        ExpIntersection(scale=0)([{"a"}])
    with pytest.raises(TypeError, match="scale must be a real number"):
        ExpIntersection(scale="1")([{"a"}])


def test_repr_and_params():
    assert repr(ExpIntersection(scale=0.5)) == "ExpIntersection(scale=0.5)"
    assert repr(Jaccard()) == "Jaccard()" and Intersection().get_params() == {}


PSD_CASES = [
    Intersection(),
    ExpIntersection(scale=0.8),
    Jaccard(),
    Normalize(Intersection()),
    Normalize(ExpIntersection(scale=3.0)),
    Normalize(Jaccard()),
]


@pytest.mark.parametrize("kern", PSD_CASES, ids=repr)
def test_psd_property(kern):
    assert_kernel_psd(kern, token_sets("abcdefgh", max_size=6), pool_sizes=(16, 64))


def test_cross_gram_maps_one_vocabulary_onto_the_other():
    from structk import gram

    X = [{1, 2, "a"}, {(1, 2), "b"}, set(), {-1, -2}]
    Y = [{"b", -2}, {2, 1.0}, {"z"}, {"a", (1, 2), -1}]
    brute = np.array([[len(a & b) for b in Y] for a in X], dtype=float)
    np.testing.assert_array_equal(Intersection()(X, Y), brute)
    np.testing.assert_array_equal(Intersection()(Y, X), brute.T)
    for k in (Intersection(), Jaccard(), ExpIntersection(0.5)):
        # blockwise: each tile is a slice (_take) of the one prepared collection
        np.testing.assert_allclose(gram(k, X + Y, block_size=3), k(X + Y), rtol=1e-15)
