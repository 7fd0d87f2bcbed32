"""``structk cv --jobs 2`` stopped by SIGTERM or Ctrl-C takes its worker
processes with it (they would otherwise compute on for minutes and hold a
calling script's pipes open)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest


def _children(pid):
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("signame, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_cv_with_jobs_ends_its_workers(tmp_path, signame, code):
    rng = np.random.default_rng(0)
    path = tmp_path / "seqs.fa"
    path.write_text(
        "".join(
            f">s{i} class={i % 2}\n{''.join(rng.choice(list('ACGT'), 60))}\n" for i in range(600)
        )
    )
    env = dict(
        os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), STRUCTK_QUIET_COMPILE="1"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "structk.cli",
            "cv",
            str(path),
            "--label-pattern",
            r"class=(\S+)",
            "--kernel",
            "Spectrum(k=3)",
            "--jobs",
            "2",
            "--repeats",
            "50",
            "--learner",
            "KernelSVM(C=[0.01, 0.1, 1, 10, 100, 1000])",
            "--quiet",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    workers = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        # the workers are the children that are not joblib's resource tracker
        workers = [
            p
            for p in _children(proc.pid)
            if b"resource_tracker" not in Path(f"/proc/{p}/cmdline").read_bytes()
        ]
        if len(workers) >= 2:
            break
        time.sleep(0.2)
    assert proc.poll() is None and len(workers) >= 2, "the folds never reached the workers"
    time.sleep(0.5)
    proc.send_signal(getattr(signal, signame))
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == code
    word = "terminated" if signame == "SIGTERM" else "interrupted"
    assert err.strip() == f"structk cv: {word}"  # no resource tracker warnings
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.1)
    assert not any(_alive(p) for p in workers), "worker processes outlived the command"
    # what the quiet resource tracker still cleans up: the memmapped Gram
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and list(Path("/dev/shm").glob(f"joblib_*_{proc.pid}_*")):
        time.sleep(0.1)
    assert not list(Path("/dev/shm").glob(f"joblib_*_{proc.pid}_*"))
