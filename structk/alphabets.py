"""Named alphabets for sequences.

The string kernels, sequence readers, HMMs and the property-testing kit all
name alphabets the same way: ``"dna"``, ``"rna"``, ``"protein"``,
``"protein-extended"`` (with X, B, Z, U and O), or any
string / sequence of distinct symbols given by the user.
"""

from __future__ import annotations

DNA = "ACGT"
RNA = "ACGU"
#: The 20 standard amino acids, one-letter codes.
PROTEIN = "ACDEFGHIKLMNPQRSTVWY"

#: The 20 standard amino acids and the other one-letter codes of protein
#: databases (UniProt, SCOP/ASTRAL, PDB SEQRES): ``X`` (unknown), ``B`` (D or
#: N), ``Z`` (E or Q), ``U`` (selenocysteine) and ``O`` (pyrrolysine), each
#: an ordinary symbol of its own (an HMM learns its emission probabilities, a
#: k-mer holding it is a k-mer of its own).
PROTEIN_EXTENDED = PROTEIN + "XBZUO"

NAMED = {"dna": DNA, "rna": RNA, "protein": PROTEIN, "protein-extended": PROTEIN_EXTENDED}


def resolve_alphabet(alphabet):
    """Return the symbols of an alphabet as a tuple of distinct symbols.

    ``alphabet`` is a name (``"dna"``, ``"rna"``, ``"protein"``,
    ``"protein-extended"``, case insensitive), a string of symbols, or a
    sequence of symbols.
    """
    if isinstance(alphabet, str) and alphabet.lower() in NAMED:
        alphabet = NAMED[alphabet.lower()]
    if isinstance(alphabet, (bytes, bytearray)):
        alphabet = alphabet.decode("ascii")
    try:
        symbols = tuple(alphabet)
    except TypeError:
        raise TypeError(
            f"alphabet must be 'dna', 'rna', 'protein' or a sequence of symbols, got {alphabet!r}"
        ) from None
    if len(symbols) == 0:
        raise ValueError("alphabet is empty")
    seen = set()
    for i, s in enumerate(symbols):
        if s in seen:
            raise ValueError(f"alphabet symbol {s!r} at position {i} is repeated")
        seen.add(s)
    return symbols
