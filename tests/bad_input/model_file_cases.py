"""Bad-input cases of model files (structk.load): hostile or damaged zips,
members the format does not have, learner state no fit makes, user kernels
without ``trusted=``. Each file is built inside its case's call (from a
tiny fitted SVM), so that ``audit.py`` runs it in one process."""

from __future__ import annotations

import json
import stat
import struct
import warnings
import zipfile

from bad_input_cases import Case

_SEQS = ["AACG", "CGTA", "TTTT", "GATTACA", "ACGTTG", "TTGACC"] * 3
_LABELS = [0, 1, 1, 0, 0, 1] * 3


def _model(tmp, kernel=None):
    """A saved KernelSVM (``kernel`` default ``Spectrum(k=2)``): its path."""
    import structk
    from structk.kernels import Spectrum
    from structk.learners import KernelSVM

    path = tmp / "model-file-case.structk"
    structk.save(KernelSVM(kernel=kernel or Spectrum(k=2)).fit(_SEQS, _LABELS), path)
    return path


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return [(info, zf.read(info)) for info in zf.infolist()]


def _rewrite(tmp, name, edit=None, extra=(), patch=None):
    """Load a tampered copy ``tmp/name`` of the model: its header edited by
    ``edit(root object)``, ``extra`` members appended, and ``patch(bytes,
    members)`` applied to the finished zip."""

    def call(**load_kwargs):
        import structk

        path = _model(tmp)
        out = tmp / name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns about duplicate names
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
                for info, data in _members(path):
                    if info.filename == "model.json" and edit is not None:
                        header = json.loads(data)
                        edit(header["root"]["object"])
                        data = json.dumps(header).encode()
                    zf.writestr(info, data)
                for member, data in extra:
                    zf.writestr(member, data)
        if patch is not None:
            out.write_bytes(patch(bytearray(out.read_bytes()), _members(path)))
        return structk.load(out, **load_kwargs)

    return call


def _central(data, field, fmt, value, which=lambda name: name.endswith(".npy")):
    """Set a field of the central-directory entries of the members ``which``
    picks (offset 8: flags; 24: uncompressed size; 38: external attributes)."""
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, at + 28)
        if which(bytes(data[at + 46 : at + 46 + name_len]).decode()):
            struct.pack_into(
                fmt, data, at + field, value(struct.unpack_from(fmt, data, at + field)[0])
            )
        at = data.find(b"PK\x01\x02", at + 46 + name_len + extra_len + comment_len)
    return bytes(data)


def _swap(body):
    s = body["state"]
    s["dual_coef_"], s["intercept_"] = s["intercept_"], s["dual_coef_"]


def _set(part, name, value):
    return lambda body: body[part].__setitem__(name, value)


def _untrusted_user_kernel(tmp):
    def call():
        import structk
        from structk.kernels import Kernel

        path = _model(tmp, _user_kernel_class(Kernel)())
        return structk.load(path)

    return call


def _user_kernel_class(Kernel):
    class Letters(Kernel):
        has_features = True

        def __init__(self, letters="ACGT"):
            self.letters = letters

        def _prepare(self, X, name):
            import numpy as np

            X = super()._prepare(X, name)
            return np.array([[s.count(c) for c in self.letters] for s in X], float)

        def _features(self, P):
            return P

    return Letters


def _trusted_by_name(tmp):
    def call():
        import structk

        return structk.load(_model(tmp), trusted=["mymodule.MyKernel"])

    return call


