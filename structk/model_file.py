"""Model files: a fitted estimator saved as data, loaded without running code.

:func:`save` writes a fitted structk estimator (a learner with its fitted
kernel and the training objects prediction needs: support vectors or
training strings, sets, graphs, vectors; an HMM; a kernel; Nystroem) to one
file, and :func:`load` reads it back, ready to predict with nothing else.

Loading a model file runs nothing from the file. The file is a zip archive
of two kinds of members:

``model.json``
    The header (``format``, ``format_version``, ``structk_version``, the
    estimator's class, the kind of objects it takes, the caller's
    ``metadata``) and the estimator as a tree of tagged JSON values:
    numbers, strings, ``{"list": [...]}``, ``{"tuple": [...]}``,
    ``{"dict": [[key, value], ...]}``, ``{"set": [...]}``, ``{"array":
    member}``, ``{"scalar": [dtype, value]}``, ``{"method": [kernel,
    name]}`` (a similarity method of a structk kernel, such as
    ``LocalAlignment(beta=0.5).log_kernel``: the kernel as data and a name
    from :data:`~structk.kernels.empirical.SIMILARITY_METHODS`),
    ``{"graph": ...}`` (networkx
    graphs: nodes, adjacency in order, attributes) and ``{"object": {"class":
    name, "params": ..., "state": ...}}`` for structk's own classes.
``arrays/<n>.npy``
    The numeric and string arrays, in NumPy's ``.npy`` format, read with
    ``allow_pickle=False`` (an object array is stored item by item in the
    JSON instead).

Before anything is inflated, the zip directory is checked: at most
:data:`MAX_MEMBERS` members (counted in the end record, before zipfile
lists them), each named ``model.json`` or ``arrays/<n>.npy`` and listed
once, none encrypted, a link or compressed other than by deflate, each
declaring at most ``max_bytes`` (``model.json`` at most
:data:`MAX_JSON_BYTES`), all together at most ``max_bytes`` (default
:data:`MAX_BYTES`) and, past :data:`RATIO_FLOOR`, at most ``max_ratio``
(default :data:`MAX_RATIO`) times the file's size. A member is then read
into a buffer of its declared size, no further; one that inflates to more
or less, or fails its checksum, is refused. Every array member must be
used by the model.

A class is rebuilt only when its name is on the allow-list, which holds the
public kernels and learners, :class:`~structk.hmm.DiscreteHMM`,
:class:`~structk.scale.nystroem.Nystroem` and the one function a kernel may
hold (:func:`~structk.kernels.alignment.smith_waterman`), or is one of the
classes the caller passes in ``trusted=`` (a user's own kernels); the name
is looked up in those, never imported. An instance of a structk class is
made by ``cls.__new__`` and its attributes are set from the file (no
constructor runs); a trusted class is built by its own constructor and
``__setstate__``. A parameter the class gained since the file was written
takes its default, one it lost is refused; then every kernel validates its
parameters and fitted state, and every learner (with the feature map or
centerer it holds), Nystroem and DiscreteHMM is checked against its schema in
:mod:`structk._model_schema`: parameters as its ``fit`` checks them, and
exactly the fitted attributes its way of fitting sets, with agreeing
types, shapes and finite values. Prepared data (private attributes whose
name holds ``prepared``) is a cache: it is not stored and is computed again
from the stored objects on first use; fitted attributes an earlier fit by
another solver left behind are not stored either.

Anything else (an unknown class or tag, a missing, extra, repeated,
encrypted or linked member, members past the limits, a learner's state no
fit makes, a damaged zip, a pickle, random bytes) raises
:class:`~structk.exceptions.ModelFileError` naming the file and the member
or attribute. A file records the structk version and the format version
(:data:`FORMAT_VERSION`); a file from an older format version is upgraded by
the functions in ``_UPGRADES``, one from a newer one is refused with the
version it needs.

Examples
--------
>>> import numpy as np, structk, tempfile, os
>>> from structk.kernels import Normalize, Spectrum
>>> from structk.learners import KernelSVM
>>> seqs = ["ACGTTGCA", "ACGTAGCA", "TTTTGGGA", "TTATGGGA"] * 5
>>> svm = KernelSVM(kernel=Normalize(Spectrum(k=3))).fit(seqs, [0, 0, 1, 1] * 5)
>>> path = os.path.join(tempfile.mkdtemp(), "model.structk")
>>> structk.save(svm, path)
>>> again = structk.load(path)
>>> bool(np.array_equal(again.decision_function(seqs), svm.decision_function(seqs)))
True
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import struct
import sys
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from . import _model_schema
from .exceptions import ModelFileError

#: Version of the layout of ``model.json``; bumped when it changes.
FORMAT_VERSION = 1
#: The ``format`` field of every structk model file.
FORMAT_NAME = "structk-model"
_HEADER = "model.json"
_ARRAY = re.compile(r"arrays/[0-9]{1,9}\.npy\Z")
#: The largest ``model.json`` read (1 GiB): parsed JSON takes several times
#: its size in Python objects, so this bounds what a file can make us build.
MAX_JSON_BYTES = 2**30
#: Default ``max_bytes`` of :func:`load`: the largest total size (4 GiB) the
#: members of a model file may inflate to, checked in the zip directory
#: before anything is read. A model past it is refused unless the caller
#: raises the limit for a file they trust.
MAX_BYTES = 4 * 2**30
#: Default ``max_ratio`` of :func:`load`: the members may inflate to at most
#: this many times the file's size, once they exceed :data:`RATIO_FLOOR`. A
#: real model compresses a few times (random floats barely, JSON and indices
#: 5-20 times); deflate reaches ~1000:1 on runs of zeros, a zip bomb's trick.
MAX_RATIO = 100
#: Inflated size (64 MiB) below which the ratio is not checked: a small
#: model of mostly zeros may compress very well and costs little anyway.
RATIO_FLOOR = 64 * 2**20
#: The most members a model file may have (the zip directory is checked
#: before it is parsed; each member costs memory to list). A model holds
#: ``model.json`` and one member per numeric array (graphs' node attribute
#: arrays included), far fewer than this.
MAX_MEMBERS = 1_000_000
_READ_CHUNK = 2**24
_PICKLE_HINT = (
    "it looks like a Python pickle; structk never loads pickles (loading one can run "
    "any code): save the model with structk.save"
)


# ------------------------------------------------------------- allow-list
def _allowed():
    """``{name: class or function}`` of everything a model file may name,
    each class resolved on first look-up (see :class:`_AllowList`)."""
    from .kernels.alignment import smith_waterman
    from .learners import _MODULES

    lazy = {
        f"structk.learners{module}.{name}": (f"structk.learners{module}", name)
        for module, names in _MODULES.items()
        for name in names
    }
    lazy["structk.scale.nystroem.Nystroem"] = ("structk.scale.nystroem", "Nystroem")
    lazy["structk.hmm.DiscreteHMM"] = ("structk.hmm", "DiscreteHMM")
    lazy["structk.learners.primal.FeatureMap"] = ("structk.learners.primal", "FeatureMap")
    functions = {_qualname(smith_waterman): smith_waterman}
    return _AllowList(lazy), functions


class _AllowList(dict):
    """The allowed classes by qualified name, each imported when a file
    names it, so that reading a KernelSVM of spectrum kernels imports
    neither the other learners' modules (nor scikit-learn with the
    transformers') nor the other kernels' (the gapped k-mer, graph, HMM and
    Fisher modules: 0.03 s of CPU with Python's bytecode cache, 0.15 s
    without). The allowed names are those in ``lazy`` (name -> module,
    attribute) and every class that :mod:`structk.kernels` exports (the
    public kernels and ``Kernel``) except ``FunctionKernel``, which holds
    arbitrary Python code; a name resolves only to the class whose qualified
    name it is."""

    def __init__(self, lazy):
        super().__init__()
        self._lazy = lazy

    def get(self, name, default=None):
        if name not in self and isinstance(name, str):
            cls = self._resolve(name)
            if cls is not None and _qualname(cls) == name:
                self[name] = cls
        return super().get(name, default)

    def _resolve(self, name):
        import importlib

        if name in self._lazy:
            module, attr = self._lazy[name]
            return getattr(importlib.import_module(module), attr)
        from . import kernels

        attr = name.rpartition(".")[2]
        if attr == "FunctionKernel" or attr not in kernels.__all__:
            return None
        obj = getattr(kernels, attr)
        return obj if isinstance(obj, type) else None


def _qualname(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


def _similarity_method(value):
    """The name of ``value`` when it is a method of a structk kernel listed in
    :data:`structk.kernels.empirical.SIMILARITY_METHODS` (bound to that very
    class, not a subclass), else ``None``."""
    import inspect

    if not inspect.ismethod(value):
        return None
    from .kernels.empirical import SIMILARITY_METHODS

    owner, name = value.__self__, value.__func__.__name__
    cls = type(owner)
    if not cls.__module__.startswith("structk.") or name not in SIMILARITY_METHODS.get(
        cls.__name__, ()
    ):
        return None
    if getattr(cls, name, None) is not value.__func__:
        return None
    return name


def _is_cache(name):
    """Private attributes holding prepared data: recomputed after loading."""
    return name.startswith("_") and "prepared" in name


#: Attributes of a class that hold prepared data under a public name: not
#: stored, rebuilt by :func:`_check_loaded` (the Nyström landmarks of the
#: learners' feature maps, rebuilt from ``landmark_objects``).
_REBUILT = {"structk.learners.primal.FeatureMap": ("landmarks",)}


def _stored(name, value):
    """The value stored for attribute ``name``: a Dask ``client`` is a
    connection, not part of a model (stored as ``None``)."""
    return None if name == "client" else value


# --------------------------------------------------------------- writing
class _Writer:
    def __init__(self, zf):
        self.zf = zf
        self.arrays = {}  # id(array) -> member name
        self.keep = []  # arrays written (so that ids stay unique)
        self.objects = {}  # id(object) -> reference number
        self.classes, self.functions = _allowed()
        self.functions_by_id = {id(f): name for name, f in self.functions.items()}

    def encode(self, value, where):
        import scipy.sparse as sp

        # a graph exists only once networkx is loaded: a model of sequences or
        # vectors is saved without importing it (0.1-0.15 s of CPU)
        nx = sys.modules.get("networkx")

        if isinstance(value, np.generic):  # before float: np.float64 is one
            return self._scalar(value, where)
        if value is None or isinstance(value, (bool, str, int)):
            return value
        if isinstance(value, float):
            return value if np.isfinite(value) else {"float": repr(value)}
        if isinstance(value, np.ndarray):
            return self._array(value, where)
        if isinstance(value, list):
            return {"list": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if isinstance(value, tuple):
            if hasattr(value, "_fields"):
                raise self._refuse(value, where)
            return {"tuple": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if isinstance(value, (set, frozenset)):
            tag = "set" if isinstance(value, set) else "frozenset"
            return {tag: [self.encode(v, f"{where}{{}}") for v in value]}
        if type(value) is dict:
            return {
                "dict": [
                    [self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                    for k, v in value.items()
                ]
            }
        if nx is not None and isinstance(value, nx.Graph):
            return self._graph(value, where)
        if sp.issparse(value):
            csr = value.tocsr()
            return {
                "sparse": {
                    "shape": list(csr.shape),
                    "data": self._array(csr.data, where),
                    "indices": self._array(csr.indices, where),
                    "indptr": self._array(csr.indptr, where),
                }
            }
        if callable(value) and id(value) in self.functions_by_id:
            return {"function": self.functions_by_id[id(value)]}
        method = _similarity_method(value)
        if method is not None:
            owner = value.__self__
            return {"method": [self.encode(owner, f"{where}.__self__"), method]}
        name = _qualname(type(value))
        if self.classes.get(name) is type(value) or _user_kernel(value):
            return self._object(value, name, where)
        raise self._refuse(value, where)

    def _refuse(self, value, where):
        from .kernels import Kernel

        if isinstance(value, Kernel):
            why = (
                f"{where} is a {type(value).__name__}, which runs Python code of its "
                "own; a model file holds data only (use a built-in kernel)"
            )
        elif callable(value):
            name = getattr(value, "__qualname__", type(value).__name__)
            why = (
                f"{where} is the Python function {name}; a model file holds data "
                "only, so it cannot hold code (use a built-in kernel)"
            )
        else:
            why = (
                f"{where} is a {type(value).__name__}, which a model file cannot hold "
                "(it holds structk kernels, learners and HMMs, numbers, strings, "
                "arrays, lists, sets, dicts and networkx graphs)"
            )
        return ModelFileError(why)

    def _array(self, a, where):
        if a.dtype.kind == "O" or a.dtype.fields is not None:
            if a.dtype.fields is not None:
                raise ModelFileError(
                    f"{where} is a structured array, which a model file cannot hold"
                )
            items = [self.encode(v, f"{where}[{i}]") for i, v in enumerate(a.ravel().tolist())]
            return {"object_array": {"shape": list(a.shape), "items": items}}
        member = self.arrays.get(id(a))
        if member is None:
            member = f"arrays/{len(self.arrays)}.npy"
            buffer = io.BytesIO()
            np.save(buffer, a, allow_pickle=False)
            self.zf.writestr(member, buffer.getvalue())
            self.arrays[id(a)] = member
            self.keep.append(a)
        return {"array": member}

    def _scalar(self, x, where):
        if x.dtype.kind not in "biuf" and x.dtype.kind != "U":
            raise ModelFileError(
                f"{where} is a NumPy {x.dtype} scalar, which a model file cannot hold"
            )
        value = x.item()
        if isinstance(value, float) and not np.isfinite(value):
            value = {"float": repr(value)}
        return {"scalar": [x.dtype.str, value]}

    def _graph(self, G, where):
        import networkx as nx

        kinds = {nx.Graph: "Graph", nx.DiGraph: "DiGraph"}
        if type(G) not in kinds:
            raise ModelFileError(
                f"{where} is a {type(G).__name__}; model files hold networkx Graph and DiGraph only"
            )
        index = {v: i for i, v in enumerate(G)}
        return {
            "graph": {
                "kind": kinds[type(G)],
                "attrs": self.encode(dict(G.graph), f"{where}.graph"),
                "nodes": [
                    [self.encode(v, f"{where} node"), self.encode(dict(d), f"{where} node {v!r}")]
                    for v, d in G.nodes(data=True)
                ],
                # every node's adjacency in its order (the order kernels read it in)
                "adj": [
                    [
                        [index[u], self.encode(dict(d), f"{where} edge ({v!r}, {u!r})")]
                        for u, d in G.adj[v].items()
                    ]
                    for v in G
                ],
            }
        }

    def _object(self, obj, name, where):
        ref = self.objects.get(id(obj))
        if ref is not None:
            return {"ref": ref}
        ref = len(self.objects)
        self.objects[id(obj)] = ref
        self.keep.append(obj)
        params = set(_param_names(type(obj)))
        state = _user_state(obj, where) if _user_kernel(obj) else vars(obj)
        missing = params - set(state)
        if missing:
            raise ModelFileError(
                f"{where} ({type(obj).__name__}) lacks its parameter(s) {sorted(missing)}"
            )
        rebuilt = _REBUILT.get(name, ())
        if rebuilt and state.get("V") is not None and "landmark_objects" not in state:
            raise ModelFileError(
                f"{where} keeps its Nyström landmarks only prepared; "
                "refit the model with this structk to save it"
            )
        label = f"{where}" if where else type(obj).__name__
        left_over = _model_schema.stale(obj)
        return {
            "object": {
                "id": ref,
                "class": name,
                "params": {
                    k: self.encode(_stored(k, state[k]), f"{label}.{k}") for k in sorted(params)
                },
                "state": {
                    k: self.encode(_stored(k, v), f"{label}.{k}")
                    for k, v in state.items()
                    if k not in params
                    and not _is_cache(k)
                    and k not in rebuilt
                    and k not in left_over
                },
            }
        }


def _user_kernel(value):
    """Whether ``value`` is a kernel of a class defined outside structk (the
    documented extension point): saved as its parameters and state, loaded
    only when the caller trusts its class (``load(trusted=...)``)."""
    from .kernels import Kernel

    return isinstance(value, Kernel) and not type(value).__module__.startswith("structk.")


def _user_state(obj, where):
    """The state of a user's kernel: what its own ``__getstate__`` gives
    (as pickle would store it), else its attributes."""
    # object.__getstate__ exists from Python 3.11: a class's own one differs
    if getattr(type(obj), "__getstate__", None) is getattr(object, "__getstate__", None):
        return vars(obj)
    state = obj.__getstate__()
    if not isinstance(state, dict):
        raise ModelFileError(
            f"{where} ({type(obj).__name__}) gives a state of type "
            f"{type(state).__name__} from __getstate__; a model file "
            "stores a dict of attributes"
        )
    return state


def _param_names(cls):
    """Constructor parameters of a structk class (none for a plain class)."""
    get = getattr(cls, "_get_param_names", None)
    return get() if get is not None else []


def objects_kind(estimator):
    """What a fitted estimator predicts from: ``"sequences"``, ``"sets"``,
    ``"graphs"``, ``"vectors"``, ``"gram"`` (``kernel="precomputed"``) or
    ``None`` when its kernel does not say (a function kernel, a mixture)."""
    from .kernels import Kernel

    kernel = getattr(estimator, "kernel_", None) or getattr(estimator, "kernel", None)
    if isinstance(estimator, Kernel):
        kernel = estimator
    if isinstance(kernel, str) and kernel == "precomputed":
        return "gram"
    if not isinstance(kernel, Kernel):
        return None
    kinds = set()

    def walk(k):
        params = k.get_params(deep=False)
        parts = [v for v in params.values() if isinstance(v, Kernel)]
        module = type(k).__module__
        known = [kind for family, kind in _FAMILIES if module.startswith(family)]
        if not known and "alphabet" in params:
            known = ["sequences"]  # a string kernel of another module
        kinds.update(known)
        for part in parts:
            walk(part)
        if type(k).__name__ == "EmpiricalKernelMap" and isinstance(k.similarity, Kernel):
            walk(k.similarity)

    walk(kernel)
    return kinds.pop() if len(kinds) == 1 else None


_FAMILIES = (
    ("structk.kernels.strings", "sequences"),
    ("structk.kernels.alignment", "sequences"),
    ("structk.kernels.fisher", "sequences"),
    ("structk.kernels.class_fisher", "sequences"),
    ("structk.kernels.gapped_kmer", "sequences"),
    ("structk.kernels.sets", "sets"),
    ("structk.kernels.graphs", "graphs"),
    ("structk.kernels.vectors", "vectors"),
)


def save(estimator: Any, path: str | os.PathLike[str], *, metadata: dict | None = None) -> None:
    """Save a fitted structk estimator to a model file.

    Parameters
    ----------
    estimator : structk learner, kernel, DiscreteHMM or Nystroem
        Fitted (or not: an unfitted estimator is saved as its parameters).
    path : str or path-like
        The file to write (replaced atomically when it exists). Any name
        works; the command line writes ``.structk``.
    metadata : dict, optional
        JSON-serialisable information kept beside the model (the command
        line records the input format, alphabet and columns here);
        :func:`load_metadata` reads it back.

    Raises
    ------
    ModelFileError
        When the estimator holds something a model file cannot hold (a
        Python function, an object of another library), naming the
        attribute.
    """
    from . import __version__

    path = Path(path)
    if path.exists() and not path.is_file():  # a device, a pipe, a folder
        raise ModelFileError(
            f"{path} exists and is not a regular file (a device, a pipe or a folder): a "
            "model file is written beside it and renamed over it, which would replace "
            "it; choose a file name",
            path,
        )
    if metadata is not None:
        try:
            json.dumps(metadata, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"metadata must be plain JSON data: {exc}") from None
    from .scale._tiling import partial_file, remove_partial_files

    tmp = partial_file(path, "the model")
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
            writer = _Writer(zf)
            root = writer.encode(estimator, type(estimator).__name__)
            if not isinstance(root, dict) or "object" not in root:
                raise ModelFileError(
                    f"structk.save saves structk estimators and kernels, not a "
                    f"{type(estimator).__name__}"
                )
            header = {
                "format": FORMAT_NAME,
                "format_version": FORMAT_VERSION,
                "structk_version": __version__,
                "numpy_version": np.__version__,
                "estimator": type(estimator).__name__,
                "objects": objects_kind(estimator),
                "metadata": metadata or {},
                "root": root,
            }
            zf.writestr(_HEADER, json.dumps(header, separators=(",", ":")))
        os.replace(tmp, path)
    finally:
        remove_partial_files({str(tmp)})


# --------------------------------------------------------------- reading
class _Reader:
    def __init__(self, zf, path, written_by="an unknown version", trusted=None):
        self.written_by = written_by
        self.zf = zf
        self.path = path
        self.arrays = {}
        self.objects = {}
        self.members = set(zf.namelist())
        self.classes, self.functions = _allowed()
        self.trusted = trusted or {}

    def fail(self, why):
        return ModelFileError(f"{self.path}: {why}", self.path)

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not (isinstance(node, dict) and len(node) == 1):
            raise self.fail(f"unexpected value {_short(node)} in the model")
        ((tag, body),) = node.items()
        method = _TAGS.get(tag)
        if method is None:
            raise self.fail(f"unknown tag {tag!r} in the model (nothing was run)")
        return method(self, body)

    def _seq(self, body):
        if not isinstance(body, list):
            raise self.fail(f"expected a list, got {_short(body)}")
        return [self.decode(v) for v in body]

    def _list(self, body):
        return self._seq(body)

    def _tuple(self, body):
        return tuple(self._seq(body))

    def _set(self, body):
        return set(self._seq(body))

    def _frozenset(self, body):
        return frozenset(self._seq(body))

    def _dict(self, body):
        if not isinstance(body, list) or not all(isinstance(p, list) and len(p) == 2 for p in body):
            raise self.fail(f"a dict must be a list of [key, value] pairs, got {_short(body)}")
        return {self.decode(k): self.decode(v) for k, v in body}

    def _float(self, body):
        if body not in ("nan", "inf", "-inf"):
            raise self.fail(f"bad float {body!r}")
        return float(body)

    def _array(self, body):
        if not isinstance(body, str) or not _ARRAY.match(body) or body not in self.members:
            raise self.fail(f"array member {_short(body)} is missing or misnamed")
        if body not in self.arrays:
            raw = _read_member(self.zf, self.zf.getinfo(body), self.path)
            self.arrays[body] = self._read_npy(body, raw)
        return self.arrays[body]

    def _read_npy(self, member, raw):
        """An array from the ``.npy`` bytes ``raw`` (a bytearray, which the
        array then uses: no second copy): no objects, no structured dtype,
        and exactly as many data bytes as the header claims (checked before
        any array is made)."""
        fmt = np.lib.format
        data = io.BytesIO(raw)
        try:
            version = fmt.read_magic(data)
            read_header = (
                fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            )
            shape, fortran, dtype = read_header(data)
            if dtype.hasobject:
                raise ValueError("it holds Python objects, which a model file never does")
            if dtype.fields is not None:
                raise ValueError("it is a structured array, which a model file never holds")
            count = int(np.prod(shape, dtype=object))
            needed = dtype.itemsize * count
            held = len(raw) - data.tell()
            if needed != held:
                raise ValueError(
                    f"its header claims {needed} bytes of data, the member holds {held}"
                )
            flat = np.frombuffer(raw, dtype=dtype, count=count, offset=data.tell())
            array = flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)
            return array if array.flags.aligned else array.copy()
        except (ValueError, EOFError, OSError, TypeError) as exc:
            raise self.fail(f"{member} is not a valid array: {exc}") from None

    def _object_array(self, body):
        if not isinstance(body, dict) or set(body) != {"shape", "items"}:
            raise self.fail("bad object array")
        items = self._seq(body["items"])
        out = np.empty(len(items), dtype=object)
        out[:] = items
        try:
            return out.reshape(body["shape"])
        except (TypeError, ValueError):
            raise self.fail(
                f"object array of {len(items)} items cannot have shape {_short(body['shape'])}"
            ) from None

    def _scalar(self, body):
        if not (isinstance(body, list) and len(body) == 2 and isinstance(body[0], str)):
            raise self.fail(f"bad scalar {_short(body)}")
        try:
            dtype = np.dtype(body[0])
        except TypeError:
            raise self.fail(f"bad scalar type {body[0]!r}") from None
        if dtype.kind not in "biufU":
            raise self.fail(f"scalar type {body[0]!r} is not allowed")
        return dtype.type(self.decode(body[1]))

    def _sparse(self, body):
        import scipy.sparse as sp

        if not isinstance(body, dict) or set(body) != {"shape", "data", "indices", "indptr"}:
            raise self.fail("bad sparse matrix")
        try:
            return sp.csr_matrix(
                (
                    self.decode(body["data"]),
                    self.decode(body["indices"]),
                    self.decode(body["indptr"]),
                ),
                shape=tuple(body["shape"]),
            )
        except (TypeError, ValueError) as exc:
            raise self.fail(f"bad sparse matrix: {exc}") from None

    def _method(self, body):
        """``owner.name`` for a similarity method a kernel may hold (an
        allowed structk kernel and a name on the list; nothing is called)."""
        from .kernels.empirical import SIMILARITY_METHODS

        if not (isinstance(body, list) and len(body) == 2 and isinstance(body[1], str)):
            raise self.fail(f"bad method {_short(body)}")
        owner = self.decode(body[0])
        cls = type(owner)
        allowed = SIMILARITY_METHODS.get(cls.__name__, ())
        if self.classes.get(_qualname(cls)) is not cls or body[1] not in allowed:
            listed = ", ".join(f"{c}(...).{m}" for c, ms in SIMILARITY_METHODS.items() for m in ms)
            raise self.fail(
                f"refused method {cls.__name__}.{_short(body[1])}: a model file may hold "
                f"only {listed} (nothing was run)"
            )
        return getattr(owner, body[1])

    def _function(self, body):
        if body not in self.functions:
            raise self.fail(
                f"refused function {_short(body)}: not one structk allows in a "
                "model file (nothing was run)"
            )
        return self.functions[body]

    def _graph(self, body):
        import networkx as nx

        if not isinstance(body, dict) or set(body) != {"kind", "attrs", "nodes", "adj"}:
            raise self.fail("bad graph")
        cls = {"Graph": nx.Graph, "DiGraph": nx.DiGraph}.get(body["kind"])
        nodes, adj = body["nodes"], body["adj"]
        if (
            cls is None
            or not isinstance(nodes, list)
            or not isinstance(adj, list)
            or len(adj) != len(nodes)
        ):
            raise self.fail("bad graph")
        G = cls()
        G.graph.update(self._dict_value(body["attrs"]))
        names = []
        for pair in nodes:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise self.fail("bad graph node")
            v = self.decode(pair[0])
            G.add_node(v, **self._dict_value(pair[1]))
            names.append(v)
        if len(set(names)) != len(names):
            raise self.fail("a graph repeats a node")
        # adjacency rebuilt in its stored order; an undirected edge's
        # attributes are one dict shared by both directions, as networkx has it
        shared = {}
        for i, row in enumerate(adj):
            if not isinstance(row, list):
                raise self.fail("bad graph adjacency")
            for entry in row:
                if not (
                    isinstance(entry, list)
                    and len(entry) == 2
                    and isinstance(entry[0], int)
                    and 0 <= entry[0] < len(names)
                ):
                    raise self.fail("bad graph edge")
                j = entry[0]
                key = (min(i, j), max(i, j)) if cls is nx.Graph else (i, j)
                attrs = shared.get(key)
                if attrs is None:
                    attrs = shared[key] = self._dict_value(entry[1])
                u, v = names[i], names[j]
                G._adj[u][v] = attrs
                if cls is nx.DiGraph:
                    G._pred[v][u] = attrs
        if cls is nx.Graph and any(
            G._adj[v].get(u) is not d for u, nbrs in G._adj.items() for v, d in nbrs.items()
        ):
            raise self.fail("an undirected graph's adjacency is not symmetric")
        return G

    def _dict_value(self, node):
        value = self.decode(node)
        if not isinstance(value, dict):
            raise self.fail(f"expected a dict, got {_short(node)}")
        return value

    def _ref(self, body):
        if body not in self.objects:
            raise self.fail(f"reference to unknown object {_short(body)}")
        return self.objects[body]

    def _object(self, body):
        if not isinstance(body, dict) or set(body) != {"id", "class", "params", "state"}:
            raise self.fail("bad object entry")
        name = body["class"]
        cls = self.classes.get(name) if isinstance(name, str) else None
        trusted = cls is None and isinstance(name, str) and self._trusted(name)
        if trusted:
            cls = trusted
        if cls is None:
            raise self.fail(
                f"refused class {_short(name)}: not a structk kernel, learner or HMM "
                "(only those are rebuilt from a model file; nothing was imported or run). "
                "If it is your own kernel class and you trust this file, pass the class "
                "itself: structk.load(path, trusted=[TheClass])"
            )
        params, state = body["params"], body["state"]
        if not isinstance(params, dict) or not isinstance(state, dict):
            raise self.fail(f"bad {cls.__name__} entry")
        if set(params) & set(state):
            raise self.fail(f"bad {cls.__name__} entry")
        never = [k for k in state if _is_cache(k) or k in _REBUILT.get(name, ())]
        if never:
            raise self.fail(
                f"{cls.__name__}.{never[0]} is stored, but a model file never "
                "stores it (it is computed again on loading): the file was edited"
            )
        added = self._added_params(cls, params)
        if trusted:
            return self._trusted_object(cls, body["id"], added, params, state)
        obj = cls.__new__(cls)
        self.objects[body["id"]] = obj
        values = {k: self.decode(v) for k, v in {**params, **state}.items()}
        obj.__dict__.update({**added, **values})
        return obj

    def _trusted(self, name):
        """The class passed in ``trusted=`` that the file's class ``name``
        denotes: the same module and name, or else the one trusted class
        whose own name ends it (a class saved from ``__main__``); never an
        import."""
        cls = self.trusted.get(name)
        if cls is not None:
            return cls
        matches = [c for c in self.trusted.values() if name.endswith("." + c.__qualname__)]
        return matches[0] if len(matches) == 1 else None

    def _trusted_object(self, cls, ref, added, params, state):
        """A class the caller trusts: built by its own constructor from the
        file's parameters (``added``: the defaults of those the file lacks),
        then given its stored state (by its ``__setstate__`` when it has one)."""
        values = {**added, **{k: self.decode(v) for k, v in params.items()}}
        restored = {k: self.decode(v) for k, v in state.items()}
        try:
            obj = cls(**values)
            setstate = getattr(obj, "__setstate__", None)
            if setstate is not None:
                setstate({**vars(obj), **restored})
            else:
                obj.__dict__.update(restored)
        except Exception as exc:  # noqa: BLE001 - the trusted class's own error
            raise self.fail(
                f"the trusted class {cls.__name__} refused the stored values: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        self.objects[ref] = obj
        return obj

    def _added_params(self, cls, params):
        """Defaults of the parameters ``cls`` gained since the file was
        written (a file from an older structk loads as if they had been
        left at their defaults); a parameter ``cls`` no longer has, or a new
        one without a default, is refused."""
        import inspect

        expected = _param_names(cls)
        removed = sorted(set(params) - set(expected))
        version = f"structk {self.written_by}"
        if removed:
            raise self.fail(
                f"{cls.__name__} was saved (by {version}) with the parameter(s) {removed}, "
                f"which this structk's {cls.__name__} no longer has: refit the model"
            )
        added = {}
        signature = inspect.signature(cls.__init__).parameters
        for name in expected:
            if name not in params:
                default = signature[name].default
                if default is inspect.Parameter.empty:
                    raise self.fail(
                        f"{cls.__name__} was saved (by {version}) without the parameter "
                        f"{name!r}, which this structk's {cls.__name__} requires: refit "
                        "the model"
                    )
                added[name] = default
        return added


_TAGS = {
    "list": _Reader._list,
    "tuple": _Reader._tuple,
    "set": _Reader._set,
    "frozenset": _Reader._frozenset,
    "dict": _Reader._dict,
    "float": _Reader._float,
    "array": _Reader._array,
    "object_array": _Reader._object_array,
    "scalar": _Reader._scalar,
    "sparse": _Reader._sparse,
    "function": _Reader._function,
    "method": _Reader._method,
    "graph": _Reader._graph,
    "ref": _Reader._ref,
    "object": _Reader._object,
}


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


#: ``{old format version: function(header) -> header of the next version}``.
#: Format 1 is the first: a later format adds its upgrade here.
_UPGRADES = {}


def _read_header(zf, path):
    if _HEADER not in zf.namelist():
        raise ModelFileError(
            f"{path}: not a structk model file (a zip archive without {_HEADER})", path
        )
    try:
        text = _read_member(zf, zf.getinfo(_HEADER), path).decode("utf-8")
        header = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ModelFileError(f"{path}: {_HEADER} is not valid JSON ({exc})", path) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise ModelFileError(
            f"{path}: not a structk model file ({_HEADER} does not say format {FORMAT_NAME!r})",
            path,
        )
    version = header.get("format_version")
    written_by = header.get("structk_version", "an unknown version")
    if not isinstance(version, int) or version < 1:
        raise ModelFileError(f"{path}: bad format_version {version!r}", path)
    if version > FORMAT_VERSION:
        from . import __version__

        raise ModelFileError(
            f"{path}: written by structk {written_by} in model format {version}; this "
            f"structk ({__version__}) reads formats up to {FORMAT_VERSION}: upgrade structk",
            path,
        )
    while version < FORMAT_VERSION:
        upgrade = _UPGRADES.get(version)
        if upgrade is None:
            raise ModelFileError(
                f"{path}: model format {version} (structk {written_by}) can no longer be "
                "read; refit the model",
                path,
            )
        header = upgrade(header)
        version = header["format_version"]
    for key in ("root", "metadata"):
        if key not in header:
            raise ModelFileError(f"{path}: {_HEADER} has no {key!r}", path)
    return header


def _size(n):
    """``n`` bytes, readably."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("kiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _zip_entries(path, size):
    """The number of members the zip's end-of-directory record declares
    (``None`` when it cannot be found: zipfile then refuses the file)."""
    with open(path, "rb") as fh:
        back = min(size, 22 + 65535)
        fh.seek(size - back)
        tail = fh.read(back)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + 22 > len(tail):
            return None
        count = struct.unpack_from("<H", tail, at + 10)[0]
        if count == 0xFFFF and at >= 20 and tail[at - 20 : at - 16] == b"PK\x06\x07":
            fh.seek(struct.unpack_from("<Q", tail, at - 12)[0])
            record = fh.read(56)
            if len(record) == 56 and record[:4] == b"PK\x06\x06":
                count = struct.unpack_from("<Q", record, 32)[0]
    return count


