"""Sequences shorter than the k-mer length have no features: the kernel
values are zero (and normalised ones zero too), never an error from deep
inside a sparse product."""

import numpy as np
import pytest

from structk.kernels import GappyPair, Mismatch, Normalize, Spectrum

SHORT_DNA = ["ACGT", "ACG", ""]
SHORT_PROTEIN = ["MKV", "MK"]


@pytest.mark.parametrize(
    "kernel, X, Y",
    [
        (Spectrum(k=10), SHORT_DNA[:2], ["ACGTACGTACGT"]),
        (Spectrum(k=10, alphabet="protein"), SHORT_PROTEIN, ["MKVLLAAGGKKL"]),
        (Mismatch(k=8, m=1), SHORT_DNA[:2], ["ACGTACGTACGT"]),
        (GappyPair(k=3, m=2), ["AC", "A"], ["ACGTACGTACGT"]),
    ],
)
def test_all_short_gives_zero_gram_and_cross(kernel, X, Y):
    for k in (kernel, Normalize(kernel)):
        assert np.array_equal(k(X), np.zeros((len(X), len(X))))
        assert np.array_equal(k(X, Y), np.zeros((len(X), len(Y))))
        assert np.array_equal(k.diag(X), np.zeros(len(X)))
    F = kernel.features(X)
    assert F.shape[0] == len(X) and F.nnz == 0


def test_short_and_long_together_keep_the_long_ones_values():
    X = ["ACG", "ACGTACGTACGTAAAC", "TTTTGGGGCCCCAAAA"]
    k = Spectrum(k=10)
    K = k(X)
    assert np.array_equal(K[0], np.zeros(3))
    assert K[1, 1] == 7.0 and K[2, 2] == 7.0  # 7 distinct 10-mers each
    Kn = Normalize(k)(X)
    assert Kn[1, 1] == 1.0 and Kn[0, 0] == 0.0
