"""Reading the command line's inputs: objects, their names and their labels.

Formats
-------
``fasta``
    Sequences (plain or gzipped FASTA, read by Biopython). Labels from the
    headers with ``--label-pattern`` (a regular expression; its first group,
    or the whole match), or from ``--labels``. The alphabet (DNA, RNA or
    protein) is detected from the records unless ``--alphabet`` names it.
``sets``
    A text file with one set per line, tokens separated by white space or
    commas; ``#`` starts a comment line; an empty line is the empty set.
``tu``
    A TU Dortmund graph dataset folder; labels are its graph labels.
``csv``
    Numeric vectors, one per row, comma separated (quoted fields as the
    ``csv`` module reads them; gzipped or not, UTF-8 text: a byte that is not
    UTF-8 is refused naming its line and column), an optional header line,
    ``#`` comment lines;
    ``--label-column`` names or numbers the column holding labels (without
    it, a non-numeric last column is taken as the labels, and said so). With
    ``--smiles-column`` the objects are the molecular graphs of a column of
    SMILES strings instead, and ``--target-column`` holds class labels or
    numbers to regress.

``--split FILE`` keeps only some objects of any format (a TU folder's
training or test graphs, say): one entry per line, a 0-based position in
the input or an object's name; see :func:`read_split`.

``--labels FILE`` gives labels for any format: one label per line in object
order, or two tab-separated columns ``name<TAB>label``. ``--groups`` (for
grouped cross-validation) is a regular expression on FASTA headers, a file
in the same layout as ``--labels``, or a CSV column.

:func:`read_matrix` reads the matrices ``check-psd`` checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FORMATS = ("fasta", "sets", "tu", "csv")


@dataclass
class Objects:
    """Objects read from a file, with their names and (optional) labels.

    ``task`` is "regression" for numeric targets with many distinct values
    (``--target-column``), else "classification"; ``notes`` are the choices
    made for the user (detected alphabet, label column), to be reported.
    """

    objects: list
    names: list
    labels: np.ndarray | None
    format: str
    notes: list = field(default_factory=list)
    task: str = "classification"
    groups: np.ndarray | None = None
    alphabet: str | None = None
    #: "--alphabet" when the user chose the alphabet, "detected" when read from the records
    alphabet_source: str | None = None
    #: CSV: the names of the feature columns (vectors) or of the SMILES column
    columns: list | None = None
    #: CSV: whether the file had a header line naming its columns
    has_header: bool = False

    def subset(self, positions):
        """The objects at ``positions`` (0-based, in that order), with their
        names, labels and groups."""
        idx = np.asarray(positions, dtype=np.int64)
        if isinstance(self.objects, np.ndarray):
            self.objects = self.objects[idx]
        else:
            self.objects = [self.objects[i] for i in idx.tolist()]
        self.names = [self.names[i] for i in idx.tolist()]
        if self.labels is not None:
            self.labels = np.asarray(self.labels)[idx]
        if self.groups is not None:
            self.groups = np.asarray(self.groups)[idx]
        return self


def text_lines(path):
    """The lines of a text file, gzipped or not (told by its first bytes,
    whatever its name), decoded as UTF-8 one at a time; a byte that is not
    UTF-8 (a latin-1 file, a binary file) is a ``ValueError`` naming the
    file, line and column."""
    import gzip

    with open(path, "rb") as raw:
        zipped = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if zipped else open
    try:
        with opener(path, "rb") as fh:
            for lineno, line in enumerate(fh, start=1):
                try:
                    yield line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    column = len(line[: exc.start].decode("utf-8", "replace")) + 1
                    raise ValueError(
                        f"{str(path)!r} line {lineno}, column {column}: byte "
                        f"0x{line[exc.start]:02x} is not UTF-8 text; save the file as "
                        "UTF-8 (e.g. iconv -f latin1 -t utf-8)"
                    ) from None
    except (OSError, EOFError) as exc:  # a damaged gzip stream
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(f"{str(path)!r} cannot be read: {exc}") from None


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


def read_objects(
    path,
    fmt="auto",
    *,
    label_pattern=None,
    labels=None,
    label_column=None,
    alphabet=None,
    smiles_column=None,
    target_column=None,
    groups=None,
    need_labels=False,
    id_column=None,
):
    """Read objects (and labels, targets and groups where the options say
    where they are; a CSV's object names from ``id_column``)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {str(path)!r}")
    fmt = guess_format(path) if fmt == "auto" else fmt
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if label_pattern is not None and fmt != "fasta":
        raise ValueError("--label-pattern applies to FASTA headers only")
    if alphabet is not None and fmt != "fasta":
        raise ValueError("--alphabet applies to FASTA input only")
    if fmt != "csv":
        for option, value in (
            ("--label-column", label_column),
            ("--smiles-column", smiles_column),
            ("--target-column", target_column),
            ("--id-column", id_column),
        ):
            if value is not None:
                raise ValueError(f"{option} applies to CSV input only")
    headers = None
    if fmt == "fasta":
        data, headers = _read_fasta(path, label_pattern, alphabet)
    elif fmt == "sets":
        data = _read_sets(path)
    elif fmt == "tu":
        data = _read_tu(path)
    else:
        data = _read_csv(
            path,
            label_column,
            smiles_column,
            target_column,
            need_labels and labels is None,
            groups,
            id_column,
        )
    if labels is not None:
        data.labels = read_labels(labels, data.names)
    if groups is not None and data.groups is None:
        data.groups = _read_groups(groups, data.names, headers)
    return data


def _read_groups(groups, names, headers):
    """Groups from a file (as ``--labels``) or a regex on FASTA headers."""
    if Path(groups).is_file():
        return read_labels(groups, names, option="--groups")
    if headers is None:
        raise ValueError(
            f"--groups {groups!r} is not a file (a regex on headers needs "
            "FASTA input; for CSV give a column name)"
        )
    return _match_headers(groups, headers, "--groups")


def _match_headers(pattern, headers, option):
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"bad {option} {pattern!r}: {exc}") from None
    out = []
    for i, header in enumerate(headers):
        m = rx.search(header)
        if m is None:
            raise ValueError(
                f"{option} {pattern!r} does not match the header of record {i} ({header!r})"
            )
        out.append(m.group(1) if rx.groups else m.group(0))
    return np.array(out)


