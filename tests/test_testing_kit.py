"""structk.testing catches real non-kernels with shrunk counterexamples."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from structk.kernels import FunctionKernel, Gaussian, Linear
from structk.testing import (
    assert_kernel_psd, find_psd_counterexample, graphs, object_lists, strings,
    token_sets, vectors,
)


def levenshtein(s, t):
    """Edit distance by the textbook dynamic programme."""
    row = list(range(len(t) + 1))
    for i, a in enumerate(s, 1):
        diag, row[0] = row[0], i
        for j, b in enumerate(t, 1):
            diag, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diag + (a != b))
    return row[len(t)]


def test_levenshtein_reference():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("ab", "ba") == 2


def _assert_real_counterexample(cx):
    """The reported objects really give a Gram matrix with the reported eigenvalue."""
    assert cx is not None
    K = cx.kernel(cx.objects)
    lam = np.linalg.eigvalsh(K)[0]
    assert lam < 0
    assert cx.min_eigenvalue == pytest.approx(lam, rel=1e-9, abs=1e-12)
    assert cx.witness @ K @ cx.witness == pytest.approx(lam, rel=1e-9, abs=1e-12)
    text = str(cx)
    assert "is not a valid kernel" in text and "smallest eigenvalue" in text


def test_negative_squared_distance_is_caught_with_two_points():
    k = FunctionKernel(lambda x, y: -np.sum((x - y) ** 2), name="neg_sq_dist")
    cx = find_psd_counterexample(k, vectors(dim=3))
    _assert_real_counterexample(cx)
    assert len(cx.objects) == 2  # the smallest possible counterexample


def test_sigmoid_with_negative_offset_is_caught():
    k = FunctionKernel(lambda x, y: np.tanh(0.5 * (x @ y) - 1.0), name="sigmoid")
    cx = find_psd_counterexample(k, vectors(dim=2))
    _assert_real_counterexample(cx)
    # shrinks to one zero vector: k(0, 0) = tanh(-1) < 0
    assert len(cx.objects) == 1
    np.testing.assert_array_equal(cx.objects[0], 0.0)


def test_truncated_intersection_is_caught():
    k = FunctionKernel(lambda a, b: max(0, len(a & b) - 1), name="trunc_intersection")
    cx = find_psd_counterexample(k, token_sets("abcdefgh", max_size=5))
    _assert_real_counterexample(cx)
    assert len(cx.objects) <= 5
    assert all(len(s) <= 5 for s in cx.objects)


def test_exp_edit_distance_on_strings_is_caught():
    # exp(-t d_edit) is not PSD for some t. Measured by greedy elimination
    # over all binary strings: at t = 1 the smallest counterexample found has
    # 30 strings of length <= 5 (beyond a random search), at t = 1/4 it has 7
    # strings of length <= 2, which the search finds and shrinks.
    k = FunctionKernel(lambda s, t: np.exp(-0.25 * levenshtein(s, t)), name="exp_edit")
    cx = find_psd_counterexample(k, strings("ab", max_size=3), max_size=10,
                                 max_examples=500)
    _assert_real_counterexample(cx)
    assert all(len(s) <= 3 for s in cx.objects)


def test_asymmetric_function_is_reported_as_counterexample():
    k = FunctionKernel(lambda x, y: 1.0 + x[0] - y[0], name="skewed")
    cx = find_psd_counterexample(k, vectors(dim=1))
    assert cx is not None and "not symmetric" in cx.reason
    assert len(cx.objects) == 2


def test_valid_kernels_give_no_counterexample():
    assert find_psd_counterexample(Gaussian(), vectors(dim=2), max_examples=60) is None
    assert_kernel_psd(Linear(), vectors(dim=3), max_examples=60)


def test_assert_kernel_psd_message_holds_the_counterexample():
    k = FunctionKernel(lambda x, y: -np.sum((x - y) ** 2), name="neg_sq_dist")
    with pytest.raises(AssertionError, match="neg_sq_dist.*is not a valid kernel on these 2"):
        assert_kernel_psd(k, vectors(dim=2))


def test_search_is_reproducible_under_a_seed():
    k = FunctionKernel(lambda a, b: max(0, len(a & b) - 1), name="trunc")
    a = find_psd_counterexample(k, token_sets("abcdefgh"), seed=3)
    b = find_psd_counterexample(k, token_sets("abcdefgh"), seed=3)
    assert a.objects == b.objects


# ----------------------------------------------------------- the strategies
@given(vectors(dim=4, min_value=-2, max_value=2))
def test_vectors_strategy(x):
    assert x.shape == (4,) and x.dtype == np.float64
    assert np.all(np.abs(x) <= 2) and np.isfinite(x).all()


@given(token_sets("xyz", min_size=1, max_size=2))
def test_token_sets_strategy(s):
    assert isinstance(s, frozenset) and 1 <= len(s) <= 2 and s <= set("xyz")


@given(strings("protein", min_size=2, max_size=5))
def test_strings_strategy(s):
    assert 2 <= len(s) <= 5 and set(s) <= set("ACDEFGHIKLMNPQRSTVWY")


@given(graphs(min_nodes=1, max_nodes=5, node_labels="CNO", edge_labels=[1, 2]))
def test_graphs_strategy_labelled(G):
    assert isinstance(G, nx.Graph) and not G.is_directed()
    assert 1 <= G.number_of_nodes() <= 5
    assert all(d["label"] in "CNO" for _, d in G.nodes(data=True))
    assert all(d["label"] in (1, 2) for _, _, d in G.edges(data=True))


@given(graphs(max_nodes=4, directed=True))
def test_graphs_strategy_directed_unlabelled(G):
    assert G.is_directed() and G.number_of_nodes() <= 4
    assert all(not d for _, d in G.nodes(data=True))


@given(object_lists(st.integers(), min_size=2, max_size=3))
def test_object_lists_bounds(xs):
    assert 2 <= len(xs) <= 3


def test_strategy_argument_errors():
    with pytest.raises(ValueError, match="dim must be >= 1"):
        vectors(0)
    with pytest.raises(ValueError, match="alphabet symbol 'A' at position 1 is repeated"):
        strings("AA")
    with pytest.raises(ValueError, match="min_nodes <= max_nodes"):
        graphs(min_nodes=3, max_nodes=2)
