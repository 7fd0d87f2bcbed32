"""Searching for a counterexample to the PSD property of a kernel."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ..psd import PSDReport, check_psd
from .strategies import object_lists


@dataclass
class Counterexample:
    """Objects whose Gram matrix is not positive semi-definite.

    Attributes
    ----------
    kernel : Kernel
    objects : list
        The (shrunk) objects.
    gram : ndarray or None
        Their Gram matrix (``None`` if the kernel raised on them).
    min_eigenvalue : float or None
        Smallest eigenvalue of ``gram``.
    witness : ndarray or None
        Unit vector ``z`` with ``z^T gram z = min_eigenvalue < 0``.
    reason : str
        Why the Gram matrix fails: ``"negative eigenvalue"``, or the error
        raised for non-symmetric or non-finite values.
    report : PSDReport or None
    """

    kernel: object
    objects: list
    gram: np.ndarray | None
    min_eigenvalue: float | None
    witness: np.ndarray | None
    reason: str
    report: PSDReport | None = None

    def __str__(self):
        lines = [f"{self.kernel!r} is not a valid kernel on these "
                 f"{len(self.objects)} objects:"]
        for i, x in enumerate(self.objects):
            lines.append(f"  [{i}] {_show(x)}")
        lines.append(f"reason: {self.reason}")
        if self.gram is not None:
            with np.printoptions(precision=6, suppress=True, linewidth=100):
                lines.append("Gram matrix:")
                lines.extend("  " + row for row in str(self.gram).splitlines())
        if self.min_eigenvalue is not None:
            lines.append(f"smallest eigenvalue: {self.min_eigenvalue:.6g}")
        if self.witness is not None:
            with np.printoptions(precision=4, suppress=True):
                lines.append(f"witness z with z^T K z < 0: {self.witness}")
        return "\n".join(lines)


def _show(x):
    import networkx as nx

    if isinstance(x, nx.Graph):
        nodes = dict(x.nodes(data=True))
        edges = list(x.edges(data=True))
        return f"{type(x).__name__}(nodes={nodes}, edges={edges})"
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6, separator=", ")
    if isinstance(x, frozenset):
        return "{" + ", ".join(sorted(map(repr, x))) + "}" if x else "{}"
    return repr(x)


def _evaluate(kernel, objects, tol):
    """Return ``(gram, report, reason)``; ``reason`` is None when the Gram is PSD.

    Both ``k(X)`` and ``k(X, X)`` are computed: the first may evaluate one
    triangle only, the second every pair, which exposes an asymmetric ``k``.
    """
    try:
        K = kernel(objects)
        K_full = kernel(objects, objects)
    except (ValueError, OverflowError) as exc:
        return None, None, f"{type(exc).__name__}: {exc}"
    try:
        report = check_psd(K_full, tol)
    except ValueError as exc:
        return K_full, None, str(exc)
    scale = max(float(np.abs(K_full).max()), np.finfo(np.float64).tiny)
    if not np.allclose(K, K_full, rtol=1e-10, atol=1e-12 * scale):
        i, j = np.unravel_index(int(np.abs(K - K_full).argmax()), K.shape)
        return K_full, None, (
            f"k(X) and k(X, X) disagree at entry ({i}, {j}): "
            f"{float(K[i, j])!r} vs {float(K_full[i, j])!r}"
        )
    K = K_full
    if report.is_psd:
        return K, report, None
    return K, report, "negative eigenvalue"


def find_psd_counterexample(kernel, objects, *, min_size=1, max_size=8,
                            max_examples=300, seed=0, tol=None):
    """Search lists of objects for one whose Gram matrix is not PSD.

    Uses hypothesis to generate lists of objects, and to shrink the first
    failing list to a small, readable one.

    Parameters
    ----------
    kernel : Kernel
        The kernel under test (e.g. a :class:`~structk.kernels.FunctionKernel`).
    objects : hypothesis SearchStrategy
        Draws one object: :func:`~structk.testing.vectors`,
        :func:`~structk.testing.strings`, :func:`~structk.testing.token_sets`,
        :func:`~structk.testing.graphs`, or any strategy of your own.
    min_size, max_size : int
        Bounds on the number of objects in one Gram matrix.
    max_examples : int
        How many lists to try before concluding none fails.
    seed : int or None
        Seed of the search; the default makes it reproducible. ``None``
        draws a fresh random search each call.
    tol : float, optional
        Tolerance passed to :func:`~structk.check_psd`.

    Returns
    -------
    Counterexample or None
        The shrunk counterexample, or ``None`` when none was found (which
        is evidence, not proof, that the kernel is valid).

    Examples
    --------
    The negative squared distance is not a kernel:

    >>> import numpy as np
    >>> from structk.kernels import FunctionKernel
    >>> from structk.testing import find_psd_counterexample, vectors
    >>> k = FunctionKernel(lambda x, y: -np.sum((x - y) ** 2), name="neg_sq_dist")
    >>> cx = find_psd_counterexample(k, vectors(dim=2))
    >>> len(cx.objects), cx.min_eigenvalue < 0
    (2, True)
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    def fails(objs):
        return _evaluate(kernel, objs, tol)[2] is not None

    config = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    rnd = random.Random(seed) if seed is not None else None
    try:
        objs = find(object_lists(objects, min_size=min_size, max_size=max_size),
                    fails, settings=config, random=rnd)
    except NoSuchExample:
        return None
    K, report, reason = _evaluate(kernel, objs, tol)
    return Counterexample(
        kernel=kernel,
        objects=list(objs),
        gram=K,
        min_eigenvalue=None if report is None else report.min_eigenvalue,
        witness=None if report is None else report.witness,
        reason=reason,
        report=report,
    )


def assert_kernel_psd(kernel, objects, **kwargs):
    """Assert that no counterexample to the PSD property is found.

    For use in a pytest test of your own kernel::

        def test_my_kernel_is_valid():
            assert_kernel_psd(MyKernel(), structk.testing.strings("dna"))

    Keyword arguments are those of :func:`find_psd_counterexample`. Raises
    ``AssertionError`` with the shrunk counterexample in the message.
    """
    cx = find_psd_counterexample(kernel, objects, **kwargs)
    if cx is not None:
        raise AssertionError(str(cx))
