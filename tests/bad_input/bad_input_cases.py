"""The bad-input cases: what a careful user might pass, and the error it must get.

Each :class:`Case` is one call that must raise ``error`` with a message
naming the offending item (every string in ``names`` must appear in it);
a case of kind ``"warning"`` must instead warn with ``error`` (a warning
class) naming ``names`` and return, and one of kind ``"result"`` must
return a value that ``check`` accepts (an unusual input with a right answer).
``test_bad_input.py`` runs them; ``audit.py`` runs them one process each with
a time limit and counts the outcomes (clear error / unclear error or
traceback / silent wrong answer / hang) against any checkout.

Shared cases are generated, so that a kernel or learner added later is
covered without editing this file beyond one line: every public kernel class
in ``structk.kernels.__all__`` must have a factory in :data:`KERNELS` (a test
fails until it has), and gets the generic collection cases, the bad-object
cases of its family and the bad-parameter cases derived from its
constructor's defaults; every learner in ``structk.learners.__all__`` gets
the learner cases.
"""

from __future__ import annotations

import contextlib
import gzip
import inspect
import io
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Case:
    """One bad call, the exception type(s) it must raise, the words it must name."""

    id: str
    call: object  # zero-argument callable
    error: object  # exception type or tuple of types (a warning class for "warning")
    names: tuple = ()
    kind: str = "error"  # "error", "warning" or "result"
    check: object = None  # for "result": value -> bool


#: What :func:`outcome` reports for a case that behaves as its kind requires.
EXPECTED = {"error": "clear", "warning": "warned", "result": "correct"}


class SetupError(Exception):
    """A case could not be built (its API does not exist in this checkout)."""


class CLIRefused(Exception):
    """``structk`` exited 2 with one line on standard error (the message)."""


# ------------------------------------------------------------------ objects
def _vectors():
    return np.random.default_rng(0).normal(size=(3, 3))


def _strings():
    return ["ACGT", "AGGT", "TTGA"]


def _parts():
    return [{"v": row, "s": "ACGT"} for row in _vectors()]


def _proteins():
    return ["MKVLA", "MKVIA", "GAVLK"]


def _sets():
    return [{1, 2}, {2, 3}, {3}]


def _graph(n=3, directed=False, labels=True):
    import networkx as nx

    G = nx.DiGraph() if directed else nx.Graph()
    for v in range(n):
        if labels:
            G.add_node(v, label=v % 2)
        else:
            G.add_node(v)
    G.add_edges_from((v, v + 1) for v in range(n - 1))
    return G


def _graphs():
    return [_graph(3), _graph(4), _graph(2)]


def _attributed():
    out = _graphs()
    for G in out:
        for v in G:
            G.nodes[v]["attributes"] = np.array([v, 1.0])
    return out


def _hmm(fitted=True):
    from structk import DiscreteHMM

    hmm = DiscreteHMM(n_states=2, alphabet="dna", random_state=0)
    return hmm.fit(_strings() * 3) if fitted else hmm


def _fisher():
    from structk.kernels import FisherKernel

    k = FisherKernel(_hmm())
    return k.fit(_strings()) if hasattr(k, "fit") else k


def _class_fisher():
    from structk.kernels import ClassConditionalFisherKernel

    return ClassConditionalFisherKernel([_hmm(), _hmm()], priors=[0.4, 0.6]).fit(_strings())


def _k(name, *args, **kwargs):
    def make():
        from structk import kernels

        try:
            cls = getattr(kernels, name)
        except AttributeError as exc:
            raise SetupError(str(exc)) from None
        return cls(*args, **kwargs)

    return make


def _evaluated(name, *args, **kwargs):
    """A call that builds the kernel ``name(*args, **kwargs)`` and evaluates
    it on good objects (constructors only store; evaluation checks)."""

    def call():
        family = KERNELS[name][1] if name in KERNELS else "vectors"
        kernel = _k(name, *args, **kwargs)()
        return kernel(_GOOD[family]())

    return call


def _wrap(name, inner, *args):
    def make():
        from structk import kernels

        return getattr(kernels, name)(inner(), *args)

    return make


def _dot(x, y):  # module-level functions, so that the kernels pickle
    return float(np.dot(x, y))


def _first_coordinate(x):
    return float(x[0])


def _smith_waterman(X, Z):
    from structk.kernels import smith_waterman

    return smith_waterman(X, Z)


#: Every public kernel class: a factory of a valid instance and its family
#: (which objects it takes). A new kernel needs one line here.
KERNELS = {
    "Linear": (_k("Linear"), "vectors"),
    "Polynomial": (_k("Polynomial", degree=2), "vectors"),
    "Gaussian": (_k("Gaussian"), "vectors"),
    "Laplace": (_k("Laplace"), "vectors"),
    "Sum": (lambda: _k("Linear")() + _k("Gaussian")(), "vectors"),
    "Product": (lambda: _k("Linear")() * _k("Gaussian")(), "vectors"),
    "Scaled": (lambda: 2.0 * _k("Gaussian")(), "vectors"),
    "Constant": (_k("Constant", 1.0), "any"),
    "Power": (lambda: _k("Linear")() ** 2, "vectors"),
    "Exp": (_wrap("Exp", _k("Linear")), "vectors"),
    "Normalize": (_wrap("Normalize", _k("Linear")), "vectors"),
    "FunctionScaled": (_wrap("FunctionScaled", _k("Gaussian"), _first_coordinate), "vectors"),
    "Part": (_wrap("Part", _k("Gaussian"), "v"), "parts"),
    "FunctionKernel": (_k("FunctionKernel", _dot), "function"),
    "Intersection": (_k("Intersection"), "sets"),
    "ExpIntersection": (_k("ExpIntersection"), "sets"),
    "Jaccard": (_k("Jaccard"), "sets"),
    "MinMax": (_k("MinMax"), "sets"),
    "Spectrum": (_k("Spectrum", k=2), "strings"),
    "Mismatch": (_k("Mismatch", k=3, m=1), "strings"),
    "GappyPair": (_k("GappyPair", k=1, m=1), "strings"),
    "GappedKmer": (_k("GappedKmer", l=3, k=2, d=1, unknown="error"), "strings"),
    "WeightedDegree": (_k("WeightedDegree", d=2), "aligned"),
    "FisherKernel": (_fisher, "strings"),
    "ClassConditionalFisherKernel": (_class_fisher, "strings"),
    "LocalAlignment": (_k("LocalAlignment"), "proteins"),
    "EmpiricalKernelMap": (
        lambda: _k("EmpiricalKernelMap", _k("Spectrum", k=2)(), ["ACGT", "TTGA"])(),
        "strings",
    ),
    "SpectrumRepair": (
        lambda: _k("SpectrumRepair", _k("LocalAlignment")())().fit(_proteins()),
        "proteins",
    ),
    # the stored matrix covers the good strings and the new ones test_model_file predicts
    "Precomputed": (_k("Precomputed", np.eye(5) + 1.0, keys=[*_strings(), "ACGA", "TTTT"]), "any"),
    "RandomWalk": (_k("RandomWalk"), "graphs"),
    "ShortestPath": (_k("ShortestPath"), "graphs"),
    "WeisfeilerLehman": (_k("WeisfeilerLehman", h=2), "graphs"),
    "WeisfeilerLehmanOptimalAssignment": (_k("WeisfeilerLehmanOptimalAssignment", h=2), "graphs"),
    "GraphHopper": (_k("GraphHopper"), "attributed"),
}

_GOOD = {
    "vectors": _vectors,
    "function": _vectors,
    "any": _strings,
    "proteins": _proteins,
    "sets": _sets,
    "strings": _strings,
    "aligned": _strings,
    "graphs": _graphs,
    "attributed": _attributed,
    "parts": _parts,
}


