"""``structk check-kernel``: is a similarity function a valid kernel?

Imports the user's function (``module:function`` or ``path/to/file.py:function``),
searches for a counterexample with :func:`structk.testing.check_kernel` and
prints the verdict. Exit status 0 when none is found, 1 with the shrunk
counterexample, 2 for bad input.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2

OBJECTS_HELP = ("what to draw: strings[:ALPHABET] (default dna), sets[:TOKENS] (default "
                "abcdefgh), vectors:DIM, graphs[:NODE_LABELS] (default unlabelled)")


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
            spec.loader.exec_module(module)
        finally:
            sys.path.pop(0)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ValueError(f"cannot import module {module_name!r}: {exc}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no attribute {attr!r}") from None


def as_kernel(obj, name):
    """A :class:`~structk.kernels.Kernel` instance is used as is; a function is wrapped."""
    from ..kernels import FunctionKernel, Kernel

    if isinstance(obj, Kernel):
        return obj
    if isinstance(obj, type):
        raise TypeError(f"{name} is a class: give a function f(x, y) or a kernel instance")
    if not callable(obj):
        raise TypeError(f"{name} is not callable (got {type(obj).__name__})")
    return FunctionKernel(obj, name=name)


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
            raise ValueError("--min-size/--max-size do not apply to vectors "
                             "(use --min-value/--max-value)")
        return testing.vectors(int(arg))
    if kind == "graphs":
        graph_sizes = {k.replace("size", "nodes"): v for k, v in sizes.items()}
        return testing.graphs(node_labels=arg or None, **graph_sizes)
    raise ValueError(f"unknown --objects {spec!r}: expected {OBJECTS_HELP}")


def add_parser(sub, formatter):
    """Register the ``check-kernel`` subcommand."""
    p = sub.add_parser(
        "check-kernel", help="search for a counterexample to a similarity being a kernel",
        formatter_class=formatter,
        description="Import a function f(x, y) (or a structk kernel instance), search pools "
                    "of generated objects for a Gram matrix that is not symmetric positive "
                    "semi-definite, and print the shrunk counterexample. Exit 0 when none "
                    "is found, 1 when one is.",
        epilog="examples:\n"
               "  structk check-kernel my_sim.py:edit_similarity --objects strings:ACGT\n"
               "  structk check-kernel mypkg.sims:overlap --objects sets:abcdef --max-size 4\n"
               "  structk check-kernel structk.testing.non_kernels:max_nodes --objects graphs\n"
               "  structk check-kernel sims.py:score --objects vectors:3 --seed 1",
    )
    p.add_argument("function", metavar="MODULE:FUNCTION",
                   help="module path or .py file, a colon, and the function's name")
    p.add_argument("--objects", default="strings:dna", help=OBJECTS_HELP)
    p.add_argument("--min-size", type=int, default=None,
                   help="smallest object (string length, set size, graph nodes)")
    p.add_argument("--max-size", type=int, default=None,
                   help="largest object (defaults: strings 8, sets 6, graphs 6 nodes)")
    p.add_argument("--pools", default=None, metavar="N,N,...",
                   help="pool sizes, one Gram matrix each (default 32,256,1024)")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS",
                   help="start no new pool after this many seconds (default 60)")
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
            raise ValueError(f"--pools must be comma-separated integers, got {args.pools!r}")\
                from None
    if args.time_limit is not None and args.time_limit <= 0:
        raise ValueError(f"--time-limit must be > 0, got {args.time_limit}")
    result = check_kernel(kernel, strategy, pool_sizes=pools, seed=args.seed,
                          time_limit=args.time_limit)
    if not result.found and result.n_pools == 0:
        first = result.errors[0].error if result.errors else "no objects"
        raise ValueError(f"the function failed on every generated object ({first})")
    print(result)
    return EXIT_FOUND if result.found else EXIT_OK
