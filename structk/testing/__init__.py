"""Validity kit: is the similarity you just wrote a kernel?

A function ``k(x, y)`` is a kernel exactly when it is symmetric and every
Gram matrix it produces is positive semi-definite. :func:`check_kernel`
searches for objects on which this fails: it draws pools of a few hundred
objects with hypothesis, finds a negative eigenvalue of the pool's Gram
matrix, and shrinks the pool to a small witness::

    from structk.testing import check_kernel, strings

    result = check_kernel(my_similarity, strings("ACGT"))
    print(result)   # the witness strings, their Gram matrix, z with z^T K z < 0

Strategies for each object type: :func:`vectors`, :func:`token_sets`,
:func:`strings`, :func:`graphs`; :func:`object_lists` makes lists of them.
"""

from .search import as_kernel, assert_kernel_psd, check_kernel, find_psd_counterexample
from .strategies import graphs, object_lists, strings, token_sets, vectors
from .verdict import Counterexample, InconclusiveCheckError, KernelCheck, KernelError

__all__ = [
    "Counterexample",
    "InconclusiveCheckError",
    "KernelCheck",
    "KernelError",
    "as_kernel",
    "assert_kernel_psd",
    "check_kernel",
    "find_psd_counterexample",
    "graphs",
    "object_lists",
    "strings",
    "token_sets",
    "vectors",
]
