"""``structk check-kernel``: is a similarity function a valid kernel?

Imports the user's function (``module:function`` or ``path/to/file.py:function``),
searches for a counterexample with :func:`structk.testing.check_kernel` and
prints the verdict. Exit status 0 when none is found, 1 with the shrunk
counterexample, 2 for bad input: a file or module that does not import
(a syntax error is reported as ``file:line``, an exception raised while
importing as "importing ... failed", a ``sys.exit`` as such), a name that
is not there, a function that cannot take two objects, or a search that
is inconclusive (the function failed on every, or most, generated objects).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2

OBJECTS_HELP = (
    "what to draw: strings[:ALPHABET] (default dna), sets[:TOKENS] (default "
    "abcdefgh), vectors:DIM, graphs[:NODE_LABELS] (default unlabelled)"
)


def load_function(target):
    """The object named by ``module:attr`` or ``file.py:attr``."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:FUNCTION or FILE.py:FUNCTION, got {target!r}")
    if module_name.endswith(".py") or "/" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise ValueError(f"no such file: {module_name}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(path.resolve().parent))
        try:
            with _importing(module_name, path):
                spec.loader.exec_module(module)
        finally:
            sys.path.pop(0)
    else:
        try:
            with _importing(f"module {module_name!r}", None):
                module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ValueError(f"cannot import module {module_name!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no attribute {attr!r}") from None


@contextmanager
def _importing(what, path):
    """Turn what a user's file does wrong at import into one line naming file and line."""
    try:
        yield
    except SyntaxError as exc:
        filename = exc.filename
        if path is not None and filename and Path(filename).resolve() == path.resolve():
            filename = what
        where = f"{filename}:{exc.lineno}" if exc.lineno else str(filename or what)
        raise ValueError(f"{where}: syntax error: {exc.msg} (importing {what} failed)") from None
    except SystemExit as exc:
        raise ValueError(
            f"importing {what} failed: it called sys.exit({exc.code!r}) "
            '(keep script code under `if __name__ == "__main__":`)'
        ) from None
    except ImportError as exc:
        if path is None:  # "cannot import module ...", by the caller
            raise
        raise ValueError(
            f"importing {what} failed{_line_in(exc, path, what)}: {type(exc).__name__}: {exc}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - any error of the user's code, named
        raise ValueError(
            f"importing {what} failed{_line_in(exc, path, what)}: {type(exc).__name__}: {exc}"
        ) from None


def _line_in(exc, path, what):
    """`` at FILE:LINE`` of the last frame of ``exc``'s traceback in the user's file."""
    frames = traceback.extract_tb(exc.__traceback__)
    if path is not None:
        resolved = str(Path(path).resolve())
        frames = [f for f in frames if str(Path(f.filename).resolve()) == resolved]
    else:
        frames = [f for f in frames if "importlib" not in f.filename]
    if not frames:
        return ""
    return f" at {what if path is not None else frames[-1].filename}:{frames[-1].lineno}"


def as_kernel(obj, name):
    """A :class:`~structk.kernels.Kernel` instance is used as is; a function is wrapped."""
    from ..kernels import Kernel
    from ..testing import as_kernel as wrap

    if isinstance(obj, Kernel):
        return obj
    if isinstance(obj, type):
        raise TypeError(f"{name} is a class: give a function f(x, y) or a kernel instance")
    if not callable(obj):
        raise TypeError(f"{name} is not callable (got {type(obj).__name__})")
    return wrap(obj, name=name)


def make_strategy(spec, min_size, max_size):
    """The strategy for ``--objects`` (``kind[:argument]``) with the size options."""
    from .. import testing

    kind, _, arg = spec.partition(":")
    sizes = {}
    if min_size is not None:
        sizes["min_size"] = min_size
    if max_size is not None:
        sizes["max_size"] = max_size
    if kind == "strings":
        return testing.strings(arg or "dna", **sizes)
    if kind == "sets":
        return testing.token_sets(arg or "abcdefgh", **sizes)
    if kind == "vectors":
        if not arg.isdigit() or int(arg) < 1:
            raise ValueError(f"--objects vectors:DIM needs a dimension >= 1, got {spec!r}")
        if sizes:
            raise ValueError(
                "--min-size/--max-size do not apply to vectors (use --min-value/--max-value)"
            )
        return testing.vectors(int(arg))
    if kind == "graphs":
        graph_sizes = {k.replace("size", "nodes"): v for k, v in sizes.items()}
        return testing.graphs(node_labels=arg or None, **graph_sizes)
    raise ValueError(f"unknown --objects {spec!r}: expected {OBJECTS_HELP}")


def add_parser(sub, formatter):
    """Register the ``check-kernel`` subcommand."""
    p = sub.add_parser(
        "check-kernel",
        help="search for a counterexample to a similarity being a kernel",
        formatter_class=formatter,
        description="Import a function f(x, y) (or a structk kernel instance), search pools "
        "of generated objects for a Gram matrix that is not symmetric positive "
        "semi-definite, and print the shrunk counterexample. Exit 0 when none "
        "is found, 1 when one is, 2 for bad input or an inconclusive search "
        "(the function failed on every or most generated objects).",
        epilog="examples:\n"
        "  structk check-kernel my_sim.py:edit_similarity --objects strings:ACGT\n"
        "  structk check-kernel mypkg.sims:overlap --objects sets:abcdef --max-size 4\n"
        "  structk check-kernel structk.testing.non_kernels:max_nodes --objects graphs\n"
        "  structk check-kernel sims.py:score --objects vectors:3 --seed 1",
    )
    p.add_argument(
        "function",
        metavar="MODULE:FUNCTION",
        help="module path or .py file, a colon, and the function's name",
    )
    p.add_argument("--objects", default="strings:dna", help=OBJECTS_HELP)
    p.add_argument(
        "--min-size",
        type=int,
        default=None,
        help="smallest object (string length, set size, graph nodes)",
    )
    p.add_argument(
        "--max-size",
        type=int,
        default=None,
        help="largest object (defaults: strings 8, sets 6, graphs 6 nodes)",
    )
    p.add_argument(
        "--pools",
        default=None,
        metavar="N,N,...",
        help="pool sizes, one Gram matrix each (default 32,256,1024)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument(
        "--time-limit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="start no new pool after this many seconds (default 60)",
    )
    p.set_defaults(func=run)


def run(args):
    from ..testing import check_kernel
    from ..testing.search import POOL_SIZES

    obj = load_function(args.function)
    kernel = as_kernel(obj, args.function.rpartition(":")[2])
    strategy = make_strategy(args.objects, args.min_size, args.max_size)
    pools = POOL_SIZES
    if args.pools is not None:
        try:
            pools = tuple(int(p) for p in args.pools.split(","))
        except ValueError:
            raise ValueError(
                f"--pools must be comma-separated integers, got {args.pools!r}"
            ) from None
    if args.time_limit is not None and args.time_limit <= 0:
        raise ValueError(f"--time-limit must be > 0, got {args.time_limit}")
    try:
        result = check_kernel(
            kernel, strategy, pool_sizes=pools, seed=args.seed, time_limit=args.time_limit
        )
    except SystemExit as exc:
        raise ValueError(f"{kernel!r} called sys.exit({exc.code!r}) during the search") from None
    if not result.conclusive:
        raise ValueError(f"inconclusive: {result.inconclusive}")
    print(result)
    return EXIT_FOUND if result.found else EXIT_OK
