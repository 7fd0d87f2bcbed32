"""Model files are bounded and exact: the zip's members are checked before
anything is inflated (sizes, ratio, count, names, duplicates, encryption,
links), read no further than they declare, and every member must be used;
a user's own kernel is saved, and loaded only when its class is passed in
``trusted=`` (never imported by name)."""

import io
import json
import stat
import struct
import sys
import warnings
import zipfile

import numpy as np
import pytest

import structk
import structk.model_file as model_file
from structk.exceptions import ModelFileError
from structk.kernels import Kernel, Normalize, Spectrum
from structk.learners import KernelSVM

_SEQS = ["AACG", "CGTA", "TTTT", "GATTACA", "ACGTTG", "TTGACC"] * 3
_LABELS = [0, 1, 1, 0, 0, 1] * 3


@pytest.fixture
def saved(tmp_path):
    est = KernelSVM(kernel=Spectrum(k=2)).fit(_SEQS, _LABELS)
    path = tmp_path / "m.structk"
    structk.save(est, path)
    return path


def _content(path):
    with zipfile.ZipFile(path) as zf:
        return [(info, zf.read(info)) for info in zf.infolist()]


def _copy(path, out, extra=(), skip=(), infos=None):
    """A copy of the model file with ``extra`` members ``(ZipInfo or name,
    bytes)`` added after its own (and ``skip`` left out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for info, data in _content(path):
                if info.filename not in skip:
                    zf.writestr(info, data)
            for info, data in extra:
                zf.writestr(info, data)
    return out


def _refused(path, *words, **kwargs):
    with pytest.raises(ModelFileError) as info:
        structk.load(path, **kwargs)
    message = str(info.value)
    assert path.name in message, message
    for word in words:
        assert word in message, message
    return message


def _patch(path, values, offset=24, fmt="<I"):
    """Rewrite a field of the zip's central directory (what zipfile and load
    read) for the members named in ``values``: by default the uncompressed
    size the member declares (offset 24); the flags are at offset 8."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, at + 28)
        name = bytes(data[at + 46 : at + 46 + name_len]).decode()
        if name in values:
            struct.pack_into(fmt, data, at + offset, values[name])
        at = data.find(b"PK\x01\x02", at + 46 + name_len + extra_len + comment_len)
    path.write_bytes(bytes(data))


def _patch_sizes(path, sizes):
    _patch(path, sizes)


# ------------------------------------------------------------------ bounds
def test_members_past_max_bytes_are_refused_before_reading(saved, tmp_path):
    array = next(i.filename for i, _ in _content(saved) if i.filename.endswith(".npy"))
    size = max(i.file_size for i, _ in _content(saved) if i.filename.endswith(".npy"))
    _refused(saved, "would inflate to", "max_bytes=", max_bytes=size - 1)
    total = sum(i.file_size for i, _ in _content(saved))
    message = _refused(saved, "in all", "max_bytes=", max_bytes=total - 1)
    assert "the largest" in message
    assert structk.load(saved, max_bytes=total) is not None
    # two members declaring 3 GiB each: 6 GiB in all, past the 4 GiB default,
    # refused from the directory alone (nothing is inflated)
    bomb = _copy(saved, tmp_path / "declared.structk")
    _patch_sizes(bomb, {array: 3 * 2**30, "model.json": 2**30 - 1})
    _refused(bomb, "in all", "GiB", "than the limit of 4.0 GiB")
    _patch_sizes(bomb, {"model.json": 2**30 + 1})
    _refused(bomb, "model.json would inflate to", "for the model's JSON")
    for bad in (0, -1, "4G", True):
        with pytest.raises(ValueError, match="max_bytes must be a positive number"):
            structk.load(saved, max_bytes=bad)


def test_a_zip_bomb_is_refused_by_its_ratio(saved, tmp_path):
    """100 MiB of zeros deflate to ~100 kB: past the 64 MiB floor and more than
    100 times the file's size, refused naming the member before inflating."""
    bomb = tmp_path / "bomb.structk"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in _content(saved):
            zf.writestr(info, data)
        with zf.open("arrays/99.npy", "w") as fh:
            zero = bytes(2**20)
            for _ in range(100):
                fh.write(zero)
    message = _refused(bomb, "arrays/99.npy", "times its size", "zip bomb", "max_ratio=")
    assert "100.0 MiB" in message
    with pytest.raises(ValueError, match="max_ratio must be a positive number"):
        structk.load(bomb, max_ratio=float("nan"))


def test_a_member_inflating_past_its_declared_size_is_refused(saved, tmp_path):
    array, data = max(
        ((i.filename, d) for i, d in _content(saved) if i.filename.endswith(".npy")),
        key=lambda pair: len(pair[1]),
    )
    short = _copy(saved, tmp_path / "short.structk")
    _patch_sizes(short, {array: len(data) - 100})  # holds 100 bytes more than it says
    _refused(short, array, "damaged")
    long = _copy(saved, tmp_path / "long.structk")
    _patch_sizes(long, {array: len(data) + 100})
    _refused(long, array, "damaged")


