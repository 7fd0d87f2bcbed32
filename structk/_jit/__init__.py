"""Numba-compiled inner loops, one private module per topic.

Nothing here validates its input: the public modules check and encode data
in Python first, then call in with flat arrays plus offsets.
"""
