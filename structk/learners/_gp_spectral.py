"""The Gaussian process's log marginal likelihood when only an output scale
and the noise move: one reduction of the fixed Gram per fit, O(n) per step.

With a kernel without free hyperparameters of its own (``MinMax``,
``Jaccard``, a precomputed Gram), learned through ``c * k`` and a learned
noise, the matrix of every step of the optimiser is
``K = c K0 + s I`` (``s`` = ``alpha`` + noise) for one fixed ``K0``. With
``K0 = U diag(lam) U^T`` and ``z = U^T y``, ``K = U diag(d) U^T`` with
``d = c lam + s``, so

``log p(y) = -sum_i z_i^2 / (2 d_i) - sum_i log(d_i) / 2 - n log(2 pi) / 2``,

``d log p / d log c = sum_i (z_i^2 / d_i^2 - 1 / d_i) c lam_i / 2`` and
``d log p / d log s_noise = noise * sum_i (z_i^2 / d_i^2 - 1 / d_i) / 2``
(Rasmussen & Williams, eq. 5.9, in the eigenbasis): the same values as
factorising ``K`` at each step, to rounding.

One output needs no eigenvectors. A Householder reflection ``H`` with
``H y = +-|y| e_1``, then LAPACK's tridiagonal reduction of ``H K0 H``
(``dsytrd``, lower: ``Q^T H K0 H Q = T`` with ``Q e_1 = e_1``) give
``y^T (c K0 + s I)^{-1} y = |y|^2 x_1`` with ``(c T + s I) x = e_1``, a
tridiagonal solve (``dptsv``) per step; the eigenvalues ``lam`` of ``T``
(``dsterf``, no vectors) give ``sum log d_i`` and the traces of the
gradient, and ``y``'s part of it is ``|y|^2 x^T T x`` (scale) and
``|y|^2 x^T x`` (noise). That is about a quarter of the arithmetic of
the eigendecomposition (its eigenvectors and their back-transformation
are never formed). Several outputs eigendecompose ``K0`` once (LAPACK's
divide and conquer) and add their ``z_i^2``, counting ``log d_i`` once
per output (and so does a single training object).

Where ``d`` is too close to singular for the eigenvalues to decide whether
a Cholesky factorisation of ``K`` would succeed, :meth:`ScaleNoiseLikelihood.__call__`
returns None and the caller factorises ``K`` as before (its ``-inf`` for
the optimiser, or its error naming the cause).
"""

from __future__ import annotations

import numpy as np

_LOG_2PI = float(np.log(2.0 * np.pi))


