"""Pictures of explanations: sequence logos, molecules, graphs.

* :func:`plot_logo` draws a contribution matrix ``(L, A)`` as a sequence
  logo: at each position the letters with positive scores stacked upwards,
  those with negative scores downwards, each as tall as its score. Pass
  the actual contributions (one letter per position, see
  :func:`contribution_matrix`) or GkmExplain's hypothetical ones.
* :func:`plot_molecule` colours the atoms of a molecule read from SMILES
  (RDKit, the ``chem`` extra) by their contributions, and its bonds too
  when given edge scores.
* :func:`plot_graph` draws any graph with networkx, nodes (and, given
  edge scores, edges) coloured by their contributions.
* :func:`plot_explanation` picks one of them for an
  :class:`~structk.explain.explainer.Explanation`.

Colours are symmetric around 0 (red positive, blue negative) so that the
sign of a contribution reads at a glance. matplotlib is needed
(``pip install 'structk[plot]'``); every function draws into ``ax`` when given
and returns the matplotlib figure.
"""

from __future__ import annotations

import numpy as np

#: Letter colours of the nucleotides (the usual logo colours); other
#: symbols are drawn in grey.
COLOURS = {"A": "#109648", "C": "#255C99", "G": "#F7B32B", "T": "#D62839", "U": "#D62839"}


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "plots need matplotlib: pip install 'structk[plot]' (or pip install matplotlib)"
        ) from None
    return plt


def close(fig):
    """Release ``fig`` (pyplot keeps every figure it made until closed)."""
    _plt().close(fig)


def _axes(ax, size):
    plt = _plt()
    if ax is None:
        fig, ax = plt.subplots(figsize=size)
        return fig, ax
    return ax.figure, ax


def contribution_matrix(explanation, symbols="ACGT"):
    """The ``(L, A)`` matrix holding each position's contribution in the
    column of its own symbol (0 elsewhere, and at unknown symbols)."""
    symbols = [str(s) for s in symbols]
    M = np.zeros((len(explanation.scores), len(symbols)))
    for p, (s, v) in enumerate(zip(explanation.units, explanation.scores)):
        if s in symbols:
            M[p, symbols.index(s)] = v
    return M


def _letter(ax, letter, x, y, height, colour):
    from matplotlib.patches import PathPatch
    from matplotlib.textpath import TextPath
    from matplotlib.transforms import Affine2D

    path = TextPath((0, 0), letter, size=1, prop={"family": "DejaVu Sans", "weight": "bold"})
    box = path.get_extents()
    if box.width <= 0 or box.height <= 0 or height == 0:
        return
    t = (
        Affine2D()
        .translate(-box.x0, -box.y0)
        .scale(0.9 / box.width, abs(height) / box.height)
        .translate(x - 0.45, y if height > 0 else y - abs(height))
    )
    ax.add_patch(PathPatch(t.transform_path(path), facecolor=colour, edgecolor="none"))


def plot_logo(
    matrix,
    symbols="ACGT",
    ax=None,
    start=0,
    title=None,
    favours=None,
    ylabel="contribution to f(x)",
):
    """Draw an ``(L, A)`` contribution matrix as a sequence logo.

    As in the usual logo tools (Schneider & Stephens 1990; logomaker, Tareen
    & Kinney 2020), the height of a letter is its score, read on the y
    axis (labelled with its unit, ``ylabel``; light grid lines at the
    ticks), and the letters are coloured by symbol, not by value: a small
    key beside the logo gives the symbols' colours (the nucleotides'; other
    symbols are grey, and a logo of grey letters only has no key). The
    sign, which the colour does not show, is the side of the 0 line.

    Parameters
    ----------
    matrix : array (L, A)
        Scores per position and symbol.
    symbols : sequence of str
        The column symbols.
    ax : matplotlib Axes, optional
    start : int
        Number of the first position on the axis (to draw a window of a
        longer sequence at its own positions: ``M[lo:hi]`` with
        ``start=lo``).
    title : str, optional
    favours : (str, str), optional
        What letters above and below 0 favour (e.g. the positive and the
        negative class), written beside the logo, under the letter key.
    ylabel : str
        The y axis' label: what a letter's height is, in which unit (the
        default: its share of the decision value ``f(x)``; e.g.
        ``"hypothetical contribution to f(x)"`` for GkmExplain's scores).

    References
    ----------
    T. D. Schneider and R. M. Stephens, "Sequence logos: a new way to
    display consensus sequences", Nucleic Acids Res. 18, 1990.
    A. Tareen and J. B. Kinney, "Logomaker: beautiful sequence logos in
    Python", Bioinformatics 36, 2020.
    """
    M = np.asarray(matrix, dtype=np.float64)
    fig, ax = _axes(ax, (max(6.0, M.shape[0] * 0.22), 2.2))
    symbols = [str(s) for s in symbols]
    drawn = [bool(np.any(M[:, a] != 0)) for a in range(len(symbols))]
    for p in range(M.shape[0]):
        up = down = 0.0
        for a in np.argsort(np.abs(M[p]))[::-1]:
            v = M[p, a]
            if v > 0:
                _letter(ax, symbols[a], start + p, up, v, COLOURS.get(symbols[a], "#777777"))
                up += v
            elif v < 0:
                _letter(ax, symbols[a], start + p, down, v, COLOURS.get(symbols[a], "#777777"))
                down += v
    lo = min(0.0, float(np.minimum(M, 0).sum(axis=1).min(initial=0)))
    hi = max(0.0, float(np.maximum(M, 0).sum(axis=1).max(initial=0)))
    pad = 0.05 * max(hi - lo, 1e-12)
    ax.set_xlim(start - 0.6, start + M.shape[0] - 0.4)
    ax.set_ylim(lo - pad, hi + pad)
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("position")
    ax.set_ylabel(ylabel)
    ax.set_axisbelow(True)
    ax.yaxis.grid(True, color="#dddddd", lw=0.5)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    _letter_key(ax, [s for s, d in zip(symbols, drawn) if d])
    if favours is not None:
        # beside the logo, under the letter key (above it, a long title ran into it)
        ax.text(
            1.01,
            0.0,
            f"above 0: favours {favours[0]}\nbelow 0: favours {favours[1]}",
            transform=ax.transAxes,
            ha="left",
            va="bottom",
            fontsize=7,
        )
    if title:
        ax.set_title(title, loc="left")
    return fig


