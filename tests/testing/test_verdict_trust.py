"""The validity kit never says "valid" when it checked nothing.

Plain functions are accepted, non-callables refused; a kernel that fails on
every generated input gives an inconclusive result (and an exception from
``find_psd_counterexample``/``assert_kernel_psd``), not "no counterexample";
kernels that learn from data are fitted on each pool; ``time_limit`` holds
for slow kernels; no ``.hypothesis/`` folder is left in the working directory.
"""

import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from structk.hmm import DiscreteHMM
from structk.kernels import FisherKernel, FunctionKernel, Linear, RandomWalk
from structk.testing import (
    InconclusiveCheckError,
    assert_kernel_psd,
    check_kernel,
    find_psd_counterexample,
    graphs,
    strings,
    vectors,
)

SMALL = (16, 32)


# ------------------------------------------------------------ plain functions
def neg_sq_dist(x, y):
    return -np.sum((x - y) ** 2)


def test_a_plain_function_is_checked_like_a_function_kernel():
    cx = find_psd_counterexample(neg_sq_dist, vectors(dim=3))
    assert cx.property == "negative eigenvalue" and len(cx.objects) == 2
    # the Gram matrix and its eigenvalue, recomputed by a double loop and numpy
    K = np.array([[neg_sq_dist(a, b) for b in cx.objects] for a in cx.objects])
    np.testing.assert_array_equal(cx.gram, K)
    assert np.linalg.eigvalsh(K)[0] == pytest.approx(cx.min_eigenvalue)
    assert np.linalg.eigvalsh(K)[0] < -cx.tol
    assert repr(cx.kernel) == "FunctionKernel(neg_sq_dist)"


def test_a_valid_plain_function_passes_assert_kernel_psd():
    result = assert_kernel_psd(lambda x, y: float(x @ y), vectors(dim=2), pool_sizes=SMALL)
    assert result.conclusive and not result.found and result.n_pools == 2


@pytest.mark.parametrize(
    ("kernel", "message"),
    [
        (None, "got NoneType"),
        (3.0, "got float"),
        ("linear", "got str"),
        (Linear, "is a class: give an instance (e.g. Linear())"),
        (lambda x: 1.0, "cannot be called with two objects"),
        (lambda x, y, z: 1.0, "cannot be called with two objects"),
    ],
)
def test_non_callables_are_refused(kernel, message):
    for call in (check_kernel, find_psd_counterexample, assert_kernel_psd):
        with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
            call(kernel, vectors(dim=2), pool_sizes=SMALL)


# ------------------------------------------------------- nothing was checked
def _raises(x, y):
    raise ZeroDivisionError("always")


BAD_VALUES = [
    (_raises, "ZeroDivisionError: always"),
    (lambda x, y: float("nan"), "non-finite"),
    (lambda x, y: float("inf"), "KernelOverflowError"),
    (lambda x, y: 1 + 1j, "complex"),
    (lambda x, y: np.complex128(1 + 1j), "complex"),
    (lambda x, y: "abc", "str"),
    (lambda x, y: "1.0", "str"),
    (lambda x, y: [1.0, 2.0], "list"),
]


@pytest.mark.parametrize(
    ("func", "first_error"),
    BAD_VALUES,
    ids=["raises", "nan", "inf", "complex", "np-complex", "string", "numeric-string", "list"],
)
def test_a_kernel_failing_everywhere_is_inconclusive(func, first_error):
    result = check_kernel(func, vectors(dim=2), pool_sizes=SMALL)
    assert not result.found and not result.conclusive
    assert result.n_pools == 0 and result.n_checked == 0
    text = str(result)
    assert text.splitlines()[0].endswith(result.inconclusive)
    assert "INCONCLUSIVE, nothing was checked" in text.splitlines()[0]
    assert "evidence that it is a kernel" not in text
    assert first_error in result.inconclusive
    with pytest.raises(InconclusiveCheckError, match="nothing was checked") as info:
        find_psd_counterexample(func, vectors(dim=2), pool_sizes=SMALL)
    assert first_error in str(info.value) and info.value.result.n_pools == 0
    for allow in (False, True):
        with pytest.raises(InconclusiveCheckError, match=first_error.split(":")[0]):
            assert_kernel_psd(func, vectors(dim=2), pool_sizes=SMALL, allow_errors=allow)


def test_a_kernel_failing_on_most_inputs_is_inconclusive():
    def only_on_a(s, t):  # defined on strings starting with "A" only
        if not (s.startswith("A") and t.startswith("A")):
            raise ValueError("outside the domain")
        return float(len(s) * len(t))

    result = check_kernel(only_on_a, strings("ACGT"), pool_sizes=SMALL)
    assert result.n_pools >= 1 and result.n_checked >= 2
    assert result.n_left_out > result.n_checked
    assert not result.conclusive and result.inconclusive.startswith("too little was checked")
    assert "ValueError: outside the domain" in result.inconclusive
    with pytest.raises(InconclusiveCheckError, match="too little was checked"):
        find_psd_counterexample(only_on_a, strings("ACGT"), pool_sizes=SMALL)


