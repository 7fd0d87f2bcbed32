"""``structk._tuning`` changes the time, never the output; ``structk.defaults``
holds what changes a result, each entry documented.

A sample of speed entries is set to extreme values (zero, one, huge: every
object in its own chunk, every product on threads, the other form of an
algorithm) on small inputs of the kernels and learners that read them; the
results must equal those of the shipped values to 1e-12 (relative to the
largest entry: an entry may set the order of a floating-point sum) and the
predictions exactly.
"""

import re

import networkx as nx
import numpy as np
import pytest

from structk import _tuning, defaults
from structk.kernels import (
    Gaussian,
    GappedKmer,
    LocalAlignment,
    MinMax,
    Normalize,
    RandomWalk,
    Spectrum,
    WeightedDegree,
    WeisfeilerLehman,
)
from structk.learners import GaussianProcessRegressor, KernelRidgeCV, KernelSVM
from structk.stats import mmd_test


def _dna(n, length, seed):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list("ACGT"), size=length)) for _ in range(n)]


def _proteins(n, seed):
    rng = np.random.default_rng(seed)
    return [
        "".join(rng.choice(list("ACDEFGHIKLMNPQRSTVWY"), size=int(rng.integers(5, 20))))
        for _ in range(n)
    ]


def _graphs(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for s in range(n):
        G = nx.gnp_random_graph(int(rng.integers(1, 10)), 0.4, seed=s + 100 * seed)
        for v in G:
            G.nodes[v]["label"] = int(rng.integers(3))
        out.append(G)
    return out


def _gram(kernel, X):
    def run():
        return [kernel(X), kernel(X[:5], X[5:]), kernel.diag(X)]

    return run


def _expansion(kernel, X):
    coef = np.random.default_rng(5).normal(size=(2, 9))

    def run():
        return [kernel.expansion_prepared(kernel.prepare(X[:9]), coef)(kernel.prepare(X[9:]))]

    return run


def _svm():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 3))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=90), [-0.4, 0.4])  # 3 classes
    K = Gaussian(sigma=1.5)(X)
    T = Gaussian(sigma=1.5)(X[:20], X)

    def run():
        svm = KernelSVM(C=10.0).fit(K.copy(), y)
        return [
            svm.decision_function(T),
            svm.dual_coef_,
            svm.intercept_,
            np.atleast_1d(svm.rkhs_norm_),
            svm.predict(T),
        ]

    return run


def _svm_from_vectors():
    # past VECTOR_GRAM_MIRROR_MIN_N: the Gaussian Gram mirrored as written
    rng = np.random.default_rng(6)
    X = rng.normal(size=(450, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=450) > 0).astype(int)

    def run():
        svm = KernelSVM(Gaussian(sigma=2.0)).fit(X, y)
        return [svm.decision_function(X[:30]), svm.dual_coef_, svm.intercept_, svm.support_]

    return run


def _ridge_cv():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 3))
    y = X[:, 0] - X[:, 1] ** 2 + 0.1 * rng.normal(size=70)

    def run():
        model = KernelRidgeCV(Gaussian(sigma=1.5), alphas=(1e-2, 0.1, 1.0, 10.0, 100.0))
        model.fit(X, y)
        return [model.dual_coef_, model.loo_mse_, np.array([model.alpha_]), model.predict(X)]

    return run


def _mmd():
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(25, 2)), rng.normal(0.3, 1.0, size=(30, 2))

    def run():
        result = mmd_test(Gaussian(sigma=1.0), X, Y, n_permutations=200, random_state=0)
        return [np.array([result.statistic, result.pvalue]), result.null_distribution]

    return run


def _gp():
    rng = np.random.default_rng(6)
    X = rng.poisson(0.6, size=(60, 15)).astype(float)
    y = X[:, :3] @ [1.0, -0.5, 0.7] + rng.normal(size=60)

    def run():
        gp = GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True)
        gp.fit(X[:50], y[:50])
        mean, std = gp.predict(X[50:], return_std=True)
        theta = np.append(gp.kernel_.theta, np.log(gp.noise_))
        return [theta, np.array([gp.log_marginal_likelihood_value_]), gp.alpha_, mean, std]

    return run


