"""DiscreteHMM against brute force over state paths and against hmmlearn."""

import itertools
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from structk import DiscreteHMM
from structk import hmm as hmm_module
from structk.algorithms.hmm import expected_counts

ALPHABET = "ACG"


def _random_params(rng, K, M, zeros=False):
    pi = rng.dirichlet(np.ones(K))
    A = rng.dirichlet(np.ones(K), size=K)
    B = rng.dirichlet(np.ones(M), size=K)
    if zeros:  # some exactly-zero probabilities
        B[0, 0] = 0.0
        B[0] /= B[0].sum()
        A[1, 0] = 0.0
        A[1] /= A[1].sum()
    return pi, A, B


def _paths(pi, A, B, x):
    """Yield (probability of path and x, path) for every state path."""
    K = len(pi)
    for path in itertools.product(range(K), repeat=len(x)):
        p = pi[path[0]] * B[path[0], x[0]]
        for t in range(1, len(x)):
            p *= A[path[t - 1], path[t]] * B[path[t], x[t]]
        yield p, path


def _codes(s, alphabet=ALPHABET):
    return [alphabet.index(c) for c in s]


def _tiny_sequences(rng, n=12, max_len=5, alphabet=ALPHABET):
    return [
        "".join(rng.choice(list(alphabet), size=rng.integers(1, max_len + 1))) for _ in range(n)
    ]


def _hmmlearn(params, n_iter=1, tol=-np.inf):
    from hmmlearn.hmm import CategoricalHMM

    pi, A, B = params
    m = CategoricalHMM(
        n_components=len(pi),
        n_iter=n_iter,
        tol=tol,
        implementation="scaling",
        init_params="",
        params="ste",
    )
    m.startprob_, m.transmat_, m.emissionprob_ = pi.copy(), A.copy(), B.copy()
    m.n_features = B.shape[1]
    return m


@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("K", [1, 2, 3])
def test_log_likelihood_equals_brute_force(K, zeros):
    rng = np.random.default_rng(K)
    params = _random_params(rng, K, 3, zeros=zeros and K >= 2)
    hmm = DiscreteHMM.from_params(*params, alphabet=ALPHABET)
    X = _tiny_sequences(rng)
    expected = []
    for s in X:
        total = sum(p for p, _ in _paths(*params, _codes(s)))
        expected.append(np.log(total) if total > 0 else -np.inf)
    np.testing.assert_allclose(hmm.score_samples(X), expected, rtol=1e-12)


def test_tiny_probabilities_do_not_underflow():
    # symbols of probability 1e-120 drive the forward sums far below the
    # rescaling threshold within one step; compare with log-space brute force
    pi = np.array([0.5, 0.5])
    A = np.array([[0.9, 0.1], [0.2, 0.8]])
    B = np.array([[1 - 2e-120, 1e-120, 1e-120], [0.5, 0.5 - 1e-150, 1e-150]])
    hmm = DiscreteHMM.from_params(pi, A, B, ALPHABET)
    X = ["CGCGCG", "GGGGGGG", "AAACGA", "G" * 300]
    for s, ll in zip(X[:3], hmm.score_samples(X[:3])):
        logs = []
        for path in itertools.product(range(2), repeat=len(s)):
            x = _codes(s)
            lp = np.log(pi[path[0]]) + np.log(B[path[0], x[0]])
            for t in range(1, len(s)):
                lp += np.log(A[path[t - 1], path[t]]) + np.log(B[path[t], x[t]])
            logs.append(lp)
        np.testing.assert_allclose(ll, np.logaddexp.reduce(logs), rtol=1e-12)
    ll_fb, _ = hmm.posteriors(X)  # per-step scaled forward, another code path
    np.testing.assert_allclose(hmm.score_samples(X), ll_fb, rtol=1e-12)
    assert np.isfinite(ll_fb).all() and ll_fb[3] < -300 * 250


def test_impossible_sequence_scores_minus_inf_without_nan_or_warning():
    pi = np.array([1.0, 0.0])
    A = np.array([[0.5, 0.5], [0.0, 1.0]])
    B = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])  # state 0 emits only A
    hmm = DiscreteHMM.from_params(pi, A, B, ALPHABET)
    X = ["AAC", "CAA", "G", "AGGGC"]  # "CAA" and "G" cannot start: pi[1] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ll = hmm.score_samples(X)
    assert np.isfinite(ll[[0, 3]]).all()
    assert ll[1] == -np.inf and ll[2] == -np.inf
    with pytest.raises(ValueError, match=r"X\[1\] has probability zero .*2 such"):
        hmm.posteriors(X)
    with pytest.raises(ValueError, match=r"X\[1\] has probability zero"):
        hmm.decode(X)


