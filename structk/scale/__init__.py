"""Gram matrices beyond one call: tiles, files on disk, clusters, landmarks.

================  ==========================================================
module            what
================  ==========================================================
``blockwise``     :func:`gram`: tile by tile, in memory or into a ``.npy``
                  memmap, on threads or processes
``distributed``   :func:`dask_gram`: the same tiles as tasks on a Dask cluster
``nystroem``      :class:`Nystroem`: explicit features from landmark columns
``_tiling``       the plan, checked tiles, writers and memory estimate the
                  three share
================  ==========================================================

Names are imported lazily (``import structk.scale`` loads nothing heavy).
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".blockwise": ["gram"],
        ".distributed": ["dask_gram"],
        ".nystroem": ["Nystroem"],
    },
)
