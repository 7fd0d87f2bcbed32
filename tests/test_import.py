"""Importing structk is cheap: no heavy imports and no numba compilation."""

import subprocess
import sys


def _modules_after(code):
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
        check=True,
        capture_output=True,
        text=True,
    )
    return set(out.stdout.split())


def test_import_structk_loads_no_heavy_dependency():
    loaded = _modules_after("import structk")
    for heavy in ("numba", "sklearn", "scipy", "hypothesis", "networkx"):
        assert heavy not in loaded, f"import structk imported {heavy}"


def test_vector_kernels_do_not_need_numba_or_sklearn():
    loaded = _modules_after(
        "import numpy as np, structk\nstructk.Gaussian()(np.eye(3)); structk.check_psd(np.eye(3))"
    )
    assert "numba" not in loaded
    assert "sklearn" not in loaded


def test_import_of_the_hmm_and_sequence_kernels_loads_no_numba():
    # the compiled loops load on first use, through structk.algorithms.<topic>
    loaded = _modules_after(
        "import structk.hmm, structk.kernels.fisher, structk.kernels.class_fisher\n"
        "import structk.kernels.strings, structk.kernels.gapped_kmer\n"
        "import structk.kernels.alignment, structk.explain"
    )
    assert "numba" not in loaded
    assert "structk.algorithms.hmm._numba" not in loaded


def test_public_names_resolve():
    import structk
    import structk.kernels

    for name in structk.__all__:
        assert getattr(structk, name) is not None
    for name in structk.kernels.__all__:
        assert getattr(structk.kernels, name) is not None


def test_unknown_attribute_is_a_clear_error():
    import pytest

    import structk

    with pytest.raises(AttributeError, match="no attribute 'Spectrun'"):
        structk.Spectrun  # noqa: B018
