"""``structk cv`` options with out-of-range values, and grouped folds that
leave one class to train on: each refused with a message naming the option."""

import numpy as np
import pytest

from structk import cli


def run(capsys, *argv):
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def fasta(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "s.fa"
    path.write_text(
        "".join(
            f">s{i} class={i % 2}\n{''.join(rng.choice(list('ACGT'), 30))}\n" for i in range(40)
        )
    )
    return str(path)


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--jobs", "0", "argument --jobs: must be at least 1 or -1, got 0"),
        ("--jobs", "two", "argument --jobs: expected a whole number, got 'two'"),
        ("--inner-folds", "1", "argument --inner-folds: must be at least 2, got 1"),
        ("--repeats", "0", "argument --repeats: must be at least 1, got 0"),
    ],
)
def test_out_of_range_options_are_named(capsys, fasta, option, value, message):
    code, _, err = run(
        capsys,
        "cv",
        fasta,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        option,
        value,
        "--quiet",
    )
    assert code == 2
    assert message in err


def _grouped(tmp_path, classes_by_group):
    rng = np.random.default_rng(1)
    lines = []
    for g, classes in classes_by_group.items():
        for j in range(12):
            c = classes[j % len(classes)]
            lines.append(f">s{g}{j} class={c} grp={g}\n{''.join(rng.choice(list('ACGT'), 30))}\n")
    path = tmp_path / "g.fa"
    path.write_text("".join(lines))
    return str(path)


def test_grouped_inner_splits_with_one_class_are_left_out(capsys, tmp_path):
    # leaving out g3 trains on g1, g2 (class a) and g4 (a and b): the inner
    # split training on g1 + g2 alone holds one class and is skipped
    path = _grouped(tmp_path, {"g1": "a", "g2": "a", "g3": "b", "g4": "ab"})
    code, out, err = run(
        capsys,
        "cv",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--cv",
        "grouped",
        "--groups",
        r"grp=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--quiet",
        "--format",
        "tsv",
    )
    assert code == 0, err
    assert "Spectrum(k=2)" in out


def test_grouped_outer_fold_with_one_training_class_names_groups(capsys, tmp_path):
    # leaving out g2 (the only group with class b) trains on class a alone
    path = _grouped(tmp_path, {"g1": "a", "g2": "b", "g3": "a"})
    code, _, err = run(
        capsys,
        "cv",
        path,
        "--label-pattern",
        r"class=(\S+)",
        "--cv",
        "grouped",
        "--groups",
        r"grp=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--quiet",
    )
    assert code == 2
    assert "--groups: leaving out group(s) g2 leaves only class 'a' to train on" in err
