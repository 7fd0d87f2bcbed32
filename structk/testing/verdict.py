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

from dataclasses import dataclass, field

import numpy as np

ASYMMETRY = "asymmetry"
NEGATIVE_SELF = "negative self-similarity"
NEGATIVE_EIGENVALUE = "negative eigenvalue"
INCONSISTENT = "inconsistent evaluation"
#: Gram matrices and z are printed for witnesses of at most this many objects.
SHOW_GRAM = 10


def machine_eps(K):
    """Machine epsilon of the Gram matrix's dtype (float64 for non-float dtypes)."""
    dtype = np.asarray(K).dtype
    if dtype.kind == "f":
        return float(np.finfo(dtype).eps)
    return float(np.finfo(np.float64).eps)


def entry_tolerance(K):
    """``sqrt(eps) * max|K|``: differences between entries below this are rounding."""
    K = np.asarray(K)
    scale = float(np.abs(K).max()) if K.size else 0.0
    return float(np.sqrt(machine_eps(K))) * scale


def eigenvalue_tolerance(K, noise=0.0):
    """``max(10 n eps ||K||_F, n * noise)``: eigenvalues above ``-tol`` are not evidence."""
    K = np.asarray(K)
    n = K.shape[0]
    with np.errstate(over="ignore"):
        fro = float(np.linalg.norm(K.astype(np.float64)))
    return max(10.0 * n * machine_eps(K) * fro, n * float(noise))


def smallest_eigenpair(K):
    """Smallest eigenvalue of the symmetric matrix ``K`` and a unit eigenvector."""
    # LAPACK's divide and conquer (syevd): the subset drivers were measured
    # 10x slower on the clustered spectra of near-identity Gram matrices
    w, v = np.linalg.eigh(np.asarray(K, dtype=np.float64))
    return float(w[0]), v[:, 0]


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

    @property
    def witness(self):
        """Alias of :attr:`z`."""
        return self.z

    def __str__(self):
        head = (f"{self.kernel!r} is not a valid kernel: {self.property} on these "
                f"{len(self.objects)} objects")
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
        lines.append(f"smallest eigenvalue{which}: {self.min_eigenvalue:.6g} "
                     f"(tolerance {self.tol:.3g})")
        if self.z is not None:
            lines.append(f"z with z^T K z = {float(self.z @ self.gram @ self.z):.6g} < 0"
                         + (":" if n <= SHOW_GRAM else " (not shown)"))
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
        One object, or the pair of objects the kernel failed on.
    error : str
        ``"ExceptionType: message"`` (first line).
    """

    objects: list
    error: str

    def __str__(self):
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
    """

    kernel: object
    counterexample: Counterexample | None
    errors: list = field(default_factory=list)
    n_errors: int = 0
    searched: str = ""
    seconds: float = 0.0
    n_pools: int = 0

    @property
    def found(self):
        """Whether a counterexample was found."""
        return self.counterexample is not None

    def __str__(self):
        if self.counterexample is not None:
            lines = [str(self.counterexample)]
        else:
            head = (f"{self.kernel!r}: no counterexample found in {self.searched} "
                    f"({self.seconds:.1f} s)")
            lines = [head, "(evidence that it is a kernel, not a proof)"]
        if self.n_errors:
            lines.append(f"the kernel raised on {self.n_errors} input(s) "
                         "(not counterexamples; those inputs were left out):")
            lines.extend(f"  {e}" for e in self.errors)
        return "\n".join(lines)


def show(x):
    """A short readable form of one object."""
    import networkx as nx

    if isinstance(x, nx.Graph):
        nodes = dict(x.nodes(data=True))
        if all(not d for d in nodes.values()):
            nodes = list(nodes)
        edges = [(u, v, d) if d else (u, v) for u, v, d in x.edges(data=True)]
        return f"{type(x).__name__}(nodes={nodes}, edges={edges})"
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6, separator=", ")
    if isinstance(x, (set, frozenset)):
        return "{" + ", ".join(sorted(map(repr, x))) + "}" if x else "{}"
    return repr(x)


def error_text(exc):
    """``"Type: first line of the message"``."""
    message = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def judge(kernel, objects, K, K_full, diag, noise=0.0):
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
        return Counterexample(kernel, prop, list(objects), K_full, lam, z, tol, detail,
                              entry)

    if asym > etol:
        i, j = np.unravel_index(int(D.argmax()), D.shape)
        return make(ASYMMETRY, etol,
                    f"k(x[{i}], x[{j}]) = {float(K_full[i, j])!r} but k(x[{j}], x[{i}]) = "
                    f"{float(K_full[j, i])!r} (difference {asym:.3g} > tolerance {etol:.3g})",
                    entry=(int(i), int(j)))
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
        return make(INCONSISTENT, etol,
                    f"{where} by {inconsistency:.3g} > tolerance {etol:.3g}", entry=entry)
    return None
