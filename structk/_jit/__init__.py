"""Jitted inner loops (numba), one module per topic; private."""
