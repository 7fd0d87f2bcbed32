"""What a saved learner may hold: its parameters and fitted state, declared.

:func:`structk.load` rebuilds a learner without running its constructor or
its ``fit``, so nothing but this table stands between the values in a file
and the learner's prediction code. Each learner (and the feature map and
centerer a learner holds, Nystroem and DiscreteHMM) has one entry in
:data:`SCHEMAS`:

* ``params``: each constructor parameter and the rule its ``fit`` applies
  to it (``C`` a real number > 0, ``multi_class`` one of "ovo", "ovr", ...);
* ``layouts``: the fitted attributes each way of fitting sets (``fit``
  with the dual solver sets ``support_``, ``dual_coef_``, ...; the primal
  solver sets ``coef_`` and ``feature_map_`` instead), chosen by
  ``select`` (the ``solver_`` the model records), each attribute with its
  rule: type, dtype kind, shape, finiteness, range.

Shapes are written with names (``("m", "s")``: machines by support
vectors): the first attribute that meets a name fixes it, the others must
agree, so ``dual_coef_``, ``support_`` and ``intercept_`` cannot disagree;
derived names (the number of machines from ``classes_`` and
``multi_class``) are computed by the layout's ``derive`` steps. A fitted
learner must hold exactly its layout's attributes (plus
``n_features_in_``/``feature_names_in_``, which scikit-learn's input
checks add); an unfitted one holds none. A violation raises
:class:`SchemaError` naming the attribute (``KernelSVM.dual_coef_``),
which :func:`structk.load` turns into a
:class:`~structk.exceptions.ModelFileError` naming the file.

``tests/test_model_file_schema.py`` fits every learner in every layout and
checks that the attributes ``fit`` sets are exactly the declared ones, and
that corrupting each of them is refused with its name.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validation import check_scalar


class SchemaError(ValueError):
    """A stored learner breaks its schema; the message names the attribute."""


# ------------------------------------------------------------------ rules
class _Real:
    """A number as ``check_scalar`` (what ``fit`` calls) accepts it; with
    ``exact``, an integer must be stored as one (fitted counts); ``bind``
    names the dimension it fixes (``n_train_`` is ``n``)."""

    def __init__(
        self,
        lower=None,
        strict=False,
        integer=False,
        none=False,
        minus_one=False,
        exact=False,
        upper=None,
        bind=None,
    ):
        self.lower, self.strict, self.integer = lower, strict, integer
        self.none, self.minus_one, self.exact = none, minus_one, exact
        self.upper, self.bind = upper, bind

    def __call__(self, value, where, ctx):
        if value is None and self.none:
            return
        if self.exact and not (
            isinstance(value, (numbers.Integral, np.integer))
            and not isinstance(value, (bool, np.bool_))
        ):
            raise SchemaError(f"{where} must be an integer, got {value!r}")
        if self.minus_one and isinstance(value, numbers.Integral) and value == -1:
            return
        try:
            value = check_scalar(
                value,
                where,
                lower=self.lower,
                lower_inclusive=not self.strict,
                upper=self.upper,
                integer=self.integer,
            )
        except (TypeError, ValueError) as exc:
            raise SchemaError(str(exc)) from None
        if self.bind:
            ctx.bind(self.bind, int(value), where)


class _OneOf:
    def __init__(self, *values):
        self.values = values

    def __call__(self, value, where, ctx):
        if not any(type(value) is type(v) and value == v for v in self.values):
            raise SchemaError(f"{where} must be one of {list(self.values)}, got {value!r}")


class _Flag:
    def __call__(self, value, where, ctx):
        if not isinstance(value, (bool, np.bool_)):
            raise SchemaError(f"{where} must be True or False, got {value!r}")


class _Seed:
    """``random_state``: None or a seed ``check_random_state`` accepts."""

    def __call__(self, value, where, ctx):
        if value is None:
            return
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, numbers.Integral)
            or not 0 <= value < 2**32
        ):
            raise SchemaError(
                f"{where} must be None or an integer seed in [0, 2**32), got {value!r}"
            )


class _NoneOrInt:
    def __call__(self, value, where, ctx):
        if value is not None and (
            isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral)
        ):
            raise SchemaError(f"{where} must be None or an integer, got {value!r}")


class _Nothing:
    """An attribute stored as ``None`` (a Dask client; a count a path lacks)."""

    def __call__(self, value, where, ctx):
        if value is not None:
            raise SchemaError(f"{where} must be None here, got {_short(value)}")


class _Kernel:
    """A structk kernel, or (``precomputed``) the string "precomputed"."""

    def __init__(self, precomputed=True):
        self.precomputed = precomputed

    def __call__(self, value, where, ctx):
        from .kernels import Kernel

        if isinstance(value, Kernel):
            return
        if self.precomputed and isinstance(value, str) and value == "precomputed":
            return
        wanted = "a structk Kernel" + (" or 'precomputed'" if self.precomputed else "")
        raise SchemaError(f"{where} must be {wanted}, got {_short(value)}")


class _FittedKernel:
    """``kernel_``: a fitted copy of the parameter ``of`` (the same class),
    or "precomputed" when that is."""

    def __init__(self, of="kernel"):
        self.of = of

    def __call__(self, value, where, ctx):
        given = getattr(ctx.obj, self.of)
        if isinstance(given, str):
            if not (isinstance(value, str) and value == given):
                raise SchemaError(f"{where} must be {given!r} (as {self.of}), got {_short(value)}")
            return
        if type(value) is not type(given):
            raise SchemaError(
                f"{where} must be a fitted {type(given).__name__} (as "
                f"{self.of}), got {_short(value)}"
            )


class _Array:
    """An ndarray of a dtype kind (``"f"`` floats, ``"iu"`` integers, ``None``
    any), of the given shape (names bound across attributes; ``shape`` may
    be a function of the learner), finite, at least ``lower``, and for an
    index array within ``[0, dims[index])`` (strictly increasing with
    ``increasing``)."""

    def __init__(self, kinds, shape, lower=None, index=None, increasing=False):
        self.kinds, self.shape, self.lower = kinds, shape, lower
        self.index, self.increasing = index, increasing

    def __call__(self, value, where, ctx):
        if not isinstance(value, np.ndarray):
            raise SchemaError(f"{where} must be an array, got {_short(value)}")
        names = {"f": "floats", "iu": "integers", "fiu": "numbers"}
        if self.kinds is not None and value.dtype.kind not in self.kinds:
            raise SchemaError(
                f"{where} must hold {names.get(self.kinds, self.kinds)}, got dtype {value.dtype}"
            )
        shape = self.shape(ctx.obj) if callable(self.shape) else self.shape
        if value.ndim != len(shape):
            raise SchemaError(
                f"{where} must have {len(shape)} dimension(s), got shape {value.shape}"
            )
        for axis, (size, want) in enumerate(zip(value.shape, shape)):
            if isinstance(want, str):
                ctx.bind(want, size, where, axis)
            else:
                ctx.expect(want, size, where, axis)
        if value.dtype.kind == "f" and value.size and not np.isfinite(value).all():
            at = np.unravel_index(int(np.argmin(np.isfinite(value))), value.shape)
            raise SchemaError(
                f"{where}[{', '.join(map(str, at))}] is {value[at]}; it must be finite"
            )
        if self.lower is not None and value.size and value.min() < self.lower:
            raise SchemaError(f"{where} must be >= {self.lower}, holds {value.min()}")
        if self.index is not None and value.size:
            top = ctx.dims[self.index][0]
            if value.min() < 0 or value.max() >= top:
                raise SchemaError(
                    f"{where} must index the {top} objects of "
                    f"{ctx.dims[self.index][1]}, holds {value.min()}..{value.max()}"
                )
        if self.increasing and value.size > 1 and not (np.diff(value) > 0).all():
            raise SchemaError(f"{where} must be strictly increasing")


class _Labels:
    """``classes_``: at least two distinct, non-missing labels; fixes ``c``."""

    def __call__(self, value, where, ctx):
        if not isinstance(value, np.ndarray) or value.ndim != 1:
            raise SchemaError(f"{where} must be a 1-D array of class labels, got {_short(value)}")
        if value.dtype.kind not in "biufUO":
            raise SchemaError(f"{where} must hold class labels, got dtype {value.dtype}")
        if len(value) < 2:
            raise SchemaError(f"{where} must hold at least 2 classes, got {len(value)}")
        items = value.tolist()
        for i, label in enumerate(items):
            if label is None or (isinstance(label, float) and not np.isfinite(label)):
                raise SchemaError(f"{where}[{i}] is {label!r}, which cannot be a class")
        try:
            distinct = len(set(items))
        except TypeError:
            raise SchemaError(f"{where} holds an unhashable label") from None
        if distinct != len(items):
            raise SchemaError(f"{where} repeats a class")
        ctx.bind("c", len(value), where)


class _Objects:
    """Training objects kept for prediction (a list, an array or a sparse
    matrix of ``size`` objects); ``None`` with a precomputed kernel."""

    def __init__(self, size, of="kernel"):
        self.size, self.of = size, of

    def __call__(self, value, where, ctx):
        precomputed = isinstance(getattr(ctx.obj, self.of, None), str)
        if precomputed:
            if value is not None:
                raise SchemaError(
                    f"{where} must be None with a precomputed kernel, got {_short(value)}"
                )
            return
        if not (isinstance(value, (list, np.ndarray)) or hasattr(value, "tocsr")):
            raise SchemaError(
                f"{where} must be the training objects (a list or an array), got {_short(value)}"
            )
        if (
            isinstance(value, np.ndarray)
            and value.dtype.kind == "f"
            and not np.isfinite(value).all()
        ):
            raise SchemaError(f"{where} holds a value that is not finite")
        ctx.bind(self.size, value.shape[0] if hasattr(value, "shape") else len(value), where)


class _Either:
    """The first rule when ``test(learner)`` holds, else the second."""

    def __init__(self, test, yes, no):
        self.test, self.yes, self.no = test, yes, no

    def __call__(self, value, where, ctx):
        (self.yes if self.test(ctx.obj) else self.no)(value, where, ctx)


class _Nested:
    """A learner or feature map held by this one (``centerer_``,
    ``feature_map_``), checked by its own schema; ``share`` passes this
    one's dimensions to it (``n``: its indices must index our objects);
    ``then(value, ctx)`` derives our dimensions from it."""

    def __init__(self, name, share=(), then=None):
        self.name, self.share, self.then = name, share, then

    def __call__(self, value, where, ctx):
        if type(value).__name__ != self.name or type(value).__module__.split(".")[0] != "structk":
            raise SchemaError(f"{where} must be a {self.name}, got {_short(value)}")
        inner = _Context(value, {k: ctx.dims[k] for k in self.share if k in ctx.dims})
        check(value, where, inner)
        if self.then is not None:
            self.then(value, where, ctx)


# ---------------------------------------------------------------- context
class _Context:
    def __init__(self, obj, dims=None):
        self.obj = obj
        self.dims = dict(dims or {})  # name -> (size, what fixed it)

    def bind(self, name, size, where, axis=None):
        if name not in self.dims:
            self.dims[name] = (size, where)
            return
        self.expect(name, size, where, axis)

    def expect(self, want, size, where, axis=None):
        part = "" if axis is None else f" along axis {axis}"
        if isinstance(want, str):
            known, source = self.dims[want]
            if size != known:
                raise SchemaError(
                    f"{where} has {size} entries{part}, but {source} says {known}: they must agree"
                )
        elif size != want:
            raise SchemaError(f"{where} has {size} entries{part}, {want} expected")


# ---------------------------------------------------------- derived sizes
def _svm_machines(obj, where, ctx):
    c, source = ctx.dims["c"]
    ovr = obj.multi_class == "ovr"
    m = 1 if c == 2 else (c if ovr else c * (c - 1) // 2)
    ctx.dims["m"] = (
        m,
        f"{where}.classes_ ({c} classes, multi_class={obj.multi_class!r}: {m} machine(s))",
    )


def _class_machines(obj, where, ctx):
    c, _ = ctx.dims["c"]
    ctx.dims["m"] = (
        1 if c == 2 else c,
        f"{where}.classes_ ({c} classes: {1 if c == 2 else c} machine(s))",
    )


def _platt(obj, where, ctx):
    """``probA_``/``probB_``: one per machine, or none (fitted without
    ``probability``)."""
    p = len(obj.probA_) if isinstance(obj.probA_, np.ndarray) else -1
    m, _ = ctx.dims["m"]
    if p not in (0, m):
        raise SchemaError(
            f"{where}.probA_ has {p} entries, but {ctx.dims['m'][1]}: one per machine, or none"
        )
    ctx.dims["p"] = (p, f"{where}.probA_")


def _support_counts(obj, where, ctx):
    if int(np.sum(obj.n_support_)) != ctx.dims["s"][0]:
        raise SchemaError(
            f"{where}.n_support_ sums to {int(np.sum(obj.n_support_))}, but "
            f"{ctx.dims['s'][1]} has {ctx.dims['s'][0]} support vectors"
        )


def _outputs(obj, where, ctx):
    """Ridge targets: one output (``_y_ndim`` 1) or ``o`` of them."""
    if obj._y_ndim == 1:
        ctx.dims["o"] = (1, f"{where}._y_ndim (one output)")


def _alpha_in_grid(obj, where, ctx):
    if not any(float(obj.alpha_) == float(a) for a in np.atleast_1d(obj.alphas)):
        raise SchemaError(
            f"{where}.alpha_ = {obj.alpha_!r} is not one of alphas {_short(obj.alphas)}"
        )


def _at_most_components(obj, where, ctx):
    k, source = ctx.dims["k"]
    if k > obj.n_components:
        raise SchemaError(f"{source} has {k} components, more than n_components={obj.n_components}")


def _same_training_set(*names):
    def rule(obj, where, ctx):
        n, source = ctx.dims["n"]
        for name in names:
            held = getattr(obj, name).n_train_
            if held != n:
                raise SchemaError(f"{where}.{name}.n_train_ is {held}, but {source} says {n}")

    return rule


def _view_kernels(obj, where, ctx):
    """KernelCCA: each view's centerer holds that view's kernel (``kernel_x``
    or, left at ``None``, ``kernel``; the same for ``y``)."""
    for view in ("x", "y"):
        given = getattr(obj, f"kernel_{view}")
        source = f"kernel_{view}" if given is not None else "kernel"
        given = obj.kernel if given is None else given
        held = getattr(obj, f"{view}_centerer_").kernel
        same = held == given if isinstance(given, str) else type(held) is type(given)
        if not same:
            raise SchemaError(
                f"{where}.{view}_centerer_.kernel is {_short(held)}, but {source} is "
                f"{_short(given)}"
            )


def _feature_count(fmap, where, ctx):
    """The number of features a feature map gives: the Nyström basis's
    columns, or the vocabulary's length (``None``: the kernel's fixed
    columns, known only by evaluating it)."""
    if fmap.V is not None:
        ctx.dims["f"] = (fmap.V.shape[1], f"{where}.V")
        ctx.dims["l"] = (fmap.V.shape[0], f"{where}.V")
    elif fmap.vocabulary is not None:
        ctx.dims["f"] = (len(fmap.vocabulary), f"{where}.vocabulary")


def _same_landmarks(obj, where, ctx):
    if not np.array_equal(obj.landmark_indices_, obj.feature_map_.landmark_indices):
        raise SchemaError(
            f"{where}.landmark_indices_ differ from {where}.feature_map_.landmark_indices"
        )


def _landmark_count(fmap, where, ctx):
    if fmap.n_landmarks != ctx.dims["l"][0]:
        raise SchemaError(
            f"{where}.n_landmarks is {fmap.n_landmarks}, but "
            f"{ctx.dims['l'][1]} says {ctx.dims['l'][0]}"
        )


# ---------------------------------------------------------------- schemas
def _solver_params():
    from .learners.primal import SOLVERS
    from .scale._landmarks import LANDMARKS as _LANDMARKS

    return {
        "solver": _OneOf(*SOLVERS),
        "n_components": _Real(lower=1, integer=True, none=True),
        "landmarks": _OneOf(*_LANDMARKS),
        "random_state": _Seed(),
        "n_jobs": _NoneOrInt(),
        "client": _Nothing(),
        "progress": _Flag(),
    }


_PSD = _OneOf("auto", "full", "none")
_N = ("n_train_", _Real(lower=1, integer=True, exact=True, bind="n"))
_FIT = [_N, ("kernel_", _FittedKernel())]
_COUNT = _Real(lower=0, integer=True, exact=True)
_FLOATS = _Array("f", ("m",))


def _past_the_gram(kind, per_machine):
    """The attributes of a fit on features (``kind`` "primal" or
    "nystroem"), with ``per_machine`` the learner's own."""
    steps = [
        ("solver_", _OneOf(kind)),
        _N,
        ("kernel_", _Kernel(precomputed=False)),
        ("feature_map_", _Nested("FeatureMap", share=("n",), then=_feature_count)),
    ]
    if kind == "nystroem":
        steps.append(("landmark_indices_", _Array("iu", ("l",), index="n")))
        steps.append((None, _same_landmarks))
    return steps + per_machine


