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

__version__ = "0.1.0"

_kernels = [
    "Kernel", "Constant", "Exp", "FunctionScaled", "Normalize", "Power", "Product",
    "Scaled", "Sum", "FunctionKernel", "Gaussian", "Laplace", "Linear", "Polynomial",
    "ExpIntersection", "Intersection", "Jaccard", "Mismatch", "Spectrum", "WeightedDegree",
    "FisherKernel", "RandomWalk", "WeisfeilerLehman",
]

_learners = [
    "KernelCenterer", "KernelLogisticRegression", "KernelPerceptron", "KernelRidge",
    "KernelRidgeCV", "KernelSVM", "NearestClassMean",
]

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".kernels": _kernels,
        ".psd": ["PSDReport", "assert_psd", "check_psd"],
        ".exceptions": ["KernelOverflowError", "NotPSDError"],
        ".learners": _learners,
        ".feature_space": ["distance_to_barycentre", "feature_distance", "rkhs_norm"],
        ".hmm": ["DiscreteHMM"],
        ".blockwise": ["gram"],
        ".nystroem": ["Nystroem"],
        ".distributed": ["dask_gram"],
    },
)
__all__ = __all__ + ["__version__"]


def __dir__():  # noqa: F811 - include the submodules
    return sorted(set(__all__) | {"kernels", "learners", "testing", "datasets", "sequences"})
