"""Why did the model say that: contributions, feature weights, mutagenesis.

For a fitted structk learner (``KernelSVM``, ``KernelRidge``,
``KernelRidgeCV``, ``KernelLogisticRegression``, ``KernelPerceptron``)
whose kernel is built from kernels with explicit features (``Spectrum``,
``Mismatch``, ``GappyPair``, ``WeightedDegree``, ``GappedKmer``,
``WeisfeilerLehman``, its optimal assignment, ``ShortestPath``, and their
sums, multiples and normalisations; exponentials, products and powers of
those by integrated gradients):

>>> from structk.explain import Explainer
>>> ex = Explainer(svm)  # doctest: +SKIP
>>> ex.feature_weights(top=10)  # [("TGACTCA", 0.83), ...]  # doctest: +SKIP
>>> e = ex.contributions(["ACGT..."])[0]  # e.bias + e.scores.sum() == f(x)  # doctest: +SKIP
>>> delta = ex.ism("ACGT...")  # (L, 4): f(mutant) - f(x)  # doctest: +SKIP

:func:`ism` works for every sequence model: exactly and incrementally when
the kernel has explicit features, by recomputing the decision function on
each mutant otherwise. :func:`score_variants` scores reference/alternative
alleles (deltaSVM). Pictures are in :mod:`structk.explain.plots`.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".explainer": ["Explainer", "Explanation"],
        "._tree": ["NoExplicitFeaturesError"],
        ".api": ["contributions", "feature_weights", "hypothetical_contributions", "ism"],
        ".variants": ["score_variants", "read_variants"],
    },
)