def _svm():
    per_machine = [
        ("classes_", _Labels()),
        (None, _svm_machines),
        ("coef_", _Array("f", ("m", "f"))),
        ("intercept_", _FLOATS),
        ("n_iter_", _Array("iu", ("m",), lower=0)),
        ("rkhs_norm_", _Array("f", ("m",), lower=0)),
        ("n_support_", _Nothing()),
        (None, _platt),
        ("probA_", _Array("f", ("p",))),
        ("probB_", _Array("f", ("p",))),
    ]
    dual = [
        ("solver_", _OneOf("dual")),
        *_FIT,
        ("classes_", _Labels()),
        (None, _svm_machines),
        ("support_", _Array("iu", ("s",), index="n", increasing=True)),
        ("support_vectors_", _Objects("s")),
        ("dual_coef_", _Array("f", ("m", "s"))),
        ("rkhs_norm_", _Array("f", ("m",), lower=0)),
        ("intercept_", _FLOATS),
        ("n_support_", _Array("iu", ("c",), lower=0)),
        (None, _support_counts),
        ("dual_objective_", _FLOATS),
        ("n_iter_", _Array("iu", ("m",), lower=0)),
        (None, _platt),
        ("probA_", _Array("f", ("p",))),
        ("probB_", _Array("f", ("p",))),
    ]
    return {
        "params": {
            "kernel": _Kernel(),
            "C": _Real(lower=0, strict=True),
            "tol": _Real(lower=0, strict=True),
            "multi_class": _OneOf("ovo", "ovr"),
            "decision_function_shape": _OneOf("ovo", "ovr"),
            "shrinking": _Flag(),
            "max_iter": _Real(lower=1, integer=True, minus_one=True),
            "psd_check": _PSD,
            "probability": _Flag(),
            "loss": _OneOf("auto", "hinge", "squared_hinge"),
            **_solver_params(),
        },
        "layouts": {
            "dual": dual,
            "primal": _past_the_gram("primal", per_machine),
            "nystroem": _past_the_gram("nystroem", per_machine),
        },
    }


