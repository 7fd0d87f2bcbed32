"""Reader for the TU Dortmund graph benchmark format.

A dataset ``DS`` is a folder of comma-separated text files (Morris et al.,
2020)::

    DS_A.txt                 one edge per line, "row, col" (1-based node ids,
                             global over the dataset)
    DS_graph_indicator.txt   graph id (1-based) of each node
    DS_graph_labels.txt      class of each graph            (optional)
    DS_graph_attributes.txt  regression target of each graph (optional)
    DS_node_labels.txt       one label per node              (optional)
    DS_node_attributes.txt   one real vector per node        (optional)
    DS_edge_labels.txt       one label per line of DS_A.txt  (optional)
    DS_edge_attributes.txt   one real vector per line of DS_A.txt (optional)

References
----------
C. Morris, N. M. Kriege, F. Bause, K. Kersting, P. Mutzel and M. Neumann,
"TUDataset: A collection of benchmark datasets for learning with graphs",
ICML 2020 Workshop on Graph Representation Learning and Beyond.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np


def load_tu(path_or_dir, name=None, *, directed=False, require_targets=True):
    """Read a TU Dortmund dataset into networkx graphs and a target array.

    Parameters
    ----------
    path_or_dir : str or path
        Either the dataset's own folder (holding ``NAME_A.txt``), or a folder
        holding a sub-folder ``name`` (e.g. ``$STRUCTK_DATA/graphs`` with
        ``name="MUTAG"``).
    name : str, optional
        The dataset name (file prefix). Inferred from the single
        ``*_A.txt`` file in the folder when omitted.
    directed : bool, default=False
        Return ``networkx.DiGraph`` with one arc per line of ``NAME_A.txt``.
        By default graphs are undirected (``networkx.Graph``): the TU files
        list both directions of each undirected edge.
    require_targets : bool, default=True
        With ``False``, a folder without graph labels or attributes (new
        graphs to predict) gives ``y = None`` instead of an error.

    Returns
    -------
    graphs : list of networkx.Graph
        Nodes are ``0 .. n-1`` in file order. Node labels are stored in the
        node attribute ``"label"`` (int), node attribute vectors in
        ``"attributes"`` (float ndarray), edge labels in the edge attribute
        ``"label"`` (int), edge attribute vectors in ``"attributes"``.
    y : ndarray
        The graph classes (int, from ``NAME_graph_labels.txt``) or, without
        that file, the regression targets (float, from
        ``NAME_graph_attributes.txt``).

    Raises
    ------
    FileNotFoundError
        When a required file is missing.
    ValueError
        When the files disagree (line counts, node ids out of range, an
        undirected edge listed twice with different labels), naming the file
        and line.

    Examples
    --------
    The graph families bundled with structk are in this format (MUTAG and
    the other TU sets are read the same way from their folders):

    >>> from structk.datasets import bundled_path
    >>> graphs, y = load_tu(bundled_path("graph_families"))
    >>> len(graphs), int((y == 1).sum()), int((y == -1).sum()), graphs[0].nodes[0]
    (120, 60, 60, {'label': 0})
    """
    import networkx as nx

    folder, name = _locate(Path(path_or_dir), name)

    def file(suffix):
        return folder / f"{name}_{suffix}.txt"

    indicator = _read_ints(file("graph_indicator"))
    if indicator.ndim != 1 or indicator.size == 0:
        raise ValueError(f"{file('graph_indicator')} must hold one graph id per line")
    n_graphs = int(indicator.max())
    if indicator.min() < 1:
        line = int(np.argmin(indicator)) + 1
        raise ValueError(f"{file('graph_indicator')} line {line}: graph ids start at 1")
    n_nodes = indicator.size

    edges = _read_ints(file("A"), columns=2)
    if edges.size and (edges.min() < 1 or edges.max() > n_nodes):
        bad = int(np.argmax((edges < 1).any(axis=1) | (edges > n_nodes).any(axis=1)))
        raise ValueError(
            f"{file('A')} line {bad + 1}: node id {edges[bad].tolist()} outside "
            f"1..{n_nodes} (the number of lines of {file('graph_indicator').name})"
        )
    edges = edges - 1
    graph_of = indicator - 1
    cross = graph_of[edges[:, 0]] != graph_of[edges[:, 1]]
    if cross.any():
        bad = int(np.argmax(cross))
        raise ValueError(
            f"{file('A')} line {bad + 1}: edge {(edges[bad] + 1).tolist()} joins "
            "nodes of different graphs"
        )

    node_labels = _optional(file("node_labels"), n_nodes, _read_ints)
    node_attrs = _optional(file("node_attributes"), n_nodes, _read_floats)
    edge_labels = _optional(file("edge_labels"), len(edges), _read_ints)
    edge_attrs = _optional(file("edge_attributes"), len(edges), _read_floats)
    if file("graph_labels").exists():
        y = _optional(file("graph_labels"), n_graphs, _read_ints)
    elif file("graph_attributes").exists():
        y = _optional(file("graph_attributes"), n_graphs, _read_floats)
    elif not require_targets:
        y = None
    else:
        raise FileNotFoundError(
            f"{folder} has neither {name}_graph_labels.txt nor "
            f"{name}_graph_attributes.txt: no target to return"
        )
    if y is not None and y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if node_labels is not None and node_labels.ndim == 2:
        node_labels = node_labels[:, 0]  # only the first label column is used
    if edge_labels is not None and edge_labels.ndim == 2:
        edge_labels = edge_labels[:, 0]

    # local node id of each global node: rank within its graph, in file order
    order = np.argsort(graph_of, kind="stable")
    starts = np.searchsorted(graph_of[order], np.arange(n_graphs))
    local = np.empty(n_nodes, dtype=np.int64)
    sizes = np.bincount(graph_of, minlength=n_graphs)
    local[order] = np.arange(n_nodes) - np.repeat(starts, sizes)

    # the graphs are built in bulk, one add_nodes_from and one add_edges_from
    # each (file order kept); an undirected edge listed twice (both
    # directions, as TU files do) keeps its first line's attributes
    kept = np.arange(len(edges))
    if not directed and len(edges):
        key = np.minimum(edges[:, 0], edges[:, 1]) * n_nodes + np.maximum(edges[:, 0], edges[:, 1])
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        first_line = first[inverse.ravel()]
        if edge_labels is not None:
            bad = np.flatnonzero(edge_labels != edge_labels[first_line])
            if bad.size:
                line = int(bad[0])
                u, v = (int(x) + 1 for x in edges[line])
                raise ValueError(
                    f"{file('edge_labels')} line {line + 1}: undirected edge "
                    f"{(u, v)} has label {int(edge_labels[line])} but its other "
                    f"direction has {int(edge_labels[first_line[line]])}"
                )
        kept = np.sort(first)
    node_rows = np.split(order, starts[1:]) if n_graphs else []
    edge_graph = graph_of[edges[kept, 0]] if len(edges) else np.zeros(0, dtype=np.int64)
    by_graph = np.argsort(edge_graph, kind="stable")
    edge_rows = np.split(
        kept[by_graph], np.searchsorted(edge_graph[by_graph], np.arange(1, n_graphs))
    )
    local_list = local.tolist()
    graphs = []
    for g in range(n_graphs):
        G = nx.DiGraph() if directed else nx.Graph()
        nodes = node_rows[g].tolist()
        attrs = [{} for _ in nodes]
        if node_labels is not None:
            for a, value in zip(attrs, node_labels[node_rows[g]].tolist()):
                a["label"] = value
        if node_attrs is not None:
            for a, i in zip(attrs, nodes):
                a["attributes"] = node_attrs[i]
        G.add_nodes_from(zip((local_list[i] for i in nodes), attrs))
        lines = edge_rows[g].tolist()
        eattrs = [{} for _ in lines]
        if edge_labels is not None:
            for a, value in zip(eattrs, edge_labels[edge_rows[g]].tolist()):
                a["label"] = value
        if edge_attrs is not None:
            for a, line in zip(eattrs, lines):
                a["attributes"] = edge_attrs[line]
        G.add_edges_from(
            (local_list[int(edges[line, 0])], local_list[int(edges[line, 1])], a)
            for line, a in zip(lines, eattrs)
        )
        graphs.append(G)
    return graphs, y


def save_tu(folder, graphs, y=None, *, name=None, label_names=None):
    """Write graphs (and their targets) as a TU Dortmund dataset folder.

    The files are those :func:`load_tu` reads, so ``load_tu(folder)`` gives
    back the same graphs (nodes renumbered ``0 .. n-1`` in the order of
    ``G.nodes``, edges in the order of ``G.edges``) and targets: a subset of a
    dataset (``[graphs[i] for i in train]``) becomes a folder of its own.

    Parameters
    ----------
    folder : str or path
        The folder to write; made when missing. One that already holds a
        TU dataset (an ``*_A.txt`` file) is refused rather than mixed.
    graphs : list of networkx.Graph or networkx.DiGraph
        All undirected or all directed. Node attribute ``"label"`` (every
        node or none) becomes ``NAME_node_labels.txt``, ``"attributes"``
        (float vectors of one length) ``NAME_node_attributes.txt``; edge
        ``"label"`` and ``"attributes"`` likewise. Labels that are integers
        are written as they are; labels that are strings (an element symbol,
        a bond type) are numbered in order of first appearance and the names
        listed in ``README.txt`` under ``Node labels:`` / ``Edge labels:``,
        as TU datasets do (:func:`tu_label_names` reads them back).
    y : array-like, optional
        One target per graph: integers are written as graph labels
        (``NAME_graph_labels.txt``), other numbers as regression targets
        (``NAME_graph_attributes.txt``). Without it, neither file (new
        graphs to predict; ``load_tu(..., require_targets=False)``).
    name : str, optional
        The dataset name (file prefix); default: the folder's name.
    label_names : (dict, dict), optional
        Names of integer node and edge labels, ``{label: name}`` (as
        :func:`tu_label_names` returns them for the source dataset), listed
        in ``README.txt`` so that a subset keeps MUTAG's atom names.

    Returns
    -------
    pathlib.Path
        The folder.

    Raises
    ------
    ValueError
        Naming the graph, node or edge whose label or attributes the files
        cannot hold (a label on some nodes only, labels neither all integers
        nor all strings, attribute vectors of different lengths), for an
        empty list, mixed directed and undirected graphs, or ``y`` of the
        wrong length; ``FileExistsError`` for a folder holding a dataset.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from structk.datasets import bundled_path
    >>> graphs, y = load_tu(bundled_path("graph_families"))
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "FIRST10"
    >>> _ = save_tu(out, graphs[:10], y[:10])
    >>> again, y2 = load_tu(out)
    >>> [sorted(g.edges) for g in again] == [sorted(g.edges) for g in graphs[:10]]
    True
    >>> bool((y2 == y[:10]).all())
    True
    """
    import networkx as nx

    folder = Path(folder)
    name = folder.name if name is None else name
    graphs = list(graphs)
    if not graphs:
        raise ValueError("save_tu needs at least one graph")
    directed = [isinstance(G, nx.DiGraph) for G in graphs]
    if any(directed) and not all(directed):
        g = directed.index(not directed[0])
        raise ValueError(
            f"graphs[{g}] is {'directed' if directed[g] else 'undirected'}, graphs[0] is not: "
            "a TU folder holds graphs of one kind"
        )
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(graphs):
            raise ValueError(f"y has shape {y.shape}; give one target per graph ({len(graphs)})")
    if folder.is_dir() and any(folder.glob("*_A.txt")):
        raise FileExistsError(
            f"{folder} already holds a TU dataset ({next(folder.glob('*_A.txt')).name}); "
            "write to a new folder"
        )
    files, readme = {}, []
    indicator, pairs, node_items, edge_items = [], [], [], []
    offset = 0
    for g, G in enumerate(graphs):
        index = {v: i for i, v in enumerate(G.nodes)}
        indicator += [g + 1] * len(index)
        for v, data in G.nodes(data=True):
            node_items.append((f"graphs[{g}] node {v!r}", data))
        for u, v, data in G.edges(data=True):
            a, b = index[u] + offset + 1, index[v] + offset + 1
            # an undirected edge on two lines, both directions, as TU files list it
            ends = [(a, b)] if directed[0] else [(a, b), (b, a)]
            for end in ends:
                pairs.append(end)
                edge_items.append((f"graphs[{g}] edge {(u, v)!r}", data))
        offset += len(index)
    files["A"] = "".join(f"{a}, {b}\n" for a, b in pairs)
    files["graph_indicator"] = "".join(f"{g}\n" for g in indicator)
    for kind, items in (("node", node_items), ("edge", edge_items)):
        labels = _tu_column(items, "label", kind)
        if labels is not None:
            text, names = _tu_labels(labels, items, kind)
            files[f"{kind}_labels"] = text
            listed = [(code, label) for label, code in names.items()]
            given = (label_names or ({}, {}))[0 if kind == "node" else 1] or {}
            if not names and given:
                listed = sorted((int(code), str(label)) for code, label in given.items())
            if listed:
                readme += [f"{kind.capitalize()} labels:", ""]
                readme += [f"  {code}  {label}" for code, label in listed] + [""]
        vectors = _tu_column(items, "attributes", kind)
        if vectors is not None:
            files[f"{kind}_attributes"] = _tu_vectors(vectors, items, kind)
    if y is not None:
        if y.dtype.kind in "iub" or (
            y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y))
        ):
            files["graph_labels"] = "".join(f"{int(v)}\n" for v in y.tolist())
        elif y.dtype.kind == "f":
            files["graph_attributes"] = "".join(f"{float(v)!r}\n" for v in y.tolist())
        else:
            raise ValueError(
                f"y holds {y.dtype} values such as {y[0]!r}: TU graph labels are integers "
                "(map the classes to integers first)"
            )
    folder.mkdir(parents=True, exist_ok=True)
    for suffix, text in files.items():
        (folder / f"{name}_{suffix}.txt").write_text(text)
    if readme:
        (folder / "README.txt").write_text(
            f"{name}: written by structk.datasets.save_tu\n\n" + "\n".join(readme)
        )
    return folder


def _tu_column(items, key, kind):
    """The ``key`` attribute of every node (edge line), ``None`` when none
    has it; refused when only some have it, naming the first without it."""
    have = [key in data for _, data in items]
    if not any(have):
        return None
    if not all(have):
        where = items[have.index(False)][0]
        raise ValueError(
            f"{where} has no {key!r} while other {kind}s have one: a TU file holds "
            f"one {key} per {kind}"
        )
    return [data[key] for _, data in items]


def _tu_labels(labels, items, kind):
    """The label file's text, and ``{name: code}`` for string labels."""
    if all(_label_kind(v) == "int" for v in labels):
        return "".join(f"{int(v)}\n" for v in labels), {}
    if all(isinstance(v, str) for v in labels):
        names = {}
        codes = [names.setdefault(v, len(names)) for v in labels]
        return "".join(f"{c}\n" for c in codes), names
    kinds = [_label_kind(v) for v in labels]
    bad = next(i for i, k in enumerate(kinds) if k != kinds[0] or k is None)
    raise ValueError(
        f"{items[bad][0]} has label {labels[bad]!r} ({type(labels[bad]).__name__}): TU "
        f"{kind} labels must be all integers or all strings"
    )


