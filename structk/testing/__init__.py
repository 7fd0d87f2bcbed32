"""Property-testing kit: is the kernel you just wrote valid?

A function ``k(x, y)`` is a kernel exactly when every Gram matrix it
produces is positive semi-definite. This kit searches for a list of objects
whose Gram matrix is not, using hypothesis to generate candidates and to
shrink a failure to a small readable one::

    from structk.kernels import FunctionKernel
    from structk.testing import find_psd_counterexample, strings

    def exp_edit(s, t): ...
    cx = find_psd_counterexample(FunctionKernel(exp_edit), strings("ab", max_size=4))
    print(cx)   # the shrunk strings, their Gram matrix and its negative eigenvalue

Strategies for each object type: :func:`vectors`, :func:`token_sets`,
:func:`strings`, :func:`graphs`; :func:`object_lists` makes lists of them.
"""

from .search import Counterexample, assert_kernel_psd, find_psd_counterexample
from .strategies import graphs, object_lists, strings, token_sets, vectors

__all__ = [
    "Counterexample",
    "assert_kernel_psd",
    "find_psd_counterexample",
    "graphs",
    "object_lists",
    "strings",
    "token_sets",
    "vectors",
]
