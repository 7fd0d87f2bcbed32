"""Parse a kernel or learner written as a Python expression, safely.

The command line takes kernels as expressions such as
``"Normalize(Spectrum(k=5)) + 0.5 * Gaussian(sigma=2)"``. Only calls of known
structk classes, numbers, strings, booleans, ``None``, tuples/lists of those,
the operators ``+ * / **`` and the similarity methods of a kernel named in
:data:`SIMILARITY_METHODS` (``LocalAlignment(beta=0.5).log_kernel``, passed
as a value to ``SpectrumRepair`` or ``EmpiricalKernelMap``) are accepted: the
text is parsed with :mod:`ast` and evaluated node by node, never passed to
``eval``.

Arithmetic is bounded so that no expression can make the parser itself run
for long or fill the memory: an integer result may have at most
:data:`MAX_INT_BITS` bits (``9**9**9**9`` is refused at once, not
computed), a repeated string or tuple at most :data:`MAX_REPEAT` items, and
a float overflow is an error rather than ``inf``.
"""

from __future__ import annotations

import ast
import difflib
import math
import operator
from collections.abc import Mapping
from itertools import product

_BINOPS = {
    ast.Add: operator.add,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
#: Largest integer (in bits) an expression may compute: int64 and well beyond.
MAX_INT_BITS = 256
#: Longest string or tuple an expression may build by repetition (``"A" * n``).
MAX_REPEAT = 10**6
#: Methods of a kernel an expression may name (never call), by kernel class:
#: similarities that are not kernels themselves, for ``SpectrumRepair`` and
#: ``EmpiricalKernelMap`` to make kernels of (the list model files share).
from ..kernels.empirical import SIMILARITY_METHODS  # noqa: E402


def parse_spec(text, namespace, what="kernel"):
    """Build the object described by ``text`` from the classes in ``namespace``.

    Parameters
    ----------
    text : str
        E.g. ``"Normalize(Polynomial(degree=3) + Gaussian(sigma=0.5))"``.
    namespace : dict
        Allowed names (class name -> class).
    what : str
        Word used in error messages ("kernel", "learner").

    Raises
    ------
    ValueError
        For syntax errors, unknown names (with a suggestion) and any
        construct outside the allowed subset.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"cannot parse {what} {text!r}: {exc.msg}") from None
    return _eval(tree.body, namespace, what, text)


def _eval(node, ns, what, text):
    literal = (int, float, str, bool, type(None))
    if isinstance(node, ast.Constant) and isinstance(node.value, literal):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand, ns, what, text)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, ns, what, text) for e in node.elts)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left = _eval(node.left, ns, what, text)
        right = _eval(node.right, ns, what, text)
        snippet = ast.get_source_segment(text.strip(), node) or type(node.op).__name__
        return _bounded_binop(type(node.op), left, right, snippet)
    if isinstance(node, ast.Name):
        return _lookup(node.id, ns, what)
    if isinstance(node, ast.Attribute):
        return _similarity_method(node, _eval(node.value, ns, what, text), what, text)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        cls = _lookup(node.func.id, ns, what)
        if not isinstance(cls, type):
            raise ValueError(
                f"{node.func.id!r} is a function, not a {what}: it can only be passed to "
                f"one, e.g. EmpiricalKernelMap({node.func.id}, landmarks=[...])"
            )
        args = [_eval(a, ns, what, text) for a in node.args]
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise ValueError(f"**kwargs is not allowed in a {what} expression")
            kwargs[kw.arg] = _eval(kw.value, ns, what, text)
        try:
            return cls(*args, **kwargs)
        except TypeError as exc:
            raise ValueError(f"{node.func.id}: {exc}") from None
    snippet = ast.get_source_segment(text.strip(), node) or type(node).__name__
    raise ValueError(f"{snippet!r} is not allowed in a {what} expression")


def _similarity_method(node, owner, what, text):
    """``owner.attr`` for a method listed in :data:`SIMILARITY_METHODS`, else
    an error saying what may be named."""
    allowed = SIMILARITY_METHODS.get(type(owner).__name__, ())
    from structk.kernels import Kernel

    if isinstance(owner, Kernel) and node.attr in allowed:
        return getattr(owner, node.attr)
    snippet = ast.get_source_segment(text.strip(), node) or node.attr
    named = ", ".join(f"{cls}(...).{m}" for cls, ms in SIMILARITY_METHODS.items() for m in ms)
    raise ValueError(
        f"{snippet!r} is not allowed in a {what} expression (the only "
        f"attributes an expression may name are the similarities {named})"
    )


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _bounded_binop(op, a, b, snippet):
    """``a op b``, refusing results too large to be a sensible parameter
    before computing them (see the module documentation)."""
    if (
        op is ast.Pow
        and _is_int(a)
        and _is_int(b)
        and abs(a) > 1
        and b > 0
        and b * math.log2(abs(a)) > MAX_INT_BITS
    ):
        raise ValueError(
            f"{snippet!r} is too large: the result would have about "
            f"{b * math.log2(abs(a)):.3g} bits (at most {MAX_INT_BITS} are allowed)"
        )
    if (
        op is ast.Mult
        and _is_int(a)
        and _is_int(b)
        and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1
    ):
        raise ValueError(f"{snippet!r} is too large (more than {MAX_INT_BITS} bits)")
    if op is ast.Mult and (isinstance(a, (str, tuple)) or isinstance(b, (str, tuple))):
        seq, times = (a, b) if isinstance(a, (str, tuple)) else (b, a)
        if _is_int(times) and len(seq) * times > MAX_REPEAT:
            raise ValueError(f"{snippet!r} is too long (more than {MAX_REPEAT} items)")
    try:
        result = _BINOPS[op](a, b)
    except (TypeError, ZeroDivisionError, OverflowError) as exc:
        raise ValueError(f"cannot compute {snippet!r}: {exc}") from None
    if isinstance(result, float) and not math.isfinite(result):
        raise ValueError(f"{snippet!r} overflows: {result}")
    if _is_int(result) and result.bit_length() > MAX_INT_BITS:
        raise ValueError(f"{snippet!r} is too large (more than {MAX_INT_BITS} bits)")
    return result


def _lookup(name, ns, what):
    if name in ns:
        return ns[name]
    close = difflib.get_close_matches(name, list(ns), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    # the listing names the classes only: functions are values, not kernels
    known = sorted(n for n, v in ns.items() if isinstance(v, type))
    raise ValueError(f"unknown {what} {name!r}{hint} (known: {', '.join(known)})")


def kernel_namespace():
    """Every public kernel class of :mod:`structk.kernels`, by name: the
    subclasses of :class:`~structk.kernels.Kernel` (not the abstract base,
    and no functions such as ``smith_waterman`` or ``fisher_scores``)."""
    from structk import kernels

    out = {}
    for name in kernels.__all__:
        obj = getattr(kernels, name)
        if isinstance(obj, type) and issubclass(obj, kernels.Kernel) and obj is not kernels.Kernel:
            out[name] = obj
    return out


def similarity_namespace():
    """Functions a kernel expression may pass as a value (never call): the
    similarities :class:`~structk.kernels.EmpiricalKernelMap` turns into a
    kernel, e.g. ``EmpiricalKernelMap(smith_waterman, landmarks=['MKV', 'WPH'])``."""
    from structk.kernels import smith_waterman

    return {"smith_waterman": smith_waterman}


def parse_kernel(text):
    """The kernel instance an expression builds (:func:`parse_spec` with the
    kernel classes and :func:`similarity_namespace`).

    Raises
    ------
    ValueError
        As :func:`parse_spec`, and when the expression is not a kernel
        instance (a class not called, a function, a number), saying which.
    """
    from structk.kernels import Kernel

    kernel = parse_spec(text, {**kernel_namespace(), **similarity_namespace()}, "kernel")
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, type) and issubclass(kernel, Kernel):
        raise ValueError(f"kernel {text!r} is a class: call it, e.g. {kernel.__name__}()")
    if callable(kernel):
        if hasattr(kernel, "__self__"):  # a kernel's similarity method
            raise ValueError(
                f"kernel {text!r} is a similarity, not a kernel: repair it on the "
                f"training objects, e.g. SpectrumRepair({text.strip()}, normalize=True)"
            )
        name = getattr(kernel, "__name__", text)
        raise ValueError(
            f"kernel {text!r} is a function, not a kernel: wrap it, e.g. "
            f"EmpiricalKernelMap({name}, landmarks=[...])"
        )
    raise ValueError(
        f"kernel {text!r} is not a kernel (it is {type(kernel).__name__} "
        f"{kernel!r}); write e.g. Spectrum(k=3)"
    )


def kernel_grid(text):
    """The values of a kernel expression whose numeric parameters may be
    written as lists (``WeisfeilerLehman(h=[1, 2, 3])``): ``None`` when none
    is, else ``(grid, variants)`` with ``grid`` mapping each such parameter
    to its values and ``variants`` a list of ``(params, expression)``, one
    per combination, in grid order.

    A list counts as a grid only for a parameter whose default is a number
    and when all its items are numbers; other lists (landmarks, alphabets)
    are values.
    """
    import copy
    import inspect
    import numbers

    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None  # parse_kernel reports it
    ns = kernel_namespace()

    def number(e):
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
            e = e.operand
        return (
            isinstance(e, ast.Constant)
            and isinstance(e.value, numbers.Real)
            and not isinstance(e.value, bool)
        )

    slots = []  # (name, keyword node, values)
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and isinstance(ns.get(node.func.id), type)
        ):
            continue
        params = inspect.signature(ns[node.func.id]).parameters
        for kw in node.keywords:
            default = params[kw.arg].default if kw.arg in params else None
            if (
                isinstance(kw.value, ast.List)
                and kw.value.elts
                and all(number(e) for e in kw.value.elts)
                and isinstance(default, numbers.Real)
                and not isinstance(default, bool)
            ):
                values = [ast.literal_eval(e) for e in kw.value.elts]
                slots.append((kw.arg, kw, values))
    if not slots:
        return None
    names = [n for n, _, _ in slots]
    names = [n if names.count(n) == 1 else f"{n}#{i + 1}" for i, n in enumerate(names)]
    grid = {n: values for n, (_, _, values) in zip(names, slots)}
    variants = []
    for combo in product(*grid.values()):
        for (_, kw, _), value in zip(slots, combo):
            kw.value = ast.Constant(value)
        variants.append((dict(zip(names, combo)), ast.unparse(copy.deepcopy(tree))))
    return grid, variants


class _LazyNamespace(Mapping):
    """Names to the attributes of a lazily loaded package (``structk._lazy``):
    an attribute's module is imported when the name is looked up, so a
    learner expression imports the learner it names, not all of them (the
    Gaussian-process classifier's import brings scikit-learn's, 2.5-3 s of
    CPU in a ``structk fit`` that never uses it)."""

    def __init__(self, package):
        self._package = package

    def __getitem__(self, name):
        if name not in self._package.__all__:
            raise KeyError(name)
        return getattr(self._package, name)

    def __iter__(self):
        return iter(self._package.__all__)

    def __len__(self):
        return len(self._package.__all__)


def learner_namespace():
    """Every public learner class of :mod:`structk.learners`, by name (each
    imported when it is looked up)."""
    from structk import learners

    return _LazyNamespace(learners)


def parse_learner(text, namespace=None):
    """Parse a learner expression whose parameters may be written as lists.

    A list given for a parameter whose default is a single value (e.g.
    ``KernelSVM(C=[0.1, 1, 10])``) is a grid for the inner cross-validation
    of ``structk cv``; a list for a parameter that takes a sequence (e.g.
    ``KernelRidgeCV(alphas=[0.1, 1])``) is passed as the value.

    Returns
    -------
    estimator
        Built with the first value of each grid.
    grid : dict
        Parameter name -> list of candidate values.
    given : set
        Names of the parameters the expression sets.
    """
    import inspect

    ns = learner_namespace() if namespace is None else namespace
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"cannot parse learner {text!r}: {exc.msg}") from None
    node = tree.body
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return _eval(node, ns, "learner", text), {}, set()
    cls = _lookup(node.func.id, ns, "learner")
    defaults = {name: p.default for name, p in inspect.signature(cls).parameters.items()}
    grid = {}
    keywords = []
    for kw in node.keywords:
        if (
            kw.arg is not None
            and isinstance(kw.value, ast.List)
            and not isinstance(defaults.get(kw.arg), (tuple, list))
        ):
            values = [_eval(e, ns, "learner", text) for e in kw.value.elts]
            if not values:
                raise ValueError(f"{node.func.id}: the list of values for {kw.arg} is empty")
            grid[kw.arg] = values
            kw = ast.keyword(arg=kw.arg, value=kw.value.elts[0])
        keywords.append(kw)
    call = ast.Call(func=node.func, args=node.args, keywords=keywords)
    ast.copy_location(call, node)
    estimator = _eval(call, ns, "learner", text)
    return estimator, grid, {kw.arg for kw in node.keywords if kw.arg is not None}
