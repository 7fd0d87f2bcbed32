"""``structk fit`` and ``structk predict``: train once, predict later.

``structk fit`` reads labelled objects as ``structk cv`` does (FASTA with
``--label-pattern`` or ``--labels``, CSV vectors or SMILES, TU folders), or
a pair of FASTA files of positive and negative sequences (``--positive
pos.fa --negative neg.fa``, the way ``gkmtrain`` is called), fits one
learner with one kernel and writes a model file (:func:`structk.save`). A
regularisation the learner expression leaves open is chosen first by an
inner cross-validation on the training objects, as ``cv`` chooses it.

``structk predict MODEL INPUT`` reads new objects in chunks (bounded
memory) and writes one row per object: its id, the predicted label, the
decision score and, for learners that have them, the class probabilities;
for regression, the predicted value (a Gaussian-process regressor: its
posterior ``mean`` and the predictive ``std``, the learned noise included).
TSV (default) or JSON lines, to standard output or ``-o``. The model file
records what it was fitted on (the kind of objects, the FASTA alphabet, the
CSV columns), so that an input of another kind, a missing column or a
symbol the model never saw is refused with a message naming it.
"""

from __future__ import annotations

import contextlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from .. import defaults
from .commands import (
    EXIT_OK,
    _add_input,
    _int_at_least,
    _emit_json,
    _kernel,
    _read,
    _show_progress,
    add_inner_cv_options,
    add_pair_options,
    add_split_option,
    task_and_targets,
)
from .outputs import atomic_output, naming_path, progress_bar, refuse_special, same_file

#: What each input format holds (a CSV with ``--smiles-column`` holds graphs).
_KINDS = {"fasta": "sequences", "sets": "sets", "tu": "graphs", "csv": "vectors"}
_WHAT = {
    "sequences": "sequences",
    "sets": "token sets",
    "graphs": "graphs",
    "vectors": "numeric vectors",
    "gram": "a precomputed Gram matrix",
}


# ---------------------------------------------------------------------- fit
def training_data(args):
    """The labelled objects of INPUT, or of the --positive/--negative pair
    (``fit`` and ``cv``)."""
    pair = (args.positive, args.negative)
    if any(p is not None for p in pair):
        if args.input is not None:
            raise ValueError(f"give INPUT ({args.input}) or --positive/--negative, not both")
        if args.negative is None:
            raise ValueError(
                "--positive needs --negative: the FASTA file of negative "
                "sequences (as gkmtrain takes pos.fa neg.fa)"
            )
        if args.positive is None:
            raise ValueError("--negative needs --positive: the FASTA file of positive sequences")
        if Path(args.positive).exists() and same_file(args.positive, args.negative):
            raise ValueError(
                f"--positive {args.positive} and --negative {args.negative} "
                "are the same file: give the positive and the negative "
                "sequences in two files"
            )
        return _read_pair(args)
    if args.input is None:
        raise ValueError("give the training data: INPUT, or --positive pos.fa --negative neg.fa")
    return _read(args, need_labels=True)


def _read_pair(args):
    from .inputs import Objects, detect_alphabet, read_objects

    for option in (
        "label_pattern",
        "labels",
        "label_column",
        "smiles_column",
        "target_column",
        "groups",
        "split",
    ):
        if getattr(args, option, None) is not None:
            raise ValueError(
                f"--{option.replace('_', '-')} does not apply to "
                "--positive/--negative (their files are the labels)"
            )
    parts = [
        read_objects(path, "fasta", alphabet=args.alphabet or "protein")
        for path in (args.positive, args.negative)
    ]
    seqs = parts[0].objects + parts[1].objects
    names = parts[0].names + parts[1].names
    labels = np.array(["positive"] * len(parts[0].objects) + ["negative"] * len(parts[1].objects))
    data = Objects(seqs, names, labels, "fasta")
    if args.alphabet is None:
        name = detect_alphabet(seqs, names)
        data.notes.append(
            f"alphabet {name} detected from the records (give --alphabet to choose another)"
        )
        data.alphabet, data.alphabet_source = name, "detected"
    else:
        data.alphabet, data.alphabet_source = args.alphabet, "--alphabet"
    return data


