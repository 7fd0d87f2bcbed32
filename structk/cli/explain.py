"""``structk explain`` and ``structk score-variants``: why a saved model
says what it says (see :mod:`structk.explain`)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from .outputs import atomic_output


def add_parsers(sub, formatter):
    """Register the ``explain`` and ``score-variants`` subcommands."""
    from .commands import _int_at_least, add_split_option

    p = sub.add_parser(
        "explain",
        help="feature weights and per-position / per-node contributions of a model",
        formatter_class=formatter,
        description="Load a model saved by structk.save and explain its decision values on "
        "the objects of INPUT (FASTA, TU graph folder, CSV with --smiles-column): "
        "print its features with the largest positive and negative weights and, "
        "for each object, the decision value and its most contributing positions "
        "or nodes. The contributions sum, with the bias, to the decision value. "
        "A model whose kernel has no explicit features (random walk, local "
        "alignment, Fisher) cannot be decomposed: use --ism for sequences.",
        epilog="examples:\n"
        "  structk explain nfe2.model test.fa --top 10 --plot seq0.png\n"
        "  structk explain nfe2.model test.fa --tsv contributions.tsv -o report.txt\n"
        "  structk explain nfe2.model test.fa --ism ism.tsv --index 3\n"
        "  structk explain nfe2.model test.fa --region 100:150 --plot window.png\n"
        "  structk explain mutag.model MUTAG/ --plot graph0.png --index 0\n"
        "  structk explain mutag.model MUTAG/ --edges --tsv nodes_edges.tsv\n"
        "  structk explain mutag.model MUTAG/ --split test.txt --label-map atoms.txt\n"
        "  structk explain esol.model mols.csv --smiles-column smiles --id-column name",
    )
    _add_model(p)
    p.add_argument("input", help="objects to explain: FASTA, TU folder or CSV")
    p.add_argument("--smiles-column", metavar="COL", help="CSV column of SMILES strings")
    p.add_argument(
        "--id-column",
        metavar="COL",
        help="CSV column holding each row's id (default row0, row1, ...)",
    )
    add_split_option(p)
    p.add_argument(
        "--label-map",
        metavar="FILE",
        help="graph models: names of the node labels, 'INT NAME' per line, or a TU "
        "README with 'Node labels:'/'Edge labels:' lists (default: the README.txt "
        "of a TU folder INPUT, when it has them)",
    )
    p.add_argument(
        "--top",
        type=_int_at_least(1),
        default=10,
        help="features and positions/nodes listed (default 10)",
    )
    p.add_argument(
        "--tsv",
        metavar="FILE",
        help="write every contribution: object, unit, symbol or node, score",
    )
    p.add_argument(
        "--edges",
        action="store_true",
        help="graph models: split each feature over the nodes and edges it is made "
        "of (WL: its unfolding tree; shortest path: end nodes and path edges), "
        "list the top edges, write them to --tsv and colour them in --plot",
    )
    p.add_argument(
        "--index",
        type=_int_at_least(0),
        default=0,
        help="the object --plot and --ism use (default 0, the first)",
    )
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        type=_plot_file,
        help="draw the contributions of object --index (a logo for a sequence, "
        "the molecule or graph otherwise); needs matplotlib "
        "(pip install 'structk[plot]')",
    )
    p.add_argument(
        "--region",
        metavar="START:END",
        type=_region,
        help="sequences: report, --tsv, --ism and --plot only positions START..END-1 "
        "(0-based, END excluded, as a Python slice); contributions are still those of "
        "the whole sequence",
    )
    p.add_argument(
        "--hypothetical",
        action="store_true",
        help="with --plot on a sequence: draw the hypothetical contributions "
        "of every symbol at every position (GkmExplain)",
    )
    p.add_argument(
        "--ism",
        metavar="FILE",
        help="write the change of the decision value for every single-symbol "
        "substitution of sequence --index (TSV: position, ref, alt, delta)",
    )
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write the report here instead of standard output"
    )
    p.set_defaults(func=run_explain)

    p = sub.add_parser(
        "score-variants",
        help="change of a sequence model's score between alleles (deltaSVM)",
        formatter_class=formatter,
        description="Score variants by f(alt) - f(ref) with a saved sequence model. Either "
        "two FASTA files, reference and alternative sequences paired in order, "
        "or a variant table (tab-separated: name, chrom, pos (1-based), ref, "
        "alt; '#' comments) with the reference FASTA holding the records "
        "'chrom' names. A reference allele that differs from the FASTA is an "
        "error naming the line; a multi-allelic alt (A,T) is scored one allele "
        "per row (name:A, name:T). Writes TSV: name, ref_score, alt_score, "
        "delta.",
        epilog="examples:\n"
        "  structk score-variants nfe2.model ref.fa alt.fa -o scores.tsv\n"
        "  structk score-variants nfe2.model variants.tsv genome.fa --flank 100\n"
        "  structk score-variants three_classes.model variants.tsv genome.fa "
        "--class enhancer",
    )
    _add_model(p)
    p.add_argument("variants", help="reference FASTA, or a variant table")
    p.add_argument("sequences", help="alternative FASTA, or (with a table) the reference FASTA")
    p.add_argument(
        "--flank",
        type=_int_at_least(0),
        default=None,
        help="with a table: score the N bases either side of each variant only "
        "(at least the kernel's feature length minus 1)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="TSV file (default: standard output)")
    p.add_argument("--out", dest="out_old", metavar="FILE", help=argparse.SUPPRESS)
    p.set_defaults(func=run_score_variants)


def _add_model(p):
    p.add_argument("model", help="a model file written by structk.save")
    p.add_argument(
        "--class",
        dest="output_class",
        default=None,
        metavar="CLASS",
        help="which decision function of a model with several: a class (one "
        "versus the rest), a pair 'a vs b' (one versus one) or its index",
    )


def _importable(name):
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def _plot_file(text):
    """An argparse type: the --plot file, refused at once when matplotlib,
    which draws it, is missing (not after the work is done)."""
    if not _importable("matplotlib"):
        raise argparse.ArgumentTypeError(
            "drawing needs matplotlib, which is not installed: "
            "pip install 'structk[plot]' (or pip install matplotlib)"
        )
    return text


def _region(text):
    """An argparse type: ``START:END`` (or ``START-END``), 0-based, END excluded."""
    import re

    m = re.fullmatch(r"\s*(\d+)\s*[:-]\s*(\d+)\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not START:END (0-based positions, END excluded, e.g. 100:150)"
        )
    start, end = int(m.group(1)), int(m.group(2))
    if end <= start:
        raise argparse.ArgumentTypeError(f"{text!r}: END must be larger than START")
    return start, end


def _check_region(args, objects, names):
    """Refuse ``--region`` on graphs, and past the end of a sequence."""
    if args.region is None:
        return
    start, end = args.region
    if not isinstance(objects[0], str):
        raise ValueError("--region applies to sequences (FASTA input)")
    for i, obj in enumerate(objects):
        if len(obj) < end:
            raise ValueError(
                f"--region {start}:{end} runs past the end of record {i} ({names[i]}), "
                f"which has {len(obj)} positions (0..{len(obj) - 1}); give a region "
                "inside every sequence (or --split to choose the sequences)"
            )


def _window(args, n):
    """The positions ``lo, hi`` the output shows (all without --region)."""
    return args.region if args.region is not None else (0, n)


def _old_output(args):
    """``--output INDEX`` named the decision function before ``--class``; a
    whole number there is refused rather than written to as a file."""
    if args.output is not None and str(args.output).lstrip("-").isdigit():
        raise ValueError(
            f"-o/--output names the output file now (as in every command); "
            f"choose the decision function with --class {args.output}"
        )


def _class_index(model, text, names):
    """The index of ``--class TEXT`` among the decision functions ``names``
    (``None`` when not given)."""
    if text is None:
        return None
    if text in names:
        return names.index(text)
    classes = [str(c) for c in getattr(model, "classes_", [])]
    if len(names) == 1 and len(classes) == 2 and text in classes:
        if text == classes[1]:
            return 0
        raise ValueError(
            f"--class {text}: the model has one decision function "
            f"({names[0]}); positive values favour {classes[1]}, negative "
            f"ones {classes[0]}: give --class {classes[1]}, or no --class"
        )
    if text.lstrip("-").isdigit() and 0 <= int(text) < len(names):
        return int(text)
    listed = ", ".join(f"{i} ({n})" for i, n in enumerate(names))
    raise ValueError(
        f"--class {text!r} is not a decision function of the model; give one of {listed}"
    )


def _favours(model, name):
    """What a positive contribution favours, for a classifier's output."""
    classes = [str(c) for c in getattr(model, "classes_", [])]
    if len(classes) == 2:
        return f"{classes[1]} (negative ones {classes[0]})"
    if name in classes:
        return f"{name} (against the other classes)"
    return None


