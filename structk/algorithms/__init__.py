"""Hot algorithms, one folder each: the NumPy form, the compiled form and
the size rule that picks one, side by side.

In each folder ``__init__.py`` holds the rule (and whatever runs in NumPy
around the loops), ``_numpy.py`` the NumPy form, ``_numba.py`` the compiled
form. Compiled modules import nothing above them (numba, NumPy, the
first-compilation notice :mod:`structk._jit` and numba-free leaves such as
:mod:`.hashing`); the kernels call down into them. Importing a folder never
imports numba: only the rule does, when it picks the compiled form. The
rules' numbers are in :mod:`structk._tuning`.

===================  ========================================================
``kmers``            k-mer ids, positions and counts (NumPy / numba),
                     mismatch neighbourhoods, gappy pairs (numba)
``gapped_kmers``     pairs of l-mers within d mismatches (gapped k-mer kernels)
``weighted_degree``  weighted-degree matches with shifts, bit-parallel (numba);
                     its positioned l-mer features
``sparse_gram``      the Gram of sparse non-negative features: SciPy for small
                     results, else BLAS for common columns and a compiled
                     loop for rare ones
``gram_blocks``      blocks ``K[rows][:, cols]`` of a Gram (NumPy / numba)
``wl_relabel``       Weisfeiler-Lehman labels (NumPy / numba) and the optimal
                     assignment's (label, rank) features (NumPy)
``random_walk``      random walks on product graphs, on threads (numba)
``shortest_paths``   shortest paths with their feature keys, their counts,
                     GraphHopper weights (numba)
``alignment``        the LA kernel and Smith-Waterman (numba)
``hmm``              forward-backward, Viterbi, E-step (numba)
``hashing``          splitmix64, the graph labels' hash (a module, no numba)
``popcount``         the set bits of a 64-bit word, for compiled loops (a
                     folder, numba only)
``dense``            mirroring a triangle of a symmetric matrix (a module, NumPy)
``multisets``       multisets as sets of (token, level) pairs: the MinMax
                     kernel's indicator matrix and its alignment (a module, NumPy)
===================  ========================================================

The learners' hot algorithms sit beside their estimators in the same way:
:mod:`structk.learners._smo` (the SVM solver), :mod:`structk.learners._psd`
(the training Gram's PSD check), :mod:`structk.learners._perceptron` (the
perceptron's epochs) and :mod:`structk.learners._ridge_loo` (ridge
leave-one-out for many penalties).

A kernel, a learner or an explanation calls the public functions of a
folder's ``__init__.py``, never its ``_numba.py`` (``tests/test_layout.py``):
the explanations of graph models take their features from the same
functions as the kernels (:func:`.wl_relabel.wl_relabel`,
:func:`.wl_relabel.assignment_occurrences`,
:func:`.shortest_paths.path_list`), so a feature is defined once.
"""
