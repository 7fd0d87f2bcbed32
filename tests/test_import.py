"""Importing structk is cheap: no heavy imports and no numba compilation."""

import subprocess
import sys

import pytest


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


def test_gaussian_process_fits_and_predicts_without_sklearn():
    """The GP of the Photoswitch benchmark (``1.0 * MinMax()``, a learned
    noise, on a sparse count matrix and on dicts): its import is part of
    the protocol's time."""
    loaded = _modules_after(
        "import numpy as np, scipy.sparse as sp\n"
        "from structk.learners import GaussianProcessRegressor\n"
        "from structk.kernels import MinMax\n"
        "rng = np.random.default_rng(3)  # optimum inside the bounds: no warning\n"
        "C = rng.poisson(0.6, size=(40, 12)).astype(float)\n"
        "y = C[:, :3] @ [1.0, -0.5, 0.7] + rng.normal(size=40)\n"
        "dicts = [{j: int(c) for j, c in enumerate(row) if c} for row in C]\n"
        "for X in (sp.csr_matrix(C), dicts):\n"
        "    gp = GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True)\n"
        "    mean, std = gp.fit(X[:30], y[:30]).predict(X[30:], return_std=True)\n"
        "    assert mean.shape == std.shape == (10,)\n"
        "    gp.sample_y(X[30:], 2); repr(gp); gp.get_params()"
    )
    for heavy in SKLEARN_AND_FRIENDS:
        assert heavy not in loaded, f"the Gaussian process imported {heavy}"


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
    # nor what a small k-mer model's prediction does not use: SciPy's linear
    # algebra (the SVM's interior point imports it when a fit reaches it),
    # numba (NumPy twins), SciPy's sparse matrices (a small product of
    # k-mer counts is one exact dense product)
    for heavy in ("scipy.linalg", "numba", "scipy.sparse"):
        assert heavy not in loaded, f"structk predict imported {heavy}"
    # the model file's allow-list imports a kernel's or the HMM's module only
    # for a file that names it
    for other in ("structk.kernels.gapped_kmer", "structk.kernels.graphs", "structk.hmm"):
        assert other not in loaded, f"structk predict of a spectrum model imported {other}"


@pytest.mark.parametrize("through_scipy", [True, False])
def test_spectrum_predict_under_the_one_thread_limit_does_not_import_scipy_linalg(
    tmp_path, through_scipy
):
    # a model whose prediction multiplies the common k-mers' dense block
    # under the one-BLAS-thread limit (structk._threads): building that
    # limit's controller imported scipy.linalg (0.1-0.2 s of CPU) before.
    # Through SciPy's sparse product (as before the exact dense product of
    # counts took small predictions) and through that dense product.
    import numpy as np

    import structk
    from structk.kernels import Normalize, Spectrum
    from structk.learners import KernelSVM

    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list("ACGT"), size=60)) for _ in range(160)]
    y = np.arange(160) % 2
    model = KernelSVM(kernel=Normalize(Spectrum(k=3)), C=1.0).fit(seqs, y)
    assert len(model.support_) * 64 * 160 > 2**18  # past THREADED_PRODUCT
    structk.save(model, tmp_path / "m.structk")
    fasta = tmp_path / "test.fa"
    fasta.write_text("".join(f">s{i}\n{s}\n" for i, s in enumerate(seqs)))
    expected = model.decision_function(seqs)
    loaded = _modules_after(
        "import io, contextlib\n"
        "import numpy as np\n"
        "from structk.cli import main\n"
        "from structk import _threads, _tuning\n"
        + ("_tuning.SPARSE_NUMPY_MAX_WORK = 0  # through scipy.sparse\n" if through_scipy else "")
        + "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    assert main(['predict', {str(tmp_path / 'm.structk')!r}, {str(fasta)!r}]) == 0\n"
        "assert _threads._controller is not None, 'the one-thread limit was not reached'\n"
        "rows = [line.split('\\t') for line in out.getvalue().splitlines()[1:]]\n"
        f"np.testing.assert_array_equal([float(r[2]) for r in rows], {expected.tolist()!r})\n"
    )
    if through_scipy:
        assert "scipy.sparse" in loaded  # the spectrum kernel's product
    else:
        assert "scipy.sparse" not in loaded, "a small product of counts imported scipy.sparse"
    assert "scipy.linalg" not in loaded, "structk predict imported scipy.linalg"