#: (what is computed, the extreme values of one sample of speed entries)
CASES = {
    "kmers-sparse": (
        lambda: _gram(Normalize(Spectrum(k=3)), _dna(30, 40, 0)),
        [
            dict(
                KMERS_NUMPY_MAX_SYMBOLS=-1,
                SPARSE_SCIPY_MAX_RESULT=-1,
                SPARSE_DENSE_RATIO=0.0,
                SPARSE_CHUNK_WORK=1,
                SPARSE_PAIRS_MAX_ROWS=10**9,
                SPARSE_RADIX_BITS=1,
            ),
            dict(
                KMERS_NUMPY_MAX_SYMBOLS=-1,
                KMER_COUNTER_SPACE=0,
                SPARSE_SCIPY_MAX_RESULT=-1,
                SPARSE_DENSE_RATIO=1e12,
                SPARSE_DIRECT_SPACE=0,
                SPARSE_BLOCK_BYTES=8,
                SPARSE_THREADED_FROM=0,
                SPARSE_PAIRS_MAX_ROWS=0,
                SPARSE_RADIX_BITS=30,
                THREADED_PRODUCT=0,
            ),
        ],
    ),
    "weighted-degree": (
        lambda: _gram(WeightedDegree(d=4, shift=1), _dna(12, 70, 1)),
        [
            dict(WD_CHUNK_WORK=1),
        ],
    ),
    "gapped-kmers": (
        lambda: _gram(GappedKmer(l=6, k=4, d=2), _dna(14, 30, 2)),
        [
            dict(
                GKM_NUMPY_MAX_PAIRS=-1,
                GKM_NUMPY_MAX_SYMBOLS=-1,
                GKM_PAIRS_PER_SUBSET_ENTRY=1e12,
                GKM_TABLE_MAX_BYTES=0,
                GKM_THREADED_MIN_WORK=0,
                GKM_CHUNKS_PER_THREAD=1,
                GKM_PAIRS_CHUNK_WORK=1,
            ),
            dict(
                GKM_NUMPY_MAX_PAIRS=-1,
                GKM_PAIRS_PER_SUBSET_ENTRY=0.0,
                GKM_TABLE_MAX_BYTES=0,
                GKM_THREADED_MIN_WORK=0,
                GKM_RADIX_BITS=3,
                GKM_DIRECT_BYTES=0,
                GKM_BUFFER_HITS=1,
                GKM_TILE_BITS=1,
            ),
            dict(
                GKM_NUMPY_MAX_PAIRS=-1,
                GKM_PAIRS_PER_SUBSET_ENTRY=1e12,
                GKM_TABLE_MAX_BYTES=2**40,
                GKM_THREADED_MIN_WORK=0,
                GKM_PAIRS_CHUNK_WORK=1,
            ),
            dict(
                GKM_NUMPY_MAX_PAIRS=-1,
                GKM_PAIRS_PER_SUBSET_ENTRY=1e12,
                GKM_TABLE_MAX_BYTES=2**40,
                GKM_TABLE_ROWS=3,
                GKM_TABLE_COLUMNS=1,
            ),
            dict(
                GKM_NUMPY_MAX_PAIRS=-1,
                GKM_PAIRS_PER_SUBSET_ENTRY=0.0,
                GKM_TABLE_MAX_BYTES=0,
                GKM_MIRROR_PATTERNS=False,
            ),
            dict(
                GKM_NUMPY_MAX_PAIRS=-1,
                GKM_PAIRS_PER_SUBSET_ENTRY=0.0,
                GKM_TABLE_MAX_BYTES=0,
                GKM_BLOCK_ROWS=3,
                GKM_BLOCK_MIN_FILL=0.0,
            ),
            dict(
                GKM_NUMPY_MAX_PAIRS=-1,
                GKM_PAIRS_PER_SUBSET_ENTRY=0.0,
                GKM_TABLE_MAX_BYTES=0,
                GKM_BLOCK_MAX_GROUP_BITS=-1,
            ),
        ],
    ),
    "gapped-kmer-expansion": (
        lambda: _expansion(GappedKmer(l=6, k=4, d=2), _dna(14, 30, 2)),
        [
            dict(GKM_PROFILE_PAIRS_PER_ENTRY=0.0),
            dict(GKM_PROFILE_PAIRS_PER_ENTRY=1e12),
            dict(GKM_PROFILE_PAIRS_PER_ENTRY=0.0, GKM_PROFILE_MAX_L=5),
        ],
    ),
    "wl-relabel": (
        lambda: _gram(WeisfeilerLehman(h=3), _graphs(14, 1)),
        [
            dict(WL_NUMPY_MAX_ENTRIES=-1, WL_CHUNK_WORK=1),
        ],
    ),
    "random-walk": (
        lambda: _gram(RandomWalk(lam=0.02, node_label="label"), _graphs(10, 2)),
        [
            dict(WALK_PRODUCT_LAYOUT=1),
            dict(
                WALK_PRODUCT_LAYOUT=2,
                WALK_PARALLEL_WORK=0,
                WALK_CHUNKS_PER_THREAD=1,
                WALK_CHUNK_WORK=1,
                THREADED_EIGH_MIN_N=0,
            ),
        ],
    ),
    "alignment": (
        lambda: _gram(LocalAlignment(), _proteins(9, 3)),
        [
            dict(
                ALIGNMENT_PARALLEL_CELLS=0, ALIGNMENT_CHUNKS_PER_THREAD=1, ALIGNMENT_CHUNK_CELLS=1
            ),
        ],
    ),
    "svm": (
        _svm,
        [
            dict(
                SVM_BLOCK_COPY_MAX_FRACTION=0.0, PERMUTE_STRIP_BYTES=8, LOWER_TRIANGLE_BLOCK_ROWS=1
            ),
            dict(
                GRAM_BLOCK_NUMPY_MAX=0,
                PSD_SMALL_CERTIFICATE_MAX_N=0,
                PSD_NUMPY_PASS_MAX_N=0,
                PSD_NUMPY_FINITE_SCAN_MAX=0,
                PSD_SYMMETRY_BLOCK_ROWS=1,
                ONE_BLAS_THREAD_MAX_N=0,
                MIRROR_BLOCK_ROWS=1,
            ),
            dict(SVM_NUMPY_IPM_BUDGET=1),
            dict(SVM_NUMPY_IPM_BUDGET=10**6),
            dict(NUMPY_CHOLESKY_MAX_N=0),
            dict(NUMPY_CHOLESKY_MAX_N=10**6),
        ],
    ),
    "svm-from-vectors": (
        _svm_from_vectors,
        [
            dict(VECTOR_GRAM_MIRROR_MIN_N=10**9),
            dict(VECTOR_GRAM_MIRROR_MIN_N=0, VECTOR_GRAM_BLOCK_ROWS=3, VECTOR_GRAM_MIRROR_TILE=1),
        ],
    ),
    "ridge-cv": (
        _ridge_cv,
        [
            dict(RIDGE_CV_EIGH_MAX_N=0, RIDGE_LOO_PENALTY_BLOCK=1),
            dict(RIDGE_CV_EIGH_MAX_N=0, RIDGE_LOO_PENALTY_BLOCK=3),
        ],
    ),
    "mmd": (_mmd, [dict(MMD_BLOCK_ENTRIES=1)]),
    "gp-spectral": (_gp, [dict(GP_SPECTRAL_MIN_N=10**9)]),
}


