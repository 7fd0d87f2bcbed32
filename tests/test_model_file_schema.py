"""The learners' schemas (structk._model_schema): every fitted learner holds
exactly its declared attributes, and a model file whose parameters or
fitted state no fit could have produced is refused naming the attribute.

The configurations fit every learner of ``structk.learners.__all__`` in
every layout its ``fit`` has (the dual solver, the primal and Nyström
paths, a precomputed Gram, vectors, two and three classes, several
outputs); the corruption loop then edits each stored attribute in turn.
"""

import inspect
import io
import json
import warnings
import zipfile

import numpy as np
import pytest

import structk
import structk.learners
from structk import _model_schema
from structk.exceptions import ModelFileError
from structk.kernels import Gaussian, Normalize, Spectrum

_SEQS = ["ACGTAC", "TTGACA", "GGGTCA", "ACCATG", "ACGTTT", "TTTTGA"] * 4
_TWO = [0, 1, 0, 1, 1, 0] * 4
_THREE = ["a", "b", "c", "a", "b", "c"] * 4
_VECTORS = np.random.default_rng(0).normal(size=(24, 3))
_TARGETS = np.linspace(-1.0, 1.0, 24)


def _configs():
    """``(id, estimator, X, y)`` of every learner in every layout."""
    L = structk.learners
    out = []
    for name in L.__all__:
        cls = getattr(L, name)
        params = inspect.signature(cls).parameters
        if "kernel_x" in params:
            out.append((name, cls(kernel_x=Spectrum(k=2), kernel_y=Spectrum(k=1)), _SEQS, _SEQS))
            continue
        if name == "SparseGaussianProcessRegressor":  # no precomputed Gram
            kw = dict(n_components=5, random_state=0)
            out += [
                (f"{name}-one", cls(kernel=Normalize(Spectrum(k=2)), **kw), _SEQS, _TARGETS),
                (
                    f"{name}-two",
                    cls(kernel=Normalize(Spectrum(k=2)), normalize_y=True, **kw),
                    _SEQS,
                    np.c_[_TARGETS, _TARGETS**2],
                ),
                (f"{name}-vectors", cls(kernel=Gaussian(), **kw), _VECTORS, _TARGETS),
            ]
            continue
        if name.startswith("GaussianProcess"):  # duplicates in _SEQS: some noise
            regression = name.endswith("Regressor")
            extra = {"alpha": 0.1} if regression else {}
            for tag, y in (
                [("one", _TARGETS), ("two", np.c_[_TARGETS, _TARGETS**2])]
                if regression
                else [("two", _TWO), ("three", _THREE)]
            ):
                out.append(
                    (f"{name}-{tag}", cls(kernel=Normalize(Spectrum(k=2)), **extra), _SEQS, y)
                )
            out.append(
                (
                    f"{name}-vectors",
                    cls(kernel=Gaussian(), **extra),
                    _VECTORS,
                    _TARGETS if regression else _TWO,
                )
            )
            continue
        if name in ("KernelRidge", "KernelRidgeCV"):
            ys = [("one", _TARGETS), ("two", np.c_[_TARGETS, _TARGETS**2])]
        elif name in ("KernelPCA", "KernelCenterer"):
            ys = [("", None)]
        else:
            ys = [("two", _TWO), ("three", _THREE)]
        for tag, y in ys:
            out.append((f"{name}-{tag}", cls(kernel=Normalize(Spectrum(k=2))), _SEQS, y))
            if "solver" in params:
                for solver in ("primal", "nystroem"):
                    out.append(
                        (
                            f"{name}-{tag}-{solver}",
                            cls(
                                kernel=Normalize(Spectrum(k=2)),
                                solver=solver,
                                n_components=5,
                                random_state=0,
                            ),
                            _SEQS,
                            y,
                        )
                    )
        y = ys[0][1]
        out.append((f"{name}-vectors", cls(kernel=Gaussian()), _VECTORS, y))
        out.append((f"{name}-precomputed", cls(kernel="precomputed"), Gaussian()(_VECTORS), y))
    out.append(
        (
            "KernelSVM-probability",
            L.KernelSVM(kernel=Spectrum(k=2), probability=True, random_state=0),
            _SEQS,
            _THREE,
        )
    )
    out.append(
        ("KernelSVM-ovr", L.KernelSVM(kernel=Spectrum(k=2), multi_class="ovr"), _SEQS, _THREE)
    )
    out.append(
        (
            "KernelSVM-ovr-primal",
            L.KernelSVM(kernel=Spectrum(k=2), multi_class="ovr", solver="primal"),
            _SEQS,
            _THREE,
        )
    )
    out.append(
        ("Nystroem", structk.Nystroem(Spectrum(k=2), n_components=5, random_state=0), _SEQS, None)
    )
    out.append(
        (
            "Nystroem-vectors",
            structk.Nystroem(Gaussian(), n_components=5, rcond=0.1),
            _VECTORS,
            None,
        )
    )
    out.append(("DiscreteHMM", structk.DiscreteHMM(n_states=2, random_state=0), _SEQS, None))
    out.append(
        (
            "DiscreteHMM-from-params",
            structk.DiscreteHMM.from_params(
                [0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.4, 0.1, 0.1, 0.4], [0.1, 0.4, 0.4, 0.1]]
            ),
            None,
            None,
        )
    )
    return out