def test_posteriors_equal_brute_force_marginals():
    rng = np.random.default_rng(5)
    params = _random_params(rng, 3, 3, zeros=True)
    hmm = DiscreteHMM.from_params(*params, alphabet=ALPHABET)
    X = ["ACGGA", "C", "GGCA"]
    ll, post = hmm.posteriors(X)
    for s, gamma, l in zip(X, post, ll):
        expected = np.zeros((len(s), 3))
        for p, path in _paths(*params, _codes(s)):
            expected[np.arange(len(s)), path] += p
        np.testing.assert_allclose(np.log(expected.sum(1)[0]), l, rtol=1e-12)
        np.testing.assert_allclose(
            gamma, expected / expected.sum(1, keepdims=True), rtol=1e-10, atol=1e-15
        )


def test_viterbi_equals_brute_force():
    rng = np.random.default_rng(6)
    params = _random_params(rng, 3, 3, zeros=True)
    hmm = DiscreteHMM.from_params(*params, alphabet=ALPHABET)
    X = _tiny_sequences(rng, n=15, max_len=6)
    X = [s for s in X if np.isfinite(hmm.score_samples([s])[0])]
    logprob, states = hmm.decode(X)
    for s, lp, path in zip(X, logprob, states):
        best_p, best_path = max(_paths(*params, _codes(s)))
        np.testing.assert_allclose(lp, np.log(best_p), rtol=1e-12)
        assert tuple(path) == best_path


def test_agrees_with_hmmlearn_per_sequence_on_real_size_input():
    rng = np.random.default_rng(7)
    params = _random_params(rng, 4, 4)
    hmm = DiscreteHMM.from_params(*params, alphabet="dna")
    X = hmm.sample(25, rng.integers(1, 400, size=25), random_state=1)
    peer = _hmmlearn(params)
    ll = hmm.score_samples(X)
    _, post = hmm.posteriors(X)
    logprob, states = hmm.decode(X)
    for i, s in enumerate(X):
        col = np.array(_codes(s, "ACGT"))[:, None]
        np.testing.assert_allclose(ll[i], peer.score(col), rtol=1e-10)
        np.testing.assert_allclose(post[i], peer.predict_proba(col), atol=1e-10)
        peer_lp, peer_states = peer.decode(col, algorithm="viterbi")
        np.testing.assert_allclose(logprob[i], peer_lp, rtol=1e-10)
        np.testing.assert_array_equal(states[i], peer_states)


def test_long_sequence_has_finite_log_likelihood():
    rng = np.random.default_rng(8)
    params = _random_params(rng, 3, 4)
    hmm = DiscreteHMM.from_params(*params, alphabet="dna")
    (x,) = hmm.sample(1, 100_000, random_state=2)
    ll = hmm.score_samples([x])
    assert np.isfinite(ll).all() and ll[0] < -1e4
    col = np.array(_codes(x, "ACGT"))[:, None]
    np.testing.assert_allclose(ll[0], _hmmlearn(params).score(col), rtol=1e-10)
    _, post = hmm.posteriors([x])
    assert np.isfinite(post[0]).all()
    np.testing.assert_allclose(post[0].sum(1), 1.0, rtol=1e-12)


# ------------------------------------------------------------- Baum-Welch
def _training_data(seed=9, n=40):
    rng = np.random.default_rng(seed)
    truth = DiscreteHMM.from_params(*_random_params(rng, 3, 4), alphabet="dna")
    return truth.sample(n, rng.integers(5, 60, size=n), random_state=seed)


