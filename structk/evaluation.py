"""Cross-validating learners on precomputed Gram matrices, as the CLI and demo do.

Each kernel's Gram matrix is computed once on all objects and checked with
:func:`~structk.check_psd`; every learner is then cross-validated on slices
of it (``K[train][:, train]`` to fit, ``K[test][:, train]`` to predict),
which gives exactly the result of fitting on the objects themselves, at the
cost of one Gram matrix.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np


def progress_bar(enabled, desc, unit, total=None):
    """A tqdm bar on standard error that appears only once the work lasts a
    second; ``None`` when ``enabled`` is false."""
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(desc=desc, unit=unit, total=total, delay=1.0, leave=False, file=sys.stderr)


def compute_gram(kernel, objects, *, progress=False, out=None, block_size=256,
                 blockwise_from=2000):
    """Gram matrix of ``objects``; returns ``(K, seconds)``.

    Up to ``blockwise_from`` objects (and no output file) the kernel is
    called once; larger inputs, or ``out`` a ``.npy`` path, go tile by tile
    through :func:`structk.gram`, with a progress bar and bounded memory.
    """
    t0 = time.perf_counter()
    if out is None and len(objects) <= blockwise_from:
        return kernel(objects), time.perf_counter() - t0
    from .blockwise import gram

    bar = progress_bar(progress, "gram", "tile")

    def tick(done, total):
        bar.total = total
        bar.update(done - bar.n)  # update, not refresh: keeps the one-second delay

    try:
        K = gram(kernel, objects, block_size=block_size, out=out,
                 progress=tick if bar is not None else False)
    finally:
        if bar is not None:
            bar.close()
    return K, time.perf_counter() - t0


@dataclass
class CVResult:
    """One row of a cross-validation table."""

    kernel: str
    learner: str
    scores: np.ndarray
    gram_seconds: float
    is_psd: bool

    @property
    def mean(self):
        return float(np.mean(self.scores))

    @property
    def std(self):
        return float(np.std(self.scores))


def _fold_score(learner, K, y, train, test):
    from sklearn.base import clone

    model = clone(learner).fit(K[np.ix_(train, train)], y[train])
    return float(np.mean(model.predict(K[np.ix_(test, train)]) == y[test]))


def cross_validate_grams(kernels, learners, objects, y, *, folds=5, repeats=1, seed=0,
                         n_jobs=1, progress=False, gram=None, kernel_names=None):
    """Cross-validated accuracy of every (kernel, learner) pair.

    Parameters
    ----------
    kernels : list of Kernel
    learners : list of estimators
        structk learners; each is used with ``kernel="precomputed"``.
    objects : sequence
    y : array-like of labels
    folds, repeats, seed : int
        Stratified ``folds``-fold splits, repeated ``repeats`` times, shuffled
        with ``seed``; the same splits for every pair.
    n_jobs : int
        Folds fitted in parallel (joblib).
    progress : bool
        Show progress bars (Gram tiles, folds).
    gram : callable, optional
        ``gram(kernel, objects) -> (K, seconds)``; defaults to
        :func:`compute_gram`.
    kernel_names : list of str, optional
        Names for the table (default: each kernel's repr).

    Returns
    -------
    list of CVResult
    """
    from joblib import delayed
    from sklearn.base import clone
    from sklearn.model_selection import RepeatedStratifiedKFold

    from .psd import check_psd

    y = np.asarray(y)
    if gram is None:
        def gram(kernel, objs):
            return compute_gram(kernel, objs, progress=progress)

    splitter = RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=seed)
    splits = list(splitter.split(np.zeros((len(y), 1)), y))
    rows = []
    names = kernel_names or [repr(k) for k in kernels]
    for kernel, kernel_name in zip(kernels, names):
        K, seconds = gram(kernel, objects)
        K = np.asarray(K)
        report = check_psd(K)
        for learner in learners:
            model = clone(learner).set_params(kernel="precomputed")
            jobs = (delayed(_fold_score)(model, K, y, tr, te) for tr, te in splits)
            scores = _run(jobs, n_jobs, len(splits), progress, f"{type(model).__name__} folds")
            rows.append(CVResult(kernel_name, repr(model), np.array(scores), seconds,
                                 report.is_psd))
    return rows


def _run(jobs, n_jobs, total, progress, desc):
    from joblib import Parallel

    bar = progress_bar(progress, desc, "fold", total)
    scores = []
    for score in Parallel(n_jobs=n_jobs, return_as="generator")(jobs):
        scores.append(score)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return scores


def format_table(rows):
    """A plain-text table: kernel, learner, accuracy +- std, Gram time, PSD."""
    headers = ["kernel", "learner", "accuracy", "Gram s", "PSD"]
    cells = [[r.kernel, r.learner, f"{r.mean:.3f} ± {r.std:.3f}", f"{r.gram_seconds:.2f}",
              "yes" if r.is_psd else "NO"] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)
