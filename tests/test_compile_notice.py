"""A first run (empty numba cache) says once that code is being compiled."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import numpy as np
from structk.learners._psd import numba_pass
K = np.eye(3)
assert numba_pass.first_nonfinite(K) == -1
assert tuple(numba_pass.necessary_psd_violation(K, 0.0, 0.0)) == (-1, -1)
"""


def run(cache, **extra):
    env = {k: v for k, v in os.environ.items() if k != "STRUCTK_QUIET_COMPILE"}
    env.update(NUMBA_CACHE_DIR=str(cache), **extra)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return out.stderr


def test_notice_on_a_cold_cache_only(tmp_path):
    from structk._jit import COMPILE_NOTICE

    cold = run(tmp_path / "cache")
    assert cold.count(COMPILE_NOTICE) == 1  # two functions compiled, one notice
    assert COMPILE_NOTICE not in run(tmp_path / "cache")  # warm: loaded, not compiled
    assert COMPILE_NOTICE not in run(tmp_path / "other", STRUCTK_QUIET_COMPILE="1")


COMMAND = """
import os, subprocess, sys
from structk.cli.commands import _remove_token, _share_compile_notice
token = _share_compile_notice()  # what every structk command does first
children = [subprocess.Popen([sys.executable, "-c", {script!r}],
                             env=dict(os.environ, NUMBA_CACHE_DIR=os.path.join({cache!r}, str(i))))
            for i in range(2)]
assert all(c.wait() == 0 for c in children)
assert os.path.exists(token)
_remove_token(token)
assert not os.path.exists(token)
"""


def test_one_notice_for_a_command_whose_workers_both_compile(tmp_path):
    """Two worker processes of one command compiling at once (each with an
    empty cache of its own) print one notice between them, as ``cv --jobs 2``
    must."""
    from structk._jit import COMPILE_NOTICE, TOKEN_VARIABLE
    from structk.cli import commands

    assert commands._NOTICE_TOKEN == TOKEN_VARIABLE
    env = {
        k: v for k, v in os.environ.items() if k not in ("STRUCTK_QUIET_COMPILE", TOKEN_VARIABLE)
    }
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", COMMAND.format(script=SCRIPT, cache=str(tmp_path))],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr.count(COMPILE_NOTICE) == 1, out.stderr


def test_cv_workers_map_the_gram_writable(tmp_path):
    """``cv --jobs 2`` hands a large Gram to its workers copy-on-write: a
    read-only map is another argument type to numba, whose loops would then
    compile (and print the notice) again in every worker of a later run."""
    import numpy as np

    from structk.cli.evaluation import _run

    K = np.ones((600, 600))  # 2.9 MB: above joblib's 1 MB memmapping threshold
    flags = _run(
        ((lambda A: (type(A).__name__, A.flags.writeable), (K,)) for _ in range(2)),
        2,
        2,
        False,
        "",
    )
    assert flags == [("memmap", True)] * 2