def _label_kind(value):
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return "int"
    return "str" if isinstance(value, str) else None


def _tu_vectors(vectors, items, kind):
    rows = []
    for (where, _), v in zip(items, vectors):
        a = np.atleast_1d(np.asarray(v, dtype=np.float64))
        if a.ndim != 1 or (rows and len(a) != len(rows[0])):
            raise ValueError(
                f"{where} has attributes of shape {a.shape}, the first {kind} "
                f"{len(rows[0]) if rows else '?'}: a TU file holds vectors of one length"
            )
        rows.append(a)
    return "".join(", ".join(repr(float(x)) for x in a) + "\n" for a in rows)


def tu_label_names(path):
    r"""The names of a TU dataset's node and edge labels, from its README.

    TU datasets of molecules ship a ``README.txt`` listing what the label
    integers stand for (MUTAG: ``0  C``, ``1  N``, ...; bonds ``0
    aromatic``, ...) under the headings ``Node labels:`` and ``Edge
    labels:``. A plain two-column file (``0 C`` per line, ``#`` comments)
    is read as node label names.

    Parameters
    ----------
    path : str or path
        A TU dataset folder (its ``README.txt`` is read, when there is one)
        or a label-map file.

    Returns
    -------
    node_names, edge_names : dict
        ``{label int: name}``; empty when the folder has no README or the
        README lists no names.

    Raises
    ------
    ValueError
        When a file holds a line that is neither ``INT NAME`` nor a heading,
        or gives one label two names, naming the file and line.

    Examples
    --------
    >>> import os, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "README.txt").write_text(
    ...     "Node labels:\n\n  0  C\n  1  N\n\nEdge labels:\n\n  0  aromatic\n")
    >>> tu_label_names(folder)
    ({0: 'C', 1: 'N'}, {0: 'aromatic'})
    """
    import re

    path = Path(path)
    if path.is_dir():
        path = path / "README.txt"
        if not path.is_file():
            return {}, {}
        plain = False
    else:
        plain = True
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = fh.read().splitlines()
    heading = re.compile(r"\b(node|edge) labels\s*:(.*)$", re.I)
    headed = any(heading.search(line) for line in lines)
    maps = {"node": {}, "edge": {}}
    section = "node" if plain and not headed else None
    entry = re.compile(r"\s*(-?\d+)\s*[\t ,:=]\s*(\S.*?)\s*$")
    for lineno, line in enumerate(lines, start=1):
        found = heading.search(line)
        if found:
            section = found.group(1).lower()
            # names on the heading's own line: "Node labels: 0 = C, 1 = N"
            for label, name in re.findall(r"(-?\d+)\s*[=:]\s*([^,;\s]+)", found.group(2)):
                _name_label(maps[section], int(label), name, path, lineno, section)
            continue
        if section is None or not line.strip() or line.lstrip().startswith("#"):
            continue
        m = entry.match(line)
        if m is None:
            if headed:  # the end of a README section
                section = None
                continue
            raise ValueError(
                f"{str(path)!r} line {lineno}: {line.strip()!r} is not 'INT NAME' "
                "(a label and its name, e.g. '0 C')"
            )
        _name_label(maps[section], int(m.group(1)), m.group(2), path, lineno, section)
    return maps["node"], maps["edge"]


