"""``structk explain --region`` (a window of a sequence), TU label maps
(``--label-map`` and a TU folder's README) and the pictures' colour bars,
titles and sign legends (issue 38)."""

import re
import shutil

import numpy as np
import pytest

import structk
from structk.cli import main
from structk.datasets import bundled_path, load_tu, tu_label_names
from structk.explain import Explainer
from structk.kernels import Normalize, Spectrum, WeisfeilerLehman
from structk.learners import KernelSVM

SEQS = [
    "ACGTGACTCAGTACGTTGCA",
    "TTGACTCATTAAGGCATGCA",
    "GGGCCCGGGAAATTTCCCGG",
    "CCCGGGTTTAAAGGGCCCAA",
    "ATGACTCAGCATTGACTCAT",
    "GCGCGCAAATTTGCGCAATT",
]
LABELS = ["site", "site", "none", "none", "site", "none"]


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # refused while the arguments are read
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def seq_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("region")
    model = KernelSVM(kernel=Normalize(Spectrum(k=3)), C=10).fit(SEQS, LABELS)
    structk.save(model, tmp / "m.model")
    (tmp / "x.fa").write_text(">a\nTTGACTCAGGCATTGACTCA\n>b\nGGGAAACCCTTTGGGAAACC\n")
    return tmp, model


def test_region_restricts_report_tsv_and_ism_to_the_window(seq_files, tmp_path, capsys):
    tmp, model = seq_files
    tsv, ism_out = tmp_path / "c.tsv", tmp_path / "ism.tsv"
    code, out, _ = run(
        capsys,
        "explain",
        tmp / "m.model",
        tmp / "x.fa",
        "--region",
        "5:12",
        "--tsv",
        tsv,
        "--ism",
        ism_out,
        "--top",
        "3",
    )
    assert code == 0
    ex = Explainer(model)
    E = ex.contributions(["TTGACTCAGGCATTGACTCA", "GGGAAACCCTTTGGGAAACC"])
    rows = [line.split("\t") for line in tsv.read_text().splitlines()[1:]]
    assert sorted({int(r[1]) for r in rows}) == list(range(5, 12))
    for name, e in zip("ab", E):
        mine = {int(r[1]): float(r[3]) for r in rows if r[0] == name}
        np.testing.assert_allclose([mine[i] for i in range(5, 12)], e.scores[5:12], atol=1e-12)
        line = next(line for line in out.splitlines() if line.startswith(name + " "))
        region = float(re.search(r"region ([-+][\d.e+-]+);", line).group(1))
        assert region == pytest.approx(e.scores[5:12].sum(), abs=5e-4 * max(1, abs(region)))
        tops = [int(i) for i in re.findall(r"@(\d+):", line)]
        assert tops and all(5 <= i < 12 for i in tops)
        # the decision printed is still the whole sequence's
        assert float(line.split()[1]) == pytest.approx(e.decision, rel=1e-4)
    ism_rows = [line.split("\t") for line in ism_out.read_text().splitlines()[1:]]
    assert len(ism_rows) == 7 * 3 and {int(r[0]) for r in ism_rows} == set(range(5, 12))
    p, ref, alt, delta = ism_rows[0]
    seq = "TTGACTCAGGCATTGACTCA"
    mutant = seq[:5] + alt + seq[6:]
    expected = model.decision_function([mutant])[0] - model.decision_function([seq])[0]
    assert (p, ref) == ("5", "T") and float(delta) == pytest.approx(expected, abs=1e-9)


def test_region_plot_draws_the_window_at_its_positions(seq_files, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    tmp, _ = seq_files
    png = tmp_path / "w.png"
    code, _, _ = run(
        capsys,
        "explain",
        tmp / "m.model",
        tmp / "x.fa",
        "--region",
        "5-12",
        "--plot",
        png,
        "--index",
        "1",
    )
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "region, words",
    [
        ("5:30", ["--region 5:30", "record 0 (a)", "20 positions"]),
        ("9:3", ["END must be larger than START"]),
        ("a:b", ["not START:END"]),
    ],
)
def test_bad_regions_are_refused(seq_files, region, words, capsys):
    tmp, _ = seq_files
    code, _, err = run(capsys, "explain", tmp / "m.model", tmp / "x.fa", "--region", region)
    assert code == 2
    for word in words:
        assert word in err, (word, err)


def test_region_on_graphs_is_refused(tmp_path, capsys):
    G, y = load_tu(bundled_path("graph_families"))
    structk.save(KernelSVM(kernel=WeisfeilerLehman(h=1)).fit(G[:20], y[:20]), tmp_path / "g.model")
    code, _, err = run(
        capsys, "explain", tmp_path / "g.model", bundled_path("graph_families"), "--region", "0:2"
    )
    assert code == 2 and "--region applies to sequences" in err


