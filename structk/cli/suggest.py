"""``structk suggest MODEL POOL``: the next candidates to measure.

A Gaussian-process regressor saved by ``structk fit --learner
'GaussianProcessRegressor(...)'`` (or :func:`structk.save`) ranks the
objects of POOL (any input ``structk predict`` reads) by an acquisition
function of its posterior (:func:`structk.optimize.suggest`): expected
improvement (``ei``), its logarithm (``logei``), the upper confidence bound
(``ucb``) or Thompson sampling (``thompson``). One row per proposal, in the
order chosen: ``rank``, ``id``, the posterior ``mean`` and ``std`` of the
latent function (without the learned noise), and the acquisition value in
a column named after it. The pool is read whole: a batch needs its joint
posterior.
"""

from __future__ import annotations

import contextlib
import re
import sys

import numpy as np

from .commands import EXIT_OK, _int_at_least
from .outputs import atomic_output


def add_parser(sub, formatter):
    from ..optimize import ACQUISITIONS
    from .model_commands import add_input_options, add_row_options

    p = sub.add_parser(
        "suggest",
        help="propose the next candidates to measure with a Gaussian-process model",
        formatter_class=formatter,
        description="Rank the objects of POOL by an acquisition function of a "
        "GaussianProcessRegressor model (structk fit --learner "
        "'GaussianProcessRegressor(noise=0.1)') and write the best N, in the order "
        "chosen: rank, id, posterior mean and std (of the latent function, without "
        "the noise) and the acquisition value. Batches (N > 1): ei, logei and ucb "
        "observe each chosen candidate at its posterior mean (kriging believer) "
        "before choosing the next; thompson takes the best of N independent joint "
        "posterior draws. The incumbent of ei/logei is the best training target.",
        epilog="examples:\n"
        "  structk suggest wavelength.structk candidates.csv --n 10 --acquisition ei\n"
        "  structk suggest activity.structk library.fa --n 5 --acquisition thompson --seed 3\n"
        "  structk suggest cost.structk pool.csv --minimize --acquisition ucb --beta 1 -o next.tsv",
    )
    p.add_argument("model", help="a GaussianProcessRegressor model file (structk fit -o)")
    p.add_argument(
        "input",
        metavar="POOL",
        help="the candidates: FASTA file, token-set file, TU folder, or CSV",
    )
    add_input_options(p)
    p.add_argument(
        "--n",
        type=_int_at_least(1),
        default=10,
        help="how many candidates to propose (default 10)",
    )
    p.add_argument(
        "--acquisition",
        default="ei",
        choices=list(ACQUISITIONS),
        help="expected improvement (default), its log (the same choice, with values "
        "where EI underflows to 0), upper confidence bound, or Thompson sampling",
    )
    direction = p.add_mutually_exclusive_group()
    direction.add_argument(
        "--maximize",
        dest="maximize",
        action="store_true",
        default=True,
        help="look for the largest target (default)",
    )
    direction.add_argument(
        "--minimize", dest="maximize", action="store_false", help="look for the smallest target"
    )
    p.add_argument(
        "--beta",
        type=float,
        default=4.0,
        help="ucb's width: mean +- sqrt(beta) std (default 4: two standard deviations)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the Thompson draws (default 0)")
    p.add_argument(
        "--in-training",
        default="raise",
        choices=["raise", "skip", "keep"],
        help="a pool object the kernel cannot tell from a training object (measured "
        "already, or another object with the same features): an error (default), "
        "left out, or ranked as any other",
    )
    add_row_options(p)
    p.add_argument("--quiet", action="store_true", help="no notices on standard error")
    p.set_defaults(func=run)


def run(args):
    from ..learners import GaussianProcessRegressor
    from ..optimize import suggest
    from .model_commands import input_chunks, model_and_input

    model, fmt, model_input, check = model_and_input(args)
    if not isinstance(model, GaussianProcessRegressor):
        raise ValueError(
            f"{args.model} holds a {type(model).__name__}: structk suggest needs a "
            "GaussianProcessRegressor model (structk fit --learner "
            "'GaussianProcessRegressor(noise=0.1)' ...)"
        )
    names, chunks = [], []
    for chunk_names, objects in input_chunks(args, fmt, model_input):
        if check is not None:
            check(objects, chunk_names, len(names), args.input)
        names += chunk_names
        chunks.append(objects)
    if not names:
        raise ValueError(f"{args.input} holds no objects: the pool is empty")
    pool = np.vstack(chunks) if isinstance(chunks[0], np.ndarray) else sum(map(list, chunks), [])
    try:
        result = suggest(
            model,
            pool,
            n=args.n,
            acquisition=args.acquisition,
            maximize=args.maximize,
            beta=args.beta,
            in_training=args.in_training,
            random_state=args.seed,
        )
    except ValueError as exc:
        raise ValueError(f"{args.input}: {_named(str(exc), names)}") from None
    column = args.acquisition
    where = (
        contextlib.nullcontext(sys.stdout)
        if args.output is None
        else atomic_output(args.output, "the suggestions")
    )
    with where as out:
        if args.format == "tsv":
            out.write(f"rank\tid\tmean\tstd\t{column}\n")
        for rank, (i, mean, std, value) in enumerate(zip(*result), start=1):
            if args.format == "tsv":
                cells = (float(mean), float(std), float(value))  # repr: reads back exactly
                out.write(f"{rank}\t{names[i]}\t" + "\t".join(map(repr, cells)) + "\n")
            else:
                import json

                row = {"rank": rank, "id": names[i], "mean": float(mean), "std": float(std)}
                row[column] = float(value)
                out.write(json.dumps(row) + "\n")
    if not args.quiet:
        y = model.y_train_
        best = y.max() if args.maximize else y.min()
        print(
            f"{len(result.index)} of {len(names)} candidates proposed by {args.acquisition} "
            f"({'maximising' if args.maximize else 'minimising'}; best training target "
            f"{best:.6g})" + (f", written to {args.output}" if args.output else ""),
            file=sys.stderr,
        )
    return EXIT_OK


def _named(message, names):
    """The library's message in the command's words: ``pool[i]`` as the
    record's id, its parameters as the options."""
    message = re.sub(r"pool\[(\d+)\]", lambda m: f"record {names[int(m.group(1))]!r}", message)
    message = message.replace("pass in_training='skip'", "give --in-training skip")
    message = message.replace("or 'keep' to rank them", "or keep to rank them")
    return re.sub(r"^n=(\d+)", r"--n \1", message)