@pytest.mark.parametrize("algorithm", ["em", "squarem"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_baum_welch_likelihood_is_monotone(seed, algorithm):
    X = _training_data()
    # plain maximum likelihood: pseudo-counts make it a MAP estimate
    hmm = DiscreteHMM(
        3, "dna", n_iter=60, tol=0.0, random_state=seed, pseudocount=0, algorithm=algorithm
    ).fit(X)
    h = hmm.history_
    # SQUAREM records the points it keeps, not the rejected jumps
    assert hmm.n_iter_ == 60 and 2 <= len(h) <= 60 and (len(h) == 60) == (algorithm == "em")
    assert (np.diff(h) >= -1e-12 * np.abs(h[:-1])).all(), np.diff(h).min()
    # the fitted parameters are at least as good as the last recorded ones
    assert hmm.score_samples(X).sum() / sum(map(len, X)) >= h[-1] - 1e-12 * abs(h[-1])


def test_baum_welch_equals_hmmlearn_from_the_same_start():
    X = _training_data(n=30)
    start = _random_params(np.random.default_rng(10), 3, 4)
    init = dict(zip(("startprob", "transmat", "emissionprob"), start))
    hmm = DiscreteHMM(3, "dna", n_iter=7, tol=0.0, init=init, pseudocount=0, algorithm="em").fit(X)
    col = np.concatenate([np.array(_codes(s, "ACGT")) for s in X])[:, None]
    peer = _hmmlearn(start, n_iter=7).fit(col, [len(s) for s in X])
    assert hmm.n_iter_ == peer.monitor_.iter == 7
    np.testing.assert_allclose(hmm.history_ * len(col), list(peer.monitor_.history), rtol=1e-12)
    for ours, theirs in [
        (hmm.startprob_, peer.startprob_),
        (hmm.transmat_, peer.transmat_),
        (hmm.emissionprob_, peer.emissionprob_),
    ]:
        np.testing.assert_allclose(ours, theirs, atol=1e-12)


@pytest.mark.parametrize("threads", [2, 3])
def test_threaded_e_step_equals_one_thread_bit_for_bit(threads, monkeypatch, tuning):
    """The E-step's chunks are fixed by the data alone, so Baum-Welch and the
    per-sequence counts of Fisher scores are the same bit for bit with any
    number of threads."""
    import structk._threads as threads_module

    from structk import FisherKernel

    X = _training_data(n=30)
    hmm = DiscreteHMM(3, "dna", n_iter=4, tol=0.0, random_state=3)
    serial = clone(hmm).fit(X)  # one chunk: the plain serial loop
    tuning.set(HMM_PARALLEL_MIN_WORK=0, HMM_CHUNK_WORK=1000)  # several chunks
    results = []
    for n in (1, threads):
        monkeypatch.setattr(threads_module, "num_threads", lambda n=n: n)
        fitted = clone(hmm).fit(X)
        results.append(
            (
                fitted.startprob_,
                fitted.transmat_,
                fitted.emissionprob_,
                fitted.history_,
                FisherKernel(serial).fit(X)(X),
            )
        )
    for a, b in zip(*results):
        assert np.array_equal(a, b)
    # chunked sums differ from the one-chunk loop only by rounding
    np.testing.assert_allclose(results[0][2], serial.emissionprob_, rtol=1e-12)
    np.testing.assert_allclose(results[0][1], serial.transmat_, rtol=1e-12)
    np.testing.assert_allclose(results[0][3], serial.history_, rtol=1e-12)


def test_likelihoods_posteriors_and_paths_in_groups_of_sequences_equal_one_call(
    tuning, monkeypatch
):
    """Scores, posteriors and Viterbi paths computed on groups of sequences of
    ``HMM_CALL_WORK`` (a Ctrl-C is answered between the compiled calls) are
    those of one call, bit for bit."""
    from structk import ClassConditionalFisherKernel

    X = _training_data(n=30)
    hmm = DiscreteHMM(3, "dna", n_iter=3, tol=0.0, random_state=3).fit(X)

    def values():
        ll, gamma = hmm.posteriors(X)
        logprob, states = hmm.decode(X)
        return [hmm.score_samples(X), ll, *gamma, logprob, *states, cc.posteriors(X[:7])]

    import structk._threads as threads_module

    calls = []
    real = threads_module.compiled_call
    monkeypatch.setattr(
        threads_module,
        "compiled_call",
        lambda fn, *args: (calls.append(getattr(fn, "__name__", "")), real(fn, *args))[1],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        other = DiscreteHMM(2, "dna", n_iter=2, random_state=0).fit(X[:10])
        cc = ClassConditionalFisherKernel([hmm, other], information="identity")
        calls.clear()
        whole = values()
        n_whole = len(calls)
        tuning.set(HMM_CALL_WORK=1e-9)  # every sequence a call of its own
        cut = values()
    names = sorted(set(calls))
    assert {n: calls[:n_whole].count(n) for n in names} == {
        "loglik": 1 + 2,
        "posteriors": 1,
        "viterbi": 1,
    }  # one per class for cc
    assert {n: calls[n_whole:].count(n) for n in names} == {
        "loglik": 30 + 2 * 7,
        "posteriors": 30,
        "viterbi": 30,
    }
    assert len(whole) == len(cut)
    for a, b in zip(whole, cut):
        assert np.array_equal(a, b)


def test_converged_only_when_tol_is_reached():
    X = _training_data()
    with pytest.warns(
        ConvergenceWarning,
        match=r"restart 0 stopped after n_iter=3 .* > "
        r"tol=1e-12; raise n_iter",
    ):
        capped = DiscreteHMM(3, "dna", n_iter=3, tol=1e-12, random_state=0).fit(X)
    assert capped.n_iter_ == 3 and capped.converged_ is False
    done = DiscreteHMM(3, "dna", n_iter=500, tol=1e-4, random_state=0, algorithm="em").fit(X)
    assert done.converged_ is True and done.n_iter_ < 500
    h = done.history_
    assert abs(h[-1] - h[-2]) <= 1e-4 * abs(h[-2])
    assert abs(h[-2] - h[-3]) > 1e-4 * abs(h[-3])


def test_restarts_keep_the_best_run_and_are_seeded():
    X = _training_data()
    hmm = DiscreteHMM(3, "dna", n_iter=15, tol=0.0, n_restarts=4, random_state=11).fit(X)
    rng = np.random.RandomState(11)  # what check_random_state(11) gives
    finals = []
    for _ in range(4):
        start = hmm_module._random_params(rng, 3, 4)
        init = dict(zip(("startprob", "transmat", "emissionprob"), start))
        finals.append(DiscreteHMM(3, "dna", n_iter=15, tol=0.0, init=init).fit(X).history_[-1])
    assert hmm.best_restart_ == int(np.argmax(finals))
    np.testing.assert_allclose(hmm.history_[-1], max(finals), rtol=1e-12)
    again = DiscreteHMM(3, "dna", n_iter=15, tol=0.0, n_restarts=4, random_state=11).fit(X)
    np.testing.assert_array_equal(again.emissionprob_, hmm.emissionprob_)


def test_unused_symbol_and_unvisited_state_give_no_nan():
    X = ["AAAC", "ACCA", "CA"]  # G and T never occur
    hmm = DiscreteHMM(4, "dna", n_iter=30, random_state=0, pseudocount=0).fit(X)
    for p in (hmm.startprob_, hmm.transmat_, hmm.emissionprob_):
        assert np.isfinite(p).all()
        np.testing.assert_allclose(p.sum(-1), 1.0, rtol=1e-12)
    assert hmm.emissionprob_[:, 2:].max() < 1e-12  # G, T driven to (nearly) zero
    ll = hmm.score_samples(["ACA", "GGT"])
    assert np.isfinite(ll[0]) and not np.isnan(ll[1])


def test_fit_rejects_data_impossible_under_explicit_start():
    init = {
        "startprob": [1.0, 0.0],
        "transmat": [[1.0, 0.0], [0.0, 1.0]],
        "emissionprob": [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]],
    }
    with pytest.raises(
        ValueError,
        match=r"X\[1\] has probability zero under the "
        "starting parameters",
    ):
        DiscreteHMM(2, ALPHABET, init=init).fit(["ACA", "AG"])


# ------------------------------------------------------------ sampling etc.
def test_sample_is_seeded_and_follows_the_model():
    pi = np.array([0.2, 0.8])
    A = np.array([[0.9, 0.1], [0.3, 0.7]])
    B = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0]])
    hmm = DiscreteHMM.from_params(pi, A, B, "dna")
    X, S = hmm.sample(3000, [1, 2, 3] * 1000, random_state=0, return_states=True)
    assert [len(x) for x in X[:3]] == [1, 2, 3]
    assert X == hmm.sample(3000, [1, 2, 3] * 1000, random_state=0)
    first = np.array([s[0] for s in S])
    assert abs(first.mean() - 0.8) < 4 * np.sqrt(0.16 / 3000)
    for x, s in zip(X, S):  # state 0 emits A only, state 1 never emits A or T
        assert all((c == "A") == (state == 0) for c, state in zip(x, s))
        assert "T" not in x