def _signs(model, name):
    """What a positive and a negative contribution favour, for pictures."""
    classes = [str(c) for c in getattr(model, "classes_", [])]
    if len(classes) == 2:
        return classes[1], classes[0]
    if name in classes:
        return name, "the other classes"
    if not classes:
        return "a larger value", "a smaller value"
    return None  # a one-versus-one pair: no legend


def _load(path):
    from ..model_file import load

    return load(path)


def _learner(model, path, what):
    """Refuse a model file holding something else than a fitted learner."""
    if not (hasattr(model, "decision_function") or hasattr(model, "predict")):
        raise ValueError(
            f"{path} holds a {type(model).__name__}, not a fitted learner: {what} needs the "
            "model file of structk fit (or structk.save of a fitted KernelSVM, "
            "KernelRidge, ...)"
        )
    return model


def _report(path, what="the report"):
    """Standard output, or ``path`` written atomically."""
    if path is None:
        return contextlib.nullcontext(sys.stdout)
    return atomic_output(path, what)


def run_explain(args):
    from ..explain import Explainer, NoExplicitFeaturesError, ism
    from ..explain._model import readout
    from ..explain.api import ism_symbols
    from ..explain.variants import output_names
    from .inputs import read_objects, read_split

    _old_output(args)
    if args.plot and args.smiles_column and not _importable("rdkit"):
        raise ImportError("--plot of molecules needs RDKit: pip install 'structk[chem]'")
    model = _learner(_load(args.model), args.model, "explain")
    try:
        names = readout(model).output_names
    except TypeError:
        names = output_names(model)
    output = _class_index(model, args.output_class, names)
    data = read_objects(args.input, smiles_column=args.smiles_column, id_column=args.id_column)
    if args.split is not None:
        data.subset(read_split(args.split, data.names, args.input))
    objects, names = data.objects, data.names
    if not 0 <= args.index < len(objects):
        raise ValueError(f"--index {args.index} is outside 0..{len(objects) - 1}")
    _check_region(args, objects, names)
    try:
        explainer = Explainer(model, output)
    except (NoExplicitFeaturesError, NotImplementedError) as exc:
        reason = str(exc).split(". For sequence models")[0]
        if args.ism and data.format == "fasta":
            print(f"note: {reason}; writing in-silico mutagenesis only")
            _write_ism(
                args.ism,
                objects[args.index],
                ism(model, objects[args.index], output),
                ism_symbols(model),
                args,
            )
            return 0
        hint = " (--ism FILE gives in-silico mutagenesis)" if data.format == "fasta" else ""
        raise ValueError(reason + hint) from None
    if args.edges and explainer.unit != "node":
        raise ValueError(f"--edges is for graph models; this model explains {explainer.unit}s")
    args.label_names = _label_names(args, data, explainer)
    E = explainer.contributions(objects, edges=args.edges)
    with _report(args.output) as out:
        _print_report(out, args, model, explainer, objects, names, E)
    if args.tsv:
        with atomic_output(args.tsv, "the contributions") as f:
            _write_contributions(f, args, explainer, names, E)
    if args.ism:
        if data.format != "fasta":
            raise ValueError("--ism is for sequences (FASTA input)")
        _write_ism(
            args.ism,
            objects[args.index],
            explainer.ism(objects[args.index]),
            [str(s) for s in explainer._sequence_leaves().symbols],
            args,
        )
    if args.plot:
        _plot(args, explainer, objects[args.index], E[args.index], names[args.index])
    if args.output is not None:
        print(f"report written to {args.output}", file=sys.stderr)
    return 0


