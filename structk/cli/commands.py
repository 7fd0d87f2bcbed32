"""The ``structk`` command line.

Commands
--------
``structk demo``        the main job on the bundled data
``structk gram``        Gram matrix of a FASTA file, a file of token sets, a TU
                        graph folder or a CSV of vectors, to ``.npy`` (and TSV)
``structk check-psd``   check a Gram matrix file; exit 1 when it is not PSD
``structk cv``          cross-validate learners with kernels on labelled data
``structk check-kernel`` search for a counterexample to a similarity function
                        being a kernel; exit 1 when one is found
``structk fit``         fit a learner on labelled data and save it to a model file
``structk predict``     predict new objects with a model file (TSV or JSON rows)
``structk explain``     feature weights, contributions, mutagenesis of a saved model
``structk score-variants`` change of a saved sequence model's score between alleles

Kernels and learners are written as Python expressions of structk classes,
e.g. ``--kernel "Normalize(Spectrum(k=5))"`` or ``--learner "KernelSVM(C=10)"``;
they are parsed safely (see :mod:`structk.cli.spec`), never ``eval``-ed.

Exit status: 0 success; 1 the checked matrix is not positive semi-definite
(``check-psd``, or ``gram --require-psd``); 2 bad usage or bad input, with
one line on standard error saying what is wrong.
"""

from __future__ import annotations

import argparse
import sys

from .outputs import atomic_output, is_special, naming_path, refuse_overwrites

EXIT_OK, EXIT_NOT_PSD, EXIT_ERROR = 0, 1, 2