_CONFIGS = _configs()


def _fit(est, X, y):
    if X is None:  # made fitted (DiscreteHMM.from_params)
        return est
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X) if y is None else est.fit(X, y)


@pytest.fixture(scope="module")
def fitted():
    return {cid: _fit(est, X, y) for cid, est, X, y in _CONFIGS}


def test_every_learner_is_declared():
    for cls in [getattr(structk.learners, n) for n in structk.learners.__all__] + [
        structk.Nystroem,
        structk.DiscreteHMM,
    ]:
        name = cls.__name__
        schema = _model_schema.schema_of(cls.__new__(cls))
        assert schema is not None, name
        # every constructor parameter has its rule
        assert set(schema["params"]) == set(inspect.signature(cls).parameters), name


@pytest.mark.parametrize("cid", [c[0] for c in _CONFIGS])
def test_fit_sets_exactly_the_declared_attributes(cid, fitted, tmp_path):
    """The schema accepts what ``fit`` made (so it declares every attribute
    fit sets, with the right shapes), and the saved model loads through it."""
    est = fitted[cid]
    _model_schema.check(est, type(est).__name__)
    structk.save(est, tmp_path / "m.structk")
    again = structk.load(tmp_path / "m.structk")

    # prepared-data caches (private names holding "prepared") are rebuilt, not stored
    def stored(obj):
        return sorted(k for k in vars(obj) if not (k.startswith("_") and "prepared" in k))

    assert stored(again) == stored(est)


def test_an_unfitted_learner_is_checked_on_its_parameters(tmp_path):
    svm = structk.learners.KernelSVM(kernel=Spectrum(k=2), C="1")
    structk.save(svm, tmp_path / "u.structk")
    with pytest.raises(ModelFileError, match=r"KernelSVM\.C must be a real number, got '1'"):
        structk.load(tmp_path / "u.structk")


# ------------------------------------------------------------ corruption
def _nested_schema(node):
    """Whether a JSON object node is a class with a schema (checked with
    its holder: a feature map, a centerer)."""
    return (
        isinstance(node, dict)
        and "object" in node
        and node["object"]["class"].rsplit(".", 1)[-1] in _model_schema._BUILDERS
    )


def _entries(body, prefix=""):
    """``(path in the JSON, attribute name, node)`` of every parameter and
    state entry of an object, and of the schema'd objects it holds."""
    for part in ("params", "state"):
        for name, node in body[part].items():
            yield (part, name), name, node
            if _nested_schema(node):
                for path, inner, sub in _entries(node["object"]):
                    yield ((part, name, "object") + path), inner, sub


def _refs(node, out):
    if isinstance(node, dict):
        if set(node) == {"ref"}:
            out.add(node["ref"])
        for v in node.values():
            _refs(v, out)
    elif isinstance(node, list):
        for v in node:
            _refs(v, out)
    return out


def _arrays(node, out):
    if isinstance(node, dict):
        if set(node) == {"array"}:
            out.append(node["array"])
        for v in node.values():
            _arrays(v, out)
    elif isinstance(node, list):
        for v in node:
            _arrays(v, out)
    return out


def _npy(a):
    buffer = io.BytesIO()
    np.save(buffer, a, allow_pickle=False)
    return buffer.getvalue()


def _corruptions(node, content, shared, free_length=False):
    """``(label, new node, members to write)``: values no fit makes for any
    attribute (a string, NaN), and for a numeric array one NaN, one entry
    too many along the first axis, one axis too many (written to a new
    member when another attribute shares the array, as ``probA_`` and
    ``probB_`` of a model without probabilities do)."""
    out = [("a string", "x"), ("nan", {"float": "nan"})]
    out = [(label, new, {}) for label, new in out]
    if isinstance(node, dict) and set(node) == {"array"}:
        a = np.load(io.BytesIO(content[node["array"]]), allow_pickle=False)
        member = node["array"]
        if member in shared:
            member = f"arrays/{len(content) + 1}.npy"
            node = {"array": member}
        if a.size and a.dtype.kind in "biuf":
            nan = a.astype(np.float64)
            nan.flat[0] = np.nan
            out.append(("a NaN entry", node, {member: _npy(nan)}))
        if a.ndim and a.shape[0] and not free_length:
            out.append(("one entry more", node, {member: _npy(np.concatenate([a, a[-1:]]))}))
        out.append(("one axis more", node, {member: _npy(a[None])}))
    if isinstance(node, dict) and set(node) == {"list"} and node["list"]:
        out.append(("one object fewer", {"list": node["list"][:-1]}, {}))
    return out


