"""Waiting for a subprocess to be ready for a signal (Linux /proc)."""

import time
from pathlib import Path


def wait_for_handler(proc, signum, timeout):
    """Wait until process ``proc`` has a handler for ``signum`` (the bit in
    the ``SigCgt`` mask of ``/proc/PID/status``); False if it never does
    within ``timeout`` seconds or ends first."""
    status = Path(f"/proc/{proc.pid}/status")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        for line in status.read_text().splitlines():
            if line.startswith("SigCgt:") and int(line.split()[1], 16) >> (signum - 1) & 1:
                return True
        time.sleep(0.02)
    return False