def _perceptron():
    return {
        "params": {
            "kernel": _Kernel(),
            "max_iter": _Real(lower=1, integer=True),
            "shuffle": _Flag(),
            "random_state": _Seed(),
            "psd_check": _PSD,
        },
        "layouts": {
            None: [
                *_FIT,
                ("classes_", _Labels()),
                (None, _class_machines),
                ("support_", _Array("iu", ("s",), index="n", increasing=True)),
                ("support_vectors_", _Objects("s")),
                ("dual_coef_", _Array("f", ("m", "s"))),
                ("rkhs_norm_", _Array("f", ("m",), lower=0)),
                ("intercept_", _FLOATS),
                ("n_iter_", _COUNT),
            ]
        },
    }


def _rkhs_norms():
    """A ridge's ``rkhs_norm_``: a float for one output, else one per output."""
    return _Either(
        lambda o: o.dual_coef_.ndim == 1 if "dual_coef_" in vars(o) else o._y_ndim == 1,
        _Real(lower=0),
        _Array("f", ("o",), lower=0),
    )


def _ridge():
    dual_shape = _Array("f", lambda o: ("n",) if o._y_ndim == 1 else ("n", "o"))
    per_output = [
        (None, _outputs),
        ("coef_", _Array("f", ("o", "f"))),
        ("intercept_", _Array("f", ("o",))),
        ("rkhs_norm_", _rkhs_norms()),
        ("X_fit_", _Nothing()),
    ]
    y_ndim = ("_y_ndim", _OneOf(1, 2))
    primal = _past_the_gram("primal", [y_ndim, ("n_iter_", _Nothing()), *per_output])
    nystroem = _past_the_gram("nystroem", [y_ndim, ("n_iter_", _COUNT), *per_output])
    return {
        "params": {
            "kernel": _Kernel(),
            "alpha": _Real(lower=0, strict=True),
            "psd_check": _PSD,
            **_solver_params(),
        },
        "layouts": {
            "dual": [
                ("solver_", _OneOf("dual")),
                y_ndim,
                *_FIT,
                ("dual_coef_", dual_shape),
                ("rkhs_norm_", _rkhs_norms()),
                ("X_fit_", _Objects("n")),
            ],
            "primal": primal,
            "nystroem": nystroem,
        },
    }