def _learner(args, task):
    from .evaluation import learner_spec
    from .spec import parse_learner

    text = args.learner or ("KernelSVM()" if task == "classification" else "KernelRidgeCV()")
    estimator, grid, given = parse_learner(text)
    if isinstance(estimator, type):
        raise ValueError(f"learner {text!r} is a class: call it, e.g. {estimator.__name__}()")
    if not hasattr(estimator, "predict") or "kernel" not in estimator.get_params(deep=False):
        raise ValueError(
            f"learner {text!r} cannot predict from one kind of objects: fit "
            "needs a classifier or regressor such as KernelSVM(C=1.0)"
        )
    if args.no_nested:
        grid, given = {}, set(estimator.get_params(deep=False))
    return learner_spec(estimator, grid, given), bool(grid)


def _choose_params(spec, kernel, objects, y, task, args):
    """The grid point of the inner cross-validation on the whole training set
    (one Gram matrix, sliced per fold), the other grid points that tied with
    it, the number of inner folds (``--inner-folds``, or fewer when the
    smallest class is smaller), and
    ``(fitted kernel, prepared objects, Gram)`` for the final fit
    (:func:`~structk.learners._base.fit_with_gram`), which then prepares
    nothing and computes no Gram again."""
    from dataclasses import replace

    from .._estimator import clone
    from ..psd import check_psd
    from .evaluation import Splits, _inner_splits, choose_with_ties, compute_gram, scaled_spec

    fitted = clone(kernel).fit(objects)
    prepared = fitted.prepare(objects, "X")
    K, _ = compute_gram(fitted, objects, progress=_show_progress(args), prepared=prepared)
    K = np.ascontiguousarray(K, dtype=np.float64)
    fixed = {"kernel": "precomputed"}
    if check_psd(K).is_psd and "psd_check" in spec.estimator.get_params(deep=False):
        fixed["psd_check"] = "none"
    spec = scaled_spec(spec, [K])
    inner = replace(spec, estimator=clone(spec.estimator).set_params(**fixed))
    splits = Splits([], "", "kfold", None, args.inner_folds, args.seed)
    everything = np.arange(len(y))
    folds = _inner_splits(splits, everything, y, task)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chosen, ties = choose_with_ties(inner, K, y, everything, folds, task)
    return chosen, ties, len(folds), (fitted, prepared, K)