def detect_alphabet(seqs, names=None):
    """Name of the alphabet of ``seqs`` (case ignored): "dna" or "rna" when
    at least 90% of the symbols are nucleotides (the rest being ambiguity
    codes such as N), else "protein", or "protein-extended" when X, B, Z, U
    or O occur among the amino acids.

    Raises
    ------
    ValueError
        When a symbol is outside the DNA, RNA and protein alphabets, naming
        the record (index, and name when ``names`` are given) and position
        and how to choose an alphabet.
    """
    from collections import Counter

    from ..alphabets import NAMED

    counts = Counter()
    for s in seqs:
        counts.update(str(s).upper())
    total = sum(counts.values()) or 1
    acgt = sum(counts[c] for c in "ACG")
    if (acgt + counts["T"]) / total >= 0.9 and counts["U"] == 0:
        return "dna"
    if (acgt + counts["U"]) / total >= 0.9 and counts["T"] == 0:
        return "rna"
    protein = set(NAMED["protein"])
    if set(counts) <= protein:
        return "protein"
    extended = set(NAMED["protein-extended"])
    if set(counts) <= extended:
        return "protein-extended"  # X, B, Z, U or O among the amino acids
    for i, s in enumerate(seqs):
        for j, c in enumerate(str(s)):
            if c.upper() not in extended:
                raise ValueError(
                    f"{_record(i, names)} has symbol {c!r} at position {j}, outside the DNA, RNA "
                    "and protein(-extended) alphabets: give --alphabet with every symbol (e.g. "
                    "--alphabet ACGTN), or add unknown='skip' to the kernel"
                )
    raise AssertionError("unreachable")


