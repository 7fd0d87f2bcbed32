"""LocalAlignment against a literal implementation of its recursion and an
enumeration of all local alignments; smith_waterman against parasail."""

import math

import numpy as np
import pytest

from structk import check_psd, gram
from structk.exceptions import KernelOverflowError
from structk.kernels import LocalAlignment, Normalize, smith_waterman
from structk.kernels.alignment import substitution_matrix
from structk.testing import assert_kernel_psd, strings

RNG = np.random.default_rng(5)
AMINO = "ACDEFGHIKLMNPQRSTVWY"
AB = ("ab", [[2.0, -1.0], [-1.0, 1.0]])


def random_strings(n, alphabet, lo, hi):
    return ["".join(RNG.choice(list(alphabet), RNG.integers(lo, hi + 1))) for _ in range(n)]


def score_table(matrix):
    symbols, S = substitution_matrix(matrix)
    index = {s: i for i, s in enumerate(symbols)}
    index.update({s.upper(): i for i, s in enumerate(symbols) if isinstance(s, str)})
    return lambda u, v: S[index[u.upper()], index[v.upper()]]


# ------------------------------------------------------------- references
def la_recursion(x, y, beta, matrix, go, ge):
    """The five tables of Saigo et al., literally, in Python floats."""
    S = score_table(matrix)
    n, m = len(x), len(y)
    M, X, Y, X2, Y2 = (np.zeros((n + 1, m + 1)) for _ in range(5))
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            M[i, j] = math.exp(beta * S(x[i - 1], y[j - 1])) * (
                1 + X[i - 1, j - 1] + Y[i - 1, j - 1] + M[i - 1, j - 1]
            )
            X[i, j] = math.exp(-beta * go) * M[i - 1, j] + math.exp(-beta * ge) * X[i - 1, j]
            Y[i, j] = (
                math.exp(-beta * go) * (M[i, j - 1] + X[i, j - 1])
                + math.exp(-beta * ge) * Y[i, j - 1]
            )
            X2[i, j] = M[i - 1, j] + X2[i - 1, j]
            Y2[i, j] = M[i, j - 1] + X2[i, j - 1] + Y2[i, j - 1]
    return 1 + X2[n, m] + Y2[n, m] + M[n, m]


def la_log_recursion(x, y, beta, matrix, go, ge):
    """The same recursion in log space (Python floats), for values beyond float64."""
    S = score_table(matrix)
    lae = np.logaddexp
    n, m = len(x), len(y)
    ninf = -math.inf
    M, X, Y, X2, Y2 = (np.full((n + 1, m + 1), ninf) for _ in range(5))
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            M[i, j] = beta * S(x[i - 1], y[j - 1]) + lae(
                lae(0.0, X[i - 1, j - 1]), lae(Y[i - 1, j - 1], M[i - 1, j - 1])
            )
            X[i, j] = lae(-beta * go + M[i - 1, j], -beta * ge + X[i - 1, j])
            Y[i, j] = lae(-beta * go + lae(M[i, j - 1], X[i, j - 1]), -beta * ge + Y[i, j - 1])
            X2[i, j] = lae(M[i - 1, j], X2[i - 1, j])
            Y2[i, j] = lae(lae(M[i, j - 1], X2[i, j - 1]), Y2[i, j - 1])
    return lae(lae(0.0, X2[n, m]), lae(Y2[n, m], M[n, m]))


def gap_cost(length, go, ge):
    return 0.0 if length == 0 else go + (length - 1) * ge


def la_enumeration(x, y, beta, matrix, go, ge):
    """Sum of exp(beta * score) over every local alignment, listed one by one.

    A local alignment is a chain of aligned pairs (i1, j1) < (i2, j2) < ...
    (both coordinates increasing); between consecutive pairs, the skipped
    positions of x and of y form one gap each (scored separately); the empty
    alignment scores 0.
    """
    S = score_table(matrix)
    total = 1.0  # the empty alignment

    def extend(i, j, score):
        nonlocal total
        total += math.exp(beta * score)
        for i2 in range(i + 1, len(x)):
            for j2 in range(j + 1, len(y)):
                gaps = gap_cost(i2 - i - 1, go, ge) + gap_cost(j2 - j - 1, go, ge)
                extend(i2, j2, score - gaps + S(x[i2], y[j2]))

    for i in range(len(x)):
        for j in range(len(y)):
            extend(i, j, S(x[i], y[j]))
    return total


