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
vectors, say, sliced with ``Kernel.take``), so ``predict`` and
``decision_function`` prepare only the new objects.

Learners reach the kernel only through its public prepared-data seam
(``prepare``, ``take``, ``gram_prepared``, ``cross_prepared``,
``diag_prepared``; see :mod:`structk.kernels.base`).

Training objects are never passed through scikit-learn's ``check_array``: they
may be strings, sets or graphs. The learners index them themselves.

Positive semi-definiteness
--------------------------
Every learner checks its training Gram by the ``psd_check`` policy of
:mod:`structk.learners._psd` and raises
:class:`~structk.exceptions.NotPSDError` on a clearly indefinite one.
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

from .._validation import check_objects
from ..kernels.base import Kernel
from ._psd import check_psd_policy, first_nonfinite, raise_nonfinite


class KernelLearnerMixin:
    """Kernel handling shared by the structk learners (put before ``BaseEstimator``)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # with a precomputed Gram, cross-validation must slice rows AND columns
        tags.input_tags.pairwise = _is_precomputed(self.kernel)
        tags.input_tags.sparse = _is_precomputed(self.kernel)  # a sparse Gram is densified
        return object_tags(tags, self.kernel)

    def _forget_fit(self):
        """Drop what an earlier fit learned (attributes ending in ``_`` and
        the kept training data): a refit by another path (dual, primal,
        Nyström) must not leave the first path's attributes beside its own,
        where a model file or ``decision_function`` would read them."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            delattr(self, name)
        self.__dict__.pop("_train_prepared", None)

    def _check_input(self, X, reset):
        """Record (``reset``) or check ``n_features_in_`` and
        ``feature_names_in_`` as scikit-learn does, for a 2-D input: a Gram
        matrix, a DataFrame, the vectors of a vector kernel. Other objects
        (strings, sets, graphs) have no number of features."""
        check_input_features(self, self.kernel, X, reset)

    # ----------------------------------------------------------------- fit
    def _train_gram(self, X, n_targets, eigenvalues_checked=False, solution_checked=False):
        """Gram matrix of the training data (float64, C order), checked.

        Also sets ``n_train_`` and, with a kernel, returns the validated
        objects as the second value (``None`` when precomputed). ``n_targets``
        (the length of ``y``) must match the number of objects; callers also
        check it before the Gram is computed when they can (``n_objects``).
        A learner that computes the eigenvalues of ``K`` itself and raises on
        a clearly negative one passes ``eigenvalues_checked=True``: the policy
        then runs the O(n^2) necessary conditions only (no factorisation).
        A learner that certifies its solution's block of a given Gram instead
        (``KernelSVM``: :func:`structk.learners._psd.solution_block_psd`)
        passes ``solution_checked=True`` and gets a third value: whether
        that certificate is still due (the policy deferred it).
        """
        from .._estimator import clone

        kernel = _check_kernel(self.kernel)
        psd_check = getattr(self, "psd_check", "auto")
        self._check_input(X, reset=True)
        scan = None  # what the pass that mirrored a computed Gram saw
        if _is_precomputed(kernel):
            # finiteness is part of the PSD checks (one pass less) unless skipped
            K = check_gram(X, "K", check_finite=psd_check == "none")
            objects = prepared = None
        else:
            objects = check_objects(X, "X")
            given = self.__dict__.pop("_given_gram", None)
            if given is not None:  # fit_with_gram: computed once by the caller
                kernel, prepared, K = given
                if K.shape != (len(objects), len(objects)):
                    raise ValueError(
                        f"the given Gram matrix has shape {K.shape}, but X "
                        f"has {len(objects)} objects"
                    )
            else:
                kernel = clone(kernel).fit(objects)
                prepared = kernel.prepare(objects, "X")
                K, scan = kernel._scanned_gram(prepared)
                K = np.ascontiguousarray(K)  # C order, as the solvers expect
        if n_targets is not None and n_targets != K.shape[0]:
            raise ValueError(
                f"X has {K.shape[0]} training objects but y has {n_targets} "
                "entries; they must match"
            )
        due = check_psd_policy(
            K,
            psd_check,
            factorise=not eigenvalues_checked,
            user_gram=user_gram(kernel),
            closed_form=closed_form_gram(kernel),
            scan=scan,
            solution_checked=solution_checked and _is_precomputed(kernel),
        )
        self.n_train_ = K.shape[0]
        self.kernel_ = kernel
        self._train_prepared = prepared
        return (K, objects, due) if solution_checked else (K, objects)

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
                    f"K_test must be a 2-D array (n_test, n_train), got shape {K.shape}; "
                    "Reshape your data: K_test.reshape(1, -1) for a single test object"
                )
            K = _as_finite_float(K, "K_test")  # a NaN or infinity is named first
            if K.shape[1] != self.n_train_:
                raise ValueError(
                    f"K_test has {K.shape[1]} columns but the model was fitted on "
                    f"{self.n_train_} training objects; K_test[i, j] must be "
                    f"k(test_i, train_j) (X has {K.shape[1]} features, but "
                    f"{type(self).__name__} is expecting {self.n_train_} features as input)"
                )
            self._check_input(X, reset=False)
            if columns is not None:
                K = K[:, columns]
            return K
        checked = check_objects(X, "X")
        kernel, P = self._prediction_kernel(objects)
        Q = kernel.prepare(checked, "X")  # the kernel's own errors first
        self._check_input(X, reset=False)
        if columns is not None and len(columns) == 0:
            return np.zeros((len(checked), 0))
        return kernel.cross_prepared(Q, P)

    def _expansion(self, objects, coef):
        """``Q -> k(Q, objects) @ coef.T`` as the kernel's own
        ``expansion_prepared`` of prepared test objects, or None: for one
        row of coefficients (a two-class machine) of a kernel that has one
        (:meth:`structk.kernels.GappedKmer.expansion_prepared` folds the
        support vectors into one table, so a test sequence costs one
        look-up per l-mer instead of one comparison per support vector)."""
        kernel = getattr(self, "kernel_", self.kernel)
        if (
            coef.shape[0] != 1
            or coef.shape[1] == 0
            or _is_precomputed(self.kernel)
            or not hasattr(kernel, "expansion_prepared")
        ):
            return None
        kernel, P = self._prediction_kernel(objects)
        return kernel.expansion_prepared(P, coef)

    def _test_expansion(self, X, objects, coef, columns=None):
        """``k(X_test, objects) @ coef.T``: through :meth:`_expansion` when
        there is one, else through the cross-Gram (:meth:`_test_gram`)."""
        from .._threads import small_matmul

        expansion = self._expansion(objects, coef)
        if expansion is None:
            return small_matmul(self._test_gram(X, objects, columns=columns), coef.T)
        Q = expansion.kernel.prepare(check_objects(X, "X"), "X")  # its own errors first
        self._check_input(X, reset=False)
        return expansion(Q)

    def _test_gram_diag(self, X, objects=None):
        """``(k(X_test, training objects), k(x, x) of X_test)`` (kernel mode),
        preparing the test objects once."""
        kernel, P = self._prediction_kernel(objects)
        Q = kernel.prepare(check_objects(X, "X"), "X")
        self._check_input(X, reset=False)
        return kernel.cross_prepared(Q, P), kernel.diag_prepared(Q)

    def _prediction_kernel(self, objects):
        """The fitted kernel and the prepared training data it is paired with
        (``objects`` prepared now only for a model fitted without keeping them)."""
        kernel = getattr(self, "kernel_", self.kernel)
        P = getattr(self, "_train_prepared", None)
        if P is None:
            P = kernel.prepare(objects, "Y")
            if objects is not None:  # a loaded model: prepared once, then kept
                self._train_prepared = P
        return kernel, P


