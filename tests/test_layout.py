"""The compiled layer calls nothing above it.

Every numba module (``_numba.py``, ``*_numba.py``, ``numba_*.py``) may import only numba,
NumPy, the first-compilation notice (``structk._jit``), other numba modules
and the numba-free leaves they compile (the labels' hash, the SMO step):
never a kernel, learner or orchestration module, which call down into it.
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
    package = _module_name(path).rsplit(".", 1)[0]
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
