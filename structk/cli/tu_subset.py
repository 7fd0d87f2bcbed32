"""``structk tu-subset``: write some graphs of a TU folder as a TU folder of
their own (:func:`structk.datasets.save_tu`), e.g. a training split for a
tool that reads whole TU folders."""

from __future__ import annotations

import sys


def add_parser(sub, formatter):
    """Register the ``tu-subset`` subcommand."""
    p = sub.add_parser(
        "tu-subset",
        help="write the graphs of a split of a TU folder as a new TU folder",
        formatter_class=formatter,
        description="Read a TU Dortmund dataset folder, keep the graphs --split lists "
        "(0-based positions or names graph<i>, one per line, as fit/cv/predict "
        "--split read them) and write them, with their node and edge labels and "
        "attributes and their graph labels or targets, as a new TU folder. "
        "The README's names of the labels (MUTAG: 0 C, 1 N, ...) are kept.",
        epilog="examples:\n"
        "  structk tu-subset MUTAG/ --split train.txt -o MUTAG_train/\n"
        "  structk tu-subset MUTAG/ --split test.txt -o MUTAG_test/ --name MUTAG_test",
    )
    p.add_argument("input", help="a TU dataset folder")
    p.add_argument("--split", required=True, metavar="FILE", help="the graphs to keep")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FOLDER",
        help="the new folder (must not hold a dataset)",
    )
    p.add_argument("--name", help="the new dataset's name (file prefix; default: the folder's)")
    p.set_defaults(func=run)


def run(args):
    from pathlib import Path

    from ..datasets import load_tu, save_tu, tu_label_names
    from .inputs import read_split

    if not Path(args.input).is_dir():
        raise ValueError(f"{args.input} is not a folder: tu-subset reads a TU dataset folder")
    graphs, y = load_tu(args.input, require_targets=False)
    keep = read_split(args.split, [f"graph{i}" for i in range(len(graphs))], args.input)
    out = save_tu(
        args.output,
        [graphs[i] for i in keep],
        None if y is None else y[keep],
        name=args.name,
        label_names=tu_label_names(args.input),
    )
    print(f"{len(keep)} of {len(graphs)} graphs written to {out}", file=sys.stderr)
    return 0