def _record(i, names):
    return f"record {i}" if names is None else f"record {i} ({names[i]})"


def check_symbols(data, ignore_case=True):
    """Refuse FASTA records holding a symbol outside ``data.alphabet``.

    Called once the kernel is known (a kernel with ``unknown="skip"`` takes
    such symbols on purpose), so that the error names what the user can
    change: ``--alphabet`` when it was given, else the detected alphabet;
    then the record (index and name), the position and the symbol.
    ``ignore_case`` is the kernel's: with it, ``a`` is the symbol ``A``.

    Raises
    ------
    ValueError
        For the first such record, with the count of all of them and the
        ``--alphabet`` that would hold every symbol.
    """
    from ..alphabets import resolve_alphabet

    symbols = resolve_alphabet(data.alphabet)
    accepted = set(symbols)
    if ignore_case:
        accepted |= {s.upper() for s in symbols if isinstance(s, str)}
        accepted |= {s.lower() for s in symbols if isinstance(s, str)}
    first, missing, n_records = None, set(), 0
    for i, seq in enumerate(data.objects):
        bad = set(str(seq)) - accepted
        if bad:
            n_records += 1
            missing |= {c.upper() if ignore_case else c for c in bad}
            if first is None:
                first = i
    if first is None:
        return
    seq = str(data.objects[first])
    j = next(j for j, c in enumerate(seq) if c not in accepted)
    wider = "".join(symbols) + "".join(sorted(missing))
    where = (
        f"{_record(first, data.names)} has symbol {seq[j]!r} at position {j}, outside that alphabet"
    )
    if n_records > 1:
        where += f" ({n_records} records hold such symbols)"
    fix = (
        f"give --alphabet with every symbol (--alphabet {wider}), or add unknown='skip' "
        "to the kernel to drop the k-mers that hold them"
    )
    if data.alphabet_source == "--alphabet":
        raise ValueError(f"--alphabet {data.alphabet}: {where}; {fix}")
    raise ValueError(f"alphabet {data.alphabet} (detected from the records): {where}; {fix}")


def _read_fasta(path, label_pattern, alphabet):
    from ..sequences import read_fasta

    ids, headers, seqs = read_fasta(path, descriptions=True)
    if not seqs:
        raise ValueError(f"{str(path)!r} holds no FASTA records")
    empty = [i for i, s in enumerate(seqs) if not s]
    if empty:
        raise ValueError(
            f"{str(path)!r}: record {empty[0] + 1} ({ids[empty[0]]!r}) has no sequence "
            f"({len(empty)} of {len(seqs)} records are empty); remove the empty records"
        )
    labels = None
    if label_pattern is not None:
        labels = _match_headers(label_pattern, headers, "--label-pattern")
    data = Objects(seqs, ids, labels, "fasta")
    if alphabet is None:
        name = detect_alphabet(seqs, ids)
        data.notes.append(
            f"alphabet {name} detected from the records (give --alphabet to choose another)"
        )
        data.alphabet, data.alphabet_source = name, "detected"
    else:
        from ..alphabets import resolve_alphabet

        try:
            resolve_alphabet(alphabet)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"--alphabet {alphabet!r}: {exc}") from None
        data.alphabet, data.alphabet_source = alphabet, "--alphabet"
    return data, headers


def iter_sets(path):
    """``(name, frozenset of tokens)`` for each line of a token-set file,
    one at a time (names ``line<N>``; ``#`` lines are comments)."""
    for lineno, line in enumerate(text_lines(path), start=1):
        if line.startswith("#"):
            continue
        yield f"line{lineno}", frozenset(t for t in re.split(r"[\s,]+", line.strip()) if t)


def _read_sets(path):
    names, sets = [], []
    for name, tokens in iter_sets(path):
        names.append(name)
        sets.append(tokens)
    if not sets:
        raise ValueError(f"{str(path)!r} holds no sets")
    return Objects(sets, names, None, "sets")


