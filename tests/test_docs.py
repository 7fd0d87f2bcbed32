"""The documentation builds without warnings and its examples run."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# pages whose python blocks are self-contained and quick (no $STRUCTK_DATA)
RUNNABLE_PAGES = [
    "index.md",
    "kernels.md",
    "psd.md",
    "testing.md",
    "vectors.md",
    "learners.md",
    "pca.md",
    "cca.md",
    "stats.md",
    "bound.md",
    "class_fisher.md",
    "predictions.md",
    "explain.md",
    "custom_kernels.md",
    "gp.md",
]

pytestmark = pytest.mark.skipif(
    not (ROOT / "mkdocs.yml").exists(), reason="tests run outside a source checkout"
)


def test_docs_build_strict(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    api = (tmp_path / "site" / "api" / "kernels" / "index.html").read_text()
    assert "Polynomial" in api and "FunctionScaled" in api


@pytest.mark.parametrize("page", RUNNABLE_PAGES)
def test_docs_python_blocks_run(page, capsys):
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)
    assert blocks, f"{page} has no python example"
    namespace = {}
    for block in blocks:
        exec(compile(block, str(DOCS / page), "exec"), namespace)


def test_testing_page_shows_the_real_counterexample(capsys):
    """The output pasted in docs/testing.md is what the example prints."""
    text = (DOCS / "testing.md").read_text()
    block = re.findall(r"```python\n(.*?)```", text, flags=re.S)[0]
    shown = re.findall(r"```text\n(.*?)```", text, flags=re.S)[0]
    exec(compile(block, "testing.md", "exec"), {})
    assert capsys.readouterr().out.strip() == shown.strip()


def test_figure_script_makes_figures(tmp_path, monkeypatch):
    sys.path.insert(0, str(DOCS / "figures"))
    try:
        import make_figures
    finally:
        sys.path.pop(0)
    monkeypatch.setattr(make_figures, "HERE", tmp_path)
    names = ["gram_heatmap", "psd_spectrum", "xor_perceptron", "decision_regions"]
    make_figures.main(names)  # spectrum_accuracy needs $STRUCTK_DATA and 2 minutes
    for name in names:
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000
        assert (DOCS / "figures" / f"{name}.png").exists(), f"{name}.png not committed"


def test_kernel_method_figures_are_committed():
    """Made from $STRUCTK_DATA by make_figures.py (minutes each): only check they exist."""
    for name in ["kernel_pca", "kernel_cca", "kernel_tests", "class_fisher"]:
        assert (DOCS / "figures" / f"{name}.png").stat().st_size > 10_000


# ------------------------------------------------- names the docs give
PROSE = sorted(DOCS.glob("*.md")) + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
#: what the repository holds at its top: a backticked path starting with one
#: of these is a path of this repository (``K.npy``, ``seqs.fa``, ``kmers/``
#: are a user's files or paths relative to a folder named beside them)
TOP = sorted(p.name for p in ROOT.iterdir() if p.name != ".git")


def _repository_paths():
    found = []
    for page in PROSE:
        for text in re.findall(r"`([\w.][\w./-]*)`", page.read_text()):
            first = text.split("/")[0]
            if first in TOP and ("/" in text or text == first):
                found.append((page.relative_to(ROOT).as_posix(), text))
    return found


def test_every_repository_path_the_docs_name_exists():
    paths = _repository_paths()
    assert len(paths) > 100  # the pattern finds the paths the pages name
    assert ("docs/fisher.md", "tests/kernels/test_fisher_showcase.py") in paths
    missing = [(page, path) for page, path in paths if not (ROOT / path).exists()]
    assert not missing, f"paths named in the docs that do not exist: {missing}"


def _resolves(name):
    """Whether the dotted name is a module of structk or an attribute of one."""
    import importlib

    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_every_structk_name_the_docs_and_docstrings_give_exists():
    """Backticked ``structk.x.y`` in the pages and Sphinx roles
    (``:mod:`structk.x```) in the package's docstrings name real modules or
    attributes (one named ``structk.learners.beyond``, which never existed)."""
    names = set()
    for page in PROSE:
        names |= {(page.name, n) for n in re.findall(r"`(structk(?:\.\w+)+)`", page.read_text())}
    role = r":(?:mod|class|func|meth|attr|data|exc):`~?(structk(?:\.\w+)+)`"
    for source in sorted((ROOT / "structk").rglob("*.py")):
        names |= {
            (source.relative_to(ROOT).as_posix(), n) for n in re.findall(role, source.read_text())
        }
    assert len(names) > 100
    assert not _resolves("structk.learners.beyond")
    missing = sorted((where, name) for where, name in names if not _resolves(name))
    assert not missing, f"names of structk that do not exist: {missing}"
