"""Kernels: the common interface, the algebra, and each family in its module.

=================  ========================================================
module             kernels
=================  ========================================================
``base``           :class:`Kernel`, the interface
``algebra``        Sum, Product, Scaled, Constant, Power, Exp, Normalize,
                   FunctionScaled
``function``       :class:`FunctionKernel` (a kernel from a Python function)
``vectors``        Linear, Polynomial, Gaussian, Laplace
``sets``           Intersection, ExpIntersection, Jaccard
``strings``        Spectrum, Mismatch, WeightedDegree
``fisher``         :class:`FisherKernel` of a ``DiscreteHMM``, and the
                   raw :func:`fisher_scores`
``graphs``         RandomWalk, WeisfeilerLehman
=================  ========================================================

Names are imported lazily, so ``import structk.kernels`` stays cheap.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".base": ["Kernel"],
        ".algebra": [
            "Constant", "Exp", "FunctionScaled", "Normalize", "Power", "Product",
            "Scaled", "Sum",
        ],
        ".function": ["FunctionKernel"],
        ".vectors": ["Gaussian", "Laplace", "Linear", "Polynomial"],
        ".sets": ["ExpIntersection", "Intersection", "Jaccard"],
        ".strings": ["Mismatch", "Spectrum", "WeightedDegree"],
        ".fisher": ["FisherKernel", "fisher_scores"],
        ".graphs": ["RandomWalk", "WeisfeilerLehman"],
    },
)
