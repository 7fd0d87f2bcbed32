"""Kernels: the common interface, the algebra, and each family in its module.

=================  ========================================================
module             kernels
=================  ========================================================
``base``           :class:`Kernel`, the interface, and
                   :func:`aligned_features` (two collections' features on
                   shared columns)
``algebra``        Sum, Product, Scaled, Constant, Power, Exp, Normalize,
                   FunctionScaled, Part (a kernel on one part of each object)
``function``       :class:`FunctionKernel` (a kernel from a Python function)
``vectors``        Linear, Polynomial, Gaussian, Laplace
``sets``           Intersection, ExpIntersection, Jaccard, MinMax
``strings``        Spectrum, Mismatch, GappyPair, WeightedDegree
``gapped_kmer``    GappedKmer (gkm-SVM / LS-GKM kernels on DNA)
``alignment``      LocalAlignment (and the similarity
                   :func:`~structk.kernels.alignment.smith_waterman`)
``empirical``      EmpiricalKernelMap, SpectrumRepair (valid kernels from any
                   similarity)
``precomputed``    Precomputed (similarities looked up in a stored matrix)
``fisher``         :class:`FisherKernel` of a ``DiscreteHMM``, and the
                   raw :func:`fisher_scores`
``class_fisher``   :class:`ClassConditionalFisherKernel` of per-class HMMs
``graphs``         RandomWalk, ShortestPath, WeisfeilerLehman,
                   WeisfeilerLehmanOptimalAssignment, GraphHopper
=================  ========================================================

Names are imported lazily, so ``import structk.kernels`` stays cheap.
"""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".base": ["Kernel", "aligned_features"],
        ".algebra": [
            "Constant",
            "Exp",
            "FunctionScaled",
            "Normalize",
            "Part",
            "Power",
            "Product",
            "Scaled",
            "Sum",
        ],
        ".function": ["FunctionKernel"],
        ".vectors": ["Gaussian", "Laplace", "Linear", "Polynomial"],
        ".sets": ["ExpIntersection", "Intersection", "Jaccard", "MinMax"],
        ".strings": ["GappyPair", "Mismatch", "Spectrum", "WeightedDegree"],
        ".gapped_kmer": ["GappedKmer"],
        ".alignment": ["LocalAlignment", "smith_waterman"],
        ".empirical": ["EmpiricalKernelMap", "SpectrumRepair"],
        ".precomputed": ["Precomputed"],
        ".fisher": ["FisherKernel", "fisher_scores"],
        ".class_fisher": ["ClassConditionalFisherKernel"],
        ".graphs": [
            "GraphHopper",
            "RandomWalk",
            "ShortestPath",
            "WeisfeilerLehman",
            "WeisfeilerLehmanOptimalAssignment",
        ],
    },
)
