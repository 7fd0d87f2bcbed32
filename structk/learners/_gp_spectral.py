"""The Gaussian process's log marginal likelihood when only an output scale
and the noise move: one eigendecomposition per fit, O(n) per step.

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
factorising ``K`` at each step, to rounding, after one ``eigh`` (about
eight Cholesky factorisations' worth of arithmetic) instead of a
factorisation and an inverse per step. Several outputs add their
``z_i^2`` and count ``log d_i`` once per output.

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
    Learning*, MIT Press, 2006, Section 5.4.1.
    """

    def __init__(self, K0, Y, alpha):
        from scipy.linalg import eigh

        n = K0.shape[0]
        # divide and conquer: 14 ms against 17 for the relatively robust
        # representations' driver on a 313 x 313 MinMax Gram, one thread
        lam, U = eigh(K0, overwrite_a=True, check_finite=False, driver="evd")
        Z = U.T @ Y
        self.lam = lam
        self.z2 = np.einsum("ik,ik->i", Z, Z)  # summed over the outputs
        self.outputs = Y.shape[1]
        self.alpha = float(alpha)
        self.constant = -0.5 * n * _LOG_2PI * self.outputs
        # Cholesky completes when the condition number of the diagonally
        # scaled K is below 1 / (20 n^(3/2) eps) (Demmel; Higham, Accuracy and
        # Stability of Numerical Algorithms, 2nd ed., 2002, Chapter 10), and
        # that scaling conditions K at most n times worse (van der Sluis);
        # the computed eigenvalues are within ~n eps max|lam| of the true
        # ones. Above this margin on min(d) / max(d) both ways agree that K is
        # positive definite; below it the caller factorises and decides.
        self.margin = 20.0 * n**2.5 * np.finfo(np.float64).eps

    def __call__(self, scale, noise, eval_gradient=False):
        """The log marginal likelihood, and with ``eval_gradient`` its
        derivatives in ``log c`` and in ``log noise``; None when ``K`` is
        too close to singular to decide without factorising it."""
        d = scale * self.lam + (self.alpha + noise)
        if not d.min() > self.margin * d.max():
            return None
        inv = 1.0 / d
        q = self.z2 * inv
        value = float(-0.5 * q.sum() - 0.5 * self.outputs * np.log(d).sum() + self.constant)
        if not eval_gradient:
            return value
        w = (q - self.outputs) * inv  # z^2 / d^2 - t / d
        return value, 0.5 * scale * float(w @ self.lam), 0.5 * noise * float(w.sum())