def _letter_key(ax, symbols):
    """A legend of the letters' colours, outside the logo on the right:
    one entry per coloured symbol drawn, one ``other`` entry for the grey
    ones; none when every letter is grey."""
    from matplotlib.patches import Patch

    coloured = [s for s in symbols if s in COLOURS]
    if not coloured:
        return
    handles = [Patch(facecolor=COLOURS[s], label=s) for s in coloured]
    if len(coloured) < len(symbols):
        handles.append(Patch(facecolor="#777777", label="other"))
    ax.legend(
        handles=handles,
        title="letter",
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=7,
        title_fontsize=7,
        frameon=False,
        handlelength=1.0,
    )


def _limits(scores):
    m = float(np.abs(scores).max(initial=0.0))
    return m if m > 0 else 1.0


def plot_graph(
    graph,
    scores,
    ax=None,
    labels="label",
    title=None,
    label_names=None,
    edge_scores=None,
    favours=None,
):
    """Draw a networkx graph with nodes coloured by ``scores`` (in the order
    of ``graph.nodes``) and labelled by the node attribute ``labels``
    (mapped through ``label_names`` when given). With ``edge_scores`` (in
    the order of ``graph.edges``) the edges are drawn thick and coloured on
    the nodes' scale. The colour bar is labelled with what the two signs
    favour when ``favours`` (positive, negative) is given."""
    import networkx as nx

    fig, ax = _axes(ax, (4.5, 4.0))
    scores = np.asarray(scores, dtype=np.float64)
    nodes = list(graph.nodes)
    m = _limits(
        scores
        if edge_scores is None
        else np.concatenate([scores, np.asarray(edge_scores, dtype=np.float64)])
    )
    pos = nx.kamada_kawai_layout(graph) if len(nodes) > 1 else {nodes[0]: (0, 0)}
    text = {}
    for v in nodes:
        value = graph.nodes[v].get(labels, v) if labels is not None else v
        text[v] = str(label_names.get(value, value) if label_names else value)
    if edge_scores is None:
        nx.draw_networkx_edges(graph, pos, ax=ax, width=1.5, edge_color="#555555")
    else:
        edge_scores = np.asarray(edge_scores, dtype=np.float64)
        if len(edge_scores) != graph.number_of_edges():
            raise ValueError(
                f"{len(edge_scores)} edge scores for a graph of {graph.number_of_edges()} edges"
            )
        nx.draw_networkx_edges(
            graph,
            pos,
            edgelist=list(graph.edges),
            ax=ax,
            width=5.0,
            edge_color=edge_scores,
            edge_cmap=_colormap("coolwarm"),
            edge_vmin=-m,
            edge_vmax=m,
        )
    art = nx.draw_networkx_nodes(
        graph,
        pos,
        nodelist=nodes,
        node_color=scores,
        cmap="coolwarm",
        vmin=-m,
        vmax=m,
        ax=ax,
        node_size=320,
        edgecolors="#333333",
    )
    nx.draw_networkx_labels(graph, pos, labels=text, ax=ax, font_size=8)
    fig.colorbar(art, ax=ax, shrink=0.7, label=_bar_label(favours))
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return fig


