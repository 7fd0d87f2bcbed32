"""``structk explain`` and ``structk score-variants``: why a saved model
says what it says (see :mod:`structk.explain`)."""

from __future__ import annotations

import sys


def add_parsers(sub, formatter):
    """Register the ``explain`` and ``score-variants`` subcommands."""
    p = sub.add_parser(
        "explain", help="feature weights and per-position / per-node contributions of a model",
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
               "  structk explain nfe2.model test.fa --tsv contributions.tsv\n"
               "  structk explain nfe2.model test.fa --ism ism.tsv --index 3\n"
               "  structk explain mutag.model MUTAG/ --plot graph0.png --index 0\n"
               "  structk explain mutag.model MUTAG/ --edges --tsv nodes_edges.tsv",
    )
    _add_model(p)
    p.add_argument("input", help="objects to explain: FASTA, TU folder or CSV")
    p.add_argument("--smiles-column", metavar="COL", help="CSV column of SMILES strings")
    p.add_argument("--top", type=int, default=10,
                   help="features and positions/nodes listed (default 10)")
    p.add_argument("--tsv", metavar="FILE", help="write every contribution: object, unit, "
                                                 "symbol or node, score")
    p.add_argument("--edges", action="store_true",
                   help="graph models: split each feature over the nodes and edges it is made "
                        "of (WL: its unfolding tree; shortest path: end nodes and path edges), "
                        "list the top edges, write them to --tsv and colour them in --plot")
    p.add_argument("--index", type=int, default=0,
                   help="the object --plot and --ism use (default 0, the first)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw the contributions of object --index (a logo for a sequence, "
                        "the molecule or graph otherwise)")
    p.add_argument("--hypothetical", action="store_true",
                   help="with --plot on a sequence: draw the hypothetical contributions "
                        "of every symbol at every position (GkmExplain)")
    p.add_argument("--ism", metavar="FILE",
                   help="write the change of the decision value for every single-symbol "
                        "substitution of sequence --index (TSV: position, ref, alt, delta)")
    p.set_defaults(func=run_explain)

    p = sub.add_parser(
        "score-variants", help="change of a sequence model's score between alleles (deltaSVM)",
        formatter_class=formatter,
        description="Score variants by f(alt) - f(ref) with a saved sequence model. Either "
                    "two FASTA files, reference and alternative sequences paired in order, "
                    "or a variant table (tab-separated: name, chrom, pos (1-based), ref, "
                    "alt; '#' comments) with the reference FASTA holding the records "
                    "'chrom' names. A reference allele that differs from the FASTA is an "
                    "error naming the line. Writes TSV: name, ref_score, alt_score, delta.",
        epilog="examples:\n"
               "  structk score-variants nfe2.model ref.fa alt.fa -o scores.tsv\n"
               "  structk score-variants nfe2.model variants.tsv genome.fa --flank 100",
    )
    _add_model(p)
    p.add_argument("variants", help="reference FASTA, or a variant table")
    p.add_argument("sequences", help="alternative FASTA, or (with a table) the reference FASTA")
    p.add_argument("--flank", type=int, default=None,
                   help="with a table: score the N bases either side of each variant only")
    p.add_argument("-o", "--out", metavar="FILE", help="TSV file (default: standard output)")
    p.set_defaults(func=run_score_variants)


def _add_model(p):
    p.add_argument("model", help="a model file written by structk.save")
    p.add_argument("--output", dest="output_index", type=int, default=None, metavar="INDEX",
                   help="which decision function of a model with several")


def _load(path):
    from ..model_file import load

    return load(path)