def _cmd_fit(args):
    from .._estimator import clone
    from ..learners._base import fit_with_gram
    from ..model_file import save
    from .evaluation import LearnerSpec

    refuse_special(args.output, "the model")
    data = training_data(args)
    task, y = task_and_targets(data, args.task)
    kernel = _kernel(args.kernel, data)
    spec, explicit = _learner(args, task)
    if spec.grid and not explicit and len(y) > defaults.NESTED_MAX_N:
        data.notes.append(
            f"no inner CV over {len(y)} objects (its Gram matrix would take "
            f"{8 * len(y) ** 2 / 1e9:.1f} GB): the learner's defaults are used; give a "
            f"grid in --learner (e.g. {type(spec.estimator).__name__}"
            f"({next(iter(spec.grid))}=[...])) to search one anyway"
        )
        spec = LearnerSpec(spec.estimator)
    t0 = time.perf_counter()
    chosen, ties, folds, trained = ({}, [], args.inner_folds, None)
    if spec.grid:
        chosen, ties, folds, trained = _choose_params(spec, kernel, data.objects, y, task, args)
    model = clone(spec.estimator).set_params(kernel=kernel, **chosen)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if trained is None:
            model.fit(data.objects, y)
        else:  # the inner CV's Gram, handed over (and overwritten)
            fit_with_gram(model, data.objects, y, *trained)
    trained = None
    seconds = time.perf_counter() - t0
    kind = "graphs" if data.format == "csv" and args.smiles_column else _KINDS[data.format]
    inputs = [str(p) for p in ([args.input] if args.input else [args.positive, args.negative])]
    meta = {
        "input": {
            "files": inputs,
            "format": data.format,
            "kind": kind,
            "alphabet": data.alphabet,
            "columns": data.columns,
            "has_header": data.has_header,
            "smiles": bool(args.smiles_column),
        },
        "task": task,
        "kernel": args.kernel,
        "learner": spec.name,
        "chosen": {k: _plain(v) for k, v in chosen.items()},
        "n_train": len(y),
    }
    with naming_path(args.output, "the model"):  # save writes atomically
        save(model, args.output, metadata=meta)
    size = Path(args.output).stat().st_size
    summary = {
        "output": str(args.output),
        "bytes": size,
        "estimator": repr(model),
        "n_train": len(y),
        "task": task,
        "seconds": seconds,
        **meta,
    }
    if task == "classification":
        values, counts = np.unique(y, return_counts=True)
        summary["classes"] = {str(v): int(c) for v, c in zip(values, counts)}
    if hasattr(model, "support_"):
        summary["n_support"] = len(model.support_)
    summary["warnings"] = [str(w.message).splitlines()[0] for w in caught]
    if args.format == "json":
        _emit_json(summary)
        return EXIT_OK
    what = (
        ", ".join(f"{c} {v}" for c, v in summary["classes"].items())
        if task == "classification"
        else f"targets in [{y.min():.3g}, {y.max():.3g}]"
    )
    print(f"{' + '.join(inputs)}: {len(y)} objects ({what})")
    for note in data.notes:
        print(f"note: {note}")
    if chosen:
        from .evaluation import inner_folds_text  # not needed by predict

        print(
            f"chosen by {inner_folds_text(args.inner_folds, [folds], y, 1, task)}: "
            f"{_point(chosen)}{_tied(ties)}"
        )
    extra = f", {summary['n_support']} support vectors" if "n_support" in summary else ""
    print(f"fitted {describe(model)} in {seconds:.2f} s{extra}")
    if hasattr(model, "log_marginal_likelihood_value_"):  # a Gaussian process
        print(f"learned by the marginal likelihood: {_learned(model)}")
    print(f"model written to {args.output}")
    for message in summary["warnings"]:
        print(f"warning: {message}", file=sys.stderr)
    return EXIT_OK


def _learned(gp):
    """``factor=0.0107, noise=0.0685 (log marginal likelihood -61.84)``: a
    fitted GP's free hyperparameters, to four significant digits."""
    hyper = getattr(gp.kernel_, "hyperparameters", [])
    values = [f"{h.name}={h.value:.4g}" for h in hyper if not h.fixed]
    if gp.__dict__.get("noise") is not None:
        values.append(f"noise={gp.noise_:.4g}")
    values = ", ".join(values) or "nothing free"
    return f"{values} (log marginal likelihood {gp.log_marginal_likelihood_value_:.2f})"


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _point(params):
    return ", ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v!r}" for k, v in params.items()
    )


def _tied(ties, shown=4):
    """``; tied with C=100, C=1000`` (the chosen point is the first of equal
    inner loss in grid order)."""
    if not ties:
        return ""
    points = "; ".join(_point(p) for p in ties[:shown])
    more = f" and {len(ties) - shown} more" if len(ties) > shown else ""
    return (
        f"; {len(ties)} other grid point{'s' if len(ties) > 1 else ''} tied "
        f"({points}{more}), the first in grid order is kept"
    )


#: Parameters printed in every model's summary even at their defaults,
#: beyond those a kernel's own repr always shows: the learner's
#: regularisation, the gapped k-mer kernel's ``kind`` (LS-GKM's ``-t``).
KEY_PARAMS = {
    "KernelSVM": ("C",),
    "KernelRidge": ("alpha",),
    "KernelLogisticRegression": ("alpha",),
    "GappedKmer": ("kind",),
}


@contextlib.contextmanager
def _showing_key_params():
    """Kernel reprs that show :data:`KEY_PARAMS` too (for the duration)."""
    from .. import kernels

    saved = {}
    for name, extra in KEY_PARAMS.items():
        cls = getattr(kernels, name, None)
        if cls is not None and isinstance(cls.__dict__.get("_repr_always"), tuple):
            saved[cls] = cls.__dict__["_repr_always"]
            cls._repr_always = saved[cls] + tuple(p for p in extra if p not in saved[cls])
    try:
        yield
    finally:
        for cls, value in saved.items():
            cls._repr_always = value


