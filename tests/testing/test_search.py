"""The validity kit finds the known non-kernels with its default settings.

Every reported counterexample is re-checked independently: the Gram matrix
is recomputed from the plain function by a double loop and its eigenvalues
by numpy, not by the kit.
"""

import math
import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from structk.kernels import Exp, FunctionKernel, Gaussian, Linear
from structk.testing import (
    assert_kernel_psd,
    check_kernel,
    find_psd_counterexample,
    graphs,
    object_lists,
    strings,
    token_sets,
    vectors,
)
from structk.testing import non_kernels as nk


def test_levenshtein_reference():
    assert nk.levenshtein("kitten", "sitting") == 3
    assert nk.levenshtein("", "abc") == 3
    assert nk.levenshtein("ab", "ba") == 2


def test_substring_and_subsequence_references():
    assert nk.common_substring("xabcy", "zabcw") == 3
    assert nk.common_substring("ab", "ba") == 1
    assert nk.common_subsequence("axbxc", "abc") == 3
    assert nk.common_subsequence("", "abc") == 0


# Each non-kernel with its strategy (defaults only) and the largest witness
# accepted: (number of objects, largest object size).
FOUND = [
    ("neg_sq_dist", vectors(3), 2, None),
    ("exp_cubed_dist", vectors(2), 4, None),
    ("truncated_overlap", token_sets(), 5, 4),
    ("overlap_coefficient", token_sets(), 4, 3),
    ("exp_edit", strings("ab"), 30, 6),
    ("common_substring", strings("ACGT"), 6, 3),
    ("common_subsequence", strings("ACGT"), 6, 3),
    ("max_nodes", graphs(), 2, None),
]


@pytest.mark.parametrize(
    ("name", "objects", "max_objects", "max_len"), FOUND, ids=[c[0] for c in FOUND]
)
def test_non_kernel_is_found_with_defaults(
    name, objects, max_objects, max_len, assert_negative_eigenvalue
):
    func = getattr(nk, name)
    result = check_kernel(FunctionKernel(func, name=name), objects)
    assert_negative_eigenvalue(result.counterexample, func)
    assert len(result.counterexample.objects) <= max_objects
    if max_len is not None:
        assert max(len(x) for x in result.counterexample.objects) <= max_len
    assert result.n_errors == 0


# exp_edit over DNA with the defaults (a search of ~40 s, the pool of 1024
# strings): docs/testing.md shows it, and tests/testing/test_docs_page.py
# runs that command once and checks its witness as these tests do.


def test_sigmoid_negative_self_similarity_shrinks_to_zero_vector():
    cx = find_psd_counterexample(FunctionKernel(nk.sigmoid), vectors(dim=2))
    assert cx.property == "negative self-similarity"
    assert len(cx.objects) == 1
    np.testing.assert_array_equal(cx.objects[0], 0.0)
    assert cx.gram[0, 0] == pytest.approx(math.tanh(-1.0))


def test_asymmetric_similarity_is_reported_with_two_objects():
    cx = find_psd_counterexample(FunctionKernel(nk.containment), token_sets())
    assert cx.property == "asymmetry"
    a, b = cx.objects
    assert len(a & b) / len(a) != len(a & b) / len(b)
    i, j = cx.entry
    assert abs(cx.gram[i, j] - cx.gram[j, i]) > cx.tol
    assert "asymmetry" in str(cx)


def test_domain_errors_are_reported_apart_and_the_search_goes_on():
    # containment divides by |A|: the empty set is a domain error, not a counterexample
    result = check_kernel(FunctionKernel(nk.containment), token_sets())
    assert result.found and result.counterexample.property == "asymmetry"
    assert result.n_errors >= 1
    err = result.errors[0]
    assert err.objects == [frozenset()] and "ZeroDivisionError" in err.error
    assert "k({}) -> " in str(result)


