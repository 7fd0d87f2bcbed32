"""scikit-learn's estimator conventions, without importing scikit-learn.

Importing scikit-learn costs 1-3 s of CPU (``sklearn.utils.fixes`` imports
``scipy.stats`` and, through narwhals, pandas), more than ``structk demo``
or a ``structk predict`` of a few hundred objects spends on its work. The
learners the command line runs (:class:`~structk.learners.KernelSVM`,
:class:`~structk.learners.KernelLogisticRegression`,
:class:`~structk.learners.NearestClassMean`, the ridges, the perceptron),
:class:`~structk.learners.GaussianProcessRegressor` and
:class:`~structk.hmm.DiscreteHMM` therefore derive from the small
bases here, which implement the estimator contract scikit-learn documents
for estimators that do not inherit from it ("Rolling your own estimator"):

- ``get_params(deep)`` / ``set_params(**params)`` over the constructor's
  arguments (nested ``<param>__<name>`` keys included), so that
  :func:`sklearn.base.clone`, ``GridSearchCV``, ``cross_val_score`` and
  ``Pipeline`` work as with scikit-learn's own estimators;
- ``__sklearn_tags__`` (what ``is_classifier`` and the estimator checks
  read), ``score`` (accuracy, R²) and the HTML repr, each importing
  scikit-learn when called, which only scikit-learn's own machinery or a
  user does;
- the text repr scikit-learn prints (changed parameters only, sorted).

The helpers :func:`clone`, :func:`check_is_fitted`,
:func:`check_random_state` and :func:`warn_not_converged` do for structk's
own code what their scikit-learn namesakes do, and raise or warn with
scikit-learn's classes (``NotFittedError``, ``ConvergenceWarning``),
imported when they raise or warn.

References
----------
scikit-learn developers, "Developing scikit-learn estimators",
https://scikit-learn.org/stable/developers/develop.html
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import inspect
import numbers
import sys
import warnings

import numpy as np

#: One line of the text repr holds at most this many characters (the width
#: of scikit-learn's pretty printer); a longer repr is left to it.
_REPR_WIDTH = 80


class BaseEstimator:
    """Parameters, text repr and tags of a structk estimator.

    The constructor of a subclass stores its keyword arguments under their
    own names and does nothing else (scikit-learn's rule), so that the
    parameters are read back from the ``__init__`` signature.
    """

    @classmethod
    def _get_param_names(cls):
        """The constructor's parameter names, sorted."""
        return sorted(init_param_names(cls))

    def get_params(self, deep=True):
        """The estimator's parameters, by name.

        Parameters
        ----------
        deep : bool, default=True
            Also the parameters of parameters that are estimators, as
            ``<param>__<name>``.

        Returns
        -------
        dict
        """
        return get_params(
            self, deep, lambda value: hasattr(value, "get_params") and not isinstance(value, type)
        )

    def set_params(self, **params):
        """Set parameters (``<param>__<name>`` for a nested estimator's).

        Returns
        -------
        self
        """
        return set_params(
            self,
            params,
            lambda name: ValueError(
                f"Invalid parameter {name!r} for estimator {self}. Valid "
                f"parameters are: {self._get_param_names()!r}."
            ),
        )

    def __repr__(self):
        changed = _changed_params(self)
        parts = [f"{k}={v!r}" for k, v in sorted(changed.items())]
        text = f"{type(self).__name__}({', '.join(parts)})"
        if len(text) <= _REPR_WIDTH and all(_plain(v) for v in changed.values()):
            return text
        # wrapped or with containers: scikit-learn's pretty printer
        return _sklearn_repr(self)

    def __sklearn_tags__(self):
        from sklearn.utils import Tags, TargetTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
        )

    def _repr_html_(self):
        """The HTML diagram of notebooks (scikit-learn's)."""
        from sklearn.utils import estimator_html_repr

        return estimator_html_repr(self)


