"""Node labels are told apart exactly as Python compares them: integers
beyond float precision stay distinct, 1 and 1.0 are one label."""

import networkx as nx
import numpy as np
import pytest

from structk.kernels import ShortestPath, WeisfeilerLehman


def _edge(a, b):
    g = nx.Graph()
    g.add_node(0, label=a)
    g.add_node(1, label=b)
    g.add_edge(0, 1)
    return g


@pytest.mark.parametrize("kernel", [WeisfeilerLehman(h=1), ShortestPath()])
def test_integers_past_2_to_53_stay_distinct(kernel):
    big = 2**53
    same = kernel([_edge(big, big), _edge(big + 1, big + 1)])
    assert same[0, 1] == 0.0  # no label in common
    assert kernel([_edge(big, big), _edge(float(big), big)])[0, 1] == same[0, 0]


def test_wl_values_with_labels_past_2_to_53_follow_the_definition():
    big = 2**53
    K = WeisfeilerLehman(h=1)([_edge(big, big), _edge(big + 1, big)])
    # iteration 0: counts {big: 2} and {big+1: 1, big: 1}; iteration 1: one
    # new label twice in the first graph, two distinct ones in the second
    assert np.array_equal(K, [[8.0, 2.0], [2.0, 4.0]])


def test_equal_numbers_of_different_types_are_one_label():
    K = WeisfeilerLehman(h=2)([_edge(1, 2), _edge(1.0, np.int64(2)), _edge(True, 2.0)])
    assert np.all(K == K[0, 0])
