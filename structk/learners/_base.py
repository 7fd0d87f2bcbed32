"""What every kernel learner shares: the kernel or precomputed Gram, input checks.

A learner's ``kernel`` is either a structk :class:`~structk.kernels.base.Kernel`
(the learner computes the Gram matrix of the training objects itself) or the
string ``"precomputed"`` (``fit(K, y)`` with a square Gram matrix,
``predict(K_test)`` with ``K_test`` of shape ``(n_test, n_train)``).

With a kernel, ``fit`` fits a clone of it on the training objects (a no-op
for kernels that learn nothing; see "Pure evaluation" in
:mod:`structk.kernels.base`) and keeps it as ``kernel_``, so that later
changes to ``kernel`` do not leak into a fitted model and cross-validation
refits data-dependent kernels on each training fold. The learner also keeps
the *prepared* training data prediction needs (the encodings of the support
vectors, say, sliced with ``Kernel._take``), so ``predict`` and
``decision_function`` prepare only the new objects.

Training objects are never passed through scikit-learn's ``check_array``: they
may be strings, sets or graphs. The learners index them themselves.

Positive semi-definiteness
--------------------------
Every learner assumes a PSD Gram matrix, and an indefinite one is a bug in a
kernel, not a modelling choice, so we **raise** (rather than warn): a clearly
non-PSD training Gram raises :class:`~structk.exceptions.NotPSDError`
carrying the :func:`~structk.psd.check_psd` report ("clearly": the smallest
eigenvalue is below ``-PSD_RTOL * ||K||_F``, see below). With
``psd_check="auto"`` (the default) matrices of up to 400 objects (the
unblocked Cholesky's bound in :mod:`structk._linalg`) are certified by a
finite non-negative diagonal, symmetry and one factorisation, cheaper at
that size than the necessary conditions below. Otherwise matrices of up
to ``FULL_PSD_CHECK_MAX_N`` objects get one O(n^2) pass over the rows
checking the necessary conditions (finite entries, ``K_ii >= 0``,
``|K_ij| <= sqrt(K_ii K_jj)``, symmetry) followed by the full check (a
Cholesky factorisation, O(n^3), on one BLAS thread: see
:mod:`structk._threads`); larger ones get the O(n^2) pass only, so that
the check never dominates a fit. When a condition fails, the full
check runs to confirm and report. ``psd_check="full"`` always runs the full check and
``psd_check="none"`` skips it (only finiteness is checked; the SVM solver
then copes with indefinite matrices as LIBSVM does, the ridge and logistic
solvers still fail on their Cholesky factorisation).
"""

from __future__ import annotations

import numbers
import threading

import numpy as np

from .. import _linalg
from .._lazy import jit_loaded
from .._validation import check_objects
from ..kernels.base import Kernel

#: Largest training set whose Gram matrix ``psd_check="auto"`` factorises.
FULL_PSD_CHECK_MAX_N = 500

#: "Clearly" non-PSD: an eigenvalue below ``-PSD_RTOL * ||K||_F``. Smaller
#: negative eigenvalues are rounding noise (a Gram computed in float32 has
#: them around 1e-8 ||K||_F) and harmless to the solvers.
PSD_RTOL = 1e-6

_PSD_CHECKS = ("auto", "full", "none")


