"""Kernels on labelled networkx graphs, one module per kernel.

=========================  ================================================
module                     what
=========================  ================================================
``_encoding``              graphs and labels to flat arrays (shared)
``graphhopper``            :class:`GraphHopper` (continuous node attributes)
``random_walk``            :class:`RandomWalk` on the direct product graph
``shortest_path``          :class:`ShortestPath` (all-pairs shortest paths)
``weisfeiler_lehman``      :class:`WeisfeilerLehman` subtree kernel
``wl_optimal_assignment``  :class:`WeisfeilerLehmanOptimalAssignment`
=========================  ================================================
"""

from ..._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".graphhopper": ["GraphHopper"],
        ".random_walk": ["RandomWalk"],
        ".shortest_path": ["ShortestPath"],
        ".weisfeiler_lehman": ["WeisfeilerLehman"],
        ".wl_optimal_assignment": ["WeisfeilerLehmanOptimalAssignment"],
    },
)
