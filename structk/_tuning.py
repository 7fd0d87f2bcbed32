"""Every size rule of structk, in one place.

A size rule chooses between two ways of computing the same thing (NumPy or
compiled code, one thread or several, one product or another) from the size
of the arguments. Each entry below says, in one line, what it trades; the
measurements behind the numbers are in ``docs/performance.md`` and the
scripts in ``benchmarks/``. Unless an entry says otherwise, changing it
changes speed only, never a result.

Code reads these as ``_tuning.NAME`` at call time (never ``from ._tuning
import NAME``), so that a test can override one for the duration of a test
through the ``tuning`` fixture of ``tests/conftest.py``::

    def test_threads_even_for_small_jobs(tuning):
        tuning.set(ALIGNMENT_PARALLEL_CELLS=0)

A caller that knows more than the sizes (a cross-validation that will
solve hundreds of small problems) overrides an entry for the duration of a
block with :func:`override`; nothing outlives the block, so a result and
the code path never depend on what ran before in the process.

The rule each number feeds sits beside the algorithm it serves, in
:mod:`structk.algorithms`.
"""

from contextlib import contextmanager


@contextmanager
def override(**values):
    """Set entries of this module for the duration of a ``with`` block
    (restored on exit, also on an exception). Unknown names raise."""
    import sys

    module = sys.modules[__name__]
    old = {}
    for name in values:
        if not name.isupper() or not hasattr(module, name):
            raise AttributeError(f"structk._tuning has no entry {name!r}")
        old[name] = getattr(module, name)
    try:
        for name, value in values.items():
            setattr(module, name, value)
        yield
    finally:
        for name, value in old.items():
            setattr(module, name, value)

# ---------------------------------------------------------------- BLAS threads
#: Matrices of at most this order are factorised on one BLAS thread: the
#: hand-over to OpenBLAS's pool costs more than the arithmetic below it.
ONE_BLAS_THREAD_MAX_N = 1024
#: Eigendecompositions below this order get no thread limit: NumPy's
#: ``eigvalsh`` runs single-threaded there and the first limit costs ~ms.
THREADED_EIGH_MIN_N = 65
#: Matrix products of more multiply-adds than this run on one BLAS thread
#: (smaller ones stay on the calling thread anyway): a woken helper thread
#: waits for a core on a busy machine.
THREADED_PRODUCT = 2**18
#: ... up to this many multiply-adds: larger products gain from the threads
#: on an idle machine.
SMALL_PRODUCT = 2**28

# ------------------------------------------------------------------ k-mers
#: Sequence batches of at most this many symbols get their k-mer ids and
#: counts from NumPy: cheaper than loading the compiled loops in a fresh process.
KMERS_NUMPY_MAX_SYMBOLS = 200_000
#: Count k-mers with one counter per possible k-mer when there are at most
#: this many (or no more than the k-mers counted); else sort each row.
KMER_COUNTER_SPACE = 2**16
#: Memory (bytes) the mismatch expansion may use when the machine's available
#: memory cannot be read; beyond it the expansion is refused (an error).
MISMATCH_MEMORY_FALLBACK = 4 * 2**30
#: Mismatch neighbours expanded per compiled call (about 0.1-0.3 s): a
#: Ctrl-C is answered between calls, against a Python call and a copy of
#: the rows per chunk.
MISMATCH_CHUNK_NEIGHBOURS = 2**22

#: Most 64-symbol word comparisons (pairs x words x (2 shift + 1)) of one
#: compiled weighted-degree call (about 0.05-0.15 s; a Ctrl-C is answered
#: between calls), against a Python call each.
WD_CHUNK_WORK = 2**19

