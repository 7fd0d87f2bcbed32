"""Benchmark: multiple kernel learning by the marginal likelihood on Photoswitch, ESOL, FreeSolv.

GAUCHE's regression protocol (Griffiths et al., NeurIPS 2023), as in
``bench_gp.py`` and ``bench_gp_regression.py``: random 80/20 splits
(``train_test_split(test_size=0.2, random_state=seed)``, seeds 0 ..
``--seeds`` - 1, 20 by default as GAUCHE), targets standardised on each
training part (``normalize_y=True``), every kernel weight, bandwidth and the
noise by the marginal likelihood, scored on the test part: R^2, RMSE, mean
negative log predictive density (NLPD, nats per test object, target units)
and the fraction of test targets inside the 95 % intervals.

The models were fixed in this file (and committed) before any of them was
scored on a test part; every model below is reported, whichever wins.

Each molecule is one object holding several representations (a dict), and
the kernel is a sum whose every term looks at one of them through
:class:`structk.kernels.Part`, each term with its own learned weight
(multiple kernel learning by the marginal likelihood):

* ``MKL`` (**the declared model**)::

      c1 * Part(MinMax(), "morgan")            # exact Morgan count environments, radius 2
    + c2 * Part(MinMax(), "fragments")         # RDKit's 85 fragment counts
    + c3 * Part(Normalize(WeisfeilerLehman(h, edge_label="label")), "graph")
    + c4 * Part(Gaussian(sigma), "descriptors")

  ``h`` in {1, 2, 3, 4} chosen by the marginal likelihood on each training
  part (one fit each, the highest kept); the molecular graph from
  :func:`structk.datasets.from_smiles` (atoms labelled by element, bonds by
  type). The descriptors are RDKit's 2D descriptors (``Descriptors.descList``;
  a column that is not finite for every molecule dropped), standardised on
  the training part (mean and standard deviation of the training
  molecules; a column constant there dropped) and clipped to [-5, 5];
  ``sigma`` starts at the square root of their number. Every weight starts
  at 0.25, the noise at 0.1, no restarts.
* ``MKL, structure only`` (an ablation): the same without the descriptor
  term (``h`` chosen the same way).
* ``c * MinMax, Morgan + fragments`` (the baseline, ``bench_gp.py``'s model):
  one ``MinMax`` on the Morgan counts and fragment counts joined in one
  multiset.

The Gram matrices of the terms without continuous parameters (the two
``MinMax`` and the WL kernels) are computed once on all molecules and
looked up (``Precomputed`` of the row numbers): the same numbers as the
kernels on each split's objects, at the cost of indexing. The descriptor
term is computed on each split, from its own standardisation.

On Photoswitch, GAUCHE itself (``--gauche``, its Python in
``/work/venv-gauche``, ``bench_gauche.py``'s fragprints model: Tanimoto on
2048 Morgan bits and the fragment counts) runs on the same splits and the
difference in RMSE is printed per split (paired).

Published figures (as recorded in structk's issue 37): Photoswitch R^2
0.897 / RMSE 20.9 nm (GAUCHE's fragprints Tanimoto GP), ESOL RMSE 1.04 and
FreeSolv 1.47 (GAUCHE's WL-kernel GP).

Times are wall clock on a shared machine (other jobs running): indicative
only.

Usage::

    STRUCTK_DATA=/path/to/data python benchmarks/bench_gp_mkl.py [--quick] [--seeds 20]
        [--datasets photoswitch esol freesolv] [--gauche] [--output FILE]
"""