# ------------------------------------------------------------- label maps
def _by_hand(name, names):
    """An unnamed feature name with each label digit replaced by its name
    (the labels of these graphs are the single digits 0, 1, 2)."""
    prefix, tree = name.split(": ", 1)
    return prefix + ": " + "".join(names.get(int(c), c) if c.isdigit() else c for c in tree)


def test_label_names_from_a_tu_readme_and_a_map_file(tmp_path, capsys):
    folder = bundled_path("graph_families")
    assert tu_label_names(folder) == ({0: "C", 1: "N", 2: "O"}, {})
    G, y = load_tu(folder)
    model = KernelSVM(kernel=WeisfeilerLehman(h=2), C=1).fit(G, y)
    structk.save(model, tmp_path / "g.model")
    plain = Explainer(model).feature_weights(4)
    named = {0: "C", 1: "N", 2: "O"}
    code, out, err = run(capsys, "explain", tmp_path / "g.model", folder, "--top", "4")
    assert code == 0 and "README.txt" in err and "--label-map" in err
    for name, w in plain:
        assert f"{w:+.6g}  {_by_hand(name, named)}" in out
    code, quiet, err = run(capsys, "explain", tmp_path / "g.model", folder, "--top", "4", "--quiet")
    assert code == 0 and err == "" and quiet == out
    assert re.search(r"graph0 .* [CNO]@\d+:", out)
    # a map of one's own: INT NAME lines, a comment (names in the labels' order,
    # since a tree's children are sorted by their written names)
    own = tmp_path / "atoms.txt"
    own.write_text("# my names\n0\tcarbon\n1 nitrogen\n2 oxygen\n")
    code, out, _ = run(
        capsys, "explain", tmp_path / "g.model", folder, "--top", "4", "--label-map", own
    )
    assert code == 0
    mine = {0: "carbon", 1: "nitrogen", 2: "oxygen"}
    for name, w in plain:
        assert f"{w:+.6g}  {_by_hand(name, mine)}" in out
    # a copy of the folder without its README: the integers, as stored
    bare = tmp_path / "bare"
    shutil.copytree(folder, bare)
    (bare / "README.txt").unlink()
    code, out, err = run(capsys, "explain", tmp_path / "g.model", bare, "--top", "4")
    assert code == 0 and "README" not in err
    for name, w in plain:
        assert f"{w:+.6g}  {name}" in out


def test_edge_label_names_in_feature_names():
    import networkx as nx

    graphs = []
    for n in (3, 4, 5, 6):
        g = nx.path_graph(n)
        nx.set_node_attributes(g, {v: v % 2 for v in g}, "label")
        nx.set_edge_attributes(g, {e: (e[0] % 3) for e in g.edges}, "label")
        graphs.append(g)
    model = KernelSVM(kernel=WeisfeilerLehman(h=1, edge_label="label"), C=1).fit(
        graphs, [0, 1, 0, 1]
    )
    plain = Explainer(model).feature_weights(5)
    named = Explainer(model).name_labels({0: "C", 1: "N"}, {0: "arom", 1: "double", 2: "single"})
    for (a, wa), (b, wb) in zip(plain, named.feature_weights(5)):
        assert wa == wb
        prefix, tree = a.split(": ", 1)
        # edge labels come before ':' inside the tree, node labels elsewhere
        # (names in the labels' order: a tree's children are sorted by name)
        bonds = ["arom", "double", "single"]
        expected = re.sub(r"(\d):", lambda m: bonds[int(m.group(1))] + ":", tree)
        expected = re.sub(r"\d", lambda m: "CN"[int(m.group(0))], expected)
        assert b.split(": ", 1)[1] == expected


@pytest.mark.parametrize(
    "text, words",
    [
        ("0 C\nnot a pair\n", ["line 2", "'not a pair'", "INT NAME"]),
        ("0 C\n1 N\n0 O\n", ["line 3", "node label 0", "'C' already"]),
    ],
)
def test_bad_label_maps_name_the_line(tmp_path, text, words, capsys):
    bad = tmp_path / "map.txt"
    bad.write_text(text)
    with pytest.raises(ValueError) as info:
        tu_label_names(bad)
    for word in words:
        assert word in str(info.value)
    G, y = load_tu(bundled_path("graph_families"))
    structk.save(KernelSVM(kernel=WeisfeilerLehman(h=1)).fit(G[:20], y[:20]), tmp_path / "g.model")
    code, _, err = run(
        capsys, "explain", tmp_path / "g.model", bundled_path("graph_families"), "--label-map", bad
    )
    assert code == 2 and "map.txt" in err and words[0] in err


def test_label_map_on_a_sequence_model_is_refused(seq_files, tmp_path, capsys):
    tmp, _ = seq_files
    own = tmp_path / "atoms.txt"
    own.write_text("0 C\n")
    code, _, err = run(capsys, "explain", tmp / "m.model", tmp / "x.fa", "--label-map", own)
    assert code == 2 and "--label-map names graph labels" in err


