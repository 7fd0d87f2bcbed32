"""Make data/motifs.fasta: DNA sequences with and without a planted motif (seeded).

Class "motif": a random 100-nt sequence carrying one copy of the motif
TATAAT with, with probability 1/2, one random substitution, at a random
position. Class "background": a random 100-nt sequence. The class is in the
header (``>seq017 class=motif``). A k-mer kernel with k near the motif length
finds it; position-specific kernels cannot (the position is random).

It also writes ``new_sequences.fasta``, three unlabelled sequences to
predict and explain (the first carries TATAAT, the second TATAAT with one
substitution, the third none; seed ``NEW_SEED``), and ``variants.tsv``, a
variant table on them for ``structk score-variants`` (a substitution inside
each planted motif, one outside).

    python data/make_sequences.py
"""

from pathlib import Path

import numpy as np

SEED = 7
N_PER_CLASS = 100
LENGTH = 100
MOTIF = "TATAAT"
NEW_SEED = 8
NEW_MOTIFS = ("TATAAT", "TATCAT", None)


def make_motif_sequences(n_per_class=N_PER_CLASS, length=LENGTH, seed=SEED):
    rng = np.random.default_rng(seed)
    alphabet = np.array(list("ACGT"))
    records = []
    for label in ("motif", "background"):
        for _ in range(n_per_class):
            seq = alphabet[rng.integers(0, 4, size=length)]
            if label == "motif":
                motif = np.array(list(MOTIF))
                if rng.random() < 0.5:
                    motif[rng.integers(len(motif))] = alphabet[rng.integers(4)]
                start = rng.integers(0, length - len(motif) + 1)
                seq[start:start + len(motif)] = motif
            records.append(("".join(seq), label))
    order = rng.permutation(len(records))
    return [records[i] for i in order]


def make_new_sequences(length=LENGTH, seed=NEW_SEED):
    """(name, sequence, motif start or None) for each of ``NEW_MOTIFS``."""
    rng = np.random.default_rng(seed)
    alphabet = np.array(list("ACGT"))
    out = []
    for i, motif in enumerate(NEW_MOTIFS):
        seq = alphabet[rng.integers(0, 4, size=length)]
        start = None
        if motif is not None:
            start = int(rng.integers(0, length - len(motif) + 1))
            seq[start:start + len(motif)] = list(motif)
        out.append((f"new{i}", "".join(seq), start))
    return out


def variant_rows(new):
    """name, chrom, 1-based position, ref, alt: the T at offset 2 of each
    planted motif to G (it breaks TATA), and position 10 of the motif-free
    sequence to the next base."""
    rows = []
    for name, seq, start in new:
        pos = 10 if start is None else start + 2
        ref = seq[pos]
        alt = "G" if start is not None else "ACGT"[("ACGT".index(ref) + 1) % 4]
        rows.append((f"{name}_{pos + 1}{ref}>{alt}", name, pos + 1, ref, alt))
    return rows


if __name__ == "__main__":
    here = Path(__file__).parent
    with open(here / "motifs.fasta", "w") as fh:
        for i, (seq, label) in enumerate(make_motif_sequences()):
            fh.write(f">seq{i:03d} class={label}\n{seq}\n")
    new = make_new_sequences()
    with open(here / "new_sequences.fasta", "w") as fh:
        for name, seq, _ in new:
            fh.write(f">{name}\n{seq}\n")
    with open(here / "variants.tsv", "w") as fh:
        fh.write("# name\tchrom\tpos\tref\talt\n")
        for row in variant_rows(new):
            fh.write("\t".join(map(str, row)) + "\n")
    print(f"wrote motifs.fasta, new_sequences.fasta and variants.tsv in {here}")
