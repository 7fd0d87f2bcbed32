"""Feature occurrences: where each explicit feature of an object comes from.

A kernel with an explicit feature map counts features (k-mers, gapped
pairs, Weisfeiler-Lehman subtrees, shortest paths) that each occur at
known positions or nodes of an object. An :class:`Occurrences` table lists
them for a batch of objects: occurrence ``o`` of object ``owner[o]`` adds
``vals[o]`` to feature ``keys[o]`` and covers the units (positions or
nodes) ``units[o, :]`` (``-1`` pads rows covering fewer units). The feature
vector of an object is the sum of its occurrences' values per key (or,
for binary ``presence`` features, 1 for each key present).

Each leaf kernel of the explanation (:mod:`._sequences`, :mod:`._graphs`)
turns objects into such a table; everything else (weights, contributions,
mutagenesis) works on tables only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Occurrences:
    keys: np.ndarray  # int64 (m,)
    owner: np.ndarray  # int64 (m,)
    units: np.ndarray  # int64 (m, r), -1 padded
    vals: np.ndarray  # float64 (m,)
    level: np.ndarray | None = None  # int64 (m,): WL iteration, graphs only

    @classmethod
    def empty(cls, r=1):
        return cls(
            np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, r), np.int64), np.zeros(0)
        )

    def __len__(self):
        return len(self.keys)

    @staticmethod
    def concat(parts):
        parts = [p for p in parts if len(p)]
        if not parts:
            return Occurrences.empty()
        r = max(p.units.shape[1] for p in parts)
        units = [
            np.pad(p.units, ((0, 0), (0, r - p.units.shape[1])), constant_values=-1) for p in parts
        ]
        return Occurrences(
            np.concatenate([p.keys for p in parts]),
            np.concatenate([p.owner for p in parts]),
            np.concatenate(units),
            np.concatenate([p.vals for p in parts]),
        )


def group(owner, keys, vals, n_owners):
    """The feature vectors of a table: ``(owner, key, value, inverse)`` of
    each distinct (owner, key), sorted, with ``inverse`` mapping each
    occurrence to its group."""
    if len(keys) == 0:
        z = np.zeros(0, np.int64)
        return z, z, np.zeros(0), z
    order = np.lexsort((keys, owner))
    o, k = owner[order], keys[order]
    first = np.ones(len(o), dtype=bool)
    first[1:] = (o[1:] != o[:-1]) | (k[1:] != k[:-1])
    gid = np.cumsum(first) - 1
    inverse = np.empty(len(o), np.int64)
    inverse[order] = gid
    values = np.bincount(gid, weights=vals[order])
    return o[first], k[first], values, inverse


def lookup(sorted_keys, table, keys):
    """``table[i]`` where ``sorted_keys[i] == key``, 0 for keys not present."""
    if len(sorted_keys) == 0:
        return np.zeros(len(keys))
    at = np.searchsorted(sorted_keys, keys)
    at = np.minimum(at, len(sorted_keys) - 1)
    return np.where(sorted_keys[at] == keys, table[at], 0.0)


def spread(occ, amounts, n_owners, unit_ptr):
    """Each occurrence's ``amounts`` split equally over the units it covers,
    summed per unit; units of object ``i`` are ``unit_ptr[i]:unit_ptr[i+1]``
    in the flat result."""
    covered = occ.units >= 0
    n_cover = covered.sum(axis=1)
    share = np.divide(amounts, n_cover, out=np.zeros(len(amounts)), where=n_cover > 0)
    rows, cols = np.nonzero(covered)
    flat = unit_ptr[occ.owner[rows]] + occ.units[rows, cols]
    return np.bincount(flat, weights=share[rows], minlength=int(unit_ptr[-1]))
