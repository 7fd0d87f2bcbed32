"""Verdicts of the validity kit: what fails, on which objects, beyond which tolerance.

A function ``k`` is a kernel exactly when, for every list of objects, the
Gram matrix ``K[i, j] = k(x_i, x_j)`` is symmetric and positive
semi-definite. A list of objects proves that ``k`` is *not* a kernel when
one of these fails, checked in this order:

``"asymmetry"``
    ``|k(x, y) - k(y, x)|`` exceeds the entry tolerance.
``"negative self-similarity"``
    ``k(x, x)`` is below minus the entry tolerance (one object suffices).
``"negative eigenvalue"``
    the smallest eigenvalue of ``K`` is below minus the eigenvalue tolerance;
    its eigenvector ``z`` gives ``z^T K z < 0``.
``"inconsistent evaluation"``
    ``k(X)``, ``k(X, X)`` and ``k.diag(X)`` disagree beyond the entry
    tolerance although each is symmetric: the kernel's implementation is
    inconsistent (not a PSD failure of the function, but a bug to know of).

Tolerances are relative to the matrix scale and the dtype the kernel
returns (``eps``: its machine epsilon), so that floating-point differences
are never counterexamples:

* entry tolerance ``sqrt(eps) * max|K|`` (1.5e-8 relative in float64): two
  evaluations of the same value, or ``k(x, y)`` and ``k(y, x)``, that differ
  by less are rounding, e.g. ``Gaussian(sigma=0.01)`` computed through
  ``|x|^2 + |y|^2 - 2 x.y`` by one path and entrywise by another;
* eigenvalue tolerance ``max(10 n eps ||K||_F, n * noise)``, where
  ``noise`` is the largest disagreement actually observed between the
  evaluations (each entry error moves an eigenvalue by at most ``n`` times
  itself); the first term is :func:`structk.check_psd`'s default.

An exception raised by the kernel, or a non-finite value, is not a
counterexample: it is a :class:`KernelError`, reported on its own.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from ..kernels.base import Kernel

ASYMMETRY = "asymmetry"
NEGATIVE_SELF = "negative self-similarity"
NEGATIVE_EIGENVALUE = "negative eigenvalue"
INCONSISTENT = "inconsistent evaluation"
#: Gram matrices and z are printed for witnesses of at most this many objects.
SHOW_GRAM = 10


def machine_eps(K: ArrayLike) -> float:
    """Machine epsilon of the Gram matrix's dtype (float64 for non-float dtypes)."""
    dtype = np.asarray(K).dtype
    if dtype.kind == "f":
        return float(np.finfo(dtype).eps)
    return float(np.finfo(np.float64).eps)


def entry_tolerance(K: ArrayLike) -> float:
    """``sqrt(eps) * max|K|``: differences between entries below this are rounding."""
    K = np.asarray(K)
    scale = float(np.abs(K).max()) if K.size else 0.0
    return float(np.sqrt(machine_eps(K))) * scale


def eigenvalue_tolerance(K: ArrayLike, noise: float = 0.0) -> float:
    """``max(10 n eps ||K||_F, n * noise)``: eigenvalues above ``-tol`` are not evidence."""
    K = np.asarray(K)
    n = K.shape[0]
    with np.errstate(over="ignore"):
        fro = float(np.linalg.norm(K.astype(np.float64)))
    return max(10.0 * n * machine_eps(K) * fro, n * float(noise))


#: Eigenvalues within this fraction of ``max|eigenvalue|`` of the smallest
#: are one (numerically degenerate) eigenvalue. Rounding of the LAPACK/BLAS
#: kernels differs by ~1e-16 relative between CPUs; genuine gaps are larger.
CLUSTER_RTOL = 1e-9
#: Weights (squared eigenvector entries, in [0, 1]) closer than this are tied.
WEIGHT_TIE = 1e-6


def _eigh(K):
    """``numpy.linalg.eigh`` of ``K`` as float64 (LAPACK's divide and conquer)."""
    # the subset drivers were measured 10x slower on the clustered spectra of
    # near-identity Gram matrices
    return np.linalg.eigh(np.asarray(K, dtype=np.float64))


def _eigvalsh(K):
    return np.linalg.eigvalsh(np.asarray(K, dtype=np.float64))


def min_eigenvalue(K: np.ndarray) -> float:
    """Smallest eigenvalue of the symmetric ``K``."""
    return float(_eigvalsh(K)[0])


