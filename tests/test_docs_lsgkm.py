"""The docs map LS-GKM's options to ``GappedKmer`` settings, and agree with
themselves and with LS-GKM.

LS-GKM's ``gkmtrain`` usage text (the commit in ``shared/peers/lsgkm``),
transcribed here: ``-t <0 ~ 5> set kernel function (default: 2 gkm)``;
0 gapped-kmer, 1 estimated l-mer with full filter, 2 estimated l-mer with
truncated filter (gkm), 3 gkm + RBF (gkmrbf), 4 gkm + center weighted
(wgkm), 5 gkm + center weighted + RBF; ``-l 11 -k 7 -d 3`` by default,
``-M 50 -H 50``, both strands unless ``-R``.
"""

from __future__ import annotations

import re
from pathlib import Path

from structk.kernels import GappedKmer

DOCS = Path(__file__).resolve().parents[1] / "docs"

#: LS-GKM's -t, and the GappedKmer settings that compute the same kernel
LSGKM_T = {
    0: {"kind": "count", "center_weighted": False, "gamma": None},
    1: {"kind": "full", "center_weighted": False, "gamma": None},
    2: {"kind": "truncated", "center_weighted": False, "gamma": None},
    3: {"kind": "truncated", "center_weighted": False, "gamma": 2.0},
    4: {"kind": "truncated", "center_weighted": True, "gamma": None},
    5: {"kind": "truncated", "center_weighted": True, "gamma": 2.0},
}
LSGKM_DEFAULT_T = 2


def _table_rows():
    """``(structk settings, -t numbers, the -t cell)`` of the table in
    docs/strings.md whose header names LS-GKM's ``-t``."""
    lines = (DOCS / "strings.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "LS-GKM `-t`" in line)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((cells[0], [int(t) for t in re.findall(r"^\d+", cells[1])], cells[1]))
    return rows


def _settings(code):
    """The keyword arguments a table cell such as ``kind="full"`` names."""
    import ast

    return {
        name: ast.literal_eval(value)
        for name, value in re.findall(r"(\w+)=([^,`]+)", code.split("`")[1])
    }


def test_every_lsgkm_kernel_type_in_the_docs_is_the_same_gappedkmer():
    rows = _table_rows()
    assert {t for _, ts, _ in rows for t in ts} == set(LSGKM_T), rows
    for code, ts, _ in rows:
        (t,) = ts
        k = GappedKmer(**_settings(code))
        want = LSGKM_T[t]
        got = {"kind": k.kind, "center_weighted": k.center_weighted, "gamma": k.gamma}
        assert got == want, (code, t)


def test_gappedkmer_defaults_are_lsgkms_and_the_docs_say_so_once():
    k = GappedKmer()
    assert (k.l, k.k, k.d, k.M, k.H, k.reverse_complement) == (11, 7, 3, 50, 50.0, True)
    assert {"kind": k.kind, "center_weighted": k.center_weighted, "gamma": k.gamma} == LSGKM_T[
        LSGKM_DEFAULT_T
    ]
    claims = [cell for _, _, cell in _table_rows() if "default" in cell]
    assert len(claims) == 1 and claims[0].startswith(str(LSGKM_DEFAULT_T)), claims
    explain = (DOCS / "explain.md").read_text()
    said = re.search(
        r"`GappedKmer\(\)` is LS-GKM's default, l = 11, k = 7, d = 3, "
        r"(\w+) filter",
        explain,
    )
    assert said and said.group(1) == k.kind
    # every gkmtrain command the docs show names a kernel type LS-GKM has
    for page in DOCS.glob("*.md"):
        for t in re.findall(r"gkmtrain[^\n]*?-t (\d+)", page.read_text()):
            assert int(t) in LSGKM_T, (page.name, t)
