"""Every built-in kernel, and composites of each family, pass the validity kit with zero reports.

The kit runs with a CI budget (two pools, of 16 and 64 objects: about a
second per kernel); its defaults (pools up to 1024) are for kernel
inventors. A report here (a counterexample or an error on a generated
input) is a bug in structk.
"""

import warnings

import numpy as np
import pytest
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

import structk.kernels as K
from structk.hmm import DiscreteHMM
from structk.testing import check_kernel, graphs, strings, token_sets, vectors

CI_POOLS = (16, 64)

VEC = vectors(dim=3, min_value=-3, max_value=3)
SETS = token_sets()
#: multisets as tuples of tokens with repeats (MinMax counts them)
MULTISETS = st.lists(st.sampled_from("abcdef"), max_size=8).map(tuple)
DNA = strings("ACGT", min_size=3)
DNA6 = strings("ACGT", min_size=6, max_size=6)
GRAPHS = graphs(max_nodes=5, node_labels="ab", edge_labels="xy")


@st.composite
def _attributed(draw):
    """Graphs whose nodes carry 2-d vectors under "attributes" (GraphHopper)."""
    G = draw(graphs(max_nodes=5))
    for v in G:
        G.nodes[v]["attributes"] = np.array(
            draw(st.lists(st.floats(-2, 2), min_size=2, max_size=2))
        )
    return G


ATTRIBUTED = _attributed()


def _fisher():
    X = ["ACGTTGCA", "AACCGGTT", "ACGACGACG", "TTTTACGA", "GATTACA", "CCCGGGAA"] * 3
    with warnings.catch_warnings():  # n_iter=10 on purpose: any fitted model will do
        warnings.simplefilter("ignore", ConvergenceWarning)
        hmm = DiscreteHMM(2, "ACGT", n_iter=10, random_state=0).fit(X)
    return K.FisherKernel(hmm).fit(X)


CASES = [
    (K.Linear(), VEC),
    (K.Polynomial(degree=3, coef0=1.0, gamma=0.1), VEC),
    (K.Gaussian(sigma=0.01), vectors(dim=2)),
    (K.Gaussian(sigma=0.7), VEC),
    (K.Laplace(sigma=2.0), VEC),
    (K.Sum(K.Linear(), K.Gaussian()), VEC),
    (K.Product(K.Linear(), K.Laplace()), VEC),
    (K.Scaled(K.Polynomial(degree=2), 3.0) + K.Constant(0.5), VEC),
    (K.Power(K.Gaussian(), 3), VEC),
    (K.Exp(0.05 * K.Linear()), VEC),
    (K.Normalize(K.Exp(K.Linear())), vectors(dim=8)),
    (K.FunctionScaled(K.Gaussian(), lambda x: float(np.sum(x))), VEC),
    (K.Intersection(), SETS),
    (K.ExpIntersection(scale=0.8), SETS),
    (K.Jaccard(), SETS),
    (K.Normalize(K.Intersection()) * K.Jaccard(), SETS),
    (K.Exp(K.Jaccard()), SETS),
    (K.MinMax(), MULTISETS),
    (
        K.Part(K.MinMax(), "m") + K.Part(K.Gaussian(), "v"),
        st.fixed_dictionaries({"m": MULTISETS, "v": VEC}),
    ),
    (K.MinMax() * K.Intersection(), SETS),
    (K.Spectrum(k=3), DNA),
    (K.Spectrum(k=2, presence=True, normalize=True), DNA),
    (K.Mismatch(k=3, m=1), DNA),
    (K.WeightedDegree(d=3), DNA6),
    (K.Spectrum(k=2) + K.Normalize(K.Mismatch(k=3, m=1)), DNA),
    (K.Power(K.Normalize(K.Spectrum(k=3)), 2), DNA),
    (K.GappyPair(k=1, m=2), DNA),
    (K.WeightedDegree(d=3, shift=2), DNA6),
    (K.Normalize(K.LocalAlignment(beta=0.5)), strings("ACDW", min_size=1, max_size=6)),
    (K.SpectrumRepair(K.smith_waterman), strings("ACDW", min_size=1, max_size=6)),
    (
        K.Normalize(K.SpectrumRepair(K.LocalAlignment(beta=0.5).log_kernel, method="flip")),
        strings("ACDW", min_size=1, max_size=6),
    ),
    # the gapped k-mer kernels that are PSD on all sequences (see the test
    # below for those that are not)
    (K.GappedKmer(l=4, k=2, d=2, kind="count"), DNA),
    (K.GappedKmer(l=4, k=3, d=1, kind="full", gamma=1.0, reverse_complement=False), DNA),
    (K.GappedKmer(l=3, k=2, d=1, kind="count", center_weighted=True, M=5, H=4.0), DNA),
    (_fisher(), strings("ACGT", min_size=1)),
    (K.RandomWalk(lam=0.05, edge_label="label"), GRAPHS),
    (K.RandomWalk(kind="exponential", beta=0.5), GRAPHS),
    (K.Normalize(K.RandomWalk(kind="truncated", weights=[1, 0.5, 0.2])), GRAPHS),
    (K.WeisfeilerLehman(h=3), GRAPHS),
    (K.ShortestPath(), GRAPHS),
    (K.WeisfeilerLehmanOptimalAssignment(h=2), GRAPHS),
    (K.GraphHopper(), ATTRIBUTED),
    (K.Normalize(K.GraphHopper(node_kernel="gaussian", gamma=0.5)), ATTRIBUTED),
    (K.Normalize(K.ShortestPath(length_kernel="gaussian", length_scale=0.5)), GRAPHS),
    (K.WeisfeilerLehman(h=2) * K.Normalize(K.RandomWalk(lam=0.05)), GRAPHS),
]