def smallest_eigenspace(K: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Smallest eigenvalue of the symmetric ``K`` and the weights of its eigenspace.

    The weights are the diagonal of the orthogonal projector onto the
    eigenspace of the smallest eigenvalue (eigenvalues within
    :data:`CLUSTER_RTOL` of it count as equal): ``w_i = sum_k v_ik^2``.
    Unlike an eigenvector, they do not depend on the basis LAPACK returns
    for a repeated eigenvalue nor on the sign it picks, so decisions taken
    from them are the same with every BLAS kernel (CPU).

    Returns
    -------
    lam : float
    weights : ndarray, shape (n,)
    basis : ndarray, shape (n, m)
        Orthonormal eigenvectors of the cluster (``m`` >= 1).
    """
    w, v = _eigh(K)
    scale = float(np.abs(w).max()) if w.size else 0.0
    m = int(np.searchsorted(w, w[0] + CLUSTER_RTOL * scale, side="right"))
    basis = v[:, : max(m, 1)]
    return float(w[0]), np.einsum("ij,ij->i", basis, basis), basis


def smallest_eigenpair(K: np.ndarray) -> tuple[float, np.ndarray]:
    """Smallest eigenvalue of the symmetric ``K`` and a canonical unit eigenvector.

    The eigenvector is the projection onto the eigenspace of the first
    basis vector ``e_j`` with the largest weight (see
    :func:`smallest_eigenspace`; ties within :data:`WEIGHT_TIE` go to the
    smallest ``j``), normalised; so ``z_j > 0``, and ``z`` is the same
    whichever eigenvectors (sign, basis of a repeated eigenvalue) LAPACK
    returned on this CPU.
    """
    lam, weights, basis = smallest_eigenspace(K)
    j = int(np.flatnonzero(weights >= weights.max() - WEIGHT_TIE)[0])
    z = basis @ basis[j]
    return lam, z / np.linalg.norm(z)


def tie_order(values: ArrayLike, tie: float) -> np.ndarray:
    """Indices sorting ``values`` ascending, values within ``tie`` of the previous
    counting as equal (kept in index order): the same order for any rounding
    below ``tie``."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    group = np.concatenate([[0], np.cumsum(np.diff(values[order]) > tie)])
    ranks = np.empty(len(values), dtype=np.int64)
    ranks[order] = group
    return np.lexsort((np.arange(len(values)), ranks))


@dataclass
class Counterexample:
    """Objects on which a function fails to be a kernel.

    Attributes
    ----------
    kernel : Kernel
        The kernel under test.
    property : str
        What fails: ``"asymmetry"``, ``"negative self-similarity"``,
        ``"negative eigenvalue"`` or ``"inconsistent evaluation"`` (see
        :mod:`structk.testing.verdict`).
    objects : list
        The witness objects (shrunk by the search).
    gram : ndarray
        Their Gram matrix, ``k(X, X)`` (every pair evaluated in both orders).
    min_eigenvalue : float
        Smallest eigenvalue of the symmetric part of ``gram``.
    z : ndarray or None
        For a negative eigenvalue, a unit vector with
        ``z @ gram @ z = min_eigenvalue < 0``.
    tol : float
        The tolerance the failure exceeds (entry tolerance for asymmetry,
        self-similarity and inconsistency; eigenvalue tolerance otherwise).
    detail : str
        One line naming the offending entries.
    entry : tuple of int or None
        Indices ``(i, j)`` of the offending entry (asymmetry, self-similarity,
        inconsistency).
    """

    kernel: object
    property: str
    objects: list
    gram: np.ndarray
    min_eigenvalue: float
    z: np.ndarray | None
    tol: float
    detail: str = ""
    entry: tuple | None = None

    @builtins.property  # the field ``property`` shadows the builtin here
    def witness(self) -> np.ndarray | None:
        """Alias of :attr:`z`."""
        return self.z

    def __str__(self) -> str:
        head = (
            f"{self.kernel!r} is not a valid kernel: {self.property} on these "
            f"{len(self.objects)} objects"
        )
        lines = [head]
        for i, x in enumerate(self.objects):
            lines.append(f"  [{i}] {show(x)}")
        if self.detail:
            lines.append(self.detail)
        n = len(self.objects)
        if n <= SHOW_GRAM:
            with np.printoptions(precision=4, suppress=True, linewidth=100):
                lines.append("Gram matrix:")
                lines.extend("  " + row for row in str(self.gram).splitlines())
        else:
            lines.append(f"Gram matrix: {n} x {n} (not shown)")
        which = "" if self.property == NEGATIVE_EIGENVALUE else " (of the symmetric part)"
        lines.append(
            f"smallest eigenvalue{which}: {self.min_eigenvalue:.6g} (tolerance {self.tol:.3g})"
        )
        if self.z is not None:
            lines.append(
                f"z with z^T K z = {float(self.z @ self.gram @ self.z):.6g} < 0"
                + (":" if n <= SHOW_GRAM else " (not shown)")
            )
            if n <= SHOW_GRAM:
                with np.printoptions(precision=4, suppress=True, linewidth=100):
                    lines.append(f"  {self.z}")
        return "\n".join(lines)


@dataclass
class KernelError:
    """The kernel raised (or returned a non-finite value) on these objects.

    Not a counterexample: a domain error or an overflow says the kernel
    refuses or cannot represent some inputs, not that it is not PSD.

    Attributes
    ----------
    objects : list
        One object, or the pair of objects the kernel failed on (empty
        when the failing call was not an evaluation, see ``call``).
    error : str
        ``"ExceptionType: message"`` (first line).
    call : str
        The failing call when it was not an evaluation on ``objects``,
        e.g. ``"k.fit(a pool of 32 strings)"``.
    """

    objects: list
    error: str
    call: str = ""

    def __str__(self) -> str:
        if self.call:
            return f"{self.call} -> {self.error}"
        shown = ", ".join(show(x) for x in self.objects)
        return f"k({shown}) -> {self.error}"


@dataclass
class KernelCheck:
    """Result of :func:`~structk.testing.check_kernel`.

    Attributes
    ----------
    kernel : Kernel
    counterexample : Counterexample or None
        The shrunk counterexample, ``None`` when none was found.
    errors : list of KernelError
        Inputs on which the kernel raised or returned a non-finite value
        (at most 10 kept; ``n_errors`` counts them all).
    n_errors : int
    searched : str
        What was searched, e.g. ``"3 pools: 544 distinct strings, Gram
        matrices of up to 256"``.
    seconds : float
        Wall time of the search.
    n_pools : int
        Number of pools whose Gram matrix was computed.
    n_checked : int
        Distinct objects in those Gram matrices.
    n_left_out : int
        Objects drawn but left out of every Gram matrix because the kernel
        raised on them (or could not be fitted on their pool).
    inconclusive : str or None
        Set when the search says nothing about validity, with the reason:
        no counterexample, and nothing evaluated (no Gram matrix of two
        objects or more) or too little (more objects left out than
        evaluated). Also set explicitly, e.g. when the time limit was
        reached before a Gram matrix was computed.
    time_limited : bool
        Whether the time limit cut the search or the shrink short (then the
        result depends on the machine's speed; ``searched`` says where).
    """

    kernel: object
    counterexample: Counterexample | None
    errors: list = field(default_factory=list)
    n_errors: int = 0
    searched: str = ""
    seconds: float = 0.0
    n_pools: int = 0
    n_checked: int = 0
    n_left_out: int = 0
    inconclusive: str | None = None
    time_limited: bool = False

    def __post_init__(self):
        if self.inconclusive is not None or self.counterexample is not None:
            return
        first = f"; first error: {self.errors[0]}" if self.errors else ""
        drawn = self.n_checked + self.n_left_out
        if self.n_pools == 0 or self.n_checked < 2:
            if self.n_left_out:
                which = (
                    "all" if not self.n_checked else f"{self.n_left_out} of"
                ) + f" {drawn} objects drawn"
                self.inconclusive = f"nothing was checked: the kernel failed on {which}{first}"
            else:
                self.inconclusive = (
                    f"nothing was checked: fewer than two distinct objects "
                    f"were evaluated together{first}"
                )
        elif self.n_left_out > self.n_checked:
            self.inconclusive = (
                f"too little was checked: the kernel failed on "
                f"{self.n_left_out} of {drawn} objects drawn{first}"
            )

    @property
    def found(self) -> bool:
        """Whether a counterexample was found."""
        return self.counterexample is not None

    @property
    def conclusive(self) -> bool:
        """False when the search evaluated nothing, or too little, to say anything."""
        return self.inconclusive is None

    def __str__(self) -> str:
        if self.counterexample is not None:
            lines = [str(self.counterexample)]
            if self.time_limited:
                lines.append(f"(cut short by the time limit: searched {self.searched})")
        elif self.inconclusive is not None:
            lines = [
                f"{self.kernel!r}: INCONCLUSIVE, {self.inconclusive}",
                f"(no evidence either way: searched {self.searched}, {self.seconds:.1f} s)",
            ]
        else:
            head = (
                f"{self.kernel!r}: no counterexample found in {self.searched} "
                f"({self.seconds:.1f} s)"
            )
            lines = [head, "(evidence that it is a kernel, not a proof)"]
        if self.n_errors:
            lines.append(
                f"the kernel raised on {self.n_errors} input(s) "
                "(not counterexamples; those inputs were left out):"
            )
            lines.extend(f"  {e}" for e in self.errors)
        return "\n".join(lines)


class InconclusiveCheckError(ValueError):
    """The validity kit evaluated nothing, or too little, to give a verdict.

    Raised by :func:`~structk.testing.find_psd_counterexample` and
    :func:`~structk.testing.assert_kernel_psd` instead of reporting "no
    counterexample" (e.g. when the kernel raised on every generated input).
    The message names the first error seen; ``result`` is the full
    :class:`KernelCheck`.
    """

    def __init__(self, result: KernelCheck) -> None:
        super().__init__(f"{result.kernel!r}: {result.inconclusive}")
        self.result = result


def show(x: Any) -> str:
    """A short readable form of one object."""
    import networkx as nx

    if isinstance(x, nx.Graph):
        nodes: Any = dict(x.nodes(data=True))
        if all(not d for d in nodes.values()):
            nodes = list(nodes)
        edges = [(u, v, d) if d else (u, v) for u, v, d in x.edges(data=True)]
        return f"{type(x).__name__}(nodes={nodes}, edges={edges})"
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6, separator=", ")
    if isinstance(x, (set, frozenset)):
        return "{" + ", ".join(sorted(map(repr, x))) + "}" if x else "{}"
    return repr(x)


