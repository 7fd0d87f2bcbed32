"""Speed knobs of structk: changing an entry changes the time, never the output.

Each entry is the number of a size rule, which chooses between two ways of
computing the same thing (NumPy or compiled code, one thread or several,
one product or another, chunks of one size or another) from the size of
the arguments, with one line on what it trades. The measurements behind
the numbers are in ``docs/performance.md`` ("Tuning entries and their
measurements") and the scripts in ``benchmarks/``. An entry that sets the
blocks of a floating-point sum (the RKHS norm, an HMM's E-step) may change
its last bits: rounding, not another result;
``tests/test_tuning_is_speed_only.py`` sets a sample of entries to extreme
values and checks the results equal. The defaults that do change a result
(a solver, an approximation, a PSD verdict, a refusal) are in the public
module :mod:`structk.defaults`.

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

from . import defaults


def _home(name):
    """The module that holds entry ``name``: this one or :mod:`structk.defaults`."""
    import sys

    for module in (sys.modules[__name__], defaults):
        if name.isupper() and not name.startswith("_") and name in vars(module):
            return module
    raise AttributeError(f"structk._tuning and structk.defaults have no entry {name!r}")


@contextmanager
def override(**values):
    """Set entries of this module or of :mod:`structk.defaults` for the
    duration of a ``with`` block (restored on exit, also on an exception).
    Unknown names raise."""
    homes = {name: _home(name) for name in values}
    old = {name: getattr(homes[name], name) for name in values}
    try:
        for name, value in values.items():
            setattr(homes[name], name, value)
        yield
    finally:
        for name, value in old.items():
            setattr(homes[name], name, value)


# moved to structk.defaults; alias until learners/svm.py is rewritten
# (learners/svm.py, learners/_smo/, learners/_psd/ and learners/primal.py
# still read these as _tuning.NAME; the alias reads structk.defaults at
# call time, so an override of either name is seen)
# ---------------------------------------------------------------- BLAS threads
#: Matrices of at most this order are factorised on one BLAS thread: the
#: hand-over to OpenBLAS's pool costs more than the arithmetic below it.
ONE_BLAS_THREAD_MAX_N = 1024
#: Eigendecompositions below this order get no thread limit: NumPy's
#: ``eigvalsh`` runs single-threaded there and setting a limit costs more.
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
#: Mismatch neighbours expanded per compiled call: a Ctrl-C is answered
#: between calls, against a Python call and a copy of the rows per chunk.
MISMATCH_CHUNK_NEIGHBOURS = 2**22
#: Mismatch expansions of at most this many neighbours in all run in NumPy:
#: no compiled loop to load (or to compile: 7-8 s of CPU with an empty cache).
MISMATCH_NUMPY_MAX_NEIGHBOURS = 2**20

#: Most 64-symbol word comparisons (pairs x words x (2 shift + 1)) of one
#: compiled weighted-degree call (a Ctrl-C is answered between calls),
#: against a Python call each.
WD_CHUNK_WORK = 2**19
#: Weighted-degree values without shifts of at most this many pairs x
#: positions x d are computed in NumPy (the same values bit for bit): no
#: compiled loop to load, or to compile (5-6 s of CPU with an empty cache).
WD_NUMPY_MAX_WORK = 2**25

# ----------------------------------------------------------- gapped k-mers
#: One all-pairs comparison of two l-mers costs about 1 / this of handling
#: one l-mer in one deletion pattern of the counting form (gathered key,
#: radix passes, its share of the group scans): the rule between the two
#: compiled forms.
GKM_PAIRS_PER_SUBSET_ENTRY = 20.0
#: Digit of the counting form's radix sorts (bits): more passes against
#: more write streams (2^bits of them) than the cache holds.
GKM_RADIX_BITS = 8
#: Deletion patterns of at most this many positions get the counting form
#: that packs each l-mer (kept bases, row, deleted bases) into one int64
#: and looks a pair's weight up in a per-pattern table of ``4^(2 d)``
#: entries (32 KB at d = 3), when all l-mer weights are 1: 1,166 nfe2
#: windows at (11, 7, 3), one thread, 8.0 s -> 5.1 s of CPU for the Gram.
GKM_PACKED_MAX_D = 3
#: The packed counting form's Gram of both strands visits half the
#: deletion patterns (each pair of mirror images once, every l-mer starting
#: pairs: half the sorts, the same pair visits;
#: ``structk.algorithms.gapped_kmers.mirror_codes``).
GKM_MIRROR_PATTERNS = True
#: A counting-form result larger than this (bytes) gets its additions
#: gathered and added tile by tile (``GKM_BUFFER_HITS`` at a time, tiles of
#: ``2^GKM_TILE_BITS`` rows and columns) instead of one by one; smaller ones
#: stay in the cache anyway.
GKM_DIRECT_BYTES = 512 * 2**10
GKM_BUFFER_HITS = 2**18
GKM_TILE_BITS = 8
#: The packed counting form's Gram (one strand, or both over the mirror
#: patterns) sorts the l-mers of each block of this many sequences on its
#: own, by one counting pass over the groups of a pattern, and adds each
#: pair of blocks' pairs straight into their block of the result (400^2
#: float64, 1.3 MB: about the per-core cache), with no buffered hits and
#: tile sort; 1,166 nfe2 windows at (11, 7, 3), one thread: see
#: docs/performance.md. It needs an offset table of ``4^(l - d)`` entries
#: per block and pattern: at most ``2^GKM_BLOCK_MAX_GROUP_BITS`` of them.
GKM_BLOCK_ROWS = 400
GKM_BLOCK_MAX_GROUP_BITS = 18
#: ... and at least this many l-mers (both strands) per group, else the
#: tables cost more than the l-mers they sort (nfe2 windows at (11, 7, 3):
#: even at 0.35, 0.7 x the tiled loop's CPU at 0.58, 1.4 x at 0.03).
GKM_BLOCK_MIN_FILL = 0.35
#: The compiled forms run on threads from this much work on: l-mer-pattern
#: visits (counting form: the deletion patterns split among threads, each
#: adding into its own copy of the result) or l-mer comparisons (all pairs:
#: chunks of rows).
GKM_THREADED_MIN_WORK = 2_000_000
#: Chunks of rows per thread in the all-pairs form (balance on a loaded machine).
GKM_CHUNKS_PER_THREAD = 4
#: Largest table over all 4^l l-mers (bytes) of the table form of the
#: Gram (each sequence's l-mers spread to their neighbours, then one
#: look-up per l-mer of the others): it must stay in the cache. 2 MiB is
#: l <= 9; at l = 10 (8 MiB) the 600 nfe2 windows took 7.5 s of CPU
#: against 2.5 s by the counting form, at l = 9 0.7 s against 0.9 s.
GKM_TABLE_MAX_BYTES = 2 * 2**20
#: The table form fills this many sequences' tables at a time, then reads
#: the other sequences' kernel values off them through an index of their
#: l-mers, ``GKM_TABLE_COLUMNS`` sequences at a time: each table entry is
#: read once for the whole block of columns, and the block's sums stay in
#: the cache.
GKM_TABLE_ROWS = 16
GKM_TABLE_COLUMNS = 128
#: Most l-mer comparisons of one compiled call of the all-pairs form (a
#: Ctrl-C is answered between calls), against a Python call each.
GKM_PAIRS_CHUNK_WORK = 2**26
#: All-pairs sums of at most this many l-mer comparisons run in NumPy.
GKM_NUMPY_MAX_PAIRS = 20_000
#: Sequence batches of at most this many bases get their l-mers from NumPy.
GKM_NUMPY_MAX_SYMBOLS = 20_000
#: Largest l whose model profile (one table of 4^l float64 per machine,
#: 128 MiB at l = 12) a gapped k-mer prediction folds the support vectors
#: into; above it the decision function compares every support vector.
GKM_PROFILE_MAX_L = 12
#: The profile's two Walsh-Hadamard transforms cost about this many all-pairs
#: l-mer comparisons per table entry and l-mer position (3.5 ns against
#: 1.45 ns, nfe2 at (11, 7, 3)): the rule between folding the support
#: vectors and comparing a batch with each of them.
GKM_PROFILE_PAIRS_PER_ENTRY = 2.5

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
#: Products of whole-number features (k-mer counts) of at most that many
#: entries and this many multiply-adds over the columns present go to one
#: dense BLAS product without SciPy (exact, so the same values): no
#: ``scipy.sparse`` import in a small prediction.
SPARSE_NUMPY_MAX_WORK = 2**26
#: Dense-column products of at most this many multiply-adds run on one BLAS
#: thread: the hand-over to a helper costs more on a busy machine.
SPARSE_THREADED_FROM = 2**25
#: Most scattered multiply-adds of one compiled call of the sparse part of a
#: Gram product (a Ctrl-C is answered between calls), against a Python call
#: each.
SPARSE_CHUNK_WORK = 2**24
#: Columns held by at most this many rows (of each matrix) add their
#: products a column at a time, the others row by row of the result:
#: the rows of a column that rare are not worth looking up from every row
#: that holds it (cache misses), the rows of a common one are.
SPARSE_PAIRS_MAX_ROWS = 8
#: Bits per pass of the radix sort that regroups the features by column
#: (at most): 2^11 runs per pass stay in cache.
SPARSE_RADIX_BITS = 11

# -------------------------------------------------- Weisfeiler-Lehman labels
#: Graph batches of at most this many adjacency entries are relabelled in
#: NumPy: cheaper than loading the compiled loop in a fresh process.
WL_NUMPY_MAX_ENTRIES = 200_000
#: Node and edge visits (times h) of the graphs of one compiled relabelling
#: call (a Ctrl-C is answered between calls), against a Python call each.
WL_CHUNK_WORK = 2**21

# ---------------------------------------------------------- shortest paths
#: Most breadth-first-search steps (nodes x (nodes + arcs) per graph) of one
#: compiled call counting the shortest paths of a group of graphs (a Ctrl-C
#: is answered between calls), against a Python call each.
SP_CHUNK_WORK = 2**24

# ---------------------------------------------------------- random walks
#: Below this many product vertices (sum of n n' over pairs) the pairs run
#: on the calling thread: starting threads costs more than the work.
WALK_PARALLEL_WORK = 5e5
#: A spectral (unlabelled) pair costs about 1/this of a labelled one per n n',
#: for the threading decision above.
WALK_SPECTRAL_COST = 10
#: Chunks per thread when pairs run on threads: load balance against overhead.
WALK_CHUNKS_PER_THREAD = 4
#: Most product vertices (sum of n n') of the pairs of one compiled call (a
#: Ctrl-C is answered between calls), against a Python call and fresh
#: scratch per chunk.
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
#: Most dynamic-programming cells of one compiled call (a Ctrl-C is answered
#: between calls), against a Python call per chunk.
ALIGNMENT_CHUNK_CELLS = 2**25

# ------------------------------------------------------------------ HMM
#: E-step work (symbols x states^2) from which it is split into chunks on
#: threads: below it the threads' start-up costs more than they gain.
HMM_PARALLEL_MIN_WORK = 32_000_000
#: Work per E-step chunk. The chunks (hence the summation order) depend on
#: the data only, never on the thread count.
HMM_CHUNK_WORK = 4_000_000
#: Most work (symbols x states^2) of one compiled call of the likelihoods,
#: posteriors and Viterbi paths (a Ctrl-C is answered between calls),
#: against a Python call each.
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
#: Training objects per block of the sparse GP's passes: a block's Gram
#: derivatives hold (rows + m)^2 numbers per hyperparameter, of which
#: rows x m are used: memory against the number of kernel calls.
SPARSE_GP_BLOCK_ROWS = 512
#: Objects per block of rows of a kernel's own feature matrix (rows are
#: sparse or narrow): memory against the number of kernel calls.
FEATURE_BLOCK_ROWS = 40_000
#: Unpickled blocks each distributed worker keeps: memory against decoding
#: the same block again.
DISTRIBUTED_DECODED_MAX = 8
#: Pickled objects of at most this many bytes that a round of Dask tasks
#: shares (the sparse GP's kernel and Cholesky factor, sent for every
#: evaluation of its bound) travel inside each task's specification; larger
#: ones go once, as a task of their own that the others wait on: a scheduler
#: step and a fetch between workers against a copy per task.
DASK_INLINE_MAX_BYTES = 1 << 20
#: ``dask_gram``'s default tiles: the fewest row blocks that give every
#: worker thread at least DASK_TILES_PER_THREAD tiles (to share the work),
#: of DASK_BLOCK_MIN to DASK_BLOCK_MAX rows (a 4096 tile is 128 MiB): each
#: tile costs a task, a transfer and, for kernels that build per-block
#: data (k-mer counts, feature matrices), that data again, so on a cluster
#: fewer, larger tiles pay (issue 39: 5 000 sequences, Spectrum(6), 2
#: workers, 15 tiles of 1024 against 6 of 1667: 2-3x the CPU).
DASK_TILES_PER_THREAD = 3
DASK_BLOCK_MIN = 1024
DASK_BLOCK_MAX = 4096

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
#: Rows per block of a Gaussian Gram's upper triangle (distances and
#: exponentials of one block in a buffer that stays in cache).
VECTOR_GRAM_BLOCK_ROWS = 128
#: A Gaussian Gram of at least this order is mirrored and scanned a block of
#: rows at a time as the blocks are written (in cache), each block's
#: distances one compiled pass, instead of the upper triangle first and
#: ``algorithms.gram_blocks.mirror_and_scan`` after; the lower triangle is
#: copied in squares of ``VECTOR_GRAM_MIRROR_TILE`` (docs/performance.md,
#: "KernelSVM defaults against LIBSVM").
VECTOR_GRAM_MIRROR_MIN_N = 400
VECTOR_GRAM_MIRROR_TILE = 32
POISON_BLOCK_ROWS = 4096
PERMUTE_STRIP_BYTES = 2**24

# ---------------------------------------------------------------- learners
#: Objects per chunk when a primal or Nystroem model predicts: memory of one
#: chunk's features against the number of calls.
PRIMAL_PREDICT_CHUNK = 20_000
#: Penalties ``KernelRidgeCV``'s compiled leave-one-out sweep treats together
#: (they share one pass over ``Q``): registers against memory traffic.
RIDGE_LOO_PENALTY_BLOCK = 4
#: One-vs-one SVM machines copy their pair of classes' block of the Gram
#: into a buffer per thread (and run on threads) while the buffers hold at
#: most this fraction of the Gram's bytes, else into one buffer (one thread)
#: while that one does; with fewer, larger classes they run one at a time
#: on the block of the Gram itself, permuted in place (an exact fit then
#: peaks near the Gram's own bytes).
SVM_BLOCK_COPY_MAX_FRACTION = 0.15
#: A small SVM problem that the interior point may take runs at most this
#: many of its first iterates in NumPy (nothing to load) before the compiled
#: solver goes on with the very same iterates; a NumPy iteration costs 10-40
#: compiled ones. A process that has the compiled solver loaded runs them
#: all compiled.
SVM_NUMPY_IPM_BUDGET = 300
#: Grams of at most this order are certified by one factorisation without
#: the necessary pass and without a BLAS thread limit (the first limit of a
#: process costs more than their factorisation); a Gram it does not certify
#: gets the full check, so the verdict is the same.
PSD_SMALL_CERTIFICATE_MAX_N = 400
#: Cholesky certificates (``_linalg.cholesky_ok``) of at most this order
#: are factorised by ``numpy.linalg.cholesky``: nothing to import or load
#: (SciPy's ``scipy.linalg``, 0.12 s of CPU in a fresh process, a third of
#: the first fit of 50 objects) and, with NumPy's OpenBLAS, on the calling
#: thread (its ``dpotrf`` wakes a helper thread from about 80 rows on,
#: measured).
NUMPY_CHOLESKY_MAX_N = 64
#: The necessary PSD pass runs in NumPy up to this order, above in numba:
#: loading compiled code against NumPy's temporaries.
PSD_NUMPY_PASS_MAX_N = 400
#: The first non-finite entry of a Gram is looked for by NumPy up to this many
#: entries, above by a compiled scan without an n x n boolean temporary.
PSD_NUMPY_FINITE_SCAN_MAX = 2**22
#: KernelRidgeCV eigendecomposes Grams up to this order (no compiled code);
#: above, it tridiagonalises and sweeps the penalties in a compiled loop.
RIDGE_CV_EIGH_MAX_N = 400
#: A Gaussian process whose only free hyperparameters are an output scale
#: and the noise reduces its fixed Gram once per fit from this many training
#: objects (tridiagonal form for one output, about three factorisations; the
#: eigendecomposition for several, about eight), and evaluates each step of
#: the optimiser in O(n); below it, it factorises the Gram at each step.
#: Each step also skips the kernel's gradient and
#: the inverse: ``1.0 * MinMax()`` fits took a third of the time from n = 3
#: to 150 (docs/gp.md), so it is used at every size.
GP_SPECTRAL_MIN_N = 0
#: Blocks of a Gram of at most this many entries are copied by NumPy's fancy
#: indexing; larger ones by a compiled row gather (no compiled code to load
#: for the machines the NumPy SMO solves).
GRAM_BLOCK_NUMPY_MAX = 400 * 400
#: A kernel's Gram of at least this order is mirrored and scanned for the
#: PSD check in one compiled pass (``algorithms.gram_blocks.mirror_and_scan``);
#: smaller ones are mirrored by NumPy (nothing to load) and checked by the
#: learners as before. Tiles of ``GRAM_SCAN_TILE`` columns keep the
#: transposed writes in cache; the pass runs on threads from
#: ``GRAM_SCAN_THREADED_MIN_ENTRIES`` entries.
GRAM_SCAN_MIN_N = 400
GRAM_SCAN_TILE = 64
GRAM_SCAN_THREADED_MIN_ENTRIES = 2**22

# ------------------------------------------------------------ command line
#: The command line computes Grams of at most this many objects (without an
#: output file or progress bar) in one kernel call; larger ones tile by tile
#: through ``structk.gram``, which bounds memory and reports progress.
CLI_GRAM_ONE_CALL_MAX_N = 2000
#: Tile side (objects) of those tiled Grams: progress granularity and memory
#: against per-tile overhead.
CLI_GRAM_TILE = 256