class ClassifierMixin:
    """Tags and ``score`` (mean accuracy) of a classifier."""

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags

        return _typed(super().__sklearn_tags__(), "classifier", ClassifierTags())

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``predict(X)`` against ``y``
        (:func:`sklearn.metrics.accuracy_score`)."""
        return _score(self, "accuracy_score", X, y, sample_weight)


class RegressorMixin:
    """Tags and ``score`` (R²) of a regressor."""

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags

        return _typed(super().__sklearn_tags__(), "regressor", RegressorTags())

    def score(self, X, y, sample_weight=None):
        """Coefficient of determination of ``predict(X)`` against ``y``
        (:func:`sklearn.metrics.r2_score`)."""
        return _score(self, "r2_score", X, y, sample_weight)


def _typed(tags, kind, kind_tags):
    """``tags`` of a ``kind`` ("classifier", "regressor"): it needs ``y``."""
    tags.estimator_type = kind
    setattr(tags, f"{kind}_tags", kind_tags)
    tags.target_tags.required = True
    return tags


def _score(estimator, metric, X, y, sample_weight):
    import sklearn.metrics

    return getattr(sklearn.metrics, metric)(y, estimator.predict(X), sample_weight=sample_weight)


#: ``cls -> (cls.__init__, its parameter names)``: ``inspect.signature``
#: costs about 50 us a call, and a GP's fit clones and compares its kernels
#: (get_params) a few dozen times.
_PARAM_NAMES: dict = {}


def init_param_names(cls):
    """The parameter names of ``cls.__init__`` in their order (an estimator's
    or a kernel's parameters; ``*args`` and ``**kwargs`` are refused)."""
    init = cls.__init__
    known = _PARAM_NAMES.get(cls)
    if known is not None and known[0] is init:  # (__init__ replaced: read again)
        return list(known[1])
    names = _read_param_names(cls, init)
    _PARAM_NAMES[cls] = (init, tuple(names))
    return names


def _read_param_names(cls, init):
    if init is object.__init__:
        return []
    names = []
    for p in inspect.signature(init).parameters.values():
        if p.name == "self":
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise RuntimeError(
                f"{cls.__name__}.__init__ must name its parameters "
                "(no *args or **kwargs): get_params relies on them"
            )
        names.append(p.name)
    return names


def get_params(obj, deep, nested):
    """The parameters of ``obj`` (an estimator or a kernel) by name, read
    from its constructor's; with ``deep``, also those of each parameter
    for which ``nested(value)`` holds, as ``<param>__<name>``."""
    params = {}
    for name in obj._get_param_names():
        value = getattr(obj, name)
        if deep and nested(value):
            params.update((f"{name}__{k}", v) for k, v in value.get_params(deep=True).items())
        params[name] = value
    return params


def set_params(obj, params, invalid):
    """Set ``params`` on ``obj`` (an estimator or a kernel), a nested
    object's as ``<param>__<name>``; ``invalid(name)`` is the error for a
    name ``obj`` does not have. Returns ``obj``."""
    valid = obj.get_params(deep=True)
    nested = {}
    for key, value in params.items():
        name, sep, sub = key.partition("__")
        if name not in valid:
            raise invalid(name)
        if sep:
            nested.setdefault(name, {})[sub] = value
        else:
            setattr(obj, name, value)
            valid[name] = value
    for name, sub_params in nested.items():
        valid[name].set_params(**sub_params)
    return obj


def _changed_params(estimator):
    """The parameters that differ from the constructor's defaults (by repr,
    as scikit-learn's repr decides; NaN equals NaN)."""
    signature = inspect.signature(type(estimator).__init__)
    defaults = {name: p.default for name, p in signature.parameters.items()}
    changed = {}
    for name, value in estimator.get_params(deep=False).items():
        default = defaults.get(name, inspect.Parameter.empty)
        same = repr(value) == repr(default) or (_is_nan(value) and _is_nan(default))
        if default is inspect.Parameter.empty or not same:
            changed[name] = value
    return changed


def _is_nan(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value != value


def _plain(value):
    """Whether scikit-learn's pretty printer shows ``value`` as ``repr``
    does: anything but a container or one of scikit-learn's estimators
    (which cannot exist before scikit-learn is imported)."""
    if isinstance(value, (dict, list, tuple, set, frozenset, np.ndarray)):
        return False
    base = sys.modules.get("sklearn.base")
    return base is None or not isinstance(value, base.BaseEstimator)


_REPR_PROXIES = {}


def _sklearn_repr(estimator):
    """scikit-learn's text repr of ``estimator``, by a stand-in class of the
    same name and constructor that derives from ``sklearn.base.BaseEstimator``."""
    from sklearn.base import BaseEstimator as SkBase

    cls = type(estimator)
    proxy = _REPR_PROXIES.get(cls)
    if proxy is None:
        proxy = type(cls.__name__, (SkBase,), {"__init__": cls.__init__})
        _REPR_PROXIES[cls] = proxy
    stand_in = object.__new__(proxy)
    stand_in.__dict__.update(estimator.__dict__)
    return SkBase.__repr__(stand_in)


# ------------------------------------------------------------------ helpers
def clone(estimator):
    """A new, unfitted estimator with the same parameters.

    structk's estimators and kernels are rebuilt from ``get_params(deep=False)``
    (parameters that are estimators cloned in turn, others deep-copied), or by
    their own ``__sklearn_clone__``, as :func:`sklearn.base.clone` does; any
    other object goes to :func:`sklearn.base.clone` itself.
    """
    if not _ours(estimator):
        from sklearn.base import clone as sk_clone

        return sk_clone(estimator)
    if hasattr(estimator, "__sklearn_clone__"):
        return estimator.__sklearn_clone__()
    params = {k: clone_param(v) for k, v in estimator.get_params(deep=False).items()}
    new = type(estimator)(**params)
    kept = new.get_params(deep=False)
    for name, value in params.items():
        if kept[name] is not value:
            raise RuntimeError(
                f"Cannot clone object {estimator}, as the constructor either "
                f"does not set or modifies parameter {name}"
            )
    return new


def _ours(obj):
    return (
        hasattr(obj, "get_params")
        and not isinstance(obj, type)
        and type(obj).__module__.startswith("structk.")
    )


def clone_param(value):
    """A parameter's value for a clone: estimators cloned, containers of
    them entry by entry, anything else deep-copied (``clone(value,
    safe=False)`` in scikit-learn)."""
    kind = type(value)
    if kind is dict:
        return {k: clone_param(v) for k, v in value.items()}
    if kind in (list, tuple, set, frozenset):
        return kind(clone_param(v) for v in value)
    if hasattr(value, "get_params") and not isinstance(value, type):
        return clone(value)
    return copy.deepcopy(value)


def not_fitted_error(message):
    """scikit-learn's ``NotFittedError`` with ``message`` (to raise)."""
    from sklearn.exceptions import NotFittedError

    return NotFittedError(message)


def is_not_fitted_error(exc):
    """Whether ``exc`` is scikit-learn's ``NotFittedError`` (without
    importing scikit-learn: one was raised only if it is imported)."""
    module = sys.modules.get("sklearn.exceptions")
    return module is not None and isinstance(exc, module.NotFittedError)


def check_is_fitted(estimator, attributes=None, *, msg=None):
    """Raise scikit-learn's ``NotFittedError`` unless ``estimator`` is fitted:
    it has the named ``attributes`` (all of them), or, without names, some
    attribute ending in ``_`` (as :func:`sklearn.utils.validation.check_is_fitted`);
    ``msg`` replaces the default message (``%(name)s``: the class name)."""
    if attributes is None:
        fitted = any(k.endswith("_") and not k.startswith("__") for k in vars(estimator))
    else:
        names = [attributes] if isinstance(attributes, str) else attributes
        fitted = all(hasattr(estimator, name) for name in names)
    if not fitted:
        if msg is None:
            msg = (
                "This %(name)s instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            )
        raise not_fitted_error(msg % {"name": type(estimator).__name__})


def check_random_state(seed):
    """A ``numpy.random.RandomState`` from ``seed``: NumPy's global one for
    ``None``, a new one seeded with an integer, ``seed`` itself when it is
    one (as :func:`sklearn.utils.check_random_state`)."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")


_QUIET = contextvars.ContextVar("structk_quiet_convergence", default=False)


@contextlib.contextmanager
def quiet_convergence():
    """Inside, :func:`warn_not_converged` warns nothing (as an ``ignore``
    filter for ``ConvergenceWarning`` would, without importing scikit-learn
    for the class)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def warn_not_converged(message, stacklevel=2):
    """Warn ``message`` as scikit-learn's ``ConvergenceWarning`` (unless
    inside :func:`quiet_convergence`)."""
    if _QUIET.get():
        return
    from sklearn.exceptions import ConvergenceWarning

    warnings.warn(message, ConvergenceWarning, stacklevel=stacklevel + 1)
