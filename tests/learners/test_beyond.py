"""The learners past the Gram matrix: primal and Nyström paths against the dual."""

import numpy as np
import pytest

from structk.kernels import (
    Gaussian,
    Intersection,
    Jaccard,
    Linear,
    Normalize,
    ShortestPath,
    Spectrum,
    WeisfeilerLehman,
    WeisfeilerLehmanOptimalAssignment,
)
from structk.learners import KernelLogisticRegression, KernelRidge, KernelSVM
from structk.learners.falkon import falkon_solve
from structk.learners.primal import resolve_solver


def dna(n, seed=0, length=40, motif="GATTACA"):
    """Random DNA; class 1 carries a planted motif (with label noise)."""
    rng = np.random.default_rng(seed)
    X, y = [], rng.integers(0, 2, n)
    for label in y:
        s = "".join(rng.choice(list("ACGT"), size=length))
        if label:
            at = int(rng.integers(0, length - len(motif)))
            s = s[:at] + motif + s[at + len(motif) :]
        X.append(s)
    flip = rng.random(n) < 0.1
    return X, np.where(flip, 1 - y, y)


KERNEL = Normalize(Spectrum(k=3))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_svm_primal_equals_dual(loss):
    X, y = dna(160)
    T, _ = dna(60, seed=1)
    kw = dict(kernel=KERNEL, C=2.0, tol=1e-6, loss=loss)
    dual = KernelSVM(solver="dual", **kw).fit(X, y)
    primal = KernelSVM(solver="primal", **kw).fit(X, y)
    assert primal.solver_ == "primal" and dual.solver_ == "dual"
    d, p = dual.decision_function(T), primal.decision_function(T)
    # the bias is penalised by 1e-4 of a weight's scale in LIBLINEAR
    np.testing.assert_allclose(p, d, atol=2e-3 * np.abs(d).max())
    np.testing.assert_array_equal(
        primal.predict(T)[np.abs(d) > 1e-2], dual.predict(T)[np.abs(d) > 1e-2]
    )
    np.testing.assert_allclose(primal.intercept_, dual.intercept_, rtol=5e-3)


def test_svm_primal_multiclass_ovo_and_ovr():
    X, y = dna(150, seed=3)
    y = y + 2 * (np.arange(150) % 2)  # four classes
    T, _ = dna(40, seed=4)
    for multi in ("ovo", "ovr"):
        kw = dict(kernel=KERNEL, C=1.0, tol=1e-6, multi_class=multi, loss="squared_hinge")
        d = KernelSVM(solver="dual", **kw).fit(X, y).decision_function(T)
        p = KernelSVM(solver="primal", **kw).fit(X, y).decision_function(T)
        np.testing.assert_allclose(p, d, atol=2e-3 * np.abs(d).max())


def test_logistic_primal_equals_dual():
    X, y = dna(150, seed=5)
    T, _ = dna(50, seed=6)
    kw = dict(kernel=KERNEL, alpha=0.5, tol=1e-8, max_iter=5000)
    d = KernelLogisticRegression(solver="dual", **kw).fit(X, y)
    p = KernelLogisticRegression(solver="primal", **kw).fit(X, y)
    np.testing.assert_allclose(p.predict_proba(T), d.predict_proba(T), atol=1e-6)
    np.testing.assert_allclose(p.rkhs_norm_, d.rkhs_norm_, rtol=1e-5)


def test_ridge_primal_and_nystroem_equal_dual():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    Y = np.column_stack([X @ rng.normal(size=5), np.sin(X[:, 0])])
    T = rng.normal(size=(20, 5))
    d = KernelRidge(Linear(), alpha=0.3, solver="dual").fit(X, Y).predict(T)
    p = KernelRidge(Linear(), alpha=0.3, solver="primal").fit(X, Y).predict(T)
    np.testing.assert_allclose(p, d, rtol=1e-8, atol=1e-8)
    # Nyström with every training object as a landmark is the exact machine
    g = Gaussian(sigma=2.0)
    d = KernelRidge(g, alpha=0.3, solver="dual").fit(X, Y[:, 1]).predict(T)
    ny = KernelRidge(g, alpha=0.3, solver="nystroem", n_components=80).fit(X, Y[:, 1])
    assert ny.solver_ == "nystroem" and ny.predict(T).shape == (20,)
    np.testing.assert_allclose(ny.predict(T), d, atol=1e-5 * np.abs(d).max())


