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


#: what scikit-learn's import brings (scipy.stats by sklearn.utils.fixes,
#: pandas by narwhals): 1-3 s of CPU that the command line does not need
SKLEARN_AND_FRIENDS = ("sklearn", "scipy.stats", "pandas", "joblib")


def test_learners_fit_and_predict_without_sklearn():
    loaded = _modules_after(
        "import numpy as np\n"
        "from structk.learners import (KernelSVM, KernelLogisticRegression, KernelRidge,\n"
        "    KernelRidgeCV, KernelPerceptron, NearestClassMean)\n"
        "from structk import Gaussian\n"
        "from structk.hmm import DiscreteHMM\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(30, 2)); y = (X[:, 0] > 0).astype(int)\n"
        "for cls in (KernelSVM, KernelLogisticRegression, KernelPerceptron, NearestClassMean):\n"
        "    assert cls(kernel=Gaussian()).fit(X, y).predict(X).shape == (30,)\n"
        "    repr(cls(kernel=Gaussian())); cls().get_params()\n"
        "for cls in (KernelRidge, KernelRidgeCV):\n"
        "    cls(kernel=Gaussian()).fit(X, X[:, 1]).predict(X)\n"
        "DiscreteHMM(n_states=2, random_state=0).fit(['ACGTACGT', 'TTGACA']).score(['ACGT'])"
    )
    for heavy in SKLEARN_AND_FRIENDS:
        assert heavy not in loaded, f"fitting the learners imported {heavy}"


def test_demo_does_not_import_sklearn():
    loaded = _modules_after(
        "import io, contextlib\n"
        "from structk.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['demo', '--quick']) == 0"
    )
    for heavy in SKLEARN_AND_FRIENDS:
        assert heavy not in loaded, f"structk demo imported {heavy}"


def test_predict_does_not_import_sklearn(tmp_path):
    import numpy as np

    from structk.cli import main

    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list("ACGT"), size=30)) for _ in range(40)]
    fasta = tmp_path / "train.fa"
    fasta.write_text("".join(f">s{i} class={i % 2}\n{s}\n" for i, s in enumerate(seqs)))
    model = tmp_path / "m.structk"
    args = ["fit", str(fasta), "--label-pattern", r"class=(\S+)", "--kernel"]
    args += ["Normalize(Spectrum(k=3))", "--learner", "KernelSVM(C=1)", "-o", str(model)]
    assert main(args) == 0
    loaded = _modules_after(
        "import io, contextlib\n"
        "from structk.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    assert main(['predict', {str(model)!r}, {str(fasta)!r}]) == 0\n"
        "assert len(out.getvalue().splitlines()) == 41"
    )
    for heavy in SKLEARN_AND_FRIENDS:
        assert heavy not in loaded, f"structk predict imported {heavy}"


def test_fit_from_fasta_pair_does_not_import_sklearn(tmp_path):
    # the learner expression resolves the learner it names only: building
    # every learner class imported the Gaussian-process classifier, and
    # with it scikit-learn (2.5-3 s of CPU in a gapped k-mer `structk fit`)
    import numpy as np

    rng = np.random.default_rng(1)
    paths = []
    for name in ("pos", "neg"):
        seqs = ["".join(rng.choice(list("ACGT"), size=40)) for _ in range(12)]
        path = tmp_path / f"{name}.fa"
        path.write_text("".join(f">{name}{i}\n{s}\n" for i, s in enumerate(seqs)))
        paths.append(str(path))
    model = str(tmp_path / "m.structk")
    args = ["fit", "--positive", paths[0], "--negative", paths[1], "--kernel"]
    args += ["GappedKmer(l=6, k=4, d=2)", "--learner", "KernelSVM(C=1.0)", "-o", model]
    loaded = _modules_after(
        "import io, contextlib, os\n"
        "from structk.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({args!r}) == 0\n"
        f"assert os.path.getsize({model!r}) > 0"
    )
    for heavy in SKLEARN_AND_FRIENDS:
        assert heavy not in loaded, f"structk fit imported {heavy}"
