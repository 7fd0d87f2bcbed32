"""The explainer and the string kernels share one feature map.

Each string kernel with explicit features counts the occurrences that one
public function of its :mod:`structk.algorithms` folder returns, and the
explainer places the same occurrences on the sequence: the explainer
imports that function (identity of the function objects), calls it when
it explains (a recording wrapper sees both callers), and the feature
vectors it groups from the occurrences are the kernel's own features. The
weighted-degree occurrences are checked against the kernel's definition.
"""

import importlib.util

import numpy as np
import pytest
import scipy.sparse as sp

from structk.algorithms import gapped_kmers, kmers, weighted_degree
from structk.explain import Explainer, _gkm, _sequences
from structk.explain._occurrences import group
from structk.kernels import GappedKmer, GappyPair, Mismatch, Spectrum, WeightedDegree
from structk.learners import KernelSVM
from structk.sequences import kmer_strings


def _random(n, lo, hi, seed, alphabet="ACGT"):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list(alphabet), rng.integers(lo, hi))) for _ in range(n)]


def test_the_explainer_imports_the_algorithms_own_functions():
    assert _sequences.kmers is kmers
    assert _sequences.weighted_degree is weighted_degree
    assert _gkm.gkm is gapped_kmers
    from structk.kernels import gapped_kmer, strings

    assert strings.kmers is kmers and strings.weighted_degree is weighted_degree
    assert gapped_kmer.gkm is gapped_kmers
    # the WD leaf's positioned features are the algorithm's, built on the k-mers
    assert weighted_degree.kmer_occurrences is kmers.kmer_occurrences
    # the re-written gapped k-mer mismatch count and pair sums are gone
    assert importlib.util.find_spec("structk.explain._jit") is None


@pytest.mark.parametrize(
    "kernel, function",
    [
        (Spectrum(k=3), "kmer_occurrences"),
        (Mismatch(k=3, m=1), "kmer_occurrences"),
        (GappyPair(k=1, m=2), "gappy_pair_occurrences"),
        (Spectrum(k=2, reverse_complement=True), "kmer_occurrences"),
    ],
    ids=repr,
)
def test_kernel_and_explainer_both_call_the_one_function(kernel, function, monkeypatch):
    calls = []
    original = getattr(kmers, function)

    def recording(*args, **kwargs):
        import inspect

        caller = inspect.stack()[1].frame.f_globals["__name__"]
        calls.append(caller)
        return original(*args, **kwargs)

    monkeypatch.setattr(kmers, function, recording)
    X = _random(20, 10, 30, 0)
    y = np.array([int("GA" in s) for s in X])
    kernel.features(X)
    assert "structk.kernels.strings" in calls
    calls.clear()
    Explainer(KernelSVM(kernel=kernel, C=1.0).fit(X, y)).contributions(X[:2])
    assert "structk.explain._sequences" in calls


def _explained_features(kernel, X):
    """The feature matrix the explainer's occurrence table groups to."""
    leaf = {
        Spectrum: _sequences.SpectrumLeaf,
        Mismatch: _sequences.MismatchLeaf,
        GappyPair: _sequences.GappyPairLeaf,
    }[type(kernel)](kernel)
    occ = leaf.occurrences(leaf.encode(X))
    owner, keys, vals, _ = group(occ.owner, occ.keys, occ.vals, len(X))
    return owner, keys, vals


@pytest.mark.parametrize(
    "kernel",
    [
        Spectrum(k=3, unknown="skip"),
        Spectrum(k=4, unknown="skip", reverse_complement=True),
        Mismatch(k=3, m=1, unknown="skip"),
        Mismatch(k=4, m=2, unknown="skip", reverse_complement=True),
        GappyPair(k=2, m=2, unknown="skip"),
        GappyPair(k=1, m=3, unknown="skip", reverse_complement=True),
    ],
    ids=repr,
)
def test_explained_occurrences_are_the_kernels_features(kernel):
    X = _random(25, 0, 40, 1, "ACGTN")
    owner, keys, vals = _explained_features(kernel, X)
    F = kernel.features(X).tocoo()
    got = sp.coo_matrix((vals, (owner, keys)), shape=F.shape).toarray()
    np.testing.assert_allclose(got, F.toarray(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k, m", [(1, 0), (2, 1), (3, 2)])
def test_mismatch_neighbours_are_the_hamming_ball(k, m):
    A = 4
    ids = np.arange(A**k, dtype=np.int64)
    got = kmers.mismatch_neighbours(ids, k, A, m)
    assert got.shape == (A**k, kmers.neighbourhood_size(k, A, m))
    digits = np.array([[(i // A**j) % A for j in range(k)] for i in ids])
    for i in ids:  # brute force: every k-mer within Hamming distance m, once
        want = np.flatnonzero((digits != digits[i]).sum(axis=1) <= m)
        np.testing.assert_array_equal(np.sort(got[i]), want)
        assert got[i, 0] == i


@pytest.mark.parametrize("d", [1, 3, 5])
def test_weighted_degree_occurrences_are_the_kernel_without_shifts(d):
    """``sum_l beta_l sum_p [u_{l,p}(x) = u_{l,p}(y)]`` by the definition and
    as the inner product of the positioned features; the key's parts decode."""
    X = _random(12, 15, 16, 2, "ACGTN")
    kernel = WeightedDegree(d=d, unknown="skip")
    P = _sequences.SequenceLeaf(kernel).encode(X)
    keys, owner, starts, lengths, vals = weighted_degree.wd_occurrences(
        P.codes, np.asarray(P.offsets, np.int64), d, 4
    )
    _, cols = np.unique(keys, return_inverse=True)
    F = sp.coo_matrix((vals, (owner, cols.ravel()))).toarray()
    beta = weighted_degree.wd_weights(d)

    def definition(x, y):
        return sum(
            beta[l - 1]
            * sum(
                x[p : p + l] == y[p : p + l] and "N" not in x[p : p + l]
                for p in range(len(x) - l + 1)
            )
            for l in range(1, d + 1)
        )

    want = np.array([[definition(x, y) for y in X] for x in X])
    np.testing.assert_allclose(F @ F.T, want, rtol=1e-12)
    np.testing.assert_allclose(kernel(X), want, rtol=1e-12)
    pos, l, ids = weighted_degree.wd_key_parts(keys, d, 4)
    np.testing.assert_array_equal(pos, starts)
    np.testing.assert_array_equal(l, lengths)
    for i, o, p, n in zip(ids.tolist(), owner.tolist(), starts.tolist(), l.tolist()):
        assert kmer_strings([i], n)[0] == X[o][p : p + n]


def test_gapped_kmer_explainer_pair_sums_are_the_kernels():
    """The explainer's ``K(x, x)`` changes come from the kernel's own sums:
    ``lmer_sums`` of one sequence's occurrence table is ``K(x, x)``."""
    kernel = GappedKmer(l=5, k=3, d=2, normalize=False, center_weighted=True, M=9, H=5.0)
    leaf = _gkm.GappedKmerLeaf(GappedKmer(l=5, k=3, d=2, center_weighted=True, M=9, H=5.0))
    for s in _random(6, 5, 40, 3):
        codes = leaf.encode([s]).codes
        occ = leaf.table(codes, np.array([0, len(codes)], np.int64), np.zeros(1, np.int64))
        one = gapped_kmers.LmerWindows(
            occ.keys, occ.keys, occ.vals, np.array([0, len(occ)], np.int64)
        )
        got = leaf._sums(one, None, 2)[0]
        np.testing.assert_allclose(got, kernel.diag([s])[0], rtol=1e-12)