def test_nystroem_svm_all_landmarks_equals_dual():
    X, y = dna(120, seed=7)
    T, _ = dna(40, seed=8)
    kw = dict(kernel=KERNEL, C=1.0, tol=1e-6, loss="squared_hinge")
    d = KernelSVM(solver="dual", **kw).fit(X, y).decision_function(T)
    ny = KernelSVM(solver="nystroem", n_components=120, **kw).fit(X, y)
    np.testing.assert_allclose(ny.decision_function(T), d, atol=2e-3 * np.abs(d).max())


@pytest.mark.parametrize("landmarks", ["uniform", "kmeans++", "leverage"])
def test_nystroem_graph_kernel_fits_and_predicts(landmarks):
    import networkx as nx

    rng = np.random.default_rng(0)
    graphs, y = [], []
    for i in range(60):
        g = (
            nx.cycle_graph(int(rng.integers(4, 9)))
            if i % 2
            else nx.path_graph(int(rng.integers(4, 9)))
        )
        nx.set_node_attributes(g, {v: "C" for v in g}, "label")
        graphs.append(g)
        y.append(i % 2)
    k = WeisfeilerLehman(h=2)
    model = KernelSVM(
        kernel=k, solver="nystroem", n_components=20, landmarks=landmarks, random_state=0
    ).fit(graphs, y)
    assert model.landmark_indices_.shape == (20,)
    assert (model.predict(graphs) == np.array(y)).mean() > 0.9


def test_falkon_solve_matches_direct_ridge():
    rng = np.random.default_rng(1)
    Phi = rng.normal(size=(300, 12)) * np.linspace(0.1, 3, 12)
    y = rng.normal(size=300)
    w = np.linspace(0.1, 3, 12) ** 2 * 10 / 300
    g, it = falkon_solve(Phi, y, 0.5, w, 10, tol=1e-12)
    np.testing.assert_allclose(
        g, np.linalg.solve(Phi.T @ Phi + 0.5 * np.eye(12), Phi.T @ y), rtol=1e-9
    )
    assert it <= 40


def test_auto_solver_choice():
    class Learner:
        def __init__(self, kernel, solver="auto"):
            self.kernel, self.solver = kernel, solver

    assert resolve_solver(Learner(KERNEL), None, 10) == "dual"
    assert resolve_solver(Learner(KERNEL), None, 10**6) == "primal"
    # label-hash columns: the primal on a vocabulary of them
    assert resolve_solver(Learner(WeisfeilerLehman()), None, 10**6) == "primal"
    assert (
        resolve_solver(Learner(ShortestPath(length_kernel="gaussian")), None, 10**6) == "nystroem"
    )
    assert resolve_solver(Learner(Gaussian()), None, 100) == "dual"
    assert resolve_solver(Learner("precomputed"), None, 10**6) == "dual"


def test_auto_solver_reads_the_size_rules_at_fit_time(tuning):
    """solver="auto" takes its cut-offs from structk.defaults when it fits, and
    chunked prediction of a primal model equals the one-chunk prediction."""
    X, y = dna(80, seed=7)
    T, _ = dna(45, seed=8)
    tuning.set(PRIMAL_MIN_N=50, PRIMAL_HINGE_MIN_N=10**6)
    squared = KernelSVM(kernel=KERNEL, loss="squared_hinge", tol=1e-6).fit(X, y)
    hinge = KernelSVM(kernel=KERNEL, loss="hinge").fit(X, y)
    assert (squared.solver_, hinge.solver_) == ("primal", "dual")
    whole = squared.decision_function(T)
    tuning.set(PRIMAL_PREDICT_CHUNK=7)
    np.testing.assert_array_equal(squared.decision_function(T), whole)
    tuning.set(NYSTROEM_MIN_N=50, DEFAULT_N_COMPONENTS=30)
    V = np.random.default_rng(0).normal(size=(60, 3))
    ridge = KernelRidge(kernel=Gaussian(), alpha=1.0).fit(V, V[:, 0])
    assert ridge.solver_ == "nystroem" and ridge.feature_map_.V.shape[1] <= 30


