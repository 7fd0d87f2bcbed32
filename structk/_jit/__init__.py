"""Jitted inner loops (numba), one private module per topic."""
