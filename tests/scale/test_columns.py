"""Blocks of features and Nyström kernel columns: inline, threads, Dask."""

import logging

import numpy as np
import pytest

from structk.kernels import Gaussian, Normalize, Spectrum
from structk.learners import KernelRidge
from structk.scale import Nystroem
from structk.scale.columns import exact_features, landmark_features

rng = np.random.default_rng(0)
X = rng.normal(size=(45, 3))
SEQS = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(5, 30)))) for _ in range(37)]


def test_exact_features_in_blocks_equal_one_call():
    k = Normalize(Spectrum(k=2))
    P = k.prepare(SEQS)
    whole = k.features(SEQS).toarray()
    for n_jobs in (None, 2):
        F = exact_features(k, SEQS, P, block_rows=10, n_jobs=n_jobs)
        np.testing.assert_allclose(F.toarray(), whole, rtol=1e-13, atol=1e-15)


def test_landmark_features_blocks_threads_and_progress():
    k = Gaussian(sigma=1.5)
    L = X[:7]
    V = rng.normal(size=(7, 4))
    expected = k(X, L) @ V
    seen = []
    for n_jobs, P in ((None, None), (2, k.prepare(X))):
        F = landmark_features(
            k,
            X,
            P,
            k.prepare(L),
            V,
            block_rows=8,
            n_jobs=n_jobs,
            progress=lambda done, total: seen.append((done, total)),
        )
        np.testing.assert_allclose(F, expected, rtol=1e-12)
    assert seen[-1] == (6, 6)
    with pytest.raises(ValueError, match="n_jobs must be"):
        landmark_features(k, X, None, k.prepare(L), V, n_jobs=0, block_rows=8)


def test_default_blocks_come_from_the_tuning_module(tuning):
    """Without ``block_rows`` the blocks are _tuning's sizes (progress counts them)."""
    tuning.set(FEATURE_BLOCK_ROWS=9, LANDMARK_BLOCK_ROWS=11)
    k = Normalize(Spectrum(k=2))
    seen = []
    F = exact_features(k, SEQS, k.prepare(SEQS), progress=lambda d, t: seen.append(t))
    np.testing.assert_allclose(F.toarray(), k.features(SEQS).toarray(), rtol=1e-13, atol=1e-15)
    g, V = Gaussian(sigma=1.5), rng.normal(size=(7, 4))
    F = landmark_features(g, X, None, g.prepare(X[:7]), V, progress=lambda d, t: seen.append(t))
    np.testing.assert_allclose(F, g(X, X[:7]) @ V, rtol=1e-12)
    assert (seen[0], seen[-1]) == (-(-37 // 9), -(-45 // 11))


def test_leverage_landmarks_prefer_unexplained_points():
    # 40 copies of one point and 5 distinct ones: leverage sampling picks the
    # distinct points first (a copy is explained once one copy is a landmark)
    Z = np.vstack([np.zeros((40, 2)), 10 * np.arange(1, 6)[:, None] * np.ones((1, 2))])
    ny = Nystroem(Gaussian(sigma=1.0), n_components=6, landmarks="leverage", random_state=0).fit(Z)
    assert np.sum(ny.component_indices_ >= 40) >= 4
    assert ny.transform(Z).shape == (45, 6)


def test_leverage_scores_in_blocks_pick_the_same_landmarks(tuning):
    kw = dict(n_components=8, landmarks="leverage", random_state=3)
    whole = Nystroem(Gaussian(sigma=1.5), **kw).fit(X)
    tuning.set(LANDMARK_BLOCK_ROWS=7)  # 45 objects: 7 blocks, the last of 3
    np.testing.assert_array_equal(
        Nystroem(Gaussian(sigma=1.5), **kw).fit(X).component_indices_, whole.component_indices_
    )


def test_dask_client_gives_the_same_nystroem_ridge():
    distributed = pytest.importorskip("distributed")
    y = np.sin(X[:, 0])
    kw = dict(alpha=0.1, solver="nystroem", n_components=15, random_state=0)
    local = KernelRidge(Gaussian(sigma=1.5), **kw).fit(X, y)
    with distributed.Client(
        processes=False,
        n_workers=1,
        threads_per_worker=2,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as client:
        remote = KernelRidge(Gaussian(sigma=1.5), client=client, **kw).fit(X, y)
        np.testing.assert_allclose(remote.predict(X), local.predict(X), rtol=1e-10)
    # the fitted feature map keeps no client: with the parameter reset, the
    # model pickles and predicts locally
    import pickle

    again = pickle.loads(pickle.dumps(remote.set_params(client=None)))
    assert again.feature_map_.client is None
    np.testing.assert_allclose(again.predict(X[:5]), local.predict(X[:5]), rtol=1e-10)


def _count_kmer_counts(monkeypatch):
    """Record the number of objects of every k-mer count a kernel makes."""
    from structk.kernels import strings

    sizes = []
    for name in ("_raw_features", "_count_arrays"):  # the CSR matrix, or its arrays
        counts = getattr(strings.Spectrum, name)

        def counting(self, P, counts=counts):
            sizes.append(len(P))
            return counts(self, P)

        monkeypatch.setattr(strings.Spectrum, name, counting)
    return sizes


def test_landmark_kmers_are_counted_once_per_call(monkeypatch):
    """The landmarks' k-mers are counted once for all the blocks (and each
    block's once, not again for Normalize's diagonal), and the features are
    bit for bit the blocks computed one by one without anything kept."""
    from structk._threads import one_blas_thread
    from structk.kernels import _memo

    k = Normalize(Spectrum(k=3))
    seqs = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(3, 40)))) for _ in range(50)]
    L, V = k.prepare(seqs[:6]), rng.normal(size=(6, 4))
    with one_blas_thread():
        expected = np.vstack(
            [k.cross_prepared(k.prepare(seqs[a : a + 8]), L) @ V for a in range(0, 50, 8)]
        )
    np.testing.assert_allclose(expected, k(seqs, seqs[:6]) @ V, rtol=1e-12)
    sizes = _count_kmer_counts(monkeypatch)
    for n_jobs, P in ((None, None), (2, k.prepare(seqs))):
        sizes.clear()
        F = landmark_features(k, seqs, P, L, V, block_rows=8, n_jobs=n_jobs)
        assert np.array_equal(F, expected)
        # 7 blocks of 8 and 2 objects: each counted once, the 6 landmarks once
        assert sorted(sizes) == sorted([2] + [8] * 6 + [6])
        assert not _memo._HELD  # nothing kept past the call
    # outside such a call nothing is kept: the normalised cross-Gram counts
    # both collections twice (the products and the diagonals)
    sizes.clear()
    k.cross_prepared(k.prepare(seqs[:8]), L)
    assert sorted(sizes) == [6, 6, 8, 8]


