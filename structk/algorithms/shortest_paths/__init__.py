"""Shortest paths of the graph kernels.

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     hop (breadth-first) and weighted distances, path keys
                   and their counts per graph, GraphHopper's weights (numba)
=================  ==========================================================

Compiled only. Called by :class:`structk.kernels.ShortestPath` and
:class:`structk.kernels.GraphHopper`; the keys hash with
:mod:`structk.algorithms.hashing`.
"""