def _name_label(table, label, name, path, lineno, section):
    if label in table and table[label] != name:
        raise ValueError(
            f"{str(path)!r} line {lineno}: {section} label {label} is named "
            f"{table[label]!r} already; give each label one name"
        )
    table[label] = name


def _locate(path, name):
    if name is not None:
        for folder in (path / name, path):
            if (folder / f"{name}_A.txt").exists():
                return folder, name
        raise FileNotFoundError(
            f"no TU dataset {name!r} in {path}: expected {path / name / (name + '_A.txt')}"
        )
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is not a folder")
    found = sorted(path.glob("*_A.txt"))
    if len(found) != 1:
        raise FileNotFoundError(
            f"cannot infer the dataset name in {path}: found "
            f"{[f.name for f in found] or 'no *_A.txt file'}; pass name=..."
        )
    return path, found[0].name[: -len("_A.txt")]


def _read(path, dtype, columns=None):
    if not path.exists():
        raise FileNotFoundError(f"missing TU dataset file {path}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy warns on empty files; refused below
            data = np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot parse {path}: {str(exc).splitlines()[0]}") from None
    if data.size == 0:
        raise ValueError(
            f"{path} is empty (a truncated download?): every TU dataset "
            "file has one line per node, edge or graph"
        )
    if columns is not None and data.size and data.shape[1] != columns:
        raise ValueError(f"{path} must have {columns} columns, found {data.shape[1]}")
    if columns is None and data.shape[1] == 1:
        data = data[:, 0]
    return data


def _read_ints(path, columns=None):
    return _read(path, np.int64, columns)


def _read_floats(path, columns=None):
    data = _read(path, np.float64, columns)
    return data if data.ndim == 2 else data[:, None]


def _optional(path, n_lines, reader):
    if not path.exists():
        return None
    data = reader(path)
    if len(data) != n_lines:
        raise ValueError(f"{path} has {len(data)} lines, expected {n_lines}")
    return data