def _bad_objects(family):
    """(label, bad object, words the message must hold besides the index)."""
    import networkx as nx

    if family == "vectors":
        return [
            ("string row", "abc", ()),
            ("None row", None, ()),
            ("string entry", [1.0, "a", 2.0], ("'a'",)),
            ("nested entry", [1.0, [2.0], 3.0], ()),
            ("short row", [1.0, 2.0], ()),
            ("nan", [1.0, math.nan, 2.0], ("nan",)),
            ("inf", [1.0, math.inf, 2.0], ("inf",)),
            ("complex", [1 + 2j, 0.0, 0.0], ("complex",)),
            ("set row", {1.0, 2.0, 3.0}, ()),
        ]
    if family == "parts":  # objects holding a vector part "v"
        return [
            ("no part", {"s": "ACGT"}, ("'v'",)),
            ("not a container", 5, ("'v'",)),
            ("nan in the part", {"v": [1.0, math.nan, 2.0]}, ("'v'", "nan")),
            ("short part", {"v": [1.0, 2.0]}, ("'v'",)),
        ]
    if family == "function":  # only what makes the function itself fail
        return [("None row", None, ()), ("short row", [1.0, 2.0], ())]
    if family in ("strings", "aligned"):
        return [
            ("None", None, ()),
            ("int", 5, ()),
            ("float", 3.5, ()),
            ("unknown symbol", "ACGZ", ("'Z'",)),
        ]
    if family == "proteins":
        return [
            ("None", None, ()),
            ("int", 5, ()),
            ("float", 3.5, ()),
            ("unknown symbol", "MKV1", ("'1'",)),
        ]
    if family == "sets":
        return [
            ("None", None, ()),
            ("int", 5, ()),
            ("unhashable member", [[1], [2]], ()),
            ("string", "abc", ()),
        ]
    if family == "graphs":
        multi = nx.MultiGraph()
        multi.add_node(0, label=0)
        return [
            ("not a graph", "abc", ()),
            ("multigraph", multi, ("multigraph",)),
            ("no node label", _graph(3, labels=False), ("label",)),
            ("directed among undirected", _graph(3, directed=True), ("directed",)),
        ]
    if family == "attributed":
        multi = nx.MultiGraph()
        multi.add_node(0, attributes=np.zeros(2))
        return [
            ("not a graph", "abc", ()),
            ("multigraph", multi, ("multigraph",)),
            ("no node attribute", _graph(3), ("attributes",)),
            ("directed among undirected", _graph(3, directed=True), ("directed",)),
        ]
    return []


def _kernel_cases():
    cases = []
    for name, (make, family) in KERNELS.items():
        good = _GOOD[family]

        def setup(make=make):
            try:
                return make()
            except SetupError:
                raise
            except Exception as exc:  # noqa: BLE001 - the API of another checkout
                raise SetupError(f"{type(exc).__name__}: {exc}") from None

        cases += [
            Case(f"{name}-X-single-string", lambda s=setup: s()("ACGT"), TypeError, ("X",)),
            Case(f"{name}-X-is-None", lambda s=setup: s()(None), TypeError, ("X",)),
            Case(f"{name}-X-is-int", lambda s=setup: s()(5), TypeError, ("X",)),
            Case(f"{name}-X-empty", lambda s=setup: s()([]), ValueError, ("X", "empty")),
            Case(
                f"{name}-Y-empty", lambda s=setup, g=good: s()(g(), []), ValueError, ("Y", "empty")
            ),
            Case(f"{name}-diag-empty", lambda s=setup: s().diag([]), ValueError, ("X", "empty")),
        ]
        for label, bad, words in _bad_objects(family):

            def in_x(s=setup, g=good, b=bad):
                return s()([*list(g()), b])

            def in_y(s=setup, g=good, b=bad):
                return s()(g(), [*list(g()), b])

            cases.append(Case(f"{name}-X-{label}", in_x, (TypeError, ValueError), ("X[3]", *words)))
            cases.append(Case(f"{name}-Y-{label}", in_y, (TypeError, ValueError), ("Y[3]", *words)))
        cases += _param_cases(name, setup)
    return cases


def _param_cases(name, setup):
    """A string where a number or flag is expected, for every such parameter."""
    from structk import kernels

    cls = getattr(kernels, name, None)
    if cls is None:
        return []
    cases = []
    for p in inspect.signature(cls.__init__).parameters.values():
        if p.default is inspect.Parameter.empty or p.name in ("self", "name"):
            continue
        if isinstance(p.default, bool):
            bad = "yes"
        elif isinstance(p.default, (int, float)):
            bad = "3"
        else:
            continue

        def call(s=setup, param=p.name, value=bad):
            k = s()
            k.set_params(**{param: value})
            return k(_GOOD[KERNELS[name][1]]())

        cases.append(
            Case(f"{name}-param-{p.name}={bad!r}", call, (TypeError, ValueError), (p.name,))
        )
    return cases


def _explicit_kernel_cases():
    from structk.kernels import Linear

    def graphs_mixed_across():
        from structk.kernels import WeisfeilerLehman

        return WeisfeilerLehman()([_graph(3, directed=True)], [_graph(3)])

    def rw_mixed_across():
        from structk.kernels import RandomWalk

        return RandomWalk()([_graph(3, directed=True)], [_graph(3)])

    def k(name, **kw):
        return lambda: _k(name, **kw)()(_GOOD[KERNELS[name][1]]())

    return [
        Case("WL-directed-X-undirected-Y", graphs_mixed_across, ValueError, ("directed",)),
        Case("RW-directed-X-undirected-Y", rw_mixed_across, ValueError, ("directed",)),
        Case(
            "RW-start-array",
            _evaluated("RandomWalk", node_label=None, start=np.ones(3)),
            (TypeError, ValueError),
            ("start",),
        ),
        Case(
            "RW-stop-list",
            _evaluated("RandomWalk", stop=[1, 2]),
            (TypeError, ValueError),
            ("stop",),
        ),
        Case("RW-kind", _evaluated("RandomWalk", kind="spectral"), ValueError, ("kind",)),
        Case("RW-lam-negative", _evaluated("RandomWalk", lam=-1.0), ValueError, ("lam",)),
        Case(
            "RW-truncated-negative-weight",
            _evaluated("RandomWalk", kind="truncated", weights=[1.0, -1.0]),
            ValueError,
            ("weights[1]",),
        ),
        Case("WL-h-negative", _evaluated("WeisfeilerLehman", h=-1), ValueError, ("h",)),
        Case("Polynomial-degree-0", _evaluated("Polynomial", degree=0), ValueError, ("degree",)),
        Case(
            "Polynomial-degree-fraction",
            _evaluated("Polynomial", degree=2.5),
            ValueError,
            ("degree",),
        ),
        Case(
            "Polynomial-coef0-negative",
            _evaluated("Polynomial", coef0=-1.0),
            ValueError,
            ("coef0",),
        ),
        Case("Gaussian-sigma-0", _evaluated("Gaussian", sigma=0.0), ValueError, ("sigma",)),
        Case("Gaussian-sigma-nan", _evaluated("Gaussian", sigma=math.nan), ValueError, ("sigma",)),
        Case("Laplace-sigma-inf", _evaluated("Laplace", sigma=math.inf), ValueError, ("sigma",)),
        Case("Spectrum-k-0", _evaluated("Spectrum", k=0), ValueError, ("k",)),
        Case(
            "Spectrum-alphabet-int",
            _evaluated("Spectrum", alphabet=5),
            (TypeError, ValueError),
            ("alphabet",),
        ),
        Case(
            "Spectrum-alphabet-empty",
            _evaluated("Spectrum", alphabet=""),
            ValueError,
            ("alphabet",),
        ),
        Case(
            "Spectrum-unknown-mode",
            _evaluated("Spectrum", unknown="ignore"),
            ValueError,
            ("unknown",),
        ),
        Case("Mismatch-m-equals-k", _evaluated("Mismatch", k=3, m=3), ValueError, ("m",)),
        Case("Mismatch-huge-k", _evaluated("Mismatch", k=10**10, m=1), ValueError, ("k",)),
        Case(
            "Mismatch-memory",
            lambda: _k("Mismatch", k=20, m=10)()(["ACGT" * 10]),
            MemoryError,
            ("m=10",),
        ),
        Case(
            "Spectrum-rc-protein",
            _evaluated("Spectrum", alphabet="protein", reverse_complement=True),
            ValueError,
            ("reverse_complement", "protein"),
        ),
        Case(
            "GappedKmer-k-above-l", _evaluated("GappedKmer", l=5, k=6), ValueError, ("k=6", "l=5")
        ),
        Case(
            "GappedKmer-d-above-l-minus-k",
            _evaluated("GappedKmer", l=11, k=7, d=5, kind="count"),
            ValueError,
            ("d=5", "l - k"),
        ),
        Case(
            "GappedKmer-d-above-l",
            _evaluated("GappedKmer", l=11, k=7, d=12, kind="full"),
            ValueError,
            ("d=12", "l = 11"),
        ),
        Case(
            "GappedKmer-protein",
            _evaluated("GappedKmer", alphabet="protein"),
            ValueError,
            ("alphabet",),
        ),
        Case("GappedKmer-kind", _evaluated("GappedKmer", kind="wgkm"), ValueError, ("kind",)),
        Case(
            "GappedKmer-rbf-unnormalised",
            _evaluated("GappedKmer", gamma=2.0, normalize=False),
            ValueError,
            ("gamma", "normalize"),
        ),
        Case(
            "GappedKmer-features-truncated",
            lambda: _k("GappedKmer", l=5, k=3, d=1, kind="count")().features(["ACGTACG"]),
            TypeError,
            ("d = l - k", "kind='count'"),
        ),
        Case(
            "WD-unequal-lengths",
            lambda: _k("WeightedDegree")()(["ACGT", "ACG"]),
            ValueError,
            ("X[1]", "length"),
        ),
        Case("WD-d-0", _evaluated("WeightedDegree", d=0), ValueError, ("d",)),
        Case(
            "ExpIntersection-scale-negative",
            _evaluated("ExpIntersection", scale=-1.0),
            ValueError,
            ("scale",),
        ),
        Case("Constant-negative", _evaluated("Constant", -1.0), ValueError, ("value",)),
        Case("Scaled-negative", lambda: -1.0 * Linear(), ValueError, ("factor",)),
        Case("Power-fraction", lambda: Linear() ** 0.5, ValueError, ("exponent",)),
        Case("Exp-not-a-kernel", _evaluated("Exp", 5), TypeError, ("kernel",)),
        Case("Sum-not-a-kernel", _evaluated("Sum", Linear(), "rbf"), TypeError, ("k2",)),
        Case("Normalize-not-a-kernel", _evaluated("Normalize", None), TypeError, ("kernel",)),
        Case("FunctionKernel-not-callable", _evaluated("FunctionKernel", 5), TypeError, ("func",)),
        Case(
            "FunctionKernel-returns-string",
            lambda: _k("FunctionKernel", lambda x, y: "a")()([1, 2]),
            ValueError,
            ("X[0]",),
        ),
        Case(
            "FunctionScaled-func-fails",
            lambda: _k("FunctionScaled", Linear(), lambda x: x[5])()(np.eye(3)),
            (ValueError, IndexError),
            ("X[0]",),
        ),
        Case("Linear-3d", lambda: Linear()(np.zeros((2, 2, 2))), ValueError, ("2-D",)),
        Case(
            "Linear-dims-differ",
            lambda: Linear()(np.eye(3), np.eye(2)),
            ValueError,
            ("X has 3", "Y has 2"),
        ),
        Case(
            "Linear-complex-array",
            lambda: Linear()(np.array([[1 + 1j, 0.0]])),
            ValueError,
            ("complex",),
        ),
        Case(
            "Linear-sparse",
            lambda: Linear()(__import__("scipy.sparse").sparse.eye(2)),
            TypeError,
            ("sparse",),
        ),
        Case(
            "Linear-string-array", lambda: Linear()(np.array([["1", "2"]])), ValueError, ("X[0]",)
        ),
        Case("Linear-sub", lambda: Linear() - Linear(), TypeError, ("difference",)),
        Case(
            "Linear-features-nonfeature",
            lambda: _k("Gaussian")().features(np.eye(2)),
            TypeError,
            ("feature map",),
        ),
        Case(
            "Fisher-unfitted-hmm",
            lambda: _k("FisherKernel", _hmm(fitted=False))()(_strings()),
            Exception,
            ("fit",),
        ),
        Case(
            "Fisher-parts",
            lambda: _k("FisherKernel", _hmm(), parts=("foo",))()(_strings()),
            ValueError,
            ("foo",),
        ),
        Case(
            "Fisher-reg-negative",
            lambda: _k("FisherKernel", _hmm(), reg=-1.0)()(_strings()),
            ValueError,
            ("reg",),
        ),
        Case(
            "Fisher-information",
            lambda: _k("FisherKernel", _hmm(), information="x")()(_strings()),
            ValueError,
            ("information",),
        ),
    ]


