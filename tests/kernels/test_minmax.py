"""MinMax (Tanimoto on counts) against its definition, and PSD."""

from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from structk import check_psd
from structk.kernels import Jaccard, MinMax

TOKENS = ["C", "N", "O", "S", ("ring", 6), 7]
multisets = st.lists(
    st.dictionaries(st.sampled_from(TOKENS), st.integers(0, 4), max_size=5), min_size=1, max_size=8
)


def brute_force(A, B):
    """sum_t min(a_t, b_t) / sum_t max(a_t, b_t), 1 for two empty multisets."""
    K = np.empty((len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            tokens = set(a) | set(b)
            lo = sum(min(a.get(t, 0), b.get(t, 0)) for t in tokens)
            hi = sum(max(a.get(t, 0), b.get(t, 0)) for t in tokens)
            K[i, j] = lo / hi if hi else 1.0
    return K


@given(X=multisets, Y=multisets)
def test_equals_the_definition_and_is_psd(X, Y):
    k = MinMax()
    np.testing.assert_allclose(k(X), brute_force(X, X), rtol=1e-14)
    np.testing.assert_allclose(k(X, Y), brute_force(X, Y), rtol=1e-14)
    np.testing.assert_allclose(k.diag(X), np.diag(brute_force(X, X)))
    assert check_psd(k(X)).is_psd


def test_the_forms_of_a_multiset_agree():
    dicts = [{"C": 3, "O": 1}, {"C": 2, "N": 1}, {}]
    lists = [["C", "C", "O", "C"], ["N", "C", "C"], []]
    counters = [Counter(x) for x in lists]
    K = MinMax()(dicts)
    np.testing.assert_allclose(MinMax()(lists), K)
    np.testing.assert_allclose(MinMax()(counters), K)
    # count vectors: rows of a dense or sparse matrix, columns as tokens C, N, O
    V = np.array([[3, 0, 1], [2, 1, 0], [0, 0, 0]])
    np.testing.assert_allclose(MinMax()(V), K)
    np.testing.assert_allclose(MinMax()(sp.csr_matrix(V)), K)
    np.testing.assert_allclose(MinMax()(V[:2], V[1:]), K[:2, 1:])
    assert K[0, 1] == pytest.approx(2 / 5)


def test_on_sets_it_is_jaccard():
    sets = [{"a", "b"}, {"b", "c"}, set(), {"a", "b", "c", "d"}]
    np.testing.assert_allclose(MinMax()(sets), Jaccard()(sets))


def test_bad_counts_are_named():
    with pytest.raises(ValueError, match=r"X\[1\] gives token 'O' the count 1\.5"):
        MinMax()([{"C": 1}, {"O": 1.5}])
    with pytest.raises(ValueError, match=r"X\[0\] gives token 'C' the count -1"):
        MinMax()([{"C": -1}])
    with pytest.raises(ValueError, match=r"X\[1\] gives token 0 the count 0\.5"):
        MinMax()(np.array([[1.0, 0.0], [0.5, 2.0]]))
    with pytest.raises(TypeError, match=r"X\[0\] is a str"):
        MinMax()(["CCO"])