# ------------------------------------------------------------------ helpers
class _Parser(argparse.ArgumentParser):
    """Usage errors in one line on standard error, exit status 2, like every
    other refusal of bad input (argparse would print the usage block first)."""

    def error(self, message):
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _int_at_least(low, also=()):
    """An argparse type: an integer >= ``low`` (or one of ``also``), refused
    with a message that argparse prefixes with the option's name."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low and value not in also:
            extra = "".join(f" or {a}" for a in also)
            raise argparse.ArgumentTypeError(f"must be at least {low}{extra}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def _show_progress(args):
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def _kernel(text, data=None):
    """The kernel of an expression; string kernels the expression leaves on
    their default alphabet get the alphabet of the data (and the records are
    checked against it, unless such a kernel skips unknown symbols)."""
    from .inputs import check_symbols
    from .spec import parse_kernel

    kernel = parse_kernel(text)
    alphabet = getattr(data, "alphabet", None)
    if alphabet is not None and "alphabet" not in text:
        params = kernel.get_params(deep=True)
        keys = [k for k in params if k == "alphabet" or k.endswith("__alphabet")]
        kernel.set_params(**{k: alphabet for k in keys})
        for key in keys:
            prefix = key.removesuffix("alphabet")
            if params.get(prefix + "unknown", "error") != "skip":
                check_symbols(data, ignore_case=params.get(prefix + "ignore_case", True))
    return kernel


def _read(args, need_labels=False):
    from .inputs import read_objects

    data = read_objects(
        args.input,
        args.input_format,
        label_pattern=args.label_pattern,
        labels=args.labels,
        label_column=args.label_column,
        alphabet=getattr(args, "alphabet", None),
        smiles_column=args.smiles_column,
        target_column=args.target_column,
        groups=getattr(args, "groups", None),
        need_labels=need_labels,
    )
    if getattr(args, "split", None) is not None:
        from .inputs import read_split

        data.subset(read_split(args.split, data.names, args.input))
    if need_labels and data.labels is None:
        raise ValueError(
            f"{args.input} has no labels: give --label-pattern (FASTA headers), "
            "--labels FILE, --label-column or --target-column (CSV)"
        )
    return data


def task_and_targets(data, task="auto"):
    """The task (``--task``, or the one the input suggests) and the labels,
    as floats for regression."""
    task = data.task if task == "auto" else task
    y = data.labels
    if task == "regression":
        import numpy as np

        try:
            y = y.astype(np.float64)
        except ValueError:
            raise ValueError("--task regression needs numeric targets") from None
    return task, y


def _print_notes(data):
    for note in data.notes:
        print(f"note: {note}")


def _emit_json(obj):
    import json

    print(json.dumps(obj, default=_json_default))


def _json_default(value):
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _psd_dict(report):
    return {
        "is_psd": bool(report.is_psd),
        "n": report.n,
        "min_eigenvalue": report.min_eigenvalue,
        "tol": report.tol,
        "scale": report.scale,
        "asymmetry": report.asymmetry,
        "method": report.method,
    }


# ----------------------------------------------------------------- commands
def _cmd_demo(args):
    from . import demo

    demo.run(quick=args.quick, progress=_show_progress(args))
    return EXIT_OK


def _cmd_gram(args):
    import numpy as np

    from ..psd import check_psd
    from .evaluation import compute_gram

    data = _read(args)
    kernel = _kernel(args.kernel, data)
    # a .npy file is filled tile by tile (memory-mapped) and renamed into place
    out = args.output if str(args.output).endswith(".npy") and not is_special(args.output) else None
    with naming_path(args.output, "the Gram matrix"):  # written atomically
        K, seconds = compute_gram(
            kernel, data.objects, progress=_show_progress(args), out=out, block_size=args.block_size
        )
    if out is None:  # .npy content under exactly the name given (np.save adds .npy)
        with atomic_output(args.output, "the Gram matrix", "wb") as fh:
            np.save(fh, np.asarray(K))
    if args.tsv:
        _write_tsv(args.tsv, K, data.names)
    report = check_psd(K)
    if args.format == "json":
        _emit_json(
            {
                "input": str(args.input),
                "kernel": repr(kernel),
                "n": int(K.shape[0]),
                "output": str(args.output),
                "tsv": args.tsv,
                "gram_seconds": seconds,
                "notes": data.notes,
                "psd": _psd_dict(report),
            }
        )
    elif args.format == "tsv":
        print("input\tkernel\tn\toutput\tgram_seconds\tpsd\tmin_eigenvalue")
        print(
            f"{args.input}\t{kernel!r}\t{K.shape[0]}\t{args.output}\t{seconds:.3f}\t"
            f"{'yes' if report.is_psd else 'no'}\t{_or_dash(report.min_eigenvalue)}"
        )
    else:
        print(
            f"{kernel!r}: {K.shape[0]} x {K.shape[1]} Gram matrix in {seconds:.2f} s "
            f"written to {args.output}" + (f" and {args.tsv}" if args.tsv else "")
        )
        _print_notes(data)
        print(report)
    return EXIT_NOT_PSD if (args.require_psd and not report.is_psd) else EXIT_OK


def _or_dash(value):
    return "-" if value is None else f"{value:.6g}"


def _write_tsv(path, K, names):
    with atomic_output(path, "the TSV matrix") as fh:
        fh.write("\t" + "\t".join(names) + "\n")
        fh.writelines(
            name + "\t" + "\t".join(f"{v:.17g}" for v in row) + "\n" for name, row in zip(names, K)
        )


def _cmd_check_psd(args):
    from ..psd import check_psd
    from .inputs import read_matrix

    K = read_matrix(args.file)
    report = check_psd(K, args.tol, method="eigh" if args.eigenvalues else "auto")
    if args.format == "json":
        _emit_json({"file": str(args.file), **_psd_dict(report)})
    elif args.format == "tsv":
        print("file\tn\tpsd\tmin_eigenvalue\ttol\tmethod")
        print(
            f"{args.file}\t{report.n}\t{'yes' if report.is_psd else 'no'}\t"
            f"{_or_dash(report.min_eigenvalue)}\t{report.tol:.6g}\t{report.method}"
        )
    else:
        print(report)
    return EXIT_OK if report.is_psd else EXIT_NOT_PSD


def _learners(args, task):
    from .evaluation import learner_spec
    from .spec import parse_learner

    default = "KernelSVM()" if task == "classification" else "KernelRidgeCV()"
    specs = []
    for text in args.learner or [default]:
        estimator, grid, given = parse_learner(text)
        if isinstance(estimator, type):
            raise ValueError(f"learner {text!r} is a class: call it, e.g. {estimator.__name__}()")
        if not hasattr(estimator, "predict"):
            raise ValueError(
                f"learner {text!r} has no predict: {type(estimator).__name__} is a "
                "transformer (use it from Python, e.g. in a Pipeline); cv needs a "
                "classifier such as KernelSVM(C=1.0)"
            )
        solver = estimator.get_params(deep=False).get("solver")
        if isinstance(solver, str) and solver in ("primal", "nystroem"):
            kernels = " and ".join(f"--kernel {k!r}" for k in args.kernel)
            raise ValueError(
                f"learner {text!r}: cv computes the Gram matrix of {kernels} once and "
                f"fits every learner on slices of it, where only the exact dual solver "
                f"applies, not solver={solver!r} (which computes features of the "
                "objects): drop solver= here, or fit the learner with structk fit"
            )
        if args.no_nested:
            grid, given = {}, set(estimator.get_params(deep=False))
        specs.append(learner_spec(estimator, grid, given))
    return specs


def _kernel_or_grid(text, data):
    """The kernel of an expression, or a :class:`KernelGrid` when it writes
    numeric parameters as lists (chosen on the inner folds by ``cv``)."""
    from .evaluation import KernelGrid
    from .spec import kernel_grid

    found = kernel_grid(text)
    if found is None:
        return _kernel(text, data)
    grid, variants = found
    return KernelGrid([(params, _kernel(variant, data)) for params, variant in variants], grid)


def _cmd_cv(args):
    from .evaluation import (
        KernelGrid,
        cross_validate_grams,
        edge_notes,
        format_table,
        format_tsv,
        inner_fold_counts,
        inner_folds_text,
        make_splits,
    )

    from .model_commands import training_data

    data = training_data(args)
    task, y = task_and_targets(data, args.task)
    kernels = [_kernel_or_grid(text, data) for text in args.kernel]
    learners = _learners(args, task)
    splits = make_splits(
        args.cv,
        y,
        task,
        groups=data.groups,
        repeats=args.repeats,
        seed=args.seed,
        inner_folds=args.inner_folds,
    )
    if task == "classification":
        what = f"classes {sorted(set(y.tolist()))}"
    else:
        what = f"regression, targets in [{y.min():.3g}, {y.max():.3g}]"
    inner = ""
    if any(s.grid for s in learners) or any(isinstance(k, KernelGrid) for k in kernels):
        counts = inner_fold_counts(splits, y, task)
        inner = ", parameters chosen by " + inner_folds_text(
            args.inner_folds, counts, y, len(splits.folds), task, splits.groups
        )
    source = args.input if args.input is not None else f"{args.positive} + {args.negative}"
    header = f"{source}: {len(data.objects)} objects, {what}, {splits.description}{inner}"
    if args.format == "table":
        print(header)
        _print_notes(data)
        sys.stdout.flush()
    rows = cross_validate_grams(
        kernels,
        learners,
        data.objects,
        y,
        n_jobs=args.jobs,
        progress=_show_progress(args),
        task=task,
        splits=splits,
        kernel_names=args.kernel,
    )
    if args.format == "json":
        for row in rows:
            _emit_json(
                {
                    "input": str(source),
                    "n": len(data.objects),
                    "cv": splits.description,
                    "notes": data.notes,
                    **row.as_dict(),
                }
            )
    elif args.format == "tsv":
        print(format_tsv(rows))
    else:
        print(format_table(rows))
    for note in edge_notes(rows):
        print(f"note: {note}", file=sys.stderr)
    return EXIT_OK


# ------------------------------------------------------------------- parser
_INPUT_HELP = "FASTA file (.fa/.fasta[.gz]), token-set file (.sets/.txt), TU folder, or CSV"


def _add_input(p, groups=False, optional=False):
    p.add_argument("input", help=_INPUT_HELP, nargs="?" if optional else None)
    p.add_argument(
        "--input-format",
        default="auto",
        choices=["auto", "fasta", "sets", "tu", "csv"],
        help="input format (default: from the file name; a folder is TU)",
    )
    p.add_argument(
        "--label-pattern",
        metavar="REGEX",
        help="take labels from FASTA headers: first group of REGEX, "
        r"e.g. 'class=(\S+)'",
    )
    p.add_argument(
        "--labels",
        metavar="FILE",
        help="labels: one per line in input order, or name<TAB>label lines",
    )
    p.add_argument(
        "--label-column", metavar="COL", help="CSV column (name or number) holding the labels"
    )
    p.add_argument(
        "--alphabet",
        metavar="NAME",
        help="FASTA alphabet: dna, rna, protein or the symbols themselves "
        "(default: detected from the records)",
    )
    p.add_argument(
        "--smiles-column",
        metavar="COL",
        help="CSV column of SMILES strings: the objects are molecular graphs (needs structk[chem])",
    )
    p.add_argument(
        "--target-column",
        metavar="COL",
        help="CSV column of targets: class labels or numbers (regression)",
    )
    add_split_option(p)
    if groups:
        p.add_argument(
            "--groups",
            metavar="REGEX|FILE|COL",
            help="groups for --cv grouped: a regex on FASTA headers (first group), "
            "a file (one group per line, or name<TAB>group), or a CSV column",
        )


def add_split_option(p):
    """--split FILE: the objects of INPUT the command uses."""
    p.add_argument(
        "--split",
        metavar="FILE",
        help="use only these objects of INPUT (e.g. a TU folder's training graphs): "
        "one per line, a 0-based position (graph0 is 0) or an object name",
    )


def add_pair_options(p):
    """--positive/--negative (of ``fit`` and ``cv``), instead of INPUT."""
    p.add_argument(
        "--positive",
        metavar="POS.fa",
        help="FASTA file of positive sequences (with --negative, instead of INPUT)",
    )
    p.add_argument("--negative", metavar="NEG.fa", help="FASTA file of negative sequences")


def add_inner_cv_options(p, what):
    """--inner-folds, --no-nested and --task (of ``cv`` and ``fit``)."""
    p.add_argument(
        "--inner-folds",
        type=_int_at_least(2),
        default=5,
        help="folds of the inner CV choosing the regularisation (default 5)",
    )
    p.add_argument(
        "--no-nested", action="store_true", help=f"fit {what} as written, without the inner CV"
    )
    p.add_argument(
        "--task",
        default="auto",
        choices=["auto", "classification", "regression"],
        help="default: regression for a numeric --target-column with many "
        "distinct values, else classification",
    )


def _add_format(p):
    p.add_argument(
        "--format",
        default="table",
        choices=["table", "tsv", "json"],
        help="output: a table for people (default), TSV, or JSON (one object per line)",
    )


def build_parser():
    parser = _Parser(
        prog="structk",
        description="Kernels for structured data: Gram matrices, PSD checks, learners.",
        epilog="Exit status: 0 ok, 1 not positive semi-definite, 2 bad usage or input.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    formatter = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser(
        "demo",
        help="run the main job on the bundled data",
        formatter_class=formatter,
        description="Classify bundled sequences, graphs and vectors with several kernels "
        "and learners under cross-validation; check every Gram matrix.",
        epilog="examples:\n  structk demo\n  structk demo --quick",
    )
    p.add_argument("--quick", action="store_true", help="fewer kernels and folds")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser(
        "gram",
        help="compute a Gram matrix from a file",
        formatter_class=formatter,
        description="Compute the Gram matrix of the objects in a file with a kernel "
        "written as an expression of structk kernels; report PSD status.",
        epilog="examples:\n"
        "  structk gram seqs.fasta --kernel 'Normalize(Spectrum(k=5))' -o K.npy\n"
        "  structk gram seqs.fa.gz --kernel 'Mismatch(k=5, m=1)' -o K.npy --tsv K.tsv\n"
        "  structk gram baskets.sets --kernel 'Jaccard()' -o K.npy\n"
        "  structk gram MUTAG/ --kernel 'WeisfeilerLehman(h=3)' -o K.npy\n"
        "  structk gram points.csv --kernel 'Gaussian(sigma=2)' -o K.npy",
    )
    _add_input(p)
    p.add_argument("--kernel", required=True, metavar="EXPR", help="kernel expression")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE.npy",
        help="where to write the Gram matrix (numpy .npy)",
    )
    p.add_argument("--tsv", metavar="FILE", help="also write a labelled TSV matrix")
    p.add_argument(
        "--block-size",
        type=_int_at_least(1),
        default=256,
        help="tile side for the blockwise computation (default 256)",
    )
    p.add_argument(
        "--require-psd",
        action="store_true",
        help="exit with status 1 when the Gram matrix is not PSD",
    )
    _add_format(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_gram)

    p = sub.add_parser(
        "check-psd",
        help="check that a Gram matrix file is positive semi-definite",
        formatter_class=formatter,
        description="Print the PSD report of a square matrix; exit 1 when it is not PSD. "
        "Reads .npy and .npz (one array) files, the labelled .tsv written by "
        "'structk gram --tsv', and plain .csv/.tsv matrices.",
        epilog="examples:\n  structk check-psd K.npy && echo valid\n"
        "  structk check-psd K.tsv --format json\n"
        "  structk check-psd K.npy --eigenvalues --tol 1e-8",
    )
    p.add_argument("file", help="a matrix file: .npy, .npz, .tsv or .csv")
    p.add_argument(
        "--tol", type=float, default=None, help="absolute tolerance (default 10*n*eps*||K||_F)"
    )
    p.add_argument(
        "--eigenvalues", action="store_true", help="always compute the smallest eigenvalue"
    )
    _add_format(p)
    p.set_defaults(func=_cmd_check_psd)

    p = sub.add_parser(
        "cv",
        help="cross-validate learners with kernels on labelled data",
        formatter_class=formatter,
        description="Compute each kernel's Gram matrix once, check it, and cross-validate "
        "each learner on slices of it (the same folds for every pair). A "
        "learner's regularisation (KernelSVM C, KernelRidge and "
        "KernelLogisticRegression alpha) is chosen on each training part by an "
        "inner cross-validation unless the expression fixes it; a list gives "
        "the grid. Every score is printed beside the majority-class (or "
        "mean-predictor) baseline.",
        epilog="examples:\n"
        "  structk cv MUTAG/ --kernel 'Normalize(RandomWalk(lam=0.01))'\n"
        "  structk cv seqs.fasta --label-pattern 'class=(\\S+)' \\\n"
        "      --kernel 'Spectrum(k=4)' --kernel 'Mismatch(k=5, m=1)' \\\n"
        "      --learner 'KernelSVM(C=[0.1, 1, 10, 100])' --learner 'NearestClassMean()'\n"
        "  structk cv promoters.fasta --label-pattern 'class=(\\S+)' \\\n"
        "      --cv grouped --groups 'source=(\\S+)' --kernel 'Spectrum(k=3)'\n"
        "  structk cv delaney-processed.csv --smiles-column smiles \\\n"
        "      --target-column 'measured log solubility in mols per litre' \\\n"
        "      --kernel 'WeisfeilerLehman(h=3)' --learner 'KernelRidgeCV()'",
    )
    _add_input(p, groups=True, optional=True)
    add_pair_options(p)
    p.add_argument(
        "--kernel",
        action="append",
        required=True,
        metavar="EXPR",
        help="kernel expression (repeat for several)",
    )
    p.add_argument(
        "--learner",
        action="append",
        metavar="EXPR",
        help="learner expression (repeat; default KernelSVM() with C chosen by "
        "inner CV, or KernelRidgeCV() for regression)",
    )
    p.add_argument(
        "--cv",
        "--folds",
        default="10",
        metavar="K|loo|grouped",
        help="outer folds: K-fold (stratified for classes; default 10), "
        "leave-one-out, or grouped by --groups",
    )
    add_inner_cv_options(p, "learners")
    p.add_argument(
        "--repeats", type=_int_at_least(1), default=1, help="repetitions of the k-fold split"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the fold shuffling")
    p.add_argument(
        "--jobs",
        type=_int_at_least(1, also=(-1,)),
        default=1,
        help="folds run in parallel (default 1; -1: one per core)",
    )
    _add_format(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_cmd_cv)

    from . import check_kernel, explain, model_commands, suggest, tu_subset

    check_kernel.add_parser(sub, formatter)
    model_commands.add_parsers(sub, formatter)
    suggest.add_parser(sub, formatter)
    explain.add_parsers(sub, formatter)
    tu_subset.add_parser(sub, formatter)
    for command in sub.choices.values():  # one vocabulary: --quiet everywhere
        if "--quiet" not in command._option_string_actions:
            command.add_argument("--quiet", action="store_true", help="no progress bars or notices")
    return parser


def _version():
    from .. import __version__

    return f"structk {__version__}"


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return EXIT_ERROR
    token = _share_compile_notice()
    _quiet_resource_tracker()
    try:
        refuse_overwrites(args)  # before any work
        code = _run_interruptible(args.func, args)
        sys.stdout.flush()  # a closed pipe is seen here, not at the exit
        return code
    except BrokenPipeError:
        return _reader_gone()
    except (KeyboardInterrupt, _Terminated) as exc:
        _stop_now(args, exc)
    except SystemError as exc:
        # an interrupt arriving while numba code runs surfaces as SystemError
        if _caused_by_interrupt(exc):
            return _interrupted(args)
        return _error(args, exc)
    except (
        OSError,
        ValueError,
        TypeError,
        LookupError,
        ImportError,
        ArithmeticError,
        MemoryError,
        EOFError,
        RuntimeError,
    ) as exc:
        return _error(args, exc)
    finally:
        _remove_token(token)


def _reader_gone():
    """The reader of standard output stopped (``structk explain ... | head -1``):
    stop quietly with status 0, as other command-line tools do, with standard
    output pointed at /dev/null so that Python's own flush at the exit does
    not complain again."""
    import contextlib
    import os

    # (standard output is not a file descriptor in in-process tests)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK


#: The first-compilation notice's token (``structk._jit.TOKEN_VARIABLE``).
_NOTICE_TOKEN = "STRUCTK_COMPILE_NOTICE_TOKEN"


def _share_compile_notice():
    """Name a token file for the first-compilation notice in the environment
    that the command's worker processes inherit, so that a command prints the
    notice once however many of its processes compile; returns its path
    (``None`` when an enclosing command already named one)."""
    import os
    import tempfile
    import uuid

    if os.environ.get(_NOTICE_TOKEN):
        return None
    path = os.path.join(tempfile.gettempdir(), f"structk-compile-notice-{uuid.uuid4().hex}")
    os.environ[_NOTICE_TOKEN] = path
    return path


def _quiet_resource_tracker():
    """Keep joblib's resource tracker quiet about what an interrupted
    ``--jobs`` run leaves: the workers' semaphores and memmapped Grams. The
    tracker (a process started with this environment) still removes them;
    it would only say so, in three warnings after the command's last line."""
    import os

    rule = "ignore:resource_tracker:UserWarning"
    rules = os.environ.get("PYTHONWARNINGS", "")
    if rule not in rules.split(","):
        os.environ["PYTHONWARNINGS"] = f"{rules},{rule}" if rules else rule