def _write(path, header, content, out):
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("model.json", json.dumps(header))
        used = set(_arrays(header, []))
        for name, data in content.items():
            if name != "model.json" and name in used:
                zf.writestr(name, data)
    return out


def _set(body, path, value):
    for key in path[:-1]:
        body = body[key]
    body[path[-1]] = value


#: every layout of every learner, once (the three-class and several-output
#: variants past the Gram add no attribute)
_CORRUPTED = [
    c[0]
    for c in _CONFIGS
    if not c[0].endswith(("three-primal", "three-nystroem", "two-primal", "two-nystroem"))
    or c[0].startswith("KernelRidge")
]


@pytest.mark.parametrize("cid", _CORRUPTED)
def test_every_corrupted_attribute_is_refused_naming_it(cid, fitted, tmp_path):
    est = fitted[cid]
    path = tmp_path / "m.structk"
    structk.save(est, path)
    with zipfile.ZipFile(path) as zf:
        content = {n: zf.read(n) for n in zf.namelist()}
    header = json.loads(content["model.json"])
    root = header["root"]["object"]
    referenced = _refs(header["root"], set())
    members = _arrays(header, [])
    shared = {m for m in members if members.count(m) > 1}
    tried = 0
    for where, name, node in list(_entries(root)):
        if isinstance(node, dict) and "object" in node and node["object"]["id"] in referenced:
            continue  # another attribute refers to it: its own failure comes first
        # an HMM's history_ is bounded by n_iter_, not tied to it: one entry
        # more can be valid
        free = name == "history_"
        for label, new, written in _corruptions(node, content, shared, free):
            edited = json.loads(json.dumps(header))
            _set(edited["root"]["object"], where, new)
            files = {**content, **written}
            bad = _write(path, edited, files, tmp_path / "bad.structk")
            with pytest.raises(ModelFileError, match=r"bad\.structk") as info:
                structk.load(bad)
            assert f".{name}" in str(info.value) or f"{name} " in str(info.value), (
                f"{cid}: {name} set to {label}: {info.value}"
            )
            tried += 1
        # deletable: feature_names_in_ (DataFrames only), n_fit_symbols_ (an HMM
        # without it is one DiscreteHMM.from_params makes)
        if (
            where[0] == "state"
            and len(where) == 2
            and name not in ("feature_names_in_", "n_fit_symbols_")
        ):
            edited = json.loads(json.dumps(header))
            del edited["root"]["object"]["state"][name]
            bad = _write(path, edited, content, tmp_path / "bad.structk")
            with pytest.raises(ModelFileError, match=rf"\.{name} is missing"):
                structk.load(bad)
    assert tried > 10
    edited = json.loads(json.dumps(header))
    edited["root"]["object"]["state"]["bogus_"] = 1
    with pytest.raises(ModelFileError, match=rf"{type(est).__name__}\.bogus_ is not an"):
        structk.load(_write(path, edited, content, tmp_path / "bad.structk"))


def test_swapped_and_disagreeing_arrays_are_refused(fitted, tmp_path):
    """The issue's cases: dual_coef_ and intercept_ swapped; a classes_ count
    that does not match the machines; C a string, C = nan."""
    est = fitted["KernelSVM-three"]
    path = tmp_path / "m.structk"
    structk.save(est, path)
    with zipfile.ZipFile(path) as zf:
        content = {n: zf.read(n) for n in zf.namelist()}
    header = json.loads(content["model.json"])
    state = header["root"]["object"]["state"]
    params = header["root"]["object"]["params"]

    def load_with(edit, members=None):
        edited = json.loads(json.dumps(header))
        edit(edited["root"]["object"])
        return structk.load(
            _write(path, edited, {**content, **(members or {})}, tmp_path / "bad.structk")
        )

    def swap(body):
        s = body["state"]
        s["dual_coef_"], s["intercept_"] = s["intercept_"], s["dual_coef_"]

    with pytest.raises(ModelFileError, match=r"KernelSVM\.(dual_coef_|intercept_)"):
        load_with(swap)
    member = state["classes_"]["array"]
    with pytest.raises(ModelFileError, match=r"classes_ \(4 classes.*6 machine"):
        load_with(lambda b: None, {member: _npy(np.array(["a", "b", "c", "d"]))})
    for value, words in [
        ("1.0", "C must be a real number, got '1.0'"),
        ({"float": "nan"}, "C must be finite"),
    ]:
        with pytest.raises(ModelFileError, match=f"KernelSVM.{words}"):
            load_with(lambda b, v=value: b["params"].__setitem__("C", v))
    assert params["C"] == 1.0
