"""Kernelized learners that take any structk kernel or a precomputed Gram matrix.

=================  ==========================================================
module             learners
=================  ==========================================================
``perceptron``     :class:`KernelPerceptron`
``ridge``          :class:`KernelRidge`, :class:`KernelRidgeCV`
``svm``            :class:`KernelSVM` (SMO, second-order working sets)
``logistic``       :class:`KernelLogisticRegression`
``centering``      :class:`KernelCenterer`
``class_means``    :class:`NearestClassMean`
``pca``            :class:`KernelPCA`
``cca``            :class:`KernelCCA` (two views)
``gaussian_process`` :class:`GaussianProcessRegressor` (hyperparameters by
                   the marginal likelihood)
``gaussian_process_classifier`` :class:`GaussianProcessClassifier` (Laplace)
``sparse_gaussian_process`` :class:`SparseGaussianProcessRegressor` (on
                   landmarks, Titsias' variational bound)
=================  ==========================================================

All follow scikit-learn's estimator contract: ``kernel=`` a structk kernel
(``fit(X, y)`` on any objects it accepts, e.g. lists of strings) or
``kernel="precomputed"`` (``fit(K, y)``, ``predict(K_test)`` with ``K_test``
of shape ``(n_test, n_train)``). Names are imported lazily.
"""

from .._lazy import attach

#: module (relative) -> the learners it defines; read by the model files'
#: allow-list, which imports a learner's module only for a file that names it
_MODULES = {
    ".perceptron": ["KernelPerceptron"],
    ".ridge": ["KernelRidge", "KernelRidgeCV"],
    ".svm": ["KernelSVM"],
    ".logistic": ["KernelLogisticRegression"],
    ".centering": ["KernelCenterer"],
    ".class_means": ["NearestClassMean"],
    ".pca": ["KernelPCA"],
    ".cca": ["KernelCCA"],
    ".gaussian_process": ["GaussianProcessRegressor"],
    ".gaussian_process_classifier": ["GaussianProcessClassifier"],
    ".sparse_gaussian_process": ["SparseGaussianProcessRegressor"],
}

__getattr__, __dir__, __all__ = attach(__name__, _MODULES)
