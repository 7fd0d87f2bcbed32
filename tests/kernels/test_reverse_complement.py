"""reverse_complement= on the DNA k-mer kernels: the kernel of strand-merged features."""

import numpy as np
import pytest

from structk.kernels import GappedKmer, GappyPair, Mismatch, Spectrum
from structk.sequences import encode, reverse_complement

COMP = str.maketrans("ACGTacgtNn", "TGCAtgcaNn")
X = ["ACGTTGCAAGN", "acgtaacc", "TTTT", "", "GATTACAGATTACA", "CGCGAATTCGCG"]
RC = [s.translate(COMP)[::-1] for s in X]
KERNELS = [
    lambda **kw: Spectrum(k=3, unknown="skip", **kw),
    lambda **kw: Spectrum(k=4, presence=True, unknown="skip", **kw),  # palindromes
    lambda **kw: Mismatch(k=3, m=1, unknown="skip", **kw),
    lambda **kw: GappyPair(k=1, m=2, unknown="skip", **kw),
    lambda **kw: GappedKmer(l=4, k=2, d=2, normalize=False, **kw),
]


@pytest.mark.parametrize("make", KERNELS)
def test_both_strands(make):
    one = make(reverse_complement=False)
    both = make(reverse_complement=True)
    np.testing.assert_allclose(both(X), one(X) + one(X, RC), atol=1e-12)
    np.testing.assert_allclose(both(X), both(RC), atol=1e-12)
    np.testing.assert_allclose(both(X, X[:2]), both(X)[:, :2], atol=1e-12)
    np.testing.assert_allclose(both.diag(X), np.diag(both(X)), atol=1e-12)
    if both.has_features:
        F, G = one.features(X), one.features(RC)
        merged = (F + G).toarray() / np.sqrt(2)
        np.testing.assert_allclose(both.features(X).toarray(), merged, atol=1e-12)
        np.testing.assert_allclose(merged @ merged.T, both(X), atol=1e-12)


def test_canonical_spectrum_features_by_hand():
    """k = 2: AC and GT are one feature; the palindrome AT counts on both strands."""
    F = Spectrum(k=2, reverse_complement=True).features(["ACAT"]).toarray()[0]
    col = {a + b: 4 * "ACGT".index(a) + "ACGT".index(b) for a in "ACGT" for b in "ACGT"}
    h = np.sqrt(0.5)
    assert F[col["AC"]] == pytest.approx(h) and F[col["GT"]] == pytest.approx(h)
    assert F[col["CA"]] == pytest.approx(h) and F[col["TG"]] == pytest.approx(h)
    assert F[col["AT"]] == pytest.approx(2 * h)


@pytest.mark.parametrize("make", [Spectrum, Mismatch, GappyPair])
def test_refused_off_nucleotides(make):
    with pytest.raises(ValueError, match="reverse_complement.*protein"):
        make(alphabet="protein", reverse_complement=True)(["ACG"])
    with pytest.raises(ValueError, match="reverse_complement"):
        make(alphabet="ACGX", reverse_complement=True)(["ACG"])


def test_encoded_reverse_complement():
    P = encode(["ACGN", "", "aacu"], "rna", unknown="skip")
    R = reverse_complement(P)
    assert R.codes.tolist() == [255, 1, 2, 3, 0, 2, 3, 3] and R.offsets.tolist() == [0, 4, 4, 8]