def describe(estimator):
    """``repr`` of a learner or kernel that shows the parameters that
    differ from their defaults and those of :data:`KEY_PARAMS` even at their
    defaults: ``KernelSVM(C=1.0, kernel=GappedKmer(l=11, k=7, d=3, kind='truncated'))``."""
    import inspect

    from ..kernels.base import Kernel

    with _showing_key_params():
        if isinstance(estimator, Kernel) or not hasattr(estimator, "get_params"):
            return repr(estimator)
        try:
            defaults = {
                name: p.default for name, p in inspect.signature(type(estimator)).parameters.items()
            }
        except (TypeError, ValueError):
            return repr(estimator)
        keep = KEY_PARAMS.get(type(estimator).__name__, ())
        shown = []
        for name, value in estimator.get_params(deep=False).items():
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = value is default or (
                    not isinstance(value, Kernel) and bool(value == default)
                )
            except (TypeError, ValueError):  # arrays
                same = False
            if name in keep or not same:
                shown.append(f"{name}={value!r}")
        return f"{type(estimator).__name__}({', '.join(shown)})"


# ------------------------------------------------------------------ predict
def _input_kind(args, fmt):
    return "graphs" if fmt == "csv" and args.smiles_column else _KINDS[fmt]


def _check_kind(model_path, header, args, fmt, model_input):
    """Refuse an input of another kind of objects than the model takes."""
    kind = header.get("objects") or model_input.get("kind")
    if kind == "gram":
        raise ValueError(
            f"{model_path} was fitted on a precomputed Gram matrix: it cannot "
            "predict from objects (fit it with a kernel, e.g. structk fit "
            "--kernel ...)"
        )
    given = _input_kind(args, fmt)
    if kind is not None and kind != given:
        fitted = (
            f" (fitted on {model_input['format'].upper()} input)"
            if model_input.get("format")
            else ""
        )
        hint = ""
        if kind == "graphs" and fmt == "csv":
            hint = "; give --smiles-column for a CSV of molecules"
        raise ValueError(
            f"{model_path} predicts from {_WHAT[kind]}{fitted}, but "
            f"{args.input} holds {_WHAT[given]}{hint}"
        )


def _sequence_check(model, model_input):
    """A function refusing records with a symbol the model's alphabet lacks
    (``None`` when the kernel skips unknown symbols or has no alphabet)."""
    from ..alphabets import resolve_alphabet

    kernel = getattr(model, "kernel_", None)
    params = kernel.get_params(deep=True) if kernel is not None else {}
    keys = [k for k in params if k == "alphabet" or k.endswith("__alphabet")]
    if not keys:
        return None
    prefix = keys[0].removesuffix("alphabet")
    if params.get(prefix + "unknown", "error") == "skip":
        return None
    alphabet = params[keys[0]]
    symbols = resolve_alphabet(alphabet)
    accepted = set(symbols)
    if params.get(prefix + "ignore_case", True):
        accepted |= {s.upper() for s in symbols if isinstance(s, str)}
        accepted |= {s.lower() for s in symbols if isinstance(s, str)}
    name = alphabet if isinstance(alphabet, str) and len(alphabet) < 12 else "".join(symbols)

    def check(seqs, names, start, path):
        for i, seq in enumerate(seqs):
            bad = set(seq) - accepted
            if bad:
                j = next(j for j, c in enumerate(seq) if c not in accepted)
                raise ValueError(
                    f"{path} record {start + i} ({names[i]}) has symbol {seq[j]!r} at "
                    f"position {j}, which the model never saw: it was fitted on the "
                    f"alphabet {name} ({''.join(map(str, symbols))}); remove or mask such "
                    "records, or refit with --alphabet holding every symbol (or a kernel "
                    "with unknown='skip')"
                )

    return check


