"""``structk check-kernel``: exit 0 when nothing is found, 1 with the counterexample, 2 on bad input."""

import textwrap

import pytest

from structk.cli import main


@pytest.fixture
def sims(tmp_path):
    path = tmp_path / "my_sims.py"
    path.write_text(
        textwrap.dedent("""
        import math
        from structk.testing.non_kernels import levenshtein

        def edit_similarity(s, t):
            return math.exp(-levenshtein(s, t))

        def overlap(a, b):
            return len(a & b)

        NOT_CALLABLE = 3

        def three(a, b, c):
            return 1.0

        def quits(a, b):
            import sys
            sys.exit(3)
    """)
    )
    (tmp_path / "syntax.py").write_text("def f(x, y):\n    return len(x & y\n")
    (tmp_path / "raises.py").write_text("import math\nX = 1 / 0\n\ndef f(x, y):\n    return 1\n")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(5)\n\ndef f(x, y):\n    return 1\n")
    (tmp_path / "imports.py").write_text("import no_such_module_zz\n")
    return path


def test_counterexample_exits_1_and_is_printed(sims, capsys):
    code = main(["check-kernel", f"{sims}:edit_similarity", "--objects", "strings:ab"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith(
        "FunctionKernel(edit_similarity) is not a valid kernel: negative eigenvalue on these "
    )
    assert "z with z^T K z = -" in out


def test_valid_function_exits_0_saying_what_was_searched(sims, capsys):
    code = main(
        [
            "check-kernel",
            f"{sims}:overlap",
            "--objects",
            "sets:abcd",
            "--max-size",
            "3",
            "--pools",
            "16,32",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "FunctionKernel(overlap): no counterexample found in 2 Gram matrices of up to" in out
    assert "sets" in out and "not a proof" in out


def test_module_path_and_graphs(capsys):
    code = main(
        [
            "check-kernel",
            "structk.testing.non_kernels:max_nodes",
            "--objects",
            "graphs",
            "--max-size",
            "3",
        ]
    )
    assert code == 1
    assert "Graph(nodes=[0], edges=[])" in capsys.readouterr().out


def test_kernel_instances_and_vectors(capsys):
    code = main(["check-kernel", "structk.testing.non_kernels:sigmoid", "--objects", "vectors:2"])
    out = capsys.readouterr().out
    assert code == 1 and "negative self-similarity on these 1 objects" in out


def test_domain_errors_are_listed_apart(capsys):
    code = main(
        ["check-kernel", "structk.testing.non_kernels:containment", "--objects", "sets:abc"]
    )
    out = capsys.readouterr().out
    assert code == 1 and "asymmetry on these 2 objects" in out
    assert "k({}) -> " in out and "ZeroDivisionError: division by zero" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope_module:f"], "cannot import module 'nope_module'"),
        (["structk.testing.non_kernels"], "expected MODULE:FUNCTION"),
        (["structk.testing.non_kernels:missing"], "has no attribute 'missing'"),
        (["no/such/file.py:f"], "no such file: no/such/file.py"),
        (["{sims}:NOT_CALLABLE"], "NOT_CALLABLE is not callable"),
        (["structk.kernels:Linear"], "Linear is a class"),
        (["{sims}:overlap", "--objects", "trees"], "unknown --objects 'trees'"),
        (["{sims}:overlap", "--objects", "vectors:0"], "needs a dimension >= 1"),
        (
            ["{sims}:overlap", "--objects", "vectors:2", "--max-size", "3"],
            "do not apply to vectors",
        ),
        (["{sims}:overlap", "--objects", "sets", "--pools", "8,x"], "comma-separated integers"),
        (["{sims}:overlap", "--objects", "sets", "--pools", "0"], "pool_sizes must be positive"),
        (["{sims}:overlap", "--objects", "sets", "--time-limit", "0"], "--time-limit must be > 0"),
        (
            ["{sims}:overlap", "--objects", "strings"],
            "inconclusive: nothing was checked: the kernel failed on all 32 objects drawn; first "
            "error: k('') -> ValueError: FunctionKernel(overlap) failed on X[0], X[0]: TypeError: "
            "unsupported operand type(s) for &: 'str' and 'str'",
        ),
        (
            ["{dir}/syntax.py:f", "--objects", "sets"],
            "{dir}/syntax.py:2: syntax error: '(' was never closed (importing {dir}/syntax.py failed)",
        ),
        (
            ["{dir}/raises.py:f", "--objects", "sets"],
            "importing {dir}/raises.py failed at {dir}/raises.py:2: ZeroDivisionError: division by zero",
        ),
        (
            ["{dir}/exits.py:f", "--objects", "sets"],
            "importing {dir}/exits.py failed: it called sys.exit(5)",
        ),
        (
            ["{dir}/imports.py:f", "--objects", "sets"],
            "importing {dir}/imports.py failed at {dir}/imports.py:1: ModuleNotFoundError: "
            "No module named 'no_such_module_zz'",
        ),
        (
            ["{sims}:quits", "--objects", "sets"],
            "FunctionKernel(quits) called sys.exit(3) during the search",
        ),
        (["{sims}:three", "--objects", "sets"], "kernel three(a, b, c) cannot be called with two"),
    ],
)
def test_bad_input_exits_2_with_one_line(sims, capsys, argv, message):
    argv = [a.replace("{sims}", str(sims)).replace("{dir}", str(sims.parent)) for a in argv]
    message = message.replace("{dir}", str(sims.parent))
    code = main(["check-kernel", *argv])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
