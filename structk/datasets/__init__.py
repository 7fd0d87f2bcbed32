"""Readers for public benchmark datasets (files the user already has).

Nothing here downloads: each reader takes the path of a file in its
original distribution format.

Names are imported lazily.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".uci": ["SequenceDataset", "load_promoters", "load_splice", "promoter_groups"],
    },
)
