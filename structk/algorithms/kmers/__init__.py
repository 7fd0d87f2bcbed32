"""k-mer ids and counts: the two forms and the rule that picks one.

=======================  ====================================================
module                   what
=======================  ====================================================
:mod:`._numpy`           ids and counts by whole-array operations (NumPy)
:mod:`._numba`           the same, and the mismatch neighbourhoods, the
                         gappy pairs and the k-mer chunks beyond int64
                         (numba)
=======================  ====================================================

:func:`kmer_ids` and :func:`count_kmers` use NumPy for batches of at most
``_tuning.KMERS_NUMPY_MAX_SYMBOLS`` symbols (k-mers), which needs nothing
compiled and, for a data set of a few hundred sequences, costs less than
loading the compiled loops into a fresh process; larger batches go to the
compiled loops. Both forms give the same ids and counts (NumPy's columns
sorted within each row, the compiled ones in order of first occurrence when
counted through a counter array), so the Gram matrices do not depend on the
path.
"""

from __future__ import annotations

from ... import _tuning
from ..._threads import compiled_call
from . import _numpy


def kmer_ids(codes, offsets, k, A):
    """Base-``A`` index of every k-mer free of unknown symbols (codes ``>= A``),
    row by row, in order of position: ``(ids, ptr)``, the k-mers of sequence
    ``i`` being ``ids[ptr[i]:ptr[i + 1]]``."""
    if codes.shape[0] <= _tuning.KMERS_NUMPY_MAX_SYMBOLS:
        return _numpy.kmer_ids(codes, offsets, k, A)
    from ._numba import kmer_ids as compiled

    return compiled_call(compiled, codes, offsets, k, A)


def count_kmers(ids, ptr, presence, space, jitted=False):
    """CSR ``(indptr, indices, data)`` counting each row's ids in ``range(space)``
    (with ``presence`` every stored value is 1).

    ``jitted``: the caller runs compiled code anyway (so loading the compiled
    count costs little); use it at every size. The compiled count goes
    through one counter per possible id when ``space`` is at most
    ``_tuning.KMER_COUNTER_SPACE`` or the number of ids, else sorts each row.
    """
    if ids.shape[0] <= _tuning.KMERS_NUMPY_MAX_SYMBOLS and not jitted:
        return _numpy.count_rows(ids, ptr, presence)
    from ._numba import count_rows

    direct = space <= max(_tuning.KMER_COUNTER_SPACE, ids.shape[0])
    return compiled_call(count_rows, ids, ptr, presence, space, direct)
