"""GappedKmer against brute-force definitions and against gkmsvm-lite."""

import itertools
import pickle
from collections import Counter
from math import comb

import numpy as np
import pytest

from structk import gram
from structk.algorithms import gapped_kmers as gkm
from structk.algorithms.gapped_kmers import weights
from structk.kernels import GappedKmer
from structk.testing import assert_kernel_psd, strings

RNG = np.random.default_rng(7)
COMP = str.maketrans("ACGTacgt", "TGCAtgca")


def rc(s):
    return s.translate(COMP)[::-1]


def random_dna(n, lo, hi, rng=RNG):
    return ["".join(rng.choice(list("ACGT"), size=rng.integers(lo, hi + 1))) for _ in range(n)]


# ----------------------------------------------------------- brute force
def gapped_kmer_counts(s, l, k):
    """Every gapped k-mer of every l-mer free of N (positions kept, letters)."""
    s = s.upper()
    out = Counter()
    for p in range(len(s) - l + 1):
        word = s[p : p + l]
        if any(c not in "ACGT" for c in word):
            continue
        for kept in itertools.combinations(range(l), k):
            out[(kept, "".join(word[i] for i in kept))] += 1
    return out


def dot(a, b):
    return sum(v * b[key] for key, v in a.items())


def lmers(s, l):
    s = s.upper()
    return [
        (p, s[p : p + l]) for p in range(len(s) - l + 1) if all(c in "ACGT" for c in s[p : p + l])
    ]


