"""``F F^T`` and ``F G^T`` of sparse non-negative features
(:mod:`structk.algorithms.sparse_gram`) against SciPy's sparse product, for
every way the columns are split (dense blocks, row by row, column pairs)
and every radix digit width of the regrouping by column."""

import numpy as np
import pytest
import scipy.sparse as sp

from structk.algorithms.sparse_gram import _to_csc, sparse_cross, sparse_gram


def features(n, n_cols, density, seed, integer=True):
    rng = np.random.default_rng(seed)
    F = sp.random(n, n_cols, density=density, random_state=rng, format="csr")
    F.data = rng.integers(1, 5, F.nnz).astype(float) if integer else rng.random(F.nnz)
    common = rng.random(n) < 0.9  # a column almost every row holds
    F = sp.hstack([F, sp.csr_matrix(common[:, None].astype(float))]).tocsr()
    F.sort_indices()
    return F


@pytest.mark.parametrize("bits", [1, 3, 11, 30])
@pytest.mark.parametrize("n_cols", [1, 7, 1000, 2**20 + 3])
def test_csc_regrouping_equals_scipy(bits, n_cols, tuning):
    tuning.set(SPARSE_RADIX_BITS=bits)
    F = features(40, n_cols, min(1.0, 30 / n_cols), seed=n_cols, integer=False)
    C = F.tocsc()
    C.sort_indices()
    colptr, rows, vals = _to_csc(
        F.indptr.astype(np.int64), F.indices.astype(np.int64), F.data, F.shape[1]
    )
    np.testing.assert_array_equal(colptr, C.indptr)
    np.testing.assert_array_equal(rows, C.indices)
    np.testing.assert_array_equal(vals, C.data)


@pytest.mark.parametrize("pairs", [0, 1, 8, 10**9])
@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("n_cols", [50, 5000, 4**10])
def test_gram_and_cross_equal_scipy_for_every_split(pairs, integer, n_cols, tuning):
    tuning.set(SPARSE_PAIRS_MAX_ROWS=pairs, SPARSE_RADIX_BITS=7)
    F = features(120, n_cols, min(0.5, 40 / n_cols), seed=n_cols + pairs, integer=integer)
    G = features(90, n_cols, min(0.5, 40 / n_cols), seed=n_cols + pairs + 1, integer=integer)
    K = sparse_gram(F, jitted=True)
    expected = (F @ F.T).toarray()
    if integer:  # integer features: exact whatever the order of the sums
        np.testing.assert_array_equal(K, expected)
    else:
        np.testing.assert_allclose(K, expected, rtol=1e-13)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(sparse_cross(F, G, jitted=True), (F @ G.T).toarray(), rtol=1e-13)