def test_overflow_is_an_error_not_a_counterexample():
    result = check_kernel(Exp(Linear()), vectors(dim=8), pool_sizes=(64, 256))
    assert not result.found
    assert result.n_errors >= 1
    assert all("KernelOverflowError" in e.error for e in result.errors)
    assert all(float(x @ x) > 709 for e in result.errors for x in e.objects)


def test_error_on_a_pair_only_is_located():
    def picky(x, y):
        if x[0] > 5 and y[0] < -5:
            raise ArithmeticError("refuses this pair")
        return float(x @ y)

    result = check_kernel(FunctionKernel(picky), vectors(dim=1), pool_sizes=(64,))
    assert not result.found and result.n_errors >= 1
    x, y = result.errors[0].objects
    assert {x[0] > 5, y[0] > 5} == {True, False}
    assert "ArithmeticError: refuses this pair" in result.errors[0].error


def test_non_finite_values_are_errors():
    k = FunctionKernel(lambda x, y: float("nan") if x == "A" or y == "A" else 1.0)
    result = check_kernel(k, strings("AC"), pool_sizes=(16,))
    assert not result.found
    assert any("non-finite" in e.error for e in result.errors)


def test_floating_point_differences_are_not_counterexamples():
    # k(X) and k(X, X) differ by ~1e-10 here (different summation paths)
    assert (
        find_psd_counterexample(Gaussian(sigma=0.01), vectors(dim=2), pool_sizes=(32, 256)) is None
    )


def test_valid_kernels_give_no_report_and_say_what_was_searched():
    result = assert_kernel_psd(Linear(), vectors(dim=3), pool_sizes=(32, 64))
    assert not result.found and result.n_errors == 0
    assert re.match(
        r"2 Gram matrices of up to 6\d vectors \(\d+ distinct vectors, seed 0\)", result.searched
    )
    assert "no counterexample found" in str(result)


def test_assert_kernel_psd_message_holds_the_counterexample():
    k = FunctionKernel(nk.neg_sq_dist, name="neg_sq_dist")
    with pytest.raises(AssertionError, match=r"neg_sq_dist\).*negative eigenvalue on these 2"):
        assert_kernel_psd(k, vectors(dim=2))


def test_assert_kernel_psd_fails_on_errors_unless_allowed():
    with pytest.raises(AssertionError, match="KernelOverflowError"):
        assert_kernel_psd(Exp(Linear()), vectors(dim=8), pool_sizes=(128,))
    assert_kernel_psd(Exp(Linear()), vectors(dim=8), pool_sizes=(128,), allow_errors=True)


def test_search_is_reproducible_under_a_seed():
    k = FunctionKernel(nk.exp_edit)
    a = find_psd_counterexample(k, strings("ab"), seed=3)
    b = find_psd_counterexample(k, strings("ab"), seed=3)
    assert a.objects == b.objects
    np.testing.assert_array_equal(a.gram, b.gram)


def test_bad_arguments():
    with pytest.raises(TypeError, match="hypothesis strategy"):
        check_kernel(Linear(), [np.zeros(2)])
    with pytest.raises(ValueError, match="pool_sizes"):
        check_kernel(Linear(), vectors(2), pool_sizes=(0,))


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


@given(strings())
def test_strings_strategy_defaults(s):
    assert len(s) <= 8 and set(s) <= set("ACGT")


@given(graphs(min_nodes=1, max_nodes=5, node_labels="CNO", edge_labels=[1, 2]))
def test_graphs_strategy_labelled(G):
    assert isinstance(G, nx.Graph) and not G.is_directed()
    assert 1 <= G.number_of_nodes() <= 5
    assert all(d["label"] in "CNO" for _, d in G.nodes(data=True))
    assert all(d["label"] in (1, 2) for _, _, d in G.edges(data=True))


@given(
    graphs(max_nodes=3, node_labels="ab", node_label="atom", edge_labels="xy", edge_label="bond")
)
def test_graphs_strategy_attribute_names_match_the_kernels(G):
    assert all(set(d) == {"atom"} for _, d in G.nodes(data=True))
    assert all(set(d) == {"bond"} for _, _, d in G.edges(data=True))


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
