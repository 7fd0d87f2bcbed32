"""Readers for public benchmark datasets, from local files only (nothing is downloaded).

=================  ========================================================
module             readers
=================  ========================================================
``tu``             :func:`load_tu` (TU Dortmund graph benchmark format)
=================  ========================================================
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".tu": ["load_tu"],
    },
)
