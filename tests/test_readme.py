"""The Python examples in README.md run as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks():
    if not README.exists():  # tests run from an installed package without the repo
        return []
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_python_blocks_run_in_order(capsys):
    namespace = {}
    for block in _python_blocks():  # later blocks reuse earlier imports, as a reader would
        exec(compile(block, str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "Normalize(Polynomial(degree=3) + 0.5 * Gaussian(sigma=2.0))" in out
    assert "is not a valid kernel: negative self-similarity on these 1 objects" in out


def test_readme_has_examples_and_the_two_commands():
    text = README.read_text()
    assert len(_python_blocks()) >= 2
    assert "structk demo" in text and "pytest" in text