@pytest.mark.parametrize(
    "case, index", [(c, i) for c, (_, sets) in CASES.items() for i in range(len(sets))]
)
def test_speed_entries_change_no_result(case, index, tuning):
    build, sets = CASES[case]
    run = build()
    reference = run()
    values = sets[index]
    assert all(name in vars(_tuning) for name in values), "a speed entry of _tuning"
    tuning.set(**values)
    for got, ref in zip(run(), reference, strict=True):
        got, ref = np.asarray(got), np.asarray(ref)
        assert got.shape == ref.shape
        if ref.dtype.kind in "iub":  # predictions
            np.testing.assert_array_equal(got, ref)
        else:
            scale = max(float(np.abs(ref).max(initial=0.0)), 1e-300)
            assert np.abs(got - ref).max(initial=0.0) <= 1e-12 * scale, values


def test_the_sample_reaches_the_entries_it_sets(tuning, chunk_counts):
    """An extreme value is not a no-op: every object in its own chunk."""
    X = _proteins(9, 3)
    chunk_counts.clear()
    LocalAlignment()(X)
    shipped = sum(chunk_counts)
    tuning.set(ALIGNMENT_PARALLEL_CELLS=0, ALIGNMENT_CHUNK_CELLS=1)
    chunk_counts.clear()
    LocalAlignment()(X)
    assert sum(chunk_counts) > shipped


def _entries(module):
    return {n: v for n, v in vars(module).items() if n.isupper() and not n.startswith("_")}


def test_each_entry_lives_in_one_module_and_the_fixture_sets_either(tuning):
    speed, results = _entries(_tuning), _entries(defaults)
    assert not set(speed) & set(results)
    assert not hasattr(_tuning, "PRIMAL_MIN_N")  # no aliases: one home per entry
    tuning.set(PRIMAL_MIN_N=7, SVM_BLOCK_COPY_MAX_FRACTION=0.5)
    assert defaults.PRIMAL_MIN_N == tuning.PRIMAL_MIN_N == 7
    assert _tuning.SVM_BLOCK_COPY_MAX_FRACTION == 0.5


def test_every_default_is_documented_with_its_value():
    """``structk.defaults``'s docstring has an entry ``NAME : type`` for each
    default whose description starts with its value."""
    doc = defaults.__doc__
    for name, value in _entries(defaults).items():
        match = re.search(rf"^{name} : [^\n]+\n    ([^.\n]+?)[.(]", doc, flags=re.M)
        assert match, f"{name} is not documented in structk/defaults.py"
        stated = match.group(1).strip()
        if stated.endswith("GiB"):
            assert value == float(stated.split()[0]) * 2**30, (name, stated)
        else:
            assert stated == str(value), (name, stated, value)
