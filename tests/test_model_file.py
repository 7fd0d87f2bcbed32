"""Model files (structk.save / structk.load): exact round trips, and files
that are not what they claim refused without running anything.

The kernels come from ``bad_input_cases.KERNELS`` (every public kernel
class), the learners from ``structk.learners.__all__``: a kernel or learner
added later is covered by these tests without editing them.
"""

import inspect
import io
import json
import pickle
import re
import sys
import warnings
import zipfile

import numpy as np
import pytest
from bad_input_cases import _GOOD, KERNELS

import structk
import structk.learners
from structk.exceptions import ModelFileError
from structk.model_file import FORMAT_VERSION

_CODE_KERNELS = {"FunctionKernel", "FunctionScaled"}  # hold Python functions
_SUPERVISED = {
    "KernelPerceptron",
    "KernelSVM",
    "KernelLogisticRegression",
    "NearestClassMean",
    "KernelRidge",
    "KernelRidgeCV",
    "GaussianProcessRegressor",
    "GaussianProcessClassifier",
    "SparseGaussianProcessRegressor",
}
_METHODS = ("predict", "decision_function", "predict_proba", "transform")


def _data(family):
    X = _GOOD[family]()
    if isinstance(X, np.ndarray):
        return np.vstack([X, X + 1.0]), [0, 1, 0, 1, 1, 0]
    return list(X) * 2, [0, 1, 0, 1, 1, 0]


def _outputs(est, X):
    out = {}
    for method in _METHODS:
        if method == "predict_proba" and not getattr(est, "probability", True):
            continue
        if hasattr(est, method):
            out[method] = getattr(est, method)(X)
    assert out, f"{type(est).__name__} has none of {_METHODS}"
    return out


