"""The ``structk`` command line.

Exit codes: 0 success; 1 the checked matrix is not positive semi-definite;
2 bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import sys


def _cmd_demo(args):
    from . import demo

    demo.run()
    return 0


def _cmd_check_psd(args):
    import numpy as np

    from .psd import check_psd

    K = np.load(args.file, allow_pickle=False)
    report = check_psd(K, args.tol, method="eigh" if args.eigenvalues else "auto")
    print(report)
    return 0 if report.is_psd else 1


def build_parser():
    parser = argparse.ArgumentParser(
        prog="structk",
        description="Kernels for structured data: Gram matrices, PSD checks, learners.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("demo", help="run the main job on the bundled data",
                       description="Build Gram matrices on bundled data and check them.",
                       epilog="example: structk demo")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser(
        "check-psd", help="check that a Gram matrix (.npy) is positive semi-definite",
        description="Print the PSD report of a square matrix stored with numpy.save; "
                    "exit 1 when it is not PSD.",
        epilog="example: structk check-psd gram.npy && echo valid",
    )
    p.add_argument("file", help="a .npy file holding a square matrix")
    p.add_argument("--tol", type=float, default=None,
                   help="absolute tolerance (default 10*n*eps*||K||_F)")
    p.add_argument("--eigenvalues", action="store_true",
                   help="always compute the smallest eigenvalue")
    p.set_defaults(func=_cmd_check_psd)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except (OSError, ValueError, TypeError) as exc:
        print(f"structk {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