def _label_names(args, data, explainer):
    """``(node, edge)`` label names for a graph model, from ``--label-map``
    or the README of a TU folder; the explainer writes them in feature
    names. ``(None, None)`` when there are none."""
    from ..datasets import tu_label_names

    if args.label_map is not None and explainer.unit != "node":
        raise ValueError(f"--label-map names graph labels; this model explains {explainer.unit}s")
    if explainer.unit != "node" or (args.label_map is None and data.format != "tu"):
        return None, None
    source = args.label_map if args.label_map is not None else args.input
    if args.label_map is not None and not Path(args.label_map).is_file():
        raise FileNotFoundError(f"--label-map {args.label_map}: no such file")
    node, edge = tu_label_names(source)
    if not (node or edge):
        if args.label_map is not None:
            raise ValueError(f"--label-map {args.label_map} names no labels")
        return None, None
    explainer.name_labels(node or None, edge or None)
    if args.label_map is None and not args.quiet:
        print(
            f"note: node labels named from {Path(args.input) / 'README.txt'} "
            "(give --label-map FILE to choose others)",
            file=sys.stderr,
        )
    return node or None, edge or None


def _print_report(out, args, model, explainer, objects, names, E):
    from .model_commands import describe

    def say(text=""):
        print(text, file=out)

    say(
        f"model: {type(model).__name__} with {describe(explainer.kernel)} ({explainer.output_name})"
    )
    favours = _favours(model, explainer.output_name)
    if favours is not None:
        say(f"positive weights and contributions favour {favours}")
    say(f"features with the largest weights (top {args.top} each way):")
    for name, w in explainer.feature_weights(args.top):
        say(f"  {w:+.6g}  {name}")
    say(
        f"\n{'object':<24} {'decision':>10} {'bias':>10}  "
        f"top {explainer.unit}s (symbol@index, 0-based)"
    )
    if args.region is not None:
        lo, hi = args.region
        say(
            f"region {lo}:{hi} (positions {lo}..{hi - 1}): top positions and the "
            "'region' column are its own; decision and bias are the whole sequence's"
        )
    for name, obj, e in zip(names, objects, E):
        lo, hi = _window(args, len(e.scores))
        order = [lo + int(i) for i in _top(e.scores[lo:hi], min(args.top, 5))]
        shown = _unit_labels(obj, e, args.label_names[0])
        tops = ", ".join(f"{shown[i]}@{i}:{e.scores[i]:+.3g}" for i in order)
        if args.region is not None:
            tops = f"region {float(e.scores[lo:hi].sum()):+.4g}; {tops}"
        say(f"{str(name)[:24]:<24} {e.decision:>10.5g} {e.bias:>10.5g}  {tops}")
        if args.edges and len(e.edge_scores):
            order = [int(i) for i in _top(e.edge_scores, min(args.top, 5))]
            ends = _edge_labels(obj, e, args.label_names[0])
            tops = ", ".join(f"{ends[i]}:{e.edge_scores[i]:+.3g}" for i in order)
            say(f"{'':<24} {'':>10} {'':>10}  top edges: {tops}")