def center_weight(p, L, l, M, H):
    dist = abs((L - l + 1) // 2 - p)
    return min(M, np.floor(M * np.exp(-np.log(2) * dist / H) + 1))


def brute_kernel(x, y, l, w, rc_on, center=None):
    """sum over l-mers a of x, b of y (and of rc(y)) of v_a v_b w[mm(a, b)]."""
    d = len(w) - 1

    def weighted(s):
        out = []
        for p, word in lmers(s, l):
            v = 1.0 if center is None else center_weight(p, len(s), l, *center)
            out.append((word, v))
        return out

    ys = weighted(y)
    if rc_on:
        ys = ys + [(rc(word), v) for word, v in ys]
    total = 0.0
    for a, va in weighted(x):
        for b, vb in ys:
            m = sum(ca != cb for ca, cb in zip(a, b))
            if m <= d:
                total += va * vb * w[m]
    return total


# ------------------------------------------------------------- the tests
@pytest.mark.parametrize("l, k", [(3, 1), (4, 2), (5, 3), (5, 2)])
@pytest.mark.parametrize("rc_on", [False, True])
def test_count_kernel_is_the_gapped_kmer_inner_product(l, k, rc_on):
    X = random_dna(6, 0, 12) + ["ACGNNACGTA", "acgtAGGTAC"]
    K = GappedKmer(l=l, k=k, d=l - k, kind="count", reverse_complement=rc_on, normalize=False)(X)
    phi = [gapped_kmer_counts(s, l, k) for s in X]
    both = [gapped_kmer_counts(s, l, k) + gapped_kmer_counts(rc(s), l, k) for s in X]
    for i, j in itertools.product(range(len(X)), repeat=2):
        if rc_on:
            expected = dot(phi[i], phi[j]) + dot(phi[i], gapped_kmer_counts(rc(X[j]), l, k))
            # the kernel of the strand-merged features (phi(x) + phi(rc x)) / sqrt 2
            assert expected == pytest.approx(dot(both[i], both[j]) / 2)
        else:
            expected = dot(phi[i], phi[j])
        assert K[i, j] == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("algorithm", ["numpy", "pairs", "subsets", "table"])
@pytest.mark.parametrize("kind", weights.KINDS)
@pytest.mark.parametrize("rc_on", [False, True])
def test_every_algorithm_follows_the_definition(algorithm, kind, rc_on):
    l, k, d = 5, 2, 2
    X = random_dna(5, 3, 14) + ["GGGGG", "ACGTNACGTACG", "ACGTACGTTT"]
    Y = random_dna(3, 5, 10)
    for center in (None, (7, 3.0)):
        kern = GappedKmer(
            l=l,
            k=k,
            d=d,
            kind=kind,
            reverse_complement=rc_on,
            normalize=False,
            algorithm=algorithm,
            center_weighted=center is not None,
            **({} if center is None else {"M": center[0], "H": center[1]}),
        )
        w = kern.mismatch_weights()
        K = kern(X, Y)
        for i, j in itertools.product(range(len(X)), range(len(Y))):
            assert K[i, j] == pytest.approx(
                brute_kernel(X[i], Y[j], l, w, rc_on, center), rel=1e-10, abs=1e-12
            )
        np.testing.assert_allclose(
            kern.diag(X),
            [brute_kernel(s, s, l, w, rc_on, center) for s in X],
            rtol=1e-10,
            atol=1e-12,
        )
        G = kern(X)
        np.testing.assert_allclose(
            G,
            [[brute_kernel(a, b, l, w, rc_on, center) for b in X] for a in X],
            rtol=1e-10,
            atol=1e-12,
        )


@pytest.mark.parametrize("rc_on", [False, True])
@pytest.mark.parametrize("center", [None, (7, 3.0)])
def test_count_features_are_the_canonical_gapped_kmer_counts(rc_on, center):
    l, k = 5, 3
    X = random_dna(7, 0, 16) + ["ACGNNACGTACG", "acgtACGTAC", "AACGTT" * 3]
    Y = random_dna(3, 5, 12)
    kw = dict(
        l=l,
        k=k,
        d=l - k,
        kind="count",
        reverse_complement=rc_on,
        center_weighted=center is not None,
    )
    if center is not None:
        kw.update(M=center[0], H=center[1])
    raw = GappedKmer(normalize=False, **kw)
    F = raw.features(X)
    assert F.shape == (len(X), comb(l, k) * 4**k) and F.has_sorted_indices
    np.testing.assert_allclose((F @ F.T).toarray(), raw(X), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose((F @ raw.features(Y).T).toarray(), raw(X, Y), rtol=1e-12, atol=1e-9)
    norm = GappedKmer(normalize=True, **kw)
    G = norm.features(X)
    np.testing.assert_allclose((G @ G.T).toarray(), norm(X), rtol=1e-12, atol=1e-12)
    if center is None:  # columns: brute-force counts, a pair and its rc merged
        combos = list(itertools.combinations(range(l), k))
        for i, s in enumerate(X):
            want = Counter()
            for (kept, word), c in gapped_kmer_counts(s, l, k).items():
                col = combos.index(kept) * 4**k + int(
                    "".join(str("ACGT".index(b)) for b in word), 4
                )
                if rc_on:
                    mkept = tuple(sorted(l - 1 - p for p in kept))
                    mcol = combos.index(mkept) * 4**k + int(
                        "".join(str("ACGT".index(b)) for b in rc(word)), 4
                    )
                    c = c * np.sqrt(2) if mcol == col else c
                    col = min(col, mcol)
                want[col] += c
            row = F.getrow(i)
            assert dict(zip(row.indices.tolist(), row.data.tolist())) == pytest.approx(dict(want))


def test_features_only_for_the_exact_count_kernel():
    for kern in (
        GappedKmer(),
        GappedKmer(l=5, k=3, d=1, kind="count"),
        GappedKmer(l=5, k=3, d=2, kind="count", gamma=1.0),
    ):
        assert not kern.has_features
        with pytest.raises(TypeError, match="d = l - k"):
            kern.features(["ACGTACGT"])
    assert GappedKmer(l=5, k=3, d=2, kind="count").has_features


def test_primal_svm_on_count_features_equals_the_dual():
    from structk.learners import KernelSVM

    X = random_dna(80, 20, 40, rng=np.random.default_rng(3))
    y = np.array([int("GATA" in s or "TATC" in s) for s in X])
    kw = dict(kernel=GappedKmer(l=5, k=3, d=2, kind="count"), C=1.0, tol=1e-6, loss="hinge")
    dual = KernelSVM(solver="dual", **kw).fit(X, y)
    primal = KernelSVM(solver="primal", **kw).fit(X, y)
    assert primal.solver_ == "primal"
    T = random_dna(20, 20, 40, rng=np.random.default_rng(4))
    d, p = dual.decision_function(T), primal.decision_function(T)
    np.testing.assert_allclose(p, d, atol=2e-3 * np.abs(d).max())


def test_chunks_of_rows_give_the_one_call_values(chunk_counts, tuning):
    """The all-pairs form cut into calls of ``GKM_PAIRS_CHUNK_WORK`` l-mer
    comparisons (a Ctrl-C is answered between them) gives exactly the values
    of one call."""
    rng = np.random.default_rng(7)
    X = random_dna(9, 6, 40, rng) + ["ACGTACGTNACGTACGTAA", "TTTTTTTTTTTT"]  # l-mers in each
    Y = random_dna(4, 8, 30, rng)
    kern = GappedKmer(algorithm="pairs", l=6, k=3, d=3, normalize=False)
    whole = kern(X), kern(X, Y), kern.diag(X)
    chunk_counts.clear()
    tuning.set(GKM_PAIRS_CHUNK_WORK=1)  # every row a chunk of its own
    cut = kern(X), kern(X, Y), kern.diag(X)
    assert chunk_counts[:2] == [11, 11]
    for a, b in zip(whole, cut):
        np.testing.assert_array_equal(a, b)
    table = kern.set_params(algorithm="table")
    chunk_counts.clear()
    cut = table(X), table(X, Y)  # the table form is cut as the all-pairs form
    assert chunk_counts[:2] == [11, 11]
    np.testing.assert_allclose(cut[0], whole[0], rtol=1e-12)
    np.testing.assert_allclose(cut[1], whole[1], rtol=1e-12)


@pytest.mark.parametrize("rows, columns", [(1, 1), (3, 2), (16, 128), (2, 5)])
def test_table_form_blocks_give_the_all_pairs_values(rows, columns, tuning):
    """The table form fills ``GKM_TABLE_ROWS`` tables at a time and reads
    them through the index of ``GKM_TABLE_COLUMNS`` sequences at a time:
    every block size (one, uneven, larger than the input) gives the
    all-pairs form's Gram, cross-Gram and (normalised) values, with centre
    weights and reverse complements, sequences without l-mers included."""
    tuning.set(GKM_TABLE_ROWS=rows, GKM_TABLE_COLUMNS=columns)
    rng = np.random.default_rng(11)
    X = random_dna(9, 0, 40, rng) + ["ACGTACGTNACGTACGTAA", "TTTTTTTTTTTT", "ACG"]
    Y = random_dna(5, 3, 30, rng)
    for rc_on, center in itertools.product((False, True), (False, True)):
        args = dict(l=5, k=3, d=2, kind="truncated", reverse_complement=rc_on)
        args.update(center_weighted=center, normalize=not center)
        table, ref = GappedKmer(algorithm="table", **args), GappedKmer(algorithm="pairs", **args)
        np.testing.assert_allclose(table(X), ref(X), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(table(X, Y), ref(X, Y), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(table(Y, X), ref(Y, X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("algorithm", ["pairs", "subsets", "table"])
def test_threaded_forms_add_up_to_the_reference(algorithm, tuning, monkeypatch):
    """Deletion patterns (counting) or row chunks (all pairs) on 3 threads,
    the patterns' partial sums in separate copies: the NumPy form's values."""
    from structk import _threads

    tuning.set(GKM_THREADED_MIN_WORK=0)
    monkeypatch.setattr(_threads, "num_threads", lambda: 3)
    X = random_dna(9, 0, 40) + ["ACGTACGTNACGTACGTAA", "TTTTTTTTTTTT"]
    Y = random_dna(4, 8, 30)
    for rc_on in (False, True):
        args = dict(l=6, k=3, d=3, kind="truncated", reverse_complement=rc_on, normalize=False)
        ours, ref = GappedKmer(algorithm=algorithm, **args), GappedKmer(algorithm="numpy", **args)
        np.testing.assert_allclose(ours(X), ref(X), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ours(X, Y), ref(X, Y), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ours.diag(X), ref.diag(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("algorithm", ["numpy", "pairs", "subsets", "table"])
def test_full_filter_up_to_l_is_the_projection(algorithm):
    """``kind="full"`` with ``d = l``: ``f_x^T P f_y`` with ``P`` the
    least-squares projection of l-mer counts onto the span of the gapped
    k-mer indicators (pinv), ``f`` the l-mer counts (and those of the
    reverse complement); every algorithm, Gram and cross-Gram."""
    l, k = 4, 2
    words = ["".join(w) for w in itertools.product("ACGT", repeat=l)]
    index = {w: j for j, w in enumerate(words)}
    Mi = np.zeros((comb(l, k) * 4**k, len(words)))
    for j, word in enumerate(words):
        for s, kept in enumerate(itertools.combinations(range(l), k)):
            c = sum("ACGT".index(word[i]) * 4**t for t, i in enumerate(kept))
            Mi[s * 4**k + c, j] = 1.0
    P = np.linalg.pinv(Mi, rcond=1e-10) @ Mi

    def f(s):
        v = np.zeros(len(words))
        for _, word in lmers(s, l):
            v[index[word]] += 1
        return v

    X = random_dna(5, 2, 12, rng=np.random.default_rng(21)) + ["ACGTNNACGTTT"]
    Y = random_dna(3, 4, 10, rng=np.random.default_rng(22))
    for rc_on in (False, True):
        kern = GappedKmer(
            l=l,
            k=k,
            d=l,
            kind="full",
            reverse_complement=rc_on,
            normalize=False,
            algorithm=algorithm,
        )

        def ref(a, b):
            fb = f(b) + (f(rc(b)) if rc_on else 0)
            return f(a) @ P @ fb

        np.testing.assert_allclose(
            kern(X), [[ref(a, b) for b in X] for a in X], rtol=1e-9, atol=1e-10
        )
        np.testing.assert_allclose(
            kern(X, Y), [[ref(a, b) for b in Y] for a in X], rtol=1e-9, atol=1e-10
        )
        np.testing.assert_allclose(kern.diag(X), [ref(a, a) for a in X], rtol=1e-9, atol=1e-10)


def test_d_beyond_l_minus_k_only_for_the_estimated_kinds():
    X = random_dna(4, 3, 12, rng=np.random.default_rng(23))
    full = GappedKmer(l=5, k=2, d=5, kind="full")(X)
    assert np.isfinite(full).all()
    # the truncated filter's weights vanish beyond 4 mismatches at (5, 2)
    np.testing.assert_allclose(
        GappedKmer(l=5, k=2, d=5)(X), GappedKmer(l=5, k=2, d=4)(X), rtol=1e-12
    )
    with pytest.raises(ValueError, match=r"d must be <= l - k = 3.*up to l"):
        GappedKmer(l=5, k=2, d=4, kind="count")(X)
    with pytest.raises(ValueError, match="d must be <= l = 5"):
        GappedKmer(l=5, k=2, d=6, kind="full")(X)


@pytest.mark.parametrize(("l", "k"), [(4, 2), (5, 2), (6, 3), (8, 3), (11, 7), (12, 8)])
def test_documented_psd_settings(l, k):
    """The docstring's list: count at d = l - k and the estimated kinds at
    d = l have no negative l-mer eigenvalue (truncated: nor at d = l - k for
    k >= l / 2 + 1); count and full truncated below that do."""

    def smallest(kind, d):
        eig = weights.lmer_eigenvalues(l, weights.mismatch_weights(l, k, d, kind))
        return eig.min() / np.abs(eig).max()

    assert smallest("count", l - k) >= -1e-12
    assert smallest("truncated", l) >= -1e-12
    assert smallest("full", l) >= -1e-12
    if k >= l / 2 + 1:
        assert smallest("truncated", l - k) >= -1e-12
    for kind in ("count", "full"):
        assert smallest(kind, l - k - 1) < -1e-6
    assert smallest("full", l - k) < -1e-6
    if (l, k) == (11, 7):  # LS-GKM's default, as the docstring says
        assert smallest("truncated", 3) == pytest.approx(-2.9e-4, rel=0.02)


@pytest.mark.parametrize("radix_bits, tile_bits", [(3, 1), (8, 0), (16, 2)])
def test_counting_form_with_buffered_tiles_follows_the_definition(radix_bits, tile_bits, tuning):
    """The counting form's pairs gathered a few at a time and added tile by
    tile, its radix sort in digits of 3, 8 or 16 bits, unit and centre
    weights, both strands or one: the brute-force sums."""
    tuning.set(
        GKM_DIRECT_BYTES=0, GKM_BUFFER_HITS=5, GKM_TILE_BITS=tile_bits, GKM_RADIX_BITS=radix_bits
    )
    l, k, d = 5, 2, 3
    X = random_dna(6, 3, 16, rng=np.random.default_rng(11)) + ["AAAAAAAA", "ACGTTACGT"]
    Y = random_dna(3, 5, 12, rng=np.random.default_rng(12))
    for rc_on, center in [(True, None), (False, None), (True, (9, 2.0))]:
        kern = GappedKmer(
            l=l,
            k=k,
            d=d,
            kind="full",
            reverse_complement=rc_on,
            normalize=False,
            algorithm="subsets",
            center_weighted=center is not None,
            **({} if center is None else {"M": center[0], "H": center[1]}),
        )
        w = kern.mismatch_weights()
        np.testing.assert_allclose(
            kern(X),
            [[brute_kernel(a, b, l, w, rc_on, center) for b in X] for a in X],
            rtol=1e-10,
            atol=1e-12,
        )
        np.testing.assert_allclose(
            kern(X, Y),
            [[brute_kernel(a, b, l, w, rc_on, center) for b in Y] for a in X],
            rtol=1e-10,
            atol=1e-12,
        )


@pytest.mark.parametrize("l, d", [(4, 1), (5, 2), (6, 2), (6, 3), (7, 3), (8, 3), (3, 3)])
def test_pattern_shares_are_mirror_equivariant(l, d):
    """Every set ``M`` of at most ``d`` mismatch positions goes to deletion
    patterns of ``d`` positions holding it, shares summing to 1, and its
    mirror image (``p -> l - 1 - p``) to the mirror images with the same
    shares: what the mirror-pattern Gram relies on."""

    def mirror(T):
        return tuple(sorted(l - 1 - p for p in T))

    for m in range(d + 1):
        for M in itertools.combinations(range(l), m):
            shares = gkm._pattern_shares(M, l, d)
            assert sum(shares.values()) == 1.0
            assert all(len(S) == d and set(M) <= set(S) for S in shares), (M, shares)
            assert gkm._pattern_shares(mirror(M), l, d) == {mirror(S): v for S, v in shares.items()}


@pytest.mark.parametrize("l, d", [(6, 0), (6, 1), (6, 2), (7, 2), (6, 3), (7, 3)])
@pytest.mark.parametrize("buffered", [False, True])
def test_mirror_pattern_gram_follows_the_definition(l, d, buffered, tuning, monkeypatch):
    """The packed Gram of both strands over half the deletion patterns
    (``GKM_MIRROR_PATTERNS``, :func:`gkm.mirror_codes`: about half of
    ``C(l, d)`` patterns visited): the brute-force sums and the general
    loop's Gram, for even and odd ``l`` (symmetric mismatch sets with and
    without a symmetric completion), self-similar and palindromic
    sequences included; the cross-Gram and diagonal keep the other path."""
    calls = []
    real = gkm.mirror_codes
    monkeypatch.setattr(gkm, "mirror_codes", lambda *a: calls.append(real(*a)) or calls[-1])
    if buffered:
        tuning.set(GKM_DIRECT_BYTES=0, GKM_BUFFER_HITS=5)
    X = random_dna(7, 4, 30, rng=np.random.default_rng(31)) + [
        "AAAAAAAAAAAA", "ACGTNACGTACGT", "ACGTACGTACGT", "GAATTCGAATTC", "CCCGGG"
    ]  # fmt: skip
    kern = GappedKmer(l=l, k=l - d, d=d, kind="truncated", normalize=False, algorithm="subsets")
    K = kern(X)
    assert len(calls) == 1
    assert len(calls[0][0]) == (comb(l, d) + sum(
        1 for S in itertools.combinations(range(l), d)
        if tuple(sorted(l - 1 - p for p in S)) == S
    )) // 2  # fmt: skip
    w = kern.mismatch_weights()
    np.testing.assert_allclose(
        K, [[brute_kernel(a, b, l, w, True) for b in X] for a in X], rtol=1e-12, atol=1e-12
    )
    tuning.set(GKM_PACKED_MAX_D=-1)
    np.testing.assert_allclose(K, kern(X), rtol=1e-12, atol=1e-12)
    assert len(calls) == 1


@pytest.mark.parametrize("d", [0, 1, 2, 3])
@pytest.mark.parametrize("buffered", [False, True])
def test_packed_counting_form_adds_what_the_general_loop_adds(d, buffered, tuning, monkeypatch):
    """The packed counting form (unit weights, d <= GKM_PACKED_MAX_D: one
    int64 per l-mer, a pair's weight from a per-pattern table) against the
    general loop (GKM_PACKED_MAX_D = -1): the same Gram, cross-Gram and
    diagonal bit for bit, both strands or one; and the brute-force sums."""
    from structk.algorithms.gapped_kmers import _numba

    calls = Counter()
    for name in ("packed_subsets_block", "subsets_block"):
        fn = getattr(_numba, name)
        monkeypatch.setattr(
            _numba, name, lambda *a, _fn=fn, _name=name: calls.update([_name]) or _fn(*a)
        )
    l = 6
    X = random_dna(7, 4, 30, rng=np.random.default_rng(21)) + ["AAAAAAAAAA", "ACGTNACGTACGT"]
    Y = random_dna(4, 8, 25, rng=np.random.default_rng(22))
    tiles = {"GKM_DIRECT_BYTES": 0, "GKM_BUFFER_HITS": 7} if buffered else {}
    for rc_on in (True, False):
        kern = GappedKmer(
            l=l,
            k=l - 3,
            d=d,
            kind="count" if d == 3 else "truncated",
            reverse_complement=rc_on,
            normalize=False,
            algorithm="subsets",
        )
        results = []
        for packed_max_d in (3, -1):  # the mirror-pattern Gram: the test below
            tuning.set(GKM_PACKED_MAX_D=packed_max_d, GKM_MIRROR_PATTERNS=False, **tiles)
            calls.clear()
            results.append((kern(X), kern(X, Y), kern.diag(X)))
            ran = "packed_subsets_block" if packed_max_d == 3 else "subsets_block"
            assert set(calls) == {ran}, calls
        for packed, general in zip(*results):
            np.testing.assert_array_equal(packed, general)
        w = kern.mismatch_weights()
        np.testing.assert_allclose(
            results[0][1],
            [[brute_kernel(a, b, l, w, rc_on) for b in Y] for a in X],
            rtol=1e-12,
            atol=1e-12,
        )


@pytest.mark.parametrize("l, d", [(6, 0), (5, 1), (6, 2), (7, 2), (6, 3), (7, 3)])
@pytest.mark.parametrize("rc_on", [True, False])
def test_blocked_gram_adds_what_the_tiled_loop_adds(l, d, rc_on, tuning, monkeypatch):
    """The packed Gram in blocks of sequences (``GKM_BLOCK_ROWS``: each
    block sorted on its own, each pair of blocks added straight into its
    block of the result, :func:`_numba.blocked_subsets_gram`) against the
    packed loop with tiled additions (``GKM_BLOCK_MAX_GROUP_BITS = -1``):
    the same Gram bit for bit for blocks of 1, 2, 5 and all sequences (a
    block without l-mers, sequences shorter than l, self-similar and
    palindromic ones), both strands (mirror patterns) or one; and the
    brute-force sums."""
    from structk.algorithms.gapped_kmers import _numba

    calls = Counter()
    for name in ("blocked_subsets_gram", "packed_subsets_block"):
        fn = getattr(_numba, name)
        monkeypatch.setattr(
            _numba, name, lambda *a, _fn=fn, _name=name: calls.update([_name]) or _fn(*a)
        )
    X = ["AC", "", "ACG"] + random_dna(9, 4, 30, rng=np.random.default_rng(41)) + [
        "AAAAAAAAAAAA", "ACGTNACGTACGT", "ACGTACGTACGT", "GAATTCGAATTC", "CCCGGG", "TTTTTTTTT"
    ]  # fmt: skip
    kern = GappedKmer(
        l=l, k=l - d, d=d, kind="truncated", reverse_complement=rc_on, normalize=False,
        algorithm="subsets",
    )  # fmt: skip
    tuning.set(GKM_BLOCK_MAX_GROUP_BITS=-1, GKM_DIRECT_BYTES=0, GKM_BUFFER_HITS=5)
    tiled = kern(X)
    assert set(calls) == {"packed_subsets_block"}, calls
    for rows in (1, 2, 5, 400):
        calls.clear()
        tuning.set(GKM_BLOCK_MAX_GROUP_BITS=2 * l, GKM_BLOCK_MIN_FILL=0.0, GKM_BLOCK_ROWS=rows)
        np.testing.assert_array_equal(kern(X), tiled)
        assert set(calls) == {"blocked_subsets_gram"}, (rows, calls)
    w = kern.mismatch_weights()
    np.testing.assert_allclose(
        tiled, [[brute_kernel(a, b, l, w, rc_on) for b in X] for a in X], rtol=1e-12, atol=1e-12
    )


def test_blocked_gram_is_taken_where_its_tables_pay(tuning):
    """The blocked Gram's rule (:func:`gkm._blocks_pay`): its offset
    tables of ``4^(l - d)`` entries no larger than
    ``2^GKM_BLOCK_MAX_GROUP_BITS`` and filled with ``GKM_BLOCK_MIN_FILL``
    l-mers a group, sequence numbers within ``32 - 2 d`` bits."""
    keys = np.zeros(5000, dtype=np.int64)
    assert not gkm._blocks_pay(keys, 11, 3, 1166)  # 4^8 = 65,536 groups, 5,000 l-mers
    assert gkm._blocks_pay(np.zeros(70_000, dtype=np.int64), 11, 3, 1166)
    assert not gkm._blocks_pay(keys, 11, 3, 2**26)  # sequence numbers beyond 26 bits
    assert not gkm._blocks_pay(keys, 12, 2, 100)  # 4^10 groups: above 2^18
    assert not gkm._blocks_pay(keys[:100], 8, 2, 10)  # 4,096 groups for 100 l-mers
    tuning.set(GKM_BLOCK_MIN_FILL=0.0)
    assert gkm._blocks_pay(keys[:100], 8, 2, 10)


def _hamming(l):
    words = np.array(list(itertools.product(range(4), repeat=l)))
    return (words[:, None, :] != words[None, :, :]).sum(-1)


@pytest.mark.parametrize("l, k", [(4, 2), (5, 2), (5, 3)])
def test_estimated_lmer_weights_from_the_explicit_projection(l, k):
    """The full filter is the projection of l-mer counts onto the span of the
    gapped k-mer indicators (least squares), computed here by pinv."""
    words = list(itertools.product(range(4), repeat=l))
    rows = {}
    for kept in itertools.combinations(range(l), k):
        for j, word in enumerate(words):
            rows.setdefault((kept, tuple(word[i] for i in kept)), []).append(j)
    Mi = np.zeros((len(rows), len(words)))
    for r, cols in enumerate(rows.values()):
        Mi[r, cols] = 1.0
    P = np.linalg.pinv(Mi, rcond=1e-10) @ Mi
    H = _hamming(l)
    g = np.array([P[H == m].mean() for m in range(l + 1)])
    for m in range(l + 1):
        np.testing.assert_allclose(P[H == m], g[m], atol=1e-12)
    d = l - k
    np.testing.assert_allclose(weights.mismatch_weights(l, k, d, "full"), g[: d + 1], atol=1e-13)
    # truncated: the filter cut at its first non-positive value, applied twice
    cut = np.flatnonzero(g <= 1e-50)[0]
    G = np.where(H < cut, P, 0.0)
    W = G @ G
    np.testing.assert_allclose(
        weights.mismatch_weights(l, k, d, "truncated"),
        [W[H == m].mean() for m in range(d + 1)],
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        weights.mismatch_weights(l, k, d, "count"), [comb(l - m, k) for m in range(d + 1)]
    )
    # the eigenvalues of the l-mer matrix
    eig = np.linalg.eigvalsh(
        np.where(
            H <= d, np.array(weights.mismatch_weights(l, k, d, "count"))[np.minimum(H, d)], 0.0
        )
    )
    lam = weights.lmer_eigenvalues(l, weights.mismatch_weights(l, k, d, "count"))
    assert eig.min() == pytest.approx(lam.min(), abs=1e-8)
    assert eig.max() == pytest.approx(lam.max(), rel=1e-10)


def test_truncation_at_d_is_what_lsgkm_computes_and_not_always_psd():
    """At the tutorial setting the l-mer weight matrices truncated at d = 3
    have negative eigenvalues (LS-GKM's approximation); untruncated, the
    count kernel (d = l - k) is PSD."""
    for kind in weights.KINDS:
        lam = weights.lmer_eigenvalues(11, weights.mismatch_weights(11, 7, 3, kind))
        assert lam.min() < 0
    lam = weights.lmer_eigenvalues(11, weights.mismatch_weights(11, 7, 4, "count"))
    assert lam.min() > -1e-9 * lam.max()


@pytest.mark.parametrize("algorithm", ["numpy", "pairs", "subsets", "table"])
def test_exact_matches_only(algorithm):
    X = random_dna(4, 6, 12) + ["AAAAAAA"]
    K = GappedKmer(l=6, k=6, d=0, kind="count", normalize=False, algorithm=algorithm)(X)
    for i, j in itertools.product(range(len(X)), repeat=2):
        assert K[i, j] == brute_kernel(X[i], X[j], 6, [1.0], True)


def test_normalised_rbf_and_short_sequences():
    X = ["ACGTACGTAC", "ACG", "", "TTGACGTAGG", "NNNNNNNNNN"]
    raw = GappedKmer(l=4, k=2, d=2, normalize=False)
    norm = GappedKmer(l=4, k=2, d=2)
    rbf = GappedKmer(l=4, k=2, d=2, gamma=2.0)
    R = raw(X)
    dg = np.diag(R)
    assert dg[1] == dg[2] == dg[4] == 0.0
    N = norm(X)
    s = np.sqrt(dg)
    ok = np.outer(s, s) > 0
    np.testing.assert_allclose(N[ok], (R / np.where(ok, np.outer(s, s), 1))[ok])
    assert (N[~ok] == 0).all()
    np.testing.assert_allclose(rbf(X), np.exp(2.0 * (N - 1.0)))
    np.testing.assert_allclose(rbf.diag(X), np.diag(rbf(X)))
    np.testing.assert_allclose(norm.diag(X), np.diag(N))
    np.testing.assert_allclose(norm(X, X[:2]), N[:, :2])


def test_soft_masked_and_reverse_complement_invariance():
    X = random_dna(4, 20, 30)
    k = GappedKmer(l=6, k=3, d=2)
    np.testing.assert_allclose(k(X), k([s.lower() for s in X]))
    np.testing.assert_allclose(k(X), k([rc(s) for s in X]), atol=1e-12)
    np.testing.assert_allclose(k(X, X), k(X, [rc(s) for s in X]), atol=1e-12)


def test_prepare_take_pickle_and_blockwise():
    X = random_dna(30, 8, 40)
    k = GappedKmer(l=5, k=3, d=2, center_weighted=True, M=9, H=4.0)
    K = k(X)
    P = k.prepare(X)
    idx = np.array([3, 0, 17, 29])
    np.testing.assert_allclose(k.gram_prepared(k.take(P, idx)), K[np.ix_(idx, idx)])
    np.testing.assert_allclose(k.cross_prepared(k.take(P, slice(0, 5)), P), K[:5])
    np.testing.assert_allclose(k.diag_prepared(P), np.diag(K))
    k2 = pickle.loads(pickle.dumps(k))
    np.testing.assert_allclose(k2(X), K)
    P2 = pickle.loads(pickle.dumps(P))
    np.testing.assert_allclose(k.gram_prepared(P2), K)
    np.testing.assert_allclose(gram(k, X, block_size=7), K, atol=1e-12)


@pytest.mark.parametrize(
    "kern",
    [
        GappedKmer(l=4, k=2, d=2, kind="count"),
        GappedKmer(l=4, k=2, d=2, kind="count", gamma=1.5, reverse_complement=False),
        GappedKmer(l=3, k=1, d=2, kind="count", normalize=False, center_weighted=True, M=4, H=2.0),
    ],
)
def test_validity_kit(kern):
    assert_kernel_psd(kern, strings("ACGT", max_size=12), time_limit=10)


def test_spec_string_builds_the_kernel():
    from structk.cli.spec import parse_kernel

    k = parse_kernel("GappedKmer(l=11, k=7, d=3, kind='truncated', reverse_complement=True)")
    assert isinstance(k, GappedKmer) and k.kind == "truncated"


# ------------------------------------------------------------------ peer
def _nfe2_windows(structk_data, n, width):
    from structk.sequences import read_fasta

    _, seqs = read_fasta(structk_data("sequences/nfe2/pos.train.fa"))
    keep = [s for s in seqs if len(s) >= width][:n]
    return [s[(len(s) - width) // 2 : (len(s) - width) // 2 + width] for s in keep]


@pytest.mark.parametrize("kind, d", [("count", 4), ("truncated", 3), ("full", 3)])
@pytest.mark.parametrize("rc_on", [True, False])
def test_against_gkmsvm_lite_on_nfe2(structk_data, kind, d, rc_on):
    gkmsvm = pytest.importorskip("gkmsvm")
    from gkmsvm.codec import one_hot_encode
    from gkmsvm.gram import compute_gram
    from gkmsvm.kernels import DirectGkmKernel, EstTruncGkmKernel

    X = _nfe2_windows(structk_data, 12, 60)
    A = np.stack([one_hot_encode(s) for s in X])
    if kind == "count":  # gkmsvm-lite's count kernel is not truncated: d = l - k
        peer = DirectGkmKernel(11, 7, include_rc=rc_on)
    else:
        peer = EstTruncGkmKernel(11, 7, d=d, include_rc=rc_on, truncate=kind == "truncated")
    ours = GappedKmer(l=11, k=7, d=d, kind=kind, reverse_complement=rc_on)
    assert gkmsvm is not None
    np.testing.assert_allclose(ours(X), compute_gram(peer, A), rtol=2e-6, atol=1e-7)


def test_numpy_and_compiled_lmers_agree(tuning):
    X = random_dna(20, 0, 60) + ["ACGTNNACGTACGTAC", "acgtacgtacgt"]
    k = GappedKmer(l=5, k=3, d=1, center_weighted=True, M=9, H=5.0)
    P = k.prepare(X)
    tuning.set(GKM_NUMPY_MAX_SYMBOLS=0)
    Q = k.prepare(X)
    for name in ("keys", "keys_rc", "weights", "ptr"):
        np.testing.assert_array_equal(getattr(P, name), getattr(Q, name))


def test_memory_is_estimated_before_allocation(monkeypatch):
    from structk import _memory

    monkeypatch.setattr(_memory, "available_memory", lambda: 10_000)
    with pytest.raises(MemoryError, match="GiB"):
        GappedKmer(l=5, k=3, d=1)(random_dna(40, 20, 30))


# ------------------------------------------- the kernel expansion (profile)
EXPANSION_RNG = np.random.default_rng(11)


def _packed(word):
    key = 0
    for c in word:
        key = 4 * key + "ACGT".index(c)
    return key


@pytest.mark.parametrize(
    "l, w", [(3, [2.0, -1.0, 0.5, 0.25]), (4, [3.0, 1.5]), (5, [1.0, 0.3, 0.1])]
)
def test_convolution_is_the_product_with_the_hamming_weight_matrix(l, w):
    """``convolve_lmers`` against the explicit 4^l x 4^l matrix
    ``[w(mm(a, u))]`` (zero beyond the length of ``w``)."""
    words = ["".join(p) for p in itertools.product("ACGT", repeat=l)]
    assert [_packed(s) for s in words] == list(range(4**l))
    W = np.array(
        [
            [w[m] if (m := sum(x != y for x, y in zip(a, b))) < len(w) else 0.0 for b in words]
            for a in words
        ]
    )
    T = EXPANSION_RNG.normal(size=4**l) * (EXPANSION_RNG.random(4**l) < 0.3)
    out = gkm.convolve_lmers(T.copy(), l, np.array(w))
    np.testing.assert_allclose(out, W @ T, rtol=1e-12, atol=1e-12 * np.abs(T).sum())


def _kernels():
    for kind, rc_on, center, normalize in itertools.product(
        weights.KINDS, [False, True], [False, True], [False, True]
    ):
        # l, k, d, kind, reverse_complement, center_weighted, M, H
        yield GappedKmer(5, 2, 2, kind, rc_on, center, 7, 3.0, normalize=normalize)


@pytest.mark.parametrize("kern", list(_kernels()), ids=repr)
@pytest.mark.parametrize("fold", [True, False])
def test_expansion_follows_the_definition(kern, fold, tuning):
    """``f(x) = sum_j c_mj K(x, y_j)``, with ``K`` the brute-force sum over
    pairs of l-mers (normalised by the brute-force ``K(x, x)``), folded into
    the profile or through the cross-Gram; two machines; sequences without
    l-mers (shorter than l, or all N) on both sides."""
    tuning.set(GKM_PROFILE_PAIRS_PER_ENTRY=0.0 if fold else 1e12)
    Y = random_dna(6, 3, 16, EXPANSION_RNG) + ["NNNNNNNN"]
    X = random_dna(5, 2, 18, EXPANSION_RNG) + ["ACGTNACGTACG", "GGGGG"]
    coef = EXPANSION_RNG.normal(size=(2, len(Y)))
    w = kern.mismatch_weights()
    center = (7, 3.0) if kern.center_weighted else None

    def k(a, b):
        return brute_kernel(a, b, 5, w, kern.reverse_complement, center)

    def kn(a, b):
        if not kern.normalize:
            return k(a, b)
        norm = np.sqrt(k(a, a) * k(b, b))
        return k(a, b) / norm if norm > 0 else 0.0

    expected = np.array([[sum(c * kn(x, y) for c, y in zip(row, Y)) for row in coef] for x in X])
    f = kern.expansion_prepared(kern.prepare(Y), coef)
    got = f(kern.prepare(X))
    assert (f.tables is not None) == fold
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    # a second batch reuses the tables
    np.testing.assert_allclose(f(kern.prepare(X[:2])), expected[:2], rtol=1e-10, atol=1e-12)


def test_expansion_equals_the_cross_gram_on_nfe2_windows(structk_data):
    """On real sequences at LS-GKM's default (l = 11, k = 7, d = 3, both
    strands), the folded table and the cross-Gram give the same values to
    1e-10 (the table's rule picks the fold there)."""
    from structk.sequences import read_fasta

    _, pos = read_fasta(structk_data("sequences/nfe2/pos.train.fa"))
    _, neg = read_fasta(structk_data("sequences/nfe2/neg.test.fa"))
    kern = GappedKmer()
    P, Q = kern.prepare(pos[:150]), kern.prepare(neg[:40])
    coef = EXPANSION_RNG.normal(size=(1, 150))
    f = kern.expansion_prepared(P, coef)
    got = f(Q)
    assert f.tables is not None
    np.testing.assert_allclose(got, kern.cross_prepared(Q, P) @ coef.T, rtol=1e-10, atol=1e-12)


def test_rbf_form_and_large_l_take_the_cross_gram():
    Y = random_dna(4, 12, 20, EXPANSION_RNG)
    X = random_dna(3, 12, 20, EXPANSION_RNG)
    coef = EXPANSION_RNG.normal(size=(1, 4))
    for kern in (GappedKmer(l=5, k=2, d=2, gamma=2.0), GappedKmer(l=13, k=9, d=1)):
        f = kern.expansion_prepared(kern.prepare(Y), coef)
        np.testing.assert_allclose(f(kern.prepare(X)), kern(X, Y) @ coef.T, rtol=1e-12)
        assert f.tables is None


def test_coefficients_of_the_wrong_shape_are_refused():
    kern = GappedKmer(l=5, k=2, d=2)
    P = kern.prepare(random_dna(3, 8, 10, EXPANSION_RNG))
    with pytest.raises(ValueError, match=r"coef must have shape \(machines, 3\)"):
        kern.expansion_prepared(P, np.ones((1, 4)))
