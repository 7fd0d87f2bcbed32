"""Kernel expressions on the command line are parsed safely."""

import re

import numpy as np
import pytest

from structk import kernels
from structk.cli.spec import kernel_namespace, parse_kernel, parse_spec
from structk.kernels import (
    EmpiricalKernelMap,
    Gaussian,
    LocalAlignment,
    Normalize,
    Polynomial,
    SpectrumRepair,
    smith_waterman,
)
from structk.learners import KernelSVM


def test_expression_builds_the_kernel():
    k = parse_spec(
        "Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2)) ** 2", kernel_namespace()
    )
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
@pytest.mark.parametrize(
    "text, fragment",
    [
        ("Spectrum(k=9**9**9**9)", "too large"),
        ("Spectrum(k=2**300)", "'2**300' is too large"),
        ("Spectrum(k=(2**200) * (2**200))", "too large"),
        ("Gaussian(sigma=1e300 * 1e300)", "overflows"),
        ("Gaussian(sigma=10.0 ** 400)", "cannot compute '10.0 ** 400'"),
        ("Spectrum(alphabet='A' * 10**9)", "too long"),
        ("Spectrum(k=1 / 0)", "division by zero"),
    ],
)
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
    expected = {
        name
        for name, obj in public.items()
        if isinstance(obj, type) and issubclass(obj, kernels.Kernel) and obj is not kernels.Kernel
    }
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
        k(seqs), EmpiricalKernelMap(smith_waterman, landmarks=["MKVL", "WWPH"])(seqs)
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("smith_waterman", "kernel 'smith_waterman' is a function, not a kernel: wrap it"),
        ("smith_waterman(['MK'])", "'smith_waterman' is a function, not a kernel"),
        ("fisher_scores", "unknown kernel 'fisher_scores'"),
        ("Spectrum", r"kernel 'Spectrum' is a class: call it, e.g. Spectrum\(\)"),
        ("Normalize", r"is a class: call it, e.g. Normalize\(\)"),
        ("2.5", "kernel '2.5' is not a kernel"),
        ("'Spectrum()'", "kernel \"'Spectrum\\(\\)'\" is not a kernel"),
    ],
)
def test_an_expression_that_is_not_a_kernel_instance_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_kernel(text)


# ------------------------------------- the recipes the docs and warnings give
PROTEINS = [
    "MKVLAAGIVHHW",
    "MKVLSAGIVHHW",
    "WWPHYCMKVLQE",
    "PQERTYDDCSNG",
    "PQERTYEDCSNG",
    "GAVLKMKVLAAW",
]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Normalize(SpectrumRepair(LocalAlignment(beta=0.5).log_kernel))",
            lambda: Normalize(SpectrumRepair(LocalAlignment(beta=0.5).log_kernel)),
        ),
        (
            "SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True)",
            lambda: SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True),
        ),
        (
            "EmpiricalKernelMap(LocalAlignment(beta=0.2, gap_open=5).log_kernel, "
            "landmarks=['MKVL', 'WWPH'])",
            lambda: EmpiricalKernelMap(
                LocalAlignment(beta=0.2, gap_open=5).log_kernel, landmarks=["MKVL", "WWPH"]
            ),
        ),
    ],
    ids=["warning-hint-before", "recipe", "ekm"],
)
def test_recommended_log_kernel_expressions_parse(text, expected):
    k, ref = parse_kernel(text), expected()
    assert repr(k) == repr(ref)
    assert repr(k).partition(", landmarks")[0] == text.partition(", landmarks")[0]
    k.fit(PROTEINS[:4])
    ref.fit(PROTEINS[:4])
    np.testing.assert_array_equal(k(PROTEINS[4:], PROTEINS[:4]), ref(PROTEINS[4:], PROTEINS[:4]))


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "LocalAlignment(beta=0.5).log_kernel",
            r"is a similarity, not a kernel: repair it on the training objects, e\.g\. "
            r"SpectrumRepair\(LocalAlignment\(beta=0\.5\)\.log_kernel, normalize=True\)",
        ),
        (
            "SpectrumRepair(Spectrum(k=3).features)",
            r"'Spectrum\(k=3\)\.features' is not allowed .*LocalAlignment\(\.\.\.\)\.log_kernel",
        ),
        ("SpectrumRepair(LocalAlignment().log_kernel.__globals__)", "is not allowed"),
        ("SpectrumRepair(smith_waterman.__call__)", "is not allowed"),
        ("LocalAlignment().log_kernel(['MK'])", "is not allowed"),
    ],
)
def test_only_listed_similarity_methods_may_be_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_kernel(text)


def test_precomputed_over_a_fasta_file_from_the_command_line(tmp_path, capsys):
    """The similarity computed once, written to .npy, then looked up by the
    sequences of the FASTA file a command reads: `structk gram` gives its
    entries, `fit` repairs it on the training file, `predict` projects."""
    from structk import cli

    fasta = tmp_path / "all.fa"
    fasta.write_text(
        "".join(f">p{i} class={'a' if i < 3 else 'b'}\n{s}\n" for i, s in enumerate(PROTEINS))
    )
    L = LocalAlignment(beta=0.5).log_kernel(PROTEINS)
    np.save(tmp_path / "la.npy", L)
    expr = f"Precomputed({str(tmp_path / 'la.npy')!r}, keys={str(fasta)!r})"
    code = cli.main(
        ["gram", str(fasta), "--kernel", expr, "-o", str(tmp_path / "K.npy"), "--quiet"]
    )
    capsys.readouterr()
    assert code == 0
    np.testing.assert_array_equal(np.load(tmp_path / "K.npy"), L)

    train = tmp_path / "train.fa"
    train.write_text(
        "".join(f">p{i} class={'a' if i < 3 else 'b'}\n{PROTEINS[i]}\n" for i in (0, 2, 3, 5))
    )
    model = tmp_path / "m.structk"
    code = cli.main(
        [
            "fit",
            str(train),
            "--label-pattern",
            r"class=(\S+)",
            "--kernel",
            f"SpectrumRepair({expr}, normalize=True)",
            "--learner",
            "KernelSVM(C=1)",
            "--no-nested",
            "-o",
            str(model),
            "--quiet",
        ]
    )
    capsys.readouterr()
    assert code == 0
    code = cli.main(["predict", str(model), str(fasta), "--format", "json", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    import json

    scores = [json.loads(line)["score"] for line in out.splitlines()]
    ref = SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True)
    Xtr = [PROTEINS[i] for i in (0, 2, 3, 5)]
    svm = KernelSVM(kernel=ref, C=1).fit(Xtr, ["a", "a", "b", "b"])
    np.testing.assert_allclose(scores, svm.decision_function(PROTEINS), rtol=1e-6, atol=1e-9)