class _Alphas:
    """``alphas`` of KernelRidgeCV: a non-empty 1-D sequence of numbers > 0."""

    def __call__(self, value, where, ctx):
        try:
            alphas = np.atleast_1d(np.asarray(value, dtype=np.float64))
        except (TypeError, ValueError):
            raise SchemaError(
                f"{where} must be a sequence of numbers, got {_short(value)}"
            ) from None
        if alphas.ndim != 1 or alphas.size == 0 or isinstance(value, str):
            raise SchemaError(f"{where} must be a non-empty 1-D sequence, got {_short(value)}")
        for i, a in enumerate(alphas):
            _Real(lower=0, strict=True)(float(a), f"{where}[{i}]", ctx)
        ctx.dims["a"] = (alphas.size, where)


def _ridge_cv():
    return {
        "params": {"kernel": _Kernel(), "alphas": _Alphas(), "psd_check": _PSD},
        "layouts": {
            None: [
                *_FIT,
                ("alpha_", _Real(lower=0, strict=True)),
                (None, _alpha_in_grid),
                ("loo_mse_", _Array("f", ("a",), lower=0)),
                (
                    "dual_coef_",
                    _Array("f", lambda o: ("n",) if np.ndim(o.dual_coef_) != 2 else ("n", "o")),
                ),
                ("rkhs_norm_", _rkhs_norms()),
                ("X_fit_", _Objects("n")),
            ]
        },
    }