def _remove_token(path):
    import contextlib
    import os

    if path is not None:
        os.environ.pop(_NOTICE_TOKEN, None)
        with contextlib.suppress(OSError):
            os.remove(path)


class _Terminated(BaseException):
    """SIGTERM received while a command runs."""


def _run_interruptible(func, args):
    """``func(args)`` in a worker thread while the main thread waits.

    Compiled (numba) loops do not return to the interpreter, so a Ctrl-C
    (or SIGTERM) reaching the thread that runs them is only seen when they
    finish, and then inside numba's own code. Here the main thread only
    waits, so it answers at once; :func:`_stop_now` then ends the process.
    """
    import threading

    outcome = {}

    def target():
        try:
            outcome["value"] = func(args)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            outcome["error"] = exc

    def terminated(signum, frame):
        raise _Terminated

    worker = threading.Thread(target=target, name=f"structk {args.command}", daemon=True)
    previous = _set_signal("SIGTERM", terminated)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
    finally:
        _set_signal("SIGTERM", previous)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _set_signal(name, handler):
    import signal
    import threading

    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(getattr(signal, name), handler)


def _stop_now(args, exc):
    """Remove unfinished output files, say why, and exit at once (130 for
    Ctrl-C, 143 for SIGTERM) without waiting for the worker thread."""
    import os

    from ..scale._tiling import remove_partial_files

    remove_partial_files()
    _kill_workers()
    _remove_token(os.environ.get(_NOTICE_TOKEN))
    word = "interrupted" if isinstance(exc, KeyboardInterrupt) else "terminated"
    print(f"structk {args.command}: {word}", file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(130 if isinstance(exc, KeyboardInterrupt) else 143)


def _kill_workers():
    """End the worker processes of ``--jobs`` (joblib's loky executor), which
    would otherwise go on computing and hold the output pipes open."""
    import contextlib
    import os
    import signal

    loky = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(loky, "_executor", None)
    # killed here, not by executor.shutdown(kill_workers=True), which leaves
    # the killing to a thread that the exit right after never lets run
    for pid in list(getattr(executor, "_processes", {})):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _caused_by_interrupt(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _interrupted(args):
    print(f"structk {args.command}: interrupted", file=sys.stderr)
    return 130


def _error(args, exc):
    """One line on standard error, exit status 2 (bad usage or bad input)."""
    text = str(exc).strip()
    if isinstance(exc, KeyError) and exc.args:
        text = f"missing key {exc.args[0]!r}"
    message = text.splitlines()[0] if text else type(exc).__name__
    print(f"structk {args.command}: error: {message}", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