def test_remembered_values_follow_the_object_and_the_kernel():
    from structk.kernels._memo import remembered, remembering

    P, Q = [1, 2], [1, 2]  # equal, not the same object
    k1, k2 = Spectrum(k=2), Spectrum(k=2)
    calls = []

    def compute(tag):
        return lambda: calls.append(tag) or tag

    store = {}
    with remembering(P, store):
        with remembering(P):  # nested: the first store is used
            assert remembered(k1, "x", P, compute("a")) == "a"
        assert remembered(k1, "x", P, compute("b")) == "a"  # kept
        assert remembered(k2, "x", P, compute("c")) == "c"  # another kernel object
        assert remembered(k1, "y", P, compute("d")) == "d"  # another value
        assert remembered(k1, "x", Q, compute("e")) == "e"  # Q is not remembered
        assert remembered(k1, "x", Q, compute("f")) == "f"
    assert remembered(k1, "x", P, compute("g")) == "g"  # the block is over
    assert calls == ["a", "c", "d", "e", "f", "g"]
    assert len(store) == 3
    with remembering(P, store):  # the caller's store lives on
        assert remembered(k1, "x", P, compute("h")) == "a"


def test_dask_paths_without_a_lazy_array_do_not_import_dask_array(tmp_path):
    """Nystroem features and dask_gram(out=path) through a client do not
    import dask.array (0.4-0.9 s of CPU), which only dask_gram's lazy
    array needs; both still equal the local results."""
    pytest.importorskip("distributed")
    import subprocess
    import sys

    script = f"""
import logging, sys
import numpy as np
import distributed
from structk.kernels import Normalize, Spectrum
from structk.scale import Nystroem, dask_gram
seqs = {SEQS!r}
k = Normalize(Spectrum(k=2))
with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                        dashboard_address=None, silence_logs=logging.ERROR) as client:
    ny = Nystroem(k, n_components=9, random_state=0).fit(seqs)
    assert np.array_equal(ny.set_params(client=client).transform(seqs),
                          ny.set_params(client=None).transform(seqs))
    K = dask_gram(k, seqs, block_size=10, client=client, out={str(tmp_path / "K.npy")!r})
    np.testing.assert_allclose(np.asarray(K), k(seqs), rtol=1e-13, atol=1e-15)
    assert "dask.array" not in sys.modules
    dask_gram(k, seqs, block_size=10, client=client)
    assert "dask.array" in sys.modules
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")