def table(f, A, B):
    return np.array([[f(a, b) for b in B] for a in A])


# ----------------------------------------------------------- exact values
@pytest.mark.parametrize("beta, go, ge", [(0.5, 11, 1), (0.1, 4, 2), (1.0, 0, 0), (0.3, 2.5, 0.5)])
def test_equals_recursion(beta, go, ge):
    X = random_strings(7, AMINO, 0, 12) + ["W"]
    Y = random_strings(4, AMINO, 1, 10)
    kern = LocalAlignment(beta=beta, gap_open=go, gap_extend=ge)
    f = lambda s, t: la_recursion(s, t, beta, "BLOSUM62", go, ge)  # noqa: E731
    np.testing.assert_allclose(kern(X), table(f, X, X), rtol=1e-12)
    np.testing.assert_allclose(kern(X, Y), table(f, X, Y), rtol=1e-12)
    np.testing.assert_allclose(kern.diag(X), [f(s, s) for s in X], rtol=1e-12)
    K = kern(X)
    assert (K == K.T).all()


@pytest.mark.parametrize("matrix, alphabet", [(AB, "ab"), ("BLOSUM62", "ACW"), ("NUC.4.4", "ACGT")])
def test_equals_enumeration_of_all_local_alignments(matrix, alphabet):
    X = random_strings(6, alphabet, 0, 4) + [alphabet[0] * 4]
    for beta, go, ge in [(0.7, 1.5, 0.5), (0.2, 3, 1)]:
        kern = LocalAlignment(beta=beta, matrix=matrix, gap_open=go, gap_extend=ge)
        f = lambda s, t: la_enumeration(s, t, beta, matrix, go, ge)  # noqa: E731,B023
        np.testing.assert_allclose(kern(X), table(f, X, X), rtol=1e-12)


def test_biopython_array_and_user_matrix_of_any_alphabet():
    from Bio.Align import substitution_matrices

    X = random_strings(5, AMINO, 3, 9)
    pam = substitution_matrices.load("PAM250")
    np.testing.assert_array_equal(LocalAlignment(matrix=pam)(X), LocalAlignment(matrix="PAM250")(X))
    # symbols that are not letters: codons of a user alphabet
    codons = ("AAA", "GGG", "TTT")
    scores = [[3, -1, -2], [-1, 3, -1], [-2, -1, 2]]
    seqs = [["AAA", "GGG", "TTT"], ["GGG", "TTT"], ["AAA", "AAA", "TTT", "GGG"]]
    kern = LocalAlignment(beta=0.4, matrix=(codons, scores), gap_open=2, gap_extend=1)
    letters = {"AAA": "a", "GGG": "g", "TTT": "t"}
    same = LocalAlignment(beta=0.4, matrix=("agt", scores), gap_open=2, gap_extend=1)
    np.testing.assert_allclose(
        kern(seqs), same(["".join(letters[c] for c in s) for s in seqs]), rtol=1e-15
    )


def test_serial_and_parallel_loops_agree(monkeypatch, tuning):
    """Chunks of rows on threads give exactly the one-thread values."""
    import structk._threads as threads_module

    X = random_strings(9, AMINO, 0, 40)
    Y = random_strings(4, AMINO, 1, 30)
    kern = LocalAlignment(beta=1.5)  # some pairs take the scaled and log passes
    P = kern.prepare(X, "X")
    serial = (kern.log_kernel(X), kern.log_kernel(X, Y), kern._log_diag(P), smith_waterman(X, Y))
    tuning.set(ALIGNMENT_PARALLEL_CELLS=0)
    monkeypatch.setattr(threads_module, "num_threads", lambda: 3)
    parallel = (kern.log_kernel(X), kern.log_kernel(X, Y), kern._log_diag(P), smith_waterman(X, Y))
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)


