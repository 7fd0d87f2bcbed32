"""The layers call down, never up.

Every numba module (``_numba.py``, ``*_numba.py``, ``numba_*.py``) may import only numba,
NumPy, the first-compilation notice (``structk._jit``), other numba modules
and the numba-free leaves they compile (the labels' hash, the SMO step):
never a kernel, learner or orchestration module, which call down into it.
The algorithms (:mod:`structk.algorithms`) import only each other and the
leaves below them (``_tuning``, ``defaults``, ``_threads``, ``_memory``, ``_jit``), never a
kernel, learner, scale or command-line module. Code outside
:mod:`structk.kernels` reaches a kernel through its public methods only
(the prepared-data seam of ``structk/kernels/base.py``), never its hooks.
"""

import ast
from pathlib import Path

import structk

ROOT = Path(structk.__file__).parent
LEAVES = {"structk._jit", "structk.algorithms.hashing", "structk.learners._smo.step"}


def _module_name(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _structk_imports(path):
    """Absolute names of the structk modules (or packages) ``path`` imports."""
    module = _module_name(path)
    package = module if path.stem == "__init__" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
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
                yield f"{base}.{a.name}" if not node.module else base


def _compiled_modules():
    return [p for p in ROOT.rglob("*.py")
            if p.stem.endswith("_numba") or p.stem.startswith("numba_")]


def test_compiled_modules_exist_where_the_layout_says():
    names = {_module_name(p) for p in _compiled_modules()}
    assert {f"structk.algorithms.{topic}._numba" for topic in (
        "kmers", "weighted_degree", "sparse_gram", "wl_relabel", "random_walk",
        "shortest_paths", "alignment", "hmm")} <= names


def test_algorithms_table_lists_every_folder():
    """structk.algorithms' docstring names each algorithm folder."""
    import structk.algorithms

    folders = {p.name for p in (ROOT / "algorithms").iterdir()
               if p.is_dir() and (p / "__init__.py").exists()}
    assert folders and all(f"``{f}``" in structk.algorithms.__doc__ for f in folders)


def test_compiled_modules_import_nothing_above_them():
    bad = []
    for path in _compiled_modules():
        for name in _structk_imports(path):
            leaf = name.rsplit(".", 1)[-1]
            if name in LEAVES or leaf.endswith("_numba") or leaf.startswith("numba_"):
                continue
            bad.append(f"{_module_name(path)} imports {name}")
    assert not bad, bad


#: The bottom layer: modules every other layer may import (they import only each other).
BOTTOM = {"structk._tuning", "structk.defaults", "structk._threads", "structk._memory",
          "structk._jit", "structk.exceptions"}


def test_algorithms_import_only_algorithms_and_the_bottom_layer():
    bad = []
    for path in (ROOT / "algorithms").rglob("*.py"):
        for name in _structk_imports(path):
            if name in BOTTOM or name == "structk.algorithms" \
                    or name.startswith("structk.algorithms."):
                continue
            bad.append(f"{_module_name(path)} imports {name}")
    for name in BOTTOM:
        path = ROOT / (name.split(".", 1)[1].replace(".", "/") + ".py")
        if not path.exists():
            path = path.with_suffix("") / "__init__.py"
        bad += [f"{name} imports {n}" for n in _structk_imports(path)
                if n not in BOTTOM and n != "structk"]
    assert not bad, bad


#: A kernel's hooks (``structk/kernels/base.py``): what a kernel implements, and
#: what only the kernel layer calls.
HOOKS = {
    "_check_params", "_check_fitted", "_validate", "_fit", "_kernel_params",
    "_prepare", "_prepare_with", "_prepare_encoded", "_encode", "_encoding_key", "_take",
    "_features", "_gram", "_cross", "_diag", "_check_pair",
    "_checked_gram", "_checked_cross", "_checked_diag",
    "_log_gram", "_log_cross", "_log_diag",
    "_signed_log_gram", "_signed_log_cross", "_signed_log_diag",
}


def test_code_outside_the_kernels_uses_only_the_public_seam():
    """No ``obj._prepare(...)``, ``kernel._validate()`` and the like outside
    structk/kernels (an object's own ``self._fit`` is its own business)."""
    import ast

    bad = []
    for path in ROOT.rglob("*.py"):
        if path.relative_to(ROOT).parts[0] == "kernels":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
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
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr == "njit":
            return True
        if isinstance(node, ast.Name) and node.id == "njit":
            return True
    return False


def test_every_compiling_module_registers_the_first_compilation_notice():
    """A module that compiles imports ``structk._jit`` first, so that its
    first compilation says why the run is slow (gapped k-mers and the
    explainer's loops once compiled silently)."""
    missing = [_module_name(p) for p in ROOT.rglob("*.py")
               if _compiles(p) and not _module_name(p).startswith("structk._jit")
               and "structk._jit" not in set(_structk_imports(p))]
    assert not missing, missing