def test_bad_solver_requests_are_named():
    X, y = dna(20)
    with pytest.raises(ValueError, match="solver must be one of"):
        KernelSVM(KERNEL, solver="fast").fit(X, y)
    with pytest.raises(
        ValueError, match=r"those of WeisfeilerLehman\(h=5\) \+ ShortestPath\(\) depend"
    ):
        KernelSVM(WeisfeilerLehman() + ShortestPath(), solver="primal").fit(["a", "b"], [0, 1])
    with pytest.raises(ValueError, match=r"Jaccard\(\) has none"):
        KernelSVM(Jaccard(), solver="primal").fit([{"a"}, {"b"}], [0, 1])
    with pytest.raises(ValueError, match=r"ShortestPath\(length_kernel='gaussian'\) has none"):
        KernelSVM(ShortestPath(length_kernel="gaussian"), solver="primal").fit(["a", "b"], [0, 1])
    with pytest.raises(ValueError, match="explicit feature map"):
        KernelRidge(Gaussian(), solver="primal").fit(np.ones((3, 2)), [1, 2, 3])
    with pytest.raises(ValueError, match="kernel='precomputed'"):
        KernelRidge(solver="nystroem").fit(np.eye(3), [1, 2, 3])
    with pytest.raises(ValueError, match="loss must be"):
        KernelSVM(KERNEL, loss="log").fit(X, y)


def test_svm_primal_probability_close_to_dual():
    X, y = dna(150, seed=9)
    T, _ = dna(30, seed=10)
    kw = dict(
        kernel=KERNEL, C=1.0, tol=1e-6, loss="squared_hinge", probability=True, random_state=0
    )
    d = KernelSVM(solver="dual", **kw).fit(X, y).predict_proba(T)
    p = KernelSVM(solver="primal", **kw).fit(X, y).predict_proba(T)
    # the same folds (same seed), decision values equal to ~1e-3: close sigmoids
    np.testing.assert_allclose(p, d, atol=0.02)


