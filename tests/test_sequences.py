"""Sequence encoding, k-mer names, FASTA files and the UCI readers."""

import gzip

import numpy as np
import pytest

from structk.datasets import load_promoters, load_splice, promoter_groups
from structk.sequences import (
    UNKNOWN,
    encode,
    kmer_index,
    kmer_strings,
    read_fasta,
    write_fasta,
)


def test_encode_is_flat_codes_plus_offsets():
    P = encode(["ACGT", "", "TTA"])
    np.testing.assert_array_equal(P.codes, [0, 1, 2, 3, 3, 3, 0])
    np.testing.assert_array_equal(P.offsets, [0, 4, 4, 7])
    np.testing.assert_array_equal(P.lengths, [4, 0, 3])
    assert P.codes.dtype == np.uint8 and P.offsets.dtype == np.int64
    np.testing.assert_array_equal(P[2], [3, 3, 0])


def test_all_input_kinds_give_the_same_codes():
    from Bio.Seq import Seq
    from Bio.SeqRecord import SeqRecord

    forms = [
        "GATTACA",
        b"GATTACA",
        bytearray(b"GATTACA"),
        list("GATTACA"),
        tuple("GATTACA"),
        Seq("GATTACA"),
        SeqRecord(Seq("GATTACA"), id="x"),
        "gattaca",
        [b"G", b"A", b"T", b"T", b"A", b"C", b"A"],
    ]
    P = encode(forms)
    for i in range(len(forms)):
        np.testing.assert_array_equal(P[i], P[0])


def test_case_handling():
    assert list(encode(["acgu"], "rna")[0]) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"X\[0\] has symbol 'a' at position 0"):
        encode(["aC"], ignore_case=False)
    # an alphabet with both cases of a letter must be read case-sensitively
    with pytest.raises(ValueError, match="differ only by case"):
        encode(["ab"], alphabet="aA")
    np.testing.assert_array_equal(encode(["aAb"], "aAb", ignore_case=False)[0], [0, 1, 2])


def test_unknown_symbol_error_names_index_position_and_symbol():
    with pytest.raises(
        ValueError,
        match=r"X\[2\] has symbol 'N' at position 3.*'ACGT'"
        r".*2 such symbol\(s\) in 2 sequence",
    ):
        encode(["ACGT", "AC", "ACGNT", "NN"[:1]])
    with pytest.raises(ValueError, match=r"Y\[0\] has symbol 'X' at position 1"):
        encode(["AXK"], "dna", name="Y")
    with pytest.raises(ValueError, match=r"X\[0\] has symbol 'é' at position 2"):
        encode(["ACé"])  # via the fast latin-1 path
    with pytest.raises(ValueError, match=r"X\[1\] has symbol '\u03b1' at position 0"):
        encode(["A", "\u03b1"])  # beyond latin-1: the per-symbol path


def test_unknown_skip_keeps_positions():
    P = encode(["ANGT", "n"], unknown="skip")
    np.testing.assert_array_equal(P.codes, [0, UNKNOWN, 2, 3, UNKNOWN])
    np.testing.assert_array_equal(P.offsets, [0, 4, 5])


def test_generic_symbols_and_bad_items():
    P = encode([[1, 2, 3], (3, 3)], alphabet=[1, 2, 3])
    np.testing.assert_array_equal(P.codes, [0, 1, 2, 2, 2])
    with pytest.raises(TypeError, match=r"X\[1\] has an unhashable symbol \[1\] at position 0"):
        encode([[1], [[1]]], alphabet=[1, 2])
    with pytest.raises(TypeError, match=r"X\[1\] is a int, not a sequence"):
        encode(["A", 5])
    with pytest.raises(TypeError, match="single str"):
        encode("ACGT")
    with pytest.raises(ValueError, match="unknown must be"):
        encode(["A"], unknown="ignore")
    with pytest.raises(ValueError, match="at most 255"):
        encode(["A"], alphabet=list(range(300)))


def test_kmer_names_round_trip():
    ids = np.arange(64)
    names = kmer_strings(ids, 3, "dna")
    assert names[0] == "AAA" and names[-1] == "TTT" and names[6] == "ACG"
    assert [kmer_index(s) for s in names] == list(ids)
    with pytest.raises(ValueError, match="out of range"):
        kmer_strings([64], 3)


@pytest.mark.parametrize("suffix", [".fa", ".fa.gz"])
def test_fasta_round_trip(tmp_path, suffix):
    seqs = ["ACGT" * 40, "", "acgtn", "MKV" * 7]
    ids = ["s1", "s2", "s3", "prot"]
    path = tmp_path / f"x{suffix}"
    write_fasta(path, seqs, ids)
    if suffix.endswith(".gz"):
        with gzip.open(path, "rt") as fh:
            assert fh.readline() == ">s1\n"
    else:
        assert path.read_text().startswith(">s1\n")
    got_ids, got = read_fasta(path)
    assert got_ids == ids and got == seqs


