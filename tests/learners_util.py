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


def gram_with_negative_part(n, n_negative, rel, seed=0):
    """A Gaussian Gram whose ``n_negative`` smallest eigenvalues are set to
    about ``-rel ||K||_F`` (and a label vector)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    K = np.exp(-0.1 * ((X[:, None] - X[None]) ** 2).sum(-1))
    w, V = np.linalg.eigh(K)
    w[:n_negative] = -rel * np.linalg.norm(K) * np.linspace(1.0, 0.5, n_negative)
    K = (V * w) @ V.T
    return (K + K.T) / 2, (X[:, 0] > 0).astype(int)


def gram_with_hidden_direction(n, rel, seed=0):
    """A Gaussian Gram with one eigenvalue of about ``-rel ||K||_F`` whose
    eigenvector lives on 60 objects outside the principal submatrix
    ``K[::B, ::B]`` the learners factorise (objects ``1 mod 4``); every
    2 x 2 principal minor stays non-negative."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20))
    K = np.exp(-0.05 * ((X[:, None] - X[None]) ** 2).sum(-1))
    u = np.zeros(n)
    u[np.arange(1, n, 4)[:60]] = rng.normal(size=60)
    u /= np.linalg.norm(u)
    K -= (rel * np.linalg.norm(K) + u @ K @ u) * np.outer(u, u)
    return (K + K.T) / 2, (X[:, 0] > 0).astype(int)