def _write_contributions(f, args, explainer, names, E):
    if args.edges:
        f.write("object\tkind\tindex\tunit\tscore\n")
    else:
        f.write(f"object\t{explainer.unit}\tunit\tscore\n")
    kind = "node\t" if args.edges else ""
    for name, e in zip(names, E):
        lo, hi = _window(args, len(e.scores))
        for i, (u, s) in enumerate(zip(e.units, e.scores.tolist())):
            if lo <= i < hi:
                f.write(f"{name}\t{kind}{i}\t{u}\t{s!r}\n")
        if args.edges:
            for i, s in enumerate(e.edge_scores.tolist()):
                f.write(f"{name}\tedge\t{i}\t{e.edges[i][0]}-{e.edges[i][1]}\t{s!r}\n")


def _unit_labels(obj, explanation, names=None):
    """Symbols of a sequence's positions, or the labels of a graph's nodes
    (by name through ``names``)."""
    if hasattr(obj, "nodes"):
        return [_node_name(obj, v, names) for v in explanation.units]
    return explanation.units


def _node_name(graph, v, names):
    value = graph.nodes[v].get("label", v)
    return str(names.get(value, value) if names else value)


def _edge_labels(graph, explanation, names=None):
    """``label(u)-label(v)@u-v`` for each edge of an explanation."""

    def label(v):
        return _node_name(graph, v, names)

    return [f"{label(u)}-{label(v)}@{u}-{v}" for u, v in explanation.edges]


