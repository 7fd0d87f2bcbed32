"""Kernel expressions on the command line are parsed safely."""

import re

import numpy as np
import pytest

from structk import kernels
from structk.cli.spec import kernel_namespace, parse_kernel, parse_spec
from structk.kernels import EmpiricalKernelMap, Gaussian, Normalize, Polynomial, smith_waterman


def test_expression_builds_the_kernel():
    k = parse_spec("Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2)) ** 2",
                   kernel_namespace())
    expected = Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2)) ** 2
    assert repr(k) == repr(expected)
    X = np.random.default_rng(0).normal(size=(5, 2))
    np.testing.assert_array_equal(k(X), expected(X))


@pytest.mark.parametrize(
    "text, message",
    [
        ("Gausian(sigma=1)", "unknown kernel 'Gausian'; did you mean 'Gaussian'"),
        ("__import__('os')", "unknown kernel '__import__'"),
        ("Gaussian(sigma=1).__class__", "is not allowed"),
        ("[x for x in ()]", "is not allowed"),
        ("Gaussian(sigma=", "cannot parse kernel"),
        ("Gaussian(**{'sigma': 1})", r"\*\*kwargs is not allowed"),
        ("Gaussian(bandwidth=1)", "Gaussian: .*unexpected keyword argument 'bandwidth'"),
        ("-2 * Gaussian()", "scale factor must be finite and >= 0"),
    ],
)
def test_bad_expressions(text, message):
    with pytest.raises(ValueError, match=message):
        parse_spec(text, kernel_namespace())


# ------------------------------------------------------- bounded arithmetic
@pytest.mark.parametrize("text, fragment", [
    ("Spectrum(k=9**9**9**9)", "too large"),
    ("Spectrum(k=2**300)", "'2**300' is too large"),
    ("Spectrum(k=(2**200) * (2**200))", "too large"),
    ("Gaussian(sigma=1e300 * 1e300)", "overflows"),
    ("Gaussian(sigma=10.0 ** 400)", "cannot compute '10.0 ** 400'"),
    ("Spectrum(alphabet='A' * 10**9)", "too long"),
    ("Spectrum(k=1 / 0)", "division by zero"),
])
def test_arithmetic_is_bounded_and_fails_fast(text, fragment):
    # refused before computing: evaluating 9**9**9**9 would never finish
    with pytest.raises(ValueError, match=re.escape(fragment)):
        parse_spec(text, kernel_namespace())


def test_ordinary_arithmetic_still_works():
    k = parse_spec("Spectrum(k=2**3) + 0.5 * Gaussian(sigma=2 ** -1)", kernel_namespace())
    assert k.k1.k == 8 and k.k2.factor == 0.5 and k.k2.kernel.sigma == 0.5


# ------------------------------------------------------------ the namespace
def test_namespace_lists_the_kernel_classes_only():
    public = {name: getattr(kernels, name) for name in kernels.__all__}
    expected = {name for name, obj in public.items()
                if isinstance(obj, type) and issubclass(obj, kernels.Kernel)
                and obj is not kernels.Kernel}
    assert set(kernel_namespace()) == expected
    assert {"Spectrum", "WeisfeilerLehman", "EmpiricalKernelMap"} <= expected
    # functions of structk.kernels are not kernels
    assert "smith_waterman" in public and "fisher_scores" in public
    assert not {"smith_waterman", "fisher_scores", "Kernel"} & set(kernel_namespace())


def test_unknown_name_lists_classes_not_functions():
    with pytest.raises(ValueError, match="unknown kernel 'Spectum'") as err:
        parse_kernel("Spectum(k=3)")
    known = str(err.value).partition("(known: ")[2].rstrip(")").split(", ")
    assert known == sorted(kernel_namespace())
    assert "smith_waterman" not in str(err.value)


def test_a_similarity_function_is_still_a_value_for_the_empirical_map():
    seqs = ["MKVLAW", "WWPHMK", "MKVLQQ"]
    k = parse_kernel("EmpiricalKernelMap(smith_waterman, landmarks=['MKVL', 'WWPH'])")
    np.testing.assert_array_equal(
        k(seqs), EmpiricalKernelMap(smith_waterman, landmarks=["MKVL", "WWPH"])(seqs))


@pytest.mark.parametrize("text, message", [
    ("smith_waterman", "kernel 'smith_waterman' is a function, not a kernel: wrap it"),
    ("smith_waterman(['MK'])", "'smith_waterman' is a function, not a kernel"),
    ("fisher_scores", "unknown kernel 'fisher_scores'"),
    ("Spectrum", r"kernel 'Spectrum' is a class: call it, e.g. Spectrum\(\)"),
    ("Normalize", r"is a class: call it, e.g. Normalize\(\)"),
    ("2.5", "kernel '2.5' is not a kernel"),
    ("'Spectrum()'", "kernel \"'Spectrum\\(\\)'\" is not a kernel"),
])
def test_an_expression_that_is_not_a_kernel_instance_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_kernel(text)
