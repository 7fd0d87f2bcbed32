"""Count the bad-input outcomes of a checkout, each case in its own process.

Usage (with the checkout to audit on PYTHONPATH)::

    PYTHONPATH=/path/to/checkout python tests/bad_input/audit.py [--timeout 20] [--verbose]

Each case of ``bad_input_cases.py`` runs in a forked child with a time
limit; outcomes: clear (the right exception naming the item), warned (the
warning naming the item that a warning case wants), correct (the right
answer of an unusual input), unclear (wrong type, item not named,
traceback, crash), silent (no error: a wrong answer), wrong (an answer the
case's check refuses), hang (time limit), n/a (the case's API does not
exist in that checkout). The last line gives the counts by outcome.
POSIX only (``os.fork``).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import select
import signal
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run_forked(case, timeout):
    from bad_input_cases import outcome

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read)
        try:
            result = outcome(case)
        except BaseException as exc:  # noqa: BLE001
            result = ("unclear", f"{type(exc).__name__}: {exc}")
        os.write(write, json.dumps(result).encode())
        os._exit(0)
    os.close(write)
    deadline = time.monotonic() + timeout
    chunks = []
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([read], [], [], max(left, 0))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read)
            return "hang", f"no answer in {timeout:g} s"
        data = os.read(read, 65536)
        if not data:
            break
        chunks.append(data)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return "unclear", f"crashed (wait status {status})"
    return tuple(json.loads(b"".join(chunks)))


def _warm_up():
    """Compile (or load) every kernel's numba code once, before forking, so
    that a child's first call is not mistaken for a hang."""
    import warnings

    from bad_input_cases import _GOOD, KERNELS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make, family in KERNELS.values():
            try:
                k = make()
                k(_GOOD[family]())
                k(_GOOD[family](), _GOOD[family]())
                k.diag(_GOOD[family]())
            except Exception:  # noqa: BLE001, S112 - absent in this checkout
                continue


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bad_input_cases import all_cases

    import structk.kernels  # noqa: F401 - imported once, before forking

    cases = all_cases(Path(tempfile.mkdtemp(prefix="structk-audit-")))
    _warm_up()
    counts = collections.Counter()
    for case in cases:
        result, detail = _run_forked(case, args.timeout)
        counts[result] += 1
        if args.verbose or result not in ("clear", "n/a"):
            print(f"{result:8s} {case.id}: {detail[:200]}", flush=True)
    print(
        f"{len(cases)} cases: {counts['clear']} clear error naming the item, "
        f"{counts['correct']} correct result, {counts['warned']} warning naming the item; "
        + ", ".join(f"{counts[k]} {k}" for k in ("unclear", "silent", "wrong", "hang", "n/a"))
    )


if __name__ == "__main__":
    main()
