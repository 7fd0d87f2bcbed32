"""Small data sets and kernels shared by the learner tests."""

import numpy as np

from structk.kernels import FunctionKernel

DNA = "ACGT"


def spectrum1(a, b):
    """Inner product of the letter counts of two strings (a PSD kernel)."""
    return float(sum(a.count(c) * b.count(c) for c in DNA))


def string_kernel():
    return FunctionKernel(spectrum1, name="spectrum1")


def string_data(n=30, seed=0):
    """Random DNA strings labelled by whether A outnumbers T (with strings)."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    while len(X) < n:
        s = "".join(rng.choice(list(DNA), size=int(rng.integers(4, 10))))
        a, t = s.count("A"), s.count("T")
        if a == t:
            continue
        X.append(s)
        y.append("rich" if a > t else "poor")
    return X, np.array(y)


def blobs(n=60, d=4, n_classes=2, noise=1.0, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=2.0, size=(n_classes, d))
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    X = centres[y] + noise * rng.normal(size=(n, d))
    return X, y


def rbf_gram(X, Y=None, gamma=0.2):
    Y = X if Y is None else Y
    D = (X**2).sum(1)[:, None] + (Y**2).sum(1)[None, :] - 2 * X @ Y.T
    return np.exp(-gamma * np.maximum(D, 0.0))


def finite_differences(f, theta, step=1e-5):
    """Central differences of the scalar function ``f`` at ``theta``."""
    out = np.empty_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = step
        out[i] = (f(theta + e) - f(theta - e)) / (2 * step)
    return out
