"""Output files of the command line: never over an input, always whole.

Every command writes its files through :func:`atomic_output` (or, for a
file a library function writes itself, inside :func:`naming_path`): the
content goes to a temporary ``.NAME.PID.XXXX.partial`` file in the same
folder, renamed over the final name only once it is complete, so that a
failed write (a full disk, an interrupt, a crash) never leaves a truncated
file under the final name, and the error names the path. A device or a
named pipe (``-o /dev/stdout``) is written directly: renaming over it would
replace the device; a model file or a memory-mapped Gram matrix, which are
only written by renaming, is refused there (:func:`refuse_special`).

:func:`refuse_overwrites` runs on the parsed arguments of every command
before it does any work: an output option naming the same file as an
input (or the model), also through a symbolic link or another spelling of
the path, or two output options naming one file, is refused with a message
naming both.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys

#: The options holding files a command reads, as ``(attribute, what)``.
INPUTS = (
    ("model", "the model file"),
    ("input", "the input"),
    ("file", "the input"),
    ("labels", "--labels"),
    ("groups", "--groups"),
    ("positive", "--positive"),
    ("negative", "--negative"),
    ("variants", "the variants"),
    ("sequences", "the sequences"),
)

#: The options holding files a command writes, as ``(attribute, option)``.
OUTPUTS = (
    ("output", "-o/--output"),
    ("tsv", "--tsv"),
    ("plot", "--plot"),
    ("ism", "--ism"),
    ("out_old", "--out"),
)


def same_file(a, b):
    """Whether the paths ``a`` and ``b`` name one file (or one folder)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return os.path.realpath(a) == os.path.realpath(b)


def refuse_overwrites(args):
    """Refuse, before any work, an output path of ``args`` that names an
    input file (or the model) or another output; a ``ValueError`` naming both."""
    inputs = [
        (what, str(getattr(args, name)))
        for name, what in INPUTS
        if isinstance(getattr(args, name, None), (str, os.PathLike))
    ]
    outputs = [
        (option, str(getattr(args, name)))
        for name, option in OUTPUTS
        if isinstance(getattr(args, name, None), (str, os.PathLike))
    ]
    for i, (option, out) in enumerate(outputs):
        for what, path in inputs:
            if os.path.exists(path) and same_file(out, path):
                raise ValueError(
                    f"{option} {out} is {what} ({path}): writing it would destroy it; "
                    "give another output file"
                )
        for other, path in outputs[:i]:
            if same_file(out, path) and not is_special(out):  # /dev/null twice is fine
                raise ValueError(
                    f"{option} {out} and {other} {path} are the same file: "
                    "give each output its own file"
                )


def _named(exc, path, what):
    """``exc`` (an ``OSError``) with a message naming ``path``."""
    if str(path) in str(exc):
        return exc
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.errno == errno.ENOSPC:
        reason = "no space left on the device"
    return type(exc)(exc.errno, f"cannot write {what} to {path}: {reason}")


@contextlib.contextmanager
def naming_path(path, what):
    """Re-raise an ``OSError`` of the block as one naming ``path`` (for files
    a library writes itself, atomically)."""
    try:
        yield
    except OSError as exc:
        raise _named(exc, path, what) from exc


@contextlib.contextmanager
def atomic_output(path, what, mode="w"):
    """An open file whose content replaces ``path`` only when the block ends
    without an error (a temporary file beside it, then :func:`os.replace`).

    Parameters
    ----------
    path : str or path-like
        The final name.
    what : str
        What is written, for messages ("the contributions").
    mode : {"w", "wb"}
        Text or binary.
    """
    from ..scale._tiling import partial_file, remove_partial_files

    if is_special(path):  # /dev/stdout, /dev/null, a named pipe: no name to protect
        with naming_path(path, what), open(path, mode) as fh:
            yield fh
        return
    tmp = partial_file(path, what)
    try:
        with naming_path(path, what):
            with open(tmp, mode) as fh:
                yield fh
            os.replace(tmp, path)
    finally:
        remove_partial_files({str(tmp)})


def is_special(path):
    """Whether ``path`` exists and is not a regular file or a folder (a
    device such as /dev/null, a named pipe): renaming a temporary file over
    it would replace the device, so it is written directly."""
    return os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)


def refuse_special(path, what):
    """Refuse to write ``what`` (a file written under a temporary name and
    renamed, such as a model file) to a device or a pipe."""
    if is_special(path):
        raise ValueError(
            f"cannot write {what} to {path}: it is not a regular file (a "
            "device or a pipe), and the file is written under a temporary "
            "name then renamed; give a file name"
        )


def write_text(path, text, what):
    """Write ``text`` to ``path`` atomically."""
    with atomic_output(path, what) as fh:
        fh.write(text)


def progress_bar(enabled, desc, unit, total=None):
    """A tqdm bar on standard error that appears only once the work lasts a
    second; ``None`` when ``enabled`` is false."""
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(desc=desc, unit=unit, total=total, delay=1.0, leave=False, file=sys.stderr)