def test_symbol_alphabets_and_array_input():
    rng = np.random.default_rng(12)
    params = _random_params(rng, 2, 3)
    words = DiscreteHMM.from_params(*params, alphabet=["sun", "rain", "fog"])
    ints = DiscreteHMM.from_params(*params, alphabet=[0, 1, 2])
    chars = DiscreteHMM.from_params(*params, alphabet="ACG")
    sampled = words.sample(2, 4, random_state=0)
    assert all(isinstance(s, list) and set(s) <= {"sun", "rain", "fog"} for s in sampled)
    ll = chars.score_samples(["ACGGA", "GC"])
    np.testing.assert_allclose(
        words.score_samples([["sun", "rain", "fog", "fog", "sun"], ("fog", "rain")]), ll
    )
    np.testing.assert_allclose(ints.score_samples([np.array([0, 1, 2, 2, 0]), [2, 1]]), ll)
    np.testing.assert_allclose(chars.score_samples([b"ACGGA", list("GC")]), ll)


def test_score_samples_gives_one_value_per_sequence_and_score_their_sum():
    hmm = DiscreteHMM(2, "dna", random_state=0).fit(["ACGT", "GGCA", "TTAG"])
    X = ["ACGT", "AC", "GATTACA"]
    ll = hmm.score_samples(X)
    assert ll.shape == (3,) and ll.dtype == np.float64
    total = hmm.score(X)
    assert isinstance(total, float)  # a scalar, as scikit-learn's score
    assert total == pytest.approx(ll.sum(), rel=1e-12)
    # hmmlearn scores the sequences together: the same sum
    params = (hmm.startprob_, hmm.transmat_, hmm.emissionprob_)
    codes = [np.array(_codes(s, "ACGT")) for s in X]
    peer = _hmmlearn(params).score(np.concatenate(codes)[:, None], [len(c) for c in codes])
    assert total == pytest.approx(peer, rel=1e-10)


