"""The Fisher kernel of a discrete hidden Markov model.

A generative model ``p(x | theta)`` of variable-length sequences maps each
sequence to its Fisher score ``g(x) = grad_theta log p(x | theta)``, a
fixed-length vector, and the Fisher kernel is
``k(x, y) = g(x)^T F^{-1} g(y)`` with ``F = E[g g^T]`` the Fisher
information (Jaakkola & Haussler 1998).

Parametrisation and the sum-to-one constraints
----------------------------------------------
Each probability vector of the HMM (the start distribution ``pi``, each row
``A[i]`` of the transition matrix and each row ``B[s]`` of the emission
matrix) is written as a softmax of unconstrained real parameters,
``B[s, x] = exp(theta[s, x]) / sum_y exp(theta[s, y])``, so the constraints
hold for every ``theta`` and the score is an ordinary gradient. With the
expected counts of forward-backward for one sequence,
``n[s, x] = sum_t P(s_t = s, x_t = x | x)``, ``n[s] = sum_x n[s, x]``,
``xi[i, j] = sum_t P(s_t = i, s_{t+1} = j | x)`` and
``gamma_0[s] = P(s_1 = s | x)``, the scores are

=============  =========================================  ==================
part           d log p(x) / d theta                        size
=============  =========================================  ==================
``initial``    ``gamma_0[s] - pi[s]``                      K
``transition`` ``xi[i, j] - A[i, j] * sum_j' xi[i, j']``   K * K (row-major)
``emission``   ``n[s, x] - B[s, x] * n[s]``                K * M (row-major)
=============  =========================================  ==================

The emission score is ``B[s, x]`` times Jaakkola and Haussler's
``n[s, x] / B[s, x] - n[s]`` (their gradient with respect to ``B`` itself);
the softmax form stays finite when an emission probability is zero (its
score is then exactly zero). Within each probability vector the scores sum
to zero, so the information matrix ``F`` is always singular (one null
direction per vector): it is regularised, see :class:`FisherKernel`.

References
----------
T. Jaakkola and D. Haussler, "Exploiting generative models in
discriminative classifiers", NIPS 11, 1998.

T. Jaakkola, M. Diekhans and D. Haussler, "A discriminative framework for
detecting remote protein homologies", J. Comput. Biol. 7(1-2), 2000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

if TYPE_CHECKING:
    from typing_extensions import Self

    from ..hmm import DiscreteHMM

import numpy as np

from .._validation import check_scalar
from .base import Kernel, Objects

#: The parts of the score, in the order their columns appear.
PARTS = ("initial", "transition", "emission")


def fisher_scores(
    hmm: DiscreteHMM, X: Sequence[Any], parts: Sequence[str] = ("emission",)
) -> NDArray[np.float64]:
    """Fisher scores of sequences under a fitted :class:`~structk.DiscreteHMM`.

    Parameters
    ----------
    hmm : DiscreteHMM
        A fitted model.
    X : sequence of sequences
    parts : sequence of {"initial", "transition", "emission"}
        Which parameters to differentiate; columns come in the order of
        :data:`PARTS` whatever the order given.

    Returns
    -------
    ndarray, shape (len(X), d)
        The gradient of ``log p(x)`` with respect to the softmax parameters
        (see the module docstring); ``d`` is the total size of the parts.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If ``hmm`` is not fitted.
    ValueError
        If a sequence is impossible under the model (its score is
        undefined), has a symbol outside the alphabet, or is empty.
    """
    parts = _check_parts(parts)
    _check_hmm(hmm)
    seq, offsets = hmm._encode_fitted(X)
    return _scores(hmm._jit_params(), seq, offsets, parts, "X")


def _scores(params, seq, offsets, parts, name):
    from ..algorithms.hmm import expected_counts
    from ..hmm import _raise_if_impossible

    ll, *counts = expected_counts(seq, offsets, params, True)
    _raise_if_impossible(ll, name, "the HMM", "its Fisher score is")
    return score_blocks(params, counts, parts)


def score_blocks(params, counts, parts):
    """Scores from the per-sequence expected counts ``(gamma_0, xi, n)`` of
    forward-backward (the table of the module docstring)."""
    pi, A, BT = params
    s0, s1, s2 = counts
    n = s0.shape[0]
    blocks = []
    if "initial" in parts:
        blocks.append(s0 - pi)
    if "transition" in parts:
        blocks.append((s1 - A * s1.sum(axis=2, keepdims=True)).reshape(n, -1))
    if "emission" in parts:
        E = s2.transpose(0, 2, 1)
        blocks.append((E - BT.T * E.sum(axis=2, keepdims=True)).reshape(n, -1))
    return np.ascontiguousarray(np.concatenate(blocks, axis=1))


class FisherKernel(Kernel):
    """Fisher kernel ``k(x, y) = g(x)^T F^{-1} g(y)`` of a fitted HMM.

    ``g`` are the Fisher scores of :func:`fisher_scores` (softmax
    parametrisation, see the module docstring). The kernel has an explicit
    feature map, the whitened scores ``phi(x) = W g(x)``, so a Gram matrix
    is one dense product ``Phi Phi^T``, and :meth:`features` gives ``Phi``
    to feed any linear model.

    Parameters
    ----------
    hmm : DiscreteHMM
        The generative model. It must be fitted before the kernel is used:
        the kernel never trains it (that would tie the kernel silently to
        whichever sequences it happened to see); an unfitted model raises
        ``sklearn.exceptions.NotFittedError``. ``sklearn.base.clone`` of
        the kernel keeps this model (it is an input of the kernel, not
        something the kernel learns).
    information : {"empirical", "identity"}, default "empirical"
        ``"empirical"``: ``F`` is the mean of ``g g^T`` over the sequences
        passed to :meth:`fit`, which must be called before the kernel is
        evaluated. ``"identity"``: ``F = I``, the common practical
        approximation; then ``phi = g`` and ``fit`` is optional (it copies
        the HMM's parameters; without it the kernel reads ``hmm`` at each
        evaluation).
    reg : float > 0, default 1e-3
        Ridge, relative to the scale of ``F``: the kernel inverts
        ``F + reg * (trace(F) / d) * I`` (``+ reg * I`` if ``F = 0``), so
        ``W = (F + ...)^{-1/2}``. ``F`` is singular by construction (the
        scores of each probability vector sum to zero) and also when there
        are fewer sequences than score dimensions; in null directions of
        ``F`` the scores of the training sequences vanish and the ridge
        only bounds the weight of new directions. Ignored for
        ``"identity"``. It may be changed after ``fit`` (it is applied to
        the stored ``F``).
    parts : sequence of {"initial", "transition", "emission"}, default ("emission",)
        Which parameters the scores differentiate.

    Attributes
    ----------
    params_ : tuple of ndarray
        ``(startprob, transmat, emissionprob.T)`` of ``hmm``, copied by
        :meth:`fit`. Every later evaluation uses this copy and the same
        ``F``, so ``k(X, Y)`` is consistent across calls even if ``hmm`` is
        refitted or replaced; call :meth:`fit` again to follow it.
    alphabet_ : tuple
    ignore_case_ : bool
        The model's alphabet and case rule, copied by :meth:`fit`.
    parts_ : tuple of str
        The parts the kernel was fitted with, in canonical order.
    information_ : ndarray of shape (d, d) or None
        The unregularised empirical information (None for "identity").
    n_information_ : int
        Number of sequences ``information_`` was estimated from.

    Notes
    -----
    Evaluation is a pure function of the parameters, the fitted attributes
    and the inputs: a fitted kernel pickles and deep-copies, and gives
    bit-identical matrices whatever the order of the calls and from any
    thread.

    Examples
    --------
    >>> from structk import DiscreteHMM, FisherKernel
    >>> X = ["ACGTTGCA", "AAAACCCGT", "GGGTTTAC", "ACACACGT"]
    >>> hmm = DiscreteHMM(n_states=2, random_state=0).fit(X)
    >>> k = FisherKernel(hmm).fit(X)
    >>> k(X).shape, k.features(X).shape
    ((4, 4), (4, 8))

    References
    ----------
    T. Jaakkola and D. Haussler, "Exploiting generative models in
    discriminative classifiers", NIPS 11, 1998.
    """

    has_features = True
    fixed_feature_columns = True

    def __init__(
        self,
        hmm: DiscreteHMM,
        information: str = "empirical",
        reg: float = 1e-3,
        parts: Sequence[str] = ("emission",),
    ) -> None:
        self.hmm = hmm
        self.information = information
        self.reg = reg
        self.parts = parts

    @property
    def _needs_fit(self):
        return self.information == "empirical"

    def __sklearn_clone__(self):
        from .._estimator import clone_param

        params = self.get_params(deep=False)
        params = {
            name: value if name == "hmm" else clone_param(value) for name, value in params.items()
        }
        return type(self)(**params)

    def _check_params(self):
        _check_hmm(self.hmm, fitted=False)
        if self.information not in ("empirical", "identity"):
            raise ValueError(
                f"information must be 'empirical' or 'identity', got {self.information!r}"
            )
        check_scalar(self.reg, "reg", lower=0, lower_inclusive=False)
        _check_parts(self.parts)

    def _fitted(self):
        return hasattr(self, "params_")

    def _check_fitted(self):
        from .._estimator import not_fitted_error

        if not self._fitted():
            if self.information == "empirical":
                _check_hmm(self.hmm)
                raise not_fitted_error(
                    "This FisherKernel is not fitted yet: information='empirical' "
                    "estimates the Fisher information from training sequences. "
                    "Call k.fit(sequences) first (learners do it on their "
                    "training objects)."
                )
            return
        parts = _check_parts(self.parts)
        fitted_info = "identity" if self.information_ is None else "empirical"
        if parts != self.parts_ or self.information != fitted_info:
            raise ValueError(
                f"{type(self).__name__}: parts or information changed since the "
                f"kernel was fitted (fitted with parts={self.parts_}, "
                f"information={fitted_info!r}); call fit(X) again"
            )

    # ------------------------------------------------------------- fitting
    def fit(self, X: Objects, y: Any = None) -> Self:
        """Copy the HMM's parameters and estimate ``F`` on sequences ``X``.

        Parameters
        ----------
        X : sequence of sequences
            Training sequences (for ``information="empirical"``).
        y : ignored

        Returns
        -------
        self
        """
        from ..hmm import _encode

        self._check_params()
        _check_hmm(self.hmm)
        parts = _check_parts(self.parts)
        params = tuple(p.copy() for p in self.hmm._jit_params())
        alphabet, ignore_case = self.hmm.alphabet_, bool(self.hmm.ignore_case)
        information = eigen = None
        n_information = 0
        if self.information == "empirical":
            seq, offsets = _encode(X, alphabet, "X", ignore_case)
            G = _scores(params, seq, offsets, parts, "X")
            information, eigen = empirical_information(G)
            n_information = G.shape[0]
        # assigned together, after every check passed: never half fitted
        self.params_, self.alphabet_, self.parts_ = params, alphabet, parts
        self.ignore_case_ = ignore_case
        self.information_, self.n_information_ = information, n_information
        self._eigen = eigen
        return self

    def _state(self):
        """``(params, alphabet, ignore_case, parts)`` evaluation uses: the
        fitted copy, or the live model for an unfitted identity kernel."""
        if self._fitted():
            return self.params_, self.alphabet_, self.ignore_case_, self.parts_
        _check_hmm(self.hmm)
        return (
            self.hmm._jit_params(),
            self.hmm.alphabet_,
            bool(self.hmm.ignore_case),
            _check_parts(self.parts),
        )

    def _prepare(self, X, name):
        from ..hmm import _encode

        params, alphabet, ignore_case, parts = self._state()
        seq, offsets = _encode(X, alphabet, name, ignore_case)
        return _scores(params, seq, offsets, parts, name)

    def _whitening(self):
        return whitening(self._eigen, self.reg)

    def _features(self, G):
        if self.information == "identity":
            return G
        return G @ self._whitening()


def empirical_information(G):
    """``F = G^T G / n`` of scores ``G`` and its eigenpairs with the ridge scale
    ``trace(F) / d`` (1 when ``F = 0``), as :func:`whitening` takes them."""
    information = G.T @ G / G.shape[0]
    w, V = np.linalg.eigh(information)
    scale = np.trace(information) / information.shape[0]
    return information, (np.maximum(w, 0.0), V, scale if scale > 0 else 1.0)


def whitening(eigen, reg):
    """``W = (F + reg * scale * I)^{-1/2}`` from :func:`empirical_information`'s eigenpairs."""
    w, V, scale = eigen
    return (V / np.sqrt(w + float(reg) * scale)) @ V.T


def _check_hmm(hmm, fitted=True):
    from .._estimator import check_is_fitted
    from ..hmm import DiscreteHMM

    if not isinstance(hmm, DiscreteHMM):
        raise TypeError(f"hmm must be a structk DiscreteHMM, got {type(hmm).__name__}")
    if fitted:
        check_is_fitted(
            hmm,
            "emissionprob_",
            msg="This DiscreteHMM is not fitted yet: the Fisher kernel needs a "
            "trained model. Call hmm.fit(sequences) first (the kernel never "
            "trains it).",
        )


def _check_parts(parts):
    if isinstance(parts, str):
        raise TypeError(
            f"parts must be a sequence of names, got the string {parts!r}; write ({parts!r},)"
        )
    parts = tuple(parts)
    if not parts:
        raise ValueError(f"parts must name at least one of {PARTS}")
    for p in parts:
        if p not in PARTS:
            raise ValueError(f"unknown part {p!r} in parts; choose from {PARTS}")
    if len(set(parts)) != len(parts):
        raise ValueError(f"parts {parts} names a part twice")
    return tuple(p for p in PARTS if p in parts)
