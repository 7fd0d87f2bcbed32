"""Cross-validating learners on precomputed Gram matrices, as the CLI and demo do.

Each kernel's Gram matrix is computed once on all objects and checked with
:func:`~structk.check_psd` (once: the learners skip their own check of each
fold's principal submatrix of a certified matrix); every learner is then
cross-validated on slices of it (``K[train][:, train]`` to fit,
``K[test][:, train]`` to predict), which gives exactly the result of fitting
on the objects themselves, at the cost of one Gram matrix.

Cross-validation is nested when a learner has a grid (:class:`LearnerSpec`):
on each outer training part an inner cross-validation, again on slices of
the same Gram matrix, chooses the grid point, and the learner refitted with
it there is scored on the outer test part. Every score comes with the
score of a baseline that ignores the objects (the training part's majority
class, or its mean for regression).

References
----------
S. Varma and R. Simon, "Bias in error estimation when using cross-validation
for model selection", BMC Bioinformatics 7 (2006).
"""

from __future__ import annotations

import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import product

import numpy as np

from .. import _tuning, defaults
from .._estimator import clone, quiet_convergence
from .._linalg import take_block
from .folds import kfold, stratified_kfold
from .outputs import progress_bar


def compute_gram(
    kernel,
    objects,
    *,
    progress=False,
    out=None,
    block_size=None,
    blockwise_from=None,
    prepared=None,
):
    """Gram matrix of ``objects``; returns ``(K, seconds)``.

    Without an output file and without a progress bar, up to
    ``blockwise_from`` objects (``None``: ``_tuning.CLI_GRAM_ONE_CALL_MAX_N``)
    are computed by one call of the kernel. With ``progress``, with more
    objects, or with ``out`` a ``.npy`` path, the matrix goes tile by tile
    (``block_size`` objects a side; ``None``: ``_tuning.CLI_GRAM_TILE``)
    through :func:`structk.gram`, which reports progress and bounds memory;
    for a progress bar on a small in-memory matrix the tiles are cut so that
    there are about ten of them. A kernel
    that learns from data (``kernel.needs_fit``) is fitted on a clone first,
    on ``objects`` themselves. ``prepared``: ``kernel.prepare(objects)``
    already at hand (``kernel`` then fitted), used instead of preparing again.
    """
    t0 = time.perf_counter()
    if kernel.needs_fit and prepared is None:
        kernel = clone(kernel).fit(objects)
    n = len(objects)
    if blockwise_from is None:
        blockwise_from = _tuning.CLI_GRAM_ONE_CALL_MAX_N
    if block_size is None:
        block_size = _tuning.CLI_GRAM_TILE
    if out is None and not progress and n <= blockwise_from:
        if prepared is not None:
            return kernel.gram_prepared(prepared), time.perf_counter() - t0
        return kernel(objects), time.perf_counter() - t0
    if out is None and n <= 4 * block_size:
        block_size = max(16, -(-n // 4))
    from ..scale.blockwise import gram

    bar = progress_bar(progress, "gram", "tile")

    def tick(done, total):
        bar.total = total
        bar.update(done - bar.n)  # update, not refresh: keeps the one-second delay

    try:
        K = gram(
            kernel,
            objects,
            block_size=block_size,
            out=out,
            progress=tick if bar is not None else False,
            prepared=prepared,
        )
    finally:
        if bar is not None:
            bar.close()
    return K, time.perf_counter() - t0


# ----------------------------------------------------------------- learners
#: Regularisation searched by the inner cross-validation when a learner
#: expression leaves the parameter open (a value given in the expression fixes
#: it; a list given there replaces the grid).
#: Each is moved by whole decades to the Gram's scale (:func:`scaled_spec`);
#: the values below are those of a Gram whose scale ``s`` rounds to 1.
DEFAULT_GRIDS = {
    "KernelSVM": {"C": (0.01, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4)},
    "KernelLogisticRegression": {
        "alpha": (1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0)
    },
    "KernelRidge": {"alpha": (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3)},
}

#: ``KernelSVM``'s default ``C`` grid goes on with these (moved as it is) on
#: a Gram of at most ``defaults.CV_SVM_WIDE_C_MAX_N`` objects (hinge loss):
#: there every inner fit is small enough for the interior point, which
#: solves a large ``C`` as fast as a small one. (A normalised random walk on
#: ENZYMES chose the top of 0.1 ... 1e5 on 10/10 folds; its inner losses are
#: lowest at 1e6 or 1e7 and rise again at 1e8.)
DEFAULT_SVM_C_ABOVE = (1e5, 1e6, 1e7)

#: The penalties KernelRidgeCV chooses from by leave-one-out (one
#: eigendecomposition for all) when the expression does not give ``alphas``
#: (moved to the Gram's scale as the grids are).
DEFAULT_RIDGE_CV_ALPHAS = (1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1000, 10000)


@dataclass
class KernelGrid:
    """A kernel expression with lists for some parameters: one kernel per
    combination (``candidates``: ``(params, kernel)`` pairs) and the grid
    (parameter name -> values). ``structk cv`` computes each Gram once and
    chooses the parameters on the inner folds, with the learner's."""

    candidates: list
    grid: dict


@dataclass
class LearnerSpec:
    """A learner, the grid its inner cross-validation searches, and its name.

    ``grid`` maps parameter names to candidate values; empty means the
    learner is fitted as given (no inner cross-validation).
    """

    estimator: object
    grid: dict = field(default_factory=dict)
    name: str = ""
    #: parameters whose grid is the default, to be fitted to the Gram's scale
    scaled: tuple = ()
    #: the last ``lazy`` values of a one-parameter grid are searched one at a
    #: time, each only while the largest value searched so far is strictly
    #: the best or all tie (:func:`_inner_losses`)
    lazy: int = 0

    def __post_init__(self):
        self.grid = {k: list(v) for k, v in self.grid.items()}
        if not self.name:
            self.name = _learner_name(self.estimator, self.grid)


def learner_spec(estimator, grid=None, given=()):
    """A :class:`LearnerSpec` whose grid is ``grid`` (parameters written as
    lists) plus the :data:`DEFAULT_GRIDS` entries for parameters the
    expression did not set (``given``)."""
    grid = dict(grid or {})
    scaled = []
    if type(estimator).__name__ == "KernelRidgeCV" and "alphas" not in given:
        estimator = estimator.set_params(alphas=DEFAULT_RIDGE_CV_ALPHAS)
        scaled.append("alphas")
    for param, values in DEFAULT_GRIDS.get(type(estimator).__name__, {}).items():
        if param not in given and param not in grid:
            grid[param] = list(values)
            scaled += [param] if param in SCALED_DEFAULTS else []
    return LearnerSpec(estimator, grid, scaled=tuple(scaled))


#: Default grids placed on the scale of the Gram matrix (see :func:`scaled_spec`),
#: with the power of the scale each moves by: ``C`` multiplies the Gram, a
#: penalty ``alpha`` (ridge, logistic; KernelRidgeCV's ``alphas``) divides it.
SCALED_DEFAULTS = {"C": -1, "alpha": 1, "alphas": 1}


def gram_scale(K):
    """The spread of a Gram matrix about its centre, ``trace(HKH) / n`` =
    mean of the diagonal minus mean of all entries (the mean squared
    distance of the objects to their centroid in feature space, halved
    twice over pairs): what a penalty ``C`` multiplies."""
    return float(np.mean(np.diagonal(K)) - np.mean(K))


def scaled_spec(spec, grams):
    """``spec`` with its default grids moved by whole decades to the scale
    ``s`` of the Gram matrices ``grams`` (:func:`gram_scale`, median over a
    kernel grid). The C-SVM on ``t K`` with ``C`` is the one on ``K`` with
    ``t C``, so ``C`` is searched in ``10**-round(log10 s)`` times 0.01 ...
    1e4 (... 1e7 on a Gram of at most ``defaults.CV_SVM_WIDE_C_MAX_N``
    objects, :data:`DEFAULT_SVM_C_ABOVE`); kernel ridge and logistic
    regression on ``t K`` with ``alpha`` are those on ``K`` with
    ``alpha / t``, so their penalties move the other
    way, ``10**round(log10 s)`` times their :data:`DEFAULT_GRIDS` (and
    KernelRidgeCV's :data:`DEFAULT_RIDGE_CV_ALPHAS`). The labels play no
    part. A normalised random walk on MUTAG (entries in [0.79, 1], s =
    0.033) chose C = 1e4, the top of the unmoved grid, on 10/10 outer
    folds; the moved grid 0.1 ... 1e5 holds that optimum inside."""
    if not spec.scaled:
        return spec
    if (
        "C" in spec.scaled
        and type(spec.estimator).__name__ == "KernelSVM"
        and spec.estimator.get_params().get("loss") in ("hinge", "auto")
        and max(K.shape[0] for K in grams) <= defaults.CV_SVM_WIDE_C_MAX_N
    ):
        above = [v for v in DEFAULT_SVM_C_ABOVE if v > max(spec.grid["C"])]
        spec = replace(
            spec,
            grid={**spec.grid, "C": spec.grid["C"] + above},
            name="",
            lazy=len(above) if len(spec.grid) == 1 else 0,
        )
    s = float(np.median([gram_scale(K) for K in grams]))
    if not (np.isfinite(s) and s > 0.0):
        return spec
    decade = round(np.log10(s))

    def moved(name, values):
        return [_tidy(v * 10.0 ** (SCALED_DEFAULTS[name] * decade)) for v in values]

    grid = {k: (moved(k, vals) if k in spec.scaled else vals) for k, vals in spec.grid.items()}
    estimator = spec.estimator
    if "alphas" in spec.scaled:
        estimator = clone(estimator).set_params(alphas=tuple(moved("alphas", estimator.alphas)))
    return LearnerSpec(estimator, grid, lazy=spec.lazy)


def _learner_name(estimator, grid):
    if not grid:
        return _short_repr(estimator)
    fixed = {k: v for k, v in estimator.get_params(deep=False).items() if k not in grid}
    shown = _short_repr(type(estimator)(**fixed))
    inner = ", ".join(f"{k}=[{', '.join(_fmt_value(v) for v in vals)}]" for k, vals in grid.items())
    head, _, rest = shown.partition("(")
    rest = rest[:-1]
    return f"{head}({inner}{', ' + rest if rest else ''})"


def _short_repr(estimator):
    """``repr`` without the ``kernel='precomputed'`` every CV learner has."""
    text = " ".join(repr(estimator).split())  # scikit-learn wraps long reprs
    return re.sub(r"kernel='precomputed',?\s*", "", text).replace(", )", ")")


def _fmt_value(v):
    return f"{v:g}" if isinstance(v, float) else repr(v)


# ------------------------------------------------------------------- splits
@dataclass
class Splits:
    """Outer folds plus what the inner cross-validation needs."""

    folds: list
    description: str
    kind: str  # "kfold", "loo" or "grouped"
    groups: np.ndarray | None = None
    inner_folds: int = 5
    seed: int = 0


def make_splits(cv, y, task, *, groups=None, repeats=1, seed=0, inner_folds=5):
    """Outer folds for ``cv``: an int K (stratified K-fold for classification,
    K-fold for regression, ``repeats`` times), ``"loo"`` (leave one out) or
    ``"grouped"`` (no group split across folds: one fold per group up to 10
    groups, else 10 folds of whole groups, stratified for classification)."""
    y = np.asarray(y)
    dummy = np.zeros((len(y), 1))
    cv = str(cv).lower()
    if cv == "loo":
        from sklearn.model_selection import LeaveOneOut

        folds = list(LeaveOneOut().split(dummy))
        return Splits(
            folds, f"leave-one-out CV ({len(y)} folds)", "loo", inner_folds=inner_folds, seed=seed
        )
    if cv == "grouped":
        if groups is None:
            raise ValueError("--cv grouped needs --groups (a header regex, a TSV or a CSV column)")
        groups = np.asarray(groups)
        n_groups = len(np.unique(groups))
        if n_groups < 2:
            raise ValueError(f"--cv grouped needs at least 2 groups, --groups gave {n_groups}")
        from sklearn.model_selection import GroupKFold, LeaveOneGroupOut, StratifiedGroupKFold

        if n_groups <= 10:
            folds = list(LeaveOneGroupOut().split(dummy, y, groups))
            text = f"leave-one-group-out CV ({n_groups} groups)"
        elif task == "classification":
            folds = list(
                StratifiedGroupKFold(10, shuffle=True, random_state=seed).split(dummy, y, groups)
            )
            text = f"grouped stratified 10-fold CV ({n_groups} groups)"
        else:
            folds = list(GroupKFold(10).split(dummy, y, groups))
            text = f"grouped 10-fold CV ({n_groups} groups)"
        if task == "classification":
            for train, test in folds:
                if len(np.unique(y[train])) < 2:
                    left = ", ".join(map(str, np.unique(groups[test])))
                    raise ValueError(
                        f"--groups: leaving out group(s) {left} leaves only class "
                        f"{str(y[train][0])!r} to train on; regroup so that every training "
                        "part holds at least two classes"
                    )
        return Splits(folds, text, "grouped", groups, inner_folds, seed)
    try:
        k = int(cv)
    except ValueError:
        raise ValueError(
            f"--cv must be a number of folds, 'loo' or 'grouped', got {cv!r}"
        ) from None
    if k < 2 or k > len(y):
        raise ValueError(
            f"--cv {k}: the number of folds must be between 2 and the number of objects ({len(y)})"
        )
    if task == "classification":
        smallest = int(np.unique(y, return_counts=True)[1].min())
        if k > smallest:
            raise ValueError(
                f"--cv {k}: the smallest class has only {smallest} objects; "
                f"use --cv {max(2, smallest)} or fewer, or --cv loo"
            )
        folds = stratified_kfold(y, k, repeats=repeats, seed=seed)
        text = f"stratified {k}-fold CV"
    else:
        folds = kfold(len(y), k, repeats=repeats, seed=seed)
        text = f"{k}-fold CV"
    if repeats > 1:
        text = f"{repeats} x {text}"
    return Splits(folds, text, "kfold", None, inner_folds, seed)


def _inner_splits(splits, train, y, task):
    """Folds of the training indices ``train`` for the inner cross-validation
    (indices into ``train``)."""
    yt = y[train]
    k = min(splits.inner_folds, len(train))
    if splits.groups is not None:
        g = splits.groups[train]
        n_groups = len(np.unique(g))
        if n_groups >= 2:
            from sklearn.model_selection import GroupKFold

            dummy = np.zeros((len(train), 1))
            inner = list(GroupKFold(min(k, n_groups)).split(dummy, yt, g))
            if task == "classification":
                # an inner split whose training part holds one class cannot
                # score a classifier: it is left out
                inner = [(a, b) for a, b in inner if len(np.unique(yt[a])) >= 2]
                if not inner:
                    raise ValueError(
                        "--groups: every inner split of a training part (groups "
                        f"{', '.join(map(str, np.unique(g)))}) leaves one class to train "
                        "on, so the regularisation cannot be chosen; use --no-nested "
                        "and fix it in --learner, or regroup"
                    )
            return inner
    if task == "classification":
        smallest = int(np.unique(yt, return_counts=True)[1].min())
        if smallest >= 2:
            return stratified_kfold(yt, min(k, smallest), seed=splits.seed)
    return kfold(len(train), k, seed=splits.seed)


def inner_fold_counts(splits, y, task):
    """The number of inner folds each outer fold's training part allows
    (at most ``splits.inner_folds``; fewer when a class, the objects or the
    groups are fewer), by the rules of :func:`_inner_splits`."""
    counts = []
    for train, _ in splits.folds:
        k = min(splits.inner_folds, len(train))
        if splits.groups is not None and len(np.unique(splits.groups[train])) >= 2:
            k = min(k, len(np.unique(splits.groups[train])))
        elif task == "classification":
            smallest = int(np.unique(y[train], return_counts=True)[1].min())
            k = min(k, smallest) if smallest >= 2 else k
        counts.append(k)
    return counts


def inner_folds_text(requested, counts, y, train_parts, task, groups=None):
    """``"inner 5-fold CV"``, or, when the data allow fewer folds than
    ``--inner-folds`` asked for, the number used and why."""
    lo, hi = min(counts), max(counts)
    used = f"{lo}" if lo == hi else f"{lo}-{hi}"
    if hi >= requested:
        return f"inner {requested}-fold CV"
    part = "the training data" if train_parts == 1 else "a training part"
    if groups is not None:
        why = f"the number of groups in {part}"
    elif task == "classification" and len(np.unique(y)) > 1:
        why = f"the size of the smallest class in {part}"
    else:
        why = f"the number of objects in {part}"
    return f"inner {used}-fold CV (--inner-folds {requested} clamped to {why})"


# -------------------------------------------------------------------- folds
def _fit_predict(learner, K, y, train, test, init=None):
    """Fit on ``train``, predict ``test``; ``init``: a model fitted on the
    same ``train`` whose solution seeds this one (see :func:`_path_order`).
    A fold solves many small problems: a learner whose ``fit`` takes
    ``compiled_small`` (:class:`~structk.learners.KernelSVM`) runs them
    compiled from the start (the same iterates), an argument of this fit
    alone."""
    import inspect
    import warnings

    options = {} if init is None else {"init": init}
    if "compiled_small" in inspect.signature(learner.fit).parameters:
        options["compiled_small"] = True
    # ConvergenceWarning ignored: structk's own through quiet_convergence,
    # scikit-learn's by a filter when scikit-learn is loaded
    with warnings.catch_warnings(), quiet_convergence():
        exceptions = sys.modules.get("sklearn.exceptions")
        if exceptions is not None:
            warnings.simplefilter("ignore", exceptions.ConvergenceWarning)
        learner.fit(take_block(K, train), y[train], **options)
    return learner.predict(take_block(K, test, train))


def _path_order(estimator, candidates):
    """The order in which an inner fold fits the grid points, and for each
    the index of the earlier one whose fitted model seeds it (or ``None``).

    A learner whose ``fit`` takes ``init`` (:class:`~structk.learners.KernelSVM`)
    runs its ``C`` values in increasing order, each started from the
    solution at the next smaller ``C`` with the other parameters equal (a
    regularisation path: the same optimum to the solver's ``tol``, in far
    fewer iterations at large ``C``); anything else in grid order, cold.
    ``defaults.CV_SVM_C_PATH`` off: grid order, cold, for every learner.
    """
    import inspect

    plain = list(range(len(candidates))), [None] * len(candidates)
    if (
        not defaults.CV_SVM_C_PATH
        or not candidates
        or "C" not in candidates[0]
        or "init" not in inspect.signature(estimator.fit).parameters
        or not all(isinstance(p["C"], (int, float)) for p in candidates)
    ):
        return plain

    def rest(c):
        return repr(sorted((k, v) for k, v in candidates[c].items() if k != "C"))

    order = sorted(range(len(candidates)), key=lambda c: (rest(c), candidates[c]["C"]))
    seeds = [None] * len(candidates)
    for a, b in zip(order, order[1:]):
        if rest(a) == rest(b):
            seeds[b] = a
    return order, seeds


#: Hyper-parameters some learners choose themselves (reported like a grid's).
_SELF_CHOSEN = {"alpha_": "alpha"}


def _loss(task, y_true, y_pred):
    """Smaller is better: error rate or mean squared error."""
    if task == "classification":
        return float(np.mean(y_pred != y_true))
    return float(np.mean((np.asarray(y_pred, dtype=np.float64) - y_true) ** 2))


def choose_with_ties(spec, K, y, train, inner, task):
    """The grid point :func:`_choose` chooses and the other grid points whose
    inner loss equals its own (``({}, [])`` without a grid)."""
    if not spec.grid:
        return {}, []
    candidates, losses, ok = _inner_losses(spec, K, y, train, inner, task)
    best = min(ok, key=lambda c: losses[c])
    return candidates[best], [candidates[c] for c in ok if c != best and losses[c] == losses[best]]


def _inner_losses(spec, K, y, train, inner, task):
    """The learner's grid points, their summed inner losses on ``K`` and the
    indices of those that did not fail (raises the first failure when all did).

    With ``spec.lazy`` (a one-parameter grid) its last ``lazy`` values are
    searched one at a time, in order, while the largest value searched so
    far has the smallest loss, strictly, or all have the same (every one
    predicting the majority class, say): only the points searched are
    returned. (``KernelSVM``'s default ``C`` grid on a small Gram goes on
    upwards only where the inner folds ask for it.)
    """
    if spec.lazy:
        ((name, values),) = spec.grid.items()
        searched = LearnerSpec(spec.estimator, {name: values[: -spec.lazy]}, spec.name)
        candidates, losses, ok = _inner_losses(searched, K, y, train, inner, task)
        for value in values[-spec.lazy :]:
            top = len(candidates) - 1
            others = [losses[c] for c in ok if c != top]
            flat = all(v == losses[top] for v in others)  # nothing learnt yet
            if top not in ok or not (flat or all(v > losses[top] for v in others)):
                break
            try:
                more, extra, _ = _inner_losses(
                    LearnerSpec(spec.estimator, {name: [value]}), K, y, train, inner, task
                )
            except (ValueError, ArithmeticError, np.linalg.LinAlgError):
                break  # as a failed grid point: not chosen
            candidates, losses = candidates + more, np.append(losses, extra)
            ok = ok + [top + 1]
        return candidates, losses, ok
    names = list(spec.grid)
    candidates = [dict(zip(names, values)) for values in product(*spec.grid.values())]
    losses = np.zeros(len(candidates))
    failed = [None] * len(candidates)
    order, seeds = _path_order(spec.estimator, candidates)
    for itr, ite in inner:
        tr, te = train[itr], train[ite]
        fitted = {}
        for c in order:
            if failed[c] is not None:
                continue
            params = candidates[c]
            model = clone(spec.estimator).set_params(**params)
            try:
                pred = _fit_predict(model, K, y, tr, te, fitted.get(seeds[c]))
                losses[c] += _loss(task, y[te], pred)
                fitted[c] = model
            except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
                failed[c] = exc
    ok = [c for c in range(len(candidates)) if failed[c] is None]
    if not ok:
        raise failed[0]
    return candidates, losses, ok


def _choose_kernel(spec, grams, y, train, inner, task):
    """Kernel parameters and learner grid point chosen jointly on the inner
    folds: ``grams`` is a list of ``(kernel params, K)``, one Gram per value
    of the kernel's grid. The first best on ties, kernels in grid order."""
    scored = []
    for kp, K in grams:
        # without a learner grid: the one candidate {} (the learner as given)
        candidates, losses, ok = _inner_losses(spec, K, y, train, inner, task)
        scored += [(losses[c], kp, candidates[c]) for c in ok]
    best = min(range(len(scored)), key=lambda i: scored[i][0])
    tied = [
        {**kp, **c}
        for i, (loss, kp, c) in enumerate(scored)
        if i != best and loss == scored[best][0]
    ]
    return scored[best][1], scored[best][2], tied


def _fold(spec, K, y, train, test, splits, task):
    """Nested evaluation of one outer fold: choose the grid point on the
    training part, refit there, score the test part beside the baseline.
    ``K`` is a Gram, or a list of ``(kernel params, Gram)`` whose kernel
    parameters are chosen with the learner's on the inner folds (each fit
    by :func:`_fit_predict`)."""
    # the inner folds serve a choice (a grid, a kernel grid); grouped ones
    # are also made without, for their check of the groups
    choosing = spec.grid or isinstance(K, list) or splits.groups is not None
    inner = _inner_splits(splits, train, y, task) if choosing else None
    kparams = {}
    if isinstance(K, list):
        kparams, params, tied = _choose_kernel(spec, K, y, train, list(inner), task)
        K = dict((tuple(sorted(kp.items())), G) for kp, G in K)[tuple(sorted(kparams.items()))]
    else:
        params, tied = choose_with_ties(spec, K, y, train, inner, task)
    model = clone(spec.estimator).set_params(**params)
    pred = _fit_predict(model, K, y, train, test)
    params = {
        **kparams,
        **params,
        **{
            name: float(getattr(model, attr))
            for attr, name in _SELF_CHOSEN.items()
            if hasattr(model, attr)
        },
    }
    yt = y[test]
    # with a grid: how many other grid points had the chosen one's inner loss
    # (a learner choosing its own penalty, KernelRidgeCV, picks a unique best)
    self_chosen = any(hasattr(model, attr) for attr in _SELF_CHOSEN)
    # and which ("tied": the grid points, the table's notes name them)
    ties = {"ties": len(tied)} if spec.grid or self_chosen or kparams else {}
    if tied:
        ties["tied"] = tied
    if spec.grid:
        ties["same_above"] = _same_model_above(model)
    if task == "classification":
        values, counts = np.unique(y[train], return_counts=True)
        majority = values[np.argmax(counts)]
        return {
            "params": params,
            **ties,
            "score": float(np.mean(pred == yt)),
            "baseline": float(np.mean(yt == majority)),
            "one_class": bool(
                len(yt) > 1 and len(np.unique(pred)) == 1 and len(np.unique(y[train])) > 1
            ),
        }
    pred = np.asarray(pred, dtype=np.float64)
    mean = float(np.mean(y[train]))
    sst = float(np.sum((yt - np.mean(yt)) ** 2))
    sse = float(np.sum((yt - pred) ** 2))
    return {
        "params": params,
        **ties,
        "score": float(np.sqrt(sse / len(yt))),
        "baseline": float(np.sqrt(np.mean((yt - mean) ** 2))),
        "r2": 1.0 - sse / sst if sst > 0 else float("nan"),
        "one_class": False,
    }


def _same_model_above(model):
    """The parameters every larger value of which gives ``model`` itself:
    ``C`` of a hinge-loss ``KernelSVM`` solved in the dual with no dual
    variable at its bound ``C`` (a hard margin: the KKT conditions at any
    larger ``C`` hold at the same solution)."""
    if (
        type(model).__name__ != "KernelSVM"
        or getattr(model, "solver_", None) != "dual"
        or getattr(model, "loss_", None) != "hinge"
    ):
        return []
    return ["C"] if float(np.abs(model.dual_coef_).max(initial=0.0)) < model.C else []


def _edge_choice(fold, name, top):
    """The value of ``name`` chosen on ``fold`` if it can tell where the
    optimum lies: not chosen by the first-on-ties rule, and not the grid's
    ``top`` when every larger value gives the same model; else ``None``."""
    value = fold["params"].get(name)
    if fold.get("ties", 1) != 0 or (value == top and name in fold.get("same_above", ())):
        return None
    return value


# ------------------------------------------------------------------ results
@dataclass
class CVResult:
    """One row of a cross-validation table: a kernel x learner pair."""

    kernel: str
    learner: str
    task: str
    folds: list
    gram_seconds: float
    psd: object
    grid: dict = field(default_factory=dict)

    @property
    def metric(self):
        return "accuracy" if self.task == "classification" else "RMSE"

    @property
    def scores(self):
        return np.array([f["score"] for f in self.folds])

    @property
    def baselines(self):
        return np.array([f["baseline"] for f in self.folds])

    @property
    def mean(self):
        return float(np.mean(self.scores))

    @property
    def std(self):
        return float(np.std(self.scores))

    @property
    def is_psd(self):
        return bool(self.psd.is_psd)

    @property
    def one_class_folds(self):
        return sum(f["one_class"] for f in self.folds)

    def edge_folds(self):
        """``{param: folds}`` for grids of 3+ numbers whose chosen value was the
        smallest or largest candidate, strictly better than every other grid
        point in the inner cross-validation (the optimum may lie outside the
        grid). A value chosen by the first-on-ties rule is not counted: on
        separable data every ``C`` from some value on has zero inner error,
        which says nothing about a better ``C`` beyond the grid. Nor is the
        top ``C`` of a fold whose SVM has no dual variable at ``C`` (a hard
        margin, ``same_above``): every larger ``C`` gives that very model."""
        out = {}
        for name, values in self.grid.items():
            if len(values) < 3 or not all(isinstance(v, (int, float)) for v in values):
                continue
            ends = (min(values), max(values))
            n = sum(_edge_choice(f, name, ends[1]) in ends for f in self.folds)
            if n:
                out[name] = n
        return out

    def chosen(self):
        """How often each grid point was chosen, most often first."""
        counts = Counter(tuple(sorted(f["params"].items())) for f in self.folds)
        return [(dict(p), n) for p, n in counts.most_common() if p]

    def as_dict(self):
        """Everything about the row, for JSON output."""
        baseline = "majority class" if self.task == "classification" else "mean predictor"
        out = {
            "kernel": self.kernel,
            "learner": self.learner,
            "task": self.task,
            "metric": self.metric,
            "mean": self.mean,
            "std": self.std,
            "folds": [{k: v for k, v in f.items()} for f in self.folds],
            "baseline": {
                "name": baseline,
                "mean": float(np.mean(self.baselines)),
                "std": float(np.std(self.baselines)),
            },
            "grid": self.grid,
            "grid_edge_folds": self.edge_folds(),
            "one_class_folds": self.one_class_folds,
            "gram_seconds": self.gram_seconds,
            "psd": {
                "is_psd": self.is_psd,
                "min_eigenvalue": self.psd.min_eigenvalue,
                "tol": self.psd.tol,
                "method": self.psd.method,
            },
        }
        if self.task == "regression":
            r2 = np.array([f["r2"] for f in self.folds])
            out["r2"] = {"mean": float(np.mean(r2)), "std": float(np.std(r2))}
        return out


def cross_validate_grams(
    kernels,
    learners,
    objects,
    y,
    *,
    folds=5,
    repeats=1,
    seed=0,
    n_jobs=1,
    progress=False,
    gram=None,
    kernel_names=None,
    task="classification",
    splits=None,
):
    """Nested cross-validation of every (kernel, learner) pair on one Gram
    matrix per kernel.

    Parameters
    ----------
    kernels : list of Kernel
    learners : list of estimators or LearnerSpec
        structk learners, each used with ``kernel="precomputed"``. A
        :class:`LearnerSpec` with a grid has its parameters chosen on each
        outer training part by an inner cross-validation on slices of the
        same Gram matrix (nothing is recomputed); a plain estimator is fitted
        as given.
    objects : sequence
    y : array-like
        Class labels, or numbers for ``task="regression"``.
    folds, repeats, seed : int
        Stratified ``folds``-fold splits, repeated ``repeats`` times, shuffled
        with ``seed``; the same splits for every pair. Ignored when
        ``splits`` is given.
    n_jobs : int
        Outer folds fitted in parallel (joblib).
    progress : bool
        Show progress bars (Gram tiles, folds).
    gram : callable, optional
        ``gram(kernel, objects) -> (K, seconds)``; defaults to
        :func:`compute_gram`.
    kernel_names : list of str, optional
        Names for the table (default: each kernel's repr).
    task : {"classification", "regression"}
        Accuracy beside the majority-class baseline, or RMSE and R² beside
        the mean predictor's RMSE.
    splits : Splits, optional
        From :func:`make_splits`.

    Returns
    -------
    list of CVResult
    """
    from ..psd import check_psd

    y = np.asarray(y)
    if task == "regression":
        y = y.astype(np.float64)
    if splits is None:
        splits = make_splits(folds, y, task, repeats=repeats, seed=seed)
    if gram is None:

        def gram(kernel, objs):
            return compute_gram(kernel, objs, progress=progress)

    specs = [s if isinstance(s, LearnerSpec) else LearnerSpec(s) for s in learners]
    rows = []
    names = kernel_names or [repr(k) for k in kernels]
    for kernel, kernel_name in zip(kernels, names):
        kernel_grid = {}
        if isinstance(kernel, KernelGrid):
            # one Gram per value of the kernel's grid, chosen on the inner folds
            K, seconds, reports = [], 0.0, []
            for params, k in kernel.candidates:
                G, sec = gram(k, objects)
                G = np.asarray(G)
                K.append((params, G))
                seconds += sec
                reports.append(check_psd(G))
            report = next((r for r in reports if not r.is_psd), reports[0])
            kernel_grid = kernel.grid
        else:
            K, seconds = gram(kernel, objects)
            K = np.asarray(K)
            report = check_psd(K)
        # every fold's K[train][:, train] is a principal submatrix of the
        # certified K, hence PSD too: no check per fold
        for spec in specs:
            spec = scaled_spec(spec, [G for _, G in K] if kernel_grid else [K])
            estimator = clone(spec.estimator)
            fixed = {"kernel": "precomputed"}
            if report.is_psd and "psd_check" in estimator.get_params(deep=False):
                fixed["psd_check"] = "none"
            spec = replace(spec, estimator=estimator.set_params(**fixed))
            jobs = ((_fold, (spec, K, y, tr, te, splits, task)) for tr, te in splits.folds)
            results = _run(
                jobs, n_jobs, len(splits.folds), progress, f"{type(spec.estimator).__name__} folds"
            )
            rows.append(
                CVResult(
                    kernel_name,
                    spec.name,
                    task,
                    results,
                    seconds,
                    report,
                    {**kernel_grid, **spec.grid, **_self_chosen_grid(spec.estimator)},
                )
            )
    return rows


def _self_chosen_grid(estimator):
    """The candidates of the penalty a learner chooses itself (KernelRidgeCV's
    ``alphas``), as a grid for the edge notes."""
    alphas = estimator.get_params(deep=False).get("alphas")
    return {"alpha": [float(a) for a in alphas]} if alphas is not None else {}


def _run(jobs, n_jobs, total, progress, desc):
    """The results of ``jobs`` (``(function, args)`` pairs), in order: in
    this process for ``n_jobs=1`` (joblib is not imported), else by joblib's
    ``Parallel``."""
    bar = progress_bar(progress, desc, "fold", total)
    results = []
    if n_jobs == 1:
        done = (fn(*args) for fn, args in jobs)
    else:
        from joblib import Parallel, delayed

        # the workers map a large Gram copy-on-write, not read-only: a read-only
        # array is another type to numba, whose loops would compile again for it
        parallel = Parallel(n_jobs=n_jobs, return_as="generator", mmap_mode="c")
        done = parallel(delayed(fn)(*args) for fn, args in jobs)
    for result in done:
        results.append(result)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return results


# ------------------------------------------------------------------- output
def _chosen_text(row):
    chosen = row.chosen()
    if not chosen:
        return "-"
    return ", ".join(
        " ".join(f"{k}={_fmt_value(v)}" for k, v in p.items())
        + (f" ({n})" if len(chosen) > 1 else "")
        for p, n in chosen
    )


def _cells(row, baseline_column):
    """The table cells of a row; the baseline's only when it differs between
    rows (``baseline_column``), else the table gives it a row of its own."""
    cells = {
        "kernel": row.kernel,
        "learner": compact_learner(row.learner, row.grid),
        row.metric: f"{row.mean:.3f} ± {row.std:.3f}",
    }
    if row.task == "regression":
        r2 = row.as_dict()["r2"]
        cells["R²"] = f"{r2['mean']:.3f} ± {r2['std']:.3f}"
    if baseline_column:
        cells["baseline"] = f"{np.mean(row.baselines):.3f}"
    cells["chosen"] = _chosen_cell(row)
    return cells


def _baseline_cells(row):
    """The row of the baseline (majority class or mean predictor), scored on
    the same outer folds as every other row."""
    name = row.as_dict()["baseline"]["name"]
    return {"kernel": "baseline", "learner": name, row.metric: f"{np.mean(row.baselines):.3f}"}


def _row_notes(row):
    """What the table's rows need said: a learner predicting one class on
    some folds, a choice at the edge of its grid, the grid points that tied
    with the chosen one in the inner cross-validation (each with the number
    of folds where it did)."""
    notes = []
    if row.one_class_folds:
        notes.append(f"predicts one class on {row.one_class_folds}/{len(row.folds)} folds")
    for name, n in row.edge_folds().items():
        notes.append(f"{name} at the grid's edge on {n}/{len(row.folds)} folds")
    tied = Counter(tuple(sorted(p.items())) for f in row.folds for p in f.get("tied", ()))
    if tied:
        folds = sum(bool(f.get("tied")) for f in row.folds)
        points = _points([(dict(p), n) for p, n in tied.most_common()])
        notes.append(
            f"the choice tied in the inner CV on {folds}/{len(row.folds)} folds (the first "
            f"in grid order is kept) with {points}"
        )
    return notes


def _short_value(v):
    """A grid value in few characters: ``1e7`` for ``1e+07``, ``1e-8`` for ``1e-08``."""
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", _fmt_value(v))


def _chosen_cell(row):
    """Every grid point chosen on an outer fold, most often first, with the
    number of folds that chose it: ``C=0.01 (4), 10 (3), 1e3 (3)`` (the
    parameter's name once when the grid has one parameter). The table wraps
    the cell; the TSV and JSON give the same choices."""
    chosen = row.chosen()
    return _points(chosen, counted=len(chosen) > 1) if chosen else "-"


def _points(points, counted=True):
    """``[(params, folds), ...]`` as ``C=0.01 (4), 10 (3)``: the parameter's
    name written once when all points have the same single parameter, the
    number of folds after each when ``counted``."""
    single = len({k for p, _ in points for k in p}) == 1
    parts = []
    for i, (p, n) in enumerate(points):
        text = " ".join(
            _short_value(v) if single and i else f"{k}={_short_value(v)}" for k, v in p.items()
        )
        parts.append(text + (f" ({n})" if counted else ""))
    return ", ".join(parts)


def grid_summary(values):
    """A grid in a few characters: ``10^-2..10^4`` for consecutive
    decades (all of them), ``0.5..8 (4)`` for other numbers, the values themselves when
    there are at most three of them or they are not all numbers."""
    values = list(values)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if len(values) <= 3 or not numbers:
        return "[" + ", ".join(_fmt_value(v) for v in values) + "]"
    grid = sorted(set(values))
    if grid[0] > 0:
        logs = np.log10(grid)
        if np.allclose(logs, np.round(logs), atol=1e-9) and np.all(np.diff(np.round(logs)) == 1):
            # every decade from the first to the last: the count says nothing more
            return f"10^{round(logs[0])}..10^{round(logs[-1])}"
    return f"{_fmt_value(grid[0])}..{_fmt_value(grid[-1])} ({len(grid)})"


def compact_learner(learner, grid):
    """``learner`` (as :func:`_learner_name` writes it) with each grid of
    ``grid`` summarised by :func:`grid_summary`: ``KernelSVM(C∈10^-4..10^5)``."""
    for name, values in grid.items():
        # a list the user wrote, or KernelRidgeCV's own candidates (a tuple)
        key = name if re.search(rf"\b{re.escape(name)}=\[", learner) else name + "s"
        pattern = rf"\b{re.escape(key)}=[\[(][^\])]*[\])]"
        learner = re.sub(pattern, lambda m: f"{key}∈{grid_summary(values)}", learner, count=1)
    return learner


def edge_notes(rows):
    """One note per (row, parameter) whose chosen value lay at the same end
    of its grid, strictly better than every other grid point in the inner
    cross-validation, on most outer folds: the optimum may lie beyond the
    grid. (A value chosen only by the first-on-ties rule, e.g. when every
    ``C`` predicts the majority class, says nothing about the direction; nor
    does the top ``C`` of a hard-margin SVM, the same for every larger ``C``.)

    The note names the kernel, the learner's parameter, the end and the
    folds, and suggests a grid extended by two steps past that end (for a
    grid of positive numbers, in its last ratio: decades stay decades).
    """
    notes = []
    for row in rows:
        for name, values in row.grid.items():
            if len(values) < 3 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
            ):
                continue
            grid = sorted(set(values))
            chosen = [_edge_choice(f, name, grid[-1]) for f in row.folds]
            ends = {
                "largest": (grid[-1], chosen.count(grid[-1])),
                "smallest": (grid[0], chosen.count(grid[0])),
            }
            end = max(ends, key=lambda e: ends[e][1])
            value, n = ends[end]
            if 2 * n <= len(row.folds):
                continue
            head = (
                f"{row.kernel}, {row.learner.partition('(')[0]}: {name} = "
                f"{_fmt_value(value)}, the {end} value of its grid, was chosen on "
                f"{n}/{len(row.folds)} outer folds; the best {name} may lie "
                f"{'above' if end == 'largest' else 'below'} the grid"
            )
            wider = _wider_grid(grid, end)
            learner = row.learner
            # KernelRidgeCV's own candidates are its ``alphas``, a tuple
            key = name if re.search(rf"\b{re.escape(name)}=\[", learner) else name + "s"
            pattern = rf"\b{re.escape(key)}=[\[(][^\])]*[\])]"
            if wider is not None and re.search(pattern, learner):
                listed = f"{key}=[{', '.join(_fmt_value(v) for v in wider)}]"
                learner = re.sub(pattern, lambda m: listed, learner, count=1)
                head += f": try a wider grid, e.g. --learner '{learner}'"
            elif re.search(rf"\b{re.escape(name)}=\[", row.kernel):
                head = head.replace(
                    f"{row.kernel}, {row.learner.partition('(')[0]}: ", f"{row.kernel}: "
                )
                head += f": try a wider grid for {name} in the --kernel expression"
            else:
                head += f": try a wider grid for {name} in the --learner expression"
            notes.append(head)
    return notes


def _wider_grid(grid, end):
    """``grid``'s last three values at ``end`` and two more steps beyond it."""
    if grid[0] <= 0:
        return None
    if end == "largest":
        ratio = grid[-1] / grid[-2]
        return grid[-3:] + [_tidy(grid[-1] * ratio), _tidy(grid[-1] * ratio**2)]
    ratio = grid[1] / grid[0]
    return [_tidy(grid[0] / ratio**2), _tidy(grid[0] / ratio)] + grid[:3]


def _tidy(x):
    """``x`` rounded to 12 significant digits (1e4 * 10 is 1e5, not 100000.00000000001)."""
    return float(f"{x:.12g}")


#: Width the ``cv`` table aims at, and the kernel cells it never shortens
#: (the documented kernels fit): a longer kernel expression is cut to fit the
#: table in :data:`TABLE_WIDTH` columns (but to at least
#: ``KERNEL_CELL_MIN`` characters) and listed whole in a footnote. A learner
#: cell is wrapped (after its ``(`` and commas) to ``LEARNER_CELL_MAX``
#: characters, the chosen grid points (after commas) to what is left of the
#: width, but at least ``CHOSEN_CELL_MIN``.
TABLE_WIDTH = 100
KERNEL_CELL_MAX = 32
KERNEL_CELL_MIN = 24
LEARNER_CELL_MAX = 28
CHOSEN_CELL_MIN = 12


def format_table(rows):
    """A plain-text table that keeps to ``TABLE_WIDTH`` columns: kernel,
    learner (its grids summarised), score ± std over folds, every grid point
    chosen on an outer fold (how many folds chose each); a row for the
    baseline (majority class or mean predictor, on the same folds), or a
    column when rows differ in it; then the Gram matrices' times and PSD
    status (one line, not a column: they belong to the kernel, not the
    row), and a note line for each row whose learner predicts one class on
    a fold or chose the edge of its grid.

    A kernel expression longer than ``KERNEL_CELL_MAX`` characters is
    shortened to ``[N] start…`` and written whole, wrapped, in a footnote
    ``[N] expression`` under the table; a long learner cell and the chosen
    grid points are wrapped onto continuation lines of their row. (The TSV
    and JSON forms hold every expression, grid point and choice.)"""
    import textwrap

    if not rows:
        return ""
    same = all(np.array_equal(r.baselines, rows[0].baselines) for r in rows)
    cells = [_cells(r, baseline_column=not same) for r in rows]
    headers = list(dict.fromkeys(h for c in cells for h in c))
    learners = [c["learner"] for c in cells]
    for c in cells:
        c["learner"] = _wrap_cell(c["learner"], LEARNER_CELL_MAX, r"(?<=[(,])")
    footnotes = _shorten_kernels(cells, headers)
    others = sum(_width(h, cells) + 2 for h in headers if h != "chosen")
    room = max(CHOSEN_CELL_MIN, TABLE_WIDTH - others)
    for c in cells:
        c["chosen"] = _wrap_cell(c["chosen"], room, r"(?<=,)")
    if same:
        cells.append(_baseline_cells(rows[0]))
    widths = [_width(h, cells) for h in headers]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    for c in cells:
        parts = [c.get(h, "-").split("\n") for h in headers]
        for k in range(max(map(len, parts))):
            line = [p[k] if k < len(p) else "" for p in parts]
            lines.append("  ".join(t.ljust(w) for t, w in zip(line, widths)).rstrip())
    lines += _gram_lines(rows, cells)
    for row, cell, learner in zip(rows, cells, learners):
        for note in _row_notes(row):
            lines += textwrap.wrap(
                f"note: {cell['kernel']}, {learner}: {note}",
                TABLE_WIDTH,
                subsequent_indent="  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
    for label, text in footnotes:
        lines += textwrap.wrap(
            f"{label} {text}",
            TABLE_WIDTH,
            subsequent_indent=" " * (len(label) + 1),
            break_long_words=True,
            break_on_hyphens=False,
        )
    return "\n".join(lines)


def _gram_lines(rows, cells):
    """The Gram matrices' times and PSD status, once per kernel (not per
    row): ``Gram matrix: 9.18 s, positive semi-definite``, or the kernels
    named (as in the table) when there are several."""
    import textwrap

    grams = {}
    for row, cell in zip(rows, cells):
        # a footnoted kernel by its label
        name = cell["kernel"].split(" ")[0] if cell["kernel"].startswith("[") else cell["kernel"]
        grams.setdefault(name, row)
    bad = [name for name, row in grams.items() if not row.is_psd]
    if len(grams) == 1:
        ((name, row),) = grams.items()
        psd = "NOT positive semi-definite" if bad else "positive semi-definite"
        text = f"Gram matrix: {row.gram_seconds:.2f} s, {psd}"
    else:
        times = ", ".join(f"{name} {row.gram_seconds:.2f} s" for name, row in grams.items())
        if not bad:
            psd = "all positive semi-definite"
        elif len(bad) == len(grams):
            psd = "none positive semi-definite"
        else:
            psd = "NOT positive semi-definite: " + ", ".join(bad)
        text = f"Gram matrices: {times}; {psd}"
    return textwrap.wrap(
        text, TABLE_WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )


def _width(header, cells):
    """The width of a column: its header's or its longest cell line's."""
    return max(len(header), *(len(t) for c in cells for t in c.get(header, "").split("\n")))


def _wrap_cell(text, width, breaks):
    """``text`` on lines of at most ``width`` characters, broken only where
    the regular expression ``breaks`` matches (a piece longer than
    ``width`` keeps its own line); continuation lines are indented by one
    space. The lines are joined by newlines."""
    if len(text) <= width:
        return text
    lines = [""]
    for piece in re.split(breaks, text):
        if lines[-1].strip() and len(lines[-1]) + len(piece.rstrip()) > width:
            lines[-1] = lines[-1].rstrip()
            lines.append(" " + piece.lstrip())
        else:
            lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


def _shorten_kernels(cells, headers):
    """Shorten, in place, the kernel cells longer than ``KERNEL_CELL_MAX``:
    ``[N] `` and the expression's start, as wide as the other columns leave
    of ``TABLE_WIDTH`` (at least ``KERNEL_CELL_MIN``; the chosen grid points
    count as ``CHOSEN_CELL_MIN`` wide, since they wrap). Returns the
    footnotes ``(label, expression)``, one per distinct expression."""
    long = [c for c in cells if len(c["kernel"]) > KERNEL_CELL_MAX]
    if not long:
        return []
    others = sum(
        (min(_width(h, cells), CHOSEN_CELL_MIN) if h == "chosen" else _width(h, cells)) + 2
        for h in headers
        if h != "kernel"
    )
    width = min(KERNEL_CELL_MAX, max(KERNEL_CELL_MIN, TABLE_WIDTH - others))
    labels = {}
    for cell in long:
        text = cell["kernel"]
        label = labels.setdefault(text, f"[{len(labels) + 1}]")
        cell["kernel"] = f"{label} {text[: width - len(label) - 2]}…"
    return [(label, text) for text, label in labels.items()]


def format_tsv(rows):
    """Tab-separated: one header line, one line per kernel x learner pair."""
    headers = [
        "kernel",
        "learner",
        "metric",
        "mean",
        "std",
        "baseline",
        "r2_mean",
        "chosen",
        "gram_seconds",
        "psd",
        "one_class_folds",
        "folds",
    ]
    lines = ["\t".join(headers)]
    for r in rows:
        d = r.as_dict()
        r2 = f"{d['r2']['mean']:.6g}" if "r2" in d else ""
        lines.append(
            "\t".join(
                [
                    r.kernel,
                    r.learner,
                    r.metric,
                    f"{r.mean:.6g}",
                    f"{r.std:.6g}",
                    f"{d['baseline']['mean']:.6g}",
                    r2,
                    _chosen_text(r),
                    f"{r.gram_seconds:.2f}",
                    "yes" if r.is_psd else "no",
                    str(r.one_class_folds),
                    str(len(r.folds)),
                ]
            )
        )
    return "\n".join(lines)
