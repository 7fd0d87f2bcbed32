"""Precomputed: similarities looked up in a stored matrix, by row number or
by key, and the repair fitted per split on the looked-up values."""

import numpy as np
import pytest
from sklearn.base import clone

from structk import check_psd
from structk.kernels import LocalAlignment, Normalize, Precomputed, SpectrumRepair
from structk.learners import KernelSVM

RNG = np.random.default_rng(11)
AMINO = "ACDEFGHIKLMNPQRSTVWY"


def _symmetric(n, seed=0):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return A + A.T + 2 * n * np.eye(n)


def _proteins(n):
    return ["".join(RNG.choice(list(AMINO), RNG.integers(15, 30))) for _ in range(n)]


def test_rows_are_slices_of_the_matrix():
    S = _symmetric(7)
    k = Precomputed(S)
    rows, cols = [3, 0, 6], [1, 1, 5, 2]
    np.testing.assert_array_equal(k(rows), S[np.ix_(rows, rows)])
    np.testing.assert_array_equal(k(rows, cols), S[np.ix_(rows, cols)])
    np.testing.assert_array_equal(k.diag(rows), S[rows, rows])
    np.testing.assert_array_equal(k(np.array([4, 2])), S[np.ix_([4, 2], [4, 2])])
    assert repr(k) == "Precomputed(<7x7 matrix>)"


def test_keys_from_a_list_a_fasta_file_and_a_text_file(tmp_path):
    S = _symmetric(5, seed=1)
    seqs = ["MKVL", "WWPH", "mkaa", "QERT", "CCDE"]
    ids = ["d1", "d2", "d3", "d4", "d5"]
    np.save(tmp_path / "S.npy", S)
    fasta = tmp_path / "p.fa"
    fasta.write_text("".join(f">{i} some description\n{s}\n" for i, s in zip(ids, seqs)))
    (tmp_path / "ids.txt").write_text("\n".join(ids) + "\n")
    want = S[np.ix_([2, 0], [4, 1, 2])]
    by_list = Precomputed(S, keys=seqs)
    by_fasta = Precomputed(str(tmp_path / "S.npy"), keys=str(fasta))
    by_ids = Precomputed(tmp_path / "S.npy", keys=tmp_path / "ids.txt")
    np.testing.assert_array_equal(by_list(["mkaa", "MKVL"], ["CCDE", "WWPH", "mkaa"]), want)
    np.testing.assert_array_equal(by_fasta(["mkaa", "MKVL"], ["CCDE", "WWPH", "mkaa"]), want)
    np.testing.assert_array_equal(by_ids(["d3", "d1"], ["d5", "d2", "d3"]), want)
    assert repr(by_list) == "Precomputed(<5x5 matrix>, keys=<5 keys>)"
    assert repr(by_fasta) == f"Precomputed({str(tmp_path / 'S.npy')!r}, keys={str(fasta)!r})"


def test_a_repeated_key_with_equal_rows_is_one_object():
    S = _symmetric(3)
    S = np.vstack([S, S[1]])
    S = np.hstack([S, S[:, [1]]])  # row 3 is row 1 again
    k = Precomputed(S, keys=["A", "B", "C", "B"])
    np.testing.assert_array_equal(k(["B", "C"]), S[np.ix_([1, 2], [1, 2])])


@pytest.mark.parametrize(
    "make, X, error, message",
    [
        (
            lambda: Precomputed(_symmetric(4)),
            [1, 4],
            ValueError,
            r"X\[1\] = 4 is not a row of the 4 x 4 matrix \(rows 0 .. 3\)",
        ),
        (lambda: Precomputed(_symmetric(4)), [1, -1], ValueError, r"X\[1\] = -1 is not a row"),
        (
            lambda: Precomputed(_symmetric(4)),
            [0, "MKV"],
            TypeError,
            r"X\[1\] is 'MKV', not a row number: .* give keys=\.\.\. ",
        ),
        (lambda: Precomputed(_symmetric(4)), [0, 1.0], TypeError, r"X\[1\] is 1.0, not a row"),
        (lambda: Precomputed(_symmetric(4)), [True], TypeError, r"X\[0\] is True, not a row"),
        (
            lambda: Precomputed(_symmetric(2), keys=["MK", "WW"]),
            ["MK", "PP"],
            ValueError,
            r"X\[1\] \('PP'\) is not among the 2 keys",
        ),
        (
            lambda: Precomputed(_symmetric(2), keys=["MK"]),
            ["MK"],
            ValueError,
            r"keys names 1 objects but the matrix has 2 rows",
        ),
        (
            lambda: Precomputed(_symmetric(3), keys=["MK", "WW", "MK"]),
            ["MK"],
            ValueError,
            r"keys\[0\] and keys\[2\] are the same key but rows 0 and 2 of the matrix differ",
        ),
        (lambda: Precomputed(np.ones((2, 3))), [0], ValueError, r"shape \(2, 3\); .* square"),
        (
            lambda: Precomputed(np.array([[1.0, np.nan], [np.nan, 1.0]])),
            [0],
            ValueError,
            r"entry \[0, 1\] of the matrix given is nan",
        ),
        (
            lambda: Precomputed(np.array([[1.0, 2.0], [0.5, 1.0]])),
            [0, 1],
            ValueError,
            r"not symmetric: entry \[0, 1\] is 2.0 but \[1, 0\] is 0.5",
        ),
        (
            lambda: Precomputed("/nonexistent/S.npy"),
            [0],
            FileNotFoundError,
            r"no matrix file '/nonexistent/S.npy'",
        ),
    ],
)
def test_bad_input_names_the_item(make, X, error, message):
    with pytest.raises(error, match=message):
        make()(X)


