"""splitmix64: the 64-bit hash of the graph kernels' labels (numba-free).

The Weisfeiler-Lehman labels, the shortest-path keys and the optimal
assignment's occurrence keys all hash with :func:`mix`. It is written once,
here, for NumPy arrays; the compiled loops compile this same function for
scalars (``numba.njit(mix)``), so both forms give the same bits. Nothing
here imports numba.

References
----------
S. Vigna, "Further scramblings of Marsaglia's xorshift generators", Journal
of Computational and Applied Mathematics 315, 2017, 175-181 (splitmix64).
"""

import numpy as np

# splitmix64 constants
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
GOLD = np.uint64(0x9E3779B97F4A7C15)


def mix(z):
    """splitmix64 finaliser of uint64 values (wrapping arithmetic): a
    bijection with good avalanche, for arrays here and for scalars in the
    compiled loops."""
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))