def _top(scores, n):
    import numpy as np

    return np.argsort(-np.abs(scores), kind="stable")[:n]


def _write_ism(path, sequence, delta, symbols, args):
    lo, hi = _window(args, delta.shape[0])
    with atomic_output(path, "the in-silico mutagenesis") as f:
        f.write("position\tref\talt\tdelta\n")
        for p in range(lo, hi):
            for a, alt in enumerate(symbols):
                if sequence[p].upper() != alt.upper():
                    f.write(f"{p}\t{sequence[p]}\t{alt}\t{float(delta[p, a])!r}\n")


def _plot(args, explainer, obj, explanation, name):
    import os

    from ..explain import plots

    title = f"{name}: f(x) = {explanation.decision:.4g} ({explainer.output_name})"
    favours = _signs(explainer.model, explainer.output_name)
    if isinstance(obj, str):
        symbols = [str(s) for s in explainer._sequence_leaves().symbols]
        M = (
            explainer.hypothetical(obj)
            if args.hypothetical
            else plots.contribution_matrix(explanation, symbols)
        )
        lo, hi = _window(args, len(obj))
        if args.region is not None:
            title += f", positions {lo}..{hi - 1}"
        what = "hypothetical contribution" if args.hypothetical else "contribution"
        fig = plots.plot_logo(
            M[lo:hi], symbols, start=lo, title=title, favours=favours, ylabel=f"{what} to f(x)"
        )
    elif args.smiles_column and obj.graph.get("smiles"):
        fig = plots.plot_molecule_figure(
            obj.graph["smiles"],
            explanation.scores,
            bond_scores=explanation.edge_scores,
            edges=explanation.edges,
            title=title,
            favours=favours,
        )
    else:
        fig = plots.plot_graph(
            obj,
            explanation.scores,
            title=title,
            edge_scores=explanation.edge_scores,
            label_names=args.label_names[0],
            favours=favours,
        )
    kind = os.path.splitext(str(args.plot))[1].lstrip(".").lower() or "png"
    with atomic_output(args.plot, "the picture", "wb") as f:
        fig.savefig(f, format=kind, dpi=150, bbox_inches="tight")
    plots.close(fig)
    print(f"wrote {args.plot}")


def run_score_variants(args):
    from ..explain.variants import (
        check_sequence_model,
        min_flank,
        output_names,
        read_variants,
        score_variants,
    )

    _old_output(args)
    if args.out_old is not None:
        if args.output is not None:
            raise ValueError("give -o/--output only (--out is its old spelling)")
        print(
            "structk score-variants: note: --out is deprecated, write -o/--output", file=sys.stderr
        )
        args.output = args.out_old
    model = _learner(_load(args.model), args.model, "score-variants")
    try:
        check_sequence_model(model)
    except TypeError as exc:
        raise ValueError(f"{args.model}: {exc}") from None
    names = output_names(model)
    output = _class_index(model, args.output_class, names)
    if output is None and len(names) > 1:
        listed = ", ".join(f"{i} ({n})" for i, n in enumerate(names))
        raise ValueError(
            f"{args.model} has {len(names)} decision functions: choose one "
            f"with --class, one of {listed}"
        )
    if args.flank is not None:
        need, kernel = min_flank(model)
        if args.flank < need:
            raise ValueError(
                f"--flank {args.flank} is too short for {kernel}: its features are "
                f"{need + 1} symbols long, so a variant changes features up to {need} "
                f"bases either side of it; give --flank {need} or more"
            )
    ids, ref, alt = read_variants(args.variants, args.sequences, flank=args.flank)
    f_ref, f_alt, delta = score_variants(model, ref, alt, output)
    lines = ["name\tref_score\talt_score\tdelta"]
    for row in zip(ids, f_ref.tolist(), f_alt.tolist(), delta.tolist()):
        lines.append("\t".join([row[0]] + [repr(v) for v in row[1:]]))
    with _report(args.output, "the variant scores") as out:
        out.write("\n".join(lines) + "\n")
    return 0
