"""Inputs that are broken or too large are refused before they are read whole,
with a message naming the file and the place."""

import gzip
import zipfile

import numpy as np
import pytest

from structk.cli import inputs
from structk.sequences import read_fasta


def test_non_utf8_byte_names_line_and_record(tmp_path):
    path = tmp_path / "x.fa"
    body = b"".join(b">r%d\nACGT\n" % i for i in range(3000)) + b">bad one\nAC\xe9GT\n"
    path.write_bytes(body)
    with pytest.raises(ValueError) as info:
        read_fasta(path)
    message = str(info.value)
    assert "x.fa" in message and "line 6002 of record 'bad'" in message
    assert "byte 0xe9 (column 3)" in message


def test_gzip_fasta_is_refused_while_inflating_past_the_bound(tmp_path):
    path = tmp_path / "big.fa.gz"
    with gzip.open(path, "wt") as fh:
        for i in range(200):
            fh.write(f">r{i}\n{'A' * 1000}\n")
    assert len(read_fasta(path)[1]) == 200
    with pytest.raises(
        MemoryError, match=r"big\.fa\.gz.*pass 50,000 characters at record 51 \('r50'\)"
    ):
        read_fasta(path, max_bytes=50_000)


def test_empty_records_are_refused_by_the_command_line(tmp_path):
    path = tmp_path / "e.fa"
    path.write_text(">a\nACGT\n" + "".join(f">r{i}\n" for i in range(10_000)))
    with pytest.raises(ValueError, match=r"record 2 \('r0'\) has no sequence \(10000 of 10001"):
        inputs.read_objects(path)


def test_npz_too_large_when_inflated_is_refused_before_inflating(tmp_path, monkeypatch):
    import structk.scale._tiling as tiling

    path = tmp_path / "K.npz"
    np.savez_compressed(path, K=np.zeros((300, 300)))  # 720 kB inflated, tiny on disk
    monkeypatch.setattr(tiling, "_available_memory", lambda: 1_000_000)
    with pytest.raises(MemoryError, match=r"K\.npz.*inflated"):
        inputs.read_matrix(path)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"bad\.npz.*not a numpy \.npz"):
        inputs.read_matrix(tmp_path / "bad.npz")
    assert zipfile.is_zipfile(path)


def test_text_matrix_too_large_to_parse_is_refused(tmp_path, monkeypatch):
    import structk.scale._tiling as tiling

    path = tmp_path / "K.tsv"
    np.savetxt(path, np.eye(200), delimiter="\t")
    monkeypatch.setattr(tiling, "_available_memory", lambda: 100_000)
    with pytest.raises(MemoryError, match=r"K\.tsv.*while parsed"):
        inputs.read_matrix(path)