def _read_tu(path):
    from ..datasets import load_tu

    graphs, y = load_tu(path)
    return Objects(graphs, [f"graph{i}" for i in range(len(graphs))], np.asarray(y), "tu")


def _read_csv(
    path, label_column, smiles_column, target_column, need_labels, groups, id_column=None
):
    import csv

    lines = (line for line in text_lines(path) if not line.lstrip().startswith("#"))
    rows = [row for row in csv.reader(lines) if row and any(c.strip() for c in row)]
    if not rows:
        raise ValueError(f"{str(path)!r} holds no rows")
    has_header = not all(_is_number(f) for f in rows[0] if f.strip())
    header = [f.strip() for f in rows[0]] if has_header else [str(i) for i in range(len(rows[0]))]
    body = rows[int(has_header) :]
    if not body:
        raise ValueError(f"{str(path)!r} holds a header but no rows")
    for i, row in enumerate(body):
        if len(row) != len(header):
            raise ValueError(
                f"{str(path)!r} row {i + int(has_header) + 1} has {len(row)} "
                f"fields, the {'header' if has_header else 'first row'} "
                f"{len(header)}"
            )
    table = np.array(body, dtype=str).reshape(len(body), len(header))
    names = [f"row{i}" for i in range(len(body))]
    notes = []

    def column(option, name):
        if name in header:
            return header.index(name)
        if name.lstrip("-").isdigit() and -len(header) <= int(name) < len(header):
            return int(name) % len(header)
        raise ValueError(
            f"{option} {name!r} is not a column of {str(path)!r} (columns: {', '.join(header)})"
        )

    group_values, group_col = None, None
    if groups is not None and not Path(groups).is_file():
        group_col = column("--groups", groups)
        group_values = np.char.strip(table[:, group_col])
    if id_column is not None:  # names, not features
        id_col = column("--id-column", id_column)
        names = [str(v) for v in np.char.strip(table[:, id_col])]
        table = np.delete(table, id_col, axis=1)
        header = [h for j, h in enumerate(header) if j != id_col]
        if group_col is not None and group_col > id_col:
            group_col -= 1

    if smiles_column is not None:
        from ..datasets.chem import from_smiles

        if label_column is not None and target_column is not None:
            raise ValueError("give --target-column or --label-column, not both")
        target = target_column if target_column is not None else label_column
        graphs = _smiles_graphs(from_smiles, table[:, column("--smiles-column", smiles_column)])
        data = Objects(
            graphs,
            names,
            None,
            "csv",
            notes,
            groups=group_values,
            columns=[header[column("--smiles-column", smiles_column)]],
            has_header=has_header,
        )
        if target is not None:
            col = column("--target-column", target)
            data.labels, data.task = _targets(
                table[:, col], label_column is not None, path, header[col]
            )
        return data

    if label_column is not None and target_column is not None:
        raise ValueError("give --target-column or --label-column, not both")
    if group_col is not None:  # groups are not features
        table = np.delete(table, group_col, axis=1)
        header = [h for j, h in enumerate(header) if j != group_col]
    labels, task = None, "classification"
    target = target_column if target_column is not None else label_column
    if target is not None:
        col = column("--target-column" if target_column is not None else "--label-column", target)
        labels, task = _targets(table[:, col], label_column is not None, path, header[col])
        table = np.delete(table, col, axis=1)
        del header[col]
    elif table.shape[1] > 1 and not any(_is_number(v) for v in table[:, -1]):
        # a last column of words only is a label column; one mixing numbers
        # and words is more likely a typo, reported below
        labels, _ = _targets(table[:, -1], True, path, header[-1])
        notes.append(
            f"labels taken from the last column {header[-1]!r} (not numeric); "
            "give --label-column to choose another"
        )
        table = table[:, :-1]
        del header[-1]
    elif need_labels:
        raise ValueError(
            f"{str(path)!r}: say which column holds the labels with "
            "--label-column NAME (or --target-column for numbers to regress)"
        )
    else:
        notes.append(
            f"all {table.shape[1]} columns used as features (give "
            "--label-column to leave out a label column)"
        )
    for j in range(table.shape[1]):
        for i in range(table.shape[0]):
            if not _is_number(table[i, j]):
                raise ValueError(
                    f"{str(path)!r} holds a non-numeric value {str(table[i, j])!r} in "
                    f"column {header[j]!r}, row {i}: give --label-column, or "
                    "--smiles-column for molecules"
                )
    X = table.astype(np.float64)
    return Objects(
        X, names, labels, "csv", notes, task, group_values, columns=header, has_header=has_header
    )


