"""The feature contract of ``structk.kernels.base``: for every kernel with an
explicit feature map, ``aligned_features(k, X, Y)`` gives ``F @ G.T == k(X, Y)``,
and kernels with fixed columns give it from two plain ``features`` calls.

The registry below holds one kernel of every public kernel class (a test
checks that none is missing), each with two tiny collections ``X`` and ``Y``
that share some features and not others (tokens, k-mers, labels only one
side has). The reference is the kernel's own cross-Gram ``k(X, Y)``, which
each family's test module checks against its definition and peer libraries.
"""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import structk.kernels as kernels
from structk.kernels import (
    ClassConditionalFisherKernel,
    Constant,
    EmpiricalKernelMap,
    Exp,
    ExpIntersection,
    FisherKernel,
    FunctionKernel,
    FunctionScaled,
    GappedKmer,
    GappyPair,
    Gaussian,
    GraphHopper,
    Intersection,
    Jaccard,
    Kernel,
    Laplace,
    Linear,
    LocalAlignment,
    MinMax,
    Mismatch,
    Normalize,
    Part,
    Precomputed,
    Polynomial,
    Power,
    Product,
    RandomWalk,
    Scaled,
    ShortestPath,
    Spectrum,
    SpectrumRepair,
    Sum,
    WeightedDegree,
    WeisfeilerLehman,
    WeisfeilerLehmanOptimalAssignment,
    aligned_features,
)
from structk.kernels.alignment import smith_waterman

RNG = np.random.default_rng(3)
VX, VY = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 3))
SX = [{"a", "b"}, ["b", "c", "c"], set(), {"d"}]
SY = [{"a", "e"}, {"f"}, {"c", "d", "b"}]
STX = ["ACGTTGCA", "ACG", "TTTTGGGA", "GATTACA"]
STY = ["CCCCGGG", "ACGTAGCA", "T"]
AX = ["ACGTTG", "ACGTAG", "TTTTGG", "GATTAC"]
AY = ["CCCCCC", "ACGTTT", "AAAAAA"]
PX = ["MKVLA", "MKVLS", "WWPHY", "MK"]
PY = ["AAGIV", "MKVLAAG", "PHY"]


def _graphs(sizes, seed):
    out = []
    for i, n in enumerate(sizes):
        g = nx.gnp_random_graph(n, 0.6, seed=seed + i)
        nx.set_node_attributes(g, {v: int((v + i + seed) % 4) for v in g}, "label")
        nx.set_node_attributes(g, {v: np.array([v % 2, 1.0 + i % 3]) for v in g}, "attributes")
        out.append(g)
    return out


GX, GY = _graphs([4, 0, 3, 5], 0), _graphs([2, 4, 6], 10)


def _hmm(seed):
    from sklearn.exceptions import ConvergenceWarning

    from structk import DiscreteHMM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return DiscreteHMM(2, "ACGT", n_iter=5, random_state=seed).fit(STX)


def _registry():
    hmm, other = _hmm(0), _hmm(1)
    return [
        (Linear(), VX, VY),
        (Polynomial(degree=2), VX, VY),
        (Gaussian(sigma=2.0), VX, VY),
        (Laplace(), VX, VY),
        (Intersection(), SX, SY),
        (ExpIntersection(), SX, SY),
        (Jaccard(), SX, SY),
        (MinMax(), SX, SY),
        (Spectrum(k=2), STX, STY),
        (Spectrum(k=3, normalize=True), STX, STY),
        (Mismatch(k=3, m=1), STX, STY),
        (GappyPair(k=1, m=1), STX, STY),
        (GappedKmer(l=4, k=2, d=1), STX, STY),
        (WeightedDegree(d=3, shift=1), AX, AY),
        (LocalAlignment(beta=0.5), PX, PY),
        (FisherKernel(hmm, information="identity"), STX, STY),
        (ClassConditionalFisherKernel([hmm, other], information="identity"), STX, STY),
        (EmpiricalKernelMap(smith_waterman, PX[:3]), PX, PY),
        (SpectrumRepair(smith_waterman), PX, PY),
        (Precomputed(np.eye(6) + 0.5), [0, 1, 2], [3, 4, 5]),
        (FunctionKernel(lambda x, y: float(len(set(x) & set(y)))), STX, STY),
        (RandomWalk(lam=0.05), GX, GY),
        (ShortestPath(), GX, GY),
        (ShortestPath(length_kernel="gaussian"), GX, GY),
        (WeisfeilerLehman(h=2), GX, GY),
        (WeisfeilerLehmanOptimalAssignment(h=2), GX, GY),
        (GraphHopper(), GX, GY),
        # the algebra, over each kind of columns (fixed, keyed, per call)
        (Sum(Spectrum(k=2), Spectrum(k=3)), STX, STY),
        (Sum(WeisfeilerLehman(h=1), ShortestPath()), GX, GY),
        (Normalize(WeisfeilerLehman(h=1) + ShortestPath()), GX, GY),
        (Normalize(Intersection()), SX, SY),
        (Scaled(WeisfeilerLehman(h=1), 2.0), GX, GY),
        (Product(Linear(), Gaussian()), VX, VY),
        (Power(Polynomial(), 2), VX, VY),
        (Exp(Linear()), VX, VY),
        (Linear() + 1.5, VX, VY),
        (Constant(2.0), VX, VY),
        (FunctionScaled(Spectrum(k=2), lambda s: 1.0 + len(s)), STX, STY),
        (FunctionScaled(Intersection(), lambda s: 1.0 + len(s)), SX, SY),
        (Part(Spectrum(k=2), "s"), [{"s": s} for s in STX], [{"s": s} for s in STY]),
        (Part(Linear(), 1), [(None, v) for v in VX], [(None, v) for v in VY]),
    ]