# ------------------------------------ keyed feature columns: graphs and sets
def labelled_graphs(n, seed):
    """Small random labelled graphs; class 1 holds more "N" nodes."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    graphs, y = [], rng.integers(0, 2, n)
    for label in y:
        g = nx.gnp_random_graph(int(rng.integers(4, 9)), 0.4, seed=int(rng.integers(1 << 30)))
        p = [0.5, 0.3, 0.2] if label else [0.3, 0.2, 0.5]
        nx.set_node_attributes(g, {v: str(rng.choice(["C", "N", "O"], p=p)) for v in g}, "label")
        graphs.append(g)
    return graphs, y


def token_sets(n, seed):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(30)]
    y = rng.integers(0, 2, n)
    X = [
        set(rng.choice(words[: 20 + 10 * int(label)], size=int(rng.integers(1, 8))).tolist())
        for label in y
    ]
    return X, y


KEYED = [
    (WeisfeilerLehman(h=2), labelled_graphs),
    (Normalize(WeisfeilerLehman(h=3)), labelled_graphs),
    (WeisfeilerLehmanOptimalAssignment(h=2), labelled_graphs),
    (ShortestPath(), labelled_graphs),
    (Normalize(ShortestPath()), labelled_graphs),
    (Intersection(), token_sets),
    (2.0 * Normalize(Intersection()), token_sets),
]


@pytest.mark.parametrize("kernel, data", KEYED, ids=[repr(k) for k, _ in KEYED])
def test_keyed_feature_columns_primal_equals_dual(kernel, data):
    """Columns numbered per call (set tokens, shortest-path triples) or by
    2^62 label hashes go through a vocabulary of the training columns; the
    test objects hold columns no training object has (new tokens, new
    labels), which the primal drops exactly."""
    X, y = data(70, seed=1)
    T, _ = data(30, seed=2)
    assert kernel.keyed_feature_columns
    d = KernelRidge(kernel, alpha=0.5, solver="dual").fit(X, y).predict(T)
    p = KernelRidge(kernel, alpha=0.5, solver="primal").fit(X, y).predict(T)
    np.testing.assert_allclose(p, d, rtol=1e-8, atol=1e-9 * np.abs(d).max())
    kw = dict(alpha=0.5, tol=1e-8, max_iter=5000)
    d = KernelLogisticRegression(kernel, solver="dual", **kw).fit(X, y).decision_function(T)
    p = KernelLogisticRegression(kernel, solver="primal", **kw).fit(X, y)
    np.testing.assert_allclose(p.decision_function(T), d, atol=1e-5 * np.abs(d).max())
    kw = dict(C=1.0, tol=1e-8, loss="squared_hinge")
    d = KernelSVM(kernel, solver="dual", **kw).fit(X, y).decision_function(T)
    p = KernelSVM(kernel, solver="primal", **kw).fit(X, y).decision_function(T)
    np.testing.assert_allclose(p, d, atol=2e-3 * np.abs(d).max())


def test_keyed_primal_models_save_load_and_predict_in_chunks(tmp_path, tuning):
    import structk

    defaults = dict(
        PRIMAL_PREDICT_CHUNK=tuning.PRIMAL_PREDICT_CHUNK,
        FEATURE_BLOCK_ROWS=tuning.FEATURE_BLOCK_ROWS,
    )
    for kernel, data in (KEYED[1], KEYED[3], KEYED[6]):
        X, y = data(60, seed=3)
        T, _ = data(25, seed=4)
        model = KernelRidge(kernel, alpha=0.5, solver="primal").fit(X, y)
        expected = model.predict(T)
        structk.save(model, tmp_path / "m.structk")
        np.testing.assert_array_equal(structk.load(tmp_path / "m.structk").predict(T), expected)
        # blocks whose columns are numbered apart, each lined up with the vocabulary
        tuning.set(PRIMAL_PREDICT_CHUNK=7, FEATURE_BLOCK_ROWS=5)
        np.testing.assert_allclose(model.predict(T), expected, rtol=1e-12, atol=1e-12)
        blocked = KernelRidge(kernel, alpha=0.5, solver="primal").fit(X, y)
        np.testing.assert_allclose(blocked.predict(T), expected, rtol=1e-9, atol=1e-12)
        tuning.set(**defaults)


def test_default_loss_is_the_hinge_on_the_dual_and_the_squared_hinge_on_features(tuning, tmp_path):
    """``loss="auto"`` (the default) fits exactly the hinge model where the
    dual runs and exactly the squared-hinge model where the primal runs."""
    import structk
    from structk.kernels import Normalize, Spectrum

    rng = np.random.default_rng(4)
    seqs = ["".join(rng.choice(list("ACGT"), 40)) for _ in range(90)]
    y = np.array([s.count("GC") > 2 for s in seqs]).astype(int)
    k = Normalize(Spectrum(k=3))
    assert KernelSVM(k).loss == "auto"
    for solver, loss in [("dual", "hinge"), ("primal", "squared_hinge")]:
        tuning.set(PRIMAL_MIN_N=50 if solver == "primal" else 10**6)
        tuning.set(PRIMAL_HINGE_MIN_N=50 if solver == "primal" else 10**6)
        auto = KernelSVM(k).fit(seqs, y)
        explicit = KernelSVM(k, loss=loss).fit(seqs, y)
        assert auto.solver_ == explicit.solver_ == solver
        assert auto.loss_ == explicit.loss_ == loss
        np.testing.assert_array_equal(
            auto.decision_function(seqs), explicit.decision_function(seqs)
        )
        path = tmp_path / f"{solver}.structk"
        structk.save(auto, path)
        assert structk.load(path).loss_ == loss
    with pytest.raises(AttributeError, match="not fitted"):
        KernelSVM(k).loss_
    with pytest.raises(ValueError, match="loss must be one of .*'auto'.*got 'l1'"):
        KernelSVM(k, loss="l1").fit(seqs, y)
