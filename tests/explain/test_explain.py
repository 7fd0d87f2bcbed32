"""structk.explain: exact contributions, feature weights and mutagenesis.

References are independent of the explainer: the model's own
``decision_function`` (kernel evaluations against the support vectors),
recomputation on every mutant, and brute-force k-mer counting in Python.
"""

from collections import Counter

import numpy as np
import pytest

from structk.explain import Explainer, NoExplicitFeaturesError, ism
from structk.kernels import (
    Exp,
    GappedKmer,
    GappyPair,
    LocalAlignment,
    Mismatch,
    Normalize,
    ShortestPath,
    Spectrum,
    WeightedDegree,
    WeisfeilerLehman,
    WeisfeilerLehmanOptimalAssignment,
)
from structk.learners import (
    KernelLogisticRegression,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    KernelSVM,
)

RTOL = 1e-9


def _random(n, L, seed):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list("ACGT"), L)) for _ in range(n)]


@pytest.fixture(scope="module")
def seqs():
    X = _random(50, 24, 0)
    y = np.array([int("GAT" in s or "TTA" in s) for s in X])
    return X, y, _random(4, 24, 1) + ["ACGTNACGTACGTACGTACGTACG"]


SEQUENCE_KERNELS = [
    Spectrum(k=3, unknown="skip"),
    Spectrum(k=3, presence=True, unknown="skip"),
    Normalize(Spectrum(k=4, unknown="skip")),
    Mismatch(k=4, m=1, unknown="skip"),
    Mismatch(k=3, m=1, normalize=True, unknown="skip"),
    GappyPair(k=2, m=2, unknown="skip"),
    GappyPair(k=1, m=3, presence=True, normalize=True, unknown="skip"),
    WeightedDegree(d=4, unknown="skip"),
    Normalize(WeightedDegree(d=3, unknown="skip")),
    WeightedDegree(d=3, shift=2, unknown="skip"),
    Normalize(WeightedDegree(d=4, shift=1, unknown="skip")),
    WeightedDegree(d=2, shift=30, unknown="skip"),
    Spectrum(k=2, unknown="skip") + 2.0 * Normalize(GappyPair(k=1, m=1, unknown="skip")) + 1.5,
    Normalize(0.5 * Spectrum(k=3, unknown="skip") + Mismatch(k=3, m=1, unknown="skip")),
    Spectrum(k=3, reverse_complement=True, unknown="skip"),
    Normalize(Mismatch(k=3, m=1, reverse_complement=True, unknown="skip")),
    GappyPair(k=2, m=1, reverse_complement=True, normalize=True, unknown="skip"),
    GappedKmer(l=4, k=2, d=2, kind="count", reverse_complement=False, normalize=False),
    GappedKmer(l=5, k=3, d=2),
    GappedKmer(l=6, k=4, d=2, kind="full", center_weighted=True, M=10, H=5.0),
]


def _close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.abs(b).max()))
    np.testing.assert_allclose(a, b, rtol=0, atol=RTOL * scale)


def _mutants(s, alphabet="ACGT"):
    out, where = [], []
    for p in range(len(s)):
        for a, c in enumerate(alphabet):
            if s[p] != c:
                out.append(s[:p] + c + s[p + 1 :])
                where.append((p, a))
    return out, where


@pytest.mark.parametrize("kernel", SEQUENCE_KERNELS, ids=repr)
def test_sequence_contributions_sum_to_the_decision_value(seqs, kernel):
    X, y, T = seqs
    model = KernelSVM(kernel=kernel, C=1.0).fit(X, y)
    ex = Explainer(model)
    E = ex.contributions(T)
    expected = model.decision_function(T)
    _close([e.bias + e.scores.sum() for e in E], expected)
    _close([e.decision for e in E], expected)
    assert [len(e.scores) for e in E] == [len(t) for t in T]
    assert E[-1].units[4] == "?"  # the unknown symbol, kept in place


