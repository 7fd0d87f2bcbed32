"""Make data/motifs.fasta: DNA sequences with and without a planted motif (seeded).

Class "motif": a random 100-nt sequence carrying one copy of the motif
TATAAT with, with probability 1/2, one random substitution, at a random
position. Class "background": a random 100-nt sequence. The class is in the
header (``>seq017 class=motif``). A k-mer kernel with k near the motif length
finds it; position-specific kernels cannot (the position is random).

    python data/make_sequences.py
"""

from pathlib import Path

import numpy as np

SEED = 7
N_PER_CLASS = 100
LENGTH = 100
MOTIF = "TATAAT"


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


if __name__ == "__main__":
    out = Path(__file__).with_name("motifs.fasta")
    with open(out, "w") as fh:
        for i, (seq, label) in enumerate(make_motif_sequences()):
            fh.write(f">seq{i:03d} class={label}\n{seq}\n")
    print(f"wrote {out}")
