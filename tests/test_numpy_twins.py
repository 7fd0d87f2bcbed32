"""Small inputs take NumPy paths (no numba in a fresh process); large ones the
jitted loops. Each NumPy twin must give what its jitted loop gives, and the
public results must not depend on the path taken."""

import subprocess
import sys
import textwrap
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structk.kernels import (
    Intersection,
    Normalize,
    Spectrum,
    WeisfeilerLehman,
)
from structk.algorithms.kmers import _numpy as numpy_kmers
from structk.algorithms.wl_relabel import _numpy as numpy_relabel
from structk.kernels.graphs._encoding import parse_graphs
from structk.learners import KernelSVM, _smo
from structk.learners._psd import first_nonfinite, numpy_pass
from structk.learners._smo import numpy_smo

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ SMO
def _problem(n, seed, C):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / 4.0)
    return K, y, C


@pytest.mark.parametrize(
    "n, seed, C", [(2, 0, 1.0), (15, 1, 0.1), (60, 2, 1.0), (120, 3, 100.0), (200, 4, 10.0)]
)
def test_numpy_smo_follows_the_numba_iterates(n, seed, C):
    from structk.learners._smo.numba_smo import smo_stoppable

    K, y, C = _problem(n, seed, C)
    alpha, G, it, converged = numpy_smo.smo_numpy(K, y, C, 1e-3, 1e-12, 10**6)
    a2, G2, rho2, obj2, it2, conv2 = smo_stoppable(
        K, y, C, 1e-3, 1e-12, False, 10**6, np.zeros(n), -np.ones(n), np.zeros(1, dtype=np.int64)
    )
    assert converged and conv2 and it == it2
    np.testing.assert_array_equal(alpha, a2)  # same choices, same arithmetic
    np.testing.assert_array_equal(G, G2)
    assert numpy_smo.rho(y, G, alpha, C) == pytest.approx(rho2, rel=1e-12, abs=1e-12)
    assert numpy_smo.objective(alpha, G) == pytest.approx(obj2, rel=1e-12)


def test_a_problem_beyond_the_budget_goes_on_in_numba(tuning):
    from sklearn.svm import SVC

    K, y, C = _problem(150, 5, 100.0)
    tuning.set(SVM_NUMPY_BUDGET=25, SVM_NUMPY_WORK=0, SVM_IPM_MAX_N=0)  # SMO, not the IPM
    alpha, rho, obj, it, converged = _smo.solve(K, y, C, 1e-3, 1e-12, True, 10**6)
    assert converged and it > 25
    ref = SVC(kernel="precomputed", C=C, tol=1e-3).fit(K, y)
    full = np.zeros(len(y))
    full[ref.support_] = np.abs(ref.dual_coef_[0])
    Q = K * np.outer(y, y)
    ref_obj = 0.5 * full @ Q @ full - full.sum()
    assert obj == pytest.approx(ref_obj, rel=1e-3)
    assert abs(y @ alpha) <= 1e-9 * C * len(y)
    assert alpha.min() >= 0 and alpha.max() <= C