# ----------------------------------------------------------------- learners
def _learner_cases():
    from structk import learners

    classifiers = {"KernelPerceptron", "KernelSVM", "KernelLogisticRegression", "NearestClassMean"}
    unsupervised = {"KernelCenterer", "KernelPCA"}
    K = np.eye(4) + 0.1
    y = np.array([0, 1, 0, 1])

    def pre(cls):
        return cls(kernel="precomputed")

    cases = []
    for name in learners.__all__:
        cls = getattr(learners, name)
        if "kernel_x" in inspect.signature(cls.__init__).parameters:  # two views
            cases += _two_view_cases(name, cls, K)
            continue
        if name == "SparseGaussianProcessRegressor":  # no precomputed Gram
            cases += _sparse_gp_cases(cls)
            continue

        def fit(make, X, target=y, cls=cls, name=name):
            est = make(cls)
            return est.fit(X) if name in unsupervised else est.fit(X, target)

        cases += [
            Case(
                f"{name}-K-not-square",
                lambda f=fit: f(pre, np.ones((4, 3))),
                ValueError,
                ("square",),
            ),
            Case(
                f"{name}-K-nan",
                lambda f=fit: f(pre, np.where(np.eye(4) > 0, np.nan, K)),
                ValueError,
                ("nan",),
            ),
            Case(
                f"{name}-K-asymmetric",
                lambda f=fit: f(pre, K + np.triu(np.ones((4, 4)), 1)),
                ValueError,
                ("symmetric",),
            ),
            Case(
                f"{name}-K-indefinite",
                lambda f=fit: f(
                    pre,
                    np.array([[1.0, 2.0, 0, 0], [2.0, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]),
                ),
                ValueError,
                ("positive semi-definite",),
            ),
            Case(
                f"{name}-K-strings",
                lambda f=fit: f(pre, np.array([["a"] * 4] * 4)),
                (TypeError, ValueError),
                ("K",),
            ),
            Case(
                f"{name}-kernel-string",
                lambda f=fit: f(lambda c: c(kernel="rbf"), np.eye(4)),
                ValueError,
                ("kernel", "rbf"),
            ),
            Case(
                f"{name}-kernel-function",
                lambda f=fit: f(lambda c: c(kernel=np.dot), np.eye(4)),
                TypeError,
                ("kernel",),
            ),
            Case(
                f"{name}-predict-before-fit",
                lambda cls=cls: _first_method(cls(kernel="precomputed"))(K),
                Exception,
                ("fit",),
            ),
            Case(
                f"{name}-complex-objects",
                lambda f=fit: f(
                    lambda c: c(kernel=__import__("structk").kernels.Linear()), np.eye(4) * (1 + 1j)
                ),
                ValueError,
                ("complex",),
            ),
            Case(
                f"{name}-K-test-columns",
                lambda f=fit, name=name: _first_method(f(pre, K))(np.ones((2, 3))),
                ValueError,
                ("columns",),
            ),
        ]
        if name not in unsupervised:
            cases.append(
                Case(f"{name}-y-length", lambda f=fit: f(pre, K, y[:3]), ValueError, ("y",))
            )
        if name in classifiers:
            cases += [
                Case(
                    f"{name}-y-None-label",
                    lambda f=fit: f(pre, K, [0, None, 1, 0]),
                    ValueError,
                    ("y[1]", "None"),
                ),
                Case(
                    f"{name}-y-nan-label",
                    lambda f=fit: f(pre, K, [0.0, np.nan, 1.0, 0.0]),
                    ValueError,
                    ("y[1]",),
                ),
                Case(
                    f"{name}-y-one-class",
                    lambda f=fit: f(pre, K, [1, 1, 1, 1]),
                    ValueError,
                    ("class",),
                ),
            ]
        elif name not in unsupervised:
            cases.append(
                Case(
                    f"{name}-y-nan-target",
                    lambda f=fit: f(pre, K, [0.0, np.nan, 1.0, 0.0]),
                    ValueError,
                    ("y[1]",),
                )
            )
        for p in inspect.signature(cls.__init__).parameters.values():
            if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
                cases.append(
                    Case(
                        f"{name}-param-{p.name}='3'",
                        lambda f=fit, param=p.name: f(
                            lambda c: c(kernel="precomputed", **{param: "3"}), K
                        ),
                        (TypeError, ValueError),
                        (p.name,),
                    )
                )
    return cases


def _sparse_gp_cases(cls):
    """The sparse GP never forms the Gram: it refuses "precomputed", and its
    other bad calls are made on vectors."""
    from structk.kernels import Gaussian

    X = np.arange(8.0).reshape(4, 2)
    y = np.array([0.0, 1.0, 0.0, 1.0])
    name = cls.__name__

    def fit(X=X, target=y, **params):
        return cls(**{"kernel": Gaussian(), "n_components": 2, **params}).fit(X, target)

    cases = [
        Case(
            f"{name}-precomputed", lambda: fit(kernel="precomputed"), ValueError, ("precomputed",)
        ),
        Case(f"{name}-kernel-string", lambda: fit(kernel="rbf"), ValueError, ("kernel", "rbf")),
        Case(f"{name}-kernel-function", lambda: fit(kernel=np.dot), TypeError, ("kernel",)),
        Case(f"{name}-predict-before-fit", lambda: cls().predict(X), Exception, ("fit",)),
        Case(f"{name}-complex-objects", lambda: fit(X=X * (1 + 1j)), ValueError, ("complex",)),
        Case(f"{name}-y-length", lambda: fit(target=y[:3]), ValueError, ("y",)),
        Case(
            f"{name}-y-nan-target",
            lambda: fit(target=[0.0, np.nan, 1.0, 0.0]),
            ValueError,
            ("y[1]",),
        ),
        Case(
            f"{name}-more-landmarks-than-objects",
            lambda: fit(n_components=5),
            ValueError,
            ("n_components=5", "4 training objects"),
        ),
        Case(f"{name}-no-landmarks", lambda: fit(n_components=0), ValueError, ("n_components",)),
        Case(f"{name}-noise-zero", lambda: fit(noise=0.0), ValueError, ("noise",)),
        Case(
            f"{name}-landmarks-unknown",
            lambda: fit(landmarks="random"),
            ValueError,
            ("landmarks", "random"),
        ),
        Case(
            f"{name}-predict-other-dimension",
            lambda: fit().predict(np.ones((2, 3))),
            ValueError,
            ("features",),
        ),
    ]
    for p in inspect.signature(cls.__init__).parameters.values():
        if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
            cases.append(
                Case(
                    f"{name}-param-{p.name}='3'",
                    lambda param=p.name: fit(**{param: "3"}),
                    (TypeError, ValueError),
                    (p.name,),
                )
            )
    return cases


def _two_view_cases(name, cls, K):
    """Learners of two paired views (``kernel_x``, ``kernel_y``; ``fit(X, Y)``)."""

    def fit(X, Y, **params):
        return lambda: cls(**params).fit(X, Y)

    cases = [
        Case(f"{name}-Kx-not-square", fit(np.ones((4, 3)), K), ValueError, ("square",)),
        Case(f"{name}-Ky-nan", fit(K, np.where(np.eye(4) > 0, np.nan, K)), ValueError, ("nan",)),
        Case(f"{name}-views-differ", fit(K, K[:3, :3]), ValueError, ("4", "3")),
        Case(
            f"{name}-kernel-string",
            fit(np.eye(4), np.eye(4), kernel_x="rbf"),
            ValueError,
            ("kernel_x",),
        ),
        Case(f"{name}-transform-before-fit", lambda: cls().transform(K), Exception, ("fit",)),
    ]
    for p in inspect.signature(cls.__init__).parameters.values():
        if isinstance(p.default, (int, float)) and not isinstance(p.default, bool):
            cases.append(
                Case(
                    f"{name}-param-{p.name}='3'",
                    fit(K, K, **{p.name: "3"}),
                    (TypeError, ValueError),
                    (p.name,),
                )
            )
    return cases


def _first_method(est):
    for method in ("predict", "transform", "decision_function"):
        if hasattr(est, method):
            return getattr(est, method)
    raise SetupError(f"{type(est).__name__} has no predict/transform")


# ---------------------------------------------------------------- check_psd
def _beyond_gram_cases():
    """The learners' paths past the Gram (solver="primal" / "nystroem")."""
    from structk.kernels import (
        Gaussian,
        Jaccard,
        Normalize,
        ShortestPath,
        Spectrum,
        WeisfeilerLehman,
    )
    from structk.learners import KernelRidge, KernelSVM

    seqs, y = ["ACGT", "AACC", "GGTT", "TTAA"], [0, 1, 0, 1]
    X = np.random.default_rng(0).normal(size=(4, 2))
    return [
        Case(
            "beyond-solver-unknown",
            lambda: KernelSVM(Gaussian(), solver="fast").fit(X, y),
            ValueError,
            ("solver", "fast"),
        ),
        Case(
            "beyond-primal-no-features",
            lambda: KernelSVM(Gaussian(), solver="primal").fit(X, y),
            ValueError,
            ("primal", "Gaussian", "nystroem"),
        ),
        Case(
            "beyond-primal-call-dependent-columns",
            lambda: KernelSVM(WeisfeilerLehman() + ShortestPath(), solver="primal").fit(seqs, y),
            ValueError,
            ("WeisfeilerLehman(h=5) + ShortestPath()", "nystroem"),
        ),
        Case(
            "beyond-primal-no-exact-features",
            lambda: KernelSVM(Jaccard(), solver="primal").fit([{"a"}, {"b"}, {"c"}, {"d"}], y),
            ValueError,
            ("Jaccard()", "nystroem"),
        ),
        Case(
            "beyond-precomputed-nystroem",
            lambda: KernelRidge(solver="nystroem").fit(np.eye(4), [1.0, 2, 3, 4]),
            ValueError,
            ("precomputed",),
        ),
        Case(
            "beyond-n-components-zero",
            lambda: KernelSVM(Gaussian(), solver="nystroem", n_components=0).fit(X, y),
            ValueError,
            ("n_components",),
        ),
        Case(
            "beyond-landmarks-unknown",
            lambda: KernelSVM(Gaussian(), solver="nystroem", landmarks="best").fit(X, y),
            ValueError,
            ("landmarks", "best"),
        ),
        Case(
            "beyond-n-jobs-zero",
            lambda: KernelSVM(Normalize(Spectrum(k=2)), solver="primal", n_jobs=0).fit(
                seqs * 6000, y * 6000
            ),
            ValueError,
            ("n_jobs",),
        ),
        Case(
            "beyond-loss-unknown",
            lambda: KernelSVM(Gaussian(), loss="log").fit(X, y),
            ValueError,
            ("loss", "log"),
        ),
        Case(
            "beyond-bad-symbol-primal",
            lambda: KernelSVM(Spectrum(k=2), solver="primal").fit(["ACGT", "ACXT"], [0, 1]),
            ValueError,
            ("X[1]",),
        ),
    ]


def _psd_cases():
    from scipy import sparse

    def psd(K, *args, **kwargs):
        from structk import check_psd

        return lambda: check_psd(K, *args, **kwargs)

    asym = np.eye(3)
    asym[0, 1] = 0.5
    return [
        Case("psd-not-square", psd(np.ones((2, 3))), ValueError, ("square",)),
        Case("psd-3d", psd(np.ones((2, 2, 2))), ValueError, ("square",)),
        Case("psd-1d", psd(np.ones(3)), ValueError, ("square",)),
        Case("psd-empty", psd(np.zeros((0, 0))), ValueError, ("empty",)),
        Case("psd-complex", psd(np.eye(2) * 1j), ValueError, ("complex",)),
        Case("psd-strings", psd(np.array([["a", "b"], ["c", "d"]])), ValueError, ("real",)),
        Case("psd-objects", psd([[1, None], [None, 1]]), ValueError, ("real",)),
        Case("psd-nan", psd(np.where(np.eye(2) > 0, 1.0, np.nan)), ValueError, ("nan", "(0, 1)")),
        Case("psd-inf", psd(np.where(np.eye(2) > 0, np.inf, 0.0)), ValueError, ("inf", "(0, 0)")),
        Case("psd-asymmetric", psd(asym), ValueError, ("symmetric", "K[0, 1]")),
        Case("psd-float16", psd(np.eye(3, dtype=np.float16)), ValueError, ("float16",)),
        Case("psd-tol-string", psd(np.eye(2), "1e-8"), TypeError, ("tol",)),
        Case("psd-tol-negative", psd(np.eye(2), -1.0), ValueError, ("tol",)),
        Case("psd-tol-nan", psd(np.eye(2), math.nan), ValueError, ("tol",)),
        Case("psd-tol-bool", psd(np.eye(2), True), TypeError, ("tol",)),
        Case("psd-method", psd(np.eye(2), method="cholesky"), ValueError, ("method",)),
        Case("psd-sym-rtol-string", psd(np.eye(2), sym_rtol="x"), TypeError, ("sym_rtol",)),
        Case("psd-ragged", psd([[1.0, 0.0], [0.0]]), ValueError, ()),
        Case("psd-sparse-nonsquare", psd(sparse.eye(2, 3)), ValueError, ("square",)),
        Case(
            "assert-psd-indefinite",
            lambda: __import__("structk").assert_psd(np.array([[0.0, 1.0], [1.0, 0.0]])),
            ValueError,
            ("NOT positive",),
        ),
    ]


# ---------------------------------------------------------------------- HMM
def _hmm_cases():
    def hmm(**kw):
        from structk import DiscreteHMM

        return DiscreteHMM(**{"n_states": 2, "random_state": 0, **kw})

    def from_params(*args, **kw):
        from structk import DiscreteHMM

        return lambda: DiscreteHMM.from_params(*args, **kw)

    good = _strings()
    return [
        Case("hmm-n_states-0", lambda: hmm(n_states=0).fit(good), ValueError, ("n_states",)),
        Case("hmm-n_states-str", lambda: hmm(n_states="2").fit(good), TypeError, ("n_states",)),
        Case("hmm-n_iter-0", lambda: hmm(n_iter=0).fit(good), ValueError, ("n_iter",)),
        Case("hmm-tol-negative", lambda: hmm(tol=-1.0).fit(good), ValueError, ("tol",)),
        Case(
            "hmm-algorithm-unknown",
            lambda: hmm(algorithm="fast").fit(good),
            ValueError,
            ("algorithm", "'fast'", "squarem"),
        ),
        Case(
            "hmm-convergence-unknown",
            lambda: hmm(convergence="total").fit(good),
            ValueError,
            ("convergence", "'total'", "absolute"),
        ),
        Case(
            "hmm-init-unknown",
            lambda: hmm(init="kmeans").fit(good),
            ValueError,
            ("init", "'kmeans'", "frequencies"),
        ),
        Case(
            "hmm-alphabet-int",
            lambda: hmm(alphabet=5).fit(good),
            (TypeError, ValueError),
            ("alphabet",),
        ),
        Case("hmm-fit-empty-list", lambda: hmm().fit([]), ValueError, ("empty",)),
        Case("hmm-fit-empty-sequence", lambda: hmm().fit(["ACGT", ""]), ValueError, ("X[1]",)),
        Case(
            "hmm-fit-unknown-symbol",
            lambda: hmm().fit(["ACGT", "ACGZ"]),
            ValueError,
            ("X[1]", "'Z'"),
        ),
        Case("hmm-fit-None", lambda: hmm().fit(["ACGT", None]), (TypeError, ValueError), ("X[1]",)),
        Case("hmm-fit-int", lambda: hmm().fit(["ACGT", 7]), (TypeError, ValueError), ("X[1]",)),
        Case("hmm-fit-single-string", lambda: hmm().fit("ACGT"), TypeError, ("X",)),
        Case("hmm-score-unfitted", lambda: hmm().score(good), Exception, ("fit",)),
        Case(
            "hmm-score-unknown-symbol",
            lambda: _hmm().score(["ACGT", "ACGN"]),
            ValueError,
            ("X[1]", "'N'"),
        ),
        Case("hmm-decode-empty", lambda: _hmm().decode([""]), ValueError, ("X[0]",)),
        Case("hmm-sample-negative", lambda: _hmm().sample(-1, 5), ValueError, ("n_sequences",)),
        Case("hmm-sample-length-0", lambda: _hmm().sample(2, 0), ValueError, ("length",)),
        Case(
            "hmm-from-params-not-stochastic",
            from_params([0.5, 0.5], [[0.5, 0.5], [0.5, 0.6]], [[0.25] * 4, [0.25] * 4]),
            ValueError,
            ("transmat",),
        ),
        Case(
            "hmm-from-params-shape",
            from_params([0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]], [[0.25] * 3, [0.25] * 3]),
            ValueError,
            ("emissionprob",),
        ),
        Case(
            "hmm-from-params-negative",
            from_params([1.5, -0.5], [[0.5, 0.5], [0.5, 0.5]], [[0.25] * 4, [0.25] * 4]),
            ValueError,
            ("startprob",),
        ),
        Case(
            "fisher-scores-unfitted",
            lambda: __import__("structk.kernels", fromlist=["fisher_scores"]).fisher_scores(
                hmm(), good
            ),
            Exception,
            ("fit",),
        ),
    ]