def _smiles_graphs(from_smiles, column):
    try:
        return from_smiles([str(v) for v in column])
    except ValueError as exc:
        m = re.match(r"smiles\[(\d+)\]", str(exc))
        if m is None:
            raise
        raise ValueError(
            f"row {m.group(1)} of --smiles-column: {str(exc).split('= ', 1)[-1]}"
        ) from None


def _targets(values, classes, path, name):
    """Targets of a column: class labels, or floats for regression when
    every value is a number and there are more than 10 distinct ones or a
    non-integer one (unless ``classes`` says they are class labels). An
    empty cell is refused (it would be a class of its own)."""
    values = np.char.strip(values)
    empty = np.flatnonzero(values == "")
    if len(empty):
        raise ValueError(
            f"{str(path)!r} row {int(empty[0])} has an empty label in column "
            f"{name!r} ({len(empty)} empty in all): fill it in or remove the "
            "row"
        )
    if classes or not all(_is_number(v) for v in values):
        return values, "classification"
    numbers = values.astype(np.float64)
    if not np.all(np.isfinite(numbers)):
        i = int(np.flatnonzero(~np.isfinite(numbers))[0])
        raise ValueError(f"target of row {i} is {values[i]!r}, not a finite number")
    if len(np.unique(numbers)) > 10 or np.any(numbers != np.round(numbers)):
        return numbers, "regression"
    return values, "classification"


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_split(path, names, what="INPUT", option="--split"):
    """The 0-based positions of the objects a split file selects, in input
    order.

    One entry per line (blank lines and ``#`` comments skipped): a whole
    number is a 0-based position in the input (``graph0`` is the first graph
    of a TU folder, whose own graph ids start at 1), anything else the name
    of an object (``graph12``, a FASTA id, a CSV ``--id-column`` value).

    Raises
    ------
    ValueError
        Naming the file and line of an entry that is negative, past the last
        object, not a name of the input, or listed twice (with the line that
        listed it first); and for a file without entries.
    """
    n = len(names)
    where = {}
    for i, name in enumerate(names):
        where.setdefault(str(name), i)
    first_line = {}
    for lineno, line in enumerate(text_lines(path), start=1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        at = f"{option} {str(path)!r} line {lineno}"
        if len(entry.split()) > 1 or "," in entry:
            raise ValueError(f"{at}: {entry!r} holds several entries; write one per line")
        if entry.lstrip("+-").isdigit():
            pos = int(entry)
            if not 0 <= pos < n:
                raise ValueError(
                    f"{at}: position {pos} is outside 0..{n - 1} ({what} has {n} "
                    f"objects; positions start at 0, so {names[0]} is 0"
                    + ("; subtract 1 from 1-based TU graph ids)" if pos == n else ")")
                )
        elif entry in where:
            pos = where[entry]
        else:
            raise ValueError(
                f"{at}: {entry!r} is neither a 0-based position nor the name of an "
                f"object of {what} (names such as {names[0]!r})"
            )
        if pos in first_line:
            also = "" if entry == str(names[pos]) else f" ({names[pos]})"
            raise ValueError(
                f"{at}: {entry!r}{also} is listed already on line "
                f"{first_line[pos]}; list each object once"
            )
        first_line[pos] = lineno
    if not first_line:
        raise ValueError(f"{option} {str(path)!r} lists no objects")
    return sorted(first_line)


def read_labels(path, names, option="--labels"):
    """Labels from a file: one per line in order, or ``name<TAB>label`` lines."""
    lines = [line.rstrip("\r\n") for line in text_lines(path) if line.strip()]
    if lines and all("\t" in line for line in lines):
        table = dict(line.split("\t", 1) for line in lines)
        missing = [n for n in names if n not in table]
        if missing:
            raise ValueError(f"{option} {str(path)!r} has no entry for {missing[0]!r}")
        blank = [n for n in names if not table[n].strip()]
        if blank:
            raise ValueError(
                f"{option} {str(path)!r}: the entry of {blank[0]!r} is empty; "
                "give every object a value"
            )
        return np.array([table[n].strip() for n in names])
    if len(lines) != len(names):
        raise ValueError(f"{option} {str(path)!r} has {len(lines)} lines for {len(names)} objects")
    return np.array([line.strip() for line in lines])


def read_matrix(path):
    """A square matrix from ``.npy``, ``.npz`` (a single array), the labelled
    ``.tsv`` written by ``structk gram --tsv`` (names in the first row and
    column), or a plain ``.csv``/``.tsv`` matrix (an optional header row)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            return np.load(path, allow_pickle=False, mmap_mode="r")
        except (ValueError, EOFError) as exc:
            raise ValueError(f"{str(path)!r} is not a numpy .npy array: {exc}") from None
    if suffix == ".npz":
        _fits_in_memory(path, _npz_size(path), "inflated")
        with np.load(path, allow_pickle=False) as archive:
            if len(archive.files) != 1:
                raise ValueError(
                    f"{str(path)!r} holds {len(archive.files)} arrays "
                    f"({', '.join(archive.files)}); save just the Gram matrix"
                )
            return archive[archive.files[0]]
    if suffix in (".tsv", ".csv", ".txt"):
        return _read_text_matrix(path, "\t" if suffix != ".csv" else ",")
    raise ValueError(f"cannot read a matrix from {str(path)!r}: use .npy, .npz, .tsv or .csv")


def _npz_size(path):
    """Bytes the arrays of a ``.npz`` archive take once inflated (from the
    zip directory, before anything is inflated)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            return sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile:
        raise ValueError(f"{str(path)!r} is not a numpy .npz archive") from None


def _fits_in_memory(path, nbytes, what):
    """Refuse ``path`` before reading it when ``nbytes`` would not fit in
    half the memory the system has available."""
    from ..scale._tiling import _available_memory

    available = _available_memory()
    if available and nbytes > available // 2:
        raise MemoryError(
            f"{str(path)!r} takes {nbytes / 2**30:.1f} GiB {what}, more than half the "
            f"{available / 2**30:.1f} GiB of memory available; save the matrix as .npy, "
            "which is read without loading it"
        )


#: Bound on the memory a text matrix takes while parsed, per byte of the file:
#: a cell is a Python string (about 50 bytes) in a list, so short cells such
#: as "0.5" cost about 15 bytes per byte of the file (full-precision ones, 4).
_TEXT_MATRIX_OVERHEAD = 16


def _read_text_matrix(path, sep):
    _fits_in_memory(path, path.stat().st_size * _TEXT_MATRIX_OVERHEAD, "while parsed")
    with open(path) as fh:
        rows = [line.rstrip("\r\n").split(sep) for line in fh if line.strip()]
    if not rows:
        raise ValueError(f"{str(path)!r} holds no matrix")
    if not all(_is_number(c) for c in rows[0] if c.strip()):
        rows = rows[1:]  # header row of names
    if rows and len(rows[0]) > 1 and not _is_number(rows[0][0]):
        rows = [r[1:] for r in rows]  # first column of names
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if not _is_number(cell):
                raise ValueError(f"{str(path)!r}: entry ({i}, {j}) is {cell!r}, not a number")
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise ValueError(f"{str(path)!r}: rows have different lengths {sorted(widths)}")
    return np.array(rows, dtype=np.float64)
