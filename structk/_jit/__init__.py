"""The first-compilation notice, imported by every compiled module.

The compiled loops sit beside the algorithm they serve (``_numba.py`` in
each folder of :mod:`structk.algorithms`, ``*_numba.py`` and ``numba_*.py``
under :mod:`structk.learners`); each imports this package first.

The first time a jitted function runs with given argument types, numba
compiles it (seconds) and caches the machine code on disk; later processes
load it from there. Importing this package registers a listener on numba's
``numba:compile`` event, which fires on a real compilation only (not on a
cache hit), so that a first run says once, on standard error, why it is
slow. ``STRUCTK_QUIET_COMPILE=1`` silences it.

A command whose work runs in several processes (``structk cv --jobs 2``)
says it once too: the command names a token file in
``STRUCTK_COMPILE_NOTICE_TOKEN``, which its worker processes inherit, and
only the process that creates that file prints the notice.
"""

import os
import sys

from numba.core import event

#: What a first run prints once, before the first compilation of structk code.
COMPILE_NOTICE = (
    "structk: compiling its numerical code for first use; this happens once "
    "(the machine code is cached), later runs start fast"
)

#: Environment variable naming the token file of a command (see above).
TOKEN_VARIABLE = "STRUCTK_COMPILE_NOTICE_TOKEN"


def _claim(token):
    """True if this process creates the file ``token`` (or cannot tell)."""
    try:
        os.close(os.open(token, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True  # no shared file to agree on: better twice than never
    return True


class _CompileNotice(event.Listener):
    """Print :data:`COMPILE_NOTICE` at the first compilation of a structk function."""

    def __init__(self):
        self.shown = False

    def on_start(self, ev):
        if self.shown or os.environ.get("STRUCTK_QUIET_COMPILE"):
            return
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        if getattr(func, "__module__", "").startswith("structk."):
            self.shown = True
            token = os.environ.get(TOKEN_VARIABLE)
            if not token or _claim(token):
                print(COMPILE_NOTICE, file=sys.stderr, flush=True)

    def on_end(self, ev):
        pass


_notice = _CompileNotice()
event.register("numba:compile", _notice)