def _fit(name, kernel, X, y):
    cls = getattr(structk.learners, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "kernel_x" in inspect.signature(cls).parameters:  # two views
            return cls(kernel_x=kernel, kernel_y=kernel).fit(X, X)
        est = cls(kernel=kernel)
        if name == "SparseGaussianProcessRegressor":  # landmarks among 6 objects
            est.set_params(n_components=3, random_state=0)
        return est.fit(X, y) if name in _SUPERVISED else est.fit(X)


def _round_trip(est, X, path):
    expected = _outputs(est, X)
    structk.save(est, path)
    again = structk.load(path)
    assert type(again) is type(est)
    assert repr(again) == repr(est)
    got = _outputs(again, X)
    assert got.keys() == expected.keys()
    for method in expected:
        np.testing.assert_array_equal(got[method], expected[method], err_msg=method)
    return again


@pytest.mark.parametrize("kernel", sorted(set(KERNELS) - _CODE_KERNELS))
def test_every_kernel_round_trips_in_an_svm(kernel, tmp_path):
    make, family = KERNELS[kernel]
    X, y = _data(family)
    est = _fit("KernelSVM", make(), X, y)
    again = _round_trip(est, X, tmp_path / "m.structk")
    # and on objects it never saw: the first training object changed
    if family in ("strings", "aligned", "any"):
        _outputs(again, ["ACGA", "TTTT"])


_REPRESENTATIVE = {
    "vectors": lambda: structk.Normalize(structk.Polynomial(degree=2)) + structk.Gaussian(),
    "strings": lambda: structk.kernels.Normalize(structk.kernels.Mismatch(k=3, m=1)),
    "sets": lambda: structk.kernels.Jaccard(),
    "graphs": lambda: structk.kernels.RandomWalk(lam="auto"),
    "fisher": KERNELS["FisherKernel"][0],
}


@pytest.mark.parametrize("learner", sorted(structk.learners.__all__))
@pytest.mark.parametrize("family", sorted(_REPRESENTATIVE))
def test_every_learner_round_trips(learner, family, tmp_path):
    X, y = _data("strings" if family == "fisher" else family)
    est = _fit(learner, _REPRESENTATIVE[family](), X, y)
    _round_trip(est, X, tmp_path / "m.structk")


_PAST_THE_GRAM = sorted(
    n
    for n in structk.learners.__all__
    if "solver" in inspect.signature(getattr(structk.learners, n)).parameters
)


@pytest.mark.parametrize("learner", _PAST_THE_GRAM)
@pytest.mark.parametrize(
    "solver, family", [("primal", "strings"), ("nystroem", "strings"), ("nystroem", "graphs")]
)
def test_primal_and_nystroem_models_round_trip(learner, solver, family, tmp_path):
    """The feature map is stored with its landmark objects (their prepared
    form is rebuilt); a Dask client is not part of the model."""
    X, y = _data(family)
    X = X * 4
    y = y * 4
    kernel = (
        structk.kernels.Normalize(structk.kernels.Spectrum(k=2))
        if family == "strings"
        else structk.kernels.WeisfeilerLehman(h=2)
    )
    est = _fit(learner, kernel, X, y)
    est.set_params(solver=solver, n_components=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    assert est.solver_ == solver
    _round_trip(est, X, tmp_path / "m.structk")
    est.client = est.feature_map_.client = object()  # a connection: stored as None
    structk.save(est, tmp_path / "c.structk")
    again = structk.load(tmp_path / "c.structk")
    assert again.client is None and again.feature_map_.client is None


def test_fitted_kernel_state_is_stored_not_refitted(tmp_path):
    """RandomWalk(lam="auto") and FisherKernel keep what they learned; the
    loaded kernel does not refit on the prediction objects."""
    X, y = _data("graphs")
    est = _fit("KernelRidge", structk.kernels.RandomWalk(lam="auto"), X, y)
    structk.save(est, tmp_path / "rw.structk")
    again = structk.load(tmp_path / "rw.structk")
    assert again.kernel_.lam_ == est.kernel_.lam_
    fisher = KERNELS["FisherKernel"][0]()
    structk.save(fisher, tmp_path / "f.structk")
    loaded = structk.load(tmp_path / "f.structk")
    for name in ("information_", "params_"):
        a, b = getattr(loaded, name), getattr(fisher, name)
        for u, v in zip(a if isinstance(a, tuple) else [a], b if isinstance(b, tuple) else [b]):
            np.testing.assert_array_equal(u, v)
    S = ["ACGTTT", "GGA"]
    np.testing.assert_array_equal(loaded(S), fisher(S))


def test_values_keep_their_types(tmp_path):
    """What the encoder meets in fitted state comes back as the same type
    and value (NumPy scalars stay NumPy scalars, tuples stay tuples...)."""
    import networkx as nx

    G = nx.DiGraph()
    G.add_edge("b", "a", label=2)
    G.add_node("c", attributes=np.array([0.5, -1.0]))
    values = {
        "f64": np.float64(0.1),
        "i32": np.int32(-3),
        "b": np.bool_(True),
        "u": np.str_("x"),
        "nan": float("nan"),
        "inf": np.float64("-inf"),
        "tuple": (1, "a", None),
        "set": {1, 2},
        "frozen": frozenset({"x"}),
        "dict": {1: "one", ("k", 2): [3.5]},
        "big": 2**80,
        "ustr": np.array(["ab", "c"]),
        "obj": np.array([1, "a"], dtype=object),
        "empty": np.zeros((0, 3)),
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "graph": G,
    }
    k = structk.kernels.Spectrum(k=2)
    k.extra_ = values
    structk.save(k, tmp_path / "v.structk")
    got = structk.load(tmp_path / "v.structk").extra_
    for key, value in values.items():
        assert type(got[key]) is type(value), key
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(got[key], value)
            assert got[key].dtype == value.dtype
        elif key in ("nan", "inf"):
            assert np.isnan(got[key]) if key == "nan" else got[key] == value
        elif key != "graph":
            assert got[key] == value, key
    H = got["graph"]
    assert list(H.nodes) == list(G.nodes) and list(H.edges(data="label")) == [("b", "a", 2)]
    np.testing.assert_array_equal(H.nodes["c"]["attributes"], [0.5, -1.0])


def test_precomputed_hmm_nystroem_and_bare_kernels_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    K = structk.Gaussian()(X)
    svm = structk.KernelSVM(kernel="precomputed", probability=True).fit(K, y)
    _round_trip(svm, K, tmp_path / "p.structk")
    assert structk.load_metadata(tmp_path / "p.structk")["objects"] == "gram"
    seqs = ["ACGTAC", "TTGACA", "GGGTCA", "ACCATG"] * 3
    hmm = structk.DiscreteHMM(n_states=2, random_state=0).fit(seqs)
    structk.save(hmm, tmp_path / "h.structk")
    np.testing.assert_array_equal(structk.load(tmp_path / "h.structk").score(seqs), hmm.score(seqs))
    ny = structk.Nystroem(structk.kernels.Spectrum(k=2), n_components=5).fit(seqs)
    _round_trip(ny, seqs, tmp_path / "n.structk")
    k = structk.kernels.Normalize(structk.kernels.WeightedDegree(d=3))
    structk.save(k, tmp_path / "k.structk")
    np.testing.assert_array_equal(structk.load(tmp_path / "k.structk")(seqs), k(seqs))


def test_header_records_versions_kind_and_metadata(tmp_path):
    X, y = _data("graphs")
    est = _fit("KernelSVM", structk.kernels.WeisfeilerLehman(h=2), X, y)
    structk.save(est, tmp_path / "m.structk", metadata={"input": {"format": "tu"}})
    info = structk.load_metadata(tmp_path / "m.structk")
    assert info["structk_version"] == structk.__version__
    assert info["format_version"] == FORMAT_VERSION
    assert info["estimator"] == "KernelSVM" and info["objects"] == "graphs"
    assert info["metadata"] == {"input": {"format": "tu"}}
    with zipfile.ZipFile(tmp_path / "m.structk") as zf:
        names = zf.namelist()
    assert "model.json" in names and all(n == "model.json" or n.endswith(".npy") for n in names)


def test_code_is_refused_when_saving(tmp_path):
    X, y = _data("vectors")
    for kernel in ("FunctionKernel", "FunctionScaled"):
        est = _fit("KernelSVM", KERNELS[kernel][0](), X, y)
        with pytest.raises(ModelFileError, match="KernelSVM.kernel"):
            structk.save(est, tmp_path / "m.structk")
    assert not (tmp_path / "m.structk").exists()
    assert not list(tmp_path.iterdir()), "a partial file was left behind"
    with pytest.raises(FileNotFoundError, match="no_such_folder"):
        structk.save(
            _fit("KernelSVM", structk.Gaussian(), X, y), tmp_path / "no_such_folder" / "m.structk"
        )
    with pytest.raises(ModelFileError, match="not a dict"):
        structk.save({"a": 1}, tmp_path / "m.structk")


# ---------------------------------------------------------------- refusals
@pytest.fixture
def saved(tmp_path):
    X, y = _data("strings")
    est = _fit("KernelSVM", structk.kernels.Spectrum(k=2), X, y)
    path = tmp_path / "m.structk"
    structk.save(est, path)
    return path


def _rewrite(path, edit_header=None, members=None):
    """Write a copy of the model file with its JSON header edited."""
    with zipfile.ZipFile(path) as zf:
        content = {n: zf.read(n) for n in zf.namelist()}
    header = json.loads(content["model.json"])
    if edit_header is not None:
        edit_header(header)
    content["model.json"] = json.dumps(header).encode()
    content.update(members or {})
    out = path.with_name("tampered.structk")
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in content.items():
            zf.writestr(name, data)
    return out


def _set_class(header, name):
    header["root"]["object"]["class"] = name


def test_unknown_class_is_refused_and_never_imported(saved, tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    (tmp_path / "structk_probe_module.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Evil:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in (
        "structk_probe_module.Evil",
        "os.system",
        "builtins.eval",
        "sklearn.svm._classes.SVC",
        "structk.kernels.function.FunctionKernel",
    ):
        bad = _rewrite(saved, lambda h: _set_class(h, name))
        with pytest.raises(ModelFileError, match=r"tampered\.structk.*refused class"):
            structk.load(bad)
    assert not marker.exists()
    assert "structk_probe_module" not in sys.modules


def test_tampered_values_are_refused(saved):
    def unknown_tag(h):
        h["root"]["object"]["state"]["classes_"] = {"pickle": "gASV..."}

    def bad_param(h):
        h["root"]["object"]["params"]["kernel"]["object"]["params"]["k"] = -3

    def lost_param(h):
        h["root"]["object"]["params"]["kernel"]["object"]["params"]["bogus"] = 1

    def missing_array(h):
        h["root"]["object"]["state"]["dual_coef_"] = {"array": "arrays/99.npy"}

    def escaping_array(h):
        h["root"]["object"]["state"]["dual_coef_"] = {"array": "../../etc/passwd"}

    cases = [
        (unknown_tag, "unknown tag 'pickle'"),
        (bad_param, "Spectrum is not valid"),
        (
            lost_param,
            f"Spectrum was saved (by structk {structk.__version__}) with the parameter(s) ['bogus']",
        ),
        (missing_array, "arrays/99.npy"),
        (escaping_array, "passwd"),
    ]
    for edit, words in cases:
        with pytest.raises(ModelFileError, match=re.escape(words)) as info:
            structk.load(_rewrite(saved, edit))
        assert "tampered.structk" in str(info.value)


def test_malformed_values_are_refused(saved):
    def huge_scalar(h):
        h["root"]["object"]["state"]["n_train_"] = {"scalar": ["<i8", 10**30]}

    def unhashable(h):
        h["root"]["object"]["state"]["x"] = {"set": [{"list": [1]}]}

    def not_an_estimator(h):
        h["root"] = {"list": [1, 2]}

    for edit, words in [
        (huge_scalar, "not a valid model"),
        (unhashable, "not a valid model"),
        (not_an_estimator, "not a structk estimator"),
    ]:
        with pytest.raises(ModelFileError, match=words) as info:
            structk.load(_rewrite(saved, edit))
        assert "tampered.structk" in str(info.value)


def test_array_header_claiming_more_than_the_member_is_refused(saved):
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": (10**13,)}
    )
    raw = buffer.getvalue() + np.zeros(4).tobytes()  # 10^13 claimed, 4 held

    def point(h):
        h["root"]["object"]["state"]["dual_coef_"] = {"array": "arrays/7.npy"}

    with pytest.raises(ModelFileError, match=r"arrays/7\.npy is not a valid array.*claims"):
        structk.load(_rewrite(saved, point, {"arrays/7.npy": raw}))


def test_object_array_member_is_refused_not_unpickled(saved):
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)

    def point(h):
        h["root"]["object"]["state"]["dual_coef_"] = {"array": "arrays/7.npy"}

    bad = _rewrite(saved, point, {"arrays/7.npy": buffer.getvalue()})
    with pytest.raises(ModelFileError, match=r"arrays/7\.npy is not a valid array"):
        structk.load(bad)


def test_a_model_from_before_a_parameter_was_added_loads_with_its_default(saved):
    """A learner gains a parameter (with a default) after the file was written:
    the model loads as if it had been left at its default."""

    def older(h):
        del h["root"]["object"]["params"]["solver"]
        del h["root"]["object"]["params"]["probability"]

    again = structk.load(_rewrite(saved, older))
    original = structk.load(saved)
    assert again.solver == "auto" and again.probability is False
    X, _ = _data("strings")
    np.testing.assert_array_equal(again.decision_function(X), original.decision_function(X))


def test_format_versions(saved):
    def newer(h):
        h["format_version"] = FORMAT_VERSION + 1

    with pytest.raises(ModelFileError, match=f"format {FORMAT_VERSION + 1}.*upgrade structk"):
        structk.load(_rewrite(saved, newer))

    def older(h):
        h["format_version"] = 0

    with pytest.raises(ModelFileError, match="format_version 0"):
        structk.load(_rewrite(saved, older))

    def foreign(h):
        h["format"] = "something-else"

    with pytest.raises(ModelFileError, match="not a structk model file"):
        structk.load(_rewrite(saved, foreign))


def test_damaged_files_are_refused_naming_them(saved, tmp_path):
    data = saved.read_bytes()
    truncated = tmp_path / "truncated.structk"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match=r"truncated\.structk.*(damaged|truncated)"):
        structk.load(truncated)
    # one flipped byte inside model.json's compressed data: a CRC or zlib error
    with zipfile.ZipFile(saved) as zf:
        info = zf.getinfo("model.json")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    flipped = bytearray(data)
    flipped[start + info.compress_size // 2] ^= 0xFF
    corrupt = tmp_path / "corrupt.structk"
    corrupt.write_bytes(bytes(flipped))
    with pytest.raises(ModelFileError, match=r"corrupt\.structk"):
        structk.load(corrupt)
    noise = tmp_path / "noise.structk"
    noise.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(ModelFileError, match=r"noise\.structk: not a structk model file"):
        structk.load(noise)
    other_zip = tmp_path / "other.zip"
    with zipfile.ZipFile(other_zip, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(ModelFileError, match=r"other\.zip: not a structk model file"):
        structk.load(other_zip)
    with pytest.raises(FileNotFoundError, match="gone.structk"):
        structk.load(tmp_path / "gone.structk")


class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_pickle_is_refused_unopened(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(_Payload(str(marker))))
    with pytest.raises(ModelFileError, match=r"model\.pkl.*pickle"):
        structk.load(path)
    assert not marker.exists()


@pytest.mark.parametrize("normalize_y", [False, True])
def test_gaussian_process_with_a_learned_noise_round_trips(tmp_path, normalize_y):
    """The noise's hyperparameter is derived from ``noise`` and
    ``noise_bounds``, not stored: a GP that learned its noise saves, and the
    loaded model predicts and evaluates its marginal likelihood as before
    (also with normalised targets, whose mean is stored as an array)."""
    X, y = _data("vectors")
    y = np.asarray([float(v == y[0]) for v in y]) + np.linspace(0, 1, len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an optimum at a bound on this tiny set
        gp = structk.learners.GaussianProcessRegressor(
            1.0 * structk.Gaussian(sigma=1.0), noise=0.1, normalize_y=normalize_y
        ).fit(X, y)
    again = _round_trip(gp, X, tmp_path / "gp.structk")
    theta = np.append(gp.kernel_.theta, np.log(gp.noise_)) + 0.1
    value, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    value2, grad2 = again.log_marginal_likelihood(theta, eval_gradient=True)
    assert value2 == value
    np.testing.assert_array_equal(grad2, grad)
    np.testing.assert_array_equal(
        again.predict(X, return_std=True)[1], gp.predict(X, return_std=True)[1]
    )
