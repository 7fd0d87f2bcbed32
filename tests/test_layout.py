"""The layers call down, never up.

A compiled module is one that uses numba (imports it at module level, or
compiles with ``njit``), found by reading the code, whatever its name. Each
lives in the folder of its algorithm (``_numba.py`` or ``numba_*.py`` in a
package under :mod:`structk.algorithms` or :mod:`structk.learners`) and is
imported only by that folder (its ``__init__.py``, which holds the
orchestration and the public functions, and its siblings) and by other
compiled modules; a kernel, a learner's estimator module or an explanation
calls the folder's public functions, never a compiled module. A compiled
module may import only numba, NumPy, the first-compilation notice
(``structk._jit``), other compiled modules and the numba-free leaves they
compile (the labels' hash, the SMO step): never a kernel, learner,
explanation, command-line, scale or orchestration module, which call down
into it. Importing an algorithm's folder imports no numba.
The algorithms (:mod:`structk.algorithms`) import only each other and the
leaves below them (``_tuning``, ``defaults``, ``_threads``, ``_memory``, ``_jit``), never a
kernel, learner, scale or command-line module. Code outside
:mod:`structk.kernels` reaches a kernel through its public methods only
(the prepared-data seam of ``structk/kernels/base.py``), never its hooks.
"""

import ast
import functools
from pathlib import Path

import structk

ROOT = Path(structk.__file__).parent
LEAVES = {"structk._jit", "structk.algorithms.hashing", "structk.learners._smo.step"}


def _module_name(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _parse(path):
    """The syntax tree of a module (each file is read once per session)."""
    return ast.parse(path.read_text())


def _structk_imports(path):
    """Absolute names of the structk modules (or packages) ``path`` imports."""
    module = _module_name(path)
    package = module if path.stem == "__init__" else module.rsplit(".", 1)[0]
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("structk"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            elif node.module and node.module.startswith("structk"):
                base = node.module
            else:
                continue
            for a in node.names:  # "from pkg import module" names a module
                name = f"{base}.{a.name}"
                if not node.module or _is_module(name):
                    yield name
                if node.module:
                    yield base


def _is_module(name):
    """``name`` is a module or package of structk (not a function or class)."""
    path = ROOT.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _uses_numba(path):
    """True if ``path`` imports numba at module level or compiles with
    ``njit`` / ``jit`` (a module that imports numba inside a function only,
    to read a setting, compiles nothing)."""
    for node in _parse(path).body:
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "numba" for a in node.names
        ):
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and not node.level
            and node.module
            and node.module.split(".")[0] == "numba"
        ):
            return True
    return _compiles(path)


def _compiled_modules():
    """The modules that use numba, but the first-compilation notice itself."""
    return [p for p in ROOT.rglob("*.py") if _uses_numba(p) and _module_name(p) not in LEAVES]


def _compiled_names():
    return {_module_name(p) for p in _compiled_modules()}


def _is_compiled_name(name, compiled):
    """``name`` is a compiled module, or is named like one (``_numba``,
    ``numba_*``: a module that does not exist yet is still refused)."""
    leaf = name.rsplit(".", 1)[-1]
    return name in compiled or leaf == "_numba" or leaf.startswith("numba_")


def test_compiled_modules_exist_where_the_layout_says():
    names = _compiled_names()
    assert {
        f"structk.algorithms.{topic}._numba"
        for topic in (
            "kmers",
            "weighted_degree",
            "sparse_gram",
            "wl_relabel",
            "random_walk",
            "shortest_paths",
            "alignment",
            "hmm",
            "gram_blocks",
        )
    } <= names
    assert {
        "structk.learners._perceptron._numba",
        "structk.learners._ridge_loo._numba",
        "structk.learners._smo.numba_smo",
        "structk.learners._psd.numba_pass",
    } <= names


def test_every_compiled_loop_lives_in_the_folder_of_its_algorithm():
    """``_numba.py`` / ``numba_*.py`` in a package one level under
    structk/algorithms or structk/learners, beside the ``__init__.py`` that
    calls it (found by its use of numba, so a loop in a module of another
    name is found too)."""
    bad = []
    for path in _compiled_modules():
        parts = path.relative_to(ROOT).parts
        named = path.stem == "_numba" or path.stem.startswith("numba_")
        if not (
            named
            and len(parts) == 3
            and parts[0] in ("algorithms", "learners")
            and (path.parent / "__init__.py").exists()
        ):
            bad.append(str(path.relative_to(ROOT.parent)))
    assert not bad, bad


def test_compiled_modules_import_nothing_above_them():
    compiled = _compiled_names()
    upward = tuple(
        f"structk.{layer}" for layer in ("kernels", "learners", "explain", "cli", "scale")
    )
    bad = []
    for path in _compiled_modules():
        for name in _structk_imports(path):
            if name in LEAVES or name in compiled:
                continue
            what = "upward: " if name.startswith(upward) else ""
            bad.append(f"{_module_name(path)} imports {what}{name}")
    assert not bad, bad


def _callers():
    """The kernels, the learners' estimator modules and the explanations."""
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts
        if parts[0] in ("kernels", "explain") or (
            parts[0] == "learners"
            and len(parts) == 2
            and (path.stem == "__init__" or not path.stem.startswith("_"))
        ):
            yield path