# ----------------------------------------------------------- gapped k-mers
#: One all-pairs comparison of two l-mers costs about 1 / this of handling
#: one l-mer in one deletion pattern of the counting form (gathered key,
#: radix passes, its share of the group scans): the rule between the two
#: compiled forms. Measured crossovers on nfe2 200-nt windows
#: (bench_gkm.py --win-map, docs/performance.md, CPU seconds): about 40
#: windows at (10, 6, 3) and (11, 7, 3), about 100 at (12, 8, 4), none above
#: 40 at (8, 4, 2).
GKM_PAIRS_PER_SUBSET_ENTRY = 20.0
#: Digit of the counting form's radix sorts (bits): 8 (two passes over 8 kept
#: positions) against one pass of 16 on 1,166 nfe2 windows at (11, 7, 3):
#: the 165 sorts take 1.9 s against 3.4 s CPU, 256 write streams staying in
#: the cache.
GKM_RADIX_BITS = 8
#: A counting-form result larger than this (bytes) gets its additions
#: gathered and added tile by tile (``GKM_BUFFER_HITS`` at a time, tiles of
#: ``2^GKM_TILE_BITS`` rows and columns) instead of one by one; smaller ones
#: stay in the cache anyway.
GKM_DIRECT_BYTES = 512 * 2**10
GKM_BUFFER_HITS = 2**18
GKM_TILE_BITS = 8
#: The compiled forms run on threads from this much work on: l-mer-pattern
#: visits (counting form: the deletion patterns split among threads, each
#: adding into its own copy of the result) or l-mer comparisons (all pairs:
#: chunks of rows).
GKM_THREADED_MIN_WORK = 2_000_000
#: Chunks of rows per thread in the all-pairs form (balance on a loaded machine).
GKM_CHUNKS_PER_THREAD = 4
#: Most l-mer comparisons of one compiled call of the all-pairs form (about
#: 0.1-0.3 s; a Ctrl-C is answered between calls), against a Python call each.
GKM_PAIRS_CHUNK_WORK = 2**26
#: All-pairs sums of at most this many l-mer comparisons run in NumPy.
GKM_NUMPY_MAX_PAIRS = 20_000
#: Sequence batches of at most this many bases get their l-mers from NumPy.
GKM_NUMPY_MAX_SYMBOLS = 20_000
#: Memory (bytes) a gapped k-mer Gram may use when the machine's available
#: memory cannot be read; beyond it the computation is refused (an error).
GKM_MEMORY_FALLBACK = 4 * 2**30

# ---------------------------------------------------------------- explain
#: Largest l whose dense table of 4^l l-mer weights explain builds for a
#: gapped k-mer model (l = 12: 128 MiB): memory against refusing to explain
#: larger l (ISM by recomputing mutants still works); a result, not a speed.
EXPLAIN_GKM_MAX_DENSE_L = 12

# ----------------------------------------------------- sparse Gram products
#: A feature column goes to BLAS (dense block) when its pair count times this
#: exceeds n * m: a scattered update costs about this many BLAS multiply-adds.
SPARSE_DENSE_RATIO = 30.0
#: Largest dense block of columns (bytes) gathered for one BLAS product:
#: memory against the number of products.
SPARSE_BLOCK_BYTES = 32 * 2**20
#: Column spaces up to this size (or twice the entries) are indexed directly;
#: larger ones are renumbered to the columns present (one np.unique).
SPARSE_DIRECT_SPACE = 2**16
#: Gram results of at most this many entries use SciPy's sparse product:
#: cheaper than loading the compiled product in a fresh process.
SPARSE_SCIPY_MAX_RESULT = 2**18
#: Dense-column products of at most this many multiply-adds run on one BLAS
#: thread: the hand-over to a helper costs more on a busy machine.
SPARSE_THREADED_FROM = 2**25
#: Most scattered multiply-adds of one compiled call of the sparse part of a
#: Gram product (about 0.1-0.2 s; a Ctrl-C is answered between calls),
#: against a Python call each.
SPARSE_CHUNK_WORK = 2**24

# -------------------------------------------------- Weisfeiler-Lehman labels
#: Graph batches of at most this many adjacency entries are relabelled in
#: NumPy: cheaper than loading the compiled loop in a fresh process.
WL_NUMPY_MAX_ENTRIES = 200_000
#: Node and edge visits (times h) of the graphs of one compiled relabelling
#: call (about 0.1-0.3 s; a Ctrl-C is answered between calls), against a
#: Python call each.
WL_CHUNK_WORK = 2**21

# ---------------------------------------------------------- shortest paths
#: Most breadth-first-search steps (nodes x (nodes + arcs) per graph) of one
#: compiled call counting the shortest paths of a group of graphs (about
#: 0.1-0.3 s; a Ctrl-C is answered between calls), against a Python call each.
SP_CHUNK_WORK = 2**24

# ---------------------------------------------------------- random walks
#: Graphs above this many nodes bound the spectral radius of their adjacency
#: by degrees instead of an eigendecomposition: time and memory against a
#: looser bound, which changes ``lam="auto"`` (a result) for such graphs.
WALK_DENSE_EIG_MAX_N = 2000
#: Below this many product vertices (sum of n n' over pairs) the pairs run
#: on the calling thread: starting threads costs more than the work.
WALK_PARALLEL_WORK = 5e5
#: A spectral (unlabelled) pair costs about 1/this of a labelled one per n n',
#: for the threading decision above.
WALK_SPECTRAL_COST = 10
#: Chunks per thread when pairs run on threads: load balance against overhead.
WALK_CHUNKS_PER_THREAD = 4
#: Most product vertices (sum of n n') of the pairs of one compiled call
#: (about 0.1-0.3 s for labelled walks; a Ctrl-C is answered between calls),
#: against a Python call and fresh scratch per chunk.
WALK_CHUNK_WORK = 2**22
#: Product-graph layout of a labelled pair: 0 picks, per pair, the cheaper of
#: 1 (its matching arcs listed) and 2 (split by label blocks); 1 and 2 force
#: one (the tests run both).
WALK_PRODUCT_LAYOUT = 0