def model_file_cases(tmp):
    from structk.exceptions import ModelFileError

    def declared(data, members):  # two arrays declaring 3 GiB each
        return _central(data, 24, "<I", lambda _: 3 * 2**30)

    def longer(data, members):  # the largest array holds 64 bytes more than declared
        largest = max(
            (m for m in members if m[0].filename.endswith(".npy")), key=lambda m: m[0].file_size
        )[0].filename
        return _central(data, 24, "<I", lambda size: size - 64, which=lambda name: name == largest)

    def encrypted(data, members):
        return _central(data, 8, "<H", lambda flags: flags | 0x1)

    def link(data, members):
        return _central(data, 38, "<I", lambda _: (stat.S_IFLNK | 0o777) << 16)

    return [
        Case(
            "model-file-member-escaping-path",
            _rewrite(tmp, "escape.structk", extra=[("../../x", b"x")]),
            ModelFileError,
            ("escape.structk", "'../../x'", "not part of a structk model file"),
        ),
        Case(
            "model-file-1000-junk-members",
            _rewrite(tmp, "junk.structk", extra=[(f"junk{i}", b"") for i in range(1000)]),
            ModelFileError,
            ("junk.structk", "'junk0'", "not part of a structk model file"),
        ),
        Case(
            "model-file-duplicate-member",
            _rewrite(tmp, "twice.structk", extra=[("model.json", b"{}")]),
            ModelFileError,
            ("twice.structk", "'model.json'", "appears twice"),
        ),
        Case(
            "model-file-encrypted-member",
            _rewrite(tmp, "encrypted.structk", patch=encrypted),
            ModelFileError,
            ("encrypted.structk", ".npy'", "encrypted"),
        ),
        Case(
            "model-file-symlink-member",
            _rewrite(tmp, "link.structk", patch=link),
            ModelFileError,
            ("link.structk", ".npy'", "symbolic link"),
        ),
        Case(
            "model-file-declares-gigabytes",
            _rewrite(tmp, "declared.structk", patch=declared),
            ModelFileError,
            ("declared.structk", "GiB", "max_bytes="),
        ),
        Case(
            "model-file-past-max-bytes",
            lambda: _rewrite(tmp, "small.structk")(max_bytes=100),
            ModelFileError,
            ("small.structk", "would inflate to", "max_bytes="),
        ),
        Case(
            "model-file-member-longer-than-declared",
            _rewrite(tmp, "longer.structk", patch=longer),
            ModelFileError,
            ("longer.structk", ".npy", "damaged"),
        ),
        Case(
            "model-file-unused-array",
            _rewrite(tmp, "unused.structk", extra=[("arrays/999.npy", b"\x93NUMPY")]),
            ModelFileError,
            ("unused.structk", "arrays/999.npy is not used"),
        ),
        Case(
            "model-file-string-C",
            _rewrite(tmp, "stringC.structk", _set("params", "C", "1.0")),
            ModelFileError,
            ("stringC.structk", "KernelSVM.C", "'1.0'"),
        ),
        Case(
            "model-file-nan-C",
            _rewrite(tmp, "nanC.structk", _set("params", "C", {"float": "nan"})),
            ModelFileError,
            ("nanC.structk", "KernelSVM.C", "finite"),
        ),
        Case(
            "model-file-swapped-dual-coef-intercept",
            _rewrite(tmp, "swapped.structk", _swap),
            ModelFileError,
            ("swapped.structk", "KernelSVM.dual_coef_", "shape"),
        ),
        Case(
            "model-file-unknown-attribute",
            _rewrite(tmp, "unknown.structk", _set("state", "backdoor_", 1)),
            ModelFileError,
            ("unknown.structk", "KernelSVM.backdoor_", "not an attribute"),
        ),
        Case(
            "model-file-nan-rkhs-norm",
            _rewrite(tmp, "nan.structk", _set("state", "rkhs_norm_", {"float": "nan"})),
            ModelFileError,
            ("nan.structk", "KernelSVM.rkhs_norm_"),
        ),
        Case(
            "model-file-user-kernel-not-trusted",
            _untrusted_user_kernel(tmp),
            ModelFileError,
            ("Letters", "refused class", "trusted=["),
        ),
        Case(
            "model-file-trusted-by-name",
            _trusted_by_name(tmp),
            TypeError,
            ("trusted=", "classes themselves", "mymodule.MyKernel"),
        ),
    ]