# ---------------------------------------------------------------- pictures
def _texts(fig):
    return (
        [t.get_text() for ax in fig.axes for t in ax.texts]
        + [ax.get_title(loc) for ax in fig.axes for loc in ("left", "center")]
        + [ax.get_ylabel() for ax in fig.axes]
    )


def test_pictures_have_titles_sign_legends_and_colour_bars():
    pytest.importorskip("matplotlib")
    import networkx as nx

    from structk.explain import plots

    M = np.array([[0.5, 0, 0, 0], [0, -0.25, 0, 0], [0, 0, 0.1, 0]])
    fig = plots.plot_logo(M, start=40, title="s1: f(x) = 1.2", favours=("site", "none"))
    ax = fig.axes[0]
    assert ax.get_xlim() == pytest.approx((39.4, 42.6))
    texts = _texts(fig)
    assert "s1: f(x) = 1.2" in texts
    assert any("above 0: favours site" in t and "below 0: favours none" in t for t in texts)
    plots.close(fig)
    g = nx.cycle_graph(4)
    nx.set_node_attributes(g, {v: v % 2 for v in g}, "label")
    fig = plots.plot_graph(
        g, np.arange(4.0) - 1, title="g", label_names={0: "C", 1: "N"}, favours=("1", "-1")
    )
    assert len(fig.axes) == 2  # the graph and its colour bar
    assert any("+ favours 1" in t and "favours -1" in t for t in _texts(fig))
    drawn = {t.get_text() for t in fig.axes[0].texts}
    assert drawn == {"C", "N"}
    plots.close(fig)


def test_logo_has_a_value_axis_and_a_letter_colour_key():
    """The letters are coloured by symbol, so the logo's scale is its y axis
    (labelled with the unit, ticks spanning the stacks, grid lines at the
    ticks) and a key gives each drawn symbol's colour."""
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    from structk.explain import plots

    M = np.array([[0.5, 0, 0, 0], [0, -0.25, 0, 0], [0, 0, 0, 0.1], [0.2, 0, 0, -0.3]])
    fig = plots.plot_logo(M, favours=("site", "none"))
    ax = fig.axes[0]
    assert ax.get_ylabel() == "contribution to f(x)"
    fig.canvas.draw()
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    # the ticks read the tallest stack up (0.5) and the deepest down (-0.3)
    assert min(ticks) <= -0.2 and max(ticks) >= 0.4 and 0 in ticks
    assert all(label.get_text() for label in ax.get_yticklabels())
    assert any(line.get_visible() for line in ax.get_ygridlines())
    key = ax.get_legend()
    assert key is not None and key.get_title().get_text() == "letter"
    # G is never drawn: no entry for it
    assert [t.get_text() for t in key.get_texts()] == ["A", "C", "T"]
    colours = [to_hex(h.get_facecolor()).upper() for h in key.legend_handles]
    assert colours == [plots.COLOURS[s].upper() for s in "ACT"]
    # the letters drawn carry the key's colours
    faces = {to_hex(p.get_facecolor()).upper() for p in ax.patches}
    assert faces == set(colours)
    # the sign legend is still there
    assert any("above 0: favours site" in t.get_text() for t in ax.texts)
    plots.close(fig)
    # grey symbols: one "other" entry; only grey letters: no key
    fig = plots.plot_logo(np.array([[0.3, 0.2], [0, -0.1]]), symbols="AW", ylabel="score")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "score"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "other"]
    plots.close(fig)
    fig = plots.plot_logo(np.array([[0.3, 0.2], [0, -0.1]]), symbols="WY")
    assert fig.axes[0].get_legend() is None
    plots.close(fig)


def test_molecule_picture_has_a_colour_bar_and_title(tmp_path, capsys):
    pytest.importorskip("rdkit")
    pytest.importorskip("matplotlib")
    from structk.datasets import from_smiles
    from structk.explain import plots

    smiles = ["c1ccccc1[N+](=O)[O-]", "CCO", "c1ccccc1O", "CC[N+](=O)[O-]"]
    model = KernelSVM(kernel=WeisfeilerLehman(h=1)).fit(from_smiles(smiles), [1, 0, 0, 1])
    e = Explainer(model).contributions(from_smiles(smiles[:1]))[0]
    fig = plots.plot_molecule_figure(smiles[0], e.scores, title="nitro", favours=("1", "0"))
    assert len(fig.axes) == 2 and "nitro" in _texts(fig)
    bar = fig.axes[1]
    m = np.abs(e.scores).max()
    assert bar.get_ylim() == pytest.approx((-m, m))
    assert "favours 1" in bar.get_ylabel()
    plots.close(fig)
    structk.save(model, tmp_path / "m.model")
    (tmp_path / "m.csv").write_text("smiles\n" + "\n".join(smiles) + "\n")
    code, _, _ = run(
        capsys,
        "explain",
        tmp_path / "m.model",
        tmp_path / "m.csv",
        "--smiles-column",
        "smiles",
        "--plot",
        tmp_path / "m.png",
    )
    assert code == 0 and (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"