def _check_members(zf, path, max_bytes, max_ratio):
    """Refuse, before reading any member, a zip that is not exactly a model
    file: a member the format does not have, one listed twice, an encrypted
    or a symbolic-link member, another compression method, or members that
    would inflate past ``max_bytes`` in all (or one past the JSON bound), or
    to more than ``max_ratio`` times the file's size."""

    def refuse(why):
        return ModelFileError(f"{path}: {why}", path)

    how = (
        "the file is damaged or was made by something other than structk.save; "
        "nothing was read from it"
    )
    if _HEADER not in zf.namelist():
        raise refuse(f"not a structk model file (a zip archive without {_HEADER})")
    seen = set()
    total = 0
    for info in zf.infolist():
        name = info.filename
        if name in seen:
            raise refuse(
                f"the member {name!r} appears twice; a model file holds each "
                f"member once (two readers could see two different models): {how}"
            )
        seen.add(name)
        if name != _HEADER and not _ARRAY.match(name):
            raise refuse(
                f"the member {_short(name)} is not part of a structk model file "
                f"(it holds {_HEADER} and arrays/<n>.npy only): {how}"
            )
        if info.flag_bits & 0x1:
            raise refuse(f"the member {name!r} is encrypted; structk model files never are: {how}")
        kind = stat.S_IFMT(info.external_attr >> 16)
        if kind not in (0, stat.S_IFREG):
            what = "a symbolic link" if kind == stat.S_IFLNK else "not a regular file"
            raise refuse(
                f"the member {name!r} is {what}; a model file holds regular members only: {how}"
            )
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise refuse(
                f"the member {name!r} uses zip compression method "
                f"{info.compress_type}; structk writes deflate only: {how}"
            )
        limit = min(MAX_JSON_BYTES, max_bytes) if name == _HEADER else max_bytes
        if info.file_size > limit:
            raise refuse(
                f"the member {name} would inflate to {_size(info.file_size)}, "
                f"more than the limit of {_size(limit)}"
                + (
                    " for the model's JSON"
                    if name == _HEADER
                    else "; if you trust this file, raise the limit: "
                    "structk.load(path, max_bytes=...)"
                )
            )
        total += info.file_size
    members = zf.infolist()
    largest = max(members, key=lambda i: i.file_size, default=None)
    if total > max_bytes:
        raise refuse(
            f"its members would inflate to {_size(total)} in all (the largest, "
            f"{largest.filename}, to {_size(largest.file_size)}), more than the "
            f"limit of {_size(max_bytes)}; if you trust this file, raise the "
            "limit: structk.load(path, max_bytes=...)"
        )
    size = os.path.getsize(path)
    if total > RATIO_FLOOR and total > max_ratio * size:

        def ratio(info):
            return info.file_size / max(info.compress_size, 1)

        worst = max(members, key=ratio)
        raise refuse(
            f"its members would inflate to {_size(total)} from a file of "
            f"{_size(size)}, more than {max_ratio} times its size (the member "
            f"{worst.filename} inflates {ratio(worst):.0f} times), as a zip "
            "bomb does; if you trust this file, raise the "
            "limit: structk.load(path, max_ratio=...)"
        )