def _logistic():
    per_class = [
        ("classes_", _Labels()),
        (None, _class_machines),
        ("coef_", _Array("f", ("m", "f"))),
        ("intercept_", _FLOATS),
        ("rkhs_norm_", _Array("f", ("m",), lower=0)),
        ("n_iter_", _COUNT),
    ]
    return {
        "params": {
            "kernel": _Kernel(),
            "alpha": _Real(lower=0, strict=True),
            "tol": _Real(lower=0, strict=True),
            "max_iter": _Real(lower=1, integer=True),
            "psd_check": _PSD,
            **_solver_params(),
        },
        "layouts": {
            "dual": [
                ("solver_", _OneOf("dual")),
                *_FIT,
                ("classes_", _Labels()),
                (None, _class_machines),
                ("dual_coef_", _Array("f", ("m", "n"))),
                ("rkhs_norm_", _Array("f", ("m",), lower=0)),
                ("X_fit_", _Objects("n")),
                ("gradient_norm_", _Real(lower=0)),
                ("n_iter_", _COUNT),
            ],
            "primal": _past_the_gram("primal", per_class),
            "nystroem": _past_the_gram("nystroem", per_class),
        },
    }


def _centerer():
    return {
        "params": {"kernel": _Kernel(), "psd_check": _PSD},
        "layouts": {
            None: [
                *_FIT,
                ("K_fit_rows_", _Array("f", ("n",))),
                ("K_fit_all_", _Real()),
                ("X_fit_", _Objects("n")),
            ]
        },
    }


def _class_means():
    return {
        "params": {"kernel": _Kernel(), "psd_check": _PSD},
        "layouts": {
            None: [
                *_FIT,
                ("classes_", _Labels()),
                ("mean_weights_", _Array("f", ("c", "n"))),
                ("class_norms_", _Array("f", ("c",))),
                ("X_fit_", _Objects("n")),
            ]
        },
    }


def _pca():
    return {
        "params": {
            "kernel": _Kernel(),
            "n_components": _Real(lower=1, integer=True),
            "psd_check": _PSD,
        },
        "layouts": {
            None: [
                *_FIT,
                ("centerer_", _Nested("KernelCenterer")),
                (None, _same_training_set("centerer_")),
                ("eigenvalues_", _Array("f", ("k",), lower=0)),
                (None, _at_most_components),
                ("eigenvectors_", _Array("f", ("n", "k"))),
                ("dual_coef_", _Array("f", ("n", "k"))),
                ("X_fit_", _Objects("n")),
            ]
        },
    }


def _cca():
    return {
        "params": {
            "kernel_x": _Optional(_Kernel()),
            "kernel_y": _Optional(_Kernel()),
            "kernel": _Kernel(),
            "n_components": _Real(lower=1, integer=True),
            "reg": _Real(lower=0, strict=True),
            "psd_check": _PSD,
        },
        "layouts": {
            None: [
                _N,
                ("x_centerer_", _Nested("KernelCenterer")),
                ("y_centerer_", _Nested("KernelCenterer")),
                (None, _same_training_set("x_centerer_", "y_centerer_")),
                (None, _view_kernels),
                ("x_dual_coef_", _Array("f", ("n", "k"))),
                ("y_dual_coef_", _Array("f", ("n", "k"))),
                (None, _at_most_components),
                ("canonical_correlations_", _Array("f", ("k",))),
            ]
        },
    }


def _feature_map():
    nystroem = [
        ("vocabulary", _Nothing()),
        ("eigenvalues", _Array("f", ("r",))),
        (None, _feature_count),
        ("n_landmarks", _COUNT),
        (None, _landmark_count),
        ("landmark_indices", _Array("iu", ("l",), index="n")),
        ("landmark_objects", _Objects("l")),
    ]
    return {
        "params": {
            "kernel": _Kernel(precomputed=False),
            "V": _Either(lambda f: f.V is None, _Nothing(), _Array("f", ("l", "r"))),
            "n_jobs": _NoneOrInt(),
            "client": _Nothing(),
        },
        "select": lambda f: "primal" if f.V is None else "nystroem",
        "layouts": {
            "primal": [
                (
                    "vocabulary",
                    _Either(lambda f: f.vocabulary is None, _Nothing(), _Array(None, ("f",))),
                )
            ],
            "nystroem": nystroem,
        },
        "fitted": True,  # it exists only fitted: its layout always applies
        "rebuilt": ("landmarks",),  # prepared from landmark_objects on loading
    }


def _rank(obj, where, ctx):
    if obj.rank_ > ctx.dims["r"][0]:
        raise SchemaError(
            f"{where}.rank_ is {obj.rank_}, more than the "
            f"{ctx.dims['r'][0]} columns of {ctx.dims['r'][1]}"
        )


def _nystroem():
    params = _solver_params()
    del params["solver"]
    return {
        "params": {
            "kernel": _Kernel(precomputed=False),
            **params,
            "rcond": _Real(lower=0, upper=1, none=True),
        },
        "layouts": {
            None: [
                ("normalization_", _Array("f", ("l", "r"))),
                ("rank_", _COUNT),
                (None, _rank),
                ("component_indices_", _Array("iu", ("l",), lower=0)),
                ("components_", _Objects("l")),
                ("kernel_", _FittedKernel()),
            ]
        },
    }


class _Probabilities(_Array):
    """Rows of probabilities: finite, non-negative, each summing to 1 (to
    1e-6, as ``DiscreteHMM.from_params`` accepts them)."""

    def __init__(self, shape):
        super().__init__("f", shape, lower=0.0)

    def __call__(self, value, where, ctx):
        super().__call__(value, where, ctx)
        sums = value.reshape(-1, value.shape[-1]).sum(axis=1) if value.size else []
        for r, total in enumerate(sums):
            if abs(total - 1.0) > 1e-6:
                row = f" row {r}" if value.ndim == 2 else ""
                raise SchemaError(f"{where}{row} sums to {float(total)!r}, not 1")