class ScaleNoiseLikelihood:
    """``log p(Y | c, noise)`` for ``K = c K0 + (alpha + noise) I``.

    Parameters
    ----------
    K0 : ndarray of shape (n, n)
        The symmetric fixed Gram (overwritten).
    Y : ndarray of shape (n, n_outputs)
        The (normalised) targets.
    alpha : float
        The fixed variance on the diagonal (jitter).

    References
    ----------
    C. E. Rasmussen and C. K. I. Williams, *Gaussian Processes for Machine
    Learning*, MIT Press, 2006, Section 5.4.1. G. H. Golub and C. F. Van
    Loan, *Matrix Computations*, 4th ed., Johns Hopkins, 2013, Sections
    5.1 (Householder reflections) and 8.3.1 (tridiagonalisation).
    """

    def __init__(self, K0, Y, alpha):
        n = K0.shape[0]
        self.outputs = Y.shape[1]
        self.alpha = float(alpha)
        self.constant = -0.5 * n * _LOG_2PI * self.outputs
        if self.outputs == 1 and n > 1:  # (LAPACK's wrappers want a subdiagonal)
            self.lam = self._tridiagonal(K0, Y[:, 0])
        else:
            self.tridiagonal = None
            from scipy.linalg import eigh

            # divide and conquer: 14 ms against 17 for the relatively robust
            # representations' driver on a 313 x 313 MinMax Gram, one thread
            lam, U = eigh(K0, overwrite_a=True, check_finite=False, driver="evd")
            Z = U.T @ Y
            self.lam = lam
            self.z2 = np.einsum("ik,ik->i", Z, Z)  # summed over the outputs
        # Cholesky completes when the condition number of the diagonally
        # scaled K is below 1 / (20 n^(3/2) eps) (Demmel; Higham, Accuracy and
        # Stability of Numerical Algorithms, 2nd ed., 2002, Chapter 10), and
        # that scaling conditions K at most n times worse (van der Sluis);
        # the computed eigenvalues are within ~n eps max|lam| of the true
        # ones. Above this margin on min(d) / max(d) both ways agree that K is
        # positive definite; below it the caller factorises and decides.
        self.margin = 20.0 * n**2.5 * np.finfo(np.float64).eps

    def _tridiagonal(self, K0, y):
        """Reduce ``K0`` (overwritten) to ``T`` as the module says: keeps its
        diagonal and subdiagonal and ``|y|^2``; returns its eigenvalues."""
        from scipy.linalg.blas import dsyr2
        from scipy.linalg.lapack import dsterf, dsytrd, dsytrd_lwork

        n = K0.shape[0]
        A = K0.T  # the same symmetric matrix, in the column order LAPACK takes
        norm = float(np.linalg.norm(y))
        self.y2 = norm * norm
        if norm > 0.0:
            # H = I - beta v v^T maps y to -sign(y_1) |y| e_1; H A H is
            # A - v w^T - w v^T, a rank-2 update of the lower triangle
            v = y.copy()
            v[0] += np.copysign(norm, y[0])
            beta = 2.0 / float(v @ v)
            p = beta * (A @ v)
            w = p - (0.5 * beta * float(v @ p)) * v
            A = dsyr2(-1.0, v, w, a=A, lower=1, overwrite_a=1)
        # the blocked reduction needs the workspace it asks for (a third of
        # the time of the unblocked one at n = 313)
        lwork, info = dsytrd_lwork(n, lower=1)
        _check(info, "dsytrd_lwork")
        _, diag, sub, _, info = dsytrd(A, lower=1, lwork=max(int(lwork), 1), overwrite_a=1)
        _check(info, "dsytrd")
        self.tridiagonal = (diag, sub)
        lam, info = dsterf(diag, sub)  # copies: the tridiagonal is kept
        _check(info, "dsterf")
        self.e1 = np.zeros((n, 1))
        self.e1[0] = 1.0
        return lam

    def __call__(self, scale, noise, eval_gradient=False):
        """The log marginal likelihood, and with ``eval_gradient`` its
        derivatives in ``log c`` and in ``log noise``; None when ``K`` is
        too close to singular to decide without factorising it."""
        s = self.alpha + noise
        d = scale * self.lam + s
        if not d.min() > self.margin * d.max():
            return None
        inv = 1.0 / d
        logdet = self.outputs * np.log(d).sum()
        if self.tridiagonal is None:
            q = self.z2 * inv
            value = float(-0.5 * q.sum() - 0.5 * logdet + self.constant)
            if not eval_gradient:
                return value
            w = (q - self.outputs) * inv  # z^2 / d^2 - t / d
            return value, 0.5 * scale * float(w @ self.lam), 0.5 * noise * float(w.sum())
        from scipy.linalg.lapack import dptsv

        diag, sub = self.tridiagonal
        # (c T + s I) x = e_1: positive definite above the margin
        _, _, x, info = dptsv(scale * diag + s, scale * sub, self.e1)
        if info != 0:
            return None
        x = x[:, 0]
        value = float(-0.5 * self.y2 * x[0] - 0.5 * logdet + self.constant)
        if not eval_gradient:
            return value
        xTx = float(diag @ (x * x) + 2.0 * (sub @ (x[:-1] * x[1:])))
        d_scale = 0.5 * scale * (self.y2 * xTx - float(inv @ self.lam))
        d_noise = 0.5 * noise * (self.y2 * float(x @ x) - float(inv.sum()))
        return value, d_scale, d_noise


def _check(info, routine):
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK's {routine} failed (info={info})")