def test_a_file_that_is_not_npy(tmp_path):
    bad = tmp_path / "S.npy"
    bad.write_text("not a matrix")
    with pytest.raises(ValueError, match=r"cannot read .*S.npy.* as a .npy matrix"):
        Precomputed(str(bad))([0])
    np.save(tmp_path / "T.npy", _symmetric(2))
    with pytest.raises(FileNotFoundError, match="no keys file"):
        Precomputed(str(tmp_path / "T.npy"), keys=str(tmp_path / "missing.fa"))([0])


def test_repair_of_the_stored_log_la_equals_the_repair_of_the_function():
    """Computing the similarity once and looking it up gives the kernel the
    similarity function gives, per split, with and without normalising."""
    X = _proteins(16)
    la = LocalAlignment(beta=0.5)
    L = la.log_kernel(X)
    train, test = X[:11], X[11:]
    for normalize in (False, True):
        direct = SpectrumRepair(la.log_kernel, normalize=normalize).fit(train)
        stored = SpectrumRepair(Precomputed(L, keys=X), normalize=normalize).fit(train)
        np.testing.assert_allclose(stored(train), direct(train), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(stored(test, train), direct(test, train), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(stored.eigenvalues_, direct.eigenvalues_, rtol=1e-10, atol=1e-10)
    # row numbers work the same way as keys
    by_row = SpectrumRepair(Precomputed(L), normalize=True).fit(list(range(11)))
    np.testing.assert_allclose(
        by_row(list(range(11, 16)), list(range(11))), stored(test, train), rtol=1e-12
    )
    assert check_psd(by_row(list(range(16))))


def test_the_normalised_similarity_is_normalize_of_the_lookup():
    """normalize=True divides by the self-similarities: the same as repairing
    Normalize(Precomputed(S)) (cosine normalisation of the stored values)."""
    X = _proteins(12)
    L = LocalAlignment(beta=0.5).log_kernel(X)
    a = SpectrumRepair(Precomputed(L), normalize=True).fit(list(range(8)))
    b = SpectrumRepair(Normalize(Precomputed(L))).fit(list(range(8)))
    np.testing.assert_allclose(a(list(range(12))), b(list(range(12))), rtol=1e-9, atol=1e-12)


def test_a_learner_fits_the_repair_on_its_training_rows_only():
    X = _proteins(30)
    L = LocalAlignment(beta=0.5).log_kernel(X)
    y = np.array([0, 1] * 15)
    kernel = SpectrumRepair(Precomputed(L), normalize=True)
    svm = KernelSVM(kernel=kernel, C=10.0).fit(list(range(20)), y[:20])
    assert svm.kernel_.landmarks_ == list(range(20))
    assert not hasattr(kernel, "landmarks_")  # the learner fitted a clone
    # the same decision values as the repair of the function fitted by hand
    ref = SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True).fit(X[:20])
    svm_ref = KernelSVM(kernel="precomputed", C=10.0).fit(ref(X[:20]), y[:20])
    np.testing.assert_allclose(
        svm.decision_function(list(range(20, 30))),
        svm_ref.decision_function(ref(X[20:], X[:20])),
        rtol=1e-6,
        atol=1e-8,
    )
    assert repr(clone(kernel)) == "SpectrumRepair(Precomputed(<30x30 matrix>), normalize=True)"


def test_the_la_kernel_from_its_stored_logarithm():
    """exp(beta * s) of the stored log-LA is the LA kernel: Normalize(Exp(beta *
    Precomputed(L))) is Normalize(LocalAlignment(beta)) (in log space, finite)."""
    from structk.kernels import Exp

    X = _proteins(6)
    L = LocalAlignment(beta=0.5).log_kernel(X)
    with pytest.warns(UserWarning, match="numerically the identity"):  # unrelated proteins
        stored = Normalize(Exp(0.5 * Precomputed(L)))(list(range(6)))
    with pytest.warns(UserWarning, match="numerically the identity"):
        direct = Normalize(LocalAlignment(beta=0.5))(X)
    np.testing.assert_allclose(stored, direct, rtol=1e-10, atol=1e-300)
