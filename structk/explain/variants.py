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
  an error naming the line. A multi-allelic ``alt`` (``A,T``) is split
  into one variant per allele, named ``name:A``, ``name:T``, as VCF tools
  split such records; a symbolic allele (``<DEL>``, ``*``, ``.``) is
  refused naming the line. With ``flank=N`` each variant is scored on the
  ``N`` bases either side of it only (the sequence a deltaSVM model was
  trained on is usually short); by default on the whole record.
  :func:`min_flank` is the smallest ``N`` that keeps every feature of the
  model's kernel overlapping the variant (``l - 1`` for a gapped k-mer
  kernel, ``k - 1`` for the spectrum kernel): a shorter window would drop
  some of the features the variant changes.
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
        Which decision function of a model with several (see
        :func:`output_names`); required when it has several.
    """
    from .api import _decision

    ref, alt = list(ref), list(alt)
    if len(ref) != len(alt):
        raise ValueError(f"{len(ref)} reference sequences but {len(alt)} alternative ones")
    check_sequence_model(model)
    names = output_names(model)
    if output is None and len(names) > 1:
        raise ValueError(
            f"the model has {len(names)} decision functions "
            f"({', '.join(names)}): choose one with output=INDEX "
            "(--class on the command line)"
        )
    if output is not None and not (
        isinstance(output, (int, np.integer)) and 0 <= output < len(names)
    ):
        raise ValueError(
            f"output must be an integer in 0..{len(names) - 1} ({', '.join(names)}), got {output!r}"
        )
    if not ref:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    values = _decision(model, ref + alt, output)
    f_ref, f_alt = values[: len(ref)], values[len(ref) :]
    return f_ref, f_alt, f_alt - f_ref


def output_names(model):
    """The names of the columns of ``model``'s decision function: one name
    (``"pos vs neg"``) for a binary classifier or a single regression target,
    the classes for one-vs-rest scores, the class pairs for one-vs-one."""
    from itertools import combinations

    classes = getattr(model, "classes_", None)
    if classes is None:
        coef = np.asarray(getattr(model, "dual_coef_", np.zeros(1)))
        n = coef.shape[1] if coef.ndim == 2 else 1
        return ["prediction"] if n == 1 else [f"target {o}" for o in range(n)]
    classes = [str(c) for c in classes]
    if len(classes) == 2:
        return [f"{classes[1]} vs {classes[0]}"]
    if getattr(model, "decision_function_shape", "ovr") == "ovo":
        return [f"{a} vs {b}" for a, b in combinations(classes, 2)]
    return classes


def check_sequence_model(model):
    """Refuse a model that is not a fitted learner on sequences (a kernel,
    a model of vectors or graphs), with a ``TypeError`` saying what it is."""
    name = type(model).__name__
    if not (hasattr(model, "decision_function") or hasattr(model, "predict")):
        raise TypeError(
            f"{name} is not a fitted learner (it has no decision function); "
            "variants are scored with a learner fitted on sequences, e.g. "
            "the model file of structk fit"
        )
    kernel = getattr(model, "kernel_", getattr(model, "kernel", None))
    if isinstance(kernel, str):
        raise TypeError(
            f"{name} was fitted on a precomputed Gram matrix: it cannot score "
            "sequences; fit it with a sequence kernel"
        )
    seen = _training_objects(model)
    if seen is not None and len(seen) and not isinstance(seen[0], str):
        what = (
            "graphs"
            if hasattr(seen[0], "nodes")
            else "sets"
            if isinstance(seen[0], (set, frozenset))
            else "numeric vectors"
        )
        raise TypeError(
            f"{name} was fitted on {what}, not sequences: score-variants "
            "needs a model of sequences (e.g. structk fit seqs.fa --kernel "
            "'GappedKmer()')"
        )


def _training_objects(model):
    for attr in ("support_vectors_", "X_fit_"):
        objects = getattr(model, attr, None)
        if objects is not None:
            return objects
    return None


#: Each string kernel's parameter holding the length of its features (in
#: symbols): a variant changes the features that overlap it, up to this
#: length minus one on either side.
_SPANS = {
    "Spectrum": lambda p: p["k"],
    "Mismatch": lambda p: p["k"],
    "GappedKmer": lambda p: p["l"],
    "WeightedDegree": lambda p: p["d"],
    "GappyPair": lambda p: 2 * p["k"] + p["m"],
}


def _span(kernel):
    """The longest feature of ``kernel`` and the kernels inside it (``None``
    when none has features of a fixed length: local alignment, Fisher)."""
    from ..kernels.base import Kernel

    spans = []
    rule = _SPANS.get(type(kernel).__name__)
    if rule is not None:
        spans.append(int(rule(kernel.get_params(deep=False))))
    for value in kernel.get_params(deep=False).values():
        if isinstance(value, Kernel):
            inner = _span(value)
            if inner is not None:
                spans.append(inner)
    return max(spans) if spans else None


def min_flank(model):
    """The smallest ``flank`` keeping every feature of ``model``'s kernel that
    overlaps a variant (its longest feature's length minus one), with the
    kernel's name; ``(0, name)`` for kernels without fixed-length features."""
    from ..kernels.base import Kernel

    kernel = getattr(model, "kernel_", getattr(model, "kernel", None))
    span = _span(kernel) if isinstance(kernel, Kernel) else None
    return (0 if span is None else span - 1), repr(kernel)


def read_variants(path, fasta=None, flank=None):
    """``(names, ref, alt)`` sequences of a variant table with a reference
    FASTA, or of two FASTA files (``path`` the reference, ``fasta`` the
    alternative; records paired in order)."""
    from ..sequences import read_fasta

    path = Path(path)
    if flank is not None and flank < 0:
        raise ValueError(f"flank must be a whole number >= 0, got {flank}")
    if fasta is None:
        raise ValueError(
            "give the reference FASTA (variant table) or the alternative FASTA (paired files)"
        )
    if _is_fasta(path):
        ids, ref = read_fasta(path)
        _, alt = read_fasta(fasta)
        if len(ref) != len(alt):
            raise ValueError(
                f"{path} holds {len(ref)} records but {fasta} holds {len(alt)}; "
                "reference and alternative records pair up in order"
            )
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
                raise ValueError(
                    f"{where}: expected 5 tab-separated columns "
                    f"(name, chrom, pos, ref, alt), got {len(fields)}"
                )
            name, chrom, pos, a_ref, a_alt = (x.strip() for x in fields[:5])
            if chrom not in records:
                raise ValueError(f"{where}: no record {chrom!r} in {fasta}")
            try:
                p = int(pos) - 1
            except ValueError:
                raise ValueError(f"{where}: position {pos!r} is not a whole number") from None
            seq = records[chrom]
            if not (0 <= p and p + len(a_ref) <= len(seq)):
                raise ValueError(f"{where}: position {pos} is outside {chrom} (length {len(seq)})")
            found = seq[p : p + len(a_ref)]
            if found.upper() != a_ref.upper():
                raise ValueError(
                    f"{where}: the reference allele is {a_ref!r} but {chrom} "
                    f"holds {found!r} at position {pos}"
                )
            lo = 0 if flank is None else max(0, p - flank)
            hi = len(seq) if flank is None else min(len(seq), p + len(a_ref) + flank)
            alleles = a_alt.split(",")
            for allele in alleles:
                if not allele.isalpha():
                    raise ValueError(
                        f"{where}: alternative allele {allele!r} is not a sequence of "
                        "letters (symbolic alleles such as <DEL>, * or . cannot be "
                        "scored; write the allele's bases)"
                    )
                names.append(name if len(alleles) == 1 else f"{name}:{allele}")
                refs.append(seq[lo:hi])
                alts.append(seq[lo:p] + allele + seq[p + len(a_ref) : hi])
    return names, refs, alts


def _is_fasta(path):
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                return line.startswith(">")
    return False