def _read_member(zf, info, path):
    """The bytes of one member (a bytearray), read in chunks into a buffer of
    its declared size: a member that inflates to more or less than its zip
    header declares, or fails its checksum, is refused naming it."""
    import zlib

    size = info.file_size
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    try:
        with zf.open(info) as fh:
            while got < size:
                chunk = fh.read(min(_READ_CHUNK, size - got))
                if not chunk:
                    break
                view[got : got + len(chunk)] = chunk
                got += len(chunk)
            more = fh.read(1)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ModelFileError(
            f"{path}: the member {info.filename} is damaged: it does not "
            f"inflate to its declared {info.file_size} bytes or fails its "
            f"checksum ({exc})",
            path,
        ) from None
    if got != size or more:
        raise ModelFileError(
            f"{path}: the member {info.filename} inflates to "
            f"{'more' if more else got} than the {size} bytes its zip "
            "header declares: the file is damaged or was edited",
            path,
        )
    return buffer


def _open(path, max_bytes=MAX_BYTES, max_ratio=MAX_RATIO):
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such model file: {str(path)!r}")
    with open(path, "rb") as fh:
        head = fh.read(4)
    if not zipfile.is_zipfile(path):
        if head[:1] == b"\x80":
            raise ModelFileError(f"{path}: not a structk model file: {_PICKLE_HINT}", path)
        if head[:2] == b"PK":
            raise ModelFileError(
                f"{path}: a damaged or truncated model file (its zip directory cannot be read)",
                path,
            )
        raise ModelFileError(
            f"{path}: not a structk model file (not a zip archive; starts with {head!r})", path
        )
    entries = _zip_entries(path, path.stat().st_size)
    if entries is not None and entries > MAX_MEMBERS:
        raise ModelFileError(
            f"{path}: its zip directory lists {entries:,} members, more "
            f"than a model file has (at most {MAX_MEMBERS:,}); nothing was "
            "read from it",
            path,
        )
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ModelFileError(f"{path}: a damaged or truncated model file ({exc})", path) from None
    try:
        _check_members(zf, path, max_bytes, max_ratio)
    except BaseException:
        zf.close()
        raise
    return zf


