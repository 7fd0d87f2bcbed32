"""Dataset readers and the small data sets bundled with structk.

Readers take local files in their original distribution format; nothing here
downloads.

=================  ========================================================
module             contents
=================  ========================================================
``bundled``        :func:`bundled_path`, :func:`load_moons` (data/ of the project)
``uci``            UCI promoter and splice-junction sequences
``tu``             :func:`load_tu` (TU Dortmund graph benchmark format),
                   :func:`save_tu` (graphs, e.g. a subset, as a TU folder),
                   :func:`tu_label_names` (what its label integers stand for)
``chem``           :func:`from_smiles` (molecular graphs), :func:`morgan_environments`
                   (exact Morgan count fingerprints), :func:`fragment_counts`,
                   :func:`smiles_ngrams` (multisets for ``MinMax``); RDKit,
                   ``structk[chem]``
=================  ========================================================

Names are imported lazily.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".bundled": ["bundled_path", "load_moons"],
        ".uci": ["SequenceDataset", "load_promoters", "load_splice", "promoter_groups"],
        ".tu": ["load_tu", "save_tu", "tu_label_names"],
        ".chem": ["from_smiles", "morgan_environments", "fragment_counts", "smiles_ngrams"],
    },
)