@pytest.mark.slow
def test_too_many_members_are_refused_before_the_directory_is_parsed(saved, tmp_path, monkeypatch):
    """100,000 junk members: refused by name; with fewer allowed than the
    zip64 directory declares, refused by count before zipfile lists them."""
    many = tmp_path / "many.structk"
    with zipfile.ZipFile(many, "w", zipfile.ZIP_STORED) as zf:
        for info, data in _content(saved):
            zf.writestr(info, data)
        for i in range(100_000):
            zf.writestr(f"junk/{i}", b"")
    _refused(many, "'junk/0'", "not part of a structk model file")
    monkeypatch.setattr(model_file, "MAX_MEMBERS", 99_999)
    _refused(many, f"{len(_content(saved)) + 100_000:,} members", "at most 99,999")
    monkeypatch.setattr(model_file, "MAX_MEMBERS", 2)
    _refused(saved, "members, more than a model file has")


# ----------------------------------------------------------------- members
def test_members_the_format_does_not_have_are_refused(saved, tmp_path):
    for name in (
        "../../x",
        "/etc/passwd",
        "arrays/1.npy/",
        "notes.txt",
        "arrays/a.npy",
        "Model.json",
    ):
        bad = _copy(saved, tmp_path / "extra.structk", [(name, b"hello")])
        _refused(bad, repr(name), "not part of a structk model file")


def test_duplicate_members_are_refused(saved, tmp_path):
    for name, data in _content(saved):
        bad = _copy(saved, tmp_path / "twice.structk", [(name.filename, data)])
        _refused(bad, repr(name.filename), "appears twice")


def test_encrypted_linked_and_foreign_members_are_refused(saved, tmp_path):
    info, data = next((i, d) for i, d in _content(saved) if i.filename.endswith(".npy"))

    def altered(**attributes):
        new = zipfile.ZipInfo(info.filename, info.date_time)
        new.compress_type = zipfile.ZIP_DEFLATED
        for key, value in attributes.items():
            setattr(new, key, value)
        return _copy(saved, tmp_path / "altered.structk", [(new, data)], skip={info.filename})

    encrypted = _copy(saved, tmp_path / "encrypted.structk")
    _patch(encrypted, {info.filename: info.flag_bits | 0x1}, offset=8, fmt="<H")
    _refused(encrypted, repr(info.filename), "encrypted")
    _refused(
        altered(external_attr=(stat.S_IFLNK | 0o777) << 16), repr(info.filename), "symbolic link"
    )
    _refused(
        altered(external_attr=(stat.S_IFDIR | 0o755) << 16),
        repr(info.filename),
        "not a regular file",
    )
    _refused(altered(compress_type=zipfile.ZIP_BZIP2), repr(info.filename), "compression method 12")
    assert structk.load(altered(external_attr=(stat.S_IFREG | 0o644) << 16)) is not None


def test_a_member_the_model_does_not_use_is_refused(saved, tmp_path):
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    bad = _copy(saved, tmp_path / "unused.structk", [("arrays/999.npy", buffer.getvalue())])
    _refused(bad, "arrays/999.npy is not used by the model")


def test_an_array_with_trailing_bytes_is_refused(saved, tmp_path):
    info, data = next((i, d) for i, d in _content(saved) if i.filename.endswith(".npy"))
    bad = _copy(
        saved,
        tmp_path / "trailing.structk",
        [(info.filename, data + b"\0" * 8)],
        skip={info.filename},
    )
    _refused(bad, info.filename, "not a valid array", "claims")


def test_a_stored_cache_is_refused(saved, tmp_path):
    with zipfile.ZipFile(saved) as zf:
        header = json.loads(zf.read("model.json"))
    header["root"]["object"]["state"]["_train_prepared"] = None
    bad = _copy(
        saved, tmp_path / "cache.structk", [("model.json", json.dumps(header))], skip={"model.json"}
    )
    _refused(bad, "KernelSVM._train_prepared is stored")


def test_loaded_arrays_are_writeable_and_aligned(saved):
    again = structk.load(saved)
    for name in ("dual_coef_", "support_", "intercept_"):
        a = getattr(again, name)
        assert a.flags.writeable and a.flags.aligned, name


# ------------------------------------------------------------- user kernels
class LetterCounts(Kernel):
    """A user's kernel (as docs/custom_kernels.md writes one): letter counts."""

    has_features = True

    def __init__(self, letters="ACGT", weights=None):
        self.letters = letters
        self.weights = weights

    def _check_params(self):
        if not isinstance(self.letters, str) or not self.letters:
            raise ValueError(f"letters must be a non-empty str, got {self.letters!r}")

    def _prepare(self, X, name):
        X = super()._prepare(X, name)
        w = np.ones(len(self.letters)) if self.weights is None else np.asarray(self.weights)
        return np.array([[s.count(c) for c in self.letters] for s in X], float) * w

    def _features(self, P):
        return P