def input_chunks(args, fmt, model_input):
    """``(names, objects)`` chunks of the prediction input."""
    size = args.chunk_size
    if fmt == "fasta":
        from ..sequences import iter_fasta

        yield from iter_fasta(args.input, size)
    elif fmt == "csv":
        yield from _csv_chunks(args, model_input, size)
    elif fmt == "sets":
        yield from _set_chunks(args.input, size)
    else:  # a TU folder, read whole (labels not needed)
        from ..datasets import load_tu

        graphs, _ = load_tu(args.input, require_targets=False)
        for start in range(0, len(graphs), size):
            yield (
                [f"graph{i}" for i in range(start, min(start + size, len(graphs)))],
                graphs[start : start + size],
            )


def _split_positions(args, fmt, model_input):
    """The positions ``--split`` keeps, checked against the names of the
    whole input (a first pass over it) before anything is predicted."""
    from .inputs import read_split

    names = [name for chunk, _ in input_chunks(args, fmt, model_input) for name in chunk]
    return set(read_split(args.split, names, args.input))


def _kept(chunks, keep):
    """The chunks with only the objects at the positions ``keep``."""
    done = 0
    for chunk, objects in chunks:
        picked = [i for i in range(len(chunk)) if done + i in keep]
        done += len(chunk)
        if picked:
            if isinstance(objects, np.ndarray):
                yield [chunk[i] for i in picked], objects[picked]
            else:
                yield [chunk[i] for i in picked], [objects[i] for i in picked]


def _set_chunks(path, size):
    from .inputs import iter_sets

    names, sets = [], []
    for name, tokens in iter_sets(path):
        names.append(name)
        sets.append(tokens)
        if len(sets) == size:
            yield names, sets
            names, sets = [], []
    if sets:
        yield names, sets


def _csv_chunks(args, model_input, size):
    """Rows of a CSV in chunks: the model's feature columns as vectors, or
    its SMILES column as molecular graphs; ids from ``--id-column``."""
    import csv

    from .inputs import _is_number, text_lines

    path = args.input
    lines = (line for line in text_lines(path) if not line.lstrip().startswith("#"))
    rows = (row for row in csv.reader(lines) if row and any(c.strip() for c in row))
    first = next(rows, None)
    if first is None:
        raise ValueError(f"{str(path)!r} holds no rows")
    has_header = not all(_is_number(f) for f in first if f.strip())
    header = [f.strip() for f in first] if has_header else [str(i) for i in range(len(first))]
    pending = [] if has_header else [first]
    smiles = (
        args.smiles_column or (model_input.get("columns") or [None])[0]
        if model_input.get("smiles") or args.smiles_column
        else None
    )
    wanted = [smiles] if smiles is not None else model_input.get("columns")
    if wanted is None:  # a model saved from Python: every column is a feature
        wanted = header if args.id_column is None else [h for h in header if h != args.id_column]
    if (
        smiles is None
        and not model_input.get("has_header", has_header)
        and not has_header
        and len(header) != len(wanted)
    ):
        raise ValueError(
            f"{str(path)!r} has {len(header)} columns; the model was fitted "
            f"on {len(wanted)} unnamed columns"
        )
    index = []
    for name in wanted:
        if name not in header:
            what = "SMILES column" if smiles is not None else "column"
            raise ValueError(
                f"{str(path)!r} has no {what} {name!r}, which the model was fitted on "
                f"(its columns: {', '.join(header)}; the model's: {', '.join(wanted)})"
            )
        index.append(header.index(name))
    id_col = None
    if args.id_column is not None:
        if args.id_column not in header:
            raise ValueError(
                f"--id-column {args.id_column!r} is not a column of "
                f"{str(path)!r} (columns: {', '.join(header)})"
            )
        id_col = header.index(args.id_column)
    chunk, numbers = [], []
    for row_no, row in enumerate(_chain(pending, rows)):
        if len(row) != len(header):
            raise ValueError(
                f"{str(path)!r} row {row_no + int(has_header) + 1} has "
                f"{len(row)} fields, the header {len(header)}"
            )
        chunk.append(row)
        numbers.append(row_no)
        if len(chunk) == size:
            yield _csv_objects(path, chunk, numbers, index, id_col, header, smiles)
            chunk, numbers = [], []
    if chunk:
        yield _csv_objects(path, chunk, numbers, index, id_col, header, smiles)


