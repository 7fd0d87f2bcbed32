"""Exceptions raised by structk."""

from __future__ import annotations


class NotPSDError(ValueError):
    """A matrix that should be positive semi-definite is not.

    The :class:`~structk.psd.PSDReport` with the diagnosis (smallest
    eigenvalue, tolerance, witness vector) is kept in ``report``.
    """

    def __init__(self, report):
        self.report = report
        super().__init__(str(report))


class KernelOverflowError(OverflowError):
    """A kernel value does not fit in float64 (for example ``exp`` of a large value)."""

