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


def _blocks(monkeypatch):
    """The dense blocks the products multiply (a spy)."""
    from structk.algorithms import sparse_gram as module

    seen = []
    real = module._dense_blocks

    def spy(*args):
        for blocks in real(*args):
            seen.append(blocks)
            yield blocks

    monkeypatch.setattr(module, "_dense_blocks", spy)
    return seen


@pytest.mark.parametrize("block_bytes", [8 * 150 * 3, 32 * 2**20])  # blocks of 3 columns, or one
def test_dense_blocks_add_up_to_the_exact_product(block_bytes, tuning, monkeypatch):
    """Whole-number dense columns, multiplied by BLAS one block of columns
    at a time and added into the result: the exact product, bit for bit,
    however many blocks."""
    rng = np.random.default_rng(3)
    dense = rng.integers(0, 110, (150, 40)).astype(float)  # row sums up to ~4,000
    dense[0] = 0
    dense[0, :32] = 128  # a row sum of exactly 2^12, and K[0, 0] = 2^19
    F, G = sp.csr_matrix(dense), sp.csr_matrix(dense[:70] // 2)
    seen = _blocks(monkeypatch)
    tuning.set(SPARSE_BLOCK_BYTES=block_bytes)
    got = sparse_gram(F, jitted=True), sparse_cross(F, G, jitted=True)
    widths = {D.shape[1] for blocks in seen for D in blocks}
    assert widths == ({3, 1} if block_bytes < 2**20 else {40})  # 40 = 13 x 3 + 1
    assert all(D.dtype == np.float64 for blocks in seen for D in blocks)
    for a, exact in zip(got, [(F @ F.T).toarray(), (F @ G.T).toarray()]):
        np.testing.assert_array_equal(a, exact)
    assert got[0][0, 0] == 2.0**19


@pytest.mark.parametrize("case", ["row sum 4097", "fractions"])
def test_large_and_fractional_counts_stay_exact(case):
    """A row sum above 2^12 (4097^2 is odd and above 2^24: float32 could not
    hold it) is exact, and a fractional count correct to rounding."""
    rng = np.random.default_rng(4)
    dense = rng.integers(1, 9, (60, 5)).astype(float)
    if case == "row sum 4097":
        dense[7, 0] = 4097 - dense[7, 1:].sum()
    else:
        dense[:, 2] += 1e-3
    F = sp.csr_matrix(dense)
    K, C = sparse_gram(F, jitted=True), sparse_cross(F, F[:9], jitted=True)
    rtol = 0 if case == "row sum 4097" else 1e-14
    np.testing.assert_allclose(K, (F @ F.T).toarray(), rtol=rtol)
    np.testing.assert_allclose(C, (F @ F[:9].T).toarray(), rtol=rtol)
    if case == "row sum 4097":
        assert K[7, 7] >= 4097**2 / 5 and (dense[7] ** 2).sum() == K[7, 7]


@pytest.mark.parametrize("integer", [True, False])
@pytest.mark.parametrize("ratio", [0.0, 30.0, 1e12])  # no dense column, some, all held
def test_the_scipy_form_splits_off_the_dense_columns(integer, ratio, tuning):
    """Small results without compiled code (``jitted=False``): the dense
    columns by BLAS, the rest by SciPy; for
    whole numbers SciPy's product bit for bit, else to rounding."""
    tuning.set(SPARSE_DENSE_RATIO=ratio)
    F = features(60, 300, 0.05, seed=8, integer=integer)
    G = features(45, 300, 0.05, seed=9, integer=integer)
    assert 60 * 60 <= tuning.SPARSE_SCIPY_MAX_RESULT
    for got, expected in (
        (sparse_gram(F), (F @ F.T).toarray()),
        (sparse_cross(F, G), (F @ G.T).toarray()),
        (sparse_cross(F[:5], G[:0]), np.zeros((5, 0))),
    ):
        if integer:
            np.testing.assert_array_equal(got, expected)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-13)
    K = sparse_gram(F)
    np.testing.assert_array_equal(K, K.T)


def _arrays(F):
    return (
        F.indptr.astype(np.int64),
        F.indices.astype(np.int64),
        np.asarray(F.data, dtype=np.float64),
        F.shape[1],
    )


@pytest.mark.parametrize("n_cols", [1, 64, 5000, 4**12])
def test_whole_number_product_equals_scipy_bit_for_bit(n_cols):
    """Counts by one dense product without SciPy (the small products of a
    prediction): SciPy's sparse product exactly, for column spaces indexed directly and renumbered, and empty rows."""
    from structk.algorithms.sparse_gram import whole_number_product, whole_number_sq_norms

    F = features(70, n_cols, min(0.5, 30 / n_cols), seed=n_cols)
    G = features(50, n_cols, min(0.5, 30 / n_cols), seed=n_cols + 1)
    F = sp.vstack([F, sp.csr_matrix((2, F.shape[1]))], format="csr")  # rows without features
    K = whole_number_product(_arrays(F))
    np.testing.assert_array_equal(K, (F @ F.T).toarray())
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(whole_number_product(_arrays(F), _arrays(G)), (F @ G.T).toarray())
    norms = whole_number_sq_norms(_arrays(F))
    np.testing.assert_array_equal(norms, np.asarray(F.multiply(F).sum(axis=1)).ravel())
    empty = whole_number_product(_arrays(F[:3]), _arrays(G[:0]))
    assert empty.shape == (3, 0)


def test_whole_number_product_declines_what_it_cannot_do_exactly(tuning):
    """Fractions, sums past 2^53, results past the SciPy form's size and
    products past ``SPARSE_NUMPY_MAX_WORK`` are left to the other forms."""
    from structk.algorithms.sparse_gram import whole_number_product, whole_number_sq_norms

    F = features(30, 40, 0.3, seed=3)
    assert whole_number_product(_arrays(F)) is not None
    fractional = features(30, 40, 0.3, seed=3, integer=False)
    assert whole_number_product(_arrays(fractional)) is None
    assert whole_number_sq_norms(_arrays(fractional)) is None
    huge = F.copy()
    huge.data[:] = 2.0**27
    assert whole_number_product(_arrays(huge)) is None
    assert whole_number_sq_norms(_arrays(huge)) is None
    tuning.set(SPARSE_NUMPY_MAX_WORK=30 * 30 * 41 - 1)
    assert whole_number_product(_arrays(F)) is None
    tuning.set(SPARSE_NUMPY_MAX_WORK=2**26, SPARSE_SCIPY_MAX_RESULT=30 * 30 - 1)
    assert whole_number_product(_arrays(F)) is None