def test_estimator_contract():
    hmm = DiscreteHMM(n_states=3, alphabet="protein", n_iter=5, random_state=1)
    assert hmm.get_params()["n_states"] == 3
    assert clone(hmm).get_params() == hmm.get_params()
    assert "n_states=3" in repr(hmm)


# -------------------------------------------------------------- bad input
def test_unknown_symbol_names_sequence_position_and_symbol():
    hmm = DiscreteHMM(2, "dna", random_state=0).fit(["ACGT"])
    with pytest.raises(
        ValueError,
        match=r"X\[2\] has symbol 'N' at position 3, "
        r"which is not in the alphabet 'ACGT'",
    ):
        hmm.score_samples(["ACGT", "A", "GGCNA"])
    with pytest.raises(ValueError, match=r"X\[1\] has symbol 'é' at position 1"):
        hmm.score_samples(["ACGT", "Aé"])
    with pytest.raises(ValueError, match=r"X\[1\] has symbol 7 at position 0"):
        hmm.score_samples(["ACGT", [7]])
    words = DiscreteHMM(2, ["x", "yy"], random_state=0).fit([["x", "yy"]])
    with pytest.raises(ValueError, match=r"X\[0\] has symbol 'z' at position 1"):
        words.score_samples([["x", "z"]])


def test_empty_sequences_and_collections_are_rejected():
    hmm = DiscreteHMM(2, "dna", random_state=0)
    with pytest.raises(ValueError, match=r"X\[1\] is empty"):
        hmm.fit(["ACGT", ""])
    with pytest.raises(ValueError, match="X is empty"):
        hmm.fit([])
    with pytest.raises(TypeError, match="wrap it in a list"):
        hmm.fit("ACGT")
    with pytest.raises(TypeError, match=r"X\[0\] is a float, not a sequence"):
        hmm.fit([3.5])


def test_unfitted_model_raises_not_fitted():
    hmm = DiscreteHMM(2, "dna")
    for call in (
        lambda: hmm.score_samples(["AC"]),
        lambda: hmm.decode(["AC"]),
        lambda: hmm.posteriors(["AC"]),
        lambda: hmm.sample(1, 3),
    ):
        with pytest.raises(NotFittedError):
            call()


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_states": 0}, "n_states must be >= 1"),
        ({"n_iter": 0}, "n_iter must be >= 1"),
        ({"tol": -1.0}, "tol must be >= 0"),
        ({"n_restarts": 1.5}, "n_restarts must be an integer"),
        ({"init": "kmeans"}, "init must be 'random', 'frequencies'"),
        ({"algorithm": "EM"}, r"algorithm must be one of \('em', 'squarem'\), got 'EM'"),
        ({"convergence": None}, r"convergence must be one of \('relative', 'absolute'\), got None"),
        ({"alphabet": "AA"}, "repeated"),
        ({"init": {"startprob": [1.0, 0.0]}}, "missing"),
        (
            {
                "init": {
                    "startprob": [0.5, 0.6],
                    "transmat": np.eye(2),
                    "emissionprob": np.full((2, 4), 0.25),
                }
            },
            r"startprob'\] sums to 1.1, not 1",
        ),
        (
            {
                "init": {
                    "startprob": [0.5, 0.5],
                    "transmat": np.eye(3),
                    "emissionprob": np.full((2, 4), 0.25),
                }
            },
            r"transmat'\] must have shape",
        ),
        (
            {
                "init": {
                    "startprob": [0.5, 0.5],
                    "transmat": [[1.2, -0.2], [0, 1]],
                    "emissionprob": np.full((2, 4), 0.25),
                }
            },
            r"transmat'\] row 0 must hold",
        ),
    ],
)
def test_invalid_parameters_are_named(params, match):
    hmm = DiscreteHMM(**{"n_states": 2, **params})
    with pytest.raises((ValueError, TypeError), match=match):
        hmm.fit(["ACGT"])


