"""Ways to search a Gram for a negative direction: products to detection and their cost.

Usage: python benchmarks/bench_psd_search.py [--n 5000] [--repeat R] [--logla]

The learners' check of a large Gram (``structk.learners._psd.lanczos_psd``)
spends Lanczos steps, each a product with the Gram (BLAS ``dsymv``, one
triangle read). This script weighs it against the other ways of growing a
Krylov space that issue #39 proposed, on the two things that decide a
check's cost:

1. **how many products (or passes over the Gram) each needs to find a
   negative eigenvalue** of a given size, from the same seeded start, with
   the learners' threshold (a Ritz value below ``-1e-6 ||K||_F`` whose
   vector, checked by one float64 product with ``K``, has ``x^T K x`` below
   it too). Forms: Lanczos with float64 products (the learners' form; its
   count is cross-checked against ``lanczos_psd`` itself), Lanczos with the
   products taken on a float32 copy of the Gram (``ssymv``), block Krylov
   with a block of ``b`` vectors (one BLAS-3 ``gemm`` pass per block), and
   Lanczos on the Schur complement of the principal submatrix ``K[::B, ::B]``
   the check already factorises (the Gram with its Nystrom part removed);
2. **what one product or pass costs** at ``--n`` (CPU seconds, one BLAS
   thread, medians), so that the cost to detection is their product.

Gram matrices searched (each with one or more eigenvalues near
``-delta ||K||_F``): Gaussian Grams (sigma = 3, 10-dimensional normal
points) with a hidden direction ``K - (delta ||K||_F + u^T K u) u u^T``
(``u`` random, off the factorised submatrix) at ``--n`` objects; Gaussian
Grams of 1,000 objects whose 1 or 20 smallest eigenvalues are set to
``-delta ||K||_F`` (the tests' construction); with ``--logla``, the log
local-alignment Gram of 1,600 synthetic proteins
(``benchmarks/accuracy_proteins.py``, about 150 s to compute) with its
negative eigenvalues rescaled to ``-delta ||K||_F``, or its spectrum
shifted to ``lambda_min = -delta ||K||_F``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import median_wall_cpu, print_table  # noqa: E402

SEED = 20041  # the learners' start vector seed
RTOL = 1e-6


def _found(K, x, tol):
    x = x / np.linalg.norm(x)
    return float(x @ (K @ x)) < -tol


def lanczos_count(K, product, limit, order=None, check=None):
    """Steps of Lanczos (full reorthogonalisation) until a checked direction:
    ``product`` acts on vectors of length ``order`` (default ``K``'s), and
    ``check(x)`` (default: ``x^T K x < -tol x^T x`` in float64) confirms."""
    from scipy.linalg import eigh_tridiagonal

    n = K.shape[0] if order is None else order
    tol = RTOL * np.linalg.norm(K)
    check = check or (lambda x: _found(K, x, tol))
    limit = min(limit, n)
    Q = np.empty((limit, n))
    alpha, beta = np.empty(limit), np.empty(limit)
    q = np.random.default_rng(SEED).standard_normal(n)
    q /= np.linalg.norm(q)
    for j in range(limit):
        Q[j] = q
        w = product(q)
        alpha[j] = q @ w
        for _ in range(2):
            w -= Q[: j + 1].T @ (Q[: j + 1] @ w)
        theta, s = eigh_tridiagonal(alpha[: j + 1], beta[:j], select="i", select_range=(0, 0))
        if theta[0] < -tol and check(Q[: j + 1].T @ s[:, 0]):
            return j + 1
        beta[j] = np.linalg.norm(w)
        q = w / beta[j]
    return None


def block_count(K, b, limit):
    """Passes of block Krylov (Rayleigh-Ritz on the whole basis) until found."""
    n = K.shape[0]
    tol = RTOL * np.linalg.norm(K)
    V = np.linalg.qr(np.random.default_rng(SEED).standard_normal((n, b)))[0]
    basis, images = np.empty((n, 0)), np.empty((n, 0))
    for p in range(limit):
        W = K @ V
        basis, images = np.hstack([basis, V]), np.hstack([images, W])
        H = basis.T @ images
        w, s = np.linalg.eigh((H + H.T) / 2)
        if w[0] < -tol and _found(K, basis @ s[:, 0], tol):
            return p + 1
        for _ in range(2):
            W -= basis @ (basis.T @ W)
        V = np.linalg.qr(W)[0]
        if basis.shape[1] + b > n:
            return None
    return None


def schur_count(K, block, limit):
    """Lanczos steps on ``S = K22 - K21 (W + tol I)^-1 K12``, ``W = K[::B, ::B]``;
    a direction ``y`` of ``S`` gives ``x = (-(W + tol I)^-1 K12 y, y)`` with
    ``x^T K x <= y^T S y - tol ||x_1||^2``. ``None``: ``W + tol I`` has no
    Cholesky factor (the submatrix itself shows the negative part)."""
    from scipy.linalg import cho_factor, cho_solve

    n = K.shape[0]
    tol = RTOL * np.linalg.norm(K)
    B = -(-n // block)
    land = np.arange(0, n, B)
    rest = np.setdiff1d(np.arange(n), land)
    try:
        factor = cho_factor(K[np.ix_(land, land)] + tol * np.eye(land.size))
    except np.linalg.LinAlgError:
        return "submatrix"
    rows = K[land]

    def lift(y):
        x = np.zeros(n)
        x[rest] = y
        x[land] = -cho_solve(factor, rows @ x)
        return x

    return lanczos_count(
        K,
        lambda y: (K @ lift(y))[rest],
        limit,
        order=rest.size,
        check=lambda y: _found(K, lift(y), tol),
    )


def hidden(K, delta, rng, B):
    u = rng.normal(size=K.shape[0])
    u[::B] = 0.0
    u /= np.linalg.norm(u)
    return K - (delta * np.linalg.norm(K) + u @ (K @ u)) * np.outer(u, u)


def spread(K, n_neg, delta):
    w, V = np.linalg.eigh(K)
    w[:n_neg] = -delta * np.linalg.norm(K) * np.linspace(1.0, 0.5, n_neg)
    K = (V * w) @ V.T
    return (K + K.T) / 2


def gaussian(n, seed=0):
    from structk.kernels import Gaussian

    X = np.random.default_rng(seed).normal(size=(n, 10))
    return np.ascontiguousarray(Gaussian(sigma=3.0)(X))


def matrices(n, logla):
    from structk import defaults

    K = gaussian(n)
    B = -(-n // defaults.PSD_FACTORISE_MAX_N)
    rng = np.random.default_rng(1)
    for delta in (1e-4, 1e-5, 3e-6):
        yield f"Gaussian n={n}, hidden direction at -{delta:g}", hidden(K, delta, rng, B)
    K = gaussian(1000, seed=2)
    for n_neg in (1, 20):
        for delta in (2.3e-5, 1e-5, 3e-6):
            yield f"Gaussian n=1000, {n_neg} eigenvalue(s) at -{delta:g}", spread(K, n_neg, delta)
    if logla:
        from accuracy_proteins import superfamilies

        from structk.kernels import LocalAlignment

        X, _, _ = superfamilies(10, 4, 40, 80, 0.5, 0)
        L = LocalAlignment(beta=0.5).log_kernel(X)
        L = (L + L.T) / 2
        w, V = np.linalg.eigh(L)
        F = np.linalg.norm(L)
        yield f"log-LA n=1600 as computed ({w[0] / F:.2g})", L
        for delta in (1e-4, 2.3e-5, 1e-5):
            scaled = np.where(w < 0, w * delta * F / abs(w[0]), w)
            yield f"log-LA, negatives rescaled to -{delta:g}", (V * scaled) @ V.T
            yield f"log-LA, spectrum shifted to -{delta:g}", (V * (w - w[0] - delta * F)) @ V.T


def learners_count(K):
    """Steps the learners' own ``lanczos_psd`` needed (from its report), or None."""
    import re

    from structk.exceptions import NotPSDError
    from structk.learners._psd import lanczos_psd

    try:
        lanczos_psd(np.ascontiguousarray(K), steps=200)
    except NotPSDError as err:
        return int(re.search(r"found by (\d+) Lanczos", err.report.tol_rule).group(1))
    return None


def costs(n, repeat):
    """CPU seconds of one product in each form at order ``n`` (one BLAS thread)."""
    from scipy.linalg import blas
    from threadpoolctl import threadpool_limits

    K = gaussian(n)
    q = np.random.default_rng(0).standard_normal(n)
    K32 = K.astype(np.float32)
    out = {}
    with threadpool_limits(1):
        out["dsymv (float64, one triangle)"] = median_wall_cpu(
            lambda: blas.dsymv(1.0, K.T, q), repeat
        )[1]
        out["float32 copy of the Gram (once)"] = median_wall_cpu(
            lambda: K.astype(np.float32), repeat
        )[1]
        out["ssymv (float32 copy, one triangle)"] = median_wall_cpu(
            lambda: blas.ssymv(1.0, K32.T, q.astype(np.float32)), repeat
        )[1]
        for b in (8, 16, 32):
            Q = np.random.default_rng(0).standard_normal((n, b))
            out[f"gemm, block of {b}"] = median_wall_cpu(lambda: K @ Q, repeat)[1]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--logla", action="store_true")
    args = parser.parse_args()

    from scipy.linalg import blas

    from structk import defaults

    cost = costs(args.n, args.repeat)
    rows = []
    for name, K in matrices(args.n, args.logla):
        K = np.ascontiguousarray((K + K.T) / 2)
        KF, K32 = K.T, np.asfortranarray(K, dtype=np.float32)
        f64 = lanczos_count(K, lambda q: blas.dsymv(1.0, KF, q), 200)
        f32 = lanczos_count(
            K, lambda q: blas.ssymv(1.0, K32, q.astype(np.float32)).astype(np.float64), 200
        )
        blocks = [block_count(K, b, 60) for b in (8, 16, 32)]
        schur = schur_count(K, defaults.PSD_FACTORISE_MAX_N, 200)
        rows.append([name, learners_count(K), f64, f32, *blocks, schur])
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print_table(
        rows,
        [
            "Gram",
            "lanczos_psd steps",
            "Lanczos f64",
            "Lanczos f32 products",
            "block 8 passes",
            "block 16",
            "block 32",
            "Schur-deflated Lanczos",
        ],
    )
    print(f"\none product at n = {args.n}, CPU s (medians of {args.repeat}, one BLAS thread)")
    base = cost["dsymv (float64, one triangle)"]
    print_table(
        [[k, f"{v:.4f}", f"{v / base:.1f}"] for k, v in cost.items()],
        ["product", "CPU s", "in dsymv"],
    )


if __name__ == "__main__":
    main()