# ------------------------------------------------------------- alignment
#: Below this many dynamic-programming cells an alignment Gram is computed on
#: the calling thread: starting threads costs more than the work.
ALIGNMENT_PARALLEL_CELLS = 2_000_000
#: Chunks of rows per thread when alignments run on threads.
ALIGNMENT_CHUNKS_PER_THREAD = 4
#: Most dynamic-programming cells of one compiled call (about 0.1-0.25 s in
#: float64; a Ctrl-C is answered between calls), against a Python call per chunk.
ALIGNMENT_CHUNK_CELLS = 2**25

# ------------------------------------------------------------------ HMM
#: E-step work (symbols x states^2) from which it is split into chunks on
#: threads: below it the threads' start-up costs more than they gain.
HMM_PARALLEL_MIN_WORK = 32_000_000
#: Work per E-step chunk. The chunks (hence the summation order) depend on
#: the data only, never on the thread count.
HMM_CHUNK_WORK = 4_000_000
#: Most work (symbols x states^2) of one compiled call of the likelihoods,
#: posteriors and Viterbi paths (about 0.05-0.2 s; a Ctrl-C is answered between
#: calls), against a Python call each.
HMM_CALL_WORK = 2**26

# ------------------------------------------------------------ vectors, stats
#: Entries of the differences ``x - y`` recomputed at once where the Gram
#: trick loses accuracy (distance kernels): memory against NumPy calls.
VECTOR_DIFF_CHUNK_ENTRIES = 2**22
#: Entries of one block of permutation indicators in ``mmd_test``: memory
#: against the number of BLAS calls.
MMD_BLOCK_ENTRIES = 4_000_000

# ------------------------------------------------------------------- scale
#: Objects per block of rows of Nystroem landmark features ``k(X, L) @ V``
#: and of the leverage-score pass (with 2000 landmarks a block is 2000 x 2000
#: kernel values, 32 MB, per thread): memory against the number of kernel calls.
LANDMARK_BLOCK_ROWS = 2000
#: Objects per block of rows of a kernel's own feature matrix (rows are
#: sparse or narrow): memory against the number of kernel calls.
FEATURE_BLOCK_ROWS = 40_000
#: Working memory of one Gram tile, in tiles of float64 (the tile, its
#: mirrored copy, a kernel's temporaries): the memory check's safety margin.
TILE_WORK_FACTOR = 4
#: Unpickled blocks each distributed worker keeps: memory against decoding
#: the same block again.
DISTRIBUTED_DECODED_MAX = 8

# ------------------------------------------------- in-place matrix passes
#: Rows (or, for the asymmetry search, a square block's side) per block of
#: the passes over an n x n matrix that avoid an n^2 temporary: mirroring an
#: upper triangle, the symmetry checks, restoring a lower triangle after a
#: factorisation and the RKHS norm from an upper triangle, recomputing
#: inaccurate distances, filling a failed output with NaN; and the scratch
#: of an in-place symmetric permutation. Memory of one block's temporaries
#: against the number of NumPy calls; the RKHS norm's sums follow its blocks,
#: so its last bits change with ``LOWER_TRIANGLE_BLOCK_ROWS``.
MIRROR_BLOCK_ROWS = 64
PSD_SYMMETRY_BLOCK_ROWS = 64
ASYMMETRY_BLOCK = 256
LOWER_TRIANGLE_BLOCK_ROWS = 256
DISTANCE_RECOMPUTE_BLOCK_ROWS = 256
POISON_BLOCK_ROWS = 4096
PERMUTE_STRIP_BYTES = 2**24

