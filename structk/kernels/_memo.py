"""What a kernel derives from prepared objects that are used again and again.

The landmark columns of the Nyström method (:mod:`structk.scale.columns`)
evaluate ``k(block, landmarks)`` for block after block of objects with the
same prepared landmarks. A k-mer kernel counted the landmarks' k-mers
anew for each block, twice under :class:`~structk.kernels.Normalize` (the
cross-Gram, then the diagonal): for 500 landmarks of 200 nt about two thirds
of a 2000-row block's work. Inside :func:`remembering`, what a kernel
derives from one prepared collection (its k-mer counts) is computed once and
kept in a store the caller owns: for one call locally, for as long as a
Dask worker keeps the decoded landmarks.

Evaluation stays pure: nothing is stored in the kernel, and a kept value is
the very object the kernel computed, so every result is bit for bit what
the kernel computes without it. Kernels opt in where they derive something
costly (:meth:`structk.kernels.strings._KmerKernel._counted`); a kept
value must never be modified by its users.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

#: ``id(P) -> [P, store, users, lock]`` for the prepared collections being
#: remembered (``P`` held, so that its id is not reused while it is here; the
#: lock held while a value missing from the store is computed, so that
#: threads computing blocks at once derive it once).
_HELD: dict[int, list] = {}
_LOCK = threading.Lock()


@contextmanager
def remembering(P, store=None):
    """Within the block, keep in ``store`` (a dict; a new one by default)
    what kernels derive from the prepared collection ``P`` (see
    :func:`remembered`), from any thread.

    Nested or concurrent blocks for the same ``P`` share the store of the
    first one.
    """
    key = id(P)
    with _LOCK:
        entry = _HELD.get(key)
        if entry is None:
            entry = _HELD[key] = [P, {} if store is None else store, 0, threading.RLock()]
        entry[2] += 1
    try:
        yield
    finally:
        with _LOCK:
            entry[2] -= 1
            if entry[2] == 0:
                del _HELD[key]


def remembered(kernel, what, P, compute):
    """``compute()``, kept for ``(kernel, what)`` when ``P`` is being
    remembered (:func:`remembering`) and computed once there.

    ``kernel`` is the object that derives the value (held with it and
    compared by identity: a kernel is never modified while it evaluates);
    ``what`` names the value among those the kernel derives.
    """
    entry = _HELD.get(id(P))
    if entry is None or entry[0] is not P:
        return compute()
    store, key = entry[1], (what, id(kernel))
    with entry[3]:
        hit = store.get(key)
        if hit is not None and hit[0] is kernel:
            return hit[1]
        value = compute()
        store[key] = (kernel, value)
    return value
