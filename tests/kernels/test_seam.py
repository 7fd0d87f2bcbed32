"""The public prepared-data seam (prepare, take, gram_prepared, cross_prepared,
diag_prepared, features_prepared) of every kernel family, on tiny inputs, and
the constructors' contract (store the arguments, nothing else).

Each family's values are checked against independent references in its own
test module; here the seam is checked against the kernel's own ``k(X)``,
``k(X, Y)`` and ``k.diag(X)``, which are the references for slicing.
"""

import warnings

import networkx as nx
import numpy as np
import pytest
from kernel_checks import feature_product
from sklearn.base import clone

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
    Laplace,
    Linear,
    LocalAlignment,
    MinMax,
    Mismatch,
    Normalize,
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
)
from structk.kernels.alignment import smith_waterman

RNG = np.random.default_rng(7)
VECTORS = RNG.normal(size=(7, 3))
SETS = [{"a", "b"}, ["b", "c", "c"], set(), {"d"}, {"a", "c", "d"}, {"b"}, {"a"}]
STRINGS = ["ACGTTGCA", "ACG", "", "TTTTGGGA", "ACGTAGCA", "GATTACA", "CCCC"]
ALIGNED = ["ACGTTG", "ACGTAG", "TTTTGG", "GATTAC", "CCCCCC", "ACGTTT", "AAAAAA"]
PROTEINS = ["MKVLA", "MKVLS", "WWPHY", "MK", "AAGIV", "MKVLAAG", "PHY"]


def _graphs(directed=False):
    out = []
    for i, n in enumerate([4, 0, 3, 5, 1, 4, 3]):
        g = nx.gnp_random_graph(n, 0.6, seed=i, directed=directed)
        nx.set_node_attributes(g, {v: int((v + i) % 3) for v in g}, "label")
        nx.set_node_attributes(g, {v: np.array([v % 2, 1.0 + i % 3]) for v in g}, "attributes")
        out.append(g)
    return out


GRAPHS = _graphs()


def _hmm():
    from sklearn.exceptions import ConvergenceWarning

    from structk import DiscreteHMM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return DiscreteHMM(2, "ACGT", n_iter=5, random_state=0).fit(
            ["ACGTTGCA", "ACGTAGCA", "TTTTGGGA", "GATTACA"]
        )


def _cases():
    hmm = _hmm()
    return [
        (Linear(), VECTORS),
        (Polynomial(degree=3), VECTORS),
        (Gaussian(sigma=2.0), VECTORS),
        (Laplace(), VECTORS),
        (Intersection(), SETS),
        (ExpIntersection(), SETS),
        (Jaccard(), SETS),
        (MinMax(), SETS),
        (Spectrum(k=2), STRINGS),
        (Spectrum(k=3, normalize=True), STRINGS),
        (Spectrum(k=40), STRINGS),  # beyond int64 features: k-mers present
        (Mismatch(k=3, m=1), STRINGS),
        (GappyPair(k=1, m=1), STRINGS),
        (GappedKmer(l=4, k=2, d=1), STRINGS),
        (GappedKmer(l=3, k=2, d=1, normalize=False) + Spectrum(k=2, unknown="skip"), STRINGS),
        (WeightedDegree(d=3, shift=1), ALIGNED),
        (WeightedDegree(d=2, normalize=True), ALIGNED),
        (LocalAlignment(beta=0.5), PROTEINS),
        (FisherKernel(hmm, information="identity"), STRINGS[:2] + STRINGS[3:]),
        (
            ClassConditionalFisherKernel([hmm, hmm], information="identity"),
            STRINGS[:2] + STRINGS[3:],
        ),
        (EmpiricalKernelMap(smith_waterman, PROTEINS[:3]), PROTEINS),
        (FunctionKernel(lambda x, y: float(len(set(x) & set(y)))), STRINGS),
        (RandomWalk(lam=0.05), GRAPHS),
        (ShortestPath(), GRAPHS),
        (ShortestPath(length_kernel="gaussian"), GRAPHS),
        (WeisfeilerLehman(h=2), GRAPHS),
        (WeisfeilerLehmanOptimalAssignment(h=2), GRAPHS),
        (GraphHopper(), GRAPHS),
        (Sum(Spectrum(k=2), Spectrum(k=3)), STRINGS),
        (Product(Linear(), Gaussian()), VECTORS),
        (Scaled(Jaccard(), 2.0), SETS),
        (Power(Polynomial(), 2), VECTORS),
        (Exp(Linear()), VECTORS),
        (Normalize(WeisfeilerLehman(h=1) + ShortestPath()), GRAPHS),
        (Normalize(Exp(Intersection())), SETS),
        (Linear() + 1.5, VECTORS),
        (FunctionScaled(Spectrum(k=2), lambda s: 1.0 + len(s)), STRINGS),
        (Constant(2.0) * Intersection(), SETS),
    ]


