"""Reading the command line's inputs: objects, their names and their labels.

Formats
-------
``fasta``
    Sequences (plain or gzipped FASTA, read by Biopython). Labels from the
    headers with ``--label-pattern`` (a regular expression; its first group,
    or the whole match), or from ``--labels``.
``sets``
    A text file with one set per line, tokens separated by white space or
    commas; ``#`` starts a comment line; an empty line is the empty set.
``tu``
    A TU Dortmund graph dataset folder; labels are its graph labels.
``csv``
    Numeric vectors, one per row, comma separated, an optional header line;
    ``--label-column`` names or numbers the column holding labels.

``--labels FILE`` gives labels for any format: one label per line in object
order, or two tab-separated columns ``name<TAB>label``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMATS = ("fasta", "sets", "tu", "csv")


@dataclass
class Objects:
    """Objects read from a file, with their names and (optional) labels."""

    objects: list
    names: list
    labels: np.ndarray | None
    format: str


def guess_format(path):
    """Guess the input format from the path (a folder is a TU dataset)."""
    path = Path(path)
    if path.is_dir():
        return "tu"
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".fa", ".fasta", ".fna", ".faa", ".fas")):
        return "fasta"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".sets", ".txt")):
        return "sets"
    raise ValueError(
        f"cannot tell the format of {str(path)!r} from its name; give --format "
        f"({', '.join(FORMATS)})"
    )


def read_objects(path, fmt="auto", *, label_pattern=None, labels=None, label_column=None):
    """Read objects (and labels where the options say where they are)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {str(path)!r}")
    fmt = guess_format(path) if fmt == "auto" else fmt
    if fmt == "fasta":
        data = _read_fasta(path, label_pattern)
    elif fmt == "sets":
        data = _read_sets(path)
    elif fmt == "tu":
        data = _read_tu(path)
    elif fmt == "csv":
        data = _read_csv(path, label_column)
    else:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if label_pattern is not None and fmt != "fasta":
        raise ValueError("--label-pattern applies to FASTA headers only")
    if labels is not None:
        data.labels = read_labels(labels, data.names)
    return data


def _read_fasta(path, label_pattern):
    from .sequences import read_fasta

    ids, headers, seqs = read_fasta(path, descriptions=True)
    if not seqs:
        raise ValueError(f"{str(path)!r} holds no FASTA records")
    labels = None
    if label_pattern is not None:
        try:
            rx = re.compile(label_pattern)
        except re.error as exc:
            raise ValueError(f"bad --label-pattern {label_pattern!r}: {exc}") from None
        labels = []
        for i, header in enumerate(headers):
            m = rx.search(header)
            if m is None:
                raise ValueError(
                    f"--label-pattern {label_pattern!r} does not match the header of "
                    f"record {i} ({header!r})"
                )
            labels.append(m.group(1) if rx.groups else m.group(0))
        labels = np.array(labels)
    return Objects(seqs, ids, labels, "fasta")


def _read_sets(path):
    sets, names = [], []
    with open(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.startswith("#"):
                continue
            sets.append(frozenset(t for t in re.split(r"[\s,]+", line.strip()) if t))
            names.append(f"line{lineno}")
    if not sets:
        raise ValueError(f"{str(path)!r} holds no sets")
    return Objects(sets, names, None, "sets")


def _read_tu(path):
    from .datasets import load_tu

    graphs, y = load_tu(path)
    return Objects(graphs, [f"graph{i}" for i in range(len(graphs))], np.asarray(y), "tu")


def _read_csv(path, label_column):
    with open(path) as fh:
        first = fh.readline()
    fields = [f.strip() for f in first.split(",")]
    has_header = not all(_is_number(f) for f in fields if f)
    header = fields if has_header else [str(i) for i in range(len(fields))]
    table = np.genfromtxt(path, delimiter=",", skip_header=int(has_header), dtype=str)
    table = np.atleast_2d(table)
    labels = None
    if label_column is not None:
        if label_column in header:
            col = header.index(label_column)
        elif label_column.lstrip("-").isdigit():
            col = int(label_column) % len(header)
        else:
            raise ValueError(f"--label-column {label_column!r} is not a column of {str(path)!r}")
        labels = table[:, col]
        table = np.delete(table, col, axis=1)
    try:
        X = table.astype(np.float64)
    except ValueError as exc:
        raise ValueError(f"{str(path)!r} holds a non-numeric value: {exc}") from None
    return Objects(X, [f"row{i}" for i in range(len(X))], labels, "csv")


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_labels(path, names):
    """Labels from a file: one per line in order, or ``name<TAB>label`` lines."""
    lines = [line.rstrip("\n") for line in open(path) if line.strip()]
    if lines and all("\t" in line for line in lines):
        table = dict(line.split("\t", 1) for line in lines)
        missing = [n for n in names if n not in table]
        if missing:
            raise ValueError(f"--labels {str(path)!r} has no label for {missing[0]!r}")
        return np.array([table[n].strip() for n in names])
    if len(lines) != len(names):
        raise ValueError(
            f"--labels {str(path)!r} has {len(lines)} labels for {len(names)} objects"
        )
    return np.array([line.strip() for line in lines])
