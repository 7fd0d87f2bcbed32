"""Random walks on product graphs.

=================  ==========================================================
module             what
=================  ==========================================================
:mod:`._numba`     the product-graph iterations (fixed point, conjugate
                   gradient, exponential and truncated series) in either
                   product layout, and the spectral form for unlabelled
                   undirected graphs (numba)
=================  ==========================================================

Compiled only. The orchestration (validation, the decay, the threading rule
``_tuning.WALK_PARALLEL_WORK``, the layout rule ``WALK_PRODUCT_LAYOUT``) is
in :mod:`structk.kernels.graphs.random_walk`.
"""