@pytest.mark.parametrize("kernel", SEQUENCE_KERNELS, ids=repr)
def test_ism_equals_recomputing_every_mutant(seqs, kernel):
    X, y, T = seqs
    model = KernelSVM(kernel=kernel, C=1.0).fit(X, y)
    ex = Explainer(model)
    s = T[0]
    delta, hyp = ex.ism(s, hypothetical=True)
    mutants, where = _mutants(s)
    values = model.decision_function(mutants) - model.decision_function([s])[0]
    expected = np.zeros((len(s), 4))
    hyp_expected = np.zeros((len(s), 4))
    for (p, a), v, e in zip(where, values, ex.contributions(mutants)):
        expected[p, a] = v
        hyp_expected[p, a] = e.scores[p]  # position p's contribution in the mutant
    actual = ex.contributions([s])[0].scores
    for p in range(len(s)):
        hyp_expected[p, "ACGT".index(s[p])] = actual[p]
    _close(delta, expected)
    _close(hyp, hyp_expected)


def test_ism_at_an_unknown_symbol_tries_every_symbol(seqs):
    X, y, T = seqs
    model = KernelSVM(kernel=Spectrum(k=3, unknown="skip")).fit(X, y)
    s = T[-1]  # holds N at position 4
    delta = ism(model, s)
    mutants = [s[:4] + c + s[5:] for c in "ACGT"]
    expected = model.decision_function(mutants) - model.decision_function([s])[0]
    _close(delta[4], expected)


@pytest.mark.parametrize(
    "learner",
    [
        KernelRidge(alpha=0.5),
        KernelRidgeCV(),
        KernelLogisticRegression(alpha=0.1),
        KernelPerceptron(random_state=0),
    ],
    ids=lambda m: type(m).__name__,
)
def test_every_dual_learner(seqs, learner):
    X, y, T = seqs
    model = learner.set_params(kernel=Normalize(Spectrum(k=3))).fit(X, y)
    ex = Explainer(model)
    T = T[:-1]  # without the unknown symbol
    f = model.decision_function(T) if hasattr(model, "decision_function") else model.predict(T)
    _close([e.bias + e.scores.sum() for e in ex.contributions(T)], f)


def test_spectrum_weights_are_the_collapsed_support_vectors(seqs):
    X, y, _ = seqs
    model = KernelSVM(kernel=Spectrum(k=3), C=1.0).fit(X, y)
    w = Counter()
    for c, s in zip(model.dual_coef_[0], model.support_vectors_):
        for p in range(len(s) - 2):
            w[s[p : p + 3]] += c
    got = dict(Explainer(model).feature_weights(top=100))
    assert set(got) <= set(w)
    top = sorted(w.items(), key=lambda kv: -kv[1])[:5]
    for name, value in top:
        assert got[name] == pytest.approx(value, abs=1e-12)
    assert next(iter(got)) == top[0][0]


def test_gapped_kmer_weights_are_the_l_mer_weights(seqs):
    """Omega(a) = sum_i c_i sum_{b in s_i} w[mm(a, b)] (one strand, no
    normalisation), by brute force over the support vectors' l-mers."""
    X, y, _ = seqs
    kernel = GappedKmer(l=4, k=2, d=2, kind="count", reverse_complement=False, normalize=False)
    model = KernelSVM(kernel=kernel, C=1.0).fit(X, y)
    w = kernel.mismatch_weights()
    omega = {}
    for name, value in Explainer(model).feature_weights(top=5):
        total = 0.0
        for c, s in zip(model.dual_coef_[0], model.support_vectors_):
            for p in range(len(s) - 3):
                mm = sum(a != b for a, b in zip(name, s[p : p + 4]))
                total += c * (w[mm] if mm < len(w) else 0.0)
        omega[name] = (value, total)
    for value, total in omega.values():
        assert value == pytest.approx(total, abs=1e-10)


def test_feature_names():
    X = ["ACGTACGTAA", "TTTTGGGGCC", "ACGTTTTTCC", "GGGGACGTAC"]
    y = [1, 0, 1, 0]
    gp = Explainer(KernelSVM(kernel=GappyPair(k=2, m=2)).fit(X, y))
    names = [n for n, _ in gp.feature_weights(200)]
    assert all(len(n.replace(".", "")) == 4 and set(n) <= set("ACGT.") for n in names)
    assert any("." in n for n in names) and any("." not in n for n in names)
    wd = Explainer(KernelSVM(kernel=WeightedDegree(d=2)).fit(X, y))
    names = [n for n, _ in wd.feature_weights(200)]
    assert "A@0" in names and "AC@0" in names
    assert all(0 <= int(n.split("@")[1]) < 10 for n in names)


