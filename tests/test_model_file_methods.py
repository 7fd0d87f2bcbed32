"""Model files holding a kernel's similarity method (issue 38): the recipe
``SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True)`` is
saved as data (the LocalAlignment's parameters and the method's name) and
loaded without running anything from the file; other methods and classes
are refused."""

import json
import re
import zipfile

import numpy as np
import pytest

import structk
from structk.exceptions import ModelFileError
from structk.kernels import EmpiricalKernelMap, LocalAlignment, Spectrum, SpectrumRepair
from structk.learners import KernelRidge, KernelSVM
from test_model_file import _rewrite

X = ["ACDEFGHIKL", "ACDEFGHIRL", "LMNPQRSTVW", "LMNPQRSTWW", "ACDEFGAAKL", "LMNPQQSTVW"] * 2
Y = [0, 0, 1, 1, 0, 1] * 2
NEW = ["ACDEFGHIKW", "LMNPQRSTVA", "QQQQWWWEER"]


def _saved(est, path):
    structk.save(est, path)
    return path


@pytest.mark.parametrize(
    "make",
    [
        lambda: KernelSVM(
            kernel=SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True), C=1
        ),
        lambda: KernelRidge(kernel=EmpiricalKernelMap(LocalAlignment(beta=0.2).log_kernel, X[:4])),
    ],
)
def test_a_log_kernel_recipe_round_trips(make, tmp_path):
    est = make().fit(X, Y)
    again = structk.load(_saved(est, tmp_path / "m.structk"))
    assert repr(again) == repr(est)
    sim = again.kernel.similarity
    assert sim.__func__ is LocalAlignment.log_kernel
    assert type(sim.__self__) is LocalAlignment
    assert sim.__self__.get_params() == est.kernel.similarity.__self__.get_params()
    np.testing.assert_array_equal(again.predict(NEW), est.predict(NEW))
    if hasattr(est, "decision_function"):
        np.testing.assert_array_equal(again.decision_function(NEW), est.decision_function(NEW))
    # the similarity is stored as a tagged value: the kernel and the method's name
    with zipfile.ZipFile(tmp_path / "m.structk") as zf:
        text = zf.read("model.json").decode()
    assert re.search(r'"method":\s*\[\{"object":.*?"log_kernel"\]', text)


def test_the_command_line_recipe_fits_and_predicts(tmp_path, capsys):
    from structk import cli

    fa = tmp_path / "p.fa"
    fa.write_text("".join(f">p{i} c={c}\n{s}\n" for i, (s, c) in enumerate(zip(X, Y))))
    kernel = "SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True)"
    model = tmp_path / "la.structk"
    code = cli.main(
        [
            "fit",
            str(fa),
            "--label-pattern",
            r"c=(\S+)",
            "--kernel",
            kernel,
            "--learner",
            "KernelSVM(C=1)",
            "-o",
            str(model),
            "--quiet",
        ]
    )
    assert code == 0
    capsys.readouterr()
    assert cli.main(["predict", str(model), str(fa), "--format", "json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    ref = KernelSVM(
        kernel=SpectrumRepair(LocalAlignment(beta=0.5).log_kernel, normalize=True), C=1
    ).fit(X, [str(v) for v in Y])
    np.testing.assert_allclose([r["score"] for r in rows], ref.decision_function(X), atol=1e-10)


def _edit_method(path, edit):
    """A copy of the model file with the stored similarity edited."""

    def on_header(header):
        edit(header["root"]["object"]["params"]["kernel"]["object"]["params"]["similarity"])

    return _rewrite(path, on_header)


def test_tampered_methods_are_refused(tmp_path, monkeypatch):
    est = KernelSVM(kernel=SpectrumRepair(LocalAlignment(beta=0.5).log_kernel), C=1).fit(X, Y)
    path = _saved(est, tmp_path / "m.structk")
    called = []
    monkeypatch.setattr(LocalAlignment, "__call__", lambda *a, **k: called.append(a))

    def name(value):
        def edit(sim):
            sim["method"][1] = value

        return edit

    def owner(sim):  # a Spectrum in place of the LocalAlignment
        sim["method"][0]["object"]["class"] = "structk.kernels.strings.Spectrum"
        sim["method"][0]["object"]["params"] = Spectrum(k=2).get_params(deep=False)

    def shape(sim):
        sim["method"] = ["log_kernel"]

    for edit, words in [
        (name("__init__"), "refused method LocalAlignment.'__init__'"),
        (name("_gram"), "refused method LocalAlignment.'_gram'"),
        (name("__class__"), "only LocalAlignment(...).log_kernel"),
        (owner, "refused method Spectrum.'log_kernel'"),
        (shape, "bad method"),
    ]:
        with pytest.raises(ModelFileError, match=re.escape(words)) as info:
            structk.load(_edit_method(path, edit))
        assert "tampered.structk" in str(info.value)
    assert called == []


def test_other_bound_methods_are_still_refused_when_saving(tmp_path):
    class MyAlignment(LocalAlignment):  # a subclass: not structk's class
        pass

    for similarity in (
        MyAlignment(beta=0.5).log_kernel,
        Spectrum(k=2, alphabet="protein").__call__,
    ):
        est = KernelSVM(kernel=SpectrumRepair(similarity), C=1).fit(X, Y)
        with pytest.raises(ModelFileError, match="KernelSVM.kernel.similarity"):
            structk.save(est, tmp_path / "m.structk")
    assert not (tmp_path / "m.structk").exists()