def test_kernels_learners_and_explanations_never_import_compiled_modules():
    """They call one public function of the algorithm's folder (its
    ``__init__.py``), which picks the form, threads and chunks."""
    compiled = _compiled_names()
    bad = []
    for path in _callers():
        if _module_name(path) in compiled:
            bad.append(f"{_module_name(path)} is itself compiled")
        bad += [
            f"{_module_name(path)} imports {name}"
            for name in set(_structk_imports(path))
            if _is_compiled_name(name, compiled)
        ]
    assert not bad, sorted(bad)


def test_compiled_modules_are_imported_only_from_their_own_folder():
    """Outside its folder (and other compiled modules) no module imports a
    compiled one: the folder's ``__init__.py`` is its one entry."""
    compiled = _compiled_names()
    bad = []
    for path in ROOT.rglob("*.py"):
        module = _module_name(path)
        if module in compiled or module in LEAVES:
            continue
        here = module if path.stem == "__init__" else module.rsplit(".", 1)[0]
        for name in set(_structk_imports(path)):
            if _is_compiled_name(name, compiled) and name.rsplit(".", 1)[0] != here:
                bad.append(f"{module} imports {name}")
    assert not bad, sorted(bad)


def test_importing_an_algorithm_folder_imports_no_numba():
    """The ``__init__.py`` beside a compiled module imports numba and the
    compiled modules inside its functions only, when a rule picks them."""
    compiled = _compiled_names()
    bad = []
    for init in {p.parent / "__init__.py" for p in _compiled_modules()}:
        module = _module_name(init)
        for node in _parse(init).body:
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else (
                    [f"{module}.{a.name}" for a in node.names]
                    if node.level == 1 and not node.module
                    else [f"{module}.{node.module}" if node.level == 1 else node.module or ""]
                )
            )
            bad += [
                f"{module} imports {n} when imported"
                for n in names
                if n.split(".")[0] == "numba" or _is_compiled_name(n, compiled)
            ]
    assert not bad, bad


#: The bottom layer: modules every other layer may import (they import only each other).
BOTTOM = {
    "structk._tuning",
    "structk.defaults",
    "structk._threads",
    "structk._memory",
    "structk._jit",
    "structk.exceptions",
}


def test_algorithms_import_only_algorithms_and_the_bottom_layer():
    bad = []
    for path in (ROOT / "algorithms").rglob("*.py"):
        for name in _structk_imports(path):
            if (
                name in BOTTOM
                or name == "structk.algorithms"
                or name.startswith("structk.algorithms.")
            ):
                continue
            bad.append(f"{_module_name(path)} imports {name}")
    for name in BOTTOM:
        path = ROOT / (name.split(".", 1)[1].replace(".", "/") + ".py")
        if not path.exists():
            path = path.with_suffix("") / "__init__.py"
        bad += [
            f"{name} imports {n}"
            for n in _structk_imports(path)
            if n not in BOTTOM and n != "structk"
        ]
    assert not bad, bad


#: A kernel's hooks (``structk/kernels/base.py``): what a kernel implements, and
#: what only the kernel layer calls.
HOOKS = {
    "_check_params",
    "_check_fitted",
    "_validate",
    "_fit",
    "_kernel_params",
    "_prepare",
    "_prepare_with",
    "_prepare_encoded",
    "_encode",
    "_encoding_key",
    "_take",
    "_features",
    "_gram",
    "_cross",
    "_diag",
    "_check_pair",
    "_checked_gram",
    "_checked_cross",
    "_checked_diag",
    "_log_gram",
    "_log_cross",
    "_log_diag",
    "_signed_log_gram",
    "_signed_log_cross",
    "_signed_log_diag",
}


def test_code_outside_the_kernels_uses_only_the_public_seam():
    """No ``obj._prepare(...)``, ``kernel._validate()`` and the like outside
    structk/kernels (an object's own ``self._fit`` is its own business)."""
    bad = []
    for path in ROOT.rglob("*.py"):
        if path.relative_to(ROOT).parts[0] == "kernels":
            continue
        for node in ast.walk(_parse(path)):
            if not (isinstance(node, ast.Attribute) and node.attr in HOOKS):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "super":
                continue
            bad.append(f"{_module_name(path)}:{node.lineno} {ast.unparse(node)}")
    assert not bad, bad


def test_every_size_rule_says_what_it_trades():
    """Each number in structk/_tuning.py sits under a ``#:`` comment (an
    entry right after another may share its comment)."""
    lines = (ROOT / "_tuning.py").read_text().splitlines()
    bad = []
    for i, line in enumerate(lines):
        if not line[:1].isupper() or "=" not in line:
            continue
        j = i - 1
        while j >= 0 and lines[j][:1].isupper() and "=" in lines[j]:
            j -= 1
        if not lines[j].startswith("#:"):
            bad.append(line.split("=")[0].strip())
    assert not bad, bad


def _compiles(path):
    """True if ``path`` compiles something with ``numba.njit``."""
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Attribute) and node.attr == "njit":
            return True
        if isinstance(node, ast.Name) and node.id == "njit":
            return True
    return False


def test_every_compiling_module_registers_the_first_compilation_notice():
    """A module that compiles imports ``structk._jit`` first, so that its
    first compilation says why the run is slow (gapped k-mers and the
    explainer's loops once compiled silently)."""
    missing = [
        _module_name(p)
        for p in ROOT.rglob("*.py")
        if _compiles(p)
        and not _module_name(p).startswith("structk._jit")
        and "structk._jit" not in set(_structk_imports(p))
    ]
    assert not missing, missing
