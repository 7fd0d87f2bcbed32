"""structk: kernels for structured data and the kernelized learners that use them.

A kernel turns a list of objects (vectors, sets, strings, graphs) into a Gram
matrix; a learner turns a Gram matrix into a predictor.

>>> import numpy as np
>>> import structk
>>> k = structk.Normalize(structk.Polynomial(degree=2) + structk.Gaussian(sigma=1.0))
>>> K = k(np.random.default_rng(0).normal(size=(5, 3)))
>>> structk.check_psd(K).is_psd
True

Public names are loaded on first use (``import structk`` imports only numpy
and compiles nothing).
"""

from ._lazy import attach

__version__ = "0.8.0"

_kernels = [
    "Kernel",
    "Constant",
    "Exp",
    "FunctionScaled",
    "Normalize",
    "Part",
    "Power",
    "Product",
    "Scaled",
    "Sum",
    "FunctionKernel",
    "Gaussian",
    "Laplace",
    "Linear",
    "Polynomial",
    "ExpIntersection",
    "Intersection",
    "Jaccard",
    "MinMax",
    "GappyPair",
    "Mismatch",
    "Spectrum",
    "WeightedDegree",
    "LocalAlignment",
    "EmpiricalKernelMap",
    "FisherKernel",
    "ClassConditionalFisherKernel",
    "GraphHopper",
    "RandomWalk",
    "ShortestPath",
    "WeisfeilerLehman",
    "WeisfeilerLehmanOptimalAssignment",
]

#: Reachable as attributes after a plain ``import structk`` (imported on first use).
_subpackages = [
    "datasets",
    "feature_space",
    "hmm",
    "kernels",
    "learners",
    "model_file",
    "optimize",
    "psd",
    "scale",
    "sequences",
    "stats",
    "testing",
]

_learners = [
    "KernelCCA",
    "KernelCenterer",
    "KernelLogisticRegression",
    "KernelPCA",
    "KernelPerceptron",
    "KernelRidge",
    "KernelRidgeCV",
    "KernelSVM",
    "NearestClassMean",
]

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".kernels": _kernels,
        ".psd": ["PSDReport", "assert_psd", "check_psd", "nearest_psd"],
        ".exceptions": ["KernelOverflowError", "ModelFileError", "NotPSDError"],
        ".model_file": ["load", "load_metadata", "save"],
        ".learners": _learners,
        ".feature_space": ["distance_to_barycentre", "feature_distance", "rkhs_norm"],
        ".hmm": ["DiscreteHMM"],
        ".scale.blockwise": ["gram"],
        ".scale.nystroem": ["Nystroem"],
        ".scale.distributed": ["dask_gram"],
    },
    subpackages=_subpackages,
)
__all__ = __all__ + ["__version__"]
