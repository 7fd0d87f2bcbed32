"""The search's result does not depend on the BLAS kernel (the CPU).

OpenBLAS picks its kernels by CPU, and their rounding differs in the last
bits; LAPACK may then return another sign or, for a repeated eigenvalue,
another basis of the eigenspace. The kit takes its decisions from
quantities that do not depend on either (eigenspace weights, ties within a
tolerance broken by position), so a seed gives the same witness everywhere.

Here the rounding of another CPU is imitated: every eigendecomposition the
kit makes gets a random rotation inside each (numerically) repeated
eigenvalue's eigenspace, random signs, and relative noise of 1e-14. The
slow test runs the command under several OpenBLAS core types.
"""

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from structk.testing import check_kernel, graphs, strings, token_sets
from structk.testing import non_kernels as nk
from structk.testing import verdict
from structk.testing.search import object_key


def _perturbed(seed):
    rng = np.random.default_rng(seed)

    def noise(w, scale):
        return w + 1e-14 * scale * rng.uniform(-1, 1, size=np.shape(w))

    def eigh(K):
        w, v = np.linalg.eigh(np.asarray(K, dtype=np.float64))
        scale = max(float(np.abs(w).max()), 1e-300)
        start = 0
        while start < len(w):  # rotate within each cluster of equal eigenvalues
            stop = start + 1
            while stop < len(w) and w[stop] - w[start] <= 1e-10 * scale:
                stop += 1
            q, _ = np.linalg.qr(rng.normal(size=(stop - start, stop - start)))
            v[:, start:stop] = v[:, start:stop] @ q
            start = stop
        v = v * rng.choice([-1.0, 1.0], size=len(w))
        return noise(w, scale), noise(v, 1.0)

    def eigvalsh(K):
        w = np.linalg.eigvalsh(np.asarray(K, dtype=np.float64))
        return noise(w, max(float(np.abs(w).max()), 1e-300))

    return eigh, eigvalsh


CASES = [
    ("truncated_overlap", token_sets("abcd", max_size=3)),  # docs/cli.md
    ("truncated_overlap", token_sets()),
    ("overlap_coefficient", token_sets()),
    ("common_substring", strings("ACGT")),
    ("max_nodes", graphs()),
]


@pytest.mark.parametrize(
    ("name", "objects"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_witness_does_not_depend_on_eigensolver_rounding(name, objects, monkeypatch):
    kernel = getattr(nk, name)
    reference = check_kernel(kernel, objects).counterexample
    assert reference is not None
    for seed in range(3):
        eigh, eigvalsh = _perturbed(seed)
        monkeypatch.setattr(verdict, "_eigh", eigh)
        monkeypatch.setattr(verdict, "_eigvalsh", eigvalsh)
        cx = check_kernel(kernel, objects).counterexample
        monkeypatch.undo()
        assert [object_key(x) for x in cx.objects] == [object_key(x) for x in reference.objects]
        np.testing.assert_array_equal(cx.gram, reference.gram)
        np.testing.assert_allclose(cx.z, reference.z, atol=1e-9)


def test_eigenvector_is_canonical_for_a_repeated_eigenvalue():
    # -1 is a double eigenvalue of K: any basis of its eigenspace gives the same z
    K = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    lam, z = verdict.smallest_eigenpair(K)
    assert lam == pytest.approx(-1.0)
    P = np.eye(3) - np.ones((3, 3)) / 3  # projector onto the eigenspace
    np.testing.assert_allclose(z, P[:, 0] / np.linalg.norm(P[:, 0]), atol=1e-12)
    assert z[0] > 0 and z @ K @ z == pytest.approx(-1.0)


def test_tie_order_ignores_differences_below_the_tie():
    values = np.array([0.5, 0.2 + 1e-12, 0.2, 0.7, 0.2 - 1e-12])
    np.testing.assert_array_equal(verdict.tie_order(values, 1e-9), [1, 2, 4, 0, 3])


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return set(next(line for line in f if line.startswith("flags")).split())
    except (OSError, StopIteration):
        return set()


@pytest.mark.slow
@pytest.mark.skipif(platform.machine() != "x86_64", reason="OpenBLAS x86-64 core types")
def test_docs_example_is_the_same_with_every_openblas_core_type():
    flags = _cpu_flags()
    # core types this CPU can run (SkylakeX needs AVX-512)
    cores = (
        ["Prescott", "Nehalem"]
        + (["Haswell", "Zen"] if "avx2" in flags else [])
        + (["SkylakeX"] if "avx512f" in flags else [])
    )
    command = [
        sys.executable,
        "-m",
        "structk",
        "check-kernel",
        "structk.testing.non_kernels:truncated_overlap",
        "--objects",
        "sets:abcd",
        "--max-size",
        "3",
    ]
    outputs = {}
    for core in cores:
        env = dict(os.environ, OPENBLAS_CORETYPE=core)
        out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 1, (core, out.stderr)
        outputs[core] = out.stdout
    assert len(set(outputs.values())) == 1, outputs
