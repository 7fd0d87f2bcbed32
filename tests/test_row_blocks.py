"""The in-place passes over n x n matrices give the whole-matrix answer for
every row block size of structk._tuning (blocks that do not divide n)."""

import numpy as np
import pytest


@pytest.fixture(params=[1, 3, 1000])
def blocks(request, tuning):
    b = request.param
    tuning.set(
        MIRROR_BLOCK_ROWS=b,
        PSD_SYMMETRY_BLOCK_ROWS=b,
        ASYMMETRY_BLOCK=b,
        LOWER_TRIANGLE_BLOCK_ROWS=b,
        POISON_BLOCK_ROWS=b,
        PERMUTE_STRIP_BYTES=8 * 11 * b,
    )
    return b


def _symmetric_matrix(n=11, seed=0):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A + A.T


def test_triangles_norms_permutations_and_checks(blocks):
    from structk._linalg import permute_symmetric, restore_lower, rkhs_norm_from_upper
    from structk.algorithms.dense import mirror_upper
    from structk.learners._psd import _symmetric
    from structk.psd import _max_asymmetry
    from structk.scale._tiling import _poison

    K = _symmetric_matrix()
    M = np.triu(K) + np.tril(np.full_like(K, 7.0), -1)
    mirror_upper(M)
    np.testing.assert_array_equal(M, K)

    F = K.copy()
    F[np.tril_indices(11)] = -3.0  # a factorisation overwrote the lower part
    restore_lower(F, np.diag(K))
    np.testing.assert_array_equal(F, K)

    X = np.random.default_rng(1).normal(size=(11, 4))
    G, A = X @ X.T, np.random.default_rng(3).normal(size=(11, 2))
    U = np.triu(G) + np.tril(np.full_like(G, 5.0), -1)  # a factor below the diagonal
    np.testing.assert_allclose(
        rkhs_norm_from_upper(U, np.diag(G), A),
        np.sqrt(np.einsum("ik,ij,jk->k", A, G, A)),
        rtol=1e-12,
    )

    q = np.random.default_rng(2).permutation(11)
    P = K.copy()
    permute_symmetric(P, q)
    np.testing.assert_array_equal(P, K[q][:, q])

    B = K.copy()
    B[7, 2] += 0.5
    assert _max_asymmetry(B) == (0.5, (2, 7)) or _max_asymmetry(B) == (0.5, (7, 2))
    assert _symmetric(K, 0.0) and not _symmetric(B, 0.4)

    _poison(B)
    assert np.isnan(B).all()