class KernelLearnerMixin:
    """Kernel handling shared by the structk learners (put before ``BaseEstimator``)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # with a precomputed Gram, cross-validation must slice rows AND columns
        tags.input_tags.pairwise = _is_precomputed(self.kernel)
        if not _is_precomputed(self.kernel):
            tags.input_tags.two_d_array = False
            tags.input_tags.string = True
        return tags

    # ----------------------------------------------------------------- fit
    def _train_gram(self, X, n_targets, eigenvalues_checked=False):
        """Gram matrix of the training data (float64, C order), checked.

        Also sets ``n_train_`` and, with a kernel, returns the validated
        objects as the second value (``None`` when precomputed). ``n_targets``
        (the length of ``y``) must match the number of objects; callers also
        check it before the Gram is computed when they can (``n_objects``).
        A learner that computes the eigenvalues of ``K`` itself and raises on
        a clearly negative one passes ``eigenvalues_checked=True``: the policy
        then runs the O(n^2) necessary conditions only (no factorisation).
        """
        from sklearn.base import clone

        kernel = _check_kernel(self.kernel)
        psd_check = getattr(self, "psd_check", "auto")
        if _is_precomputed(kernel):
            # finiteness is part of the PSD checks (one pass less) unless skipped
            K = check_gram(X, "K", check_finite=psd_check == "none")
            objects = prepared = None
        else:
            objects = check_objects(X, "X")
            kernel = clone(kernel).fit(objects)
            kernel._validate()
            prepared = kernel._prepare(objects, "X")
            K = np.ascontiguousarray(kernel._checked_gram(prepared), dtype=np.float64)
        if n_targets is not None and n_targets != K.shape[0]:
            raise ValueError(
                f"X has {K.shape[0]} training objects but y has {n_targets} "
                "entries; they must match"
            )
        check_psd_policy(K, psd_check, factorise=not eigenvalues_checked)
        self.n_train_ = K.shape[0]
        self.kernel_ = kernel
        self._train_prepared = prepared
        return K, objects

    def _keep_training(self, objects, index):
        """Keep only the prepared training data of the objects at ``index``
        (e.g. the support vectors): what prediction needs."""
        from ..kernels.base import take_prepared

        P = getattr(self, "_train_prepared", None)
        if P is not None:
            index = np.asarray(index, dtype=np.intp)
            self._train_prepared = take_prepared(self.kernel_, objects, P, index, "X")

    # ------------------------------------------------------------- predict
    def _test_gram(self, X, objects, columns=None):
        """Cross-Gram ``k(X_test, objects)``; with a precomputed kernel,
        ``X`` itself checked to have ``n_train_`` columns (restricted to
        ``columns`` when given, e.g. the support vectors)."""
        if _is_precomputed(self.kernel):
            K = np.asarray(X) if not hasattr(X, "toarray") else X.toarray()
            if K.ndim != 2:
                raise ValueError(
                    f"K_test must be a 2-D array (n_test, n_train), got shape {K.shape}"
                )
            if K.shape[1] != self.n_train_:
                raise ValueError(
                    f"K_test has {K.shape[1]} columns but the model was fitted on "
                    f"{self.n_train_} training objects; K_test[i, j] must be "
                    "k(test_i, train_j)"
                )
            K = _as_finite_float(K, "K_test")
            if columns is not None:
                K = K[:, columns]
            return K
        X = check_objects(X, "X")
        if columns is not None and len(columns) == 0:
            return np.zeros((len(X), 0))
        kernel, P = self._prediction_kernel(objects)
        return kernel._checked_cross(kernel._prepare(X, "X"), P)

    def _test_gram_diag(self, X, objects=None):
        """``(k(X_test, training objects), k(x, x) of X_test)`` (kernel mode),
        preparing the test objects once."""
        X = check_objects(X, "X")
        kernel, P = self._prediction_kernel(objects)
        Q = kernel._prepare(X, "X")
        return kernel._checked_cross(Q, P), kernel._checked_diag(Q)

    def _prediction_kernel(self, objects):
        """The fitted kernel and the prepared training data it is paired with
        (``objects`` prepared now only for a model fitted without keeping them)."""
        kernel = getattr(self, "kernel_", self.kernel)
        kernel._validate()
        P = getattr(self, "_train_prepared", None)
        if P is None:
            P = kernel._prepare(objects, "Y")
        return kernel, P

    def _test_diag(self, X):
        """``k(x, x)`` of test objects (kernel mode only)."""
        kernel = getattr(self, "kernel_", self.kernel)
        kernel._validate()
        return kernel._checked_diag(kernel._prepare(check_objects(X, "X"), "X"))


# ---------------------------------------------------------------- helpers
def _is_precomputed(kernel):
    return isinstance(kernel, str) and kernel == "precomputed"


def _check_kernel(kernel, name="kernel"):
    if _is_precomputed(kernel):
        return kernel
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, str):
        raise ValueError(
            f"{name} must be a structk Kernel or 'precomputed', got {kernel!r}; "
            f"for a named kernel build it, e.g. {name}=structk.Gaussian(sigma=1.0)"
        )
    raise TypeError(
        f"{name} must be a structk Kernel or 'precomputed', got {type(kernel).__name__}"
        " (wrap a Python function in structk.kernels.FunctionKernel)"
    )


def _as_finite_float(K, name, check_finite=True):
    if K.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers, got dtype {K.dtype}")
    K = np.ascontiguousarray(K, dtype=np.float64)
    flat = _first_nonfinite(K) if check_finite and K.size else -1
    if flat >= 0:
        _raise_nonfinite(K, *divmod(int(flat), K.shape[1]), name=name)
    return K


def _first_nonfinite(K):
    """Flat index of the first NaN or infinity of ``K``, or -1 (NumPy for
    matrices up to 2^22 entries, the jitted scan without temporaries above)."""
    if K.size <= 2**22:
        finite = np.isfinite(K).ravel()
        return -1 if finite.all() else int(np.argmin(finite))
    from .._jit.gram import first_nonfinite

    return first_nonfinite(K)


def _raise_nonfinite(K, i, j, name="K"):
    raise ValueError(f"{name} holds a non-finite value {K[i, j]} at entry ({i}, {j})")


def check_gram(K, name="K", check_finite=True):
    """Return a training Gram matrix as a square, C-contiguous float64 array.

    Finite too, unless ``check_finite=False`` (the caller checks it later).
    """
    if hasattr(K, "toarray"):
        K = K.toarray()
    if isinstance(K, (list, tuple)) and K and isinstance(K[0], str):
        raise TypeError(
            f"kernel='precomputed' expects a Gram matrix {name}, got a list of "
            "strings; pass kernel=<a structk Kernel> to learn from objects"
        )
    K = np.asarray(K)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(
            f"with kernel='precomputed', {name} must be a square Gram matrix "
            f"(n_train, n_train), got shape {K.shape}"
        )
    if K.shape[0] == 0:
        raise ValueError(f"{name} is empty (0 x 0)")
    return _as_finite_float(K, name, check_finite)


def check_psd_policy(K, psd_check, factorise=True):
    """Apply the ``psd_check`` policy of the module docstring to a training Gram.

    A Gram small enough for the unblocked Cholesky (see
    :func:`_certify_small`) is certified by its diagonal, a symmetry test and
    one factorisation of ``K + PSD_RTOL max_i(K_ii) I``. Otherwise, or when
    that fails, the O(n^2) necessary conditions come first (they also prove
    every entry finite and ``K`` symmetric); a matrix passing them is then
    certified by one Cholesky factorisation of ``K + PSD_RTOL ||K||_F I`` on
    a single BLAS thread (when ``psd_check="full"`` or ``K`` has at most
    ``FULL_PSD_CHECK_MAX_N`` rows, and ``factorise``). Only a failure pays
    for the full :func:`~structk.psd.check_psd` report, which decides.
    A Gram certified by a factorisation is remembered by a fingerprint
    (its size, diagonal and weighted row sums): fitting the same Gram again,
    as a grid search over a learner's parameters does on each fold, does
    not factorise it again.
    """
    if psd_check not in _PSD_CHECKS:
        raise ValueError(f"psd_check must be one of {_PSD_CHECKS}, got {psd_check!r}")
    if psd_check == "none":
        return
    n = K.shape[0]
    if (factorise and n <= _linalg.UNBLOCKED_CHOLESKY_MAX_N
            and (psd_check == "full" or n <= FULL_PSD_CHECK_MAX_N)
            and _certify_small(K)):
        return
    # the necessary conditions (and, if they pass, the factorisation) again:
    # a failure of the small path is reported exactly as a large Gram's is
    rowsums = np.empty(n)
    if _necessary_psd(K, rowsums):
        if not factorise or (psd_check == "auto" and n > FULL_PSD_CHECK_MAX_N):
            return
        # the necessary pass proved K finite; its diagonal and weighted row
        # sums identify it (equal for two different matrices only by design)
        key = (n, np.diag(K).tobytes(), rowsums.tobytes())
        if key in _CERTIFIED:
            return
        if _linalg.cholesky_ok(K, PSD_RTOL * _linalg.frobenius(K)):
            _remember(key)
            return
    raise_if_not_psd(K)


def _remember(key):
    """Remember a certified Gram, forgetting the oldest beyond
    ``_CERTIFIED_MAX`` (under a lock: fits may run on threads)."""
    with _CERTIFIED_LOCK:
        _CERTIFIED[key] = None
        while len(_CERTIFIED) > _CERTIFIED_MAX:
            del _CERTIFIED[next(iter(_CERTIFIED))]


def _certify_small(K):
    """Certify a small Gram (factorised by the unblocked Cholesky) without
    the O(n^2) necessary pass: a finite non-negative diagonal, symmetry as
    strict as the pass's, then a Cholesky factorisation of ``K + PSD_RTOL
    max_i(K_ii) I`` (it fails on any non-finite entry it reads, and reads one
    triangle: the symmetry test covers the other).

    The shift is at most the reporting tolerance ``PSD_RTOL ||K||_F``, so a
    pass here is a pass there too, and it is still a million times the
    factorisation's rounding (about ``n eps max_i K_ii``): no PSD Gram fails
    it by rounding. The Cauchy-Schwarz conditions only spare a failing matrix
    its factorisation, which at this size costs less than their pass. Every
    step is one NumPy call: in a fresh process each distinct operation has a
    first-use cost, and a first fit at n = 50 costs 3.3 ms in all.
    ``False`` means "not certified here", not "not PSD": the caller then runs
    the necessary pass and reports.
    """
    d = K.diagonal()
    low, scale = float(d.min()), float(d.max())
    if not (low >= -PSD_RTOL * scale and 0.0 < scale < np.inf):  # also NaN
        return False
    asym = K - K.T
    np.abs(asym, out=asym)
    if not asym.max() <= 1e-10 * scale:
        return False
    # a fingerprint of its own (the diagonal and weighted row sums, not by
    # BLAS: a thread hand-over costs more than the product): the key
    # differs from a large Gram's, which the necessary pass computes
    rowsums = np.einsum("ij,j->i", K, _fingerprint_weights(len(d)))
    key = ("small", d.tobytes(), rowsums.tobytes())
    if key in _CERTIFIED:
        return True
    if _linalg.cholesky_ok(K, PSD_RTOL * scale):
        _remember(key)
        return True
    return False


def _fingerprint_weights(n):
    """The weights of the row sums that identify a Gram: ``1 + frac(0.618 i)``
    (no two alike, so swapping entries of a row changes its sum)."""
    if n <= _WEIGHTS.size:
        return _WEIGHTS[:n]
    return _golden_weights(n)


def _golden_weights(n):
    return 1.0 + ((np.arange(n) * 0.6180339887498949) % 1.0)


# made once for the Grams of the small certificate (and of the NumPy pass)
_WEIGHTS = _golden_weights(_linalg.UNBLOCKED_CHOLESKY_MAX_N)
_WEIGHTS.flags.writeable = False


#: Fingerprints of the last Gram matrices certified PSD by a factorisation.
_CERTIFIED = {}
_CERTIFIED_MAX = 64
_CERTIFIED_LOCK = threading.Lock()


def raise_if_not_psd(K):
    """Raise :class:`NotPSDError` with the report when ``K`` is clearly not PSD.

    "Clearly": an eigenvalue below ``-PSD_RTOL * ||K||_F``.
    """
    from ..exceptions import NotPSDError
    from ..psd import check_psd

    report = check_psd(K, tol=PSD_RTOL * _linalg.frobenius(K))
    if not report.is_psd:
        raise NotPSDError(report)


def _necessary_psd(K, rowsums=None):
    """O(n^2) necessary conditions: symmetry, ``K_ii >= 0``, Cauchy-Schwarz.

    Tolerances are relative to the largest diagonal entry; ``False`` sends the
    matrix to the full check. ``rowsums`` (length n), when given, receives the
    weighted row sums of the pass (see ``necessary_psd_violation``).
    """
    d = np.diag(K)
    scale = max(float(np.abs(d).max()), float(np.finfo(float).tiny))
    tol = PSD_RTOL * scale  # as the eigenvalue tolerance
    if not d.min() >= -tol:  # also NaN: check_psd reports it
        return False
    if not np.isfinite(d).all():  # inf passes Cauchy-Schwarz (inf <= inf)
        i = int(np.flatnonzero(~np.isfinite(d))[0])
        _raise_nonfinite(K, i, i)
    # symmetry as strict as check_psd's (sym_rtol=1e-10), which would refuse K
    if rowsums is None:
        rowsums = np.empty(K.shape[0])
    compiled = jit_loaded("structk._jit.gram", "necessary_psd_violation")
    if K.shape[0] <= SMALL_NECESSARY_N and not compiled:
        i, j = _necessary_psd_violation_numpy(K, tol, 1e-10 * scale, rowsums)
    else:
        from .._jit.gram import necessary_psd_violation

        i, j = necessary_psd_violation(K, tol, 1e-10 * scale, rowsums)
    if i >= 0 and not (np.isfinite(K[i, j]) and np.isfinite(K[j, i])):
        _raise_nonfinite(K, *((i, j) if not np.isfinite(K[i, j]) else (j, i)))
    return i == -1


#: Up to this order (the SVM's NumPy solver's, too) the necessary conditions
#: are checked by NumPy (cheaper than loading numba's one-pass loop into a
#: fresh process), unless this
#: process has loaded that loop already; above, by
#: :func:`structk._jit.gram.necessary_psd_violation`. Both find the same
#: violations; only the row sums used as a fingerprint may differ in the
#: last bits.
SMALL_NECESSARY_N = 400


def _necessary_psd_violation_numpy(K, tol, sym_tol, r):
    """NumPy twin of ``necessary_psd_violation`` (same conditions, weights
    and symmetry test by weighted row and column sums): the first failing
    ``(i, j)``, else ``(-1, -1)``; ``r`` receives the weighted row sums.
    Works on blocks of rows so that the temporaries stay in cache."""
    n = K.shape[0]
    s = np.sqrt(np.maximum(np.diag(K), 0.0))
    w = _fingerprint_weights(n)
    c = np.zeros(n)
    a = np.empty(n)
    step = max(1, 16384 // max(n, 1))
    for start in range(0, n, step):
        rows = K[start:start + step]
        absK = np.abs(rows)
        bound = np.multiply.outer(s[start:start + step], s)
        bound += tol
        with np.errstate(invalid="ignore"):
            ok = absK <= bound  # False for NaN and infinity
        if not ok.all():
            i, j = divmod(int(np.argmin(ok)), n)
            return start + i, j
        # not rows @ w nor w @ rows: OpenBLAS runs those products (96 x 170,
        # say) on its threads, which then spin on the core the caller's
        # solver needs
        r[start:start + step] = np.einsum("ij,j->i", rows, w)
        c += np.einsum("i,ij->j", w[start:start + step], rows)
        a[start:start + step] = absK.sum(axis=1)
    eps = np.finfo(np.float64).eps
    with np.errstate(invalid="ignore"):  # inf - inf (an infinite diagonal)
        suspect = np.flatnonzero(np.abs(r - c) > sym_tol + 8.0 * n * eps * a)
    for i in suspect:
        far = np.flatnonzero(np.abs(K[i] - K[:, i]) > sym_tol)
        if far.size:
            return int(i), int(far[0])
    return -1, -1


def encode_labels(y, n_objects=None, min_classes=2):
    """Classes and integer codes of hashable labels.

    Returns ``(classes, codes)`` with ``classes`` sorted when the labels are
    orderable (as scikit-learn) and in order of first appearance otherwise.
    """
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    if not isinstance(y, (np.ndarray, list, tuple)) and hasattr(y, "__array__"):
        y = np.asarray(y)
    if isinstance(y, np.ndarray):
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(
                f"y must be 1-D (one label per object), got shape {y.shape}"
            )
        labels = y
    else:
        if isinstance(y, (str, bytes)):
            raise TypeError("y must be a sequence of labels, got a single string")
        items = list(y)
        labels = np.empty(len(items), dtype=object)
        labels[:] = items
        # a typed array only when that loses nothing (np.asarray([1, "a"])
        # would turn 1 into "1")
        if all(isinstance(v, str) for v in items) or all(
            isinstance(v, (numbers.Real, np.bool_)) for v in items
        ):
            labels = np.asarray(items)
    if n_objects is not None and len(labels) != n_objects:
        raise ValueError(
            f"X has {n_objects} training objects but y has {len(labels)} labels; "
            "they must match"
        )
    if labels.dtype.kind == "O":
        for i, label in enumerate(labels):
            if label is None or (isinstance(label, float) and not np.isfinite(label)):
                raise ValueError(
                    f"y[{i}] is {label!r}: a missing label cannot be a class; drop "
                    "the object or give it its label"
                )
    if labels.dtype.kind == "f" and not np.isfinite(labels).all():
        i = int(np.argwhere(~np.isfinite(labels))[0, 0])
        raise ValueError(f"y[{i}] is {labels[i]}: labels must be finite")
    try:
        classes, codes = np.unique(labels, return_inverse=True)
    except TypeError:  # hashable but not orderable: first appearance
        index = {}
        codes = np.empty(len(labels), dtype=np.intp)
        for i, label in enumerate(labels):
            codes[i] = index.setdefault(label, len(index))
        classes = np.empty(len(index), dtype=object)
        classes[:] = list(index)
    if len(classes) == 0:
        raise ValueError("y is empty: a classifier needs labelled training objects")
    if len(classes) < min_classes:
        raise ValueError(
            f"y has a single class ({classes[0]!r}); a classifier needs at least "
            f"{min_classes} classes"
        )
    return classes, codes.ravel()


def check_targets(y, n_objects):
    """Regression targets as float64, shape (n,) or (n, n_outputs)."""
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    try:
        Y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must hold numbers: {exc}") from None
    if Y.ndim not in (1, 2):
        raise ValueError(f"y must be 1-D or 2-D, got shape {Y.shape}")
    if n_objects is not None and Y.shape[0] != n_objects:
        raise ValueError(
            f"X has {n_objects} training objects but y has {Y.shape[0]} rows; "
            "they must match"
        )
    if not np.isfinite(Y).all():
        i = int(np.argwhere(~np.isfinite(Y))[0, 0])
        raise ValueError(f"y[{i}] is not finite")
    return Y


def n_objects(X):
    """Number of training objects in ``X`` (objects or a Gram matrix).

    ``None`` when it cannot be known before validation (a single string, an
    iterator): ``check_objects`` reports the former, and the Gram's size is
    checked against ``y`` afterwards.
    """
    if hasattr(X, "shape"):
        return X.shape[0] if len(X.shape) else None
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
        return None
    return len(X)


def take(objects, indices):
    """The objects at ``indices`` (array rows, sparse rows, or list items)."""
    if isinstance(objects, np.ndarray) or hasattr(objects, "tocsr"):
        return objects[indices]
    return [objects[i] for i in indices]


def check_int_or_unlimited(value, name):
    """``-1`` (no limit) or a positive integer."""
    from .._validation import check_scalar

    value = check_scalar(value, name, integer=True)
    if value != -1 and value < 1:
        raise ValueError(f"{name} must be a positive integer or -1 (no limit), got {value}")
    return value
