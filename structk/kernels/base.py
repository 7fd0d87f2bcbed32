"""The kernel interface every structk kernel implements.

A kernel is a small object holding its parameters. Called on a sequence of
objects it returns their Gram matrix::

    K = k(X)          # n x n, symmetric, float64
    K = k(X, Y)       # n x m cross-Gram
    d = k.diag(X)     # k(x, x) for each x, without building the matrix
    F = k.features(X) # explicit feature map, when the kernel has one

Kernels combine by the closure rules (``k1 + k2``, ``k1 * k2``, ``c * k``,
``k ** p``, :class:`~structk.kernels.algebra.Exp`,
:class:`~structk.kernels.algebra.Normalize`, ...), and every combination is
again a kernel.

Writing a new kernel
--------------------
Subclass :class:`Kernel`, store the constructor arguments under their own
names and nothing else (scikit-learn's convention: this is what makes
``get_params``, ``set_params`` and ``sklearn.base.clone`` work), and
implement at most these (``docs/custom_kernels.md`` has runnable examples):

``_check_params()``
    Raise a clear error on an invalid parameter; called before every
    evaluation and by :meth:`Kernel.fit`.
``_prepare(X, name)``
    Validate a collection of objects once and turn it into whatever the
    computation needs (an array, a CSR encoding, ...). Errors must name the
    offending index. The default accepts any non-empty sequence.
``_features(P)``
    With ``has_features = True``: the explicit feature matrix (dense array
    or scipy.sparse) of prepared objects; Gram, cross-Gram and diagonal
    then follow as matrix products. Set ``fixed_feature_columns = True``
    when a column means the same in every collection (then
    ``features(X) @ features(Y).T == k(X, Y)``), or ``keyed_feature_columns``
    with ``_feature_keys``; :meth:`Kernel.features` states the contract and
    :func:`aligned_features` aligns any two collections' features.
``_feature_keys(P)``
    With ``keyed_feature_columns = True``: what each column of
    ``_features(P)`` stands for, one key per column (an array; ``None``
    when the column index itself is the key, as for hashed labels), the
    same key meaning the same column in every collection.
``_cross(P, Q)``, ``_diag(P)``
    Kernels without a feature map compute these directly.
``_take(P, index)``
    The prepared data of a subset of the objects (``index`` is a slice or
    an integer array). The default handles arrays, scipy.sparse matrices
    and lists; a kernel whose ``_prepare`` returns anything else must
    override it (or blockwise code prepares each block anew).

Advanced hooks, for the kernels that need them: ``_gram(P)`` (a faster
symmetric Gram matrix; it may compute one triangle, see
:func:`mirror_upper`), ``_check_pair(P, Q)`` (refuse incompatible X and
Y), ``_fit(X)``/``_check_fitted()`` with ``_needs_fit = True`` (kernels
that learn from data: the Fisher information of
:class:`~structk.kernels.fisher.FisherKernel`, ``RandomWalk(lam="auto")``;
fitted attributes end in ``_``), ``_encoding_key()``/``_encode(X, name)``/
``_prepare_encoded(E, name)`` (a reading of the objects that several kernels
share, computed once per composite), and the log-space forms
``_log_gram``/``_log_cross``/``_log_diag`` with ``_has_log_form`` (values
that are exponentials, normalised in log space). The other underscored
methods are internal.

Code outside a kernel (learners, :mod:`structk.scale`, Nystroem) uses only
the public prepared-data seam: :meth:`Kernel.prepare`, :meth:`Kernel.take`,
:meth:`Kernel.gram_prepared`, :meth:`Kernel.cross_prepared`,
:meth:`Kernel.diag_prepared`, :meth:`Kernel.features_prepared`,
:meth:`Kernel.feature_keys_prepared` and :meth:`Kernel.validate`.

Pure evaluation
---------------
Evaluating a kernel never changes it: ``k(X, Y)`` is a function of the
parameters, the fitted state and the inputs only, so the same kernel gives
bit-identical matrices whatever the order of the calls and from any thread.
Anything learned from data is learned by an explicit :meth:`Kernel.fit`.
A learner given a kernel that needs fitting fits a clone of it
(``sklearn.base.clone``) on its training objects, stored as the learner's
``kernel_``, so that cross-validation and grid searches refit it on each
training fold.

For a quick experiment, :class:`~structk.kernels.function.FunctionKernel`
wraps a plain Python function ``f(x, y)``.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias, cast

import numpy as np
from numpy.typing import NDArray

from .._threads import in_tile
from .._validation import check_objects
from ..algorithms.dense import mirror_upper  # noqa: F401 - kernels import it from here
from ..algorithms.gram_blocks import mirror_and_scan
from ..exceptions import KernelOverflowError

if TYPE_CHECKING:
    import scipy.sparse as sp
    from typing_extensions import Self

    from .hyperparameters import Hyperparameter

#: A collection of objects a kernel takes: a sequence of objects (strings,
#: sets, graphs, vectors), a 2-D array whose rows are vectors, or a
#: scipy.sparse matrix of rows.
Objects: TypeAlias = "Sequence[Any] | np.ndarray | sp.spmatrix | sp.sparray"
#: A Gram or cross-Gram matrix: float64, shape (len(X), len(Y)).
Gram: TypeAlias = "NDArray[np.float64]"
#: An explicit feature matrix: dense, or scipy.sparse CSR.
Features: TypeAlias = "np.ndarray | sp.csr_matrix | sp.csr_array"
#: Which objects of a prepared collection: a slice with step 1 or integer positions.
Index: TypeAlias = "slice | np.ndarray | Sequence[int]"
#: Where a block sits in a larger matrix: ``((row_start, row_stop), (col_start, col_stop))``.
Block: TypeAlias = "tuple[tuple[int, int], tuple[int, int]]"

#: Largest argument of ``exp`` that does not overflow float64.
LOG_MAX = float(np.log(np.finfo(np.float64).max))


class TakeNotImplemented(TypeError):
    """A kernel's prepared data cannot be sliced (see :meth:`Kernel._take`)."""