CASES = _cases()
IDS = [repr(k)[:60] for k, _ in CASES]


def _select(X, index):
    return X[index] if isinstance(X, np.ndarray) else [X[i] for i in index]


@pytest.mark.parametrize("kernel, X", CASES, ids=IDS)
def test_seam_agrees_with_the_calls(kernel, X):
    n = len(X)
    K, D = kernel(X), kernel.diag(X)
    P = kernel.prepare(X)
    close = dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernel.gram_prepared(P), K, **close)
    np.testing.assert_allclose(kernel.diag_prepared(P), D, **close)
    np.testing.assert_allclose(np.diag(K), D, **close)
    a, b = np.array([4, 0, 2]), np.array([1, n - 1])
    Pa, Pb = kernel.take(P, a), kernel.take(P, b)
    np.testing.assert_allclose(kernel.gram_prepared(Pa), K[np.ix_(a, a)], **close)
    np.testing.assert_allclose(kernel.cross_prepared(Pa, Pb), K[np.ix_(a, b)], **close)
    np.testing.assert_allclose(kernel.diag_prepared(Pa), D[a], **close)
    np.testing.assert_allclose(
        kernel.cross_prepared(kernel.take(P, slice(1, 5)), P), K[1:5], **close
    )
    # prepared separately (Y prepared on its own) = the call k(X, Y)
    Q = kernel.prepare(_select(X, b), "Y")
    np.testing.assert_allclose(
        kernel.cross_prepared(Pa, Q), kernel(_select(X, a), _select(X, b)), **close
    )
    np.testing.assert_allclose(kernel.cross_prepared(Pa, Q), K[np.ix_(a, b)], **close)


#: Intersection's columns are its collection's vocabulary of tokens (any
#: hashables, numbered by first appearance): k(X, Y) aligns two vocabularies.
BATCH_COLUMNS = ("Intersection()",)
FEATURE_CASES = [
    (k, X)
    for k, X in CASES
    if k.has_features and repr(k) not in ("Spectrum(k=40)",) + BATCH_COLUMNS
]


@pytest.mark.parametrize("kernel, X", FEATURE_CASES, ids=[repr(k)[:60] for k, _ in FEATURE_CASES])
def test_features_of_separate_collections_give_the_cross_gram(kernel, X):
    """``features(X) @ features(Y).T == k(X, Y)`` with X and Y featurised
    apart: the columns of the feature map do not depend on the batch."""
    n = len(X)
    a, b = [0, 1, 2, 3], [3] + list(range(4, n))
    left, right = _select(X, a), _select(X, b)
    F, G = kernel.features(left), kernel.features(right)
    assert F.shape[1] == G.shape[1]
    np.testing.assert_allclose(feature_product(F, G), kernel(left, right), rtol=1e-12, atol=1e-12)
    Fp = kernel.features_prepared(kernel.take(kernel.prepare(X), np.array(a)))
    np.testing.assert_allclose(feature_product(Fp, F), kernel(left), rtol=1e-12, atol=1e-12)


def test_wl_feature_columns_are_the_label_hashes():
    """The same graph has the same feature row in any collection."""
    k = WeisfeilerLehman(h=2)
    alone = k.features(GRAPHS[3:4])
    among = k.features(GRAPHS)[3]
    assert (alone != among).nnz == 0 and alone.nnz > 0


