"""Biological (and other) sequences as input: encoding, k-mer names, FASTA files.

Every string kernel takes its input through :func:`encode`, which checks each
sequence against an alphabet once, in Python, and turns the whole collection
into one flat ``uint8`` array of symbol codes plus offsets (CSR style)::

    seqs = encode(["ACGT", "acgn"], alphabet="dna", unknown="skip")
    seqs.codes    # array([0, 1, 2, 3, 0, 1, 2, 255], dtype=uint8)
    seqs.offsets  # array([0, 4, 8])

Input
-----
A sequence is a ``str``, ``bytes``, a sequence of symbols (e.g. a list of
one-letter strings, or of any hashable symbols when the alphabet is made of
such symbols), or a Biopython ``Seq`` / ``SeqRecord``.

Alphabets
---------
``"dna"`` (ACGT), ``"rna"`` (ACGU), ``"protein"`` (the 20 standard amino
acids), or any string / sequence of distinct symbols
(see :func:`structk.alphabets.resolve_alphabet`). Symbol ``i`` of the
alphabet gets code ``i``.

Case
----
With ``ignore_case=True`` (the default) a letter matches the alphabet symbol
of either case: ``"acgt"`` is read as ``"ACGT"`` on the DNA alphabet. An
alphabet holding two symbols that differ only by case (e.g. ``"aA"``) needs
``ignore_case=False``, and that is checked.

Symbols outside the alphabet
----------------------------
``unknown="error"`` (the default) raises a ``ValueError`` naming the
sequence index, the position and the symbol. ``unknown="skip"`` keeps the
position but marks it with the code :data:`UNKNOWN` (255): the kernels then
drop every k-mer that contains it (spectrum, mismatch), and a marked
position never matches anything, itself included (weighted degree). This is
the right treatment of ambiguity codes such as ``N`` in DNA: the k-mers
covering them are unknown, so they are not counted, never mis-counted as some
other k-mer. Sequence lengths and positions are unchanged.

FASTA
-----
:func:`read_fasta` and :func:`write_fasta` (plain or gzip-compressed) use
Biopython's ``Bio.SeqIO`` (a dependency of structk: the command line and
the demo read FASTA files).
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._validation import check_objects
from .alphabets import PROTEIN, resolve_alphabet

#: Code of a symbol outside the alphabet kept with ``unknown="skip"``.
UNKNOWN = 255
_SKIP_HINT = (
    "pass unknown='skip' to drop the k-mers that contain them, or choose "
    "an alphabet that holds them"
)
_UNKNOWN_MODES = ("error", "skip")


@dataclass(frozen=True)
class EncodedSequences:
    """A collection of sequences as flat symbol codes plus offsets.

    Attributes
    ----------
    codes : ndarray of uint8 (uint16 for alphabets of more than 255 symbols)
        All sequences concatenated; symbol ``i`` of the alphabet is code
        ``i``, a skipped unknown symbol is :data:`UNKNOWN` (65535 with
        ``uint16`` codes).
    offsets : ndarray of int64, shape (n + 1,)
        Sequence ``i`` is ``codes[offsets[i]:offsets[i + 1]]``.
    alphabet : tuple
        The symbols, in code order.
    """

    codes: np.ndarray
    offsets: np.ndarray
    alphabet: tuple

    def __len__(self):
        return len(self.offsets) - 1

    @property
    def lengths(self):
        """Length of each sequence (unknown symbols included)."""
        return np.diff(self.offsets)

    def __getitem__(self, i):
        return self.codes[self.offsets[i] : self.offsets[i + 1]]

    def take(self, index):
        """The sequences selected by ``index`` (a slice or integer positions), re-packed."""
        idx = np.arange(len(self))[index]
        lengths = self.lengths[idx]
        offsets = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if isinstance(index, slice) and (index.step in (None, 1)) and len(idx):
            codes = self.codes[self.offsets[idx[0]] : self.offsets[idx[-1] + 1]]
        elif len(idx):
            codes = np.concatenate([self[i] for i in idx])
        else:
            codes = self.codes[:0]
        return EncodedSequences(codes, offsets, self.alphabet)


#: The alphabets with complements (code ``c`` pairs with ``3 - c``: A-T(U), C-G).
NUCLEOTIDES = (("A", "C", "G", "T"), ("A", "C", "G", "U"))


def reverse_complement(P):
    """The reverse complements of nucleotide sequences encoded by :func:`encode`
    (code ``c`` becomes ``3 - c``; unknown symbols stay unknown, in their
    mirrored positions)."""
    if P.alphabet not in NUCLEOTIDES:
        raise ValueError(f"reverse complements need the DNA or RNA alphabet, got {P.alphabet}")
    n = len(P)
    seq = np.repeat(np.arange(n), P.lengths)
    pos = np.arange(P.codes.shape[0]) - P.offsets[seq]
    mirrored = P.offsets[seq] + (P.lengths[seq] - 1 - pos)
    codes = P.codes[mirrored]
    known = codes < 4
    codes = np.where(known, 3 - codes.astype(np.int64), codes).astype(P.codes.dtype)
    return EncodedSequences(np.ascontiguousarray(codes), P.offsets, P.alphabet)


def check_unknown(unknown):
    """Validate the ``unknown`` option shared by the sequence kernels."""
    if unknown not in _UNKNOWN_MODES:
        raise ValueError(f"unknown must be 'error' or 'skip', got {unknown!r}")
    return unknown


def encode(
    X,
    alphabet="dna",
    *,
    ignore_case=True,
    unknown="error",
    name="X",
    unknown_hint=None,
    max_symbols=255,
):
    """Encode a collection of sequences as flat ``uint8`` codes plus offsets.

    Parameters
    ----------
    X : sequence of sequences
        ``str``, ``bytes``, sequences of symbols, or Biopython ``Seq`` /
        ``SeqRecord`` objects. Empty sequences are allowed.
    alphabet : str or sequence, default "dna"
        ``"dna"``, ``"rna"``, ``"protein"`` or the symbols themselves (at
        most 255).
    ignore_case : bool, default True
        Match letters to the alphabet regardless of case.
    unknown : {"error", "skip"}, default "error"
        What to do with a symbol outside the alphabet (see the module
        docstring): raise, or keep it as :data:`UNKNOWN`.
    name : str
        How the collection is called in error messages (``X[3]``).
    unknown_hint : str, optional
        The advice that ends the error for a symbol outside the alphabet
        (with ``unknown="error"``); by default it suggests
        ``unknown='skip'``, which suits the string kernels.
    max_symbols : int, default 255
        Largest alphabet accepted. Alphabets of up to 255 symbols get
        ``uint8`` codes; callers that take larger alphabets (the hidden
        Markov models, up to 65535 symbols) get ``uint16`` codes, whose
        :data:`UNKNOWN` marker is then 65535.

    Returns
    -------
    EncodedSequences
    """
    check_unknown(unknown)
    if not isinstance(ignore_case, (bool, np.bool_)):
        raise TypeError(f"ignore_case must be True or False, got {ignore_case!r}")
    symbols = resolve_alphabet(alphabet)
    if len(symbols) > min(max_symbols, 65535):
        raise ValueError(
            f"an alphabet has at most {min(max_symbols, 65535)} symbols, got {len(symbols)}"
        )
    dtype = np.uint8 if len(symbols) <= 255 else np.uint16
    _check_one_column(X, name)
    X = check_objects(X, name)
    table = _symbol_table(symbols, ignore_case)
    lut = _byte_table(table, dtype)
    items = [_as_sequence(x, f"{name}[{i}]") for i, x in enumerate(X)]
    if lut is not None and all(isinstance(x, (str, bytes)) for x in items):
        raw = [_latin1(x) for x in items]
        if all(r is not None for r in raw):
            lengths = np.fromiter((len(r) for r in raw), np.int64, len(raw))
            codes = lut[np.frombuffer(b"".join(raw), dtype=np.uint8)]
            return _finish(codes, lengths, items, symbols, unknown, name, unknown_hint)
    parts = []
    for i, x in enumerate(items):
        r = _latin1(x) if lut is not None and isinstance(x, (str, bytes)) else None
        if r is not None:
            parts.append(lut[np.frombuffer(r, dtype=np.uint8)])
        else:
            parts.append(_encode_generic(x, table, dtype, f"{name}[{i}]"))
    lengths = np.fromiter((len(p) for p in parts), np.int64, len(parts))
    codes = np.concatenate(parts) if parts else np.empty(0, dtype)
    return _finish(
        codes.astype(dtype, copy=False), lengths, items, symbols, unknown, name, unknown_hint
    )


def _symbol_table(symbols, ignore_case):
    """Map each accepted input symbol to its code."""
    table = {}
    for code, s in enumerate(symbols):
        variants = {s}
        if ignore_case and isinstance(s, str):
            variants |= {s.lower(), s.upper()}
        for v in variants:
            if v in table and table[v] != code:
                raise ValueError(
                    f"alphabet symbols {symbols[table[v]]!r} and {s!r} differ only "
                    "by case; pass ignore_case=False"
                )
            table[v] = code
    return table


def _byte_table(table, dtype=np.uint8):
    """A 256-entry lookup table when every symbol is one latin-1 character."""
    if not all(isinstance(s, str) and len(s) == 1 and ord(s) < 256 for s in table):
        return None
    lut = np.full(256, np.iinfo(dtype).max, dtype=dtype)
    for s, code in table.items():
        lut[ord(s)] = code
    return lut


def _latin1(x):
    if isinstance(x, bytes):
        return x
    try:
        return x.encode("latin-1")
    except UnicodeEncodeError:
        return None


def _check_one_column(X, name):
    """Refuse a table of sequences (an (n, 1) array, a one-column DataFrame):
    its rows would be read as sequences of one multi-letter symbol."""
    shape = getattr(X, "shape", None)
    dtypes = getattr(X, "dtypes", None)  # a DataFrame's, else the array's dtype
    kinds = (
        {d.kind for d in dtypes}
        if dtypes is not None
        else {getattr(getattr(X, "dtype", None), "kind", None)}
    )
    if shape is not None and len(shape) == 2 and shape[1] == 1 and kinds & set("OUS"):
        kind = "DataFrame" if hasattr(X, "columns") else "array"
        raise ValueError(
            f"{name} is a 2-d {kind} of shape {tuple(shape)}; sequence kernels take a list "
            f"or a 1-d array of sequences: pass {name}.ravel() (an array) or "
            f"{name}[column].tolist() (a DataFrame)"
        )


def _as_sequence(x, where):
    if hasattr(x, "nodes") and hasattr(x, "edges") and hasattr(x, "adj"):
        raise TypeError(
            f"{where} is a graph ({type(x).__name__}), not a sequence: this kernel takes "
            "strings (str, bytes, Bio.Seq); graphs need a graph kernel (WeisfeilerLehman, "
            "ShortestPath, RandomWalk, ...)"
        )
    if type(x).__module__.startswith("Bio."):  # Seq, SeqRecord, MutableSeq
        return str(getattr(x, "seq", x))
    if isinstance(x, (bytearray, memoryview)):
        return bytes(x)
    if isinstance(x, (str, bytes)):
        return x
    if isinstance(x, np.ndarray) and x.ndim != 1:
        raise ValueError(f"{where} is a {x.ndim}-d array; a sequence must be 1-d")
    if isinstance(x, (set, frozenset, dict)) or not hasattr(x, "__len__"):
        raise TypeError(
            f"{where} is a {type(x).__name__}, not a sequence (str, bytes or an "
            "ordered sequence of symbols)"
        )
    try:
        iter(x)
    except TypeError:
        raise TypeError(
            f"{where} is a {type(x).__name__}, not a sequence ({where} must be a "
            "sequence of symbols: a str, bytes or a list of symbols)"
        ) from None
    return x


def _encode_generic(x, table, dtype, where):
    out = np.empty(len(x), dtype=dtype)
    not_found = np.iinfo(dtype).max
    for p, s in enumerate(x):
        if isinstance(s, bytes) and len(s) == 1:
            s = s.decode("latin-1")
        elif isinstance(x, bytes):
            s = chr(s)
        try:
            out[p] = table.get(s, not_found)
        except TypeError:
            raise TypeError(f"{where} has an unhashable symbol {s!r} at position {p}") from None
    return out


def _looks_like_protein(codes, offsets, bad, items, symbols):
    """Whether sequences refused by a nucleotide alphabet are protein: at
    least a quarter of their symbols outside it, the first 200 of those all
    amino-acid letters, one of them a letter that is no nucleotide code
    (E, F, I, L, P, Q; N, R, Y, ... are IUPAC ambiguity codes too)."""
    from .alphabets import NAMED

    nucleotides = set("ACGTUN")
    if not all(isinstance(c, str) and c.upper() in nucleotides for c in symbols):
        return False
    if bad.size < 0.25 * codes.size:
        return False
    protein = set(NAMED["protein"]) | set("BZJUOX*")
    amino_only = False
    for flat in bad[:200]:
        i = int(np.searchsorted(offsets, flat, side="right") - 1)
        x = items[i]
        c = x[int(flat - offsets[i])]
        c = chr(c) if isinstance(c, int) else c
        if not (isinstance(c, str) and c.upper() in protein):
            return False
        amino_only = amino_only or c.upper() in "EFILPQJOZ"
    return amino_only


def _finish(codes, lengths, items, symbols, unknown, name, hint=None):
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    bad = np.flatnonzero(codes == np.iinfo(codes.dtype).max)
    if bad.size and unknown == "error":
        flat = int(bad[0])
        i = int(np.searchsorted(offsets, flat, side="right") - 1)
        pos = flat - int(offsets[i])
        x = items[i]
        symbol = chr(x[pos]) if isinstance(x, bytes) else x[pos]
        shown = "".join(symbols) if all(isinstance(s, str) for s in symbols) else symbols
        n_seqs = len(np.unique(np.searchsorted(offsets, bad, side="right") - 1))
        if set(symbols) == set(PROTEIN) and isinstance(symbol, str) and symbol.upper() in "XBZUO":
            hint = (
                "X, B, Z, U and O are in alphabet='protein-extended' (the 20 amino "
                f"acids and these five); {hint or _SKIP_HINT}"
            )
        elif _looks_like_protein(codes, offsets, bad, items, symbols):
            hint = (
                "these look like protein sequences (most symbols are amino acids "
                "outside the nucleotide alphabet): pass alphabet='protein'; "
                f"{hint or _SKIP_HINT}"
            )
        raise ValueError(
            f"{name}[{i}] has symbol {symbol!r} at position {pos}, which is not in "
            f"the alphabet {shown!r} ({bad.size} such symbol(s) in {n_seqs} "
            f"sequence(s)); {hint or _SKIP_HINT}"
        )
    return EncodedSequences(np.ascontiguousarray(codes), offsets, tuple(symbols))


# ---------------------------------------------------------------- k-mer names
def kmer_strings(ids, k, alphabet="dna"):
    """Names of k-mers given their indices in the spectrum feature space.

    A k-mer ``s_1 ... s_k`` has index ``sum_j code(s_j) * A ** (k - j)``
    (base-``A`` digits, first symbol most significant), where ``A`` is the
    alphabet size: the column of :meth:`Spectrum.features`.

    Returns
    -------
    list of str (one-character symbols) or of tuples (other symbols)
    """
    symbols = resolve_alphabet(alphabet)
    A = len(symbols)
    ids = np.asarray(ids, dtype=np.int64).ravel()
    digits = np.empty((ids.size, k), dtype=np.int64)
    rest = ids.copy()
    for j in range(k - 1, -1, -1):
        digits[:, j] = rest % A
        rest //= A
    if ids.size and (ids.min() < 0 or rest.max() > 0):
        raise ValueError(f"k-mer index out of range for k={k} and {A} symbols")
    joinable = all(isinstance(s, str) and len(s) == 1 for s in symbols)
    out = []
    for row in digits:
        kmer = tuple(symbols[d] for d in row)
        out.append("".join(kmer) if joinable else kmer)
    return out


def kmer_index(kmer, alphabet="dna"):
    """Index of one k-mer in the spectrum feature space (see :func:`kmer_strings`)."""
    table = _symbol_table(resolve_alphabet(alphabet), False)
    A = len(table)
    index = 0
    for p, s in enumerate(kmer):
        if s not in table:
            raise ValueError(
                f"k-mer {kmer!r} has symbol {s!r} at position {p}, which is not in the alphabet"
            )
        index = index * A + table[s]
    return index


# ---------------------------------------------------------------------- FASTA
def _seqio():
    try:
        from Bio import SeqIO
    except ImportError:
        raise ImportError(
            "reading and writing FASTA files needs Biopython: "
            "pip install biopython (a dependency of structk)"
        ) from None
    return SeqIO


def _is_gzip(path):
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def read_fasta(path, *, descriptions=False, max_bytes=None):
    """Read a FASTA file, plain or gzip-compressed (detected from its content).

    Parameters
    ----------
    path : str or path-like
    descriptions : bool, default False
        Also return each record's whole header line (without ``>``), e.g.
        to take class labels from it.
    max_bytes : int, optional
        Refuse the file once its sequences pass this many characters, while
        reading (a compressed file is never inflated past it). Default: half
        the memory the system has available.

    Returns
    -------
    ids : list of str
        The record identifiers (first word of each ``>`` line).
    headers : list of str
        Only with ``descriptions=True``: the full header lines.
    sequences : list of str
        The sequences, as written in the file (case kept).

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        Naming the file, when it is not FASTA (its first line does not
        start with ``>``), not text, or a damaged or truncated gzip file.

    Notes
    -----
    Parsing is done by Biopython's ``Bio.SeqIO`` ("fasta" format).
    """
    records = _bounded(_records(path), path, max_bytes)
    return _columns(records, descriptions)


def _records(path):
    """The Biopython records of a FASTA file, one at a time (the errors of
    :func:`read_fasta`)."""
    SeqIO = _seqio()
    path = Path(path)
    compressed = _is_gzip(path)
    opener = gzip.open if compressed else open
    try:
        with opener(path, "rt") as handle:
            first = _first_line(handle)
            if first is not None and not first.startswith(">"):
                raise ValueError(
                    f"{str(path)!r} is not a FASTA file: its first line does not start "
                    f"with '>' ({first[:60]!r})"
                )
            handle.seek(0)
            yield from SeqIO.parse(handle, "fasta")
    except UnicodeDecodeError:
        raise ValueError(_bad_byte(path, opener)) from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ValueError(
            f"{str(path)!r} is a damaged or truncated gzip file ({exc or type(exc).__name__})"
        ) from None
    except ValueError as exc:
        if str(path) in str(exc):
            raise
        raise ValueError(f"{str(path)!r}: {str(exc).splitlines()[0]}") from None


def iter_fasta(path, chunk_size=1000, *, descriptions=False):
    """Read a FASTA file in chunks of ``chunk_size`` records, for files too
    large to hold: yields ``(ids, sequences)`` (or ``(ids, headers,
    sequences)`` with ``descriptions=True``) as :func:`read_fasta` returns
    them for the whole file, with the same errors.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size}")
    chunk = []
    for record in _records(path):
        chunk.append(record)
        if len(chunk) == chunk_size:
            yield _columns(chunk, descriptions)
            chunk = []
    if chunk:
        yield _columns(chunk, descriptions)