def _kernel(case):
    return case.values[0] if hasattr(case, "values") else case[0]


@pytest.mark.parametrize(("kernel", "objects"), CASES, ids=[repr(_kernel(c)) for c in CASES])
def test_builtin_kernel_has_zero_reports(kernel, objects):
    result = check_kernel(kernel, objects, pool_sizes=CI_POOLS)
    assert not result.found and result.n_errors == 0, str(result)


def _classes(kernel):
    yield type(kernel).__name__
    for value in kernel.get_params(deep=False).values():
        if isinstance(value, K.Kernel):
            yield from _classes(value)


def test_every_builtin_kernel_class_is_covered():
    exported = {
        name
        for name in K.__all__
        if isinstance(getattr(K, name), type) and issubclass(getattr(K, name), K.Kernel)
    }
    covered = {name for case in CASES for name in _classes(_kernel(case))}
    # EmpiricalKernelMap wraps any kernel (also non-kernels) and ClassConditionalFisherKernel
    # needs labelled training data: their own tests run them through the kit; Precomputed
    # is as valid as the matrix it looks up (tests/kernels/test_precomputed.py)
    missing = (
        exported
        - covered
        - {
            "Kernel",
            "FunctionKernel",
            "EmpiricalKernelMap",
            "ClassConditionalFisherKernel",
            "Precomputed",
        }
    )
    assert not missing, f"add these kernels to CASES in {__file__}: {sorted(missing)}"


@pytest.mark.parametrize(
    ("l", "k", "d", "kind"),
    [
        (4, 2, 2, "count"),
        (4, 3, 1, "full"),
        (5, 3, 2, "truncated"),
        (4, 2, 4, "full"),  # PSD
        (4, 2, 1, "count"),
        (4, 2, 2, "truncated"),
        (3, 2, 1, "truncated"),
        (4, 2, 2, "full"),
    ],
)
def test_gapped_kmer_verdict_agrees_with_the_lmer_spectrum(l, k, d, kind):
    """LS-GKM's kernels leave out l-mer pairs more than d mismatches apart,
    which can break positive semi-definiteness; whether it does is decided
    by the eigenvalues of the l-mer weight matrix (an independent, exact
    computation over the Hamming scheme): the kit finds a counterexample
    exactly when one of them is negative."""
    from structk.algorithms.gapped_kmers import weights

    eig = weights.lmer_eigenvalues(l, weights.mismatch_weights(l, k, d, kind))
    psd = eig.min() >= -1e-12 * eig.max()
    kernel = K.GappedKmer(l=l, k=k, d=d, kind=kind, reverse_complement=False, normalize=False)
    result = check_kernel(kernel, strings("ACGT", min_size=l, max_size=l + 3), pool_sizes=CI_POOLS)
    assert result.n_errors == 0, str(result)
    assert result.found != psd, (eig, str(result))