def _chain(first, rest):
    yield from first
    yield from rest


def _csv_objects(path, rows, numbers, index, id_col, header, smiles):
    from .inputs import _is_number

    names = [
        rows[i][id_col].strip() if id_col is not None else f"row{n}" for i, n in enumerate(numbers)
    ]
    if smiles is not None:
        from ..datasets.chem import from_smiles

        column = [row[index[0]].strip() for row in rows]
        try:
            return names, from_smiles(column)
        except ValueError as exc:
            import re

            m = re.match(r"smiles\[(\d+)\]", str(exc))
            if m is None:
                raise
            i = int(m.group(1))
            raise ValueError(
                f"{str(path)!r} row {numbers[i]} of SMILES column {smiles!r}: "
                f"{str(exc).split('= ', 1)[-1]}"
            ) from None
    X = np.empty((len(rows), len(index)))
    for i, row in enumerate(rows):
        for j, col in enumerate(index):
            if not _is_number(row[col]):
                raise ValueError(
                    f"{str(path)!r} holds a non-numeric value {row[col]!r} in "
                    f"column {header[col]!r}, row {numbers[i]}"
                )
            X[i, j] = float(row[col])
    return names, X


class _Rows:
    """The prediction rows of one model: which columns, and their text."""

    def __init__(self, model):
        self.model = model
        # a GP regressor: its posterior mean and predictive standard deviation
        # (a model that is one imported its module when it was read)
        gp = sys.modules.get("structk.learners.gaussian_process")
        self.gp = gp is not None and isinstance(model, gp.GaussianProcessRegressor)
        self.classes = getattr(model, "classes_", None)
        self.binary = self.classes is not None and len(self.classes) == 2
        self.scores = self.classes is not None and hasattr(model, "decision_function")
        self.proba = (
            self.classes is not None
            and hasattr(model, "predict_proba")
            and getattr(model, "probability", True) is not False
        )
        self.expansion = _gkm_expansion(model) if self.binary else None

    def columns(self):
        if self.gp:
            return ["id", "mean", "std"]
        if self.classes is None:
            return ["id", "prediction"]
        cols = ["id", "label"]
        names = [str(c) for c in self.classes]
        if self.scores:
            cols += ["score"] if self.binary else [f"score_{c}" for c in names]
        if self.proba:
            cols += ["probability"] if self.binary else [f"probability_{c}" for c in names]
        return cols

    def compute(self, X):
        """``(labels, scores or None, probabilities or None)`` of a chunk."""
        m = self.model
        if self.gp:  # the std in the scores' place: a column of floats
            mean, std = m.predict(X, return_std=True)
            return mean, std, None
        if self.classes is None:
            return m.predict(X), None, None
        if self.expansion is not None:
            return self._expanded(X)
        scores = m.decision_function(X) if self.scores else None
        if self.binary and scores is not None:
            # every structk classifier predicts classes_[1] where f(x) > 0
            labels = self.classes[(np.asarray(scores) > 0).astype(np.intp)]
        else:
            labels = m.predict(X)
        proba = m.predict_proba(X) if self.proba else None
        if proba is not None and self.binary:
            proba = proba[:, 1]
        return labels, scores, proba

    def _expanded(self, X):
        """:meth:`compute` of a two-class gapped k-mer SVM through its
        kernel expansion: the same decision values up to rounding, the
        support vectors folded once for all chunks."""
        from .._validation import check_objects
        from ..learners._smo.platt import sigmoid

        m, kernel = self.model, self.expansion.kernel
        D = self.expansion(kernel.prepare(check_objects(X, "X"), "X")) + m.intercept_
        labels = self.classes[(D[:, 0] > 0).astype(np.intp)]
        proba = sigmoid(D, m.probA_, m.probB_)[:, 0] if self.proba else None
        return labels, D[:, 0], proba

    def tsv(self, names, labels, scores, proba):
        columns = [names, [_text(v) for v in np.asarray(labels).tolist()]]
        for values in (scores, proba):
            if values is not None:  # repr: the shortest text that reads back exactly
                values = np.asarray(values, dtype=np.float64).reshape(len(names), -1)
                columns += [list(map(repr, col)) for col in values.T.tolist()]
        return "".join("\t".join(cells) + "\n" for cells in zip(*columns))

    def json(self, names, labels, scores, proba):
        import json

        out = []
        key = "mean" if self.gp else "prediction" if self.classes is None else "label"
        for i, name in enumerate(names):
            row = {"id": name, key: _plain(labels[i])}
            if self.gp:
                row["std"] = float(scores[i])
            elif scores is not None:
                row["score" if self.binary else "scores"] = _per_class(self, scores[i])
            if proba is not None:
                row["probability" if self.binary else "probabilities"] = _per_class(self, proba[i])
            out.append(json.dumps(row) + "\n")
        return "".join(out)