def test_multi_output_needs_output(seqs):
    X, _, T = seqs
    y = np.arange(len(X)) % 3
    model = KernelSVM(kernel=Spectrum(k=2, unknown="skip"), multi_class="ovr").fit(X, y)
    with pytest.raises(ValueError, match="output=INDEX"):
        Explainer(model)
    for o in range(3):
        E = Explainer(model, output=o).contributions(T)
        _close([e.bias + e.scores.sum() for e in E], model.decision_function(T)[:, o])


def test_no_explicit_features_says_so_and_ism_still_works():
    X = ["ACGTAC", "ACGGAC", "TTGTCA", "TTGACA"]
    y = [1, 1, 0, 0]
    for kernel in (
        Normalize(LocalAlignment()),
        Normalize(Exp(0.1 * Spectrum(k=2)) * Spectrum(k=1)),
        Exp(0.1 * Spectrum(k=2)) * LocalAlignment(),
    ):
        model = KernelSVM(kernel=kernel).fit(X, y)
        with pytest.raises(NoExplicitFeaturesError, match="ism"):
            Explainer(model)
        delta = ism(model, "ACGTTC")
        mutants, where = _mutants("ACGTTC")
        values = model.decision_function(mutants) - model.decision_function(["ACGTTC"])[0]
        expected = np.zeros((6, 4))
        for (p, a), v in zip(where, values):
            expected[p, a] = v
        _close(delta, expected)


def test_precomputed_model_is_refused(seqs):
    X, y, _ = seqs
    K = Spectrum(k=2)(X)
    model = KernelSVM().fit(K, y)
    with pytest.raises(TypeError, match="precomputed"):
        Explainer(model)


# ---------------------------------------------------------------- graphs
@pytest.fixture(scope="module")
def graphs():
    from structk.datasets import bundled_path, load_tu

    G, y = load_tu(bundled_path("graph_families"))
    classes = np.unique(y)
    return G, (y == classes[0]).astype(int)


@pytest.mark.parametrize(
    "kernel",
    [
        WeisfeilerLehman(h=2),
        Normalize(WeisfeilerLehman(h=3)),
        ShortestPath(),
        WeisfeilerLehman(h=1, node_label=None) + Normalize(ShortestPath(node_label=None)),
        WeisfeilerLehmanOptimalAssignment(h=2),
        Normalize(WeisfeilerLehmanOptimalAssignment(h=1)),
    ],
    ids=repr,
)
def test_graph_contributions_sum_to_the_decision_value(graphs, kernel):
    G, y = graphs
    model = KernelSVM(kernel=kernel).fit(G[::2], y[::2])
    E = Explainer(model).contributions(G[1::2])
    _close([e.bias + e.scores.sum() for e in E], model.decision_function(G[1::2]))
    assert [len(e.scores) for e in E] == [g.number_of_nodes() for g in G[1::2]]
    assert E[0].units == list(G[1].nodes)


def test_graph_explanations_take_the_kernels_own_features(graphs, monkeypatch):
    """One feature map per kernel: the explanations of graph models find
    their features with the very functions the kernels compute theirs with
    (identity, and the kernels call them), so each graph's occurrence keys
    are its feature keys: the columns of ``features`` (WL, WL-OA) and the
    (label pair, length) keys the shortest-path kernel counts."""
    from collections import Counter

    import structk.algorithms.shortest_paths as sp
    import structk.algorithms.wl_relabel as wl
    from structk.explain import _graphs

    assert _graphs.wl_relabel is wl.wl_relabel
    assert _graphs.assignment_occurrences is wl.assignment_occurrences
    assert _graphs.path_list is sp.path_list
    G = graphs[0][:12]
    called = Counter()
    for module, name in [
        (wl, "wl_relabel"),
        (wl, "assignment_occurrences"),
        (sp, "path_counts"),
        (sp, "path_list"),
    ]:
        real = getattr(module, name)
        monkeypatch.setattr(
            module, name, lambda *a, real=real, name=name: (called.update([name]), real(*a))[1]
        )

    def per_graph(occ, transform=lambda k: k):
        out = [Counter() for _ in G]
        for g, key in zip(occ.owner.tolist(), transform(occ.keys.view(np.uint64)).tolist()):
            out[g][key] += 1
        return out

    for kernel, leaf in [
        (WeisfeilerLehman(h=2), _graphs.WeisfeilerLehmanLeaf),
        (WeisfeilerLehmanOptimalAssignment(h=2), _graphs.WLOptimalAssignmentLeaf),
    ]:
        F = kernel.features(G)
        L = leaf(kernel)
        occ = L.occurrences(L.encode(G))
        assert per_graph(occ, lambda k: (k >> np.uint64(2)).astype(np.int64)) == [
            Counter(dict(zip(F[g].indices.tolist(), F[g].data.tolist()))) for g in range(len(G))
        ]
    kernel = ShortestPath()
    counts = kernel.prepare(G)
    L = _graphs.ShortestPathLeaf(kernel)
    occ = L.occurrences(L.encode(G))
    assert per_graph(occ) == [
        Counter(dict(zip(counts.keys[a:b].tolist(), counts.counts[a:b].tolist())))
        for a, b in zip(counts.ptr[:-1], counts.ptr[1:])
    ]
    assert set(called) == {"wl_relabel", "assignment_occurrences", "path_counts"}
    ShortestPath(length_kernel="gaussian")(G)
    assert called["path_list"] >= 1


