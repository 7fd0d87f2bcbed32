"""Variant effects: the change of a sequence model's score between alleles.

deltaSVM (Lee et al. 2015) scores a variant by ``f(alt) - f(ref)``: the
decision value of the sequence carrying the alternative allele minus that
of the reference sequence. :func:`score_variants` computes it for pairs of
sequences; :func:`read_variants` builds the pairs from either

* two FASTA files of equal record counts, reference and alternative
  sequences paired in file order (``ref.fa``, ``alt.fa``); or
* a variant table and a reference FASTA: a tab-separated file with the
  columns ``name  chrom  pos  ref  alt`` (``pos`` 1-based on the FASTA
  record ``chrom``, ``ref``/``alt`` alleles of any length, so
  substitutions and small indels; lines starting with ``#`` are comments),
  as in the first five columns of a VCF with ``ID`` moved first. The
  reference allele must match the FASTA at that position: a mismatch is
  an error naming the line. With ``flank=N`` each variant is scored on the
  ``N`` bases either side of it only (the sequence a deltaSVM model was
  trained on is usually short); by default on the whole record.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def score_variants(model, ref, alt, output=None):
    """``(f(ref), f(alt), f(alt) - f(ref))`` for paired sequences.

    Parameters
    ----------
    model : fitted structk learner on sequences
    ref, alt : sequences of str, same length
    output : int, optional
        Which decision function of a model with several.
    """
    from .api import _decision

    ref, alt = list(ref), list(alt)
    if len(ref) != len(alt):
        raise ValueError(f"{len(ref)} reference sequences but {len(alt)} alternative ones")
    if not ref:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    values = _decision(model, ref + alt, output)
    f_ref, f_alt = values[:len(ref)], values[len(ref):]
    return f_ref, f_alt, f_alt - f_ref


def read_variants(path, fasta=None, flank=None):
    """``(names, ref, alt)`` sequences of a variant table with a reference
    FASTA, or of two FASTA files (``path`` the reference, ``fasta`` the
    alternative; records paired in order)."""
    from ..sequences import read_fasta

    path = Path(path)
    if fasta is None:
        raise ValueError("give the reference FASTA (variant table) or the alternative "
                         "FASTA (paired files)")
    if _is_fasta(path):
        ids, ref = read_fasta(path)
        _, alt = read_fasta(fasta)
        if len(ref) != len(alt):
            raise ValueError(f"{path} holds {len(ref)} records but {fasta} holds {len(alt)}; "
                             "reference and alternative records pair up in order")
        return list(ids), list(ref), list(alt)
    records = dict(zip(*read_fasta(fasta)))
    names, refs, alts = [], [], []
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            where = f"{path}, line {line_no}"
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 5:
                raise ValueError(f"{where}: expected 5 tab-separated columns "
                                 f"(name, chrom, pos, ref, alt), got {len(fields)}")
            name, chrom, pos, a_ref, a_alt = (x.strip() for x in fields[:5])
            if chrom not in records:
                raise ValueError(f"{where}: no record {chrom!r} in {fasta}")
            try:
                p = int(pos) - 1
            except ValueError:
                raise ValueError(f"{where}: position {pos!r} is not a whole number") from None
            seq = records[chrom]
            if not (0 <= p and p + len(a_ref) <= len(seq)):
                raise ValueError(f"{where}: position {pos} is outside {chrom} "
                                 f"(length {len(seq)})")
            found = seq[p:p + len(a_ref)]
            if found.upper() != a_ref.upper():
                raise ValueError(f"{where}: the reference allele is {a_ref!r} but {chrom} "
                                 f"holds {found!r} at position {pos}")
            lo = 0 if flank is None else max(0, p - flank)
            hi = len(seq) if flank is None else min(len(seq), p + len(a_ref) + flank)
            names.append(name)
            refs.append(seq[lo:hi])
            alts.append(seq[lo:p] + a_alt + seq[p + len(a_ref):hi])
    return names, refs, alts


def _is_fasta(path):
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                return line.startswith(">")
    return False