def test_chunks_of_a_call_give_the_one_call_values(chunk_counts, tuning):
    """A call cut into chunks of ``ALIGNMENT_CHUNK_CELLS`` (so that Ctrl-C is
    answered between them) gives exactly the values of one call."""
    X = random_strings(9, AMINO, 3, 40)
    Y = random_strings(4, AMINO, 4, 30)
    kern = LocalAlignment(beta=1.5)  # some pairs take the scaled and log passes
    P = kern.prepare(X, "X")

    def values():
        return (kern.log_kernel(X), kern.log_kernel(X, Y), kern._log_diag(P), smith_waterman(X, Y))

    whole = values()
    chunk_counts.clear()
    tuning.set(ALIGNMENT_CHUNK_CELLS=1)  # every row (task) a chunk of its own
    cut = values()
    assert chunk_counts == [
        5,
        9,
        9,
        9,
    ]  # (9 + 1) // 2 Gram tasks, 9 rows, 9 diagonal entries, 9 rows
    for a, b in zip(whole, cut):
        np.testing.assert_array_equal(a, b)


def test_lowercase_and_blocks():
    X = random_strings(9, AMINO, 2, 15)
    kern = LocalAlignment()
    np.testing.assert_array_equal(kern([s.lower() for s in X]), kern(X))
    np.testing.assert_allclose(gram(kern, X, block_size=4), kern(X), rtol=1e-14)
    np.testing.assert_allclose(
        gram(Normalize(kern), X, block_size=4), Normalize(kern)(X), rtol=1e-14
    )


# ------------------------------------------------------ beyond float64
def test_log_space_path_equals_log_recursion():
    # beta * score far beyond 709: the float64 pass overflows, the log pass takes over
    x = "".join(RNG.choice(list(AMINO), 40))
    y = x[20:] + "WWWW" + x[:20]  # two good alignments in opposite orders
    sw = smith_waterman([x], gap_open=5, gap_extend=1)[0, 0]
    assert 709 < 5.0 * sw < 1400 < 20.0 * sw
    for beta in (20.0, 0.5, 5.0):  # log space, plain float64, scaled float64
        kern = LocalAlignment(beta=beta, gap_open=5, gap_extend=1)
        got = kern.log_kernel([x, y]) * beta
        want = table(lambda s, t: la_log_recursion(s, t, beta, "BLOSUM62", 5, 1), [x, y], [x, y])  # noqa: B023
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_jitted_log_and_linear_passes_agree():
    from structk.algorithms.alignment._numba import SHIFT, _la_linear, _la_log

    kern = LocalAlignment(beta=0.3)
    E, L, go, ge, lgo, lge = kern._tables()
    P = kern.prepare(random_strings(6, AMINO, 1, 60), "X")
    for i in range(len(P)):
        for j in range(len(P)):
            lin = _la_linear(P[i], P[j], E, go, ge, 0.0)
            np.testing.assert_allclose(_la_log(P[i], P[j], L, lgo, lge), lin, rtol=1e-13)
            scaled = _la_linear(P[i], P[j], E, go, ge, SHIFT)
            np.testing.assert_allclose(scaled, lin, rtol=1e-13)


def test_thousands_of_residues_normalise_finitely():
    long = random_strings(2, AMINO, 1000, 1500)
    mutant = list(long[0])
    for p in (100, 500, 900):
        mutant[p] = "W" if mutant[p] != "W" else "A"
    long.append("".join(mutant))
    kern = LocalAlignment(beta=0.5)
    K = Normalize(kern)(long)
    assert np.isfinite(K).all() and np.allclose(np.diag(K), 1.0) and (K <= 1 + 1e-12).all()
    assert 1e-30 < K[0, 2] < 1 and K[0, 1] < 1e-100 and check_psd(K)
    L = kern.log_kernel(long)
    assert np.isfinite(L).all()
    S = smith_waterman(long)
    assert (L >= S - 1e-9).all()  # one alignment is a term of the sum
    with pytest.raises(KernelOverflowError, match=r"at entry \(0, 0\).*Normalize"):
        LocalAlignment(beta=5.0)(long[:1] * 2)


