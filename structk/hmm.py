"""Discrete-emission hidden Markov models over an alphabet of symbols.

:class:`DiscreteHMM` is the generative model behind the Fisher kernel
(:class:`structk.kernels.FisherKernel`): scaled forward-backward, one
log-likelihood per sequence, posterior state probabilities, Viterbi paths,
Baum-Welch training on many sequences of different lengths with seeded
random restarts, and sampling.

Sequences are strings (or any sequences of symbols) over the model's
alphabet: ``"dna"``, ``"rna"``, ``"protein"`` or symbols given by the user.
They are encoded once, in Python, into one flat integer array plus offsets
and cross into the recursions of :mod:`structk.algorithms.hmm` that way (its
compiled loops load on first use: importing this module loads no numba).

Differences from hmmlearn that are deliberate: :meth:`DiscreteHMM.score`
returns one log-likelihood *per sequence* (hmmlearn sums them), ``tol`` is
by default relative and per symbol (hmmlearn's is absolute on the total, so
its meaning changes with the size of the data; ``convergence="absolute"``
gives hmmlearn's rule), and ``converged_`` is ``True`` only when ``tol`` was
reached, never merely because ``n_iter`` ran out. Baum-Welch is by default
accelerated by SQUAREM (Varadhan and Roland 2008); ``algorithm="em"`` runs
hmmlearn's plain iterations. By default
structk adds a small pseudo-count to the transition and emission counts
(``pseudocount=0.01``; hmmlearn adds none): ``pseudocount=0`` gives hmmlearn's
estimates exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._estimator import BaseEstimator, check_is_fitted, check_random_state, warn_not_converged
from ._validation import check_scalar
from .algorithms import hmm as _recursions
from .alphabets import resolve_alphabet

_PARAM_NAMES = ("startprob", "transmat", "emissionprob")


@dataclass(frozen=True)
class ConvergenceMonitor:
    """What :attr:`DiscreteHMM.monitor_` reports, in hmmlearn's terms.

    Attributes
    ----------
    tol : float
    n_iter : int
    iter : int
        E-steps done by the kept run (``n_iter_``).
    history : list of float
        Total log-likelihood of the training data at each recorded point
        (``history_`` times the number of training symbols).
    converged : bool
        Whether ``tol`` was met; ``False`` when the run stopped at ``n_iter``
        (hmmlearn's monitor says ``True`` then).
    convergence : str
        The rule ``tol`` applies to, ``"relative"`` or ``"absolute"``.
    """

    tol: float
    n_iter: int
    iter: int
    history: list
    converged: bool
    convergence: str


_ALGORITHMS = ("em", "squarem")
_CONVERGENCE = ("relative", "absolute")
_INITS = ("random", "frequencies")


class DiscreteHMM(BaseEstimator):
    """Hidden Markov model with categorical emissions over an alphabet.

    A path of hidden states ``s_1 .. s_T`` starts in state ``s`` with
    probability ``startprob_[s]``, moves from ``i`` to ``j`` with probability
    ``transmat_[i, j]`` and emits symbol ``x`` from state ``s`` with
    probability ``emissionprob_[s, x]`` (columns in the order of
    ``alphabet_``). There is no end state: the model gives a distribution
    over sequences of each length.

    Parameters
    ----------
    n_states : int >= 1, default 2
        Number of hidden states.
    alphabet : str or sequence of symbols, default "dna"
        ``"dna"``, ``"rna"``, ``"protein"``, or the symbols themselves
        (a string of one-character symbols or a sequence of hashable ones).
    ignore_case : bool, default True
        Read a letter as the alphabet symbol of either case (``"acgt"`` is
        ``"ACGT"`` on the DNA alphabet), as the string kernels do; an
        alphabet with two symbols that differ only by case needs ``False``.
        Sequences are encoded by :func:`structk.sequences.encode`.
    n_iter : int >= 1, default 500
        Maximum number of E-steps (Baum-Welch iterations) per restart.
    tol : float >= 0, default 1e-6
        Convergence tolerance. With ``convergence="relative"`` (the default)
        it is *relative* and *per symbol*: a restart stops when the mean
        log-likelihood per symbol ``L`` changes between two iterations by at
        most ``tol * |L|``; unlike hmmlearn's absolute tolerance on the total
        log-likelihood, its meaning does not depend on how much data is
        fitted. ``tol=0`` runs ``n_iter`` iterations unless the likelihood
        stops changing exactly.
    convergence : {"relative", "absolute"}, default "relative"
        The rule ``tol`` applies to. ``"absolute"`` is hmmlearn's: stop when
        the *total* log-likelihood of the training data gains less than
        ``tol`` in an iteration (hmmlearn's default is ``tol=1e-2``; a loss
        stops too). On long training sets this is much stricter than the
        relative rule: ``1e-2`` on 10^5 symbols of protein (about -3 nats
        per symbol) is a relative change of 3e-8.
    algorithm : {"squarem", "em"}, default "squarem"
        ``"squarem"``: Baum-Welch accelerated by SQUAREM (Varadhan and
        Roland 2008): every two EM steps it extrapolates along the path they
        took, keeps the extrapolation only if the (penalised) likelihood does
        not drop, and so never does worse than EM; it stops at a fixed point
        of EM. On models whose states are weakly separated (protein families,
        where EM creeps along a flat likelihood) it meets ``tol`` in several
        times fewer E-steps (``docs/fisher.md``). ``"em"``: plain Baum-Welch,
        one E-step and one re-estimation per iteration, the iterations of
        hmmlearn. ``n_iter`` counts E-steps either way.
    n_restarts : int >= 1, default 1
        Independent Baum-Welch runs from random starting points; the one
        with the highest likelihood at its last iteration (the last entry
        of its ``history_``) is kept. Ignored (one run) when
        ``init`` gives the starting parameters.
    init : "random", "frequencies" or dict, default "random"
        ``"random"``: start probabilities uniform, rows of the transition
        and emission matrices drawn from a flat Dirichlet distribution.
        ``"frequencies"``: the same, except that each emission row is drawn
        from a Dirichlet distribution centred on the symbol frequencies
        ``f`` of the training data (each count plus one), of concentration
        ``2.5 * n_symbols`` (``Dirichlet(2.5 M f)``): every state starts
        near the data's composition, seeded by ``random_state``.
        A dict with keys ``"startprob"``, ``"transmat"``,
        ``"emissionprob"`` gives the starting point explicitly.
    random_state : int, numpy Generator/RandomState or None
        Seed of the random starting points.
    pseudocount : float >= 0, default 0.01
        Added to every expected transition count and every expected
        emission count at each re-estimation (additive, or Laplace,
        smoothing: the maximum a posteriori estimate under a symmetric
        Dirichlet prior of parameter ``1 + pseudocount`` on each row).
        Any value > 0 keeps every transition and emission probability
        positive, so that every sequence over the alphabet has a non-zero
        probability: a model fitted on a few sequences of a family still
        scores (and gives Fisher scores to) the sequences that use a symbol
        those few never showed. The default is small next to the counts of
        any real training set (a symbol never seen in a state gets about
        ``0.01 / n_s`` of the probability, ``n_s`` the state's expected
        visits). ``0`` gives the plain maximum-likelihood Baum-Welch of
        hmmlearn.

    Attributes
    ----------
    startprob_ : ndarray, shape (n_states,)
    transmat_ : ndarray, shape (n_states, n_states)
    emissionprob_ : ndarray, shape (n_states, n_symbols)
    alphabet_ : tuple
        The symbols, in the order of the columns of ``emissionprob_``.
    converged_ : bool
        Whether the kept restart reached ``tol`` (``False`` if it stopped
        because ``n_iter`` iterations were done).
    n_iter_ : int
        E-steps (forward-backward passes over the training data) done by
        the kept restart: its Baum-Welch iterations with ``algorithm="em"``.
    history_ : ndarray
        Mean log-likelihood per symbol of the training data before each
        iteration of the kept restart (non-decreasing, up to rounding, with
        ``pseudocount=0``); with ``algorithm="squarem"`` at each point kept,
        so it may be shorter than ``n_iter_``.
    best_restart_ : int
        Index of the kept restart.
    n_fit_symbols_ : int
        Number of symbols in the training data.
    monitor_ : ConvergenceMonitor
        hmmlearn's view of the kept run: ``tol``, ``n_iter``, ``iter``
        (``n_iter_``), ``history`` (total log-likelihoods, hmmlearn's
        ``monitor_.history``) and ``converged`` (``converged_``).

    Notes
    -----
    Forward-backward uses per-step scaling, so sequences of any length
    (10^5 symbols and more) give finite log-likelihoods. A sequence that is
    impossible under the model (for instance a symbol whose emission
    probability is zero in every reachable state) has log-likelihood
    ``-inf``; no ``log(0)`` is ever taken and no NaN is produced. Its
    posteriors and Viterbi path are undefined, and :meth:`posteriors`,
    :meth:`decode` and :meth:`fit` (for the starting parameters) raise a
    ``ValueError`` naming it. With ``pseudocount=0`` a state that receives
    no expected visits keeps its previous transition or emission row.

    A restart that stops after ``n_iter`` iterations without reaching
    ``tol`` issues a :class:`sklearn.exceptions.ConvergenceWarning` naming
    the restart, ``n_iter``, the last log-likelihood per symbol, the last
    change and ``tol`` (not with ``tol=0`` and the relative rule, which asks
    for ``n_iter`` iterations).

    Sequences must hold at least one symbol; an empty sequence raises a
    ``ValueError`` naming its index, as does a symbol outside the alphabet
    (with its position).

    References
    ----------
    L. R. Rabiner, "A tutorial on hidden Markov models and selected
    applications in speech recognition", Proc. IEEE 77(2), 1989.

    L. E. Baum, T. Petrie, G. Soules and N. Weiss, "A maximization technique
    occurring in the statistical analysis of probabilistic functions of
    Markov chains", Ann. Math. Statist. 41(1), 1970.

    R. Varadhan and C. Roland, "Simple and globally convergent methods for
    accelerating the convergence of any EM algorithm", Scand. J. Statist.
    35(2), 2008 (SQUAREM).

    Examples
    --------
    >>> from structk import DiscreteHMM
    >>> hmm = DiscreteHMM(n_states=2, alphabet="dna", n_iter=300, random_state=0)
    >>> hmm = hmm.fit(["ACGTTGCA", "AAAACCCGT", "GGGTTTAC"])
    >>> hmm.score_samples(["ACGT", "TTTT"]).shape
    (2,)
    """

    def __init__(
        self,
        n_states=2,
        alphabet="dna",
        n_iter=500,
        tol=1e-6,
        n_restarts=1,
        init="random",
        random_state=None,
        ignore_case=True,
        pseudocount=0.01,
        algorithm="squarem",
        convergence="relative",
    ):
        self.n_states = n_states
        self.alphabet = alphabet
        self.ignore_case = ignore_case
        self.pseudocount = pseudocount
        self.n_iter = n_iter
        self.tol = tol
        self.algorithm = algorithm
        self.convergence = convergence
        self.n_restarts = n_restarts
        self.init = init
        self.random_state = random_state

    # --------------------------------------------------------- construction
    @classmethod
    def from_params(cls, startprob, transmat, emissionprob, alphabet="dna", ignore_case=True):
        """A fitted model with the given parameters (no training).

        Parameters
        ----------
        startprob : array, shape (n_states,)
        transmat : array, shape (n_states, n_states)
        emissionprob : array, shape (n_states, n_symbols)
            Rows must be non-negative and sum to one (to 1e-6; they are then
            renormalised exactly).
        alphabet : str or sequence of symbols
            Must have ``n_symbols`` symbols.
        ignore_case : bool, default True
            As for the constructor.

        Returns
        -------
        DiscreteHMM
            With ``n_iter_ = 0``, ``converged_ = False`` and an empty
            ``history_``; ``init`` holds the parameters, so ``fit`` would
            start Baum-Welch from them.
        """
        init = {"startprob": startprob, "transmat": transmat, "emissionprob": emissionprob}
        hmm = cls(
            n_states=len(np.atleast_1d(startprob)),
            alphabet=alphabet,
            init=init,
            ignore_case=ignore_case,
        )
        symbols = resolve_alphabet(alphabet)
        pi, A, B = _check_init(init, hmm.n_states, len(symbols), "")
        hmm._set_fitted(pi, A, B, symbols)
        hmm.n_iter_ = 0
        hmm.converged_ = False
        hmm.history_ = np.empty(0)
        hmm.best_restart_ = 0
        return hmm

    def _set_fitted(self, pi, A, B, symbols):
        self.startprob_ = pi
        self.transmat_ = A
        self.emissionprob_ = B
        self.alphabet_ = symbols

    # ------------------------------------------------------------ training
    def _check_params(self):
        K = check_scalar(self.n_states, "n_states", lower=1, integer=True)
        check_scalar(self.n_iter, "n_iter", lower=1, integer=True)
        check_scalar(self.tol, "tol", lower=0)
        check_scalar(self.n_restarts, "n_restarts", lower=1, integer=True)
        check_scalar(self.pseudocount, "pseudocount", lower=0)
        symbols = resolve_alphabet(self.alphabet)
        if not isinstance(self.ignore_case, (bool, np.bool_)):
            raise TypeError(f"ignore_case must be True or False, got {self.ignore_case!r}")
        if len(symbols) > MAX_SYMBOLS:
            raise ValueError(
                f"a model's alphabet has at most {MAX_SYMBOLS} symbols, got {len(symbols)}"
            )
        for name, allowed in (("algorithm", _ALGORITHMS), ("convergence", _CONVERGENCE)):
            value = getattr(self, name)
            if not (isinstance(value, str) and value in allowed):
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        if isinstance(self.init, str):
            if self.init not in _INITS:
                raise ValueError(
                    f"init must be 'random', 'frequencies' or a dict of starting "
                    f"parameters, got {self.init!r}"
                )
        elif not isinstance(self.init, dict):
            raise TypeError(
                f"init must be 'random' or a dict with keys {_PARAM_NAMES}, "
                f"got {type(self.init).__name__}"
            )
        return K, symbols

    def fit(self, X, y=None):
        """Estimate the parameters by Baum-Welch (EM) on sequences ``X``.

        Parameters
        ----------
        X : sequence of sequences
            Training sequences (strings or sequences of symbols), of any
            lengths >= 1.
        y : ignored

        Returns
        -------
        self
        """
        K, symbols = self._check_params()
        seq, offsets = _encode(X, symbols, "X", self.ignore_case)
        M = len(symbols)
        if isinstance(self.init, dict):
            starts = [_check_init(self.init, K, M, "init")]
        else:
            rng = _rng(self.random_state)
            draw = _random_params if self.init == "random" else _frequency_params
            starts = [draw(rng, K, M, seq) for _ in range(int(self.n_restarts))]
        run_fn = self._baum_welch if self.algorithm == "em" else self._squarem
        best = None
        for r, params in enumerate(starts):
            run = run_fn(seq, offsets, params)
            if not run[2] and (float(self.tol) > 0 or self.convergence == "absolute"):
                self._warn_not_converged(r, run[1], seq.shape[0])
            if best is None or run[1][-1] > best[1][1][-1]:
                best = (r, run)
        r, (params, history, converged, n_steps) = best
        self._set_fitted(*params, symbols)
        self.history_ = history
        self.n_iter_ = n_steps
        self.converged_ = converged
        self.best_restart_ = r
        self.n_fit_symbols_ = int(seq.shape[0])
        return self

    @property
    def monitor_(self):
        """hmmlearn-style summary of the kept Baum-Welch run.

        A :class:`ConvergenceMonitor` with ``tol``, ``n_iter``, ``iter``
        (E-steps done, ``n_iter_``), ``history`` (the *total* log-likelihood
        of the training data at each recorded point, hmmlearn's unit) and
        ``converged`` (``converged_``: unlike hmmlearn's, ``False`` when the
        run stopped at ``n_iter``).
        """
        check_is_fitted(self, "emissionprob_")
        n = getattr(self, "n_fit_symbols_", 0)
        return ConvergenceMonitor(
            tol=self.tol,
            n_iter=self.n_iter,
            iter=int(self.n_iter_),
            history=list(np.asarray(self.history_) * n),
            converged=bool(self.converged_),
            convergence=self.convergence,
        )

    def _stops(self, history, n_symbols):
        """Whether the last step of ``history`` (mean log-likelihood per
        symbol, one entry per E-step) meets ``tol``."""
        if len(history) < 2:
            return False
        tol = float(self.tol)
        if self.convergence == "absolute":  # hmmlearn: gain of the total below tol
            return (history[-1] - history[-2]) * n_symbols < tol
        return abs(history[-1] - history[-2]) <= tol * abs(history[-2])

    def _warn_not_converged(self, r, history, n_symbols):
        if len(history) > 1:
            gain = history[-1] - history[-2]
            if self.convergence == "absolute":
                change = (
                    f"the last change of the total log-likelihood was "
                    f"{gain * n_symbols:.3g} (>= tol={float(self.tol):g})"
                )
            else:
                change = (
                    f"the last relative change of the log-likelihood per symbol "
                    f"was {abs(gain) / abs(history[-2]):.3g} > tol={float(self.tol):g}"
                )
        else:
            change = f"one iteration cannot show a change <= tol={float(self.tol):g}"
        hint = (
            "raise n_iter (or tol)"
            if self.algorithm == "squarem"
            else "raise n_iter (or tol), or use algorithm='squarem', which needs "
            "several times fewer iterations"
        )
        warn_not_converged(
            f"DiscreteHMM restart {r} stopped after n_iter={int(self.n_iter)} "
            f"Baum-Welch iterations without converging (log-likelihood per symbol "
            f"{history[-1]:.6g}): {change}; {hint}",
            stacklevel=3,
        )

    def _em_step(self, seq, offsets, params):
        """One E-step at ``params`` and the M-step after it:
        ``(total log-likelihood, new params)``."""
        pi, A, B = params
        ll, s0, s1, s2 = _recursions.expected_counts(
            seq, offsets, (pi, A, np.ascontiguousarray(B.T)), False
        )
        return ll, _m_step(s0.sum(0), s1.sum(0), s2.sum(0).T, A, B, float(self.pseudocount))

    def _baum_welch(self, seq, offsets, params):
        n_symbols = seq.shape[0]
        history = []
        converged = False
        for it in range(int(self.n_iter)):
            ll, params = self._em_step(seq, offsets, params)
            if it == 0:
                _raise_if_impossible(ll, "X", "the starting parameters")
            history.append(ll.sum() / n_symbols)
            if self._stops(history, n_symbols):
                converged = True
                break
        return params, np.array(history), converged, len(history)

    def _squarem(self, seq, offsets, params):
        """Baum-Welch accelerated by SQUAREM (scheme S3 of Varadhan and
        Roland 2008) with a monotone safeguard.

        A cycle makes two EM steps ``t1 = F(t0)``, ``t2 = F(t1)`` and jumps
        to ``t' = t0 - 2 a r + a^2 v`` (``r = t1 - t0``,
        ``v = t2 - 2 t1 + t0``, ``a = -|r| / |v|``, halved towards -1 while
        ``t'`` holds a negative probability), then an EM step from ``t'``.
        The jump is kept only if the penalised log-likelihood that EM
        increases (log-likelihood plus ``pseudocount`` times the log
        parameters) is at ``t'`` at least what it was at ``t1``; otherwise
        the cycle goes on from ``t2``, as plain EM would. Every E-step
        counts towards ``n_iter``; ``history`` holds the kept points, and
        the test of ``tol`` compares only two points one plain EM step
        apart, so it means what it means for EM.
        """
        n_symbols = seq.shape[0]
        n_iter = int(self.n_iter)
        shapes = [p.shape for p in params]
        c = float(self.pseudocount)

        def flat(p):
            return np.concatenate([a.ravel() for a in p])

        def unflat(v):
            out, i = [], 0
            for shape in shapes:
                size = int(np.prod(shape))
                a = v[i : i + size].reshape(shape)
                out.append(a / a.sum(axis=-1, keepdims=True))
                i += size
            return tuple(out)

        def penalised(ll, p):
            with np.errstate(divide="ignore"):
                prior = c * (np.log(p[1]).sum() + np.log(p[2]).sum()) if c > 0 else 0.0
            return ll + prior

        history = []
        steps = 0
        ll, p1 = self._em_step(seq, offsets, params)
        _raise_if_impossible(ll, "X", "the starting parameters")
        steps += 1
        history.append(ll.sum() / n_symbols)
        t0, jumped = params, False
        while True:
            # invariant: p1 = F(t0), history[-1] is the log-likelihood at t0;
            # after a jump, history[-2] is not one EM step before t0
            if not jumped and self._stops(history, n_symbols):
                return p1, np.array(history), True, steps
            if steps >= n_iter:
                return p1, np.array(history), False, steps
            ll1, p2 = self._em_step(seq, offsets, p1)
            steps += 1
            history.append(ll1.sum() / n_symbols)
            if self._stops(history, n_symbols):
                return p2, np.array(history), True, steps
            if steps >= n_iter:
                return p2, np.array(history), False, steps
            x0, x1, x2 = flat(t0), flat(p1), flat(p2)
            r = x1 - x0
            v = x2 - x1 - r
            norm_v = np.linalg.norm(v)
            a = min(-np.linalg.norm(r) / norm_v, -1.0) if norm_v > 0 else -1.0
            jump = x0 - 2 * a * r + a * a * v
            while a < -1.0 and (jump < 0).any():
                a = (a - 1.0) / 2.0 if a < -1.01 else -1.0
                jump = x0 - 2 * a * r + a * a * v
            if a < -1.0:
                tj = unflat(jump)
                with np.errstate(invalid="ignore", divide="ignore"):
                    # a jump that makes the data impossible is rejected below
                    llj, pj = self._em_step(seq, offsets, tj)
                steps += 1
                if penalised(llj.sum(), tj) >= penalised(ll1.sum(), p1):
                    history.append(llj.sum() / n_symbols)
                    t0, p1, jumped = tj, pj, True
                    continue
            # no jump: go on from t2 = p2 as plain EM would
            jumped = False
            if steps >= n_iter:
                return p2, np.array(history), False, steps
            ll0, p1 = self._em_step(seq, offsets, p2)
            steps += 1
            history.append(ll0.sum() / n_symbols)
            t0 = p2

    # ----------------------------------------------------------- inference
    def _encode_fitted(self, X, name="X"):
        check_is_fitted(self, "emissionprob_")
        seq, offsets = _encode(X, self.alphabet_, name, self.ignore_case)
        return seq, offsets

    def _jit_params(self):
        return (
            np.ascontiguousarray(self.startprob_, dtype=np.float64),
            np.ascontiguousarray(self.transmat_, dtype=np.float64),
            np.ascontiguousarray(self.emissionprob_.T, dtype=np.float64),
        )

    def score(self, X, y=None):
        """Total log-likelihood ``sum_i log p(x_i)`` of the sequences (a
        float, as scikit-learn's ``score`` and hmmlearn's); the value of each
        sequence is :meth:`score_samples`.

        Parameters
        ----------
        X : sequence of sequences
        y : ignored

        Returns
        -------
        float
            ``-inf`` when a sequence is impossible under the model.
        """
        return float(np.sum(self.score_samples(X)))

    def score_samples(self, X):
        """Log-likelihood ``log p(x)`` of each sequence.

        Parameters
        ----------
        X : sequence of sequences

        Returns
        -------
        ndarray of float64, shape (len(X),)
            One value per sequence; ``-inf`` for a sequence that is
            impossible under the model.
        """
        seq, offsets = self._encode_fitted(X)
        return _recursions.loglik(seq, offsets, *self._jit_params())

    def posteriors(self, X):
        """Log-likelihoods and posterior state probabilities.

        Returns
        -------
        log_likelihood : ndarray, shape (len(X),)
        posteriors : list of ndarray
            ``posteriors[i][t, s] = P(state s at position t | X[i])``, shape
            ``(len(X[i]), n_states)``; rows sum to one.

        Raises
        ------
        ValueError
            If a sequence is impossible under the model (its posteriors are
            undefined).
        """
        seq, offsets = self._encode_fitted(X)
        ll, gamma = _recursions.posteriors(seq, offsets, *self._jit_params())
        _raise_if_impossible(ll, "X", "the model")
        return ll, np.split(gamma, offsets[1:-1])

    def decode(self, X):
        """Most probable state path of each sequence (Viterbi).

        Returns
        -------
        log_prob : ndarray, shape (len(X),)
            ``log p(x, best path)`` for each sequence.
        states : list of ndarray of int64
            The best path of each sequence.

        Raises
        ------
        ValueError
            If a sequence is impossible under the model.

        References
        ----------
        A. J. Viterbi, "Error bounds for convolutional codes and an
        asymptotically optimum decoding algorithm", IEEE Trans. Inf. Theory
        13(2), 1967.
        """
        seq, offsets = self._encode_fitted(X)
        with np.errstate(divide="ignore"):
            logs = [np.log(p) for p in self._jit_params()]
        logprob, states = _recursions.viterbi(seq, offsets, *logs)
        _raise_if_impossible(logprob, "X", "the model", "its Viterbi path is")
        return logprob, np.split(states, offsets[1:-1])

    def sample(self, n_sequences, length, random_state=None, return_states=False):
        """Draw sequences from the model.

        Parameters
        ----------
        n_sequences : int >= 1
        length : int >= 1 or sequence of ints
            Length of every sequence, or one length per sequence.
        random_state : int, Generator, RandomState or None
        return_states : bool, default False
            Also return the hidden state paths.

        Returns
        -------
        sequences : list
            Strings when every symbol of the alphabet is a one-character
            string, else lists of symbols.
        states : list of ndarray of int64
            Only with ``return_states=True``.
        """
        check_is_fitted(self, "emissionprob_")
        n = check_scalar(n_sequences, "n_sequences", lower=1, integer=True)
        lengths = np.asarray(length, dtype=object)
        if lengths.ndim > 1 or (lengths.ndim == 1 and lengths.shape[0] != n):
            raise ValueError(
                f"length must be one int or {n} ints (one per sequence), got shape {lengths.shape}"
            )
        lengths = np.broadcast_to(lengths, (n,))
        lengths = np.array(
            [
                check_scalar(
                    v.item() if hasattr(v, "item") else v, f"length[{i}]", lower=1, integer=True
                )
                for i, v in enumerate(lengths)
            ],
            dtype=np.int64,
        )
        rng = _rng(random_state)
        cum_pi = _cumulative(self.startprob_)
        cum_A = _cumulative(self.transmat_)
        cum_B = _cumulative(self.emissionprob_)
        T = int(lengths.max())
        states = np.empty((n, T), dtype=np.int64)
        symbols = np.empty((n, T), dtype=np.int64)
        s = _draw(cum_pi[None, :], rng.random(n))
        for t in range(T):
            states[:, t] = s
            symbols[:, t] = _draw(cum_B[s], rng.random(n))
            s = _draw(cum_A[s], rng.random(n))
        alphabet = self.alphabet_
        as_text = all(isinstance(a, str) and len(a) == 1 for a in alphabet)
        lookup = np.array(alphabet, dtype=object)
        out = []
        for i in range(n):
            row = lookup[symbols[i, : lengths[i]]]
            out.append("".join(row) if as_text else list(row))
        if return_states:
            return out, [states[i, : lengths[i]].copy() for i in range(n)]
        return out


# ---------------------------------------------------------------- helpers
#: Largest alphabet of a model (``uint16`` symbol codes).
MAX_SYMBOLS = 65535

_UNKNOWN_HINT = (
    "a model scores only sequences over its alphabet: fit it on an alphabet that holds every symbol"
)


def _encode(X, symbols, name="X", ignore_case=True):
    """Encode sequences over ``symbols`` with :func:`structk.sequences.encode`,
    as one flat int64 array plus offsets.

    Returns ``(seq, offsets)`` with sequence ``i`` at
    ``seq[offsets[i]:offsets[i + 1]]``. Raises a ``ValueError`` naming the
    sequence, position and symbol for a symbol outside the alphabet, and the
    sequence for an empty one.
    """
    from .sequences import encode

    E = encode(
        X,
        symbols,
        ignore_case=ignore_case,
        unknown="error",
        name=name,
        unknown_hint=_UNKNOWN_HINT,
        max_symbols=MAX_SYMBOLS,
    )
    empty = np.flatnonzero(E.lengths == 0)
    if empty.size:
        raise ValueError(f"{name}[{empty[0]}] is empty: every sequence needs at least one symbol")
    return E.codes.astype(np.int64), E.offsets


def _raise_if_impossible(ll, name, under, undefined="its posteriors are"):
    bad = np.flatnonzero(ll == -np.inf)
    if bad.size:
        raise ValueError(
            f"{name}[{bad[0]}] has probability zero under {under} "
            f"({bad.size} such sequence(s)); {undefined} undefined"
        )


def _check_init(init, K, M, name):
    """Validate explicit parameters; return float64 copies with exact row sums."""
    missing = [k for k in _PARAM_NAMES if k not in init]
    extra = [k for k in init if k not in _PARAM_NAMES]
    if missing or extra:
        raise ValueError(
            f"{name or 'parameters'} must have exactly the keys {_PARAM_NAMES}; "
            f"missing {missing}, unknown {extra}"
        )
    shapes = {"startprob": (K,), "transmat": (K, K), "emissionprob": (K, M)}
    out = []
    for key in _PARAM_NAMES:
        label = f"{name}[{key!r}]" if name else key
        try:
            P = np.array(init[key], dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{label} must be an array of probabilities") from None
        if P.shape != shapes[key]:
            raise ValueError(f"{label} must have shape {shapes[key]}, got {P.shape}")
        rows = P.reshape(-1, P.shape[-1])
        for r, row in enumerate(rows):
            where = f"{label} row {r}" if P.ndim == 2 else label
            if not np.isfinite(row).all() or (row < 0).any():
                raise ValueError(f"{where} must hold finite non-negative probabilities")
            if abs(row.sum() - 1.0) > 1e-6:
                raise ValueError(f"{where} sums to {float(row.sum())!r}, not 1")
        P /= P.sum(axis=-1, keepdims=True)
        out.append(P)
    return tuple(out)


def _rng(random_state):
    """A numpy Generator as given, else sklearn's ``check_random_state``."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    return check_random_state(random_state)


def _random_params(rng, K, M, seq=None):
    """``init="random"``: uniform start, flat-Dirichlet rows."""
    pi = np.full(K, 1.0 / K)
    A = rng.dirichlet(np.ones(K), size=K)
    B = rng.dirichlet(np.ones(M), size=K)
    return pi, A, B


#: ``init="frequencies"``: concentration of the Dirichlet around the data's
#: symbol frequencies from which each emission row is drawn, per symbol.
_FREQUENCY_CONCENTRATION = 2.5


def _frequency_params(rng, K, M, seq):
    """``init="frequencies"``: uniform start, flat-Dirichlet transition rows,
    emission rows drawn from ``Dirichlet(2.5 M f)`` around the symbol
    frequencies ``f`` of the training data (each count plus one)."""
    pi = np.full(K, 1.0 / K)
    A = rng.dirichlet(np.ones(K), size=K)
    f = np.bincount(seq, minlength=M) + 1.0
    f /= f.sum()
    B = rng.dirichlet(_FREQUENCY_CONCENTRATION * M * f, size=K)
    return pi, A, B


def _m_step(s_start, s_trans, s_emit, A_old, B_old, pseudocount=0.0):
    """Baum-Welch re-estimation with ``pseudocount`` added to the transition
    and emission counts; rows without any count are kept."""
    pi = s_start / s_start.sum()
    A = _normalise_rows(s_trans + pseudocount, A_old)
    B = _normalise_rows(s_emit + pseudocount, B_old)
    return pi, A, B


def _normalise_rows(counts, old):
    total = counts.sum(axis=1, keepdims=True)
    empty = total[:, 0] <= 0.0
    total[empty] = 1.0
    out = counts / total
    out[empty] = old[empty]
    return out


def _cumulative(P):
    c = np.cumsum(P, axis=-1)
    return c / c[..., -1:]


def _draw(cum, u):
    """Inverse-CDF draw, one per row of ``cum``: first index with u < cum."""
    return (u[:, None] < cum).argmax(axis=1)