def test_sample_rejects_bad_lengths():
    hmm = DiscreteHMM(2, "dna", random_state=0).fit(["ACGT"])
    with pytest.raises(ValueError, match=r"length\[1\] must be >= 1"):
        hmm.sample(2, [3, 0])
    with pytest.raises(ValueError, match="n_sequences must be >= 1"):
        hmm.sample(0, 3)
    with pytest.raises(ValueError, match=r"length must be one int or 3 ints"):
        hmm.sample(3, [4, 5])
    with pytest.raises(TypeError, match=r"length\[0\] must be an integer"):
        hmm.sample(1, "10")


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning"
)  # n_iter=3 and 5: fast fits
def test_sequences_are_read_by_the_library_encoder():
    # the same encoder as the string kernels: case ignored by default
    hmm = DiscreteHMM(2, "dna", n_iter=5, random_state=0).fit(["ACGTTGCA", "AACCGGTT"])
    np.testing.assert_array_equal(
        hmm.score_samples(["acgt", "GaTtAcA"]), hmm.score_samples(["ACGT", "GATTACA"])
    )
    with pytest.raises(
        ValueError,
        match=r"X\[0\] has symbol 'N' at position 1.*fit it on an "
        "alphabet that holds every symbol",
    ):
        hmm.score_samples(["aNt"])
    with pytest.raises(ValueError, match="differ only by case; pass ignore_case=False"):
        DiscreteHMM(2, "aA").fit(["aA"])
    cased = DiscreteHMM(2, "aA", ignore_case=False, n_iter=3, random_state=0).fit(["aAAa", "aaA"])
    assert np.isfinite(cased.score_samples(["aA"])).all()
    # alphabets beyond 255 symbols (uint16 codes), as the string kernels cannot take
    words = list(range(300))
    big = DiscreteHMM(2, words, n_iter=3, random_state=0).fit([[0, 299, 5], [299, 1]])
    ll = big.score_samples([[299, 0]])
    assert np.isfinite(ll).all()
    with pytest.raises(ValueError, match=r"X\[0\] has symbol 300 at position 1"):
        big.score_samples([[0, 300]])


# ---------------------------------------------------------- pseudo-counts
def test_pseudocounts_keep_unseen_symbols_possible():
    from structk.kernels import FisherKernel

    few = ["ACCA", "CAAC", "ACAC"]  # a "family" that never shows G or T
    others = ["ACGT", "TTTT", "GACA"]
    plain = DiscreteHMM(2, "dna", random_state=0, pseudocount=0).fit(few)
    assert np.isneginf(plain.score_samples(others)).all()
    smoothed = DiscreteHMM(2, "dna", random_state=0).fit(few)
    assert np.isfinite(smoothed.score_samples(others)).all()
    assert (smoothed.emissionprob_ > 0).all() and (smoothed.transmat_ > 0).all()
    K = FisherKernel(smoothed).fit(few)(others)
    assert np.isfinite(K).all()


