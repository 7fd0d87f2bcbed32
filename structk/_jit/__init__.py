"""Numba-compiled inner loops (private); the public modules validate input and call in."""
