"""The first-compilation notice, imported by every compiled module.

The compiled loops sit beside the algorithm they serve, in a folder per
algorithm whose ``__init__.py`` calls them (``_numba.py`` in each folder of
:mod:`structk.algorithms` and of :mod:`structk.learners`: ``_perceptron``,
``_ridge_loo``; ``numba_*.py`` in ``_smo`` and ``_psd``); each imports this
module first.

The first time a jitted function runs with given argument types, numba
compiles it (seconds) and caches the machine code on disk; later processes
load it from there. Importing this module registers a listener on numba's
``numba:compile`` event, which fires on a real compilation only (not on a
cache hit), so that a first run says once, on standard error, why it is
slow. ``STRUCTK_QUIET_COMPILE=1`` silences it.

A command whose work runs in several processes (``structk cv --jobs 2``)
says it once too: the command names a token file in
``STRUCTK_COMPILE_NOTICE_TOKEN``, which its worker processes inherit, and
only the process that creates that file prints the notice.

A second listener keeps a Ctrl-C during a first compilation a
``KeyboardInterrupt``. numba stores the object code of a cached function
from a ctypes callback that LLVM calls as it emits the code; a Ctrl-C
that arrives while LLVM works is raised inside that callback, where ctypes
can only report it (``sys.unraisablehook``) and drop it, and the save to
the cache then fails with ``RuntimeError: no compiled object yet for
<Library ...>``. While a structk function compiles the listener records
interrupts dropped that way and raises ``KeyboardInterrupt`` when the
compilation ends, before numba tries that save. Any other exception, and
every compilation that was not interrupted, is left alone.
"""

import os
import sys
import threading

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


def _is_structk(ev):
    func = getattr(ev.data.get("dispatcher"), "py_func", None)
    return getattr(func, "__module__", "").startswith("structk.")


class _InterruptWatch(event.Listener):
    """Raise ``KeyboardInterrupt`` at the end of a compilation of a structk
    function during which a ``KeyboardInterrupt`` was dropped as unraisable
    (see the module's docstring). numba compiles under one global lock, so
    the events of one compilation (nested ones for its callees included)
    never interleave with another thread's."""

    def __init__(self):
        self.depth = 0
        self.previous = None
        self.dropped = 0

    def _hook(self, args):
        if issubclass(args.exc_type, KeyboardInterrupt):
            self.dropped += 1  # raised again when the compilation ends
        else:
            self.previous(args)

    def on_start(self, ev):
        if not _is_structk(ev) or threading.current_thread() is not threading.main_thread():
            return  # Python runs signal handlers in the main thread only
        if self.depth == 0:
            self.previous, self.dropped = sys.unraisablehook, 0
            sys.unraisablehook = self._hook
        self.depth += 1

    def on_end(self, ev):
        if not _is_structk(ev) or threading.current_thread() is not threading.main_thread():
            return
        self.depth -= 1
        if self.depth == 0:
            if sys.unraisablehook == self._hook:
                sys.unraisablehook = self.previous
            self.previous = None
            if self.dropped:
                self.dropped = 0
                raise KeyboardInterrupt


_watch = _InterruptWatch()
event.register("numba:compile", _watch)