def _gkm_expansion(model):
    """The decision function of a fitted two-class ``KernelSVM`` (dual
    solver) as its kernel's expansion (``KernelSVM._expansion``: a
    :class:`~structk.kernels.GappedKmer` folds its support vectors into one
    table), built once for all chunks, or None for any other model."""
    from ..learners import KernelSVM

    if (
        type(model) is not KernelSVM
        or getattr(model, "solver_", "dual") != "dual"
        or getattr(model, "support_vectors_", None) is None
    ):
        return None
    return model._expansion(model.support_vectors_, model.dual_coef_)


def _per_class(rows, value):
    if rows.binary:
        return float(value)
    return {str(c): float(v) for c, v in zip(rows.classes, value)}


def _text(value):
    value = _plain(value)
    return repr(value) if isinstance(value, float) else str(value)


def model_and_input(args):
    """``(model, format, what the model was fitted on, check of FASTA
    records or None)`` for a command reading objects with a model file
    (``predict``, ``suggest``): the input's kind checked against the model's
    before the model is loaded."""
    from ..model_file import load, load_metadata
    from .inputs import guess_format

    header = load_metadata(args.model)
    model_input = header.get("metadata", {}).get("input", {})
    if not Path(args.input).exists():
        raise FileNotFoundError(f"no such file or folder: {str(args.input)!r}")
    fmt = guess_format(args.input) if args.input_format == "auto" else args.input_format
    if args.smiles_column is not None and fmt != "csv":
        raise ValueError("--smiles-column applies to CSV input only")
    if fmt == "csv" and args.smiles_column is None and model_input.get("smiles"):
        args.smiles_column = model_input["columns"][0]
    _check_kind(args.model, header, args, fmt, model_input)
    model = load(args.model)
    if not hasattr(model, "predict"):
        raise ValueError(f"{args.model} holds a {type(model).__name__}, which does not predict")
    check = _sequence_check(model, model_input) if fmt == "fasta" else None
    return model, fmt, model_input, check


def _cmd_predict(args):
    model, fmt, model_input, check = model_and_input(args)
    rows = _Rows(model)
    chunks = input_chunks(args, fmt, model_input)
    if args.split is not None:
        chunks = _kept(chunks, _split_positions(args, fmt, model_input))
    bar = progress_bar(_show_progress(args), "predict", "obj")
    done = 0
    where = (
        contextlib.nullcontext(sys.stdout)
        if args.output is None
        else atomic_output(args.output, "the predictions")
    )
    try:
        with where as out:
            if args.format == "tsv":
                out.write("\t".join(rows.columns()) + "\n")
            for names, objects in chunks:
                if check is not None:
                    check(objects, names, done, args.input)
                try:
                    result = rows.compute(objects)
                except ValueError as exc:
                    raise ValueError(
                        f"{args.input} records {done}-{done + len(names) - 1}: "
                        f"{str(exc).splitlines()[0]}"
                    ) from None
                out.write((rows.tsv if args.format == "tsv" else rows.json)(names, *result))
                out.flush()
                done += len(names)
                if bar is not None:
                    bar.update(len(names))
    finally:
        if bar is not None:
            bar.close()
    if args.output is not None:
        print(f"{done} predictions written to {args.output}", file=sys.stderr)
    return EXIT_OK