def test_wl_names_are_unfolding_trees():
    import networkx as nx

    def mol(labels, edges):
        g = nx.Graph()
        for v, lab in enumerate(labels):
            g.add_node(v, label=lab)
        g.add_edges_from(edges)
        return g

    G = [
        mol("CNO", [(0, 1), (1, 2)]),
        mol("CCC", [(0, 1), (1, 2)]),
        mol("NOO", [(0, 1), (0, 2)]),
        mol("CCO", [(0, 1), (1, 2)]),
    ]
    model = KernelSVM(kernel=WeisfeilerLehman(h=1), C=10).fit(G, [1, 0, 1, 0])
    weights = dict(Explainer(model).feature_weights(50))
    assert weights["t=1: N(C,O)"] > 0 and weights["t=0: N"] > 0
    assert weights["t=1: C(C)"] < 0 and weights["t=1: C(C,O)"] < 0


def test_exp_scores_are_integrated_gradients_by_finite_differences(seqs):
    """Under Exp(inner) the scores are the integrated gradients of f along
    t phi(x), t from 0 to 1: checked against central finite differences of
    f(psi) = b + sum_i c_i exp(0.1 psi . phi(s_i)) (from the kernel's own
    feature map) integrated by Gauss-Legendre quadrature, then spread over
    each k-mer's occurrences and positions."""
    X, y, T = seqs
    kernel = Exp(0.1 * Spectrum(k=2))
    model = KernelSVM(kernel=kernel, C=1.0).fit(X, y)
    ex = Explainer(model)
    F = Spectrum(k=2).features(model.support_vectors_).toarray()
    c, b = model.dual_coef_[0], model.intercept_[0]

    def f(psi):
        return b + c @ np.exp(0.1 * F @ psi)

    nodes, wts = np.polynomial.legendre.leggauss(16)
    t, wts = (nodes + 1) / 2, wts / 2
    eps = 1e-5
    for x in T[:2]:
        phi = Spectrum(k=2).features([x]).toarray()[0]
        ig = np.zeros_like(phi)
        for u in np.flatnonzero(phi):
            e = np.zeros_like(phi)
            e[u] = eps
            grad = [(f(s * phi + e) - f(s * phi - e)) / (2 * eps) for s in t]
            ig[u] = phi[u] * np.dot(wts, grad)
        expected = np.zeros(len(x))
        for p in range(len(x) - 1):
            u = 4 * "ACGT".index(x[p]) + "ACGT".index(x[p + 1])
            expected[p : p + 2] += ig[u] / phi[u] / 2
        e = ex.contributions([x])[0]
        np.testing.assert_allclose(e.scores, expected, atol=1e-7)
        assert e.bias == pytest.approx(b + c.sum(), abs=1e-12)
        assert e.bias + e.scores.sum() == pytest.approx(model.decision_function([x])[0], abs=1e-9)


# ------------------------------------------------- nonlinear compositions
NONLINEAR = [
    Spectrum(k=2, unknown="skip") * Spectrum(k=1, unknown="skip"),
    Normalize(Spectrum(k=3, unknown="skip")) ** 3,
    (Spectrum(k=2, unknown="skip") + 1.0) ** 2
    + 0.5 * Normalize(GappyPair(k=1, m=1, unknown="skip")),
    2.0 * Exp(0.1 * Spectrum(k=2, unknown="skip")) + Spectrum(k=3, unknown="skip"),
    Exp(0.05 * Spectrum(k=2, unknown="skip")) * Normalize(Mismatch(k=3, m=1, unknown="skip")),
    GappedKmer(l=5, k=3, d=2, gamma=2.0),
]