class _Alphabet:
    """``alphabet``: a name or symbols ``resolve_alphabet`` accepts; fixes
    ``a``, the number of symbols."""

    def __call__(self, value, where, ctx):
        from .alphabets import resolve_alphabet
        from .hmm import MAX_SYMBOLS

        try:
            symbols = resolve_alphabet(value)
        except (TypeError, ValueError) as exc:
            raise SchemaError(f"{where}: {str(exc).splitlines()[0]}") from None
        if len(symbols) > MAX_SYMBOLS:
            raise SchemaError(f"{where} has {len(symbols)} symbols, more than {MAX_SYMBOLS}")
        ctx.symbols = tuple(symbols)
        ctx.bind("a", len(symbols), where)


class _HMMInit:
    """``init``: "random", "frequencies" or a dict of starting parameters."""

    def __call__(self, value, where, ctx):
        from .hmm import _INITS

        if not (isinstance(value, dict) or (isinstance(value, str) and value in _INITS)):
            raise SchemaError(
                f"{where} must be one of {list(_INITS)} or a dict of starting "
                f"parameters, got {_short(value)}"
            )


def _same_symbols(value, where, ctx):
    """``alphabet_``: the tuple of symbols the ``alphabet`` parameter names."""
    if not isinstance(value, tuple) or value != ctx.symbols:
        raise SchemaError(
            f"{where} {_short(value)} is not the tuple of symbols the "
            f"alphabet {_short(ctx.obj.alphabet)} names"
        )


def _history(obj, where, ctx):
    """At most one log-likelihood per E-step of the run kept (as many for
    "em"; SQUAREM keeps only the points it accepts)."""
    if len(obj.history_) > obj.n_iter_:
        raise SchemaError(
            f"{where}.history_ has {len(obj.history_)} entries, more than the "
            f"{obj.n_iter_} E-steps of {where}.n_iter_"
        )


def _restart(obj, where, ctx):
    if obj.best_restart_ >= obj.n_restarts:
        raise SchemaError(
            f"{where}.best_restart_ is {obj.best_restart_}, but n_restarts is {obj.n_restarts}"
        )


def _hmm():
    from .hmm import _ALGORITHMS, _CONVERGENCE

    from_params = [
        ("startprob_", _Probabilities(("s",))),
        ("transmat_", _Probabilities(("s", "s"))),
        ("emissionprob_", _Probabilities(("s", "a"))),
        ("alphabet_", _same_symbols),
        ("history_", _Array("f", ("h",))),
        ("n_iter_", _COUNT),
        (None, _history),
        ("converged_", _Flag()),
        ("best_restart_", _COUNT),
        (None, _restart),
    ]
    return {
        "params": {
            "n_states": _Real(lower=1, integer=True, bind="s"),
            "alphabet": _Alphabet(),
            "n_iter": _Real(lower=1, integer=True),
            "tol": _Real(lower=0),
            "n_restarts": _Real(lower=1, integer=True),
            "init": _HMMInit(),
            "random_state": _Seed(),
            "ignore_case": _Flag(),
            "pseudocount": _Real(lower=0),
            "algorithm": _OneOf(*_ALGORITHMS),
            "convergence": _OneOf(*_CONVERGENCE),
        },
        # fitted by fit (which counts the symbols), or made by from_params
        "select": lambda o: "fit" if "n_fit_symbols_" in vars(o) else "from_params",
        "layouts": {"fit": [*from_params, ("n_fit_symbols_", _COUNT)], "from_params": from_params},
    }


#: ``{class name: schema}`` of every learner a model file can hold, the
#: feature map of the paths past the Gram, Nystroem and DiscreteHMM. Built
#: on first use.
class _Optional:
    """``None``, or what ``rule`` accepts."""

    def __init__(self, rule):
        self.rule = rule

    def __call__(self, value, where, ctx):
        if value is not None:
            self.rule(value, where, ctx)


class _GPKernel:
    """A GP's ``kernel``: ``None`` (the default, a constant times an RBF), a
    structk kernel, or "precomputed"."""

    def __call__(self, value, where, ctx):
        if value is not None:
            _Kernel()(value, where, ctx)


class _GPAlpha:
    """A GP's ``alpha``: a number >= 0, or one per training object."""

    def __call__(self, value, where, ctx):
        if isinstance(value, np.ndarray):
            _Array("f", (value.shape[0],), lower=0)(value, where, ctx)
        else:
            _Real(lower=0)(value, where, ctx)


class _NoiseBounds:
    def __call__(self, value, where, ctx):
        if isinstance(value, str):
            _OneOf("fixed")(value, where, ctx)
            return
        if not (isinstance(value, (tuple, list)) and len(value) == 2):
            raise SchemaError(f"{where} must be a pair (low, high) or 'fixed', got {_short(value)}")
        for i, v in enumerate(value):
            _Real(lower=0, strict=True)(v, f"{where}[{i}]", ctx)
        low, high = (float(v) for v in value)
        if low > high:
            raise SchemaError(f"{where} must have low <= high, got {_short(value)}")


class _Optimizer:
    def __call__(self, value, where, ctx):
        if value is not None:
            _OneOf("fmin_l_bfgs_b")(value, where, ctx)