# ------------------------------------------------------------------ readers
def _reader_cases(tmp):
    from structk.cli.inputs import read_objects
    from structk.datasets import load_tu
    from structk.sequences import read_fasta

    text = tmp / "notes.fa"
    text.write_text("just some text\nwithout records\n")
    truncated = tmp / "cut.fa.gz"
    rng = np.random.default_rng(0)
    body = "".join(f">s{i}\n{''.join(rng.choice(list('ACGT'), 200))}\n" for i in range(50))
    whole = gzip.compress(body.encode())
    truncated.write_bytes(whole[: len(whole) // 2])
    binary = tmp / "bin.fa"
    binary.write_bytes(bytes(range(256)) * 4)
    tu = tmp / "EMPTY_A"
    tu.mkdir()
    (tu / "EMPTY_A_A.txt").write_text("")
    (tu / "EMPTY_A_graph_indicator.txt").write_text("1\n1\n")
    (tu / "EMPTY_A_graph_labels.txt").write_text("1\n")
    tu_bad = tmp / "BADIND"
    tu_bad.mkdir()
    (tu_bad / "BADIND_A.txt").write_text("1, 2\n2, x\n")
    (tu_bad / "BADIND_graph_indicator.txt").write_text("1\n1\n")
    (tu_bad / "BADIND_graph_labels.txt").write_text("1\n")
    ragged = tmp / "ragged.csv"
    ragged.write_text("1,2,3\n4,5\n")
    words = tmp / "words.csv"
    words.write_text("1,2\n3,abc\n")
    return [
        Case("read_fasta-no-records", lambda: read_fasta(text), ValueError, ("notes.fa",)),
        Case("read_fasta-truncated-gz", lambda: read_fasta(truncated), ValueError, ("cut.fa.gz",)),
        Case("read_fasta-binary", lambda: read_fasta(binary), ValueError, ("bin.fa",)),
        Case(
            "read_fasta-missing",
            lambda: read_fasta(tmp / "nope.fa"),
            FileNotFoundError,
            ("nope.fa",),
        ),
        Case("load_tu-empty-A", lambda: load_tu(tu), ValueError, ("EMPTY_A_A.txt",)),
        Case("load_tu-bad-number", lambda: load_tu(tu_bad), ValueError, ("BADIND_A.txt",)),
        Case("load_tu-missing", lambda: load_tu(tmp / "NOPE"), FileNotFoundError, ("NOPE",)),
        Case(
            "read_objects-ragged-csv", lambda: read_objects(ragged), ValueError, ("ragged.csv", "2")
        ),
        Case(
            "read_objects-words-csv", lambda: read_objects(words), ValueError, ("words.csv", "abc")
        ),
        Case(
            "read_objects-unknown-format", lambda: read_objects(text, "xml"), ValueError, ("xml",)
        ),
    ]


# ---------------------------------------------------------------- the CLI
def run_cli(*argv):
    """Run ``structk`` in-process: exit status and standard error."""
    from structk import cli

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:  # argparse
            code = exc.code
    return code, err.getvalue()


def _cli(*argv):
    def call():
        code, err = run_cli(*argv)
        lines = err.strip().splitlines()
        if code == 2 and len(lines) == 1:
            raise CLIRefused(lines[0])
        return code, err

    return call


def _fitted(tmp, name, *fit_argv):
    """The model file ``tmp/name``, fitted by ``structk fit`` on first use."""
    model = tmp / name
    if not model.exists():
        code, err = run_cli("fit", *fit_argv, "-o", model, "--quiet")
        if code != 0:
            raise SetupError(f"structk fit failed: {err.strip()}")
    return model


def _predict(tmp, model, fit_argv, *argv):
    def call():
        return _cli("predict", _fitted(tmp, model, *fit_argv), *argv)()

    return call


def _model_cases(tmp):
    """structk fit / predict: wrong kind of objects, a missing column, a
    symbol the model never saw, a half-given pair, files that are not models."""
    fa = tmp / "train.fa"
    fa.write_text(">a class=x\nACGTAC\n>b class=y\nTTGACA\n>c class=x\nACGAAC\n")
    seq_fit = (
        fa,
        "--label-pattern",
        r"class=(\S+)",
        "--kernel",
        "Spectrum(k=2)",
        "--learner",
        "KernelSVM(C=1)",
    )
    csv = tmp / "train.csv"
    csv.write_text("a,b,label\n0,1,x\n1,0,y\n2,2,x\n3,1,y\n")
    vec_fit = (
        csv,
        "--label-column",
        "label",
        "--kernel",
        "Gaussian()",
        "--learner",
        "KernelSVM(C=1)",
    )
    unseen = tmp / "unseen.fa"
    unseen.write_text(">ok\nACGT\n>odd\nACNGT\n")
    short = tmp / "short.csv"
    short.write_text("a,c\n1,2\n")
    pkl = tmp / "model.pkl"
    pkl.write_bytes(b"\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00K\x01.")
    graphs = tmp / "graphs"
    if not graphs.exists():
        import shutil

        from structk.datasets import bundled_path

        shutil.copytree(bundled_path("graph_families"), graphs)
    return [
        Case(
            "cli-fit-positive-without-negative",
            _cli("fit", "--positive", fa, "--kernel", "Spectrum()", "-o", tmp / "p.structk"),
            CLIRefused,
            ("--positive needs --negative",),
        ),
        Case(
            "cli-fit-negative-without-positive",
            _cli("fit", "--negative", fa, "--kernel", "Spectrum()", "-o", tmp / "p.structk"),
            CLIRefused,
            ("--negative needs --positive",),
        ),
        Case(
            "cli-fit-no-input",
            _cli("fit", "--kernel", "Spectrum()", "-o", tmp / "p.structk"),
            CLIRefused,
            ("INPUT", "--positive"),
        ),
        Case(
            "cli-predict-graphs-to-sequence-model",
            _predict(tmp, "seq.structk", seq_fit, graphs),
            CLIRefused,
            ("seq.structk", "predicts from sequences", "graphs"),
        ),
        Case(
            "cli-predict-unseen-symbol",
            _predict(tmp, "seq.structk", seq_fit, unseen),
            CLIRefused,
            ("unseen.fa", "record 1 (odd)", "'N'", "never saw"),
        ),
        Case(
            "cli-predict-missing-column",
            _predict(tmp, "vec.structk", vec_fit, short),
            CLIRefused,
            ("short.csv", "'b'"),
        ),
        Case(
            "cli-predict-sequences-to-vector-model",
            _predict(tmp, "vec.structk", vec_fit, unseen),
            CLIRefused,
            ("vec.structk", "numeric vectors", "unseen.fa"),
        ),
        Case(
            "cli-predict-pickle", _cli("predict", pkl, unseen), CLIRefused, ("model.pkl", "pickle")
        ),
        Case(
            "cli-predict-not-a-model",
            _cli("predict", csv, unseen),
            CLIRefused,
            ("train.csv", "not a structk model file"),
        ),
        Case(
            "cli-predict-missing-model",
            _cli("predict", tmp / "gone.structk", unseen),
            CLIRefused,
            ("gone.structk",),
        ),
    ]


def _cli_cases(tmp):
    fa = tmp / "ok.fa"
    fa.write_text(">a\nACGT\n>b\nAGGT\n")
    text = tmp / "notes.txt"
    text.write_text("hello\n")
    tsv = tmp / "K.tsv"
    tsv.write_text("\ta\tb\na\t1\tx\nb\t0\t1\n")  # a labelled Gram with a word in it
    npy_rect = tmp / "rect.npy"
    np.save(npy_rect, np.ones((2, 3)))
    npy_c = tmp / "complex.npy"
    np.save(npy_c, np.eye(2) * 1j)
    npy_obj = tmp / "obj.npy"
    np.save(npy_obj, np.array([[1, None]], dtype=object), allow_pickle=True)
    npy_nan = tmp / "nan.npy"
    np.save(npy_nan, np.where(np.eye(2) > 0, 1.0, np.nan))
    ragged = tmp / "ragged.csv"
    ragged.write_text("1,2,3\n4,5\n")
    nofa = tmp / "nothing.fa"
    nofa.write_text("no records here\n")
    labels = tmp / "labels.txt"
    labels.write_text("a\n")
    labels2 = tmp / "labels2.txt"
    labels2.write_text("a\nb\n")
    long_fa = tmp / "long.fa"
    long_fa.write_text(">a\n" + "ACGT" * 10 + "\n")
    npy_eye = tmp / "eye.npy"
    np.save(npy_eye, np.eye(2))
    out = tmp / "K.npy"
    gram = ("gram", fa, "-o", out, "--quiet", "--kernel")
    return [
        Case("cli-check-psd-text", _cli("check-psd", text), CLIRefused, ("notes.txt",)),
        Case(
            "cli-check-psd-tsv-of-gram",
            _cli("check-psd", tsv),
            CLIRefused,
            ("K.tsv", "(0, 1)", "'x'"),
        ),
        Case(
            "cli-check-psd-missing", _cli("check-psd", tmp / "none.npy"), CLIRefused, ("none.npy",)
        ),
        Case("cli-check-psd-rect", _cli("check-psd", npy_rect), CLIRefused, ("square",)),
        Case("cli-check-psd-complex", _cli("check-psd", npy_c), CLIRefused, ("complex",)),
        Case("cli-check-psd-object", _cli("check-psd", npy_obj), CLIRefused, ("obj.npy",)),
        Case("cli-check-psd-nan", _cli("check-psd", npy_nan), CLIRefused, ("nan",)),
        Case(
            "cli-check-psd-tol-negative",
            _cli("check-psd", npy_eye, "--tol", "-1"),
            CLIRefused,
            ("tol",),
        ),
        Case(
            "cli-gram-ragged-csv",
            _cli("gram", ragged, "-o", out, "--kernel", "Linear()"),
            CLIRefused,
            ("ragged.csv",),
        ),
        Case(
            "cli-gram-no-records",
            _cli("gram", nofa, "-o", out, "--kernel", "Spectrum()"),
            CLIRefused,
            ("nothing.fa",),
        ),
        Case(
            "cli-gram-missing-input",
            _cli("gram", tmp / "gone.fa", "-o", out, "--kernel", "Spectrum()"),
            CLIRefused,
            ("gone.fa",),
        ),
        Case("cli-gram-unknown-kernel", _cli(*gram, "Spektrum(k=3)"), CLIRefused, ("Spektrum",)),
        Case("cli-gram-syntax", _cli(*gram, "Spectrum(k=3"), CLIRefused, ("Spectrum(k=3",)),
        Case(
            "cli-gram-huge-power", _cli(*gram, "Spectrum(k=9**9**9**9)"), CLIRefused, ("too large",)
        ),
        Case("cli-gram-huge-k", _cli(*gram, "Mismatch(k=10**10, m=1)"), CLIRefused, ("k=",)),
        Case(
            "cli-gram-mismatch-memory",
            _cli("gram", long_fa, "-o", out, "--kernel", "Mismatch(k=20, m=10)"),
            CLIRefused,
            ("m=10",),
        ),
        Case("cli-gram-bad-param", _cli(*gram, "Spectrum(k=0)"), CLIRefused, ("k",)),
        Case("cli-gram-unknown-arg", _cli(*gram, "Spectrum(kk=3)"), CLIRefused, ("kk",)),
        Case(
            "cli-gram-eval-attempt",
            _cli(*gram, "__import__('os').system('true')"),
            CLIRefused,
            ("not allowed",),
        ),
        Case("cli-gram-wrong-family", _cli(*gram, "Gaussian()"), CLIRefused, ("X[0]",)),
        Case(
            "cli-gram-unknown-symbol", _cli(*gram, "Spectrum(alphabet='AC')"), CLIRefused, ("'G'",)
        ),
        Case(
            "cli-gram-block-size-0",
            _cli(*gram, "Spectrum()", "--block-size", "0"),
            CLIRefused,
            ("--block-size", "at least 1"),
        ),
        Case(
            "cli-gram-output-folder",
            _cli("gram", fa, "-o", tmp / "nodir" / "K.npy", "--kernel", "Spectrum()"),
            CLIRefused,
            ("nodir",),
        ),
        Case(
            "cli-gram-unknown-format",
            _cli("gram", text, "--input-format", "sets", "-o", out, "--kernel", "Spectrum()"),
            CLIRefused,
            ("X[0]",),
        ),
        Case(
            "cli-gram-guess-format",
            _cli("gram", tmp / "K.tsv", "-o", out, "--kernel", "Spectrum()"),
            CLIRefused,
            ("K.tsv",),
        ),
        Case("cli-cv-no-labels", _cli("cv", fa, "--kernel", "Spectrum()"), CLIRefused, ("labels",)),
        Case(
            "cli-cv-label-pattern-miss",
            _cli("cv", fa, "--kernel", "Spectrum()", "--label-pattern", "class=(\\S+)"),
            CLIRefused,
            ("record 0",),
        ),
        Case(
            "cli-cv-bad-regex",
            _cli("cv", fa, "--kernel", "Spectrum()", "--label-pattern", "("),
            CLIRefused,
            ("label-pattern",),
        ),
        Case(
            "cli-cv-label-count",
            _cli("cv", fa, "--kernel", "Spectrum()", "--labels", labels),
            CLIRefused,
            ("labels.txt",),
        ),
        Case(
            "cli-cv-unknown-learner",
            _cli("cv", fa, "--kernel", "Spectrum()", "--labels", labels2, "--learner", "SVC()"),
            CLIRefused,
            ("SVC",),
        ),
        Case(
            "cli-cv-learner-class",
            _cli("cv", fa, "--kernel", "Spectrum()", "--labels", labels2, "--learner", "KernelSVM"),
            CLIRefused,
            ("'KernelSVM' is a class", "KernelSVM()"),
        ),
        Case(
            "cli-gram-kernel-class",
            _cli(*gram, "Spectrum"),
            CLIRefused,
            ("'Spectrum' is a class", "Spectrum()"),
        ),
        Case(
            "cli-gram-kernel-function",
            _cli(*gram, "smith_waterman"),
            CLIRefused,
            ("'smith_waterman' is a function", "EmpiricalKernelMap"),
        ),
        Case(
            "cli-gram-kernel-function-called",
            _cli(*gram, "smith_waterman(['A'])"),
            CLIRefused,
            ("'smith_waterman' is a function",),
        ),
        Case("cli-gram-kernel-number", _cli(*gram, "3"), CLIRefused, ("'3' is not a kernel",)),
        Case(
            "cli-gram-alphabet-mismatch",
            _cli("gram", fa, "-o", out, "--quiet", "--kernel", "Spectrum()", "--alphabet", "ACG"),
            CLIRefused,
            ("--alphabet ACG", "record 0 (a)", "symbol 'T' at position 3"),
        ),
    ]


# -------------------------------------------------------- the validity kit
def _always_raises(x, y):
    raise ZeroDivisionError("always")


def _kernel_class(name):
    from structk import kernels

    return getattr(kernels, name)


def _validity_cases(tmp):
    """A verdict needs evaluations: kernels that cannot be called or that fail on
    every input are refused or reported inconclusive, never "no counterexample"."""

    def kit(name, kernel, *args, **kwargs):
        def call():
            from structk import testing

            if not hasattr(testing, "as_kernel"):
                raise SetupError("structk.testing accepts kernel objects only")
            objects = args[0] if args else testing.vectors(dim=2)
            return getattr(testing, name)(kernel, objects, pool_sizes=(16,), **kwargs)

        return call

    def hmm_unfitted():
        from structk.hmm import DiscreteHMM
        from structk.kernels import FisherKernel

        return FisherKernel(DiscreteHMM(2, "ACGT"))

    def strings():
        from structk.testing import strings

        return strings("ACGT")

    files = {
        "sims": "def ok(a, b):\n    return len(a & b)\n",
        "syntax": "def f(a, b):\n    return len(a & b\n",
        "raises": "X = 1 / 0\n",
        "exits": "import sys\nsys.exit(5)\n",
    }
    for name, text in files.items():
        (tmp / f"kit_{name}.py").write_text(text)
    sims, syntax, raising, exiting = (tmp / f"kit_{name}.py" for name in files)
    ck = ("check-kernel",)
    return [
        Case("kit-check-none", kit("check_kernel", None), TypeError, ("NoneType",)),
        Case("kit-check-number", kit("check_kernel", 3), TypeError, ("int",)),
        Case(
            "kit-check-class",
            lambda: kit("check_kernel", _kernel_class("Linear"))(),
            TypeError,
            ("Linear()",),
        ),
        Case(
            "kit-check-one-argument",
            kit("check_kernel", _first_coordinate),
            TypeError,
            ("_first_coordinate(x)", "two objects"),
        ),
        Case(
            "kit-find-always-raises",
            kit("find_psd_counterexample", _always_raises),
            ValueError,
            ("nothing was checked", "ZeroDivisionError: always"),
        ),
        Case(
            "kit-find-nan",
            kit("find_psd_counterexample", lambda x, y: float("nan")),
            ValueError,
            ("nothing was checked", "non-finite"),
        ),
        Case(
            "kit-find-complex",
            kit("find_psd_counterexample", lambda x, y: 1j),
            ValueError,
            ("nothing was checked", "complex"),
        ),
        Case(
            "kit-find-text",
            kit("find_psd_counterexample", lambda x, y: "1.0"),
            ValueError,
            ("nothing was checked", "str"),
        ),
        Case(
            "kit-assert-allowed-errors-but-nothing-checked",
            kit("assert_kernel_psd", _always_raises, allow_errors=True),
            ValueError,
            ("nothing was checked", "ZeroDivisionError"),
        ),
        Case(
            "kit-fisher-untrained-hmm",
            lambda: kit("find_psd_counterexample", hmm_unfitted(), strings())(),
            ValueError,
            ("k.fit(a pool of 16 strings)", "NotFittedError"),
        ),
        Case(
            "kit-time-limit-zero",
            kit("check_kernel", _dot, time_limit=0),
            ValueError,
            ("time_limit",),
        ),
        Case(
            "cli-check-kernel-syntax",
            _cli(*ck, f"{syntax}:f", "--objects", "sets"),
            CLIRefused,
            (f"{syntax}:2: syntax error",),
        ),
        Case(
            "cli-check-kernel-raises-at-import",
            _cli(*ck, f"{raising}:f"),
            CLIRefused,
            (f"importing {raising} failed at {raising}:1", "ZeroDivisionError"),
        ),
        Case(
            "cli-check-kernel-sys-exit-at-import",
            _cli(*ck, f"{exiting}:f"),
            CLIRefused,
            (f"importing {exiting} failed", "sys.exit(5)"),
        ),
        Case(
            "cli-check-kernel-nothing-checked",
            _cli(*ck, f"{sims}:ok", "--objects", "strings", "--pools", "16"),
            CLIRefused,
            ("inconclusive: nothing was checked", "TypeError"),
        ),
    ]


def _explain_cases(tmp):
    """structk.explain: models it cannot decompose, variants that disagree."""

    def explain(kernel, **kw):
        def call():
            from structk.explain import Explainer
            from structk.learners import KernelSVM

            model = KernelSVM(kernel=kernel).fit(_strings() * 2, [0, 1, 1, 0, 0, 1])
            Explainer(model, **kw)

        return call

    def variants(line):
        def call():
            from structk.explain import read_variants

            (tmp / "ref.fa").write_text(">chr1\nACGTACGTAC\n")
            (tmp / "variants.tsv").write_text(line)
            read_variants(tmp / "variants.tsv", tmp / "ref.fa")

        return call

    def kernels():
        from structk.kernels import Exp, LocalAlignment, Spectrum

        return LocalAlignment(), Exp(Spectrum(k=2))

    def precomputed():
        from structk.explain import Explainer
        from structk.kernels import Spectrum
        from structk.learners import KernelSVM

        Explainer(KernelSVM().fit(Spectrum(k=2)(_strings()), [0, 1, 1]))

    try:
        la, exp = kernels()
        rc_presence = type(exp.kernel)(k=2, presence=True, reverse_complement=True)
        from structk.kernels import GappedKmer, Normalize

        gkm_large = GappedKmer(l=13, k=11, d=2)
    except ImportError as exc:  # the explain package is missing from this checkout
        raise SetupError(str(exc)) from None
    return [
        Case("explain-local-alignment", explain(la), TypeError, ("LocalAlignment", "ism")),
        Case(
            "explain-normalized-product",
            explain(Normalize(exp * exp.kernel)),
            TypeError,
            ("Normalize", "nonlinear", "ism"),
        ),
        Case("explain-rc-presence", explain(rc_presence), NotImplementedError, ("presence", "ism")),
        Case("explain-gkm-large-l", explain(gkm_large), NotImplementedError, ("4^l", "ism")),
        Case(
            "explain-output-out-of-range",
            explain(kernels()[1].kernel, output=3),
            ValueError,
            ("output",),
        ),
        Case("explain-precomputed", precomputed, TypeError, ("precomputed",)),
        Case(
            "variant-ref-mismatch",
            variants("v\tchr1\t3\tA\tT\n"),
            ValueError,
            ("line 1", "'A'", "'G'"),
        ),
        Case("variant-no-record", variants("v\tchr2\t3\tG\tT\n"), ValueError, ("line 1", "chr2")),
        Case("variant-bad-position", variants("v\tchr1\tx\tG\tT\n"), ValueError, ("line 1", "'x'")),
    ]


def _raising_similarity(X, Z):
    return np.array([[1.0 / (x != "bad") for _ in Z] for x in X])


def _naming_cases(tmp):
    """Errors that must name the right thing: the sample an object came from,
    the call that failed, the line of a file."""
    from structk.kernels import EmpiricalKernelMap, Spectrum
    from structk.stats import mmd_test

    non_utf8 = tmp / "latin1.fa"
    non_utf8.write_bytes(b">a\nACGT\n>b x\nAC\xe9GT\n")
    empty = tmp / "empty_records.fa"
    empty.write_text("".join(f">r{i}\n" for i in range(100)))
    return [
        Case(
            "mmd-string-X-vector-Y",
            lambda: mmd_test(Spectrum(k=2), _strings(), list(_vectors())),
            ValueError,
            ("Y[0]",),
        ),
        Case(
            "ekm-similarity-raises",
            lambda: EmpiricalKernelMap(_raising_similarity, ["ACGT", "bad"])(["ACGT", "bad"]),
            ValueError,
            ("similarity(X, landmarks) raised ZeroDivisionError",),
        ),
        Case(
            "fasta-non-utf8-byte",
            lambda: _read_fasta(non_utf8),
            ValueError,
            ("latin1.fa", "line 4 of record 'b'", "0xe9"),
        ),
        Case(
            "cli-cv-empty-records",
            _cli("cv", empty, "--kernel", "Spectrum()"),
            CLIRefused,
            ("empty_records.fa", "no sequence", "100 of 100"),
        ),
        Case(
            "WL-h-1e9",
            lambda: _k("WeisfeilerLehman", h=10**9)()(_graphs()),
            MemoryError,
            ("h=1000000000", "GiB"),
        ),
        Case(
            "WLOA-h-1e9",
            lambda: _k("WeisfeilerLehmanOptimalAssignment", h=10**9)()(_graphs()),
            MemoryError,
            ("h=1000000000", "GiB"),
        ),
        Case(
            "cli-cv-jobs-0",
            _cli("cv", non_utf8, "--kernel", "Spectrum()", "--jobs", "0"),
            CLIRefused,
            ("--jobs", "at least 1"),
        ),
        Case(
            "cli-cv-inner-folds-1",
            _cli("cv", non_utf8, "--kernel", "Spectrum()", "--inner-folds", "1"),
            CLIRefused,
            ("--inner-folds", "at least 2"),
        ),
        Case(
            "ridge-complex-target",
            lambda: _ridge_fit([1.0, 2.0, 3.0, 4.0 + 2j]),
            ValueError,
            ("y[3]", "complex"),
        ),
        Case(
            "ridge-ragged-target",
            lambda: _ridge_fit([1.0, [2.0, 3.0], 3.0, 4.0]),
            ValueError,
            ("y must hold numbers",),
        ),
    ]


def _ridge_fit(y):
    from structk.kernels import Linear
    from structk.learners import KernelRidge

    X = np.arange(2 * len(y), dtype=float).reshape(len(y), 2)
    return KernelRidge(kernel=Linear()).fit(X, y)


def _repair_cases():
    """Spectrum repair of a similarity: parameters and fitting."""
    from sklearn.exceptions import NotFittedError

    def repair(**kw):
        from structk.kernels import SpectrumRepair

        return SpectrumRepair(_smith_waterman, **kw)

    def no_positive():
        from structk.kernels import SpectrumRepair

        return SpectrumRepair(lambda X, Z: -np.ones((len(X), len(Z)))).fit(_proteins())

    return [
        Case(
            "SpectrumRepair-method-shift",
            lambda: repair(method="shift").fit(_proteins()),
            ValueError,
            ("method", "'shift'"),
        ),
        Case(
            "SpectrumRepair-unfitted",
            lambda: repair()(_proteins()),
            NotFittedError,
            ("SpectrumRepair", "fit"),
        ),
        Case(
            "SpectrumRepair-rcond-1",
            lambda: repair(rcond=1.0).fit(_proteins()),
            ValueError,
            ("rcond",),
        ),
        Case(
            "SpectrumRepair-no-positive-eigenvalue",
            no_positive,
            ValueError,
            ("no positive eigenvalue",),
        ),
        Case(
            "Spectrum-dna-default-given-proteins",
            lambda: _k("Spectrum", k=3)()(["MKVLAAGIVHHW", "PQERTYDDCSNG"]),
            ValueError,
            ("X[0]", "'M'", "alphabet='protein'"),
        ),
        Case(
            "DiscreteHMM-protein-given-X",
            lambda: __import__("structk").DiscreteHMM(alphabet="protein").fit(["MKVLAXGIV"]),
            ValueError,
            ("X[0]", "'X'", "alphabet='protein-extended'"),
        ),
    ]


def _read_fasta(path):
    from structk.sequences import read_fasta

    return read_fasta(path)


def all_cases(tmp):
    """Every case; ``tmp`` is a folder for the files the reader and CLI cases need."""
    from model_file_cases import model_file_cases

    return (
        model_file_cases(tmp)
        + _kernel_cases()
        + _explicit_kernel_cases()
        + _learner_cases()
        + _psd_cases()
        + _beyond_gram_cases()
        + _hmm_cases()
        + _reader_cases(tmp)
        + _cli_cases(tmp)
        + _model_cases(tmp)
        + _validity_cases(tmp)
        + _explain_cases(tmp)
        + _naming_cases(tmp)
        + _repair_cases()
        + _answer_cases()
    )


def _unrelated_sequences():
    rng = np.random.default_rng(0)
    return ["".join(rng.choice(list("ACGT"), 20)) for _ in range(6)]


def _label_graph(label):
    G = _graph(2)
    G.nodes[0]["label"] = label
    return G


def _answer_cases():
    """Unusual inputs with a right answer: a value, or a result and a warning."""
    return [
        Case(
            "spectrum-all-shorter-than-k-zero-features",
            lambda: _k("Normalize", _k("Spectrum", k=10)())()(["ACG", "TTGA", ""]),
            None,
            kind="result",
            check=lambda K: K.shape == (3, 3) and not K.any(),
        ),
        Case(
            "spectrum-protein-peptides-shorter-than-k-zero-features",
            lambda: _k("Normalize", _k("Spectrum", k=6, alphabet="protein")())()(["MKV", "GA"]),
            None,
            kind="result",
            check=lambda K: K.shape == (2, 2) and not K.any(),
        ),
        Case(
            "wl-labels-2**53-and-2**53+1-stay-distinct",
            lambda: _k("WeisfeilerLehman", h=1)()([_label_graph(2**53), _label_graph(2**53 + 1)]),
            None,
            kind="result",
            check=lambda K: K[0, 1] < K[0, 0] == K[1, 1],
        ),
        Case(
            "normalized-gram-numerically-identity-warns",
            lambda: _k("Normalize", _k("Spectrum", k=12)())()(_unrelated_sequences()),
            UserWarning,
            ("Spectrum",),
            kind="warning",
        ),
    ]


def outcome(case):
    """``"clear"`` (an error of kind ``"error"`` that names the item),
    ``"warned"`` (the warning a ``"warning"`` case wants), ``"correct"`` (a
    ``"result"`` case's right answer), ``"unclear"`` (wrong type, item not
    named, traceback), ``"silent"`` (no error or warning: a wrong answer),
    ``"wrong"`` (a result ``check`` refuses) or ``"n/a"`` (the case's API is
    missing), with a one-line description."""
    import warnings

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = case.call()
    except SetupError as exc:
        return "n/a", str(exc)
    except BaseException as exc:  # noqa: BLE001 - classifying every outcome
        message = str(exc)
        if (
            case.kind == "error"
            and isinstance(exc, case.error)
            and all(w in message for w in case.names)
        ):
            return "clear", message.splitlines()[0] if message else ""
        return "unclear", f"{type(exc).__name__}: {message[:300]}"
    if case.kind == "result":
        return ("correct", "right answer") if case.check(value) else ("wrong", repr(value)[:300])
    if case.kind == "warning":
        for w in caught:
            message = str(w.message)
            if issubclass(w.category, case.error) and all(n in message for n in case.names):
                return "warned", message.splitlines()[0]
        if caught:
            return "unclear", f"{caught[0].category.__name__}: {str(caught[0].message)[:300]}"
    return "silent", "no error"