class Cached(Kernel):
    """A user's kernel with a derived table that its own ``__getstate__`` drops
    and ``__setstate__`` rebuilds, as it would for pickle."""

    has_features = True

    def __init__(self, letters="ACGT"):
        self.letters = letters

    def __getstate__(self):
        return {k: v for k, v in vars(self).items() if k != "table"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.table = {c: i for i, c in enumerate(self.letters)}

    def _prepare(self, X, name):
        X = super()._prepare(X, name)
        table = getattr(self, "table", None) or {c: i for i, c in enumerate(self.letters)}
        F = np.zeros((len(X), len(table)))
        for i, s in enumerate(X):
            for c in s:
                F[i, table[c]] += 1
        return F

    def _features(self, P):
        return P


def test_a_user_kernel_is_saved_and_loaded_only_when_trusted(tmp_path):
    kernel = Normalize(LetterCounts(weights=[1.0, 2.0, 0.5, 1.0]) + Spectrum(k=2))
    svm = KernelSVM(kernel=kernel).fit(_SEQS, _LABELS)
    path = tmp_path / "user.structk"
    structk.save(svm, path)
    message = _refused(path, "refused class", "LetterCounts", "nothing was imported", "trusted=[")
    assert "structk.load(path, trusted=[TheClass])" in message
    again = structk.load(path, trusted=[LetterCounts])
    np.testing.assert_array_equal(again.decision_function(_SEQS), svm.decision_function(_SEQS))
    assert repr(again) == repr(svm)
    assert type(again.kernel_.kernel.k1) is LetterCounts
    # trusting another class does not admit this one
    _refused(path, "refused class", trusted=[Cached])


def test_a_trusted_class_runs_its_own_constructor_and_setstate(tmp_path):
    k = Cached(letters="ACGT")
    k.__setstate__(k.__getstate__())
    path = tmp_path / "cached.structk"
    structk.save(k, path)
    with zipfile.ZipFile(path) as zf:
        assert "table" not in zf.read("model.json").decode()
    again = structk.load(path, trusted=[Cached])
    assert again.table == {"A": 0, "C": 1, "G": 2, "T": 3}
    np.testing.assert_array_equal(again(_SEQS), k(_SEQS))


def test_a_trusted_class_is_matched_by_name_never_imported(tmp_path, monkeypatch):
    k = LetterCounts()
    path = tmp_path / "k.structk"
    structk.save(k, path)
    with zipfile.ZipFile(path) as zf:
        header = json.loads(zf.read("model.json"))
    assert header["root"]["object"]["class"] == f"{__name__}.LetterCounts"

    def renamed(name, params=None):
        h = json.loads(json.dumps(header))
        h["root"]["object"]["class"] = name
        if params:
            h["root"]["object"]["params"].update(params)
        return _copy(
            path, tmp_path / "renamed.structk", [("model.json", json.dumps(h))], skip={"model.json"}
        )

    # saved from a script: its module is __main__; the one trusted class of
    # that name is the one meant
    again = structk.load(renamed("__main__.LetterCounts"), trusted=[LetterCounts])
    np.testing.assert_array_equal(again(_SEQS), k(_SEQS))
    marker = tmp_path / "ran"
    (tmp_path / "structk_probe_user.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass LetterCounts:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("structk_probe_user.Evil", "os.system", "builtins.eval"):
        _refused(renamed(name), "refused class", trusted=[LetterCounts])
    assert not marker.exists() and "structk_probe_user" not in sys.modules
    # the class's own checks run on the file's values
    _refused(
        renamed(f"{__name__}.LetterCounts", {"letters": ""}),
        "LetterCounts",
        "letters must be a non-empty str",
        trusted=[LetterCounts],
    )
    _refused(renamed(f"{__name__}.LetterCounts", {"bogus": 1}), "['bogus']", trusted=[LetterCounts])


def test_trusted_takes_classes_not_names(saved):
    for bad in (["structk.kernels.Spectrum"], [LetterCounts()], "LetterCounts"):
        with pytest.raises(TypeError, match="classes themselves"):
            structk.load(saved, trusted=bad)
    assert structk.load(saved, trusted=LetterCounts) is not None


def test_a_user_kernel_holding_code_is_refused_when_saving(tmp_path):
    svm = KernelSVM(kernel=LetterCounts(weights=lambda c: 1.0))
    with pytest.raises(
        ModelFileError,
        match=r"KernelSVM\.kernel\.weights is the Python "
        "function",
    ):
        structk.save(svm, tmp_path / "code.structk")
    assert not list(tmp_path.iterdir())


def test_save_never_renames_over_a_device_or_a_folder(tmp_path):
    """``save`` writes beside its target and renames: onto /dev/null (as
    root) that would replace the device. Anything but a regular file is
    refused, untouched."""
    import os

    model = KernelSVM().fit(np.eye(4) + 0.1, [0, 0, 1, 1])
    for target in (tmp_path, "/dev/null"):
        before = os.stat(target).st_mode
        with pytest.raises(ModelFileError, match="not a regular file"):
            structk.save(model, target)
        assert os.stat(target).st_mode == before
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