# ------------------------------------------------------------------- parser
def add_parsers(sub, formatter):
    p = sub.add_parser(
        "fit",
        help="fit a learner and save it to a model file",
        formatter_class=formatter,
        description="Fit one learner with one kernel on labelled objects and write a model "
        "file (structk.save: data, never code) that 'structk predict' and "
        "structk.load read. A regularisation the learner expression leaves "
        "open (KernelSVM C, KernelRidge and KernelLogisticRegression alpha) is "
        "chosen first by an inner cross-validation, as 'structk cv' does.",
        epilog="examples:\n"
        "  structk fit --positive pos.fa --negative neg.fa \\\n"
        "      --kernel 'Normalize(Spectrum(k=6))' -o enhancers.structk\n"
        "  structk fit seqs.fa --label-pattern 'class=(\\S+)' \\\n"
        "      --kernel 'Mismatch(k=5, m=1)' --learner 'KernelSVM(C=1)' -o m.structk\n"
        "  structk fit MUTAG/ --kernel 'WeisfeilerLehman(h=3)' -o mutag.structk\n"
        "  structk fit delaney-processed.csv --smiles-column smiles \\\n"
        "      --target-column 'measured log solubility in mols per litre' \\\n"
        "      --kernel 'WeisfeilerLehman(h=3)' --learner 'KernelRidgeCV()' -o esol.structk",
    )
    _add_input(p, optional=True)
    add_pair_options(p)
    p.add_argument("--kernel", required=True, metavar="EXPR", help="kernel expression")
    p.add_argument(
        "--learner",
        metavar="EXPR",
        help="learner expression (default KernelSVM() with C chosen by inner CV, "
        "or KernelRidgeCV() for regression)",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="MODEL",
        help="the model file to write (e.g. model.structk)",
    )
    add_inner_cv_options(p, "the learner")
    p.add_argument("--seed", type=int, default=0, help="seed of the inner folds")
    p.add_argument(
        "--format",
        default="table",
        choices=["table", "json"],
        help="the summary: lines for people (default) or one JSON object",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_fit)

    p = sub.add_parser(
        "predict",
        help="predict new objects with a model file",
        formatter_class=formatter,
        description="Read a model file written by 'structk fit' or structk.save and write "
        "one row per object of INPUT: id, predicted label, decision score and "
        "probability where the learner has them (regression: the predicted "
        "value; a GaussianProcessRegressor: mean and std, the predictive standard "
        "deviation of a new measurement, learned noise included). The input is "
        "read and predicted in chunks, so memory stays bounded whatever its size.",
        epilog="examples:\n"
        "  structk predict enhancers.structk test.fa > scores.tsv\n"
        "  structk predict mutag.structk new_graphs/ --format json -o pred.jsonl\n"
        "  structk predict esol.structk molecules.csv --id-column name",
    )
    p.add_argument("model", help="a model file (structk fit -o, or structk.save)")
    p.add_argument("input", help="FASTA file, token-set file, TU folder, or CSV")
    add_input_options(p)
    add_row_options(p)
    add_split_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_predict)


def add_row_options(p):
    """Where and how a command writes one row per object."""
    p.add_argument(
        "--format",
        default="tsv",
        choices=["tsv", "json"],
        help="TSV with a header line (default) or JSON lines",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")


def add_input_options(p):
    """The options of a command reading objects for a model file."""
    p.add_argument(
        "--input-format",
        default="auto",
        choices=["auto", "fasta", "sets", "tu", "csv"],
        help="input format (default: from the file name; a folder is TU)",
    )
    p.add_argument(
        "--smiles-column", metavar="COL", help="CSV column of SMILES strings (default: the model's)"
    )
    p.add_argument(
        "--id-column",
        metavar="COL",
        help="CSV column holding each row's id (default row0, row1, ...)",
    )
    p.add_argument(
        "--chunk-size",
        type=_int_at_least(1),
        default=1000,
        help="objects read and predicted at a time (default 1000)",
    )