def test_a_counterexample_found_among_errors_is_still_reported():
    # the domain error leaves most objects in: conclusive, and a real finding
    def neg_unless_zero(x, y):
        if x[0] == 0 or y[0] == 0:
            raise ValueError("zero")
        return neg_sq_dist(x, y)

    cx = find_psd_counterexample(neg_unless_zero, vectors(dim=2), pool_sizes=SMALL)
    assert cx.property == "negative eigenvalue"


# ------------------------------------------------- kernels that need fitting
@pytest.fixture(scope="module")
def hmm():
    X = ["ACGTTGCA", "AACCGGTT", "ACGACGACG", "TTTTACGA", "GATTACA", "CCCGGGAA"] * 3
    with warnings.catch_warnings():  # n_iter=10 on purpose: any fitted model will do
        warnings.simplefilter("ignore", ConvergenceWarning)
        return DiscreteHMM(2, "ACGT", n_iter=10, random_state=0).fit(X)


def test_fisher_kernel_is_fitted_on_each_pool(hmm):
    k = FisherKernel(hmm)
    assert k.needs_fit
    result = assert_kernel_psd(k, strings("ACGT", min_size=1), pool_sizes=SMALL)
    assert result.n_pools == 2 and result.n_errors == 0 and result.n_checked > 30
    assert not hasattr(k, "params_")  # a clone was fitted, not the user's kernel


def test_random_walk_with_automatic_lambda_is_fitted_on_each_pool():
    k = RandomWalk(lam="auto", node_label=None, edge_label=None)
    assert k.needs_fit
    result = assert_kernel_psd(k, graphs(max_nodes=4), pool_sizes=SMALL)
    assert result.n_pools == 2 and result.n_errors == 0
    assert not hasattr(k, "lam_")


def test_a_kernel_that_cannot_be_fitted_is_inconclusive_naming_the_fit():
    k = FisherKernel(DiscreteHMM(2, "ACGT"))  # the model itself is not trained
    with pytest.raises(
        InconclusiveCheckError,
        match=r"k\.fit\(a pool of 16 strings\) -> "
        r"NotFittedError",
    ):
        find_psd_counterexample(k, strings("ACGT"), pool_sizes=SMALL)


# ----------------------------------------------------------------- time limit
def slow_linear(x, y):
    time.sleep(0.005)
    return float(x @ y)


def slow_neg_sq_dist(x, y):
    time.sleep(0.005)
    return neg_sq_dist(x, y)


@pytest.mark.parametrize("func", [slow_linear, slow_neg_sq_dist])
def test_time_limit_holds_for_a_slow_kernel(func):
    # without the limit: ~500k calls of 5 ms, about 45 minutes
    t = time.perf_counter()
    result = check_kernel(func, vectors(dim=2), time_limit=1.0)
    seconds = time.perf_counter() - t
    assert seconds < 5.0, seconds  # generous: the machine is shared
    assert "time limit" in result.searched or not result.conclusive
    if func is slow_neg_sq_dist:
        # any two distinct vectors are a witness: found unless the machine is so
        # busy that not even two could be evaluated in time (then inconclusive)
        assert result.found or not result.conclusive
    else:
        assert not result.found


def test_a_shrink_cut_by_the_time_limit_says_so():
    from structk.testing.shrink import simplify_objects

    objs, finished = simplify_objects(["ab", "ba"], lambda c, i: True, key=str, time_limit=0.0)
    assert objs == ["ab", "ba"] and not finished
    objs, finished = simplify_objects(["ab", "ba"], lambda c, i: False, key=str)
    assert finished
    # and the verdict prints it under the counterexample
    result = check_kernel(neg_sq_dist, vectors(dim=2), pool_sizes=SMALL)
    result.time_limited, result.searched = True, "1 Gram matrix; time limit reached"
    assert str(result).splitlines()[-1] == (
        "(cut short by the time limit: searched 1 Gram matrix; time limit reached)"
    )


def test_time_limit_must_be_positive():
    with pytest.raises(ValueError, match="time_limit must be > 0"):
        check_kernel(Linear(), vectors(dim=2), time_limit=0)


def test_no_hypothesis_folder_in_the_working_directory(tmp_path):
    # a fresh process: hypothesis writes its Unicode table on first use of text()
    script = textwrap.dedent("""
        from hypothesis import configuration
        from structk.testing import check_kernel, strings
        result = check_kernel(lambda s, t: float(len(set(s) & set(t))), strings("ACGT"),
                              pool_sizes=(16,))
        assert result.conclusive and not result.found
        print(getattr(configuration, "__hypothesis_home_directory"))
    """)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "None"  # the user's hypothesis setting is restored
    assert not (tmp_path / ".hypothesis").exists()
    assert (tmp_path / "cache" / "structk" / "hypothesis").is_dir()  # it did write, there


def test_a_function_kernel_refuses_complex_and_text_values():
    X = [np.zeros(1)]
    for value in (1 + 0j, np.complex64(1), "1.0", b"1"):
        with pytest.raises(ValueError, match="not a real number"):
            FunctionKernel(lambda x, y, v=value: v)(X)
