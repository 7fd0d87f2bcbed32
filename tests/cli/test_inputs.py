"""Command-line inputs: FASTA alphabets, CSV label columns, matrix files,
output formats of gram and check-psd, file permissions."""

import json
import os
import stat

import numpy as np
import pytest

from structk import cli
from structk.cli.inputs import detect_alphabet
from structk.kernels import Normalize, Spectrum


def run(capsys, *argv):
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _fasta(tmp_path, seqs, name="seqs.fa"):
    path = tmp_path / name
    path.write_text("".join(f">s{i} class={'ab'[i % 2]}\n{s}\n" for i, s in enumerate(seqs)))
    return path


PROTEIN = [
    "MKTAYIAKQRQISFVKSHFSRQ",
    "MPKLLVVGAGGVGKS",
    "MSTNPKPQRKTKRNTNRRPQDVKFPGG",
    "MEEPQSDPSVEPPLSQETFSDLWKLL",
]
RNA = ["ACGUACGUUA", "GGCUAUCGAA", "UUAGCGCAUC", "CAGUCAGUCA"]


@pytest.mark.parametrize(
    "seqs, name",
    [
        (["ACGTTGCA", "acgtnacg" * 3], "dna"),
        (RNA, "rna"),
        (PROTEIN, "protein"),
        (PROTEIN + ["MKXBZLL"], "protein-extended"),
    ],
)
def test_alphabet_is_detected_from_the_records(seqs, name):
    assert detect_alphabet(seqs) == name


def test_protein_fasta_works_by_default_and_says_so(tmp_path, capsys):
    path = _fasta(tmp_path, PROTEIN)
    code, out, _ = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Normalize(Spectrum(k=2))",
        "-o",
        str(tmp_path / "K.npy"),
        "--quiet",
    )
    assert code == 0 and "note: alphabet protein detected from the records" in out
    np.testing.assert_allclose(
        np.load(tmp_path / "K.npy"), Normalize(Spectrum(k=2, alphabet="protein"))(PROTEIN)
    )


def test_rna_fasta_and_the_alphabet_override(tmp_path, capsys):
    path = _fasta(tmp_path, RNA)
    code, out, _ = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Spectrum(k=2)",
        "-o",
        str(tmp_path / "K.npy"),
        "--format",
        "json",
    )
    assert code == 0 and json.loads(out)["notes"][0].startswith("alphabet rna detected")
    code, out, _ = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Spectrum(k=2)",
        "-o",
        str(tmp_path / "K2.npy"),
        "--alphabet",
        "ACGUN",
    )
    assert code == 0 and "detected" not in out
    np.testing.assert_allclose(np.load(tmp_path / "K2.npy"), Spectrum(k=2, alphabet="ACGUN")(RNA))
    # an alphabet written in the kernel expression is kept
    code, _, err = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Spectrum(k=2, alphabet='dna')",
        "-o",
        str(tmp_path / "K3.npy"),
    )
    assert code == 2 and "'U'" in err


def test_unknown_symbols_name_the_record_and_the_fix(tmp_path, capsys):
    path = _fasta(tmp_path, ["ACGT", "AC#T"])
    code, _, err = run(
        capsys, "gram", str(path), "--kernel", "Spectrum(k=2)", "-o", str(tmp_path / "K.npy")
    )
    assert code == 2 and err.count("\n") == 1
    assert "record 1 (s1) has symbol '#' at position 2" in err and "--alphabet" in err


def _first_outside(seqs, accepted):
    """(record, position, symbol) of the first symbol outside ``accepted``, by brute force."""
    for i, s in enumerate(seqs):
        for j, c in enumerate(s):
            if c not in accepted:
                return i, j, c
    return None