def load_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The header of a model file without rebuilding the model: a dict
    with ``structk_version``, ``format_version``, ``estimator``,
    ``objects`` (what it predicts from) and ``metadata`` (see :func:`save`)."""
    with _open(path) as zf:
        try:
            header = _read_header(zf, path)
        except (zipfile.BadZipFile, _zlib_error(), OSError, EOFError) as exc:
            raise ModelFileError(
                f"{path}: a damaged or truncated model file ({exc})", path
            ) from None
    return {k: v for k, v in header.items() if k != "root"}


def _zlib_error():
    import zlib

    return zlib.error


def load(
    path: str | os.PathLike[str],
    *,
    trusted: Iterable[type] = (),
    max_bytes: int = MAX_BYTES,
    max_ratio: float = MAX_RATIO,
) -> Any:
    """Load an estimator saved by :func:`save`; nothing in the file is run.

    Parameters
    ----------
    path : str or path-like
    trusted : iterable of classes, optional
        Your own classes (kernels written as ``docs/custom_kernels.md`` shows)
        that the file may hold: the class objects themselves, never names.
        A class in the file is matched only against these (by module and
        name, or by name alone when one trusted class has it, as for a
        class saved from a script's ``__main__``); nothing named by the
        file is ever imported. **Risk**: a trusted class's own code runs on
        values the file chose -- its ``__init__`` with the stored parameters,
        its ``__setstate__`` (when it has one) with the stored state, then
        its parameter check (``validate``) and, when you predict, its
        evaluation. Trust only classes whose code is safe for any values of
        their parameters (ones that never pass a parameter to ``eval``,
        ``open``, ``subprocess`` or ``pickle``), and only files whose origin
        you trust as far as that code allows, as with ``skops.io``'s
        ``trusted=``.
    max_bytes : int, default=MAX_BYTES (4 GiB)
        Refuse a file whose members would inflate to more than this many
        bytes in all (each member's size is read from the zip directory
        before anything is inflated, and no member is read past it).
    max_ratio : float, default=MAX_RATIO (100)
        Refuse a file whose members would inflate past :data:`RATIO_FLOOR`
        (64 MiB) and to more than this many times the file's size (a zip
        bomb).

    Returns
    -------
    estimator
        Ready to ``predict``/``decision_function``/``transform`` as when it
        was saved, with the same results.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ModelFileError
        When the file is not a structk model file (a pickle, another zip,
        random bytes), is damaged or truncated, holds a member the format
        does not have (or one twice, encrypted, a link), would inflate past
        the limits, names a class or value that is not allowed, holds
        parameters or fitted state its learner would never have (a string
        as ``C``, arrays that disagree), or was written by a structk whose
        format or parameters this one cannot read; the message names the
        file and the member or attribute.
    TypeError
        When ``trusted`` holds something other than classes.
    """
    trusted_classes = _trusted_classes(trusted)
    max_bytes = _limit(max_bytes, "max_bytes")
    max_ratio = _limit(max_ratio, "max_ratio")
    with _open(path, max_bytes, max_ratio) as zf:
        try:
            header = _read_header(zf, path)
            reader = _Reader(
                zf, path, header.get("structk_version", "an unknown version"), trusted_classes
            )
            root = header["root"]
            if not (isinstance(root, dict) and set(root) == {"object"}):
                raise ModelFileError(f"{path}: the model is not a structk estimator", path)
            estimator = reader.decode(root)
        except ModelFileError:
            raise
        except (TypeError, ValueError, OverflowError, KeyError, IndexError, AttributeError) as exc:
            # a value of the wrong type where a container expects another
            # (an unhashable set item, a huge integer in an int64 scalar...)
            raise ModelFileError(
                f"{path}: not a valid model ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''})",
                path,
            ) from None
        except (zipfile.BadZipFile, _zlib_error(), OSError, EOFError) as exc:
            raise ModelFileError(
                f"{path}: a damaged or truncated model file ({exc})", path
            ) from None
        except RecursionError:
            raise ModelFileError(f"{path}: the model is nested too deeply", path) from None
    _check_loaded(estimator, reader, path)
    unused = sorted(reader.members - set(reader.arrays) - {_HEADER})
    if unused:
        raise ModelFileError(
            f"{path}: the member {unused[0]} is not used by the model"
            + (f" (nor are {len(unused) - 1} more)" if len(unused) > 1 else "")
            + "; a model file holds its own arrays only: the file was edited",
            path,
        )
    return estimator


def _trusted_classes(trusted):
    """``{module.name: class}`` of the classes passed in ``trusted=``."""
    if isinstance(trusted, (str, type)):
        trusted = [trusted]
    out = {}
    for cls in trusted:
        if not isinstance(cls, type):
            raise TypeError(
                f"trusted= takes the classes themselves (trusted=[MyKernel]), got "
                f"{cls!r}; structk never imports a class by name, so a name cannot be "
                "trusted"
            )
        out[_qualname(cls)] = cls
    return out


def _limit(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return value


def _check_loaded(estimator, reader, path):
    """Validate every rebuilt kernel (parameters and fitted state) and every
    learner (against its schema, :mod:`structk._model_schema`), then
    recompute the caches that are not stored."""
    from ._estimator import is_not_fitted_error
    from .kernels import Kernel

    def loaded(module, name):
        # a file holding one of these imported its module when it was read
        # (the allow-list imports on demand): no isinstance test otherwise
        return getattr(sys.modules[module], name) if module in sys.modules else ()

    DiscreteHMM = loaded("structk.hmm", "DiscreteHMM")
    FeatureMap = loaded("structk.learners.primal", "FeatureMap")
    Nystroem = loaded("structk.scale.nystroem", "Nystroem")

    def invalid(obj, exc):
        return ModelFileError(
            f"{path}: the stored {type(obj).__name__} is not valid: "
            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            path,
        )

    for obj in reader.objects.values():
        if isinstance(obj, Kernel):
            try:
                # parameters, then fitted state, of it and its parts (each part
                # is also checked on its own); a kernel saved unfitted (a
                # learner's ``kernel``) loads unfitted
                try:
                    obj.validate()
                except Exception as exc:
                    if not is_not_fitted_error(exc):
                        raise
            except Exception as exc:  # noqa: BLE001 - any failure means a bad file
                raise invalid(obj, exc) from None
    try:
        _model_schema.check(estimator, type(estimator).__name__)
        for obj in reader.objects.values():  # an HMM anywhere (a Fisher kernel's)
            if isinstance(obj, DiscreteHMM) and obj is not estimator:
                _model_schema.check(obj, type(obj).__name__)
    except _model_schema.SchemaError as exc:
        raise ModelFileError(
            f"{path}: {exc}; the file is damaged or was edited (a "
            "structk fit never makes such a model)",
            path,
        ) from None
    for obj in reader.objects.values():
        try:
            if isinstance(obj, Nystroem) and hasattr(obj, "kernel_"):
                obj._components_prepared = obj.kernel_.prepare(obj.components_, "X")
            elif isinstance(obj, FeatureMap):
                obj.landmarks = (
                    None if obj.V is None else obj.kernel.prepare(obj.landmark_objects, "X")
                )
        except Exception as exc:  # noqa: BLE001 - any failure means a bad file
            raise invalid(obj, exc) from None
