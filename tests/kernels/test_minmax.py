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


def written_out(X):
    """Each multiset as the set of its (token, level) pairs, by definition."""
    out = []
    for x in X:
        counts = x if isinstance(x, dict) else Counter(x)
        out.append({(t, level) for t, c in counts.items() for level in range(1, int(c) + 1)})
    return out


def prepared_pairs(P):
    """The (token, level) pairs of each prepared multiset, read back from its
    indicator matrix and the codes of its columns."""
    tokens = {i: t for t, i in P.vocabulary.items()}
    F = P.F.tocsr()
    return [
        {(tokens[int(c) >> 32], (int(c) & (2**32 - 1)) + 1) for c in P.codes[F.indices[a:b]]}
        for a, b in zip(F.indptr[:-1], F.indptr[1:])
    ]


@given(X=multisets, Y=multisets)
def test_prepared_pairs_and_gram_are_the_written_out_sets(X, Y):
    """The vectorised preparation holds exactly the pairs of the definition,
    and the Gram is, bit for bit, the Jaccard kernel of those sets (what
    MinMax computed when it built the pairs in Python)."""
    k = MinMax()
    assert prepared_pairs(k.prepare(X)) == written_out(X)
    np.testing.assert_array_equal(k(X), Jaccard()(written_out(X)))
    np.testing.assert_array_equal(k(X, Y), Jaccard()(written_out(X), written_out(Y)))
    # a subset of the prepared data against other data: the same values
    P, Q = k.prepare(X), k.prepare(Y)
    if len(X) > 1:
        np.testing.assert_array_equal(
            k.cross_prepared(k.take(P, slice(1, None)), Q),
            Jaccard()(written_out(X[1:]), written_out(Y)),
        )
    np.testing.assert_array_equal(k.cross_prepared(P, k.take(P, [0])), k(X, X[:1]))


def test_matrix_rows_and_their_dicts_line_up():
    """Rows of a count matrix (tokens: column indices) against the same
    multisets as dicts keyed by the column index, both ways."""
    rng = np.random.default_rng(2)
    V = rng.poisson(1.0, size=(9, 6))
    dicts = [{j: int(c) for j, c in enumerate(row) if c} for row in V]
    K = brute_force(dicts, dicts)
    np.testing.assert_array_equal(
        MinMax()(sp.csr_matrix(V[:4]), dicts[4:]), MinMax()(dicts[:4], dicts[4:])
    )
    np.testing.assert_allclose(MinMax()(dicts[:4], V[4:]), K[:4, 4:], rtol=1e-15)
    np.testing.assert_allclose(MinMax()(V[:4], sp.csr_matrix(V[4:])), K[:4, 4:], rtol=1e-15)


def test_repeated_sparse_entries_are_summed_and_the_input_left_alone():
    # a CSR matrix with column 0 of row 0 given twice (1 + 2) and an explicit 0
    M = sp.csr_matrix(
        (np.array([1.0, 2.0, 0.0, 1.0]), np.array([0, 0, 1, 1]), np.array([0, 3, 4])), shape=(2, 2)
    )
    before = (M.data.copy(), M.indices.copy())
    np.testing.assert_array_equal(MinMax()(M), MinMax()(M.toarray()))
    assert MinMax()(M)[0, 1] == pytest.approx(0 / 4)
    np.testing.assert_array_equal(M.data, before[0])
    np.testing.assert_array_equal(M.indices, before[1])


def test_a_count_beyond_the_codes_is_named():
    with pytest.raises(ValueError, match=r"X\[1\] gives token 'O' the count 4294967296"):
        MinMax().prepare([{"C": 1}, {"O": 2**32}])
    with pytest.raises(ValueError, match=r"X\[0\] gives token 1 the count 4294967296\.0"):
        MinMax().prepare(np.array([[1.0, 2.0**32]]))


@pytest.mark.parametrize("space", [5, 40, 10**12])
def test_distinct_sorted_is_numpys_unique(space):
    # marking the values present (small spaces) or sorting them (large ones)
    from structk.algorithms.multisets import distinct_sorted

    rng = np.random.default_rng(space % 97)
    for size in (0, 1, 7, 60):
        values = rng.integers(0, space, size=size)
        distinct, inverse = distinct_sorted(values, space)
        ref, ref_inverse = np.unique(values, return_inverse=True)
        np.testing.assert_array_equal(distinct, ref)
        np.testing.assert_array_equal(inverse, ref_inverse.ravel())


@given(X=multisets)
def test_pairs_numbered_by_marking_or_sorting_alike(X):
    # the (token, level) codes and the indicator matrix whichever way
    # level_indicator and the matrix rows number them (a choice of speed)
    from unittest import mock

    from structk.algorithms import multisets as module

    prepared = []
    for direct in (module._direct, lambda space, size: False):
        with mock.patch.object(module, "_direct", direct):
            P = MinMax().prepare(X)
            M = MinMax().prepare(sp.csr_matrix(_count_matrix(X)))
        prepared.append((P.codes, P.F.toarray(), M.codes, M.F.toarray()))
    for a, b in zip(*prepared):
        np.testing.assert_array_equal(a, b)


def _count_matrix(X):
    """The multisets as rows of counts over TOKENS' positions."""
    V = np.zeros((len(X), len(TOKENS)))
    for i, x in enumerate(X):
        for t, c in x.items():
            V[i, TOKENS.index(t)] = c
    return V