def test_take_prepared_falls_back_to_preparing_the_subset():
    from structk.kernels.base import TakeNotImplemented, take_prepared

    class Whole(Linear):  # prepared data the default take cannot slice
        def _prepare(self, X, name):
            return (super()._prepare(X, name),)

        def _gram(self, P):
            return super()._gram(P[0])

        def _cross(self, P, Q):
            return super()._cross(P[0], Q[0])

        def _diag(self, P):
            return super()._diag(P[0])

    k = Whole()
    P = k.prepare(VECTORS)
    with pytest.raises(TakeNotImplemented):
        k.take(P, slice(0, 2))
    Pa = take_prepared(k, VECTORS, P, np.array([3, 1]), "X")
    np.testing.assert_allclose(k.gram_prepared(Pa), Linear()(VECTORS[[3, 1]]))


# ------------------------------------------------------------ constructors
INVALID = [
    lambda: Polynomial(degree=0),
    lambda: Gaussian(sigma=-1),
    lambda: ExpIntersection(scale=0),
    lambda: Spectrum(k=0),
    lambda: Mismatch(k=3, m=3),
    lambda: GappyPair(m=-1),
    lambda: GappedKmer(l=4, k=5),
    lambda: WeightedDegree(d=0),
    lambda: LocalAlignment(beta=0),
    lambda: LocalAlignment(matrix="NOPE62"),
    lambda: RandomWalk(kind="geometrical"),
    lambda: ShortestPath(length_kernel="triangle"),
    lambda: WeisfeilerLehman(h=-1),
    lambda: WeisfeilerLehmanOptimalAssignment(h=-1),
    lambda: GraphHopper(node_kernel="x"),
    lambda: FisherKernel("hmm"),
    lambda: ClassConditionalFisherKernel("hmms"),
    lambda: EmpiricalKernelMap("sim", PROTEINS),
    lambda: FunctionKernel(3),
    lambda: SpectrumRepair(smith_waterman, method="cut"),
    lambda: Sum(Linear(), 3),
    lambda: Product(3, Linear()),
    lambda: Scaled(Linear(), -2),
    lambda: Power(Linear(), 0.5),
    lambda: Exp("k"),
    lambda: Normalize(None),
    lambda: FunctionScaled(Linear(), 3),
    lambda: Constant(-1),
]


@pytest.mark.parametrize("make", INVALID, ids=range(len(INVALID)))
def test_constructors_store_and_evaluation_checks(make):
    kernel = make()  # a constructor stores its arguments and raises nothing
    params = kernel.get_params(deep=False)
    assert set(params) == set(type(kernel)._get_param_names())
    assert not [a for a in vars(kernel) if a not in params]  # and nothing else
    copy = clone(kernel, safe=False)
    assert copy.get_params(deep=False).keys() == params.keys()
    with pytest.raises((ValueError, TypeError)):
        kernel.validate()


def test_operators_refuse_invalid_combinations_when_written():
    with pytest.raises(ValueError, match="factor"):
        -2 * Linear()  # noqa: B018
    with pytest.raises(ValueError, match="exponent"):
        Linear() ** 0.5  # noqa: B018
    with pytest.raises(ValueError):
        Linear() + (-1.0)  # noqa: B018


def test_set_params_then_evaluate_uses_the_new_alphabet():
    """Derived state (a kernel's symbols) follows set_params: nothing is
    cached on the kernel by an earlier evaluation."""
    k = Spectrum(k=1, alphabet="AB")
    assert k(["AB"])[0, 0] == 2.0
    k.set_params(alphabet="ABC")
    assert k(["ABC"])[0, 0] == 3.0
    la = LocalAlignment()
    la(["MKV"])
    la.set_params(matrix=("ab", [[1.0, 0.0], [0.0, 1.0]]))
    assert la(["ab"]).shape == (1, 1)
    assert not [a for a in vars(la) if a.startswith("_")]


# ------------------------------------------------------- shared encodings
def _count_calls(monkeypatch, cls, name):
    calls = []
    original = getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls.append(type(self).__name__)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counted)
    return calls