def error_text(exc: BaseException) -> str:
    """``"Type: first line of the message"``."""
    message = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def judge(
    kernel: Kernel,
    objects: Sequence[Any],
    K: np.ndarray,
    K_full: np.ndarray,
    diag: np.ndarray | None,
    noise: float = 0.0,
) -> Counterexample | None:
    """Decide which property, if any, fails on ``objects``.

    Parameters
    ----------
    K, K_full : ndarray
        ``k(X)`` and ``k(X, X)`` (``K`` may be ``None`` to skip the
        comparison); both finite.
    diag : ndarray or None
        ``k.diag(X)``.
    noise : float
        Disagreements already observed elsewhere (raises the eigenvalue
        tolerance).

    Returns
    -------
    Counterexample or None
    """
    K_full = np.asarray(K_full)
    etol = entry_tolerance(K_full)
    D = np.abs(K_full - K_full.T)
    asym = float(D.max())
    S = 0.5 * (K_full + K_full.T)
    lam, z = smallest_eigenpair(S)

    def make(prop, tol, detail, z=None, entry=None):
        return Counterexample(kernel, prop, list(objects), K_full, lam, z, tol, detail, entry)

    if asym > etol:
        i, j = (int(v) for v in np.unravel_index(int(D.argmax()), D.shape))
        return make(
            ASYMMETRY,
            etol,
            f"k(x[{i}], x[{j}]) = {float(K_full[i, j])!r} but k(x[{j}], x[{i}]) = "
            f"{float(K_full[j, i])!r} (difference {asym:.3g} > tolerance {etol:.3g})",
            entry=(int(i), int(j)),
        )
    d = np.diagonal(K_full)
    i = int(np.argmin(d))
    if d[i] < -etol:
        return make(NEGATIVE_SELF, etol, f"k(x[{i}], x[{i}]) = {float(d[i])!r} < 0", entry=(i, i))
    inconsistency, where, entry = 0.0, "", None
    for name, other in (("k(X)", K), ("k.diag(X)", None if diag is None else np.diag(diag))):
        if other is None:
            continue
        if name == "k.diag(X)":
            E = np.abs(np.asarray(diag) - d)
        else:
            E = np.abs(np.asarray(other) - K_full)
        m = float(E.max())
        if m > inconsistency:
            entry = tuple(int(a) for a in np.unravel_index(int(E.argmax()), E.shape))
            if len(entry) == 1:
                entry = (entry[0], entry[0])
            inconsistency, where = m, f"{name} and k(X, X) disagree at {entry}"
    noise = max(noise, asym, inconsistency)
    vtol = eigenvalue_tolerance(K_full, noise)
    if lam < -vtol:
        return make(NEGATIVE_EIGENVALUE, vtol, "", z)
    if inconsistency > etol:
        return make(
            INCONSISTENT,
            etol,
            f"{where} by {inconsistency:.3g} > tolerance {etol:.3g}",
            entry=entry,
        )
    return None
