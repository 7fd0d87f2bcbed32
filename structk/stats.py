"""Kernel statistics: two-sample and independence tests, kernel-target alignment.

A characteristic kernel embeds a distribution ``P`` as its mean element
``mu_P = E phi(x)``; distances and covariances of these embeddings become
test statistics that need nothing but kernel values, so they work on
strings, sets and graphs as well as on vectors.

* :func:`mmd_test`: are two samples drawn from the same distribution?
  (unbiased MMD², permutation p-value)
* :func:`hsic_test`: are two paired views independent? (HSIC, permutation
  p-value)
* :func:`alignment`: how well does a Gram matrix match the labels?
  (centred kernel-target alignment, optional permutation p-value)

Each takes a structk kernel and objects, or (as the learners do)
``"precomputed"`` and Gram matrices, and returns a
:class:`KernelTestResult`. The permutation p-value
``(1 + #{T_perm >= T}) / (1 + n_permutations)`` is exact for any sample
size: under the null hypothesis the observed statistic is exchangeable with
the permuted ones, so the test rejects at level ``alpha`` with probability
at most ``alpha``.

A kernel that must learn from data (an unfitted
:class:`~structk.kernels.fisher.FisherKernel`) is fitted on the pooled
objects, which the permutations leave unchanged, so the test stays exact.

References
----------
A. Gretton, K. M. Borgwardt, M. J. Rasch, B. Schölkopf and A. Smola, "A
kernel two-sample test", Journal of Machine Learning Research 13 (2012)
723-773.
A. Gretton, O. Bousquet, A. Smola and B. Schölkopf, "Measuring statistical
dependence with Hilbert-Schmidt norms", ALT (2005).
A. Gretton, K. Fukumizu, C. H. Teo, L. Song, B. Schölkopf and A. Smola, "A
kernel statistical test of independence", NIPS (2008).
C. Cortes, M. Mohri and A. Rostamizadeh, "Algorithms for learning kernels
based on centered alignment", Journal of Machine Learning Research 13
(2012) 795-828.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _tuning
from ._validation import check_objects, check_scalar, fitted_kernel


@dataclass(frozen=True)
class KernelTestResult:
    """Outcome of a kernel test.

    Attributes
    ----------
    statistic : float
        The test statistic on the data as given.
    pvalue : float or None
        Permutation p-value, ``(1 + #{T_perm >= statistic}) / (1 +
        n_permutations)``; ``None`` when no permutations were run.
    n_permutations : int
    null_distribution : ndarray (n_permutations,)
        The statistic on each permutation.
    """

    statistic: float
    pvalue: float | None
    n_permutations: int
    null_distribution: np.ndarray = field(repr=False)


def mmd_test(kernel, X, Y, n_permutations=1000, random_state=None):
    r"""Kernel two-sample test: unbiased MMD² and its permutation p-value.

    The squared maximum mean discrepancy is the squared RKHS distance of the
    two mean embeddings, ``||mu_P - mu_Q||^2 = E k(x,x') + E k(y,y') -
    2 E k(x,y)``; its unbiased estimate from ``m`` objects ``X`` and ``n``
    objects ``Y`` leaves out the diagonal terms:

    ``MMD²_u = sum_{i != j} k(x_i,x_j) / (m(m-1)) + sum_{i != j} k(y_i,y_j) /
    (n(n-1)) - 2 sum_{i,j} k(x_i,y_j) / (mn)``.

    It can be negative when the distributions are equal. The p-value comes
    from re-splitting the pooled objects at random into groups of sizes
    ``m`` and ``n``; the pooled Gram is computed once.

    Parameters
    ----------
    kernel : Kernel or "precomputed"
        Any structk kernel accepting the objects; characteristic kernels
        (Gaussian, Laplace) detect any difference of distributions, others
        the differences their features see (for a spectrum kernel, of
        expected k-mer counts). With ``"precomputed"``, as for the
        learners' ``fit(K, y)``: ``X`` is the Gram matrix of the pooled
        objects and ``Y`` says which sample each row belongs to.
    X, Y : sequences of objects, or a Gram matrix and sample labels
        The two samples (at least 2 objects each). With
        ``kernel="precomputed"``: ``X`` the ``(m+n) x (m+n)`` Gram matrix
        of the pooled objects, ``Y`` an array of ``m+n`` labels with two
        distinct values; the rows with the first value (in sorted order)
        are the first sample. ``mmd_test(k, A, B)`` equals
        ``mmd_test("precomputed", k(A + B), [0] * len(A) + [1] * len(B))``,
        permutations included, for the same ``random_state``.
    n_permutations : int, default=1000
        Number of random re-splittings (0: no p-value).
    random_state : int, numpy Generator or None

    Returns
    -------
    KernelTestResult

    Examples
    --------
    >>> import numpy as np
    >>> from structk import Gaussian
    >>> from structk.stats import mmd_test
    >>> rng = np.random.default_rng(0)
    >>> res = mmd_test(Gaussian(sigma=1.0), rng.normal(size=(50, 2)),
    ...                rng.normal(loc=1.0, size=(50, 2)), random_state=0)
    >>> res.pvalue < 0.01
    True

    With the Gram matrix of the pooled objects:

    >>> X, Y = rng.normal(size=(20, 2)), rng.normal(loc=1.0, size=(30, 2))
    >>> K = Gaussian(sigma=1.0)(np.concatenate([X, Y]))
    >>> pre = mmd_test("precomputed", K, [0] * 20 + [1] * 30, random_state=0)
    >>> pre.pvalue == mmd_test(Gaussian(sigma=1.0), X, Y, random_state=0).pvalue
    True
    """
    if _is_precomputed(kernel):
        K, first, names = _precomputed_split(X, Y)
        m = int(first.sum())
        n = len(first) - m
    else:
        X = check_objects(X, "X")
        Y = check_objects(Y, "Y")
        m, n = len(X), len(Y)
        names = ("X", "Y")
    for name, size in zip(names, (m, n)):
        if size < 2:
            raise ValueError(f"{name} has {size} object(s); the unbiased MMD needs at least 2")
    P = _check_permutations(n_permutations)
    if not _is_precomputed(kernel):
        K = _pooled_gram(kernel, X, Y)
        first = np.zeros(m + n)
        first[:m] = 1.0
    N = m + n
    d = np.diag(K)
    row = K.sum(axis=1)
    total = row.sum()
    stat = float(_mmd_from_indicators(K, d, row, total, first[:, None], m, n)[0])
    rng = np.random.default_rng(random_state)
    null = np.empty(P)
    block = max(1, _tuning.MMD_BLOCK_ENTRIES // N)
    for start in range(0, P, block):
        b = min(block, P - start)
        A = np.zeros((N, b))
        for j in range(b):
            A[rng.permutation(N)[:m], j] = 1.0
        null[start : start + b] = _mmd_from_indicators(K, d, row, total, A, m, n)
    return _result(stat, null, np.abs(K).max())


def _mmd_from_indicators(K, d, row, total, A, m, n):
    """Unbiased MMD² of the splits whose first group is marked by each column of ``A``."""
    KA = K @ A
    s_xx = np.einsum("ij,ij->j", A, KA) - d @ A  # sum over i != j in the first group
    s_x_all = row @ A  # sum over (i in first, j anywhere)
    s_xy = s_x_all - np.einsum("ij,ij->j", A, KA)
    s_yy = total - 2.0 * s_x_all + np.einsum("ij,ij->j", A, KA) - (d.sum() - d @ A)
    return s_xx / (m * (m - 1)) + s_yy / (n * (n - 1)) - 2.0 * s_xy / (m * n)


def hsic_test(kernel_x, kernel_y, X, Y, n_permutations=1000, random_state=None):
    r"""Kernel independence test: HSIC of paired objects and its permutation p-value.

    The Hilbert-Schmidt independence criterion is the squared
    Hilbert-Schmidt norm of the cross-covariance operator of the two
    feature maps; with characteristic kernels it is zero exactly when the
    views are independent. Its (biased) empirical estimate from ``n`` pairs
    ``(x_i, y_i)`` is

    ``HSIC = tr(K H L H) / n^2``,  ``H = I - 11^T / n``,

    with ``K``, ``L`` the Gram matrices of the two views. The p-value comes
    from re-pairing the ``y_i`` with the ``x_i`` at random.

    Parameters
    ----------
    kernel_x, kernel_y : Kernel or "precomputed"
        A kernel for each view (they may differ, and the views may be
        different kinds of objects: strings and vectors, graphs and sets).
        ``"precomputed"`` (either or both, as in
        :class:`~structk.learners.KernelCCA`) means the view is given as
        its ``n x n`` Gram matrix.
    X, Y : sequences of objects, or Gram matrices
        Paired: ``Y[i]`` belongs with ``X[i]`` (at least 2 pairs). For a
        ``"precomputed"`` view, its Gram matrix ``K`` (``X``) or ``L``
        (``Y``); the result equals the kernel path's, permutations
        included, for the same ``random_state``.
    n_permutations : int, default=1000
        Number of random re-pairings (0: no p-value).
    random_state : int, numpy Generator or None

    Returns
    -------
    KernelTestResult

    Examples
    --------
    >>> import numpy as np
    >>> from structk import Gaussian
    >>> from structk.stats import hsic_test
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(60, 1))
    >>> res = hsic_test(Gaussian(sigma=1.0), Gaussian(sigma=1.0), x, x**2, random_state=0)
    >>> res.pvalue < 0.01
    True
    >>> K, L = Gaussian(sigma=1.0)(x), Gaussian(sigma=1.0)(x**2)
    >>> hsic_test("precomputed", "precomputed", K, L, random_state=0).pvalue == res.pvalue
    True
    """
    X = _view(kernel_x, X, "X", "kernel_x")
    Y = _view(kernel_y, Y, "Y", "kernel_y")
    if len(X) != len(Y):
        raise ValueError(
            f"{_size(kernel_x, X, 'X')} but {_size(kernel_y, Y, 'Y')}; hsic_test needs "
            "pairs (X[i], Y[i])"
        )
    if len(X) < 2:
        raise ValueError("hsic_test needs at least 2 pairs")
    P = _check_permutations(n_permutations)
    Kc = _centre(X if _is_precomputed(kernel_x) else _gram(kernel_x, X, "kernel_x"))
    Lc = _centre(Y if _is_precomputed(kernel_y) else _gram(kernel_y, Y, "kernel_y"))
    n = len(X)
    stat = float(np.einsum("ij,ij->", Kc, Lc)) / n**2
    rng = np.random.default_rng(random_state)
    null = np.empty(P)
    for t in range(P):
        p = rng.permutation(n)
        null[t] = np.einsum("ij,ij->", Kc, Lc[np.ix_(p, p)]) / n**2
    return _result(stat, null, np.abs(Kc).max() * np.abs(Lc).max())


def alignment(kernel_or_gram, y, X=None, n_permutations=0, random_state=None):
    r"""Centred kernel-target alignment of a Gram matrix and the labels.

    ``A(K, y) = <K_c, L_c>_F / (||K_c||_F ||L_c||_F)``, where ``K_c = H K H``
    is the centred Gram and ``L_c`` the centred target Gram: ``L_ij = 1`` when
    ``y_i = y_j`` and 0 otherwise for class labels, ``L = y y^T`` for real
    targets (a float ``y``). It lies in [-1, 1] (in [0, 1] for PSD ``K`` and
    ``L``); higher means the kernel's geometry follows the labels more
    closely. Unlike cross-validation it needs no training, so it is a cheap
    way to compare kernels or kernel parameters; Cortes et al. (2012) show
    that high centred alignment implies a good predictor exists.

    For two-class labels ``L_c`` is proportional to ``y y^T`` centred with
    ``y = ±1``, the original alignment of Cristianini et al.

    Parameters
    ----------
    kernel_or_gram : Kernel or array_like (n, n)
        A kernel (then ``X`` gives the objects) or a Gram matrix.
    y : array_like (n,)
        Class labels (any hashable values) or real targets (float dtype).
    X : sequence of objects, optional
        Required with a kernel, not allowed with a Gram matrix.
    n_permutations : int, default=0
        Number of label permutations for a p-value (0: ``pvalue`` is None).
    random_state : int, numpy Generator or None

    Returns
    -------
    KernelTestResult

    References
    ----------
    N. Cristianini, J. Shawe-Taylor, A. Elisseeff and J. Kandola, "On
    kernel-target alignment", NIPS (2001).
    C. Cortes, M. Mohri and A. Rostamizadeh, "Algorithms for learning kernels
    based on centered alignment", JMLR 13 (2012) 795-828.
    """
    K = gram_or_kernel(kernel_or_gram, X)
    n = K.shape[0]
    L = _target_gram(y, n)
    P = _check_permutations(n_permutations)
    Kc, Lc = _centre(K), _centre(L)
    nk, nl = np.linalg.norm(Kc), np.linalg.norm(Lc)
    if nk == 0.0:
        raise ValueError(
            "the centred Gram matrix is zero (a constant kernel): alignment is undefined"
        )
    if nl == 0.0:
        raise ValueError(
            "y is constant: alignment with a single class or target value is undefined"
        )
    scale = nk * nl
    stat = float(np.einsum("ij,ij->", Kc, Lc)) / scale
    rng = np.random.default_rng(random_state)
    null = np.empty(P)
    for t in range(P):
        p = rng.permutation(n)
        null[t] = np.einsum("ij,ij->", Kc, Lc[np.ix_(p, p)]) / scale
    return _result(stat, null, 1.0)


def gram_or_kernel(kernel_or_gram, X, name="kernel_or_gram"):
    """A square float64 Gram: given, or computed by a kernel on ``X``."""
    from .kernels.base import Kernel
    from .learners._base import check_gram

    if isinstance(kernel_or_gram, Kernel):
        if X is None:
            raise ValueError(f"{name} is a kernel: pass the objects as X")
        return _gram(kernel_or_gram, check_objects(X, "X"))
    if X is not None:
        raise ValueError(f"{name} is a Gram matrix: X must not be given")
    return check_gram(kernel_or_gram, name)


# ---------------------------------------------------------------- helpers
def _is_precomputed(kernel):
    return isinstance(kernel, str) and kernel == "precomputed"


def _precomputed_gram(K, name, kernel_name):
    """A square, finite float64 Gram matrix given for ``kernel_name="precomputed"``."""
    from .learners._base import check_gram

    if hasattr(K, "toarray"):
        K = K.toarray()
    K = np.asarray(K) if isinstance(K, np.ndarray) or _is_numeric_table(K) else None
    if K is None or K.ndim != 2 or K.shape[0] != K.shape[1]:
        got = "a list of objects" if K is None else f"shape {K.shape}"
        hint = (
            "; to test objects, give a structk kernel as " + kernel_name
            if K is None or K.ndim == 1
            else ""
        )
        raise ValueError(
            f"with {kernel_name}='precomputed', {name} must be a square Gram "
            f"matrix, got {got}{hint}"
        )
    K = check_gram(K, name)
    asym = np.abs(K - K.T)
    if asym.max() > 1e-8 * max(1.0, np.abs(K).max()):
        i, j = np.unravel_index(int(np.argmax(asym)), K.shape)
        raise ValueError(
            f"with {kernel_name}='precomputed', {name} must be a symmetric Gram matrix: "
            f"{name}[{i}, {j}] = {K[i, j]:.6g} but {name}[{j}, {i}] = {K[j, i]:.6g}"
        )
    return K


def _is_numeric_table(K):
    """A list of equal-length rows of numbers (a Gram matrix written as lists)."""
    try:
        return np.asarray(K).dtype.kind in "biuf"
    except (ValueError, TypeError):
        return False


def _precomputed_split(K, labels):
    """The pooled Gram and the 0/1 indicator of the first sample (``mmd_test``)."""
    K = _precomputed_gram(K, "X", "kernel")
    y = np.asarray(labels)
    if y.ndim != 1 or len(y) != K.shape[0]:
        raise ValueError(
            f"with kernel='precomputed', Y must hold one sample label per row of the Gram "
            f"matrix X ({K.shape[0]}), got shape {y.shape}"
        )
    values = np.unique(y)
    if len(values) != 2:
        raise ValueError(
            f"with kernel='precomputed', Y must hold exactly 2 distinct sample labels, "
            f"got {len(values)}: {values[:5].tolist()}"
        )
    names = tuple(f"the sample labelled {v!r} in Y" for v in values.tolist())
    return K, (y == values[0]).astype(np.float64), names


def _view(kernel, Z, name, kernel_name):
    """One view of ``hsic_test``: a Gram matrix when precomputed, else the objects."""
    if _is_precomputed(kernel):
        return _precomputed_gram(Z, name, kernel_name)
    return check_objects(Z, name)


def _size(kernel, Z, name):
    if _is_precomputed(kernel):
        return f"{name} is a Gram matrix of {len(Z)} objects"
    return f"{name} has {len(Z)} objects"


def _gram(kernel, objects, name="kernel"):
    """Gram of ``objects``, fitting a clone of ``kernel`` on them when it must learn first."""
    from .kernels.base import Kernel

    if not isinstance(kernel, Kernel):
        raise TypeError(
            f"{name} must be a structk Kernel or 'precomputed', got {type(kernel).__name__} "
            "(wrap a Python function in structk.kernels.FunctionKernel)"
        )
    K = fitted_kernel(kernel, objects)(objects)
    return np.ascontiguousarray(K, dtype=np.float64)


def _pooled_gram(kernel, X, Y):
    """The Gram of ``X`` and ``Y`` pooled; an object the kernel refuses is
    named by its index in its own sample (``Y[0]``, not ``X[m]``)."""
    from .kernels.base import Kernel

    try:
        return _gram(kernel, _pool(X, Y))
    except (ValueError, TypeError):
        if isinstance(kernel, Kernel) and not kernel.needs_fit:
            kernel.prepare(X, "X")
            kernel.prepare(Y, "Y")
        raise


def _pool(X, Y):
    if isinstance(X, np.ndarray) and isinstance(Y, np.ndarray):
        if X.shape[1:] != Y.shape[1:]:
            raise ValueError(
                f"X and Y hold arrays of different shapes {X.shape[1:]} and {Y.shape[1:]}"
            )
        return np.concatenate([X, Y])
    return list(X) + list(Y)


def _centre(K):
    K = K - K.mean(axis=0)
    return K - K.mean(axis=1, keepdims=True)


def _target_gram(y, n):
    from .learners._base import encode_labels

    y_arr = np.asarray(y)
    if y_arr.dtype.kind == "f":
        if y_arr.shape != (n,):
            raise ValueError(
                f"y must have shape ({n},) to match the Gram matrix, got {y_arr.shape}"
            )
        if not np.isfinite(y_arr).all():
            i = int(np.argmin(np.isfinite(y_arr)))
            raise ValueError(f"y[{i}] is {y_arr[i]}: targets must be finite")
        return np.outer(y_arr, y_arr)
    _, codes = encode_labels(y, n, min_classes=1)
    return (codes[:, None] == codes[None, :]).astype(np.float64)


def _check_permutations(n_permutations):
    return check_scalar(n_permutations, "n_permutations", lower=0, integer=True)


def _result(stat, null, scale):
    """Result with the permutation p-value (ties within rounding count as >=)."""
    if not len(null):
        return KernelTestResult(stat, None, 0, null)
    tol = 1e-12 * max(float(scale), abs(stat))
    exceed = int(np.count_nonzero(null >= stat - tol))
    return KernelTestResult(stat, (1 + exceed) / (1 + len(null)), len(null), null)