@pytest.mark.parametrize("command", ["gram", "cv"])
def test_alphabet_mismatch_names_the_option_record_position_and_symbol(tmp_path, capsys, command):
    seqs = ["ACGTACGT", "ACCATTGA", "AC-TGGTA", "TTRACCGA"]
    path = _fasta(tmp_path, seqs)
    i, j, c = _first_outside(seqs, set("ACGT"))
    assert (i, j, c) == (2, 2, "-")
    argv = [command, str(path), "--kernel", "Spectrum(k=2)", "--alphabet", "ACGT", "--quiet"]
    argv += (
        ["-o", str(tmp_path / "K.npy")]
        if command == "gram"
        else ["--labels", str(_labels(tmp_path, "abab"))]
    )
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and out == ""
    assert err.startswith(
        f"structk {command}: error: --alphabet ACGT: record {i} (s{i}) has "
        f"symbol {c!r} at position {j}, outside that alphabet "
        "(2 records hold such symbols)"
    )
    # the fix names every missing symbol and the option that skips them
    assert "--alphabet ACGT-R" in err and "unknown='skip'" in err
    assert not (tmp_path / "K.npy").exists()


def _labels(tmp_path, labels):
    path = tmp_path / "labels.txt"
    path.write_text("".join(f"{y}\n" for y in labels))
    return path


def test_alphabet_given_by_name_and_case(tmp_path, capsys):
    seqs = ["acgtACGT", "ACGUACGT"]
    path = _fasta(tmp_path, seqs)
    code, _, err = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Spectrum(k=2)",
        "--alphabet",
        "dna",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 2
    assert "--alphabet dna: record 1 (s1) has symbol 'U' at position 3" in err
    # lower case is the same symbol for a kernel that ignores case (the default) ...
    path = _fasta(tmp_path, ["acgtACGT", "ACGTACGA"])
    code, _, _ = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Spectrum(k=2)",
        "--alphabet",
        "ACGT",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 0
    np.testing.assert_array_equal(
        np.load(tmp_path / "K.npy"), Spectrum(k=2)(["ACGTACGT", "ACGTACGA"])
    )
    # ... and outside the alphabet for one that does not
    code, _, err = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Spectrum(k=2, ignore_case=False)",
        "--alphabet",
        "ACGT",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 2 and "record 0 (s0) has symbol 'a' at position 0" in err


def test_alphabet_mismatch_is_allowed_when_the_kernel_skips_unknown_symbols(tmp_path, capsys):
    seqs = ["ACGTNACGT", "ACCATTGA", "ACNNTGGTA"]
    path = _fasta(tmp_path, seqs)
    code, _, _ = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Normalize(Spectrum(k=2, unknown='skip'))",
        "--alphabet",
        "ACGT",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 0
    np.testing.assert_array_equal(
        np.load(tmp_path / "K.npy"), Normalize(Spectrum(k=2, alphabet="ACGT", unknown="skip"))(seqs)
    )


def test_detected_alphabet_mismatch_says_it_was_detected(tmp_path, capsys):
    seqs = ["ACGTACGTAC", "ACGTNACGTA", "GGCCAATTGG"]
    path = _fasta(tmp_path, seqs)
    code, _, err = run(
        capsys, "gram", str(path), "--kernel", "Spectrum(k=2)", "-o", str(tmp_path / "K.npy")
    )
    assert code == 2
    assert (
        "alphabet dna (detected from the records): record 1 (s1) has symbol 'N' at position 4"
    ) in err and "--alphabet ACGTN" in err


def test_bad_alphabet_option_is_named(tmp_path, capsys):
    path = _fasta(tmp_path, ["ACGT"])
    code, _, err = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Spectrum(k=2)",
        "--alphabet",
        "ACGA",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 2 and "--alphabet 'ACGA'" in err and "'A' at position 3 is repeated" in err


def test_csv_needs_the_label_column_or_says_which_it_took(tmp_path, capsys):
    numeric = tmp_path / "numeric.csv"
    numeric.write_text("a,b,y\n0,1,0\n1,0,1\n0,2,0\n2,0,1\n0,3,0\n3,0,1\n")
    code, _, err = run(capsys, "cv", str(numeric), "--kernel", "Linear()", "--cv", "3")
    assert code == 2 and "--label-column" in err and err.count("\n") == 1
    code, out, _ = run(
        capsys, "gram", str(numeric), "--kernel", "Linear()", "-o", str(tmp_path / "K.npy")
    )
    assert code == 0 and "all 3 columns used as features" in out
    named = tmp_path / "named.csv"
    named.write_text("a,b,species\n0,1,x\n1,0,y\n0,2,x\n2,0,y\n0,3,x\n3,0,y\n")
    code, out, _ = run(
        capsys,
        "cv",
        str(named),
        "--kernel",
        "Linear()",
        "--cv",
        "3",
        "--learner",
        "NearestClassMean()",
        "--quiet",
    )
    assert code == 0 and "labels taken from the last column 'species'" in out
    assert "classes ['x', 'y']" in out and "1.000 ± 0.000" in out