# ---------------------------------------------------------------- learners
#: ``solver="auto"``: a kernel with fixed feature columns is solved in the
#: primal (LIBLINEAR on its features) from this many training objects on:
#: the n x n Gram (72 MB at 3000) and its SMO against the features. The
#: model changes (to the solvers' tolerance), not only the speed.
PRIMAL_MIN_N = 3000
#: ... except a hinge-loss SVM, whose primal coordinate descent is slowed by
#: the unpenalised bias: it stays on the dual until the Gram is about 1.6 GB.
PRIMAL_HINGE_MIN_N = 15_000
#: ``solver="auto"``: any other kernel goes to the Nystroem path (an
#: approximation: the model changes) from this many training objects on.
NYSTROEM_MIN_N = 15_000
#: Landmarks of the Nystroem path when ``n_components=None``: accuracy
#: against m^2 memory and m^3 time (the model changes with it).
DEFAULT_N_COMPONENTS = 1000
#: Objects per chunk when a primal or Nystroem model predicts: memory of one
#: chunk's features against the number of calls.
PRIMAL_PREDICT_CHUNK = 20_000
#: Most one-vs-one machines a fit builds: k classes need k (k - 1) / 2;
#: beyond it the fit is refused at once (an error) rather than run for days.
MAX_OVO_MACHINES = 1_000_000
#: Penalties ``KernelRidgeCV``'s compiled leave-one-out sweep treats together
#: (they share one pass over ``Q``): registers against memory traffic.
RIDGE_LOO_PENALTY_BLOCK = 4
#: Binary SVM problems of at most this many variables start in the NumPy
#: SMO (no compiled code to load in a fresh process) ...
SVM_NUMPY_MAX_N = 400
#: ... for at most ``max(SVM_NUMPY_BUDGET, SVM_NUMPY_WORK // n)`` iterations
#: before the compiled solver goes on (bounds the slower NumPy iterations).
SVM_NUMPY_BUDGET = 1000
SVM_NUMPY_WORK = 2_000_000
#: One-vs-one SVM machines copy their pair of classes' block of the Gram
#: into a buffer per thread (and run on threads) while the buffers hold at
#: most this fraction of the Gram's bytes, else into one buffer (one thread)
#: while that one does; with fewer, larger classes they run one at a time
#: on the block of the Gram itself, permuted in place (an exact fit then
#: peaks near the Gram's own bytes).
SVM_BLOCK_COPY_MAX_FRACTION = 0.15
#: Binary SVM problems of at most this many variables start in the NumPy
#: SMO (no compiled code to load in a fresh process) ...
SVM_NUMPY_MAX_N = 400
#: ... for at most ``max(SVM_NUMPY_BUDGET, SVM_NUMPY_WORK // n)`` iterations
#: before the compiled solver goes on (bounds the slower NumPy iterations).
SVM_NUMPY_BUDGET = 1000
SVM_NUMPY_WORK = 2_000_000
#: One-vs-one SVM machines copy their pair of classes' block of the Gram
#: into a buffer per thread (and run on threads) while the buffers hold at
#: most this fraction of the Gram's bytes, else into one buffer (one thread)
#: while that one does; with fewer, larger classes they run one at a time
#: on the block of the Gram itself, permuted in place (an exact fit then
#: peaks near the Gram's own bytes).
SVM_BLOCK_COPY_MAX_FRACTION = 0.15
#: Binary SVM problems of at most this many variables that SMO has not
#: solved after ``SVM_IPM_AFTER`` iterations go to the dense interior-point
#: method (``_smo.dense_ipm``; SMO then finishes from its point to the same
#: tolerance). It trades O(n^3) per Newton step (~20 steps) against SMO's
#: iterations, which grow with C. An ENZYMES one-vs-one machine (normalised
#: random walk, 200 objects): SMO 0.5-1.0 s at C = 1e5 (0.9-2.1 million
#: iterations), 1e7 iterations (44 s) without converging at 1e6; the
#: interior point 12-25 ms at any C. One interior point on 600 objects
#: takes 0.09 s (one BLAS thread), the bound keeps it well under 0.3 s.
SVM_IPM_EAGER_MAX_N = 600
#: ... and SMO iterations spent first, compiled or in NumPy: about the cost
#: of one interior point at 200 variables (10-15 ms; 2-3 us a compiled
#: iteration, 30-80 us a NumPy one). An easy problem never reaches the
#: interior point: the same model as without it, bit for bit.
SVM_IPM_AFTER = 5000
SVM_IPM_AFTER_NUMPY = 300
#: Larger problems, up to this many variables (0: no interior point at
#: all), go to the interior point too, after ``n^2 / SVM_IPM_WORK_DIVISOR``
#: SMO iterations (each O(n), against the interior point's ~20 O(n^3)
#: steps on one dense n x n matrix): without it a hard problem one variable
#: above the eager bound ran to ``max_iter`` (10^7 iterations, 16.7 s)
#: with a worse model (accuracy 0.879 against 0.988 at 600 objects). The bound
#: keeps the interior point's dense matrices (a few n x n) small.
SVM_IPM_MAX_N = 3000
SVM_IPM_WORK_DIVISOR = 16
#: ``structk cv`` and ``fit`` search ``KernelSVM``'s default ``C`` grid three
#: decades further up (``cli.evaluation.DEFAULT_SVM_C_ABOVE``) on a Gram of
#: at most this many objects: inner training parts of at most 600 (5 inner
#: folds), machines the interior point solves (``SVM_IPM_EAGER_MAX_N``) in
#: milliseconds at any C. Above, SMO alone would take minutes per fit there.
CV_SVM_WIDE_C_MAX_N = 750
#: Whether ``structk cv`` and ``fit``'s inner folds solve an SVM's ``C``
#: grid as a path (increasing ``C``, each SMO started from the previous
#: solution, scaled into the new box): the same optimum to ``tol``, in
#: fewer iterations at large ``C``. Off: every grid point from zero.
#: Machines of at most ``SVM_IPM_MAX_N`` objects start from zero anyway
#: (the interior point: the start saved 2-3 % on ENZYMES' inner folds).
CV_SVM_C_PATH = True
#: Training Grams of at most this order are factorised by ``psd_check="auto"``
#: (an O(n^3) certificate); larger ones get the O(n^2) necessary conditions
#: only. Changes which slightly indefinite Grams are caught, not any fit.
PSD_FACTORISE_MAX_N = 500
#: How many interleaved principal submatrices of ``PSD_FACTORISE_MAX_N``
#: objects the learners factorise for a larger Gram (``None``: all): a
#: cost independent of n, against one pass of the necessary conditions.
PSD_BLOCKS_CHECKED = 1
#: Lanczos steps (one product with the Gram each) the learners spend on a
#: Gram too large to factorise, after the principal submatrix, when they
#: computed it with structk's own kernels. Those are positive semi-definite
#: by construction, so the check guards against bugs, which show as gross
#: negative directions (one at -1e-2 ||K||_F on 60 objects outside the
#: submatrix: step 5 to 8), while each step reads a triangle of a Gram that
#: may have cost little more to compute (a Gaussian Gram of 5,000 x 10
#: vectors: 20 steps were 25-30 % of the fit, the spectrum kernel on 3,190
#: UCI splice sequences 15-21 %).
PSD_LANCZOS_STEPS = 10
#: The same for a Gram the learner did not compute with structk's kernels:
#: given (``kernel="precomputed"``) or computed by a kernel written outside
#: structk (``FunctionKernel``, a user's ``Kernel`` subclass), where an
#: indefinite Gram is most likely. The log-LA spectrum above shifted to
#: lambda_min = -2.3e-5 ||K||_F (the figure of a SCOP family's training
#: block) is first seen at step 42 from the fixed start (41 to 78 over
#: nine starts), at -1e-5 at step 52; 60 steps of a 2,342 x 2,342 Gram
#: take about 0.1 s on one core, its factorisation 0.15 s.
PSD_LANCZOS_STEPS_USER = 60
#: Grams of at most this order are certified by one factorisation without
#: the necessary pass and without a BLAS thread limit (the first limit of a
#: process costs more than their factorisation).
PSD_SMALL_CERTIFICATE_MAX_N = 400
#: The necessary PSD pass runs in NumPy up to this order, above in numba:
#: loading compiled code against NumPy's temporaries.
PSD_NUMPY_PASS_MAX_N = 400
#: The first non-finite entry of a Gram is looked for by NumPy up to this many
#: entries, above by a compiled scan without an n x n boolean temporary.
PSD_NUMPY_FINITE_SCAN_MAX = 2**22
#: KernelRidgeCV eigendecomposes Grams up to this order (no compiled code);
#: above, it tridiagonalises and sweeps the penalties in a compiled loop.
RIDGE_CV_EIGH_MAX_N = 400
#: Blocks of a Gram of at most this many entries are copied by NumPy's fancy
#: indexing; larger ones by a compiled row gather (no compiled code to load
#: for the machines the NumPy SMO solves).
GRAM_BLOCK_NUMPY_MAX = 400 * 400

# ------------------------------------------------------------ command line
#: ``fit`` runs no inner cross-validation over a default grid above this
#: many training objects: it needs the n x n Gram (15,000: 1.8 GB), which the
#: learners past the Gram never form (the model changes: defaults are used).
NESTED_MAX_N = 15_000
#: The command line computes Grams of at most this many objects (without an
#: output file or progress bar) in one kernel call; larger ones tile by tile
#: through ``structk.gram``, which bounds memory and reports progress.
CLI_GRAM_ONE_CALL_MAX_N = 2000
#: Tile side (objects) of those tiled Grams: progress granularity and memory
#: against per-tile overhead.
CLI_GRAM_TILE = 256