class Kernel:
    """Base class of all structk kernels.

    Attributes
    ----------
    has_features : bool
        Whether :meth:`features` gives an explicit feature map whose inner
        products are the kernel values.
    fixed_feature_columns : bool
        Whether those features' columns are the same for every collection.
    """

    has_features = False
    #: Whether the columns of :meth:`features` mean the same for every
    #: collection (k-mer indices, vector coordinates), so that feature rows
    #: computed in separate calls line up: what a linear model trained on
    #: them (the primal solvers of :mod:`structk.learners.primal`) needs.
    #: False where columns number the labels present in one call (the
    #: shortest-path kernel, sets) and for the Weisfeiler-Lehman kernels,
    #: whose columns are 2^62 label hashes: those name their columns by
    #: keys instead (``keyed_feature_columns``).
    fixed_feature_columns = False
    #: Whether the columns of :meth:`features` are named by keys that mean
    #: the same in every collection (:meth:`feature_keys_prepared`), though
    #: their numbering is per call (tokens of sets, shortest-path triples)
    #: or spans 2^62 hashes (Weisfeiler-Lehman labels): a vocabulary of the
    #: training columns then lines up the features of new objects, as the
    #: primal solvers of :mod:`structk.learners.primal` do.
    keyed_feature_columns = False
    #: Whether the kernel's Gram is PSD by a theorem and computed by a
    #: closed formula of BLAS products and elementwise functions, accurate to
    #: rounding (the vector kernels, and the algebra when every part is):
    #: the learners' PSD check then skips its Lanczos steps, which look for
    #: bugs in the algorithms of the other kernels
    #: (``defaults.PSD_LANCZOS_STEPS_CLOSED_FORM``).
    _closed_form = False
    _has_log_form = False
    _precedence = 4  # for printing composites: 1 sum, 2 product, 3 power, 4 atom
    #: Parameters the repr always shows; the others only when not at their default.
    _repr_always: tuple[str, ...] = ()

    # ------------------------------------------------------------ parameters
    @classmethod
    def _get_param_names(cls):
        from .._estimator import init_param_names

        return init_param_names(cls)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this kernel, as in scikit-learn.

        With ``deep=True`` the parameters of kernel-valued parameters are
        included as ``name__param``, so that a grid search over a learner can
        tune ``kernel__k1__sigma``.
        """
        from .._estimator import get_params

        return get_params(self, deep, lambda value: isinstance(value, Kernel))

    def set_params(self, **params: Any) -> Self:
        """Set parameters (nested ones as ``name__param``); returns ``self``."""
        from .._estimator import set_params

        return set_params(
            self,
            params,
            lambda name: ValueError(
                f"invalid parameter {name!r} for kernel {type(self).__name__}; "
                f"valid parameters are {sorted(self._get_param_names())}"
            ),
        )

    def _check_params(self):
        """Raise a clear error if a parameter is invalid (override)."""

    def _kernel_params(self):
        """The kernel-valued parameters (the parts of a composite)."""
        values = (getattr(self, name) for name in self._get_param_names())
        return [v for v in values if isinstance(v, Kernel)]

    def _validate(self):
        """Check the parameters and fitted state of this kernel and its parts."""
        self._check_params()
        self._check_fitted()
        for part in self._kernel_params():
            part._validate()

    # -------------------------------------------------------------- fitting
    #: Whether this kernel (not counting its parts) learns state in ``fit``.
    _needs_fit = False

    @property
    def needs_fit(self) -> bool:
        """Whether :meth:`fit` learns something (here or in a part) that
        evaluation needs."""
        return self._needs_fit or any(p.needs_fit for p in self._kernel_params())

    def fit(self, X: Objects, y: Any = None) -> Self:
        """Learn what evaluation needs from the objects ``X``; returns ``self``.

        Most kernels learn nothing (``needs_fit`` is False) and ``fit`` only
        checks the parameters; composites fit their parts. Refitting
        replaces the fitted state.
        """
        self._check_params()
        for part in self._kernel_params():
            part.fit(X)
        if self._needs_fit:
            self._fit(check_objects(X, "X"))
        return self

    def _fit(self, X):
        """Store what evaluation needs, learned from validated ``X`` (override)."""

    def _check_fitted(self):
        """Raise ``NotFittedError`` if evaluation needs a call to fit (override)."""

    def __repr__(self) -> str:
        """``Name(param=value, ...)``: the defining parameters (``_repr_always``)
        and those that differ from their defaults."""
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()
        }
        args = ", ".join(
            f"{name}={_repr_value(getattr(self, name))}"
            for name in self._get_param_names()
            if name in self._repr_always
            or not _is_default(getattr(self, name), defaults.get(name, inspect.Parameter.empty))
        )
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        """Equal when of the same class with equal parameters.

        As scikit-learn's Gaussian-process kernels compare: the class and
        :meth:`get_params` (``deep=False``), kernel-valued parameters
        compared the same way (so composites compare structurally), arrays
        by shape and values, floats with NaN equal to NaN, lists, tuples
        and dicts element by element, anything else (an HMM, a function) by
        its own ``==``. Fitted state is not compared: ``RandomWalk(lam="auto")``
        equals itself before and after :meth:`fit`.
        """
        if not isinstance(other, Kernel):
            return NotImplemented
        if type(self) is not type(other):
            return False
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        return mine.keys() == theirs.keys() and all(
            _param_equal(mine[name], theirs[name]) for name in mine
        )

    def __hash__(self) -> int:
        """The hash of the class and a canonical tuple of the parameters,
        consistent with ``==`` (arrays hashed by their shape and values).

        A kernel is mutable (:meth:`set_params`): do not change one while it
        is a key of a dict or a member of a set.
        """
        params = self.get_params(deep=False)
        return hash(
            (
                type(self).__qualname__,
                tuple((name, _param_key(params[name])) for name in sorted(params)),
            )
        )

    # --------------------------------------------------------------- hooks
    def _prepare(self, X, name):
        return self._prepare_encoded(self._encode(X, name), name)

    # A shared encoding (advanced): kernels that read objects the same way
    # (strings over one alphabet, graphs with one node labelling) return the
    # same hashable ``_encoding_key()``; ``_encode`` is that reading and
    # ``_prepare_encoded`` derives the kernel's own prepared data from it
    # without changing it. A composite prepares through ``_prepare_with``,
    # so each distinct encoding of its parts is computed once.
    def _encoding_key(self):
        """Hashable name of what :meth:`_encode` computes, or None (not shared)."""

    def _encode(self, X, name):
        return check_objects(X, name)

    def _prepare_encoded(self, E, name):
        return E

    def _prepare_with(self, X, name, encodings):
        """``_prepare(X, name)``, taking this kernel's encoding from the dict
        ``encodings`` (key -> encoding) or adding it there."""
        key = self._encoding_key()
        if key is None or type(self)._prepare is not Kernel._prepare:
            return self._prepare(X, name)  # not shared, or prepared its own way
        if key not in encodings:
            encodings[key] = self._encode(X, name)
        return self._prepare_encoded(encodings[key], name)

    def _check_pair(self, P, Q):
        """Raise if prepared X and Y cannot be paired (override)."""

    def _take(self, P, index):
        """Prepared data of the objects selected by ``index``.

        Parameters
        ----------
        P : prepared data
            What :meth:`_prepare` returned for a collection of ``n`` objects.
        index : slice or ndarray of int
            A slice with step 1, or integer positions in ``range(n)``.

        Returns
        -------
        Prepared data of the selected objects, in the order of ``index``,
        such that ``_cross(_take(P, a), _take(Q, b))`` equals
        ``_cross(P, Q)[a][:, b]``, ``_gram(_take(P, a))`` equals
        ``_gram(P)[a][:, a]`` and ``_diag(_take(P, a))`` equals
        ``_diag(P)[a]`` (up to floating-point rounding).

        The default slices numpy arrays and scipy.sparse matrices (rows) and
        lists, and raises :class:`TakeNotImplemented` for anything else;
        composites override it to slice each part. Blockwise computations
        then fall back to preparing each block of objects on its own (each
        object is still prepared once, but the whole-collection encoding is
        not shared).
        """
        if isinstance(P, np.ndarray) or hasattr(P, "tocsr"):
            return P[index]
        if isinstance(P, list):
            if isinstance(index, slice):
                return P[index]
            return [P[i] for i in np.asarray(index).tolist()]
        raise TakeNotImplemented(
            f"{type(self).__name__}._prepare returns {type(P).__name__}, which "
            "structk cannot slice into blocks; implement "
            f"{type(self).__name__}._take(P, index) returning the prepared data "
            "of the selected objects (see structk.kernels.base.Kernel._take)"
        )

    def _features(self, P):
        raise TypeError(
            f"{self!r} has no explicit feature map; compute its Gram matrix with k(X) instead"
        )

    def _gram(self, P):
        if self.has_features:
            F = self._features(P)
            return _dense(_product(F, F.T))
        return self._cross(P, P)

    def _mirrored_gram(self, P):
        """``(K, scan)`` as :meth:`_scanned_gram` returns them, for a
        kernel that mirrors and scans its Gram while computing it (a new,
        writeable, whole float64 array and its
        :class:`~structk.algorithms.gram_blocks.GramScan`), or ``None``
        (the default): :meth:`_gram` then :func:`mirror_and_scan`."""
        return

    def _cross(self, P, Q):
        if self.has_features:
            return _dense(_product(self._features(P), self._features(Q).T))
        raise NotImplementedError(f"{type(self).__name__} implements neither _features nor _cross")

    def _diag(self, P):
        if self.has_features:
            return _row_sq_norms(self._features(P))
        raise NotImplementedError(f"{type(self).__name__} implements neither _features nor _diag")

    # log-space evaluation, used by Normalize to avoid overflow; kernels
    # whose values are exponentials (Exp, ExpIntersection) override these
    def _log_gram(self, P):
        return _log(self._gram(P))

    def _log_cross(self, P, Q):
        return _log(self._cross(P, Q))

    def _log_diag(self, P):
        return _log(self._diag(P))

    # signed log-space evaluation, what Normalize uses: ``(sign, log|K|)``
    # with sign 0 (and log -inf) for zero values. Kernels whose values are
    # exponentials give sign +1 and their ``_log_*``; composites combine
    # their parts' signs and logs, so negative values (Linear, odd powers)
    # inside a sum or product of exponentials stay exact
    def _signed_log_gram(self, P):
        if self._has_log_form:
            return _positive(self._log_gram(P))
        return _signed_log(self._gram(P))

    def _signed_log_cross(self, P, Q):
        if self._has_log_form:
            return _positive(self._log_cross(P, Q))
        return _signed_log(self._cross(P, Q))

    def _signed_log_diag(self, P):
        if self._has_log_form:
            return _positive(self._log_diag(P))
        return _signed_log(self._diag(P))

    # ----------------------------------------------------------- public API
    def __call__(self, X: Objects, Y: Objects | None = None) -> Gram:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` when omitted).

        Parameters
        ----------
        X : sequence of objects
            The objects (vectors, strings, sets, graphs, ...), at least one.
        Y : sequence of objects, optional
            Second collection for a cross-Gram matrix.

        Returns
        -------
        K : ndarray of float64, shape (len(X), len(Y))
            Exactly symmetric when ``Y`` is omitted.
        """
        self._validate()
        P = self._prepare(X, "X")
        if Y is None:
            return self._checked_gram(P)
        return self._checked_cross(P, self._prepare(Y, "Y"))

    def _checked_gram(self, P, block=None):
        """The Gram matrix of prepared objects, as :meth:`__call__` returns it."""
        return self._scanned_gram(P, block)[0]

    def _scanned_gram(self, P, block=None):
        """``(K, scan)``: the Gram matrix of prepared objects, as
        :meth:`__call__` returns it, and the
        :class:`~structk.algorithms.gram_blocks.GramScan` of the pass that
        mirrored it (``None`` for a small Gram): what a learner's PSD check
        would otherwise read ``K`` again for."""
        with np.errstate(over="ignore"), _in_block(block):  # overflow: _check_finite
            done = self._mirrored_gram(P)
            if done is not None:
                K, scan = done
            else:
                K = np.asarray(self._gram(P), dtype=np.float64)
                if not (K.flags.owndata and K.flags.writeable):
                    K = K.copy()  # never mirror into an array the kernel may hold
                scan = mirror_and_scan(K)
        if scan is None or not scan.finite:
            _check_finite(K, self, _offset(block))
        return K, scan

    def _checked_cross(self, P, Q, block=None):
        """The cross-Gram matrix of prepared objects, as :meth:`__call__` returns it."""
        self._check_pair(P, Q)
        with np.errstate(over="ignore"), _in_block(block):
            K = np.asarray(self._cross(P, Q), dtype=np.float64)
        _check_finite(K, self, _offset(block))
        return K

    def _checked_diag(self, P):
        """``k(x, x)`` of prepared objects, as :meth:`diag` returns it."""
        with np.errstate(over="ignore"):
            d = np.asarray(self._diag(P), dtype=np.float64).ravel()
        _check_finite(d, self)
        return d

    def diag(self, X: Objects) -> NDArray[np.float64]:
        """``k(x, x)`` for each object, without building the Gram matrix.

        Returns
        -------
        d : ndarray of float64, shape (len(X),)
        """
        self._validate()
        return self._checked_diag(self._prepare(X, "X"))

    def features(self, X: Objects) -> Features:
        """Explicit feature matrix ``F(X)``: ``k(X) = F(X) @ F(X).T``.

        Only for kernels with ``has_features``; dense or ``scipy.sparse``
        (CSR). The rows of one call share their columns. Between two calls,
        what a column means depends on the kernel:

        * ``fixed_feature_columns``: the same in every call (vector
          coordinates, k-mer indices, Fisher scores), so
          ``k.features(X) @ k.features(Y).T == k(X, Y)``;
        * ``keyed_feature_columns``: column ``c`` stands for the key
          ``k.feature_keys_prepared(k.prepare(X))[c]`` (set tokens,
          shortest-path triples, numbered per call), or for ``c`` itself
          when that is ``None`` (the Weisfeiler-Lehman kernels: ``c`` is a
          label's hash, among 2^62 columns, too many for SciPy's product);
        * neither (sums of such kernels, GraphHopper): numbered per call.

        :func:`aligned_features` puts the features of ``X`` and ``Y`` on
        one shared, compact set of columns for every kernel, so that
        ``F @ G.T == k(X, Y)`` (up to floating-point rounding).

        Returns
        -------
        F : ndarray or scipy.sparse.csr_matrix, shape (len(X), d)
        """
        self._validate()
        if not self.has_features:
            raise TypeError(
                f"{self!r} has no explicit feature map; compute its Gram matrix with k(X) instead"
            )
        return self._features(self._prepare(X, "X"))

    # ------------------------------------------------- prepared-data seam
    # The public seam between objects and compiled loops: prepare a
    # collection once, slice it, and evaluate Gram, cross-Gram, diagonal or
    # features of prepared data. Learners, structk.scale and Nystroem use
    # only these; a kernel author implements the hooks listed in the
    # module's docstring.
    def validate(self) -> Self:
        """Raise if a parameter is invalid, here or in a part, or if the
        kernel needs :meth:`fit` first (``NotFittedError``); returns ``self``.

        Every evaluation does this; call it to fail early (before reading
        data, say).
        """
        self._validate()
        return self

    def prepare(self, X: Objects, name: str = "X") -> Any:
        """Validate ``X`` once and encode it for evaluation.

        Parameters
        ----------
        X : sequence of objects
        name : str
            How errors name the collection (``"X"``, ``"Y"``, ``"landmarks"``).

        Returns
        -------
        P : prepared data
            Opaque to the caller: pass it to :meth:`take`,
            :meth:`gram_prepared`, :meth:`cross_prepared`,
            :meth:`diag_prepared` or :meth:`features_prepared` of the same
            kernel (with the same parameters and fitted state).
        """
        self._validate()
        return self._prepare(X, name)

    def take(self, P: Any, index: Index) -> Any:
        """Prepared data of the objects ``index`` selects (a slice with step
        1 or an integer array), without preparing them again.

        Raises :class:`TakeNotImplemented` when the kernel cannot slice its
        prepared data; :func:`take_prepared` then prepares the subset anew.
        """
        return self._take(P, index)

    def gram_prepared(self, P: Any, *, block: Block | None = None) -> Gram:
        """The Gram matrix of prepared objects, as ``k(X)`` returns it.

        ``block=((row_start, row_stop), (col_start, col_stop))``: where this
        matrix sits in a larger one (a tile of :func:`structk.gram`), so
        that an error names the entry of the larger matrix and the block.
        """
        return self._checked_gram(P, block)

    def cross_prepared(self, P: Any, Q: Any, *, block: Block | None = None) -> Gram:
        """The cross-Gram matrix of prepared objects, as ``k(X, Y)`` returns
        it (``block`` as for :meth:`gram_prepared`)."""
        return self._checked_cross(P, Q, block)

    def diag_prepared(self, P: Any) -> NDArray[np.float64]:
        """``k(x, x)`` of prepared objects, as :meth:`diag` returns it."""
        return self._checked_diag(P)

    def features_prepared(self, P: Any) -> Features:
        """The explicit feature matrix of prepared objects, as :meth:`features`
        returns it (kernels with ``has_features`` only)."""
        if not self.has_features:
            raise TypeError(
                f"{self!r} has no explicit feature map; compute its Gram matrix with k(X) instead"
            )
        return self._features(P)

    def feature_keys_prepared(self, P: Any) -> np.ndarray | None:
        """What each column of :meth:`features_prepared` stands for (kernels
        with ``keyed_feature_columns`` only): an array of one key per
        column, equal keys meaning the same column in any two collections,
        or ``None`` when the column index itself is that key."""
        if not self.keyed_feature_columns:
            raise TypeError(
                f"{self!r} has no feature columns named by keys (keyed_feature_columns is False)"
            )
        return self._feature_keys(P)

    def _feature_keys(self, P):
        return None

    # ------------------------------------------------------ hyperparameters
    # Continuous parameters an optimiser (a Gaussian process's marginal
    # likelihood) may tune, and the Gram's derivatives with respect to
    # them: see structk.kernels.hyperparameters.
    def _own_hyperparameters(self):
        """This kernel's own continuous parameters, as
        :func:`~structk.kernels.hyperparameters.declare` gives them (override)."""
        return []

    def _hyperparameter_parts(self):
        """``(name, part)`` of the parts whose hyperparameters this kernel
        exposes and differentiates through (override: the algebra)."""
        return []

    @property
    def hyperparameters(self) -> list[Hyperparameter]:
        """Every continuous parameter: list of
        :class:`~structk.kernels.hyperparameters.Hyperparameter` (name as in
        ``get_params``, value, bounds, fixed, log)."""
        from .hyperparameters import collect

        return collect(self)

    @property
    def theta(self) -> NDArray[np.float64]:
        """The logarithms of the free hyperparameters (scikit-learn's
        ``Kernel.theta``)."""
        from .hyperparameters import free, theta_of

        return theta_of(free(self))

    @property
    def bounds(self) -> NDArray[np.float64]:
        """Bounds of :attr:`theta` (log space), shape ``(len(theta), 2)``."""
        from .hyperparameters import bounds_of, free

        return bounds_of(free(self))

    def with_theta(self, theta: NDArray[np.float64] | Sequence[float]) -> Self:
        """A copy of this kernel with the free hyperparameters set from
        ``theta`` (log space); this kernel is unchanged."""
        from .hyperparameters import with_theta

        return with_theta(self, theta)

    def gram_gradient_prepared(self, P: Any) -> tuple[Gram, NDArray[np.float64]]:
        """The Gram matrix of prepared objects and its derivatives with
        respect to :attr:`theta`.

        Returns
        -------
        K : ndarray, shape (n, n)
            As :meth:`gram_prepared` gives it.
        dK : ndarray, shape (n, n, len(theta))
            ``dK[:, :, i]`` is the derivative of ``K`` in ``theta[i]``:
            analytic where the kernel provides it, else checked central
            differences (:mod:`structk.kernels.hyperparameters`).
        """
        with np.errstate(over="ignore"):
            K, dK = self._gram_gradient(P)
        _check_finite(K, self)
        _check_finite(dK.reshape(K.shape[0], -1), self)
        return K, dK

    def _gram_gradient(self, P):
        """``(K, dK)`` (override with the analytic derivatives; the default
        is checked finite differences in the free hyperparameters)."""
        from .hyperparameters import finite_difference_gradient, fixed_gram, free

        if not free(self):
            K = fixed_gram(self, P)
            return K, np.zeros(K.shape + (0,))
        return finite_difference_gradient(self, P)

    # -------------------------------------------------------------- algebra
    def __add__(self, other: Kernel | float) -> Kernel:
        from .algebra import Constant, Sum

        if isinstance(other, Kernel):
            return Sum(self, other)
        if _is_number(other):
            return Sum(self, _checked(Constant(other)))
        return NotImplemented

    def __radd__(self, other: float) -> Kernel:
        from .algebra import Constant, Sum

        if _is_number(other):
            return Sum(_checked(Constant(other)), self)
        return NotImplemented

    def __mul__(self, other: Kernel | float) -> Kernel:
        from .algebra import Product, Scaled

        if isinstance(other, Kernel):
            return Product(self, other)
        if _is_number(other):
            return _checked(Scaled(self, other))
        return NotImplemented

    def __rmul__(self, other: float) -> Kernel:
        from .algebra import Scaled

        if _is_number(other):
            return _checked(Scaled(self, other))
        return NotImplemented

    def __truediv__(self, other: float) -> Kernel:
        from .algebra import Scaled

        if _is_number(other):
            if other <= 0:
                raise ValueError(
                    f"a kernel can only be divided by a positive number, got {other!r}"
                )
            return _checked(Scaled(self, 1.0 / other))
        return NotImplemented

    def __pow__(self, exponent: int) -> Kernel:
        from .algebra import Power

        return _checked(Power(self, exponent))

    def __sub__(self, other: object) -> NoReturn:
        raise TypeError(
            "the difference of two kernels is not a kernel in general "
            "(it need not be positive semi-definite); use +, *, c * k with c >= 0, "
            "k ** p, Exp or Normalize"
        )

    __rsub__ = __sub__

    def __neg__(self) -> NoReturn:
        raise TypeError(
            "-k is not a kernel (it is negative semi-definite); scale factors must be >= 0"
        )


