"""The ``structk`` command line.

Commands
--------
``structk demo``        the main job on the bundled data
``structk gram``        Gram matrix of a FASTA file, a file of token sets, a TU
                        graph folder or a CSV of vectors, to ``.npy`` (and TSV)
``structk check-psd``   check a Gram matrix file; exit 1 when it is not PSD
``structk cv``          cross-validate learners with kernels on labelled data

Kernels and learners are written as Python expressions of structk classes,
e.g. ``--kernel "Normalize(Spectrum(k=5))"`` or ``--learner "KernelSVM(C=10)"``;
they are parsed safely (see :mod:`structk._spec`), never ``eval``-ed.

Exit status: 0 success; 1 the checked matrix is not positive semi-definite
(``check-psd``, or ``gram --require-psd``); 2 bad usage or bad input, with
one line on standard error saying what is wrong.
"""

from __future__ import annotations

import argparse
import sys

EXIT_OK, EXIT_NOT_PSD, EXIT_ERROR = 0, 1, 2


# ------------------------------------------------------------------ helpers
def _show_progress(args):
    return not getattr(args, "quiet", False) and sys.stderr.isatty()


def _kernel(text):
    from ._spec import kernel_namespace, parse_spec

    return parse_spec(text, kernel_namespace(), "kernel")


def _learner(text):
    from ._spec import learner_namespace, parse_spec

    return parse_spec(text, learner_namespace(), "learner")


def _read(args, need_labels=False):
    from ._inputs import read_objects

    data = read_objects(args.input, args.format, label_pattern=args.label_pattern,
                        labels=args.labels, label_column=args.label_column)
    if need_labels and data.labels is None:
        raise ValueError(
            f"{args.input} has no labels: give --label-pattern (FASTA headers), "
            "--labels FILE or --label-column (CSV)"
        )
    return data


# ----------------------------------------------------------------- commands
def _cmd_demo(args):
    from . import demo

    demo.run(quick=args.quick, progress=_show_progress(args))
    return EXIT_OK


def _cmd_gram(args):
    import numpy as np

    from .evaluation import compute_gram
    from .psd import check_psd

    kernel = _kernel(args.kernel)
    data = _read(args)
    out = args.output if str(args.output).endswith(".npy") else None
    K, seconds = compute_gram(kernel, data.objects, progress=_show_progress(args),
                              out=out, block_size=args.block_size)
    if out is None:
        np.save(args.output, np.asarray(K))
    if args.tsv:
        _write_tsv(args.tsv, K, data.names)
    report = check_psd(K)
    print(f"{kernel!r}: {K.shape[0]} x {K.shape[1]} Gram matrix in {seconds:.2f} s "
          f"written to {args.output}" + (f" and {args.tsv}" if args.tsv else ""))
    print(report)
    return EXIT_NOT_PSD if (args.require_psd and not report.is_psd) else EXIT_OK


def _write_tsv(path, K, names):
    with open(path, "w") as fh:
        fh.write("\t" + "\t".join(names) + "\n")
        for name, row in zip(names, K):
            fh.write(name + "\t" + "\t".join(f"{v:.17g}" for v in row) + "\n")


def _cmd_check_psd(args):
    import numpy as np

    from .psd import check_psd

    K = np.load(args.file, allow_pickle=False, mmap_mode="r")
    report = check_psd(K, args.tol, method="eigh" if args.eigenvalues else "auto")
    print(report)
    return EXIT_OK if report.is_psd else EXIT_NOT_PSD


def _cmd_cv(args):
    from .evaluation import cross_validate_grams, format_table

    data = _read(args, need_labels=True)
    kernels = [_kernel(text) for text in args.kernel]
    learners = [_learner(text) for text in args.learner or ["KernelSVM(C=1.0)"]]
    rows = cross_validate_grams(
        kernels, learners, data.objects, data.labels, folds=args.folds,
        repeats=args.repeats, seed=args.seed, n_jobs=args.jobs,
        progress=_show_progress(args),
    )
    print(f"{args.input}: {len(data.objects)} objects, classes "
          f"{sorted(set(data.labels.tolist()))}, {args.repeats} x {args.folds}-fold CV")
    print(format_table(rows))
    return EXIT_OK