def test_log_kernel_tends_to_smith_waterman():
    X = random_strings(6, AMINO, 10, 30)
    S = smith_waterman(X)
    gaps = [np.abs(LocalAlignment(beta=b).log_kernel(X) - S).max() for b in (1.0, 5.0, 50.0)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 0.5


# ----------------------------------------------------------- peer: parasail
def test_smith_waterman_equals_parasail():
    parasail = pytest.importorskip("parasail")
    X = random_strings(10, AMINO, 1, 40)
    Y = random_strings(4, AMINO, 1, 40)
    for go, ge in [(11, 1), (5, 2), (10, 10)]:
        want = table(lambda s, t: parasail.sw(s, t, go, ge, parasail.blosum62).score, X, Y)  # noqa: B023
        np.testing.assert_array_equal(smith_waterman(X, Y, gap_open=go, gap_extend=ge), want)


# ------------------------------------------------------------- validity
PSD_CASES = [
    (LocalAlignment(beta=0.5, matrix=AB, gap_open=1, gap_extend=0.5), strings("ab", max_size=6)),
    (
        Normalize(LocalAlignment(beta=1.0, matrix=AB, gap_open=2, gap_extend=1)),
        strings("ab", max_size=6),
    ),
    (Normalize(LocalAlignment(beta=0.5)), strings("ACDW", max_size=7)),
]


@pytest.mark.parametrize("kern, objects", PSD_CASES, ids=[repr(k) for k, _ in PSD_CASES])
def test_psd_property(kern, objects):
    assert_kernel_psd(kern, objects, pool_sizes=(16, 64))


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"beta": 0}, ValueError, "beta must be > 0"),
        ({"beta": -1}, ValueError, "beta must be > 0"),
        ({"beta": float("inf")}, ValueError, "beta must be finite"),
        ({"gap_open": -1}, ValueError, "gap_open must be >= 0"),
        ({"gap_extend": -0.5}, ValueError, "gap_extend must be >= 0"),
        ({"gap_open": "11"}, TypeError, "gap_open must be a real number"),
        (
            {"matrix": "BLOSSUM62"},
            ValueError,
            "unknown substitution matrix 'BLOSSUM62'; did you mean 'BLOSUM62'",
        ),
        ({"matrix": 62}, TypeError, "matrix must be a Biopython matrix name"),
        ({"matrix": ("ab", [[1, 0], [2, 1]])}, ValueError, "not symmetric"),
        ({"matrix": ("abc", [[1, 0], [0, 1]])}, ValueError, r"expected \(3, 3\)"),
        ({"matrix": ("ab", [[1, np.nan], [np.nan, 1]])}, ValueError, "must be finite"),
        ({"matrix": ("aa", [[1, 0], [0, 1]])}, ValueError, "repeated"),
        ({"ignore_case": "yes"}, TypeError, "ignore_case must be True or False"),
    ],
)
def test_bad_parameters(params, error, message):
    kern = LocalAlignment(**params)  # constructors store; evaluation checks
    with pytest.raises(error, match=message):
        kern(["MKV"])


def test_symbol_outside_the_matrix_is_named():
    with pytest.raises(ValueError, match=r"X\[1\] has symbol 'J' at position 2, which BLOSUM62"):
        LocalAlignment()(["MKV", "MKJV"])
    with pytest.raises(ValueError, match=r"Y\[0\] has symbol 'c' at position 1"):
        LocalAlignment(matrix=AB)(["ab"], ["ac"])
    with pytest.raises(ValueError, match=r"X\[0\] has symbol 'U'"):
        smith_waterman(["ACGU"], matrix="NUC.4.4")
    with pytest.raises(ValueError, match="gap_extend must be >= 0"):
        smith_waterman(["ACG"], gap_extend=-1)