def test_composites_encode_a_shared_child_once(monkeypatch):
    from structk.kernels.graphs.shortest_path import ShortestPath as SP
    from structk.kernels.graphs.weisfeiler_lehman import WeisfeilerLehman as WL
    from structk.kernels.strings import _SequenceKernel

    strings = _count_calls(monkeypatch, _SequenceKernel, "_encode")
    k = Spectrum(k=3) + Spectrum(k=5)
    K = k(STRINGS)
    assert strings == ["Spectrum"]  # one encoding of the strings, not two
    np.testing.assert_array_equal(K, Spectrum(k=3)(STRINGS) + Spectrum(k=5)(STRINGS))
    strings.clear()
    k = Normalize(Spectrum(k=2) * Mismatch(k=3, m=1)) + 2.0 * Spectrum(k=1, normalize=True)
    k(STRINGS, STRINGS[:3])
    assert strings == ["Spectrum", "Spectrum"]  # once for X, once for Y
    strings.clear()
    (Spectrum(k=2) + Spectrum(k=2, alphabet="ACGTN"))(STRINGS)  # read differently: twice
    assert len(strings) == 2

    wl = _count_calls(monkeypatch, WL, "_encode")
    sp = _count_calls(monkeypatch, SP, "_encode")
    k = WeisfeilerLehman() + ShortestPath()
    K = k(GRAPHS)
    assert len(wl) + len(sp) == 1  # the graphs are parsed once
    np.testing.assert_array_equal(K, WeisfeilerLehman()(GRAPHS) + ShortestPath()(GRAPHS))
    P = k.prepare(GRAPHS)
    assert P[0] is not P[1]
    np.testing.assert_array_equal(k.gram_prepared(k.take(P, slice(1, 4))), K[1:4, 1:4])


def test_random_walk_and_graphhopper_share_the_parsed_graphs(monkeypatch):
    """WeisfeilerLehman() + RandomWalk() parses the graphs once (the walk
    reorders its copy by label); GraphHopper shares the label-free parse of
    ShortestPath(node_label=None). Values equal the parts' own."""
    from structk.kernels import GraphHopper, RandomWalk
    from structk.kernels.graphs import graphhopper, random_walk, shortest_path, weisfeiler_lehman

    parses = []
    for module in (weisfeiler_lehman, random_walk, shortest_path, graphhopper):
        original = module.parse_graphs
        monkeypatch.setattr(
            module,
            "parse_graphs",
            lambda *a, _f=original, **kw: parses.append(a[2:] + tuple(kw.items())) or _f(*a, **kw),
        )
    for k, parts, n in [
        (WeisfeilerLehman() + RandomWalk(), (WeisfeilerLehman(), RandomWalk()), 1),
        (Normalize(RandomWalk(lam=0.02)) * WeisfeilerLehman(h=2) + ShortestPath(), None, 1),
        (
            GraphHopper() + ShortestPath(node_label=None),
            (GraphHopper(), ShortestPath(node_label=None)),
            1,
        ),
        (WeisfeilerLehman() + RandomWalk(node_label=None), None, 2),  # read differently
    ]:
        parses.clear()
        K = k(GRAPHS)
        assert len(parses) == n, (k, parses)
        if parts:
            np.testing.assert_allclose(K, parts[0](GRAPHS) + parts[1](GRAPHS), rtol=1e-13)
    P = (WeisfeilerLehman() + RandomWalk()).prepare(GRAPHS)
    assert P[1].node_keys is not None and P[0] is not P[1]


@pytest.mark.parametrize("directed", [False, True])
def test_sorting_a_parse_by_label_equals_parsing_sorted(directed):
    """sorted_by_label(parse) gives exactly parse(sort_by_label=True): nodes,
    arcs, node and edge keys and node orders (graphs with shuffled node names)."""
    from structk.kernels.graphs._encoding import parse_graphs, sorted_by_label

    graphs = []
    for i, g in enumerate(_graphs(directed)):
        names = np.random.default_rng(i).permutation(len(g)).tolist()
        g = nx.relabel_nodes(g, {v: f"v{names[v]}" for v in g})
        nx.set_edge_attributes(
            g, {(u, v): (int(u[1:]) + 2 * int(v[1:])) % 3 for u, v in g.edges}, "bond"
        )
        graphs.append(g)
    E = parse_graphs(graphs, "X", "label", "bond")
    S, expected = sorted_by_label(E), parse_graphs(graphs, "X", "label", "bond", sort_by_label=True)
    for field in ("node_ptr", "adj_ptr", "adj_idx", "node_keys", "edge_keys"):
        np.testing.assert_array_equal(getattr(S, field), getattr(expected, field))
    assert S.orders == expected.orders and S.directed == expected.directed
    assert S.cache is not E.cache and not np.array_equal(S.node_keys, E.node_keys)