def test_quoted_csv_fields_with_commas(tmp_path, capsys):
    path = tmp_path / "quoted.csv"
    path.write_text('name,x,y\n"a, b",0,0\n"c",1,1\n"d, e",0,0\n"f",1,1\n')
    code, _, err = run(
        capsys,
        "gram",
        str(path),
        "--kernel",
        "Linear()",
        "--label-column",
        "y",
        "-o",
        str(tmp_path / "K.npy"),
    )
    assert code == 2 and "non-numeric value 'a, b' in column 'name', row 0" in err


def test_gram_outputs_and_check_psd_reads_them(tmp_path, capsys):
    path = _fasta(tmp_path, ["ACGTAC", "GGTACA", "TTTACG", "ACGGGA"])
    npy, tsv = tmp_path / "K.npy", tmp_path / "K.tsv"
    old = os.umask(0o022)
    try:
        code, out, _ = run(
            capsys,
            "gram",
            str(path),
            "--kernel",
            "Spectrum(k=2)",
            "-o",
            str(npy),
            "--tsv",
            str(tsv),
            "--format",
            "json",
        )
    finally:
        os.umask(old)
    assert code == 0
    record = json.loads(out)
    assert record["n"] == 4 and record["psd"]["is_psd"] is True and record["gram_seconds"] >= 0
    for f in (npy, tsv):
        assert stat.S_IMODE(f.stat().st_mode) == 0o644, f
    K = np.load(npy)
    np.savez(tmp_path / "K.npz", K=K)
    np.savetxt(tmp_path / "plain.csv", K, delimiter=",")
    np.savetxt(tmp_path / "plain.tsv", K, delimiter="\t")
    for name in ("K.npy", "K.npz", "K.tsv", "plain.csv", "plain.tsv"):
        code, out, _ = run(
            capsys, "check-psd", str(tmp_path / name), "--format", "json", "--eigenvalues"
        )
        record = json.loads(out)
        assert code == 0 and record["is_psd"] and record["n"] == 4, name
        assert record["min_eigenvalue"] == pytest.approx(np.linalg.eigvalsh(K)[0], abs=1e-9)
    code, out, _ = run(capsys, "check-psd", str(tsv), "--format", "tsv")
    lines = [line.split("\t") for line in out.splitlines()]
    assert code == 0 and lines[0][:3] == ["file", "n", "psd"] and lines[1][1:3] == ["4", "yes"]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("K.pkl", b"x", "use .npy, .npz, .tsv or .csv"),
        ("K.csv", b"1,2\n3,x\n", r"entry \(1, 1\) is 'x'"),
        ("K.tsv", b"1\t2\n3\n", "rows have different lengths"),
        ("K.npy", b"not numpy", "not a numpy .npy array"),
    ],
)
def test_check_psd_rejects_other_files_in_one_line(tmp_path, capsys, name, content, message):
    (tmp_path / name).write_bytes(content)
    code, _, err = run(capsys, "check-psd", str(tmp_path / name))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("structk check-psd: error:")
    assert __import__("re").search(message, err), err


def test_two_arrays_in_an_npz_is_an_error(tmp_path, capsys):
    np.savez(tmp_path / "two.npz", a=np.eye(2), b=np.eye(2))
    code, _, err = run(capsys, "check-psd", str(tmp_path / "two.npz"))
    assert code == 2 and "holds 2 arrays (a, b)" in err


def test_check_psd_json_for_an_indefinite_matrix(tmp_path, capsys):
    np.save(tmp_path / "bad.npy", np.array([[0.0, 1.0], [1.0, 0.0]]))
    code, out, _ = run(capsys, "check-psd", str(tmp_path / "bad.npy"), "--format", "json")
    record = json.loads(out)
    assert code == 1 and record["is_psd"] is False
    assert record["min_eigenvalue"] == pytest.approx(-1.0)