# ---------------------------------------------------------------- helpers
def fit_with_gram(learner, X, y, kernel, prepared, K):
    """``learner.fit(X, y)`` on the training Gram the caller already holds.

    ``kernel`` is ``learner.kernel`` fitted on ``X`` (a clone), ``prepared``
    its ``kernel.prepare(X)`` and ``K`` its Gram matrix of ``X`` (float64,
    C order), e.g. computed once for an inner cross-validation (which
    slices it per fold) and now handed to the final fit, which then neither
    prepares ``X`` nor computes the Gram again. ``K`` becomes the learner's
    own: it may be overwritten (a ridge fit factorises it in place), so the
    caller must not use it afterwards. The learner's checks of the Gram (the
    PSD policy) run as in ``fit``; a learner whose solver works past the
    Gram (``solver`` "primal" or "nystroem") ignores ``K``.
    """
    K = np.asarray(K)
    if K.dtype != np.float64 or not K.flags.c_contiguous:
        K = np.ascontiguousarray(K, dtype=np.float64)
    learner._given_gram = (kernel, prepared, K)
    try:
        return learner.fit(X, y)
    finally:
        learner.__dict__.pop("_given_gram", None)


def check_input_features(estimator, kernel, X, reset):
    """``n_features_in_`` and ``feature_names_in_`` of ``estimator`` recorded
    (``reset``) or checked as scikit-learn's ``validate_data`` does, when
    ``X`` is 2-D input (a Gram matrix, a DataFrame, the vectors of a vector
    kernel); nothing for other objects (strings, sets, graphs)."""
    if _is_precomputed(kernel) or len(getattr(X, "shape", ())) == 2 or takes_vectors(kernel):
        if _plain_array_features(estimator, kernel, X, reset):
            return
        from sklearn.utils.validation import validate_data

        try:
            validate_data(estimator, X, skip_check_array=True, reset=reset)
        except ValueError:
            if not reset and not _is_precomputed(kernel):
                kernel.prepare(check_objects(X, "X"), "X")  # its own error first
            raise