def test_model_files_load_in_a_fresh_process(tmp_path):
    # the allow-list imports a class's module only when a file names it: a
    # process that imported nothing else reads each kind (kernels from
    # several modules, an HMM inside a Fisher kernel, a bare HMM, a primal
    # feature map) and predicts what the process that saved it predicted
    import networkx as nx
    import numpy as np

    import structk
    from structk.kernels import FisherKernel, Normalize, WeisfeilerLehman
    from structk.learners import KernelRidge, KernelSVM

    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list("ACGT"), size=20)) for _ in range(24)]
    y = np.arange(24) % 2
    graphs = []
    for i in range(24):
        g = nx.path_graph(4 + i % 3)
        nx.set_node_attributes(g, {v: "CN"[(v + i) % 2] for v in g}, "label")
        graphs.append(g)
    hmm = structk.DiscreteHMM(n_states=2, random_state=0).fit(seqs)
    models = {
        "fisher": (KernelSVM(kernel=FisherKernel(hmm)).fit(seqs, y), seqs, "decision_function"),
        "graphs": (
            KernelSVM(kernel=Normalize(WeisfeilerLehman(h=2))).fit(graphs, y),
            graphs,
            "decision_function",
        ),
        "hmm": (hmm, seqs, "score_samples"),
        "primal": (
            KernelRidge(kernel=structk.kernels.Spectrum(k=2), solver="primal").fit(seqs, y * 1.0),
            seqs,
            "predict",
        ),
    }
    for name, (model, X, method) in models.items():
        structk.save(model, tmp_path / f"{name}.structk")
        np.save(tmp_path / f"{name}.npy", np.asarray(getattr(model, method)(X), dtype=float))
    code = (
        "import numpy as np, networkx as nx, structk\n"
        f"tmp = {str(tmp_path)!r}\n"
        "rng = np.random.default_rng(0)\n"
        "seqs = [''.join(rng.choice(list('ACGT'), size=20)) for _ in range(24)]\n"
        "graphs = []\n"
        "for i in range(24):\n"
        "    g = nx.path_graph(4 + i % 3)\n"
        "    nx.set_node_attributes(g, {v: 'CN'[(v + i) % 2] for v in g}, 'label')\n"
        "    graphs.append(g)\n"
        "for name, X, method in [('fisher', seqs, 'decision_function'),\n"
        "        ('graphs', graphs, 'decision_function'), ('hmm', seqs, 'score_samples'),\n"
        "        ('primal', seqs, 'predict')]:\n"
        "    got = np.asarray(getattr(structk.load(f'{tmp}/{name}.structk'), method)(X), float)\n"
        "    np.testing.assert_array_equal(got, np.load(f'{tmp}/{name}.npy'))\n"
    )
    _modules_after(code)  # check=True: a failed load or a different prediction fails


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


def test_the_safeguard_of_a_small_fit_loads_neither_scipy_nor_threadpoolctl():
    """The default PSD certificate of Grams up to ``PSD_SMALL_CERTIFICATE_MAX_N``
    (400) objects (from 65: NumPy's own ``dpotf2``) imports nothing: a first
    fit of 170 objects paid 0.19 s of CPU for ``scipy.linalg`` (issue #39)."""
    loaded = _modules_after(
        "import numpy as np\n"
        "from structk.learners._psd import check_psd_policy\n"
        "for n in (65, 170, 400):\n"
        "    X = np.random.default_rng(n).normal(size=(n, 5))\n"
        "    check_psd_policy(np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)), 'auto')"
    )
    for heavy in ("scipy", "threadpoolctl", "numba"):
        assert heavy not in loaded, f"the certificate imported {heavy}"