def run_explain(args):
    from ..explain import Explainer, NoExplicitFeaturesError, ism
    from ..explain.api import ism_symbols
    from .inputs import read_objects

    model = _load(args.model)
    data = read_objects(args.input, smiles_column=args.smiles_column)
    objects, names = data.objects, data.names
    if not 0 <= args.index < len(objects):
        raise ValueError(f"--index {args.index} is outside 0..{len(objects) - 1}")
    try:
        explainer = Explainer(model, args.output_index)
    except (NoExplicitFeaturesError, NotImplementedError) as exc:
        reason = str(exc).split(". For sequence models")[0]
        if args.ism and data.format == "fasta":
            print(f"note: {reason}; writing in-silico mutagenesis only")
            _write_ism(args.ism, objects[args.index],
                       ism(model, objects[args.index], args.output_index),
                       ism_symbols(model))
            return 0
        hint = " (--ism FILE gives in-silico mutagenesis)" if data.format == "fasta" else ""
        raise ValueError(reason + hint) from None
    print(f"model: {type(model).__name__} with {explainer.kernel!r} "
          f"({explainer.output_name})")
    print(f"features with the largest weights (top {args.top} each way):")
    for name, w in explainer.feature_weights(args.top):
        print(f"  {w:+.6g}  {name}")
    if args.edges and explainer.unit != "node":
        raise ValueError("--edges is for graph models; this model explains "
                         f"{explainer.unit}s")
    E = explainer.contributions(objects, edges=args.edges)
    print(f"\n{'object':<24} {'decision':>10} {'bias':>10}  "
          f"top {explainer.unit}s (symbol@index, 0-based)")
    for name, obj, e in zip(names, objects, E):
        order = [int(i) for i in _top(e.scores, min(args.top, 5))]
        shown = _unit_labels(obj, e)
        tops = ", ".join(f"{shown[i]}@{i}:{e.scores[i]:+.3g}" for i in order)
        print(f"{str(name)[:24]:<24} {e.decision:>10.5g} {e.bias:>10.5g}  {tops}")
        if args.edges and len(e.edge_scores):
            order = [int(i) for i in _top(e.edge_scores, min(args.top, 5))]
            ends = _edge_labels(obj, e)
            tops = ", ".join(f"{ends[i]}:{e.edge_scores[i]:+.3g}" for i in order)
            print(f"{'':<24} {'':>10} {'':>10}  top edges: {tops}")
    if args.tsv:
        with open(args.tsv, "w") as f:
            if args.edges:
                f.write("object\tkind\tindex\tunit\tscore\n")
            else:
                f.write(f"object\t{explainer.unit}\tunit\tscore\n")
            kind = "node\t" if args.edges else ""
            for name, e in zip(names, E):
                for i, (u, s) in enumerate(zip(e.units, e.scores.tolist())):
                    f.write(f"{name}\t{kind}{i}\t{u}\t{s!r}\n")
                if args.edges:
                    for i, s in enumerate(e.edge_scores.tolist()):
                        f.write(f"{name}\tedge\t{i}\t{e.edges[i][0]}-{e.edges[i][1]}\t{s!r}\n")
    if args.ism:
        if data.format != "fasta":
            raise ValueError("--ism is for sequences (FASTA input)")
        _write_ism(args.ism, objects[args.index], explainer.ism(objects[args.index]),
                   [str(s) for s in explainer._sequence_leaves().symbols])
    if args.plot:
        _plot(args, explainer, objects[args.index], E[args.index], names[args.index])
    return 0


def _unit_labels(obj, explanation):
    """Symbols of a sequence's positions, or the labels of a graph's nodes."""
    if hasattr(obj, "nodes"):
        return [str(obj.nodes[v].get("label", v)) for v in explanation.units]
    return explanation.units


def _edge_labels(graph, explanation):
    """``label(u)-label(v)@u-v`` for each edge of an explanation."""
    def label(v):
        return str(graph.nodes[v].get("label", v))

    return [f"{label(u)}-{label(v)}@{u}-{v}" for u, v in explanation.edges]


def _top(scores, n):
    import numpy as np

    return np.argsort(-np.abs(scores), kind="stable")[:n]


def _write_ism(path, sequence, delta, symbols):
    with open(path, "w") as f:
        f.write("position\tref\talt\tdelta\n")
        for p in range(delta.shape[0]):
            for a, alt in enumerate(symbols):
                if sequence[p].upper() != alt.upper():
                    f.write(f"{p}\t{sequence[p]}\t{alt}\t{float(delta[p, a])!r}\n")


def _plot(args, explainer, obj, explanation, name):
    from ..explain import plots

    title = f"{name}: f = {explanation.decision:.4g}"
    if isinstance(obj, str):
        symbols = [str(s) for s in explainer._sequence_leaves().symbols]
        M = (explainer.hypothetical(obj) if args.hypothetical
             else plots.contribution_matrix(explanation, symbols))
        fig = plots.plot_logo(M, symbols, title=title)
    elif args.smiles_column and obj.graph.get("smiles"):
        plots.plot_molecule(obj.graph["smiles"], explanation.scores, args.plot,
                            bond_scores=explanation.edge_scores, edges=explanation.edges)
        print(f"wrote {args.plot}")
        return
    else:
        fig = plots.plot_graph(obj, explanation.scores, title=title,
                               edge_scores=explanation.edge_scores)
    fig.savefig(args.plot, dpi=150, bbox_inches="tight")
    print(f"wrote {args.plot}")


def run_score_variants(args):
    from ..explain.variants import read_variants, score_variants

    model = _load(args.model)
    names, ref, alt = read_variants(args.variants, args.sequences, flank=args.flank)
    f_ref, f_alt, delta = score_variants(model, ref, alt, args.output_index)
    lines = ["name\tref_score\talt_score\tdelta"]
    for row in zip(names, f_ref.tolist(), f_alt.tolist(), delta.tolist()):
        lines.append("\t".join([row[0]] + [repr(v) for v in row[1:]]))
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
