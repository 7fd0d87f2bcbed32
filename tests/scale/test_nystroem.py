"""Nyström features: exactness, convergence, agreement with scikit-learn, pipelines."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from structk import Nystroem, check_psd
from structk.testing import object_lists, token_sets
from structk.kernels import FunctionKernel, Gaussian, Linear

RNG = np.random.default_rng(11)
X = RNG.normal(size=(60, 3))
GAUSS = Gaussian(sigma=1.5)


def spectrum(a, b, k=2):
    """Spectrum kernel by its definition (count products of shared k-mers)."""
    ca = [a[i : i + k] for i in range(len(a) - k + 1)]
    cb = [b[i : i + k] for i in range(len(b) - k + 1)]
    return float(sum(ca.count(s) * cb.count(s) for s in set(ca)))


SPECTRUM = FunctionKernel(spectrum, name="spectrum2")
STRINGS = ["".join(RNG.choice(list("ACGT"), size=RNG.integers(3, 15))) for _ in range(30)]


def rel_error(K, Phi):
    return np.linalg.norm(K - Phi @ Phi.T) / np.linalg.norm(K)


@pytest.mark.parametrize("landmarks", ["uniform", "kmeans++"])
@pytest.mark.parametrize(
    "kernel, data",
    [
        (GAUSS, X),
        (SPECTRUM, STRINGS),
        (Linear(), X),
    ],
    ids=["gaussian", "spectrum-strings", "linear-rank3"],
)
def test_exact_when_every_object_is_a_landmark(kernel, data, landmarks):
    n = len(data)
    ny = Nystroem(kernel, n_components=n, landmarks=landmarks, random_state=0).fit(data)
    assert sorted(ny.component_indices_) == list(range(n))
    assert rel_error(kernel(data), ny.transform(data)) < 1e-9
    # 16 possible 2-mers and 3 vector dimensions bound the ranks
    assert ny.rank_ <= {id(SPECTRUM): 16, id(GAUSS): n}.get(id(kernel), 3)


@pytest.mark.parametrize("landmarks", ["uniform", "kmeans++"])
@pytest.mark.parametrize(
    "kernel, data", [(GAUSS, X), (SPECTRUM, STRINGS)], ids=["gaussian", "spectrum-strings"]
)
def test_error_decreases_with_n_components(kernel, data, landmarks):
    K = kernel(data)
    errors, previous = [], None
    for m in [1, 2, 4, 8, 16, 24]:
        ny = Nystroem(kernel, n_components=m, landmarks=landmarks, random_state=3).fit(data)
        if previous is not None:  # nested landmarks, hence a monotone error
            assert list(ny.component_indices_[: len(previous)]) == list(previous)
        previous = ny.component_indices_
        errors.append(rel_error(K, ny.transform(data)))
    assert all(b <= a + 1e-12 for a, b in zip(errors, errors[1:])), errors
    assert errors[-1] < 0.5 * errors[0]


def test_matches_sklearn_with_a_precomputed_kernel_on_the_same_landmarks():
    ny = Nystroem(SPECTRUM, n_components=12, landmarks="kmeans++", random_state=1)
    Phi = ny.fit_transform(STRINGS)
    K = SPECTRUM(STRINGS)
    L = ny.component_indices_
    sk = SkNystroem(kernel="precomputed", n_components=12, random_state=0)
    Phi_sk = sk.fit(K[np.ix_(L, L)]).transform(K[:, L])
    np.testing.assert_allclose(Phi @ Phi.T, Phi_sk @ Phi_sk.T, rtol=1e-7, atol=1e-7 * K.max())


def test_matches_sklearn_rbf_nystroem_for_the_same_random_state():
    ours = Nystroem(GAUSS, n_components=15, random_state=7).fit(X)
    sk = SkNystroem(kernel="rbf", gamma=1 / (2 * 1.5**2), n_components=15, random_state=7).fit(X)
    np.testing.assert_array_equal(ours.component_indices_, sk.component_indices_)
    A, B = ours.transform(X), sk.transform(X)
    np.testing.assert_allclose(A @ A.T, B @ B.T, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(GAUSS(X), rbf_kernel(X, gamma=1 / (2 * 1.5**2)), rtol=1e-12)


def test_kmeanspp_finds_every_cluster():
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]])
    Z = np.repeat(centres, [50, 3, 3, 3], axis=0) + 0.01 * RNG.normal(size=(59, 2))
    k = Gaussian(sigma=1.0)
    for seed in range(5):
        ny = Nystroem(k, n_components=4, landmarks="kmeans++", random_state=seed).fit(Z)
        clusters = {int(i >= 50) + int(i >= 53) + int(i >= 56) for i in ny.component_indices_}
        assert clusters == {0, 1, 2, 3}
    # uniform sampling misses the small clusters for this seed: a worse fit
    K = k(Z)
    uni = Nystroem(k, n_components=4, random_state=0).fit(Z)
    kpp = Nystroem(k, n_components=4, landmarks="kmeans++", random_state=0).fit(Z)
    assert rel_error(K, kpp.transform(Z)) < rel_error(K, uni.transform(Z))


def test_duplicate_objects_stay_finite():
    data = ["ACGT"] * 5 + ["TTTT"] * 5
    ny = Nystroem(SPECTRUM, n_components=10, landmarks="kmeans++", random_state=0).fit(data)
    Phi = ny.transform(data)
    assert ny.rank_ == 2 and np.isfinite(Phi).all()
    assert rel_error(SPECTRUM(data), Phi) < 1e-12


def test_pipeline_with_a_linear_model_on_strings():
    rng = np.random.default_rng(0)

    def sample(rich, n):
        out = []
        for _ in range(n):
            s = list(rng.choice(list("ACGT"), size=20))
            for _ in range(3):
                p = rng.integers(0, 17)
                s[p : p + 3] = rich
            out.append("".join(s))
        return out

    strings = sample("AAA", 40) + sample("CGC", 40)
    y = np.array([0] * 40 + [1] * 40)
    order = rng.permutation(80)
    strings, y = [strings[i] for i in order], y[order]
    model = make_pipeline(
        Nystroem(SPECTRUM, n_components=20, random_state=0), LogisticRegression(max_iter=1000)
    )
    model.fit(strings[:60], y[:60])
    assert model.score(strings[60:], y[60:]) >= 0.9
    search = GridSearchCV(clone(model), {"nystroem__n_components": [5, 20]}, cv=2)
    search.fit(strings[:60], y[:60])
    assert search.best_params_["nystroem__n_components"] in (5, 20)


def test_get_params_reach_the_kernel():
    ny = Nystroem(GAUSS)
    assert ny.get_params()["kernel__sigma"] == 1.5
    assert clone(ny).set_params(kernel__sigma=2.0).kernel.sigma == 2.0


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"n_components": 0}, ValueError, "n_components must be >= 1"),
        ({"n_components": 2.5}, ValueError, "n_components must be an integer"),
        ({"landmarks": "kmeans"}, ValueError, "landmarks must be one of"),
        ({"rcond": 1.0}, ValueError, "rcond must be < 1"),
        ({"kernel": "rbf"}, TypeError, "kernel must be a structk Kernel"),
    ],
)
def test_bad_parameters(params, error, match):
    ny = Nystroem(GAUSS).set_params(**params)
    with pytest.raises(error, match=match):
        ny.fit(X)


def test_unfitted_and_too_many_components():
    with pytest.raises(NotFittedError):
        Nystroem(GAUSS).transform(X)
    with pytest.warns(UserWarning, match="n_components=100 > 60"):
        ny = Nystroem(GAUSS, random_state=0).fit(X)
    assert ny.transform(X).shape == (60, 60)
    with pytest.raises(ValueError, match="X has 2 features, but Nystroem is expecting 3"):
        ny.transform(np.zeros((4, 2)))


OVERLAP = FunctionKernel(lambda a, b: float(len(a & b)), name="overlap")


@given(
    sets=object_lists(token_sets(), min_size=1, max_size=12),
    m=st.integers(1, 12),
    seed=st.integers(0, 3),
    landmarks=st.sampled_from(["uniform", "kmeans++"]),
)
def test_residual_is_psd_and_landmarks_are_exact(sets, m, seed, landmarks):
    """K - Phi Phi^T is a Schur complement, hence PSD; on the landmarks it is 0."""
    K = OVERLAP(sets)
    ny = Nystroem(
        OVERLAP, n_components=min(m, len(sets)), landmarks=landmarks, random_state=seed
    ).fit(sets)
    Phi = ny.transform(sets)
    assert len(set(ny.component_indices_.tolist())) == len(ny.component_indices_)
    scale = max(1.0, np.abs(K).max()) * len(sets)
    R = K - Phi @ Phi.T
    assert check_psd((R + R.T) / 2, tol=1e-9 * scale), str(check_psd((R + R.T) / 2))
    L = ny.component_indices_
    np.testing.assert_allclose(R[np.ix_(L, L)], 0.0, atol=1e-9 * scale)


def test_kernels_without_take():
    from scale_util import LetterCounts

    words = ["".join(RNG.choice(list("abcdef"), size=6)) for _ in range(25)]
    k = LetterCounts()
    for landmarks in ("uniform", "kmeans++"):
        ny = Nystroem(k, n_components=25, landmarks=landmarks, random_state=0).fit(words)
        assert rel_error(k(words), ny.transform(words)) < 1e-9