# ------------------------------------------------------------------- parser
_INPUT_HELP = "FASTA file (.fa/.fasta[.gz]), token-set file (.sets/.txt), TU folder, or CSV"


def _add_input(p):
    p.add_argument("input", help=_INPUT_HELP)
    p.add_argument("--format", default="auto", choices=["auto", "fasta", "sets", "tu", "csv"],
                   help="input format (default: from the file name; a folder is TU)")
    p.add_argument("--label-pattern", metavar="REGEX",
                   help="take labels from FASTA headers: first group of REGEX, "
                        r"e.g. 'class=(\S+)'")
    p.add_argument("--labels", metavar="FILE",
                   help="labels: one per line in input order, or name<TAB>label lines")
    p.add_argument("--label-column", metavar="COL",
                   help="CSV column (name or number) holding the labels")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="structk",
        description="Kernels for structured data: Gram matrices, PSD checks, learners.",
        epilog="Exit status: 0 ok, 1 not positive semi-definite, 2 bad usage or input.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    formatter = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser(
        "demo", help="run the main job on the bundled data", formatter_class=formatter,
        description="Classify bundled sequences, graphs and vectors with several kernels "
                    "and learners under cross-validation; check every Gram matrix.",
        epilog="examples:\n  structk demo\n  structk demo --quick",
    )
    p.add_argument("--quick", action="store_true", help="fewer kernels and folds")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser(
        "gram", help="compute a Gram matrix from a file", formatter_class=formatter,
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
    p.add_argument("-o", "--output", required=True, metavar="FILE.npy",
                   help="where to write the Gram matrix (numpy .npy)")
    p.add_argument("--tsv", metavar="FILE", help="also write a labelled TSV matrix")
    p.add_argument("--block-size", type=int, default=256,
                   help="tile side for the blockwise computation (default 256)")
    p.add_argument("--require-psd", action="store_true",
                   help="exit with status 1 when the Gram matrix is not PSD")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_gram)

    p = sub.add_parser(
        "check-psd", help="check that a Gram matrix (.npy) is positive semi-definite",
        formatter_class=formatter,
        description="Print the PSD report of a square matrix stored with numpy.save; "
                    "exit 1 when it is not PSD.",
        epilog="examples:\n  structk check-psd K.npy && echo valid\n"
               "  structk check-psd K.npy --eigenvalues --tol 1e-8",
    )
    p.add_argument("file", help="a .npy file holding a square matrix")
    p.add_argument("--tol", type=float, default=None,
                   help="absolute tolerance (default 10*n*eps*||K||_F)")
    p.add_argument("--eigenvalues", action="store_true",
                   help="always compute the smallest eigenvalue")
    p.set_defaults(func=_cmd_check_psd)

    p = sub.add_parser(
        "cv", help="cross-validate learners with kernels on labelled data",
        formatter_class=formatter,
        description="Compute each kernel's Gram matrix once, check it, and cross-validate "
                    "each learner on it (stratified folds); print a table.",
        epilog="examples:\n"
               "  structk cv seqs.fasta --label-pattern 'class=(\\S+)' \\\n"
               "      --kernel 'Spectrum(k=4)' --kernel 'Mismatch(k=5, m=1)' \\\n"
               "      --learner 'KernelSVM(C=1)' --learner 'NearestClassMean()'\n"
               "  structk cv MUTAG/ --kernel 'Normalize(RandomWalk(lam=0.01, node_label=\"label\"))'"
               " --jobs 2",
    )
    _add_input(p)
    p.add_argument("--kernel", action="append", required=True, metavar="EXPR",
                   help="kernel expression (repeat for several)")
    p.add_argument("--learner", action="append", metavar="EXPR",
                   help="learner expression (repeat; default KernelSVM(C=1.0))")
    p.add_argument("--folds", type=int, default=5, help="number of folds (default 5)")
    p.add_argument("--repeats", type=int, default=1, help="repetitions of the k-fold split")
    p.add_argument("--seed", type=int, default=0, help="seed of the fold shuffling")
    p.add_argument("--jobs", type=int, default=1, help="folds run in parallel (default 1)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_cmd_cv)
    return parser


def _version():
    from . import __version__

    return f"structk {__version__}"


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        return args.func(args)
    except (OSError, ValueError, TypeError, ImportError, OverflowError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"structk {args.command}: error: {message}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"structk {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