def test_fasta_hand_written_with_descriptions_and_wrapping(tmp_path):
    path = tmp_path / "hand.fasta"
    path.write_text(">a first record\nACG\nTT\n>b\n\nGG\n")
    assert read_fasta(path) == (["a", "b"], ["ACGTT", "GG"])
    gz = tmp_path / "hand_without_suffix"
    with gzip.open(gz, "wt") as fh:  # compression detected from the content
        fh.write(path.read_text())
    assert read_fasta(gz) == (["a", "b"], ["ACGTT", "GG"])


def test_write_fasta_rejects_bad_ids(tmp_path):
    with pytest.raises(ValueError, match=r"ids\[1\] = 'a b'"):
        write_fasta(tmp_path / "x.fa", ["A", "C"], ["ok", "a b"])
    with pytest.raises(ValueError, match="1 ids for 2 sequences"):
        write_fasta(tmp_path / "x.fa", ["A", "C"], ["ok"])


# ------------------------------------------------------------------ UCI files
def test_load_splice(structk_data):
    d = load_splice(structk_data("sequences/splice/splice.data"))
    assert len(d.sequences) == 3190 and len(d.names) == 3190
    assert {c: int((d.target == c).sum()) for c in ("EI", "IE", "N")} == {
        "EI": 767,
        "IE": 768,
        "N": 1655,
    }
    assert d.names[0] == "ATRINS-DONOR-521"
    assert d.sequences[0].startswith("CCAGCTGCATCACAGGAGGCC")
    ambiguous = [i for i, s in enumerate(d.sequences) if set(s) - set("ACGT")]
    assert len(ambiguous) == 15
    assert set("".join(d.sequences[i] for i in ambiguous)) - set("ACGT") == set("NDRS")


def test_load_promoters(structk_data):
    d = load_promoters(structk_data("sequences/promoters/promoters.data"))
    seqs, target, names = d
    assert len(seqs) == 106 and all(len(s) == 57 for s in seqs)
    assert (target == "+").sum() == 53 and names[0] == "S10"
    groups = promoter_groups(d)
    neg = target == "-"
    assert len(set(groups[~neg])) == 53  # each positive alone
    assert len(set(groups[neg])) < 53  # overlapping negative windows joined
    starts = {int(names[i]): groups[i] for i in np.flatnonzero(neg)}
    for a in starts:
        for b in starts:
            if abs(a - b) < 57:
                assert starts[a] == starts[b]


def test_uci_reader_errors(tmp_path):
    bad = tmp_path / "bad.data"
    bad.write_text("EI, X, ACGT\n")
    with pytest.raises(ValueError, match="row 0 has a sequence of length 4"):
        load_splice(bad)
    bad.write_text("EI, ACGT\n")
    with pytest.raises(ValueError, match="bad.data:1: expected"):
        load_splice(bad)


def test_proteins_given_a_nucleotide_alphabet_get_the_protein_advice():
    from structk.kernels import GappyPair, Spectrum

    proteins = ["MKVLAAGIVHHW", "PQERTYDDCSNG"]
    for kernel in (Spectrum(k=3), GappyPair(k=1, m=1)):
        with pytest.raises(ValueError, match="alphabet='protein'"):
            kernel(proteins)
    # DNA with ambiguity codes or a stray letter: no protein advice
    for dna in (["ACGTACGTNA", "ACGTTTAQ"], ["NNNNRYACGT"]):
        with pytest.raises(ValueError) as info:
            Spectrum(k=3)(dna)
        assert "protein" not in str(info.value)


def test_a_column_of_strings_or_a_graph_is_named_for_what_it_is():
    """An (n, 1) table of strings is not n sequences of one symbol, and a
    graph is not a sequence of nodes: both refused naming what to pass."""
    import networkx as nx

    from structk.sequences import encode

    with pytest.raises(ValueError, match=r"X is a 2-d array of shape \(2, 1\).*X\.ravel\(\)"):
        encode(np.array([["ACGT"], ["TTGA"]], dtype=object))
    with pytest.raises(TypeError, match=r"X\[1\] is a graph \(Graph\).*graph kernel"):
        encode(["ACGT", nx.path_graph(3)])
    # a 2-d array of integer symbols is still a collection of sequences
    assert len(encode(np.array([[0, 1, 2], [2, 1, 0]]), alphabet=[0, 1, 2]).offsets) == 3
