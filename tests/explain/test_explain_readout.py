"""What the Explainer accepts, and what it says about the rest.

KernelPCA is a kernel expansion once its centring is written out: the
contributions of every component sum, with the bias, to ``transform``.
Models that are not kernel expansions (primal / Nystroem SVMs, nearest
class means, scikit-learn's own SVC) are refused with a message that names
the real reason -- never "not fitted yet" for a fitted model.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from structk.explain import Explainer
from structk.kernels import Normalize, Spectrum
from structk.learners import KernelPCA, KernelSVM, NearestClassMean


def _seqs(n=24, seed=0):
    rng = np.random.default_rng(seed)
    X = ["".join(rng.choice(list("ACGT"), 30)) for _ in range(n)]
    return X, np.arange(n) % 2


@pytest.mark.parametrize("component", [0, 1, 2])
def test_kernel_pca_contributions_sum_to_transform(component):
    X, _ = _seqs()
    pca = KernelPCA(Normalize(Spectrum(k=3)), n_components=3).fit(X)
    T = _seqs(6, seed=1)[0]
    ex = Explainer(pca, output=component)
    got = [e.bias + e.scores.sum() for e in ex.contributions(T)]
    np.testing.assert_allclose(got, pca.transform(T)[:, component], rtol=1e-9, atol=1e-12)
    assert ex.output_name == f"component {component + 1}"


def test_primal_and_nystroem_svms_are_refused_for_their_reason():
    X, y = _seqs()
    for solver in ("primal", "nystroem"):
        model = KernelSVM(Spectrum(k=3), solver=solver, n_components=10, random_state=0).fit(X, y)
        with pytest.raises(TypeError, match=rf"solver='{solver}'.*refit it with solver='dual'"):
            Explainer(model)


def test_nearest_class_mean_is_refused_as_what_it_is():
    X, y = _seqs()
    model = NearestClassMean(Spectrum(k=3)).fit(X, y)
    with pytest.raises(TypeError, match="NearestClassMean is not a kernel expansion"):
        Explainer(model)
    with pytest.raises(NotFittedError):
        Explainer(NearestClassMean(Spectrum(k=3)))


def test_a_scikit_learn_model_is_told_it_is_not_a_structk_learner():
    from sklearn.svm import SVC

    rng = np.random.default_rng(0)
    V = rng.normal(size=(20, 3))
    model = SVC(kernel="rbf").fit(V, np.arange(20) % 2)
    with pytest.raises(TypeError, match=r"SVC \(from sklearn\) is not a structk learner"):
        Explainer(model)