def _plain_array_features(estimator, kernel, X, reset):
    """``validate_data``'s work for a 2-D NumPy array or ``scipy.sparse``
    matrix, which have no feature names, when the estimator was not fitted
    with any either (the case of every Gram matrix, and of a sparse matrix
    of counts): record or check ``n_features_in_``, with its message.
    ``False`` for anything else (DataFrames, lists, ...), left to
    scikit-learn."""
    if (
        not (type(X) is np.ndarray or _is_scipy_sparse(X))
        or X.ndim != 2
        or hasattr(estimator, "feature_names_in_")
    ):
        return False
    if reset:
        estimator.n_features_in_ = X.shape[1]
    elif hasattr(estimator, "n_features_in_") and X.shape[1] != estimator.n_features_in_:
        if not _is_precomputed(kernel):
            kernel.prepare(check_objects(X, "X"), "X")  # its own error first
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is "
            f"expecting {estimator.n_features_in_} features as input."
        )
    return True


def _is_scipy_sparse(X):
    """``scipy.sparse.issparse(X)``, without importing ``scipy.sparse`` (0.3 s
    of CPU in a fresh process) when it is not loaded: no sparse matrix can
    exist then."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(X)


def object_tags(tags, kernel):
    """scikit-learn tags of an estimator taking the objects of ``kernel``."""
    if not _is_precomputed(kernel) and not takes_vectors(kernel):
        # strings, sets, graphs, ...: not a 2-D array of numbers
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
    return tags


def takes_vectors(kernel):
    """Whether ``kernel`` evaluates rows of a 2-D array of numbers (a vector
    kernel, or sums, products, powers and normalisations of them; not a
    :class:`~structk.kernels.Part`, whose objects hold their vectors as one
    part among others)."""
    from ..kernels.algebra import Constant, Part, _Binary, _Unary
    from ..kernels.vectors import _VectorKernel

    if isinstance(kernel, _VectorKernel):
        return True
    if isinstance(kernel, Part):
        return False
    if isinstance(kernel, _Unary):
        return takes_vectors(kernel.kernel)
    if isinstance(kernel, _Binary):
        kids = [k for k in (kernel.k1, kernel.k2) if not isinstance(k, Constant)]
        return bool(kids) and all(takes_vectors(k) for k in kids)
    return False


def user_gram(kernel):
    """Whether a training Gram comes from outside structk's own kernels:
    given (``"precomputed"``), or computed by a :class:`FunctionKernel` or a
    ``Kernel`` subclass defined elsewhere, anywhere in the kernel's
    expression. Such a Gram gets the longer PSD check
    (``defaults.PSD_LANCZOS_STEPS_USER``)."""
    from ..kernels.function import FunctionKernel

    if _is_precomputed(kernel):
        return True
    return any(
        isinstance(k, FunctionKernel) or not type(k).__module__.startswith("structk.")
        for k in _kernel_parts(kernel)
    )


def closed_form_gram(kernel):
    """Whether every part of ``kernel`` computes its Gram by a closed
    formula that is PSD by a theorem (``Kernel._closed_form``: the vector
    kernels and the algebra over them): the PSD check then needs no
    Lanczos steps (``defaults.PSD_LANCZOS_STEPS_CLOSED_FORM``)."""
    if _is_precomputed(kernel):
        return False
    return all(type(k)._closed_form for k in _kernel_parts(kernel))


def _kernel_parts(kernel):
    """``kernel`` and every kernel inside its expression."""
    return [kernel, *(v for v in kernel.get_params(deep=True).values() if isinstance(v, Kernel))]


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
    if K.dtype.kind == "c":
        raise ValueError(
            f"Complex data not supported: {name} must hold real numbers, got dtype {K.dtype}"
        )
    if K.dtype.kind == "O":  # numbers stored as objects: converted, or refused
        try:
            K = K.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold real numbers: {exc}") from None
    if K.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers, got dtype {K.dtype}")
    K = np.ascontiguousarray(K, dtype=np.float64)
    flat = first_nonfinite(K) if check_finite and K.size else -1
    if flat >= 0:
        raise_nonfinite(K, *divmod(int(flat), K.shape[1]), name=name)
    return K


def owns_gram(K, X):
    """Whether the training Gram ``K`` that :meth:`KernelLearnerMixin._train_gram`
    returned for ``X`` is the fit's own: computed from objects, or a copy of
    a precomputed ``X`` (converted, densified). A fit may then work in it in
    place; a Gram the caller passed (``K`` a view of ``X``) is only read --
    nothing structk does writes into an array it does not own, even for a
    moment (another thread may be reading it)."""
    if isinstance(X, np.ndarray):
        return not np.may_share_memory(K, X)
    if hasattr(X, "toarray") or isinstance(X, (list, tuple)):
        return True  # a sparse Gram was densified, a list converted
    try:  # a DataFrame, a memmap, anything with an array interface
        return not np.may_share_memory(K, np.asarray(X))
    except (TypeError, ValueError):  # pragma: no cover - not array-like
        return False


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
    if K.dtype.kind == "c":
        _as_finite_float(K, name)  # refuses complex numbers first, as for a K_test
    if K.ndim == 2 and K.shape[0] and not K.shape[1]:
        raise ValueError(
            f"{name} has 0 feature(s) (shape={K.shape}) while a minimum "
            "of 1 is required; with kernel='precomputed' it must be a "
            "square Gram matrix"
        )
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        if K.ndim == 2 and K.dtype.kind in "biufO":
            _as_finite_float(K, name)  # a NaN or infinity is named first
        raise ValueError(
            f"with kernel='precomputed', {name} must be a square Gram matrix "
            f"(n_train, n_train), got shape {K.shape}"
        )
    if K.shape[0] == 0:
        raise ValueError(f"{name} is empty (0 x 0)")
    return _as_finite_float(K, name, check_finite)


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
            import warnings

            from sklearn.exceptions import DataConversionWarning

            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; "
                "its single column is used",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D (one label per object), got shape {y.shape}")
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
            f"X has {n_objects} training objects but y has {len(labels)} labels; they must match"
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
    if labels.dtype.kind == "f" and (labels != np.round(labels)).any():
        i = int(np.flatnonzero(labels != np.round(labels))[0])
        raise ValueError(
            f"Unknown label type: continuous (y[{i}] = {labels[i]}); a classifier "
            "needs class labels: use a regressor for continuous targets, or "
            "discretise y"
        )
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
            f"y has a single class, one class only ({classes[0]!r}); a classifier needs at least "
            f"{min_classes} classes"
        )
    return classes, codes.ravel()


def check_targets(y, n_objects):
    """Regression targets as float64, shape (n,) or (n, n_outputs)."""
    if y is None:
        raise ValueError("this estimator requires y to be passed, but the target y is None")
    try:
        Y = np.asarray(y)  # a ragged y fails here
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must hold numbers: {exc}") from None
    if Y.dtype.kind == "c":
        bad = np.flatnonzero(np.ravel(Y.imag) != 0)
        at = tuple(int(i) for i in np.unravel_index(bad[0] if bad.size else 0, Y.shape))
        where = ", ".join(map(str, at))
        raise ValueError(
            f"Complex data not supported: y[{where}] = {Y[at]} is complex "
            "(regression targets must be real)"
        )
    try:
        Y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"y must hold numbers: {exc}") from None
    if Y.ndim not in (1, 2):
        raise ValueError(f"y must be 1-D or 2-D, got shape {Y.shape}")
    if n_objects is not None and Y.shape[0] != n_objects:
        raise ValueError(
            f"X has {n_objects} training objects but y has {Y.shape[0]} rows; they must match"
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