def test_pseudocount_is_the_additive_smoothing_of_one_m_step():
    X = ["ACGTTGCA", "AAAACCCGT"]
    start = _random_params(np.random.default_rng(4), 2, 4)
    init = dict(zip(("startprob", "transmat", "emissionprob"), start))
    c = 0.5
    hmm = DiscreteHMM(2, "dna", n_iter=1, tol=0.0, init=init, pseudocount=c).fit(X)
    seq, offsets = hmm_module._encode(X, tuple("ACGT"))
    _, _, s1, s2 = expected_counts(
        seq, offsets, (start[0], start[1], np.ascontiguousarray(start[2].T)), False
    )
    trans, emit = s1.sum(0) + c, s2.sum(0).T + c
    np.testing.assert_allclose(hmm.transmat_, trans / trans.sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(hmm.emissionprob_, emit / emit.sum(1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("bad, error", [(-0.1, ValueError), ("1", TypeError), (np.nan, ValueError)])
def test_bad_pseudocount_is_named(bad, error):
    with pytest.raises(error, match="pseudocount"):
        DiscreteHMM(pseudocount=bad).fit(["ACGT"])


def test_protein_extended_alphabet_holds_x_b_z_u_o():
    from structk.alphabets import PROTEIN, PROTEIN_EXTENDED
    from structk.kernels import Spectrum

    X = ["MKVLAXGIVHHW", "PQERTYDDCSNGBZ", "MKUOLL"]
    with pytest.raises(ValueError, match=r"X\[0\] has symbol 'X'.*alphabet='protein-extended'"):
        DiscreteHMM(alphabet="protein").fit(X)
    hmm = DiscreteHMM(n_states=2, alphabet="protein-extended", n_iter=20, random_state=0).fit(X)
    assert hmm.alphabet_ == tuple(PROTEIN_EXTENDED) and len(PROTEIN_EXTENDED) == 25
    assert PROTEIN_EXTENDED.startswith(PROTEIN)
    # X is a symbol of its own: its emission probability is learnt from the data
    x = PROTEIN_EXTENDED.index("X")
    assert np.all(hmm.emissionprob_[:, x] > 0)
    # brute force: the likelihood of a sequence sums over all state paths
    from itertools import product as paths

    s = "MXB"
    idx = [PROTEIN_EXTENDED.index(c) for c in s]
    total = sum(
        hmm.startprob_[p[0]]
        * hmm.emissionprob_[p[0], idx[0]]
        * np.prod(
            [hmm.transmat_[p[t - 1], p[t]] * hmm.emissionprob_[p[t], idx[t]] for t in range(1, 3)]
        )
        for p in paths(range(2), repeat=3)
    )
    assert hmm.score_samples([s])[0] == pytest.approx(np.log(total), rel=1e-10)
    K = Spectrum(k=1, alphabet="protein-extended")(["XX", "BX"])
    np.testing.assert_array_equal(K, [[4.0, 2.0], [2.0, 2.0]])


# ------------------------------------------------ convergence: rules, SQUAREM, init
def _start(seed, K=3, M=4):
    return dict(
        zip(
            ("startprob", "transmat", "emissionprob"),
            _random_params(np.random.default_rng(seed), K, M),
        )
    )


@pytest.mark.parametrize("tol", [1e-2, 0.5])
def test_absolute_convergence_stops_where_hmmlearn_stops(tol):
    """convergence="absolute" is hmmlearn's rule: stop once the total
    log-likelihood gains less than tol; same start, same iterations, same
    history (hmmlearn's ``monitor_.history`` is the total)."""
    X = _training_data(n=30)
    init = _start(4)
    hmm = DiscreteHMM(
        3,
        "dna",
        n_iter=500,
        tol=tol,
        convergence="absolute",
        init=init,
        pseudocount=0,
        algorithm="em",
    ).fit(X)
    col = np.concatenate([np.array(_codes(s, "ACGT")) for s in X])[:, None]
    peer = _hmmlearn(tuple(init.values()), n_iter=500, tol=tol)
    peer.fit(col, [len(s) for s in X])
    assert peer.monitor_.iter < 500  # stopped by tol, not by the cap
    assert hmm.converged_ is True and hmm.n_iter_ == peer.monitor_.iter
    mon = hmm.monitor_
    assert mon.iter == hmm.n_iter_ and mon.converged is True and mon.tol == tol
    np.testing.assert_allclose(mon.history, list(peer.monitor_.history), rtol=1e-12)
    np.testing.assert_allclose(hmm.emissionprob_, peer.emissionprob_, atol=1e-10)


def test_relative_and_absolute_rules_differ_by_the_amount_of_data():
    """The relative rule stops at the same point whatever the number of copies
    of the data; the absolute rule needs more iterations on more data."""
    X = _training_data(n=20)
    init = _start(5)
    iters = {}
    for rule, tol in (("relative", 1e-5), ("absolute", 1e-2)):
        for copies in (1, 10):
            hmm = DiscreteHMM(
                3,
                "dna",
                n_iter=2000,
                tol=tol,
                convergence=rule,
                init=init,
                pseudocount=0,
                algorithm="em",
            ).fit(X * copies)
            assert hmm.converged_
            iters[rule, copies] = hmm.n_iter_
    assert iters["relative", 1] == iters["relative", 10]
    assert iters["absolute", 10] > iters["absolute", 1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_squarem_reaches_an_em_fixed_point_in_fewer_steps(seed):
    """SQUAREM's answer is a fixed point of hmmlearn's Baum-Welch: one more
    hmmlearn EM step from it gains (almost) nothing; plain EM from the same
    start needs more E-steps to meet the same tol; the kept history is
    non-decreasing (plain likelihood: pseudocount=0)."""
    X = _training_data(n=40, seed=seed)
    init = _start(seed)
    kw = dict(n_iter=2000, tol=1e-7, init=init, pseudocount=0)
    em = DiscreteHMM(3, "dna", algorithm="em", **kw).fit(X)
    sq = DiscreteHMM(3, "dna", algorithm="squarem", **kw).fit(X)
    assert em.converged_ and sq.converged_
    assert sq.n_iter_ < em.n_iter_
    assert len(sq.history_) <= sq.n_iter_
    h = sq.history_
    assert (np.diff(h) >= -1e-12 * np.abs(h[:-1])).all()
    col = np.concatenate([np.array(_codes(s, "ACGT")) for s in X])[:, None]
    lengths = [len(s) for s in X]
    peer = _hmmlearn((sq.startprob_, sq.transmat_, sq.emissionprob_), n_iter=2)
    peer.fit(col, lengths)
    before, after = peer.monitor_.history
    np.testing.assert_allclose(before, sq.score(X), rtol=1e-12)
    assert 0 <= after - before <= 1e-6 * abs(before)


def test_squarem_with_pseudocounts_and_zero_probabilities_stays_valid():
    X = _training_data(n=20)
    for pseudocount in (0.0, 0.01):
        hmm = DiscreteHMM(
            4,
            "dna",
            algorithm="squarem",
            n_iter=400,
            tol=1e-8,
            random_state=0,
            pseudocount=pseudocount,
        ).fit(X)
        for p in (hmm.startprob_, hmm.transmat_, hmm.emissionprob_):
            assert np.isfinite(p).all() and (p >= 0).all()
            np.testing.assert_allclose(p.sum(-1), 1.0, rtol=1e-12)
        assert np.isfinite(hmm.score(X))


def test_squarem_warns_when_n_iter_runs_out():
    X = _training_data()
    with pytest.warns(
        ConvergenceWarning,
        match=r"restart 0 stopped after n_iter=4 .*"
        r"log-likelihood per symbol -\d.*> tol=1e-12; "
        r"raise n_iter \(or tol\)$",
    ):
        hmm = DiscreteHMM(3, "dna", algorithm="squarem", n_iter=4, tol=1e-12, random_state=0).fit(X)
    assert hmm.n_iter_ == 4 and hmm.converged_ is False and hmm.monitor_.converged is False
    with pytest.warns(
        ConvergenceWarning,
        match=r"total log-likelihood was [\d.e+-]+ "
        r"\(>= tol=1e-09\).*algorithm='squarem'",
    ):
        DiscreteHMM(
            3, "dna", n_iter=3, tol=1e-9, convergence="absolute", random_state=0, algorithm="em"
        ).fit(X)


def test_frequency_init_is_seeded_and_centred_on_the_data():
    """init="frequencies" draws each emission row around the data's symbol
    frequencies: the same seed gives the same fit, and the start it draws is
    the one a dict ``init`` with ``_frequency_params``'s draw gives."""
    X = ["AAAAAAAACG", "AAAAAAATTC"] * 5
    kw = dict(n_iter=1, tol=0.0, pseudocount=0)
    a = DiscreteHMM(3, "dna", init="frequencies", random_state=7, **kw).fit(X)
    b = DiscreteHMM(3, "dna", init="frequencies", random_state=7, **kw).fit(X)
    np.testing.assert_array_equal(a.emissionprob_, b.emissionprob_)
    seq, _ = hmm_module._encode(X, tuple("ACGT"))
    start = hmm_module._frequency_params(np.random.RandomState(7), 3, 4, seq)
    init = dict(zip(("startprob", "transmat", "emissionprob"), start))
    c = DiscreteHMM(3, "dna", init=init, **kw).fit(X)  # init rows renormalised: rounding
    np.testing.assert_allclose(a.emissionprob_, c.emissionprob_, rtol=1e-14)
    # the draws are centred on the frequencies (A 75, C 10, G 5, T 10; plus one each)
    rows = np.vstack(
        [hmm_module._frequency_params(np.random.RandomState(s), 3, 4, seq)[2] for s in range(300)]
    )
    np.testing.assert_allclose(rows.mean(0), np.array([76, 11, 6, 11]) / 104, atol=0.02)


def test_squarem_restarts_one_state_and_monitor_of_an_unfitted_run():
    """One state (nothing to extrapolate: EM is done in one step), restarts
    (the best kept, seeded), and the monitor of a model made from parameters."""
    X = _training_data(n=20)
    one = DiscreteHMM(1, "dna", n_iter=50, random_state=0).fit(X)
    counts = np.bincount(np.concatenate([_codes(s, "ACGT") for s in X]), minlength=4)
    np.testing.assert_allclose(
        one.emissionprob_[0], (counts + 0.01) / (counts.sum() + 0.04), rtol=1e-12
    )
    assert one.converged_ and one.n_iter_ <= 3
    hmm = DiscreteHMM(3, "dna", n_iter=300, n_restarts=3, random_state=2).fit(X)
    again = DiscreteHMM(3, "dna", n_iter=300, n_restarts=3, random_state=2).fit(X)
    np.testing.assert_array_equal(hmm.transmat_, again.transmat_)
    finals = []
    for r in range(3):
        single = DiscreteHMM(3, "dna", n_iter=300, random_state=2, n_restarts=r + 1).fit(X)
        finals.append(single.history_[-1])
    assert hmm.history_[-1] == max(finals)
    made = DiscreteHMM.from_params(*_random_params(np.random.default_rng(0), 2, 4))
    assert made.monitor_.history == [] and made.monitor_.iter == 0
