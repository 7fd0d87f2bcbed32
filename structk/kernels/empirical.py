"""The empirical kernel map: a valid kernel from any similarity.

Given a similarity ``s`` (not necessarily PSD: the Smith-Waterman score, the
logarithm of the local alignment kernel, an edit distance turned into a
similarity, ...) and a fixed list of landmark objects ``Z = (z_1, ..., z_m)``,
each object is represented by its similarities to the landmarks,
``phi(x) = (s(x, z_1), ..., s(x, z_m))``, and

    k(x, y) = <phi(x), phi(y)> = sum_l s(x, z_l) s(y, z_l)

is a kernel by construction (an inner product of explicit features), for any
``s``. Unlike a spectrum repair of a Gram matrix
(:func:`structk.psd.nearest_psd`) it is inductive: a new object needs only
its ``m`` similarities to the landmarks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import check_objects
from .base import Kernel, Objects

#: The methods of a kernel that are similarities but not kernels, by kernel
#: class: what ``SpectrumRepair`` and ``EmpiricalKernelMap`` take as their
#: ``similarity`` from a command-line expression (:mod:`structk.cli.spec`)
#: and from a model file (:mod:`structk.model_file`, which stores such a
#: bound method as its kernel's parameters and the method's name).
SIMILARITY_METHODS = {"LocalAlignment": ("log_kernel",)}


def _similarity_name(sim):
    """How a similarity shows in a repr: a kernel's repr, a kernel's method as
    ``LocalAlignment(beta=0.5).log_kernel`` (the expression that makes it),
    else the function's name."""
    if isinstance(sim, Kernel):
        return repr(sim)
    owner = getattr(sim, "__self__", None)
    if isinstance(owner, Kernel):
        return f"{owner!r}.{sim.__name__}"
    return getattr(sim, "__qualname__", repr(sim))


class EmpiricalKernelMap(Kernel):
    """``k(x, y) = <s(x, Z), s(y, Z)>`` for a similarity ``s`` and landmarks ``Z``.

    Valid (PSD) for every similarity: the Gram matrix is ``F F^T`` with
    ``F[i, l] = s(x_i, z_l)`` (:meth:`features`). The price is the choice
    of landmarks (the training objects, as in Saigo et al.'s "LA-ekm", or a
    subset of them) and a dependence on their number: the values grow with
    ``m``, and ``Normalize(EmpiricalKernelMap(...))`` (the cosine of the
    similarity profiles) is often the better-scaled choice.

    Parameters
    ----------
    similarity : Kernel or callable
        ``similarity(X, Z)`` returns the ``len(X) x len(Z)`` matrix of
        similarities: a structk kernel (PSD or not, e.g.
        ``FunctionKernel``) or any function of two lists, e.g.
        :func:`~structk.kernels.alignment.smith_waterman` or
        ``LocalAlignment(beta=0.5).log_kernel``.
    landmarks : sequence of objects
        The fixed objects ``Z`` (at least one).

    Examples
    --------
    >>> from structk.kernels import EmpiricalKernelMap, smith_waterman
    >>> k = EmpiricalKernelMap(smith_waterman, landmarks=["MKVL", "WWPH"])
    >>> k.features(["MKVLA", "PHW"])
    array([[18.,  0.],
           [ 0., 15.]])
    >>> k(["MKVLA", "PHW"])
    array([[324.,   0.],
           [  0., 225.]])

    References
    ----------
    B. Schölkopf, S. Mika, C. J. C. Burges, P. Knirsch, K.-R. Müller,
    G. Rätsch and A. J. Smola, "Input space versus feature space in
    kernel-based methods", IEEE Transactions on Neural Networks 10(5), 1999,
    1000-1017 (the empirical kernel map).
    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi and L. Cazzanti,
    "Similarity-based classification: concepts and algorithms", JMLR 10,
    2009, 747-776 (similarities as features).
    H. Saigo, J.-P. Vert, N. Ueda and T. Akutsu, "Protein homology detection
    using string alignment kernels", Bioinformatics 20(11), 2004, 1682-1689
    (LA-ekm).
    """

    has_features = True
    fixed_feature_columns = True
    _repr_always = ("similarity",)

    def __init__(
        self, similarity: Kernel | Callable[[Any, Any], float], landmarks: Objects
    ) -> None:
        self.similarity = similarity
        self.landmarks = landmarks

    def _check_params(self):
        if not callable(self.similarity):
            raise TypeError(
                "similarity must be a structk Kernel or a function "
                f"similarity(X, Z) -> matrix, got {type(self.similarity).__name__}"
            )
        check_objects(self.landmarks, "landmarks")

    def __repr__(self):
        name = _similarity_name(self.similarity)
        return f"EmpiricalKernelMap({name}, landmarks=<{len(self.landmarks)} objects>)"

    def _prepare(self, X, name):
        X = check_objects(X, name)
        Z = check_objects(self.landmarks, "landmarks")
        if isinstance(self.similarity, Kernel):  # errors name the objects as given
            sim = self.similarity
            sim._validate()
            P, Q = sim._prepare(X, name), sim._prepare(Z, "landmarks")
            sim._check_pair(P, Q)
            with np.errstate(over="ignore"):  # overflow: reported as non-finite below
                F = sim._cross(P, Q)
        else:
            try:
                F = self.similarity(X, Z)
            except Exception as exc:
                raise ValueError(
                    f"similarity({name}, landmarks) raised {type(exc).__name__}: {exc} "
                    f"(called with the {len(X)} objects of {name} and the {len(Z)} "
                    "landmarks)"
                ) from exc
        try:
            F = np.asarray(F, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"similarity({name}, landmarks) must return a matrix of real numbers, "
                f"got {type(F).__name__}"
            ) from None
        shape = (len(X), len(Z))
        if F.shape != shape:
            raise ValueError(
                f"similarity({name}, landmarks) returned shape {F.shape}, expected "
                f"{shape} (one row per object of {name}, one column per landmark)"
            )
        if not np.isfinite(F).all():
            i, j = (int(v) for v in np.argwhere(~np.isfinite(F))[0])
            raise ValueError(
                f"similarity({name}[{i}], landmarks[{j}]) is {F[i, j]}; similarities must be finite"
            )
        return F

    def _features(self, P):
        return P


