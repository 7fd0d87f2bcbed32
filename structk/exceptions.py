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


class ModelFileError(ValueError):
    """A model file cannot be saved or loaded: not a structk model file,
    damaged, tampered with (a class or value outside the allow-list), or
    written by a structk whose format this one cannot read.

    The message names the file; the path is kept in ``path`` (``None`` when
    saving refused the estimator itself).
    """

    def __init__(self, message, path=None):
        self.path = None if path is None else str(path)
        super().__init__(message)