# ------------------------------------------------------------------ helpers
def _checked(kernel):
    """``kernel`` after checking its own parameters: the operators (``c * k``,
    ``k ** p``, ``k + c``) refuse an invalid combination when it is written,
    while constructors only store their arguments (scikit-learn's rule)."""
    kernel._check_params()
    return kernel


def aligned_features(kernel: Kernel, X: Objects, Y: Objects) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Feature matrices of ``X`` and ``Y`` on one shared, compact set of columns.

    ``F, G = aligned_features(k, X, Y)`` gives ``F @ G.T == k(X, Y)`` (up to
    floating-point rounding) for every kernel with an explicit feature map
    (``k.has_features``), whatever its columns are (see
    :meth:`Kernel.features`):

    * fixed columns (``fixed_feature_columns``: vector coordinates, k-mer
      indices, Fisher scores): ``k.features(X)`` and ``k.features(Y)``;
    * columns named by keys (``keyed_feature_columns``: set tokens,
      shortest-path triples, the Weisfeiler-Lehman kernels' 2^62 label
      hashes): each collection's columns are put where their keys fall in
      the union of both collections' keys;
    * columns numbered per call (sums of the above, GraphHopper): the
      features of ``X`` and ``Y`` computed in one call, then split.

    Only the columns that ``X`` or ``Y`` use are kept, so ``F`` and ``G``
    have at most as many columns as they have stored entries, and SciPy can
    multiply them (a product over the Weisfeiler-Lehman kernels' 2^62
    columns needs arrays as long as the column space). The columns' order
    is unspecified: align the features of three collections with one call
    on two of them concatenated.

    Parameters
    ----------
    kernel : Kernel
        A kernel with ``has_features``.
    X, Y : sequence of objects

    Returns
    -------
    F : scipy.sparse.csr_matrix of float64, shape (len(X), d)
    G : scipy.sparse.csr_matrix of float64, shape (len(Y), d)

    Examples
    --------
    >>> import networkx as nx
    >>> from structk.kernels import WeisfeilerLehman, aligned_features
    >>> X, Y = [nx.path_graph(3), nx.cycle_graph(4)], [nx.star_graph(3)]
    >>> k = WeisfeilerLehman(h=1, node_label=None)
    >>> F, G = aligned_features(k, X, Y)
    >>> bool(((F @ G.T).toarray() == k(X, Y)).all())
    True
    """
    import scipy.sparse as sp

    if not kernel.has_features:
        raise TypeError(
            f"{kernel!r} has no explicit feature map; compute its cross-Gram with k(X, Y) instead"
        )
    if not kernel.fixed_feature_columns and not kernel.keyed_feature_columns:
        X, Y = check_objects(X, "X"), check_objects(Y, "Y")
        both = kernel.features(_concatenated(X, Y))
        F, G = sp.csr_matrix(both[: len(X)]), sp.csr_matrix(both[len(X) :])
        return _compact(F, G, None, None)
    P, Q = kernel.prepare(X, "X"), kernel.prepare(Y, "Y")
    kernel._check_pair(P, Q)
    F = sp.csr_matrix(kernel.features_prepared(P))
    G = sp.csr_matrix(kernel.features_prepared(Q))
    if kernel.fixed_feature_columns:
        return _compact(F, G, None, None)
    return _compact(F, G, kernel.feature_keys_prepared(P), kernel.feature_keys_prepared(Q))


def _compact(
    F: sp.csr_matrix, G: sp.csr_matrix, keys_F: np.ndarray | None, keys_G: np.ndarray | None
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """CSR ``F`` and ``G`` renumbered onto the columns (or keys: ``keys_F[c]``
    names column ``c`` of ``F``; ``None``: ``c`` itself) that either uses."""
    import scipy.sparse as sp

    named_F = F.indices.astype(np.int64) if keys_F is None else np.asarray(keys_F)[F.indices]
    named_G = G.indices.astype(np.int64) if keys_G is None else np.asarray(keys_G)[G.indices]
    named = np.concatenate([named_F, named_G])
    if named.dtype.kind == "O":  # any hashable keys (set tokens): numbered by a dict
        index: dict = {}
        cols = np.array(
            [index.setdefault(key, len(index)) for key in named.tolist()], dtype=np.int64
        )
        width = len(index)
    else:
        keys, cols = np.unique(named, return_inverse=True)
        cols, width = cols.ravel(), len(keys)
    width = max(width, 1)  # a column even when no object has a feature
    out = []
    for M, part in ((F, cols[: F.nnz]), (G, cols[F.nnz :])):
        # new arrays throughout: the kernel's own (prepared data) stay untouched
        M = sp.csr_matrix(
            (np.array(M.data, dtype=np.float64), part, M.indptr.copy()), shape=(M.shape[0], width)
        )
        M.sum_duplicates()
        out.append(M)
    return out[0], out[1]


def _concatenated(X, Y):
    """``X`` followed by ``Y`` (validated collections), as one collection."""
    if isinstance(X, np.ndarray) and isinstance(Y, np.ndarray):
        return np.concatenate([X, Y])
    if hasattr(X, "tocsr") and hasattr(Y, "tocsr"):
        import scipy.sparse as sp

        return sp.vstack([X, Y], format="csr")
    return list(X) + list(Y)


def take_prepared(kernel: Kernel, objects: Objects, P: Any, index: Index, name: str) -> Any:
    """``kernel.take(P, index)``, or ``objects[index]`` prepared anew when
    the kernel cannot slice its prepared data."""
    try:
        return kernel.take(P, index)
    except TakeNotImplemented:
        if isinstance(index, slice) or hasattr(objects, "shape"):
            subset = cast(Any, objects)[index]
        else:
            subset = [objects[i] for i in np.asarray(index).tolist()]
        return kernel.prepare(subset, name)


@contextlib.contextmanager
def _in_block(block):
    """Name the block of a larger matrix in an overflow a kernel reports
    while computing it (``block`` as for :meth:`Kernel.gram_prepared`)."""
    if block is None:
        yield
        return
    (r0, r1), (c0, c1) = block
    try:
        with in_tile():
            yield
    except KernelOverflowError as exc:
        raise KernelOverflowError(
            f"{exc} (positions within the block of rows {r0}:{r1} and columns {c0}:{c1})"
        ) from None


def _offset(block):
    return (0, 0) if block is None else (block[0][0], block[1][0])


def _is_number(x):
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _is_default(value, default):
    if default is inspect.Parameter.empty:
        return False
    if value is default:
        return True
    if type(value) is not type(default) and not (_is_number(value) and _is_number(default)):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # arrays and other objects without a plain ==
        return False


def _param_equal(a, b):
    """Whether two parameter values are equal, as :meth:`Kernel.__eq__` says."""
    if a is b:
        return True
    if isinstance(a, Kernel) or isinstance(b, Kernel):
        return isinstance(a, Kernel) and isinstance(b, Kernel) and a == b
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if type(a) is not type(b) or a.shape != b.shape:
            return False
        # a labelled array (a Biopython substitution matrix) names its rows
        if not _param_equal(getattr(a, "alphabet", None), getattr(b, "alphabet", None)):
            return False
        try:
            return bool(np.array_equal(a, b, equal_nan=True))
        except TypeError:  # object or string arrays: NaN is not theirs
            return bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_param_equal(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_param_equal(a[key], b[key]) for key in a)
        )
    if _is_nan(a) and _is_nan(b):
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _param_key(value):
    """A hashable stand-in for a parameter value: equal values (as
    :func:`_param_equal` says) give equal keys."""
    if isinstance(value, Kernel):
        return hash(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biuf":
            # equal values of any numeric dtype give the same bytes: as float64,
            # -0.0 made 0.0 and every NaN the same NaN
            canon = np.where(np.isnan(value), np.nan, value.astype(np.float64) + 0.0)
            return ("ndarray", value.shape, canon.tobytes())
        return ("ndarray", value.shape, tuple(_param_key(v) for v in value.ravel().tolist()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_param_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((_param_key(k), _param_key(v)) for k, v in value.items()))
    if _is_nan(value):
        return "nan"
    try:
        return hash(value)
    except TypeError:  # compared by its own ==, which the hash cannot follow
        return type(value).__qualname__


def _is_nan(x):
    return isinstance(x, (float, np.floating)) and bool(np.isnan(x))


def _repr_value(value):
    if isinstance(value, (np.floating, np.integer)):
        return repr(value.item())
    if callable(value) and not isinstance(value, Kernel) and hasattr(value, "__qualname__"):
        return value.__qualname__
    return repr(value)


def _product(A, B):
    """``A @ B`` of feature matrices; dense ones through
    :func:`structk._threads.small_matmul` (one BLAS thread when small, so
    that no OpenBLAS thread spins on after it), sparse ones (no BLAS) as
    they are."""
    if isinstance(A, np.ndarray) and isinstance(B, np.ndarray):
        from .._threads import small_matmul

        return small_matmul(A, B)
    return A @ B


def _dense(K):
    """A Gram matrix as a dense float64 array (from dense or sparse)."""
    if hasattr(K, "toarray"):
        K = K.toarray()
    return np.asarray(K, dtype=np.float64)


def _row_sq_norms(F):
    if hasattr(F, "multiply"):
        return np.asarray(F.multiply(F).sum(axis=1), dtype=np.float64).ravel()
    F = np.asarray(F, dtype=np.float64)
    return np.einsum("ij,ij->i", F, F)


def _log(K):
    with np.errstate(divide="ignore"):
        return np.log(K)


def _positive(L):
    """``(sign, log)`` of positive values given by their logarithms ``L``."""
    L = np.asarray(L, dtype=np.float64)
    return np.where(np.isneginf(L), 0.0, 1.0), L


def _signed_log(K):
    """``(sign(K), log|K|)`` (sign 0 and log -inf where ``K`` is 0)."""
    K = _dense(K)
    with np.errstate(divide="ignore"):
        return np.sign(K), np.log(np.abs(K))


def _check_finite(K, kernel, offset=(0, 0)):
    """Raise if ``K`` holds inf or NaN, naming the entry.

    ``offset`` is added to the reported (row, column) position when ``K`` is
    one block of a larger matrix.
    """
    # a finite sum proves every entry finite, in one pass and no temporary
    if not np.isfinite(np.sum(K)) and not np.isfinite(K).all():
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(K))[0])
        value = K[idx]
        idx = tuple(i + o for i, o in zip(idx, offset))
        where = f"entry {idx}" if len(idx) == 2 else f"object {idx[0]}"
        if np.isinf(value):
            raise KernelOverflowError(
                f"{kernel!r} overflows float64 at {where} ({value}); scale the "
                "kernel down or normalise it (Normalize computes exponentials "
                "in log space)"
            )
        raise ValueError(f"{kernel!r} gave a non-finite value ({value}) at {where}")