def _columns(records, descriptions):
    ids = [r.id for r in records]
    sequences = [str(r.seq) for r in records]
    if descriptions:
        return ids, [r.description for r in records], sequences
    return ids, sequences


def _bounded(records, path, max_bytes):
    """The records, refused as soon as their sequences pass ``max_bytes``."""
    if max_bytes is None:
        from . import _memory

        available = _memory.available_memory()
        max_bytes = available // 2 if available else None
    out, total = [], 0
    for record in records:
        total += len(record.seq)
        if max_bytes is not None and total > max_bytes:
            raise MemoryError(
                f"{str(path)!r}: its sequences pass {max_bytes:,} characters at record "
                f"{len(out) + 1} ({record.id!r}), more than fits in memory; split the "
                "file, or compute the Gram blockwise from parts of it"
            )
        out.append(record)
    return out


def _bad_byte(path, opener):
    """Where the first byte that is not UTF-8 text sits: line, record and byte."""
    record = None
    with opener(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if line.startswith(b">"):
                record = (
                    line[1:].split(maxsplit=1)[0].decode("utf-8", "replace")
                    if line[1:].strip()
                    else ""
                )
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                where = f" of record {record!r}" if record is not None else ""
                return (
                    f"{str(path)!r} is not a text FASTA file: line {number}{where} holds "
                    f"byte {line[exc.start]:#04x} (column {exc.start + 1}), which is "
                    "not UTF-8 text"
                )
    return f"{str(path)!r} is not a UTF-8 text FASTA file"


def _first_line(handle):
    """The first non-blank line of a text file, or ``None`` when it has none."""
    for line in handle:
        if line.strip():
            return line.strip()
    return None


def write_fasta(path, sequences, ids=None, *, line_length=60):
    """Write sequences to a FASTA file, gzip-compressed when ``path`` ends in ``.gz``.

    Parameters
    ----------
    path : str or path-like
    sequences : sequence of str
    ids : sequence of str, optional
        Record identifiers (no whitespace); default ``seq0, seq1, ...``.
    line_length : int, default 60
        Residues per line (Biopython's FASTA writer wraps at 60).
    """
    SeqIO = _seqio()
    from Bio.Seq import Seq
    from Bio.SeqRecord import SeqRecord

    sequences = [str(s) for s in check_objects(sequences, "sequences")]
    ids = [f"seq{i}" for i in range(len(sequences))] if ids is None else list(ids)
    if len(ids) != len(sequences):
        raise ValueError(f"{len(ids)} ids for {len(sequences)} sequences")
    for i, ident in enumerate(ids):
        if not ident or any(c.isspace() for c in str(ident)):
            raise ValueError(f"ids[{i}] = {ident!r} is empty or holds whitespace")
    records = [SeqRecord(Seq(s), id=str(ident), description="") for s, ident in zip(sequences, ids)]
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as handle:
        if line_length == 60:
            SeqIO.write(records, handle, "fasta")
        else:
            from Bio.SeqIO.FastaIO import FastaWriter

            FastaWriter(handle, wrap=line_length).write_file(records)