def test_svm_results_do_not_depend_on_the_solver_path(tuning):
    K, y, _ = _problem(120, 6, 1.0)
    small = KernelSVM(C=1.0).fit(K, y)
    tuning.set(SVM_NUMPY_MAX_N=0)
    large = KernelSVM(C=1.0, shrinking=False).fit(K, y)
    np.testing.assert_allclose(small.dual_coef_, large.dual_coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(small.intercept_, large.intercept_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("budget", [10**6, 40])
def test_small_problems_compiled_follow_the_same_iterates(tuning, monkeypatch, budget):
    """With ``compiled_small`` (a cross-validation's hundreds of small fits)
    small problems are solved compiled, with the very same result (also
    when they need more than the NumPy budget and go on with shrinking)."""
    K, y, C = _problem(120, 9, 10.0)
    tuning.set(SVM_NUMPY_BUDGET=budget, SVM_NUMPY_WORK=0)
    monkeypatch.setattr(_smo, "_compiled_loaded", lambda: False)  # a fresh process
    numpy_path = _smo.solve(K, y, C, 1e-3, 1e-12, True, 10**6)
    compiled = _smo.solve(K, y, C, 1e-3, 1e-12, True, 10**6, compiled_small=True)
    np.testing.assert_array_equal(compiled[0], numpy_path[0])
    assert compiled[1:] == numpy_path[1:]


@pytest.mark.parametrize("C", [1e5, 1e7])
def test_the_interior_point_takes_over_at_the_same_iterate_in_either_form(monkeypatch, C):
    """A hard small problem (it goes to the interior point after
    ``SVM_IPM_AFTER`` iterations) gets the same model bit for bit whether a
    fresh process starts it in NumPy or a process with the compiled solver
    loaded runs it compiled: what ran before in the process changes the
    time only."""
    K, y, _ = _problem(150, 10, C)
    seen = []
    numpy_smo_calls = numpy_smo.smo_numpy

    def counted(*args):
        seen.append(args[-1])
        return numpy_smo_calls(*args)

    ipm_calls = []
    interior_point = _smo.dense_ipm.interior_point

    def ipm(*args):
        ipm_calls.append(len(args[1]))
        return interior_point(*args)

    monkeypatch.setattr(_smo, "smo_numpy", counted)
    monkeypatch.setattr(_smo.dense_ipm, "interior_point", ipm)
    monkeypatch.setattr(_smo, "_compiled_loaded", lambda: False)
    fresh = _smo.solve(K, y, C, 1e-3, 1e-12, True, 10**7)
    assert seen == [tuning_value("SVM_NUMPY_IPM_BUDGET")]  # NumPy ran, then compiled
    monkeypatch.setattr(_smo, "_compiled_loaded", lambda: True)
    loaded = _smo.solve(K, y, C, 1e-3, 1e-12, True, 10**7)
    assert len(seen) == 1  # NumPy did not run
    assert fresh[4] and ipm_calls == [150, 150]  # both went to the interior point
    np.testing.assert_array_equal(fresh[0], loaded[0])
    assert fresh[1:] == loaded[1:]


def tuning_value(name):
    from structk import _tuning

    return getattr(_tuning, name)


def test_override_restores_on_error_and_refuses_unknown_names():
    from structk import _tuning, defaults

    before = defaults.SVM_NUMPY_BUDGET
    with pytest.raises(ZeroDivisionError), _tuning.override(SVM_NUMPY_BUDGET=before + 1):
        1 / 0
    assert defaults.SVM_NUMPY_BUDGET == before
    with pytest.raises(AttributeError, match="NO_SUCH"), _tuning.override(NO_SUCH=1):
        pass


def test_max_iter_is_honoured_on_the_numpy_path():
    K, y, _ = _problem(100, 7, 100.0)
    with pytest.warns(Warning, match="max_iter=5"):
        svm = KernelSVM(C=100.0, max_iter=5).fit(K, y)
    assert svm.n_iter_.tolist() == [5]


# ---------------------------------------------------- necessary PSD conditions
@pytest.mark.parametrize("case", ["psd", "asym", "cauchy", "nan", "inf"])
def test_numpy_necessary_conditions_equal_numba(case):
    from structk.learners._psd.numba_pass import necessary_psd_violation

    K, _, _ = _problem(40, 8, 1.0)
    K = K.copy()
    if case == "asym":
        K[3, 17] += 1e-6
    elif case == "cauchy":
        K[5, 9] = K[9, 5] = 1.5
    elif case == "nan":
        K[7, 2] = np.nan
    elif case == "inf":
        K[1, 1] = np.inf
    tol, sym_tol = 1e-12, 1e-10
    got = numpy_pass.necessary_psd_violation(K, tol, sym_tol)
    want = necessary_psd_violation(K, tol, sym_tol)
    assert tuple(got) == tuple(want)


# ------------------------------------------------------------ k-mers
@settings(max_examples=150)
@given(
    st.lists(st.text("ACGTN", max_size=14), min_size=1, max_size=6),
    st.integers(1, 6),
    st.booleans(),
)
def test_numpy_kmer_ids_and_counts_equal_numba(seqs, k, presence):
    from structk.algorithms.kmers._numba import count_rows, kmer_ids
    from structk.sequences import encode

    P = encode(seqs, "ACGT", unknown="skip")
    got = numpy_kmers.kmer_ids(P.codes, P.offsets, k, 4, True)
    want = kmer_ids(P.codes, P.offsets, k, 4, True)
    for a, b in zip(got, want):  # ids, positions, row pointers
        np.testing.assert_array_equal(a, b)
    mine = numpy_kmers.count_rows(got[0], got[2], presence)
    theirs = count_rows(want[0], want[2], presence, 4**k, False)  # sorted columns
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)


def test_string_and_set_grams_do_not_depend_on_the_path(tuning):
    rng = np.random.default_rng(9)
    X = ["".join(rng.choice(list("ACGT"), size=rng.integers(0, 40))) for _ in range(30)]
    S = [set(rng.choice(50, size=rng.integers(0, 12)).tolist()) for _ in range(30)]
    kernels = [
        (Spectrum(k=3), X),
        (Normalize(Spectrum(k=5, presence=True)), X),
        (Spectrum(k=31), X),
        (Intersection(), S),
    ]
    small = [(k(data), k(data[:7], data[7:])) for k, data in kernels]
    tuning.set(KMERS_NUMPY_MAX_SYMBOLS=-1, SPARSE_SCIPY_MAX_RESULT=-1)
    for (k, data), (K, C) in zip(kernels, small):
        np.testing.assert_array_equal(k(data), K)
        np.testing.assert_array_equal(k(data[:7], data[7:]), C)


@settings(max_examples=150)
@given(
    st.lists(st.text("ACGTN", max_size=14), min_size=1, max_size=6),
    st.integers(1, 6),
    st.integers(0, 3),
    st.sampled_from([2, 4, 7]),
)
def test_numpy_mismatch_rows_equal_numba(seqs, k, m, A):
    from structk.algorithms.kmers import neighbourhood_size
    from structk.algorithms.kmers._numba import kmer_ids, mismatch_rows

    m = min(m, k - 1)
    codes, offsets = encode_mapped(seqs, A)
    ids, _, ptr = kmer_ids(codes, offsets, k, A, False)
    got = numpy_kmers.mismatch_rows(ids, ptr, k, A, m)
    want = mismatch_rows(ids, ptr, k, A, m, neighbourhood_size(k, A, m), A**k)
    for a, b in zip(got, want):  # row pointers, sorted columns, counts
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def encode_mapped(seqs, A):
    """Codes and offsets of ``seqs`` over ACGT read as an alphabet of ``A``
    symbols (codes modulo ``A``; N stays unknown)."""
    from structk.sequences import encode

    P = encode(seqs, "ACGT", unknown="skip")
    return np.where(P.codes < 4, P.codes % A, A).astype(P.codes.dtype), P.offsets


def test_mismatch_grams_do_not_depend_on_the_path(tuning):
    from structk.kernels import Mismatch

    rng = np.random.default_rng(4)
    X = ["".join(rng.choice(list("ACGT"), size=rng.integers(0, 40))) for _ in range(30)]
    kernels = [
        Mismatch(k=4, m=1),
        Normalize(Mismatch(k=5, m=2)),
        Mismatch(k=3, m=1, reverse_complement=True),
    ]
    small = [(k(X), k(X[:7], X[7:])) for k in kernels]
    tuning.set(MISMATCH_NUMPY_MAX_NEIGHBOURS=-1)
    for k, (K, C) in zip(kernels, small):
        np.testing.assert_array_equal(k(X), K)
        np.testing.assert_array_equal(k(X[:7], X[7:]), C)


# ------------------------------------------------------ weighted degree
@pytest.mark.parametrize("length", [0, 1, 5, 64, 65, 130])
@pytest.mark.parametrize("A", [2, 4])
@pytest.mark.parametrize("d", [1, 3, 20])
def test_numpy_weighted_degree_equals_numba_bit_for_bit(length, A, d):
    """The NumPy form (no shifts) against the compiled entry points, one
    word a plane and several, with unknown symbols (code ``A``)."""
    from structk.algorithms.weighted_degree import _numpy as numpy_wd
    from structk.algorithms.weighted_degree import wd_weights
    from structk.algorithms.weighted_degree._numba import wd_function, wd_planes

    rng = np.random.default_rng(length * 100 + A * 10 + d)
    S = rng.integers(0, A + 1, (11, length)).astype(np.uint8)
    T = rng.integers(0, A + 1, (6, length)).astype(np.uint8)
    beta = wd_weights(d)
    F, W = wd_planes(S, A)
    G = wd_planes(T, A)[0]
    for part, other, shape in ((0, F, (11, 11)), (1, G, (11, 6)), (2, F, (11, 1))):
        want = np.zeros(shape)
        wd_function(W)(F, other, W, beta, 0, part, want, 0, 11)
        got = numpy_wd.weighted_degree(S, T if part == 1 else None, part, A, beta)
        assert got.shape == shape
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


def test_weighted_degree_grams_do_not_depend_on_the_path(tuning):
    from structk.kernels import WeightedDegree

    rng = np.random.default_rng(5)
    X = ["".join(rng.choice(list("ACGTN"), size=90)) for _ in range(25)]
    kernels = [
        WeightedDegree(d=6, unknown="skip"),
        Normalize(WeightedDegree(d=3, unknown="skip")),
        WeightedDegree(d=4, shift=2, unknown="skip"),  # compiled either way
    ]
    small = [(k(X), k(X[:7], X[7:]), k.diag(X)) for k in kernels]
    tuning.set(WD_NUMPY_MAX_WORK=-1)
    for k, values in zip(kernels, small):
        for got, want in zip((k(X), k(X[:7], X[7:]), k.diag(X)), values):
            np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


# ------------------------------------------------------ WL relabelling
def _graphs(directed, seed):
    rng = np.random.default_rng(seed)
    out = []
    for s in range(12):
        G = nx.gnp_random_graph(
            int(rng.integers(0, 9)), 0.4, seed=s + 100 * seed, directed=directed
        )
        for v in G:
            G.nodes[v]["label"] = int(rng.integers(3))
        for u, v in G.edges:
            G.edges[u, v]["bond"] = int(rng.integers(2))
        out.append(G)
    return out


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("edge_label", [None, "bond"])
def test_numpy_wl_labels_equal_numba(directed, edge_label):
    from structk.algorithms.wl_relabel._numba import wl_relabel

    P = parse_graphs(_graphs(directed, 1), "X", "label", edge_label)
    edges = P.edge_keys if P.edge_keys is not None else np.zeros(0, np.uint64)
    n_graphs = len(P.node_ptr) - 1
    for h in (0, 1, 4):
        whole = np.empty((h + 1, len(P.node_keys)), np.uint64)
        wl_relabel(P.node_keys, P.node_ptr, P.adj_ptr, P.adj_idx, edges, whole, 0, n_graphs)
        np.testing.assert_array_equal(
            numpy_relabel.wl_relabel_numpy(P.node_keys, P.node_ptr, P.adj_ptr, P.adj_idx, edges, h),
            whole,
        )
        cut = np.empty_like(whole)  # graph by graph: the same labels
        for g in range(n_graphs):
            wl_relabel(P.node_keys, P.node_ptr, P.adj_ptr, P.adj_idx, edges, cut, g, g + 1)
        np.testing.assert_array_equal(cut, whole)


def test_wl_features_do_not_depend_on_the_path(tuning):
    X = _graphs(False, 2)
    k = WeisfeilerLehman(h=3, edge_label="bond")
    F, K = k.features(X), k(X)
    tuning.set(WL_NUMPY_MAX_ENTRIES=-1)
    assert (k.features(X) != F).nnz == 0
    np.testing.assert_array_equal(k(X), K)


def test_a_small_cross_validation_does_not_load_numba():
    """The point of the twins: a script on a small data set pays no numba."""
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import networkx as nx
        from sklearn.model_selection import cross_val_score
        from structk import KernelSVM, Normalize, Spectrum, WeisfeilerLehman
        rng = np.random.default_rng(0)
        seqs = ["".join(rng.choice(list("ACGT"), size=30)) for _ in range(40)]
        y = np.arange(40) % 2
        cross_val_score(KernelSVM(kernel=Normalize(Spectrum(k=3))), seqs, y, cv=4)
        graphs = [nx.path_graph(3 + i % 5) for i in range(40)]
        for G in graphs:
            nx.set_node_attributes(G, {v: v % 2 for v in G}, "label")
        cross_val_score(KernelSVM(kernel=WeisfeilerLehman(h=2)), graphs, y, cv=4)
        print("numba" in sys.modules)
    """)
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("where", [None, (0, 0), (3, 7), (9, 2)])
def test_numpy_first_nonfinite_equals_numba(where):
    from structk.learners._psd import numba_pass

    K = np.arange(100.0).reshape(10, 10)
    if where is not None:
        K[where] = np.inf
        K[9, 9] = np.nan  # a later one must not be reported first
    assert numpy_pass.first_nonfinite(K) == numba_pass.first_nonfinite(K) == first_nonfinite(K)


def test_the_tiles_of_a_larger_gram_count_kmers_compiled(monkeypatch):
    """The tiles of ``structk.gram`` count their k-mers compiled whatever
    their size (the NumPy form spares a fresh process the loading of
    compiled code, which tiles repeating the work repay), with the Gram of
    the untiled call."""
    import structk
    from structk.algorithms.kmers import _numpy as kmers_numpy
    from structk.kernels import Normalize, Spectrum

    rng = np.random.default_rng(0)
    X = ["".join(rng.choice(list("ACGT"), size=30)) for _ in range(40)]
    kernel = Normalize(Spectrum(k=3))
    whole = kernel(X)  # small: the NumPy form

    def refused(*args, **kwargs):
        raise AssertionError("the NumPy k-mer form ran inside a tile")

    monkeypatch.setattr(kmers_numpy, "kmer_ids", refused)
    monkeypatch.setattr(kmers_numpy, "count_rows", refused)
    tiled = structk.gram(kernel, X, block_size=16)
    np.testing.assert_array_equal(tiled, whole)