def _bar_label(favours):
    if favours is None:
        return "contribution"
    return f"contribution\n(+ favours {favours[0]}, − favours {favours[1]})"


def plot_molecule_figure(
    smiles, scores, *, bond_scores=None, edges=None, title=None, favours=None, size=(420, 340)
):
    """:func:`plot_molecule`'s drawing in a matplotlib figure, with a colour
    bar of the contributions (labelled with what each sign favours when
    ``favours`` (positive, negative) is given) and a title.

    Returns
    -------
    matplotlib Figure
    """
    import io

    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    png = plot_molecule(smiles, scores, None, size=size, bond_scores=bond_scores, edges=edges)
    image = _plt().imread(io.BytesIO(png), format="png")
    everything = np.asarray(scores, dtype=np.float64)
    if bond_scores is not None:
        everything = np.concatenate([everything, np.asarray(bond_scores, dtype=np.float64)])
    m = _limits(everything)
    fig, ax = _axes(None, (size[0] / 80 + 1.6, size[1] / 80 + 0.4))
    ax.imshow(image)
    ax.set_axis_off()
    bar = ScalarMappable(norm=Normalize(-m, m), cmap=_colormap("coolwarm"))
    fig.colorbar(bar, ax=ax, shrink=0.7, label=_bar_label(favours))
    if title:
        ax.set_title(title)
    return fig


def _colormap(name):
    from matplotlib import colormaps

    return colormaps[name]


def plot_molecule(smiles, scores, path=None, size=(420, 340), bond_scores=None, edges=None):
    """A molecule drawn by RDKit with each atom coloured by its score.

    Parameters
    ----------
    smiles : str
        The molecule, as read by :func:`structk.datasets.from_smiles`
        (whose node order is RDKit's atom order).
    scores : array (n_atoms,)
    path : str, optional
        Write the PNG there.
    bond_scores : array (n_edges,), optional
        Colour the bonds too (same scale as the atoms), one score per
        pair of atom indices in ``edges`` (e.g. an explanation's
        ``edge_scores`` and ``edges``).
    edges : list of (int, int), optional

    Returns
    -------
    bytes
        The PNG image.
    """
    from rdkit import Chem
    from rdkit.Chem.Draw import rdMolDraw2D

    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise ValueError(f"{smiles!r} is not a SMILES string RDKit can parse")
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) != mol.GetNumAtoms():
        raise ValueError(f"{len(scores)} scores for a molecule of {mol.GetNumAtoms()} atoms")
    m = _limits(scores)
    cmap = _colormap("coolwarm")
    colours = {
        i: tuple(float(c) for c in cmap(0.5 + 0.5 * s / m)[:3])
        for i, s in enumerate(scores.tolist())
    }
    bonds = {}
    if bond_scores is not None:
        bond_scores = np.asarray(bond_scores, dtype=np.float64)
        if edges is None or len(edges) != len(bond_scores):
            raise ValueError("bond_scores need their edges (atom index pairs), one per score")
        m = _limits(np.concatenate([scores, bond_scores]))
        colours = {
            i: tuple(float(c) for c in cmap(0.5 + 0.5 * s / m)[:3])
            for i, s in enumerate(scores.tolist())
        }
        for (a, b), s in zip(edges, bond_scores.tolist()):
            bond = mol.GetBondBetweenAtoms(int(a), int(b))
            if bond is None:
                raise ValueError(f"atoms {a} and {b} of {smiles!r} share no bond")
            bonds[bond.GetIdx()] = tuple(float(c) for c in cmap(0.5 + 0.5 * s / m)[:3])
    drawer = rdMolDraw2D.MolDraw2DCairo(*size)
    rdMolDraw2D.PrepareAndDrawMolecule(
        drawer,
        mol,
        highlightAtoms=list(colours),
        highlightAtomColors=colours,
        highlightBonds=list(bonds),
        highlightBondColors=bonds,
    )
    drawer.FinishDrawing()
    png = drawer.GetDrawingText()
    if path is not None:
        with open(path, "wb") as f:
            f.write(png)
    return png


def plot_explanation(explanation, obj=None, ax=None, symbols="ACGT", title=None, label_names=None):
    """Draw an :class:`~structk.explain.explainer.Explanation`: a logo for a
    sequence, a coloured graph for a graph ``obj``."""
    if obj is not None and hasattr(obj, "nodes"):
        return plot_graph(
            obj,
            explanation.scores,
            ax=ax,
            title=title,
            label_names=label_names,
            edge_scores=explanation.edge_scores,
        )
    return plot_logo(contribution_matrix(explanation, symbols), symbols, ax=ax, title=title)
