"""The number of set bits of a 64-bit word, for compiled loops (numba).

One definition for every loop that counts bits: the weighted-degree
kernel's matching runs and the gapped k-mer kernels' mismatches.
"""

from numba.core import types
from numba.extending import intrinsic

from ... import _jit  # noqa: F401 - registers the first-compilation notice


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a ``uint64`` (LLVM's ``ctpop``: one instruction
    where the CPU has it)."""
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen
