"""``structk explain``, ``structk score-variants``, variant tables and plots."""

import numpy as np
import pytest

import structk
from structk.cli import main
from structk.explain import Explainer
from structk.explain.variants import read_variants, score_variants
from structk.kernels import LocalAlignment, Normalize, Spectrum, WeisfeilerLehman
from structk.learners import KernelSVM

SEQS = [
    "ACGTGACTCAGT",
    "TTGACTCATTAA",
    "GGGCCCGGGAAA",
    "CCCGGGTTTAAA",
    "ATGACTCAGCAT",
    "GCGCGCAAATTT",
]
LABELS = [1, 1, 0, 0, 1, 0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("explain")
    model = KernelSVM(kernel=Normalize(Spectrum(k=3)), C=10).fit(SEQS, LABELS)
    structk.save(model, tmp / "m.model")
    structk.save(KernelSVM(kernel=Normalize(LocalAlignment())).fit(SEQS, LABELS), tmp / "la.model")
    (tmp / "x.fa").write_text(">s1\nTTGACTCAGGCA\n>s2\nGGGAAACCCTTT\n")
    return tmp, model


def test_explain_prints_weights_and_writes_contributions(files, tmp_path, capsys):
    tmp, model = files
    out = tmp_path / "c.tsv"
    ism_out = tmp_path / "ism.tsv"
    code = main(
        [
            "explain",
            str(tmp / "m.model"),
            str(tmp / "x.fa"),
            "--top",
            "3",
            "--tsv",
            str(out),
            "--ism",
            str(ism_out),
            "--plot",
            str(tmp_path / "p.png"),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "features with the largest weights" in text and "s1" in text
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]
    scores = {}
    for name, _, _, score in rows:
        scores.setdefault(name, []).append(float(score))
    ex = Explainer(model)
    f = model.decision_function(["TTGACTCAGGCA", "GGGAAACCCTTT"])
    for name, value in zip(["s1", "s2"], f):
        assert ex.intercept + sum(scores[name]) == pytest.approx(value, abs=1e-9)
    ism_rows = ism_out.read_text().splitlines()
    assert ism_rows[0] == "position\tref\talt\tdelta" and len(ism_rows) == 1 + 12 * 3
    p, ref, alt, delta = ism_rows[1].split("\t")
    mutant = alt + "TTGACTCAGGCA"[1:]
    expected = model.decision_function([mutant])[0] - f[0]
    assert (p, ref) == ("0", "T") and float(delta) == pytest.approx(expected, abs=1e-9)
    assert (tmp_path / "p.png").stat().st_size > 1000


def test_explain_without_features_refuses_and_offers_ism(files, tmp_path, capsys):
    tmp, _ = files
    assert main(["explain", str(tmp / "la.model"), str(tmp / "x.fa")]) == 2
    err = capsys.readouterr().err
    assert "no explicit feature map" in err and "--ism" in err
    assert (
        main(
            ["explain", str(tmp / "la.model"), str(tmp / "x.fa"), "--ism", str(tmp_path / "i.tsv")]
        )
        == 0
    )
    assert len((tmp_path / "i.tsv").read_text().splitlines()) == 1 + 12 * 3


def test_score_variants_from_a_table(files, tmp_path):
    tmp, model = files
    (tmp_path / "ref.fa").write_text(">chrA\nAAAATTGACTCAGGCAAAAA\n")
    (tmp_path / "v.tsv").write_text(
        "# name\tchrom\tpos\tref\talt\nv1\tchrA\t9\tC\tG\nv2\tchrA\t5\tTTG\tA\n"
    )
    out = tmp_path / "s.tsv"
    assert (
        main(
            [
                "score-variants",
                str(tmp / "m.model"),
                str(tmp_path / "v.tsv"),
                str(tmp_path / "ref.fa"),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows[0] == ["name", "ref_score", "alt_score", "delta"]
    ref = "AAAATTGACTCAGGCAAAAA"
    alts = [ref[:8] + "G" + ref[9:], ref[:4] + "A" + ref[7:]]
    f = model.decision_function([ref] + alts)
    for row, fa in zip(rows[1:], f[1:]):
        assert float(row[3]) == pytest.approx(fa - f[0], abs=1e-12)


def test_score_variants_from_paired_fasta_and_flank(files, tmp_path):
    tmp, model = files
    (tmp_path / "r.fa").write_text(">a\nACGTGACTCAGT\n>b\nGGGCCCGGGAAA\n")
    (tmp_path / "a.fa").write_text(">a\nACGTGACTTAGT\n>b\nGGGCCCGTGAAA\n")
    names, ref, alt = read_variants(tmp_path / "r.fa", tmp_path / "a.fa")
    assert names == ["a", "b"]
    _, _, delta = score_variants(model, ref, alt)
    f = model.decision_function(ref + alt)
    np.testing.assert_allclose(delta, f[2:] - f[:2], atol=1e-12)
    (tmp_path / "g.fa").write_text(">c\nAAAAAAAAAACGTAAAAAAAAAA\n")
    (tmp_path / "v.tsv").write_text("x\tc\t12\tG\tT\n")
    _, ref, alt = read_variants(tmp_path / "v.tsv", tmp_path / "g.fa", flank=3)
    assert ref == ["AACGTAA"] and alt == ["AACTTAA"]


@pytest.mark.parametrize(
    "line, words",
    [
        ("v1\tchrA\t9\tT\tG\n", ["line 1", "'T'", "'C'", "position 9"]),
        ("v1\tchrB\t9\tT\tG\n", ["line 1", "chrB"]),
        ("v1\tchrA\tnine\tT\tG\n", ["line 1", "nine"]),
        ("v1\tchrA\t99\tT\tG\n", ["line 1", "outside"]),
        ("v1\tchrA\t9\n", ["line 1", "5 tab-separated"]),
    ],
)
def test_bad_variant_lines_are_named(tmp_path, line, words):
    (tmp_path / "ref.fa").write_text(">chrA\nAAAATTGACTCAGGCAAAAA\n")
    (tmp_path / "v.tsv").write_text(line)
    with pytest.raises(ValueError) as info:
        read_variants(tmp_path / "v.tsv", tmp_path / "ref.fa")
    for word in words:
        assert word in str(info.value)


def test_plots_draw(tmp_path):
    import networkx as nx

    from structk.explain import plots

    model = KernelSVM(kernel=Spectrum(k=2)).fit(SEQS, LABELS)
    ex = Explainer(model)
    e = ex.contributions(SEQS[:1])[0]
    M = plots.contribution_matrix(e)
    np.testing.assert_allclose(M.sum(axis=1), e.scores)
    assert (np.count_nonzero(M, axis=1) <= 1).all()
    plots.plot_logo(ex.hypothetical(SEQS[0])).savefig(tmp_path / "h.png")
    G = [nx.path_graph(3), nx.cycle_graph(4), nx.star_graph(3), nx.path_graph(5)]
    for g in G:
        nx.set_node_attributes(g, {v: "C" if v % 2 else "N" for v in g}, "label")
    gm = KernelSVM(kernel=WeisfeilerLehman(h=1)).fit(G, [0, 1, 1, 0])
    ge = Explainer(gm).contributions(G[1:2])[0]
    plots.plot_explanation(ge, G[1]).savefig(tmp_path / "g.png")
    assert (tmp_path / "h.png").stat().st_size > 1000
    assert (tmp_path / "g.png").stat().st_size > 1000


def test_molecule_plot(tmp_path):
    pytest.importorskip("rdkit")
    from structk.datasets import from_smiles
    from structk.explain import plots

    smiles = ["c1ccccc1[N+](=O)[O-]", "CCO", "c1ccccc1O", "CC[N+](=O)[O-]"]
    G = from_smiles(smiles)
    model = KernelSVM(kernel=WeisfeilerLehman(h=1, edge_label="label")).fit(G, [1, 0, 0, 1])
    e = Explainer(model).contributions(G[:1])[0]
    png = plots.plot_molecule(smiles[0], e.scores, tmp_path / "m.png")
    assert png[:4] == b"\x89PNG" and (tmp_path / "m.png").stat().st_size == len(png)
    with pytest.raises(ValueError, match="9 atoms"):
        plots.plot_molecule(smiles[0], e.scores[:3])


def test_explain_graphs_from_a_tu_folder(tmp_path, capsys):
    from structk.datasets import bundled_path, load_tu

    folder = bundled_path("graph_families")
    G, y = load_tu(folder)
    model = KernelSVM(kernel=Normalize(WeisfeilerLehman(h=2))).fit(G, y == y[0])
    structk.save(model, tmp_path / "g.model")
    out = tmp_path / "c.tsv"
    assert (
        main(
            [
                "explain",
                str(tmp_path / "g.model"),
                str(folder),
                "--top",
                "2",
                "--tsv",
                str(out),
                "--index",
                "1",
                "--plot",
                str(tmp_path / "g.png"),
            ]
        )
        == 0
    )
    assert "top nodes" in capsys.readouterr().out
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]
    assert len(rows) == sum(g.number_of_nodes() for g in G)
    total = sum(float(r[3]) for r in rows if r[0] == "graph1")
    f = model.decision_function(G[1:2])[0]
    assert total + Explainer(model).intercept == pytest.approx(f, abs=1e-9)
    assert (tmp_path / "g.png").stat().st_size > 1000


def test_explain_edges_from_a_tu_folder(tmp_path, capsys):
    from structk.datasets import bundled_path, load_tu
    from structk.kernels import ShortestPath

    folder = bundled_path("graph_families")
    G, y = load_tu(folder)
    model = KernelSVM(kernel=WeisfeilerLehman(h=2) + ShortestPath()).fit(G[:40], y[:40] == y[0])
    structk.save(model, tmp_path / "g.model")
    out = tmp_path / "c.tsv"
    assert (
        main(
            [
                "explain",
                str(tmp_path / "g.model"),
                str(folder),
                "--top",
                "2",
                "--edges",
                "--tsv",
                str(out),
                "--index",
                "1",
                "--plot",
                str(tmp_path / "g.png"),
            ]
        )
        == 0
    )
    assert "top edges" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    assert lines[0] == "object\tkind\tindex\tunit\tscore"
    rows = [line.split("\t") for line in lines[1:]]
    assert sum(r[1] == "edge" for r in rows) == sum(g.number_of_edges() for g in G)
    f = model.decision_function(G[:3])
    ex = Explainer(model)
    for i in range(3):
        total = sum(float(r[4]) for r in rows if r[0] == f"graph{i}")
        assert total + ex.intercept == pytest.approx(f[i], rel=1e-9, abs=1e-9)
    assert (tmp_path / "g.png").stat().st_size > 1000


def test_explain_edges_of_molecules_and_sequences(tmp_path, capsys):
    pytest.importorskip("rdkit")
    from structk.datasets import from_smiles

    smiles = ["c1ccccc1[N+](=O)[O-]", "CCO", "c1ccccc1O", "CC[N+](=O)[O-]"]
    model = KernelSVM(kernel=WeisfeilerLehman(h=2, edge_label="label")).fit(
        from_smiles(smiles), [1, 0, 0, 1]
    )
    structk.save(model, tmp_path / "m.model")
    (tmp_path / "m.csv").write_text("smiles\n" + "\n".join(smiles) + "\n")
    assert (
        main(
            [
                "explain",
                str(tmp_path / "m.model"),
                str(tmp_path / "m.csv"),
                "--edges",
                "--smiles-column",
                "smiles",
                "--plot",
                str(tmp_path / "m.png"),
            ]
        )
        == 0
    )
    assert "top edges: N-O@" in capsys.readouterr().out
    assert (tmp_path / "m.png").read_bytes()[:4] == b"\x89PNG"
    seq = KernelSVM(kernel=Spectrum(k=2)).fit(SEQS, LABELS)
    structk.save(seq, tmp_path / "s.model")
    (tmp_path / "x.fa").write_text(">s1\nTTGACTCAGGCA\n")
    assert main(["explain", str(tmp_path / "s.model"), str(tmp_path / "x.fa"), "--edges"]) == 2
    assert "--edges is for graph models" in capsys.readouterr().err


def test_graph_plot_colours_edges(tmp_path):
    import networkx as nx

    from structk.explain import plots

    g = nx.cycle_graph(4)
    nx.set_node_attributes(g, {v: "C" if v % 2 else "N" for v in g}, "label")
    fig = plots.plot_graph(g, np.arange(4.0) - 1, edge_scores=[1.0, -2.0, 0.5, 0.0])
    fig.savefig(tmp_path / "g.png")
    assert (tmp_path / "g.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="3 edge scores for a graph of 4 edges"):
        plots.plot_graph(g, np.zeros(4), edge_scores=[1.0, 2.0, 3.0])
