"""One-call forms of :class:`~structk.explain.explainer.Explainer`, and
in-silico mutagenesis for every sequence model."""

from __future__ import annotations

import numpy as np

from ._tree import NoExplicitFeaturesError
from .explainer import Explainer


def feature_weights(model, top=20, output=None):
    """The ``top`` most positive and most negative features of ``model``,
    as ``(name, weight)`` pairs (see :meth:`Explainer.feature_weights`)."""
    return Explainer(model, output).feature_weights(top)


def contributions(model, X, output=None):
    """Per-position / per-node contributions of each object of ``X``
    (a list of :class:`~structk.explain.explainer.Explanation`)."""
    return Explainer(model, output).contributions(X)


def hypothetical_contributions(model, sequence, output=None):
    """``(L, A)`` hypothetical contributions of one sequence (GkmExplain)."""
    return Explainer(model, output).hypothetical(sequence)


def ism(model, sequence, output=None, alphabet=None):
    """In-silico mutagenesis: ``f(mutant) - f(sequence)`` for every
    single-symbol substitution, shape ``(L, A)`` (columns in the order of
    the alphabet; 0 at the sequence's own symbols).

    Incremental and exact for kernels with explicit features (only the
    features covering the substituted position are recomputed, see
    :meth:`Explainer.ism`); for any other sequence kernel (local
    alignment, Fisher, ``Exp`` of a string kernel, ...) the decision
    function is evaluated on the ``L (A - 1)`` mutants, over ``alphabet``
    (by default the kernel's, else the symbols of the training objects).
    """
    try:
        explainer = Explainer(model, output)
    except (NoExplicitFeaturesError, NotImplementedError):
        return _ism_by_prediction(model, sequence, output, alphabet)
    return explainer.ism(sequence)


def _ism_by_prediction(model, sequence, output, alphabet):
    from ._model import readout

    ro = readout(model)
    ro.row(output)  # checks output
    symbols = ism_symbols(model, alphabet)
    seq = [str(s) for s in sequence]
    L, A = len(seq), len(symbols)
    mutants, where = [], []
    for p in range(L):
        for a, s in enumerate(symbols):
            if seq[p].upper() != s.upper():
                mutants.append("".join(seq[:p]) + s + "".join(seq[p + 1 :]))
                where.append((p, a))
    values = _decision(model, ["".join(seq)] + mutants, output)
    delta = np.zeros((L, A))
    for (p, a), v in zip(where, values[1:]):
        delta[p, a] = v - values[0]
    return delta


def ism_symbols(model, alphabet=None):
    """The symbols of the columns of :func:`ism`: ``alphabet``, else the
    kernel's, else those of the training objects."""
    from ..alphabets import resolve_alphabet
    from ._model import readout

    ro = readout(model)
    alphabet = alphabet if alphabet is not None else _find_alphabet(ro.kernel)
    if alphabet is None:  # the symbols the model was trained on
        alphabet = sorted({str(c).upper() for s in ro.objects for c in s})
    return [str(s) for s in resolve_alphabet(alphabet)]


def _decision(model, X, output):
    D = np.asarray(
        model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X),
        dtype=np.float64,
    )
    if D.ndim == 1:
        return D
    return D[:, 0 if output is None else int(output)]


def _find_alphabet(kernel):
    if hasattr(kernel, "alphabet"):
        return kernel.alphabet
    for name in ("kernel", "k1", "k2"):
        part = getattr(kernel, name, None)
        if part is not None and not isinstance(part, str):
            found = _find_alphabet(part)
            if found is not None:
                return found
    return None