class _Candidates:
    """``candidates_``: ``(parameters, log marginal likelihood)`` pairs."""

    def __call__(self, value, where, ctx):
        if not isinstance(value, list):
            raise SchemaError(f"{where} must be a list, got {_short(value)}")
        for i, item in enumerate(value):
            if not (
                isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], dict)
            ):
                raise SchemaError(
                    f"{where}[{i}] must be a pair (parameters, value), got {_short(item)}"
                )
            _Real()(item[1], f"{where}[{i}][1]", ctx)
        if not value:
            raise SchemaError(f"{where} is empty; a fit records each candidate kernel it tried")
        best = max(float(item[1]) for item in value)
        held = getattr(ctx.obj, "log_marginal_likelihood_value_", None)
        if isinstance(held, numbers.Real) and float(held) != best:
            raise SchemaError(
                f"{where}'s best log marginal likelihood is {best}, but "
                f"log_marginal_likelihood_value_ is {held}: the fitted model "
                "is the best candidate"
            )


class _GPKernels:
    """A GP's ``kernel_``: one fitted kernel, or (a classifier with more than
    two classes) one per class."""

    def __call__(self, value, where, ctx):
        values = value if isinstance(value, list) else [value]
        if isinstance(value, list) and "c" in ctx.dims and len(value) != ctx.dims["c"][0]:
            raise SchemaError(
                f"{where} holds {len(value)} kernels, but "
                f"{ctx.dims['c'][1]} has {ctx.dims['c'][0]} classes"
            )
        for i, k in enumerate(values):
            rule = _FittedKernel() if getattr(ctx.obj, "kernel", None) is not None else _Kernel()
            rule(k, where if len(values) == 1 else f"{where}[{i}]", ctx)


class _LaplaceModes:
    """``_binary`` of a GP classifier: per binary problem the Laplace mode
    and its factors, each over the ``n`` training objects."""

    _VECTORS = ("f", "pi", "W_sr", "t")

    def __call__(self, value, where, ctx):
        c, _ = ctx.dims["c"]
        m = 1 if c == 2 else c
        if not isinstance(value, list) or len(value) != m:
            raise SchemaError(
                f"{where} must be a list of {m} binary problem(s) "
                f"({c} classes), got {_short(value)}"
            )
        for i, b in enumerate(value):
            at = f"{where}[{i}]"
            keys = set(self._VECTORS) | {"L", "lml"}
            if not isinstance(b, dict) or set(b) != keys:
                raise SchemaError(f"{at} must hold {sorted(keys)}, got {_short(b)}")
            for name in self._VECTORS:
                _Array("f", ("n",))(b[name], f"{at}[{name!r}]", ctx)
            _Array("f", ("n", "n"))(b["L"], f"{at}['L']", ctx)
            _Real()(b["lml"], f"{at}['lml']", ctx)


def _per_output(obj):
    """The shape of a GP regressor's target mean and scale: a scalar for one
    output, one per output."""
    return () if np.ndim(obj.y_train_) == 1 else ("o",)


def _gp_regressor():
    targets = _Array("f", lambda o: ("n",) if np.ndim(o.y_train_) == 1 else ("n", "o"))
    return {
        "params": {
            "kernel": _GPKernel(),
            "alpha": _GPAlpha(),
            "noise": _Optional(_Real(lower=0, strict=True)),
            "noise_bounds": _NoiseBounds(),
            "optimizer": _Optimizer(),
            "n_restarts_optimizer": _Real(lower=0, integer=True),
            "normalize_y": _Flag(),
            "random_state": _Seed(),
        },
        "layouts": {
            None: [
                _N,
                ("kernel_", _GPKernels()),
                ("y_train_", targets),
                ("_target", _Array("f", ("n", "o"))),
                ("_y_mean", _Array("f", _per_output)),
                ("_y_std", _Array("f", _per_output, lower=0)),
                ("X_train_", _Objects("n")),
                ("_alpha", _GPAlpha()),
                ("candidates_", _Candidates()),
                ("L_", _Array("f", ("n", "n"))),
                ("noise_", _Real(lower=0)),
                ("alpha_", targets),
                ("log_marginal_likelihood_value_", _Real()),
            ]
        },
    }


def _sparse_gp_regressor():
    from .scale._landmarks import LANDMARKS as _LANDMARKS

    def outputs(o):
        return () if np.ndim(o.weights_) == 1 else ("o",)

    return {
        "params": {
            "kernel": _Optional(_Kernel(precomputed=False)),
            "n_components": _Real(lower=1, integer=True),
            "landmarks": _OneOf(*_LANDMARKS),
            "noise": _Real(lower=0, strict=True),
            "noise_bounds": _NoiseBounds(),
            "jitter": _Real(lower=0),
            "optimizer": _Optimizer(),
            "n_restarts_optimizer": _Real(lower=0, integer=True),
            "normalize_y": _Flag(),
            "random_state": _Seed(),
            "client": _Nothing(),
        },
        "layouts": {
            None: [
                _N,
                ("kernel_", _GPKernels()),
                ("components_", _Objects("m")),
                ("component_indices_", _Array("iu", ("m",), index="n")),
                ("L_", _Array("f", ("m", "m"))),
                ("LB_", _Array("f", ("m", "m"))),
                ("weights_", _Array("f", lambda o: ("m",) + outputs(o))),
                ("_y_mean", _Array("f", outputs)),
                ("_y_std", _Array("f", outputs, lower=0)),
                ("candidates_", _Candidates()),
                ("noise_", _Real(lower=0)),
                ("log_marginal_likelihood_value_", _Real()),
            ]
        },
    }


def _gp_classifier():
    return {
        "params": {
            "kernel": _GPKernel(),
            "optimizer": _Optimizer(),
            "n_restarts_optimizer": _Real(lower=0, integer=True),
            "max_iter_predict": _Real(lower=1, integer=True),
            "random_state": _Seed(),
        },
        "layouts": {
            None: [
                _N,
                ("classes_", _Labels()),
                ("kernel_", _GPKernels()),
                ("_max_iter", _Real(lower=1, integer=True)),
                ("X_train_", _Objects("n")),
                ("_binary", _LaplaceModes()),
                (
                    "latent_mode_",
                    _Array("f", lambda o: ("n",) if len(o.classes_) == 2 else ("n", "c")),
                ),
                ("log_marginal_likelihood_value_", _Real()),
            ]
        },
    }


