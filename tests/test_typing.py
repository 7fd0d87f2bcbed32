"""The typed public API: every public function and method of the modules that
mypy checks (``[tool.mypy] files`` in pyproject.toml) is annotated, and the
package ships its ``py.typed`` marker. ``.ci/run`` runs mypy on them."""

import importlib
import inspect
import tomllib
from pathlib import Path

import pytest

import structk
from structk.kernels.base import Kernel

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

pytestmark = pytest.mark.skipif(not PYPROJECT.exists(), reason="needs the source checkout")


def _typed_modules():
    files = tomllib.loads(PYPROJECT.read_text())["tool"]["mypy"]["files"]
    return [f.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for f in files]


#: Special methods that are part of the API (operators, comparison, calls).
DUNDERS = {
    "__init__",
    "__call__",
    "__eq__",
    "__hash__",
    "__add__",
    "__radd__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__pow__",
    "__sub__",
    "__neg__",
    "__bool__",
}
#: Modules typed whole; the kernel family modules are typed at their kernels'
#: public methods and the functions structk.kernels exports.
WHOLE = ("structk.kernels.base", "structk.kernels.algebra", "structk.psd", "structk.testing")


def _functions(module):
    """``(qualified name, function)`` of the module's public API."""
    whole = module.__name__.startswith(WHOLE)
    exported = set(structk.kernels.__all__)
    for name, obj in vars(module).items():
        if getattr(obj, "__module__", None) != module.__name__:
            continue  # imported, checked where it is defined
        if inspect.isfunction(obj):
            if (whole and not name.startswith("_")) or name in exported:
                yield name, obj
        elif inspect.isclass(obj):
            if not (issubclass(obj, Kernel) or (whole and not name.startswith("_"))):
                continue  # private kernel bases count: they give kernels __init__
            for attr, value in vars(obj).items():
                if attr.startswith("_") and attr not in DUNDERS:
                    continue
                if isinstance(value, (classmethod, staticmethod)):
                    value = value.__func__
                elif isinstance(value, property):
                    value = value.fget
                # written in the module (not made by @dataclass: __eq__, __hash__)
                if inspect.isfunction(value) and value.__code__.co_filename == module.__file__:
                    yield f"{name}.{attr}", value


def _unannotated(func):
    sig = inspect.signature(func)
    missing = [
        p.name
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
    ]
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


MODULES = _typed_modules()


def test_the_typed_modules_are_the_public_api():
    assert {
        "structk.kernels.base",
        "structk.kernels.algebra",
        "structk.psd",
        "structk.testing",
    } <= set(MODULES)
    kernel_modules = {Kernel.__module__}
    for name in structk.kernels.__all__:
        obj = getattr(structk.kernels, name)
        kernel_modules.add(obj.__module__)
    assert kernel_modules <= set(MODULES), "a kernel module outside the mypy list"


@pytest.mark.parametrize("module_name", MODULES)
def test_public_functions_are_annotated(module_name):
    module = importlib.import_module(module_name)
    found = dict(_functions(module))
    missing = {name: m for name, f in found.items() if (m := _unannotated(f))}
    assert not missing, f"{module_name}: unannotated {missing}"


def test_the_kernels_public_methods_are_annotated():
    """``__init__`` of every public kernel, and ``__call__``, ``diag`` and
    ``features`` wherever a kernel defines them."""
    for name in structk.kernels.__all__:
        cls = getattr(structk.kernels, name)
        if not (inspect.isclass(cls) and issubclass(cls, Kernel)):
            continue
        for method in ("__init__", "__call__", "diag", "features", "fit"):
            func = getattr(cls, method)
            if func is object.__init__:
                continue
            assert not _unannotated(func), f"{name}.{method}: {_unannotated(func)}"


def test_the_package_is_marked_typed():
    assert (Path(structk.__file__).parent / "py.typed").is_file()


def count_annotated():
    """How many public functions the typed modules annotate (for reports)."""
    return {m: len(dict(_functions(importlib.import_module(m)))) for m in MODULES}
