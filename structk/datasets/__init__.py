"""Dataset readers (local files only: nothing here downloads) and the small
data sets bundled with structk.

Names are imported lazily.
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
        ".bundled": ["bundled_path", "load_moons"],
        ".uci": ["SequenceDataset", "load_promoters", "load_splice", "promoter_groups"],
        ".tu": ["load_tu"],
    },
)