SCHEMAS = {}
_BUILDERS = {
    "KernelSVM": _svm,
    "KernelPerceptron": _perceptron,
    "KernelRidge": _ridge,
    "KernelRidgeCV": _ridge_cv,
    "KernelLogisticRegression": _logistic,
    "KernelCenterer": _centerer,
    "NearestClassMean": _class_means,
    "KernelPCA": _pca,
    "KernelCCA": _cca,
    "FeatureMap": _feature_map,
    "Nystroem": _nystroem,
    "DiscreteHMM": _hmm,
    "GaussianProcessRegressor": _gp_regressor,
    "GaussianProcessClassifier": _gp_classifier,
    "SparseGaussianProcessRegressor": _sparse_gp_regressor,
}
#: Attributes scikit-learn's input checks add to any fitted estimator.
_INPUT = {
    "n_features_in_": _Real(lower=1, integer=True, exact=True, bind="nf"),
    "feature_names_in_": _Array("OU", ("nf",)),
}


def schema_of(obj):
    """The schema of a structk learner (``None`` for any other object)."""
    cls = type(obj)
    if not cls.__module__.startswith("structk.") or cls.__name__ not in _BUILDERS:
        return None
    if cls.__name__ not in SCHEMAS:
        SCHEMAS[cls.__name__] = _BUILDERS[cls.__name__]()
    return SCHEMAS[cls.__name__]


def declared(obj):
    """Every attribute name the schema of ``obj`` allows (parameters, any
    layout's fitted state, the input checks' attributes)."""
    schema = schema_of(obj)
    names = set(schema["params"]) | set(_INPUT)
    for steps in schema["layouts"].values():
        names.update(name for name, _ in steps if name is not None)
    return names


def stale(obj):
    """Fitted attributes of ``obj`` that another way of fitting set and its
    last fit did not (a learner fitted by the dual, then refitted with
    ``solver="primal"``, still holds ``dual_coef_``): not part of the model,
    so :func:`structk.save` does not store them."""
    schema = schema_of(obj)
    if schema is None or len(schema["layouts"]) < 2:
        return set()
    select = schema.get("select") or (lambda o: vars(o).get("solver_"))
    steps = schema["layouts"].get(select(obj))
    if steps is None:
        return set()
    current = {name for name, _ in steps if name is not None}
    others = set().union(
        *({name for name, _ in layout if name is not None} for layout in schema["layouts"].values())
    )
    return (others - current - set(schema["params"])) & set(vars(obj))


def check(obj, where, ctx=None):
    """Check ``obj`` (a learner) against its schema; raise :class:`SchemaError`
    naming the attribute (``where.attribute``)."""
    schema = schema_of(obj)
    if schema is None:
        return
    ctx = ctx or _Context(obj)
    ctx.obj = obj
    # what a model file stores: not the prepared-data caches (private names
    # holding "prepared") nor what loading rebuilds from the stored objects
    state = {
        k: v
        for k, v in vars(obj).items()
        if not (k.startswith("_") and "prepared" in k) and k not in schema.get("rebuilt", ())
    }
    for name, rule in schema["params"].items():
        if name in state:  # the reader fills in missing parameters
            rule(state[name], f"{where}.{name}", ctx)
    unknown = sorted(set(state) - declared(obj))
    if unknown:
        raise SchemaError(f"{where}.{unknown[0]} is not an attribute a {type(obj).__name__} has")
    fitted = {k for k in state if k not in schema["params"] and k not in _INPUT}
    if not fitted and not schema.get("fitted"):
        return  # an unfitted learner: its parameters only
    if len(schema["layouts"]) > 1 and "select" not in schema and "solver_" not in state:
        raise SchemaError(f"{where}.solver_ is missing: a fitted {type(obj).__name__} has it")
    select = schema.get("select") or (lambda o: vars(o).get("solver_"))
    key = select(obj) if len(schema["layouts"]) > 1 else None
    if key not in schema["layouts"]:
        raise SchemaError(
            f"{where}.solver_ must be one of {list(schema['layouts'])}, got "
            f"{_short(vars(obj).get('solver_'))}"
        )
    steps = schema["layouts"][key]
    wanted = {name for name, _ in steps if name is not None}
    missing = sorted(wanted - set(state))
    if missing:
        raise SchemaError(f"{where}.{missing[0]} is missing: a fitted {type(obj).__name__} has it")
    extra = sorted(fitted - wanted)
    if extra:
        raise SchemaError(
            f"{where}.{extra[0]} is not an attribute of a "
            f"{type(obj).__name__} fitted this way ({key or 'fit'})"
        )
    if "n_features_in_" not in state and _takes_arrays(obj):
        raise SchemaError(
            f"{where}.n_features_in_ is missing: a {type(obj).__name__} fitted "
            "on a Gram matrix or on vectors has it"
        )
    for name in ("n_features_in_", "feature_names_in_"):
        if name in state:
            _INPUT[name](state[name], f"{where}.{name}", ctx)
    for name, rule in steps:
        if name is None:
            rule(obj, where, ctx)
        else:
            rule(state[name], f"{where}.{name}", ctx)


def _takes_arrays(obj):
    """Whether a learner was fitted on a 2-D array (a Gram matrix, vectors),
    whose number of columns scikit-learn's checks record."""
    from .learners._base import takes_vectors

    if "kernel_x" in vars(obj):  # KernelCCA: two views, recorded by its centerers
        return False
    kernel = vars(obj).get("kernel")
    if isinstance(kernel, str):
        return kernel == "precomputed"
    return kernel is not None and takes_vectors(kernel)


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