class SpectrumRepair(Kernel):
    """A similarity made a kernel by clipping (or flipping) its spectrum on
    training objects, extended to new objects by projection.

    ``fit(X)`` computes the symmetric similarity matrix ``S = s(X, X)`` of
    the training objects and its eigendecomposition ``S = V diag(w) V^T``.
    Each object ``x`` then has the explicit features

        phi(x) = diag(|w_r|^{-1/2}) V_r^T s(x, X),

    ``r`` running over the eigenvalues kept: the positive ones for
    ``method="clip"`` (those below ``rcond * max|w|`` are dropped), every
    non-negligible one for ``"flip"``. On the training objects
    ``s(X, X) V_r = V_r diag(w_r)``, so ``phi(x_i)^T phi(x_j)`` is exactly the
    entry of the clipped matrix ``V diag(max(w, 0)) V^T`` (the nearest PSD
    matrix to ``S`` in Frobenius norm, :func:`structk.psd.nearest_psd`) or
    of the flipped ``V diag(|w|) V^T``. A new object gets its features from
    its similarities to the training objects alone (the Nyström extension of
    the repaired matrix), so

    * the kernel is valid on **any** objects, training and new mixed: it is
      an inner product of explicit finite-dimensional features;
    * nothing about test objects enters the repair (unlike clipping the
      spectrum of a Gram that holds training and test objects together):
      a learner fits it on each training fold, so cross-validation has no
      transductive leakage.

    The eigenvalue *shift* of Saigo et al. (2004) changes only the diagonal
    of the training matrix and has no such extension, hence ``"clip"`` and
    ``"flip"`` only.

    With ``normalize=True`` the similarity is first divided by the objects'
    own self-similarities, ``s(x, y) / sqrt(s(x, x) s(y, y))`` (training and
    new objects alike), and the repair is fitted to that matrix, whose
    diagonal is 1. With ``similarity = LocalAlignment(beta).log_kernel``,
    ``SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True)``
    is the route of Saigo et al. to remote homology detection, made
    inductive: the logarithm of the LA kernel is on the scale of alignment
    scores, where the plain normalised LA kernel of unrelated proteins
    underflows to ``1e-100`` and its Gram matrix is nearly the identity.
    Normalising *before* the repair matters: ``Normalize`` applied *after*
    it divides a new object by its Nyström norm
    ``s(x, X) V_r diag(w_r)^{-1} V_r^T s(X, x)``, which weights the
    near-null directions of the training matrix by ``1 / w`` and ranks test
    proteins worse (SCOP 1.53, docs/strings.md). Compute the similarity once
    for all objects and look it up per split with
    :class:`~structk.kernels.precomputed.Precomputed`.

    Parameters
    ----------
    similarity : Kernel or callable
        ``similarity(X, Z)`` returns the ``len(X) x len(Z)`` similarity
        matrix (any structk kernel, or a function of two lists such as
        :func:`~structk.kernels.alignment.smith_waterman` or
        ``LocalAlignment(beta=0.5).log_kernel``). It need not be PSD;
        ``similarity(X, X)`` is symmetrised.
    method : {"clip", "flip"}, default "clip"
        What happens to the negative eigenvalues of the training matrix:
        set to zero, or replaced by their absolute values.
    rcond : float in [0, 1), default 1e-10
        Eigenvalues of magnitude below ``rcond * max|w|`` are dropped: their
        directions would be amplified by ``|w|^{-1/2}`` on new objects.
    normalize : bool, default False
        Divide the similarity by the self-similarities first,
        ``s(x, y) / sqrt(s(x, x) s(y, y))``: every self-similarity must then
        be positive. A new object costs one more similarity, ``s(x, x)``.

    Attributes
    ----------
    landmarks_ : list
        The training objects.
    components_ : ndarray, shape (n_train, r)
        ``V_r diag(|w_r|^{-1/2})``: new features are ``s(x, X) @ components_``.
    eigenvalues_ : ndarray, shape (n_train,)
        The spectrum of the symmetrised (and, with ``normalize``,
        normalised) training matrix, ascending.
    self_similarities_ : ndarray, shape (n_train,)
        ``s(x_i, x_i)`` of the training objects (with ``normalize`` only).
    train_features_ : ndarray, shape (n_train, r)
        ``s(X, X) @ components_`` (``V_r diag(|w_r|^{1/2})`` up to rounding),
        the features of the training objects, reused when the training
        objects are evaluated again (the same computation, not repeated).

    Examples
    --------
    >>> from structk.kernels import SpectrumRepair, smith_waterman
    >>> k = SpectrumRepair(smith_waterman).fit(["MKVL", "MKVA", "WWPH", "MKWW"])
    >>> k(["MKVLA", "WWP"], ["MKVL", "WWPH"]).round(6) + 0.0
    array([[18.,  0.],
           [ 0., 29.]])

    References
    ----------
    H. Saigo, J.-P. Vert, N. Ueda and T. Akutsu, "Protein homology detection
    using string alignment kernels", Bioinformatics 20(11), 2004, 1682-1689.
    Y. Chen, E. K. Garcia, M. R. Gupta, A. Rahimi and L. Cazzanti,
    "Similarity-based classification: concepts and algorithms", JMLR 10,
    2009, 747-776 (spectrum clip and flip, and their out-of-sample
    extension).
    """

    has_features = True
    fixed_feature_columns = True
    _needs_fit = True
    _repr_always = ("similarity",)

    def __init__(
        self,
        similarity: Kernel | Callable[[Any, Any], float],
        method: str = "clip",
        rcond: float = 1e-10,
        normalize: bool = False,
    ) -> None:
        self.similarity = similarity
        self.method = method
        self.rcond = rcond
        self.normalize = normalize

    def _check_params(self):
        if not callable(self.similarity):
            raise TypeError(
                "similarity must be a structk Kernel or a function "
                f"similarity(X, Z) -> matrix, got {type(self.similarity).__name__}"
            )
        if self.method not in ("clip", "flip"):
            raise ValueError(f"method must be 'clip' or 'flip', got {self.method!r}")
        from .._validation import check_scalar

        check_scalar(self.rcond, "rcond", lower=0.0, upper=1.0, upper_inclusive=False)
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise TypeError(f"normalize must be True or False, got {self.normalize!r}")

    def _kernel_params(self):
        return []  # the similarity is evaluated, never fitted or validated as a kernel

    def __repr__(self):
        name = _similarity_name(self.similarity)
        defaults = (("method", "clip"), ("rcond", 1e-10), ("normalize", False))
        extra = "".join(f", {p}={getattr(self, p)!r}" for p, d in defaults if getattr(self, p) != d)
        return f"SpectrumRepair({name}{extra})"

    def _fit(self, X):
        raw = EmpiricalKernelMap(self.similarity, X)._prepare(X, "X")
        if self.normalize:
            d = _positive(np.diag(raw).copy(), "X")
            self.self_similarities_ = d
            raw = raw / np.sqrt(d)[:, None] / np.sqrt(d)[None, :]
        w, V = np.linalg.eigh((raw + raw.T) / 2)
        top = float(np.abs(w).max()) if w.size else 0.0
        keep = (w > self.rcond * top) if self.method == "clip" else (np.abs(w) > self.rcond * top)
        if not keep.any():
            raise ValueError(
                "SpectrumRepair: the similarity matrix of the training objects has no "
                f"{'positive ' if self.method == 'clip' else ''}eigenvalue above "
                f"rcond * max|w| = {self.rcond * top:.3g}; nothing is left to "
                "represent the objects"
            )
        a = np.abs(w[keep])
        self.landmarks_ = list(X)
        self.eigenvalues_ = w
        self.components_ = V[:, keep] / np.sqrt(a)
        # what _prepare computes for the training objects (V_r |w_r|^{1/2} up to
        # rounding), kept so that a learner does not evaluate s(X, X) twice
        self.train_features_ = raw @ self.components_

    def _check_fitted(self):
        if not hasattr(self, "components_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                "SpectrumRepair learns its repair from training objects: call "
                "fit(X_train) first (a learner does it on its training data)"
            )

    def _prepare(self, X, name):
        X = check_objects(X, name)
        L = self.landmarks_
        if len(X) == len(L) and all(a is b for a, b in zip(X, L)):
            return self.train_features_  # the training objects: no similarity to recompute
        S = EmpiricalKernelMap(self.similarity, L)._prepare(X, name)
        if self.normalize:
            d = _positive(_self_similarities(self.similarity, X, name), name)
            S = S / np.sqrt(d)[:, None] / np.sqrt(self.self_similarities_)[None, :]
        return S @ self.components_

    def _features(self, P):
        return P


def _self_similarities(similarity, X, name):
    """``s(x, x)`` of each object: a kernel's diagonal, or one call of the
    function per object (``similarity([x], [x])``)."""
    if isinstance(similarity, Kernel):
        similarity._validate()
        d = similarity._diag(similarity._prepare(X, name))
    else:
        d = np.empty(len(X))
        for i, x in enumerate(X):
            d[i] = EmpiricalKernelMap(similarity, [x])._prepare([x], f"{name}[{i}]")[0, 0]
    d = np.asarray(d, dtype=np.float64).ravel()
    if not np.isfinite(d).all():
        i = int(np.flatnonzero(~np.isfinite(d))[0])
        raise ValueError(
            f"similarity({name}[{i}], {name}[{i}]) is {d[i]}; similarities must be finite"
        )
    return d


def _positive(d, name):
    """``d`` when every self-similarity is positive, else an error naming one."""
    bad = np.flatnonzero(~(d > 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"SpectrumRepair(normalize=True): similarity({name}[{i}], {name}[{i}]) = "
            f"{d[i]:.6g} is not positive, so it cannot divide the similarities; use "
            "normalize=False, or a similarity whose self-similarities are positive"
        )
    return d
