"""Shared test helpers of tests/scale (on the pytest ``pythonpath``)."""

import contextlib
import logging

import numpy as np

from structk.kernels import Kernel


class Encoded:
    """CSR-style encoding of strings (codes + offsets): not sliceable as is."""

    def __init__(self, strings):
        self.codes = np.frombuffer("".join(strings).encode(), dtype=np.uint8)
        self.offsets = np.cumsum([0] + [len(s) for s in strings])


class LetterCounts(Kernel):
    """Inner product of letter counts, over an encoding without ``_take``."""

    prepared = 0  # objects prepared so far, to check "once per object"

    def _prepare(self, X, name):
        for i, x in enumerate(X):
            if not isinstance(x, str):
                raise ValueError(f"{name}[{i}] is not a string")
        LetterCounts.prepared += len(X)
        return Encoded(X)

    def _counts(self, P):
        rows = np.repeat(np.arange(len(P.offsets) - 1), np.diff(P.offsets))
        C = np.zeros((len(P.offsets) - 1, 256))
        np.add.at(C, (rows, P.codes), 1.0)
        return C

    def _cross(self, P, Q):
        return self._counts(P) @ self._counts(Q).T

    def _diag(self, P):
        return (self._counts(P) ** 2).sum(axis=1)


@contextlib.contextmanager
def process_cluster(config=None):
    """A client of a 2-process, 1-thread-each Dask LocalCluster on loopback
    (``config``: Dask settings in force while the cluster starts)."""
    import dask
    import distributed

    with dask.config.set(config or {}):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    try:
        with distributed.Client(cluster) as c:
            yield c
    finally:
        cluster.close()


def count_kmer_counts():
    """In a worker: record the number of objects of every Spectrum k-mer
    count from now on (:func:`counted_sizes`)."""
    from structk.kernels import strings

    if not hasattr(strings, "_test_sizes"):
        for name in ("_raw_features", "_count_arrays"):  # the CSR matrix, or its arrays
            counts = getattr(strings.Spectrum, name)

            def counting(self, P, counts=counts):
                strings._test_sizes.append(len(P))
                return counts(self, P)

            setattr(strings.Spectrum, name, counting)
    strings._test_sizes = []


def counted_sizes():
    """In a worker: the sizes recorded since :func:`count_kmer_counts`."""
    from structk.kernels import strings

    return list(strings._test_sizes)
