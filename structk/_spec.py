"""Parse a kernel or learner written as a Python expression, safely.

The command line takes kernels as expressions such as
``"Normalize(Spectrum(k=5)) + 0.5 * Gaussian(sigma=2)"``. Only calls of known
structk classes, numbers, strings, booleans, ``None``, tuples/lists of those
and the operators ``+ * / **`` are accepted: the text is parsed with
:mod:`ast` and evaluated node by node, never passed to ``eval``.
"""

from __future__ import annotations

import ast
import difflib
import operator

_BINOPS = {ast.Add: operator.add, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow}


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
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand, ns, what, text)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, ns, what, text) for e in node.elts)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, ns, what, text),
                                      _eval(node.right, ns, what, text))
    if isinstance(node, ast.Name):
        return _lookup(node.id, ns, what)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        cls = _lookup(node.func.id, ns, what)
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


def _lookup(name, ns, what):
    if name in ns:
        return ns[name]
    close = difflib.get_close_matches(name, list(ns), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown {what} {name!r}{hint} (known: {', '.join(sorted(ns))})")


def kernel_namespace():
    """Every public kernel class of :mod:`structk.kernels`, by name."""
    import structk.kernels as kernels

    return {name: getattr(kernels, name) for name in kernels.__all__ if name != "Kernel"}


def learner_namespace():
    """Every public learner class of :mod:`structk.learners`, by name."""
    import structk.learners as learners

    return {name: getattr(learners, name) for name in learners.__all__}
