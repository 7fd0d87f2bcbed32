"""Readers for the UCI molecular-biology sequence sets (splice junctions, promoters).

Both files are comma-separated lines ``class, name, sequence`` as
distributed by the UCI Machine Learning Repository; the readers keep every
row, in file order, and strip the padding whitespace.

* Splice-junction gene sequences (``splice.data``): 3190 primate DNA
  sequences of 60 nt, classes ``"EI"`` (exon-intron boundary, donor),
  ``"IE"`` (intron-exon, acceptor) and ``"N"`` (neither). 15 sequences hold
  IUPAC ambiguity codes (``N``, ``D``, ``R``, ``S``): read them with
  ``alphabet="dna", unknown="skip"`` to drop the k-mers covering them, or use
  :data:`IUPAC_DNA` as the alphabet to keep them as symbols of their own.
* E. coli promoter gene sequences (``promoters.data``): 106 sequences of
  57 nt (lowercase), classes ``"+"`` and ``"-"``. The 53 negatives are
  overlapping windows of one 1.5 kb sequence, their name being the window's
  start; :func:`promoter_groups` groups overlapping windows so that
  cross-validation does not put the same DNA on both sides of a split.

References
----------
G. G. Towell, M. W. Noordewier and J. W. Shavlik, "Refinement of
approximate domain theories by knowledge-based neural networks", AAAI 1990
(splice) and M. O. Noordewier, G. G. Towell and J. W. Shavlik, "Training
knowledge-based neural networks to recognize genes in DNA sequences", NIPS
1991 (promoters). UCI Machine Learning Repository, CC BY 4.0.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

#: DNA with the IUPAC ambiguity codes that occur in the splice set.
IUPAC_DNA = "ACGTNDRS"


class SequenceDataset(NamedTuple):
    """Sequences with their class labels (unpacks as a 3-tuple).

    Attributes
    ----------
    sequences : list of str
    target : ndarray of str
        The class of each sequence, as written in the file.
    names : list of str
        The name (identifier) of each sequence.
    """

    sequences: list
    target: np.ndarray
    names: list


def _read_rows(path, expected_fields=3):
    path = Path(path)
    labels, names, seqs = [], [], []
    with open(path, encoding="ascii") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            fields = [f.strip() for f in line.split(",")]
            if len(fields) != expected_fields or not all(fields):
                raise ValueError(f"{path}:{lineno}: expected 'class, name, sequence', got {line!r}")
            labels.append(fields[0])
            names.append(fields[1])
            seqs.append(fields[2])
    if not seqs:
        raise ValueError(f"{path} holds no sequences")
    return SequenceDataset(seqs, np.asarray(labels), names)


def _check(data, path, classes, length):
    for i, (label, seq) in enumerate(zip(data.target, data.sequences)):
        if label not in classes:
            raise ValueError(
                f"{path}: row {i} has class {label!r}, expected one of {sorted(classes)}"
            )
        if len(seq) != length:
            raise ValueError(
                f"{path}: row {i} has a sequence of length {len(seq)}, expected {length}"
            )
    return data


def load_splice(path):
    """Read the UCI splice-junction file ``splice.data``.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    SequenceDataset
        3190 uppercase sequences of length 60, classes ``"EI"``, ``"IE"``,
        ``"N"``. Some hold ambiguity codes (see the module docstring).
    """
    return _check(_read_rows(path), path, {"EI", "IE", "N"}, 60)


def load_promoters(path):
    """Read the UCI promoter file ``promoters.data``.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    SequenceDataset
        106 lowercase sequences of length 57, classes ``"+"`` and ``"-"``.
    """
    return _check(_read_rows(path), path, {"+", "-"}, 57)


def promoter_groups(data):
    """Group ids for cross-validation on the promoter set.

    Each positive is its own group; negatives whose windows overlap
    (names are window starts, windows are 57 nt long) are joined
    transitively into one group.

    Returns
    -------
    ndarray of int, shape (n_sequences,)
    """
    groups = np.arange(len(data.sequences))
    neg = [i for i, label in enumerate(data.target) if label == "-"]
    starts = sorted((int(data.names[i]), i) for i in neg)
    for (s0, i0), (s1, i1) in zip(starts, starts[1:]):
        if s1 - s0 < len(data.sequences[i0]):
            groups[i1] = groups[i0]
    return groups
