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
    out = subprocess.run([sys.executable, "-c", SCRIPT], check=False, capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stderr


def test_notice_on_a_cold_cache_only(tmp_path):
    from structk._jit import COMPILE_NOTICE

    cold = run(tmp_path / "cache")
    assert cold.count(COMPILE_NOTICE) == 1  # two functions compiled, one notice
    assert COMPILE_NOTICE not in run(tmp_path / "cache")  # warm: loaded, not compiled
    assert COMPILE_NOTICE not in run(tmp_path / "other", STRUCTK_QUIET_COMPILE="1")
