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

import numpy as np

from .._validation import check_objects
from .base import Kernel


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

    def __init__(self, similarity, landmarks):
        self.similarity = similarity
        self.landmarks = landmarks
        self._check_params()

    def _check_params(self):
        if not callable(self.similarity):
            raise TypeError(
                "similarity must be a structk Kernel or a function "
                f"similarity(X, Z) -> matrix, got {type(self.similarity).__name__}"
            )
        check_objects(self.landmarks, "landmarks")

    def __repr__(self):
        sim = self.similarity
        name = repr(sim) if isinstance(sim, Kernel) else getattr(sim, "__qualname__", repr(sim))
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
                f"similarity({name}[{i}], landmarks[{j}]) is {F[i, j]}; similarities "
                "must be finite"
            )
        return F

    def _features(self, P):
        return P