@pytest.mark.parametrize("kernel", NONLINEAR, ids=repr)
def test_nonlinear_scores_sum_to_the_decision_value(seqs, kernel):
    X, y, T = seqs
    model = KernelSVM(kernel=kernel, C=1.0).fit(X, y)
    E = Explainer(model).contributions(T)
    _close([e.bias + e.scores.sum() for e in E], model.decision_function(T))
    assert [len(e.scores) for e in E] == [len(t) for t in T]


def test_product_scores_are_integrated_gradients_by_finite_differences(seqs):
    """Under Spectrum(k=2) * Spectrum(k=1) the scores are the integrated
    gradients of f(psi1, psi2) = b + sum_i c_i (psi1 . F1_i)(psi2 . F2_i)
    along t (phi1, phi2): central finite differences of f from the kernels'
    own feature maps, integrated by Gauss-Legendre quadrature, spread over
    each k-mer's occurrences and positions."""
    X, y, T = seqs
    model = KernelSVM(kernel=Spectrum(k=2) * Spectrum(k=1), C=1.0).fit(X, y)
    F1 = Spectrum(k=2).features(model.support_vectors_).toarray()
    F2 = Spectrum(k=1).features(model.support_vectors_).toarray()
    c, b = model.dual_coef_[0], model.intercept_[0]

    def f(p1, p2):
        return b + c @ ((F1 @ p1) * (F2 @ p2))

    nodes, wts = np.polynomial.legendre.leggauss(8)
    t, wts = (nodes + 1) / 2, wts / 2
    eps = 1e-4
    ex = Explainer(model)
    for x in T[:2]:
        p1 = Spectrum(k=2).features([x]).toarray()[0]
        p2 = Spectrum(k=1).features([x]).toarray()[0]
        expected = np.zeros(len(x))
        for which, phi, k in ((0, p1, 2), (1, p2, 1)):
            ig = np.zeros_like(phi)
            for u in np.flatnonzero(phi):
                e = np.zeros_like(phi)
                e[u] = eps
                if which == 0:
                    grad = [(f(s * p1 + e, s * p2) - f(s * p1 - e, s * p2)) / (2 * eps) for s in t]
                else:
                    grad = [(f(s * p1, s * p2 + e) - f(s * p1, s * p2 - e)) / (2 * eps) for s in t]
                ig[u] = phi[u] * np.dot(wts, grad)
            for p in range(len(x) - k + 1):
                word = x[p : p + k]
                if "N" in word:
                    continue
                u = sum(4 ** (k - 1 - i) * "ACGT".index(ch) for i, ch in enumerate(word))
                expected[p : p + k] += ig[u] / phi[u] / k
        got = ex.contributions([x])[0]
        np.testing.assert_allclose(got.scores, expected, atol=1e-7)
        assert got.bias == pytest.approx(b, abs=1e-12)  # F(0) = 0 for a product


def test_feature_weights_of_a_nonlinear_model_are_the_gradient_at_zero(seqs):
    X, y, _ = seqs
    model = KernelSVM(kernel=2.0 * Exp(0.1 * Spectrum(k=2)) + Spectrum(k=3), C=1.0).fit(X, y)
    ex = Explainer(model)
    c = model.dual_coef_[0]
    F2 = Spectrum(k=2).features(model.support_vectors_).toarray()
    F3 = Spectrum(k=3).features(model.support_vectors_).toarray()
    # d f / d Phi at 0 in the blocks' feature spaces, Phi = (sqrt(0.1) F2, F3):
    # 2 exp(0) sqrt(0.1) sum_i c_i F2_i, and sum_i c_i F3_i
    assert ex.weight_of(4 * 2 + 3, leaf=0) == pytest.approx(
        2 * np.sqrt(0.1) * c @ F2[:, 11], abs=1e-12
    )
    assert ex.weight_of(16 * 1 + 4 * 2 + 3, leaf=1) == pytest.approx(c @ F3[:, 27], abs=1e-12)
