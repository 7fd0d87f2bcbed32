"""Make data/hmm_sequences.fasta: DNA from two HMMs that differ in structure (seeded).

Both HMMs have two hidden states over the DNA alphabet with the *same*
emission distributions, an AT-rich state (A, T: 0.35 each; C, G: 0.15) and
a GC-rich one (the reverse), and the same uniform start; by symmetry both
emit every symbol with probability 1/4 in the long run. They differ only in
how long they stay in a state:

* class ``sticky``: ``P(stay) = 0.97`` (isochore-like runs of ~33 nt);
* class ``switchy``: ``P(stay) = 0.85`` (runs of ~7 nt).

200 sequences per class, lengths uniform in [80, 200), shuffled; the header
gives the class and a fixed train/test split (``>hmm017 class=sticky
split=train``), half of each. Short k-mer counts see only the short-range
correlation of neighbouring symbols, which the weak emission contrast keeps
small; a Fisher kernel of an HMM fitted to the data sees the state
persistence directly (docs/fisher.md, examples/fisher_hmm.py).

    PYTHONPATH=. python data/make_hmm_sequences.py
"""

from pathlib import Path

import numpy as np

from structk import DiscreteHMM

SEED = 20261122
N_PER_CLASS = 200
LENGTHS = (80, 200)
AT_RICH = np.array([0.35, 0.15, 0.15, 0.35])  # A C G T
GC_RICH = 0.5 - AT_RICH
STAY = {"sticky": 0.97, "switchy": 0.85}


def class_model(stay):
    """The two-state HMM of one class."""
    transmat = [[stay, 1.0 - stay], [1.0 - stay, stay]]
    return DiscreteHMM.from_params([0.5, 0.5], transmat, [AT_RICH, GC_RICH], "ACGT")


def make_hmm_sequences(n_per_class=N_PER_CLASS, seed=SEED):
    """Return shuffled ``(sequence, class, split)`` records."""
    rng = np.random.default_rng(seed)
    records = []
    for label, stay in STAY.items():
        lengths = rng.integers(*LENGTHS, size=n_per_class)
        sequences = class_model(stay).sample(n_per_class, lengths, random_state=rng)
        split = np.array(["train", "test"])[rng.permutation(n_per_class) % 2]
        records += [(s, label, part) for s, part in zip(sequences, split)]
    order = rng.permutation(len(records))
    return [records[i] for i in order]


if __name__ == "__main__":
    out = Path(__file__).with_name("hmm_sequences.fasta")
    with open(out, "w") as fh:
        for i, (seq, label, split) in enumerate(make_hmm_sequences()):
            fh.write(f">hmm{i:03d} class={label} split={split}\n{seq}\n")
    print(f"wrote {out}")
