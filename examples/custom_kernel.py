"""Write a new kernel, property-test it, and use it with a learner.

Two candidate similarities between protein fragments:

* ``shared_kmers(s, t) = |kmers(s) & kmers(t)|`` — the number of distinct
  k-mers two sequences share. It is the inner product of k-mer *presence*
  vectors, so it should be a valid kernel.
* ``longest_common_substring(s, t)`` — an intuitive similarity. Is it a kernel?

The example wraps both in ``FunctionKernel``, asks ``structk.testing`` for a
counterexample to positive semi-definiteness, and then turns the valid one
into a fast kernel class with an explicit sparse feature map, which a
learner can use.

Usage::

    python examples/custom_kernel.py [--quick]
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp

from structk import check_psd
from structk.kernels import FunctionKernel, Kernel, Normalize
from structk.learners import KernelSVM
from structk.testing import find_psd_counterexample, strings

# the longest common substring length, one of the kit's catalogue of non-kernels
from structk.testing.non_kernels import common_substring as longest_common_substring


def kmers(s, k=3):
    return {s[i : i + k] for i in range(len(s) - k + 1)}


def shared_kmers(s, t):
    return len(kmers(s) & kmers(t))


class SharedKmers(Kernel):
    """``|kmers(s) & kmers(t)|`` with its feature map: sparse k-mer presence vectors.

    Parameters
    ----------
    k : int >= 1
    """

    has_features = True

    def __init__(self, k=3):
        self.k = k  # constructors store their arguments, nothing else

    def _check_params(self):  # called before every evaluation
        if not (isinstance(self.k, int) and self.k >= 1):
            raise ValueError(f"k must be an integer >= 1, got {self.k!r}")

    def _prepare(self, X, name):
        X = super()._prepare(X, name)
        for i, s in enumerate(X):
            if not isinstance(s, str):
                raise TypeError(f"{name}[{i}] is a {type(s).__name__}, not a str")
        return [sorted(kmers(s, self.k)) for s in X]

    def _features(self, P):
        # one column per distinct k-mer present (numbered in sorted order)
        rows = np.repeat(np.arange(len(P)), [len(p) for p in P])
        present = np.array([m for p in P for m in p], dtype=str)
        columns, cols = np.unique(present, return_inverse=True)
        return sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(len(P), len(columns)))

    def _cross(self, P, Q):  # features of X and Y must share columns: compute them together
        F = self._features(P + Q)
        return (F[: len(P)] @ F[len(P) :].T).toarray()


def main(quick=False):
    alphabet = "ACDEFGHIKLMNPQRSTVWY"
    budget = dict(pool_sizes=(32, 128) if quick else (32, 256, 1024))
    proteins = strings(alphabet[:4], min_size=0, max_size=8)

    for name, func in [
        ("shared_kmers", shared_kmers),
        ("longest_common_substring", longest_common_substring),
    ]:
        cx = find_psd_counterexample(FunctionKernel(func, name=name), proteins, **budget)
        print(f"{name}: " + ("no counterexample found" if cx is None else "NOT a kernel"))
        if cx is not None:
            print(cx, end="\n\n")

    # the fast version agrees with the prototype and passes the same search
    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list(alphabet), size=int(rng.integers(5, 30)))) for _ in range(60)]
    fast, slow = SharedKmers(k=3), FunctionKernel(shared_kmers)
    assert np.array_equal(fast(seqs), slow(seqs))
    assert np.array_equal(fast(seqs[:10], seqs[10:]), slow(seqs[:10], seqs[10:]))
    assert find_psd_counterexample(fast, proteins, **budget) is None
    print(
        f"SharedKmers(k=3) equals the prototype on {len(seqs)} sequences; "
        f"Gram PSD: {check_psd(fast(seqs)).is_psd}"
    )

    # and it plugs into any learner: a motif-vs-no-motif toy task
    motif = "WHEEL"
    y = np.array([i % 2 for i in range(len(seqs))])
    seqs = [s[:3] + motif + s[3:] if label else s for s, label in zip(seqs, y)]
    svm = KernelSVM(kernel=Normalize(SharedKmers(k=3)), C=1.0).fit(seqs[:40], y[:40])
    print(
        f"KernelSVM(Normalize(SharedKmers(3))): test accuracy "
        f"{np.mean(svm.predict(seqs[40:]) == y[40:]):.2f} on {len(seqs) - 40} sequences"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller searches")
    main(parser.parse_args().quick)
