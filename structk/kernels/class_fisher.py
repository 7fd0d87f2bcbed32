"""The Fisher kernel of a class-conditional mixture of HMMs.

With one :class:`~structk.DiscreteHMM` per class and class priors ``pi``, the
marginal model of a sequence is the mixture

    p(x) = sum_k pi_k p(x | y = k; theta_k),

and its Fisher score differentiates ``log p(x)`` with respect to every
parameter. Writing ``r_k(x) = p(y = k | x) = pi_k p(x | k) / p(x)`` for the
posterior of class ``k``:

* the parameters ``theta_k`` of class ``k``'s HMM (softmax parametrisation
  of :mod:`structk.kernels.fisher`) have score ``r_k(x) g_k(x)``, where
  ``g_k`` is the single-HMM Fisher score under class ``k``'s model: each
  class's score is weighted by how much that class explains ``x``;
* the priors, written ``pi = softmax(eta)``, have score
  ``d log p(x) / d eta_k = r_k(x) - pi_k``.

So the score holds the posterior class probabilities themselves (shifted by
a constant): a linear classifier on these features can implement the Bayes
rule of the generative model, and the HMM parts let it do better where the
generative model is wrong (Jaakkola & Haussler 1998, section 4).

A sequence impossible under one class's model has ``r_k = 0`` there, and
that class's score block is 0; a sequence impossible under every class is
an error.

References
----------
T. Jaakkola and D. Haussler, "Exploiting generative models in
discriminative classifiers", NIPS 11, 1998.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from typing_extensions import Self

    from ..hmm import DiscreteHMM

import numpy as np

from .._validation import check_objects, check_scalar
from .base import Kernel, Objects
from .fisher import (
    _check_hmm,
    _check_parts,
    empirical_information,
    score_blocks,
    whitening,
)


class ClassConditionalFisherKernel(Kernel):
    """Fisher kernel of the mixture ``sum_k pi_k p(x | y = k)`` of per-class HMMs.

    Features are the Fisher scores (see the module docstring)
    ``[r(x) - pi, r_1(x) g_1(x), ..., r_K(x) g_K(x)]`` of length
    ``K + sum_k d_k``, whitened by the empirical Fisher information as in
    :class:`~structk.kernels.fisher.FisherKernel`.

    Parameters
    ----------
    hmms : sequence of DiscreteHMM
        One fitted model per class, all on the same alphabet. The kernel
        never trains them; :meth:`from_labelled` fits one per class.
        ``sklearn.base.clone`` keeps these models.
    priors : array_like (n_classes,) or None, default=None
        Class probabilities ``pi`` (positive, summing to 1); ``None`` for
        uniform.
    information : {"empirical", "identity"}, default="empirical"
        As :class:`~structk.kernels.fisher.FisherKernel`: ``"empirical"``
        whitens by ``F = mean g g^T`` over the sequences passed to
        :meth:`fit`; ``"identity"`` uses the raw scores (``fit`` optional).
    reg : float > 0, default=1e-3
        Ridge relative to ``trace(F) / d``, as ``FisherKernel``.
    parts : sequence of {"initial", "transition", "emission"}, default=("emission",)
        Which HMM parameters to differentiate (the prior scores are always
        included).

    Attributes
    ----------
    params_ : list of tuple
        Each class's HMM parameters, copied by :meth:`fit`.
    priors_ : ndarray (n_classes,)
    alphabet_ : tuple
    parts_ : tuple of str
    information_ : ndarray (d, d) or None
    n_information_ : int

    Examples
    --------
    >>> from structk.kernels import ClassConditionalFisherKernel
    >>> X = ["AAAAACAAAA", "AAACAAAAAA", "ACGTACGTAC", "CGTACGTTGA"]
    >>> from structk import DiscreteHMM
    >>> k = ClassConditionalFisherKernel.from_labelled(
    ...     X, [0, 0, 1, 1], hmm=DiscreteHMM(n_states=2, n_iter=300, random_state=0))
    >>> k.fit(X).features(X).shape
    (4, 18)

    References
    ----------
    T. Jaakkola and D. Haussler, "Exploiting generative models in
    discriminative classifiers", NIPS 11, 1998.
    """

    has_features = True
    fixed_feature_columns = True

    def __init__(
        self,
        hmms: Sequence[DiscreteHMM],
        priors: ArrayLike | None = None,
        information: str = "empirical",
        reg: float = 1e-3,
        parts: Sequence[str] = ("emission",),
    ) -> None:
        self.hmms = hmms
        self.priors = priors
        self.information = information
        self.reg = reg
        self.parts = parts

    @classmethod
    def from_labelled(
        cls, X: Objects, y: ArrayLike, hmm: DiscreteHMM | None = None, **kwargs: Any
    ) -> ClassConditionalFisherKernel:
        """Fit a copy of ``hmm`` to the sequences of each class of ``y``, with
        priors the class frequencies.

        Parameters
        ----------
        X : sequence of sequences
        y : array_like (len(X),)
            Class labels; classes are taken in sorted order (as
            :func:`numpy.unique`), which is the order of ``hmms``.
        hmm : DiscreteHMM, optional
            Unfitted template (number of states, alphabet, restarts, seed),
            cloned for each class; default ``DiscreteHMM()``.
        **kwargs
            Parameters of the kernel (``information``, ``reg``, ``parts``).

        Returns
        -------
        ClassConditionalFisherKernel
            Not yet fitted (call :meth:`fit` for the empirical information).
        """
        from .._estimator import clone
        from ..hmm import DiscreteHMM
        from ..learners._base import encode_labels

        template = DiscreteHMM() if hmm is None else hmm
        if not isinstance(template, DiscreteHMM):
            raise TypeError(f"hmm must be a structk DiscreteHMM, got {type(template).__name__}")
        X = check_objects(X, "X")
        classes, codes = encode_labels(y, len(X))
        hmms = [
            clone(template).fit([X[i] for i in np.flatnonzero(codes == c)])
            for c in range(len(classes))
        ]
        priors = np.bincount(codes, minlength=len(classes)) / len(codes)
        return cls(hmms, priors=priors, **kwargs)

    @property
    def _needs_fit(self):
        return self.information == "empirical"

    def __sklearn_clone__(self):
        return type(self)(**self.get_params(deep=False))

    def _check_params(self):
        self._check_models()
        if self.information not in ("empirical", "identity"):
            raise ValueError(
                f"information must be 'empirical' or 'identity', got {self.information!r}"
            )
        check_scalar(self.reg, "reg", lower=0, lower_inclusive=False)
        _check_parts(self.parts)

    def _check_models(self):
        """The models (fitted, one alphabet) and the priors as an array."""
        hmms = self.hmms
        if isinstance(hmms, (str, bytes)) or not hasattr(hmms, "__len__"):
            raise TypeError("hmms must be a sequence of DiscreteHMM, one per class")
        if len(hmms) < 2:
            raise ValueError(f"hmms must hold at least 2 models (one per class), got {len(hmms)}")
        for i, hmm in enumerate(hmms):
            try:
                _check_hmm(hmm)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"hmms[{i}]: {exc}") from None
            if tuple(hmm.alphabet_) != tuple(hmms[0].alphabet_):
                raise ValueError(
                    f"hmms[{i}] has alphabet {hmm.alphabet_} but hmms[0] has "
                    f"{hmms[0].alphabet_}; all classes must share one alphabet"
                )
        if self.priors is None:
            return np.full(len(hmms), 1.0 / len(hmms))
        priors = np.asarray(self.priors, dtype=np.float64)
        if priors.shape != (len(hmms),):
            raise ValueError(
                f"priors must have one entry per model ({len(hmms)}), got shape {priors.shape}"
            )
        if not (np.isfinite(priors).all() and (priors > 0).all()):
            i = int(np.flatnonzero(~(np.isfinite(priors) & (priors > 0)))[0])
            raise ValueError(f"priors[{i}] is {priors[i]}; priors must be positive")
        if abs(priors.sum() - 1.0) > 1e-6:
            raise ValueError(f"priors must sum to 1, got {priors.sum()}")
        return priors / priors.sum()

    def _fitted(self):
        return hasattr(self, "params_")

    def _check_fitted(self):
        from .._estimator import not_fitted_error

        if not self._fitted():
            if self.information == "empirical":
                raise not_fitted_error(
                    "This ClassConditionalFisherKernel is not fitted yet: "
                    "information='empirical' estimates the Fisher information from "
                    "training sequences. Call k.fit(sequences) first (learners do "
                    "it on their training objects)."
                )
            return
        fitted_info = "identity" if self.information_ is None else "empirical"
        if _check_parts(self.parts) != self.parts_ or self.information != fitted_info:
            raise ValueError(
                f"{type(self).__name__}: parts or information changed since the "
                f"kernel was fitted (fitted with parts={self.parts_}, "
                f"information={fitted_info!r}); call fit(X) again"
            )

    # ------------------------------------------------------------ fitting
    def fit(self, X: Objects, y: Any = None) -> Self:
        """Copy the models and priors and estimate ``F`` on sequences ``X``."""
        self._check_params()
        priors = self._check_models()
        params = [tuple(p.copy() for p in hmm._jit_params()) for hmm in self.hmms]
        alphabet, parts = tuple(self.hmms[0].alphabet_), _check_parts(self.parts)
        information = eigen = None
        n_information = 0
        if self.information == "empirical":
            G = mixture_scores(params, priors, alphabet, parts, X, "X")
            information, eigen = empirical_information(G)
            n_information = G.shape[0]
        self.params_, self.priors_ = params, priors
        self.alphabet_, self.parts_ = alphabet, parts
        self.information_, self.n_information_ = information, n_information
        self._eigen = eigen
        return self

    def _state(self):
        if self._fitted():
            return self.params_, self.priors_, self.alphabet_, self.parts_
        priors = self._check_models()
        return (
            [hmm._jit_params() for hmm in self.hmms],
            priors,
            tuple(self.hmms[0].alphabet_),
            _check_parts(self.parts),
        )

    def _prepare(self, X, name):
        return mixture_scores(*self._state(), X, name)

    def _features(self, G):
        if self.information == "identity":
            return G
        return G @ whitening(self._eigen, self.reg)

    def posteriors(self, X: Sequence[Any]) -> NDArray[np.float64]:
        """``p(y = k | x)`` of each sequence under the mixture, shape (len(X), n_classes)."""
        params, priors, alphabet, _ = self._state()
        return _posteriors(params, priors, alphabet, X, "X")


def mixture_scores(params, priors, alphabet, parts, X, name):
    """Fisher scores ``[r - pi, r_1 g_1, ..., r_K g_K]`` of sequences ``X``."""
    from ..algorithms.hmm import expected_counts
    from ..hmm import _encode

    seq, offsets = _encode(X, alphabet, name)
    per_class = [expected_counts(seq, offsets, p, True) for p in params]
    r = _bayes(np.column_stack([c[0] for c in per_class]), priors, name)
    blocks = [r - priors]
    for k, (p, (_, *counts)) in enumerate(zip(params, per_class)):
        weight = r[:, k : k + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            g = score_blocks(p, counts, parts)
        # impossible under this class (r_k = 0): its counts are undefined, its block 0
        blocks.append(np.where(weight > 0, weight * g, 0.0))
    return np.ascontiguousarray(np.concatenate(blocks, axis=1))


def _posteriors(params, priors, alphabet, X, name):
    from ..algorithms.hmm import loglik
    from ..hmm import _encode

    seq, offsets = _encode(X, alphabet, name)
    ll = np.column_stack([loglik(seq, offsets, *p) for p in params])
    return _bayes(ll, priors, name)


def _bayes(ll, priors, name):
    """Class posteriors from per-class log-likelihoods ``ll`` (n, K), in log space."""
    joint = ll + np.log(priors)
    top = joint.max(axis=1, keepdims=True)
    bad = np.flatnonzero(top[:, 0] == -np.inf)
    if bad.size:
        raise ValueError(
            f"{name}[{bad[0]}] has probability zero under every class's HMM "
            f"({bad.size} such sequence(s)); its Fisher score is undefined"
        )
    r = np.exp(joint - top)
    return r / r.sum(axis=1, keepdims=True)