# kernels that learn from data (SpectrumRepair) learn on X, as a learner would
REGISTRY = [(k.fit(X) if k.needs_fit else k, X, Y) for k, X, Y in _registry()]
IDS = [repr(k)[:60] for k, _, _ in REGISTRY]
WITH_FEATURES = [case for case in REGISTRY if case[0].has_features]


def _dense(M):
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def test_the_registry_holds_every_public_kernel_class():
    public = {getattr(kernels, name) for name in kernels.__all__}
    classes = {c for c in public if isinstance(c, type) and issubclass(c, Kernel)} - {Kernel}
    assert classes - {type(k) for k, _, _ in REGISTRY} == set()


def test_the_registry_covers_every_kind_of_columns():
    kinds = {(k.fixed_feature_columns, k.keyed_feature_columns) for k, _, _ in WITH_FEATURES}
    assert kinds == {(True, False), (False, True), (False, False)}


@pytest.mark.parametrize(
    "kernel, X, Y", WITH_FEATURES, ids=[repr(k)[:60] for k, _, _ in WITH_FEATURES]
)
def test_aligned_features_give_the_cross_gram(kernel, X, Y):
    F, G = aligned_features(kernel, X, Y)
    assert sp.isspmatrix_csr(F) and sp.isspmatrix_csr(G)
    assert F.dtype == G.dtype == np.float64
    assert F.shape[0] == len(X) and G.shape[0] == len(Y) and F.shape[1] == G.shape[1]
    # compact: no column that neither collection uses (one when none is used)
    assert F.shape[1] <= max(F.nnz + G.nnz, 1)
    close = dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_dense(F) @ _dense(G).T, kernel(X, Y), **close)
    np.testing.assert_allclose((F @ G.T).toarray(), kernel(X, Y), **close)
    # each side's rows also give its own Gram: the columns are one feature map
    np.testing.assert_allclose((F @ F.T).toarray(), kernel(X), **close)
    np.testing.assert_allclose((G @ G.T).toarray(), kernel(Y), **close)


@pytest.mark.parametrize(
    "kernel, X, Y",
    [c for c in WITH_FEATURES if c[0].fixed_feature_columns],
    ids=[repr(k)[:60] for k, _, _ in WITH_FEATURES if k.fixed_feature_columns],
)
def test_fixed_columns_give_the_cross_gram_from_two_calls(kernel, X, Y):
    """The plain product of two calls' features, as the contract states for
    ``fixed_feature_columns``."""
    F, G = kernel.features(X), kernel.features(Y)
    np.testing.assert_allclose(_dense(F) @ _dense(G).T, kernel(X, Y), rtol=1e-12, atol=1e-12)


def test_keyed_columns_mean_their_keys():
    """Intersection's column c counts the token ``feature_keys_prepared[c]``:
    checked against counts by hand."""
    k = Intersection()
    F = k.features(SY).toarray()
    keys = k.feature_keys_prepared(k.prepare(SY))
    for i, tokens in enumerate(SY):
        for c, key in enumerate(keys[: F.shape[1]]):
            assert F[i, c] == (key in set(tokens))


def test_wl_product_of_two_calls_is_what_the_helper_fixes():
    """WL columns are 2^62 label hashes: the raw product is refused by SciPy
    (the case the helper exists for), the aligned one is small and right."""
    k = WeisfeilerLehman(h=2)
    F0, G0 = k.features(GX), k.features(GY)
    assert F0.shape[1] == 2**62
    F, G = aligned_features(k, GX, GY)
    assert F.shape[1] == len(np.union1d(F0.indices, G0.indices))
    np.testing.assert_array_equal((F @ G.T).toarray(), k(GX, GY))


def test_aligned_features_leave_the_prepared_data_alone():
    """The helper copies what it renumbers: Intersection's features are its
    prepared matrix itself."""
    k = Intersection()
    P = k.prepare(SX)
    before = P.F.copy()
    k.features_prepared(P)  # the same object the helper converts
    aligned_features(k, SX, SY)
    assert (P.F != before).nnz == 0


@pytest.mark.parametrize("kernel, X, Y", [c for c in REGISTRY if not c[0].has_features][:4])
def test_kernels_without_features_are_refused(kernel, X, Y):
    with pytest.raises(TypeError, match="no explicit feature map"):
        aligned_features(kernel, X, Y)
