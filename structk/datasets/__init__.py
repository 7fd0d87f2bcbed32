"""Dataset readers (local files only: nothing here downloads) and the small
data sets bundled with structk.

Names are imported lazily.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".bundled": ["bundled_path", "load_moons"],
        ".uci": ["SequenceDataset", "load_promoters", "load_splice", "promoter_groups"],
    },
)
