"""Make data/moons.csv: two interleaved half-moons in 2-D with noise (seeded).

A classic toy problem that a linear kernel cannot separate and a Gaussian or
polynomial kernel can. Run from the repository root:

    python data/make_vectors.py
"""

from pathlib import Path

import numpy as np

SEED = 20261122
N_PER_CLASS = 100
NOISE = 0.15


def make_moons(n_per_class=N_PER_CLASS, noise=NOISE, seed=SEED):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, size=n_per_class)
    upper = np.c_[np.cos(t), np.sin(t)]
    t = rng.uniform(0, np.pi, size=n_per_class)
    lower = np.c_[1 - np.cos(t), 0.5 - np.sin(t)]
    X = np.vstack([upper, lower]) + rng.normal(scale=noise, size=(2 * n_per_class, 2))
    y = np.repeat([0, 1], n_per_class)
    return X, y


if __name__ == "__main__":
    X, y = make_moons()
    out = Path(__file__).with_name("moons.csv")
    with open(out, "w") as fh:
        fh.write(f"# two moons, seed {SEED}, noise {NOISE}; made by data/make_vectors.py\n")
        fh.write("x1,x2,label\n")
        for (a, b), c in zip(X, y):
            fh.write(f"{a:.6f},{b:.6f},{c}\n")
    print(f"wrote {out} ({len(y)} points)")
