"""Defaults that decide a result: which model a fit builds, which Gram is
refused, which computation is refused.

Each entry below changes what structk returns when it changes: another
solver or approximation (a different model, not only a faster one),
another search grid, another PSD verdict, an error instead of a result.
They are kept apart from :mod:`structk._tuning`, whose entries change the
time only, so that a reader can see every such choice in one place, with
its value and the reason for it. Where an estimator has a parameter for
the same choice (``solver``, ``n_components``, ``psd_check``, ``C``), the
parameter is the way to change it for one fit; these are the values
``"auto"`` and ``None`` stand for.

Code reads them as ``defaults.NAME`` at call time, so a test (the
``tuning`` fixture of ``tests/conftest.py``) or an experiment can set one
for a while; the value is then process-wide, for every thread.

Attributes
----------
PRIMAL_MIN_N : int
    3000. ``solver="auto"``: a kernel with fixed feature columns (Spectrum,
    WeisfeilerLehman, ...) is solved in the primal (LIBLINEAR on its
    features) from this many training objects on, by the squared-hinge SVM,
    ridge and logistic regression. Why: the n x n Gram (72 MB at 3000) and
    its dual solver cost more than the features there. The model changes,
    to the solvers' tolerances.
PRIMAL_HINGE_MIN_N : int
    15000. The same for a hinge-loss SVM, whose primal coordinate descent is
    slowed by the unpenalised bias: it stays on the dual until the Gram is
    about 1.6 GB. Also the size from which ``KernelSVM(loss="auto")`` (the
    default) leaves the dual, and with it the hinge, for the squared hinge
    on the features.
NYSTROEM_MIN_N : int
    15000. ``solver="auto"``: a kernel without fixed feature columns is fitted
    on Nystroem features (an approximation: the model changes) from this
    many training objects on, where the exact Gram would take 1.8 GB.
DEFAULT_N_COMPONENTS : int
    1000. Landmarks of the Nystroem path (and of FALKON) when
    ``n_components=None``: accuracy of the approximation against ``m^2``
    memory and ``m^3`` time.
SVM_NUMPY_MAX_N : int
    400. A binary SVM problem of at most this many variables starts in the
    NumPy SMO (nothing compiled to load in a fresh process), without
    shrinking, and goes on compiled, with shrinking, after its budget
    (below); a larger one runs compiled, with shrinking, from the start.
    Shrinking changes the working sets, so the two paths stop at different
    points that both meet the KKT tolerance ``tol``: the model changes
    within ``tol``.
SVM_NUMPY_BUDGET : int
    1000. Iterations of that NumPy SMO: at most ``max(SVM_NUMPY_BUDGET,
    SVM_NUMPY_WORK // n)``, which bounds the time spent in the slower NumPy
    iterations. Where the compiled solver takes over changes the model
    within ``tol``, as above.
SVM_NUMPY_WORK : int
    2000000. See ``SVM_NUMPY_BUDGET``.
SVM_IPM_EAGER_MAX_N : int
    600. A binary SVM problem of at most this many variables (finite ``C``)
    that SMO has not solved after ``SVM_IPM_AFTER`` iterations is solved by
    a dense interior-point method, which SMO then finishes to the same
    ``tol``. Why: SMO's iterations grow with ``C`` (millions at ``C = 1e6``
    on a nearly hard-margin problem), the interior point's O(n^3) Newton
    steps do not. A problem solved before the hand-over gets the same model
    bit for bit; a harder one a model that differs within ``tol``. The
    hand-over counts iterations, whether NumPy or compiled code ran them.
SVM_IPM_MAX_N : int
    3000. Larger problems, up to this many variables (0: no interior point
    at all), go to the interior point too, after ``n^2 /
    SVM_IPM_WORK_DIVISOR`` SMO iterations (at most half of ``max_iter``).
    Why: without it a hard problem one variable above the eager bound ran
    to ``max_iter`` (10^7 iterations) with a worse model (accuracy 0.879
    against 0.988, C = 1e7, 601 against 600 objects); the bound keeps the
    interior point's few dense n x n matrices small.
SVM_IPM_WORK_DIVISOR : int
    16. See ``SVM_IPM_MAX_N``: SMO's iterations (O(n) each) against the
    interior point's ~20 O(n^3) steps.
SVM_IPM_AFTER : int
    5000. SMO iterations (compiled) before that hand-over: about the cost of
    one interior point on 200 variables.
CV_SVM_WIDE_C_MAX_N : int
    750. ``structk cv`` and ``structk fit`` search ``KernelSVM``'s default
    ``C`` grid three decades further up
    (``structk.cli.evaluation.DEFAULT_SVM_C_ABOVE``) on a Gram of at most
    this many objects: its inner training parts (5 folds) are then at most
    ``SVM_IPM_MAX_N`` objects, which the interior point solves at any ``C``;
    on larger Grams SMO alone would take minutes per fit at the top ``C``.
    The grid, hence the chosen ``C``, changes.
CV_SVM_C_PATH : bool
    True. Whether those inner folds solve an SVM's ``C`` grid as a path
    (increasing ``C``, each SMO started from the previous solution scaled
    into the new box): the same optimum to ``tol`` in fewer iterations at
    large ``C``, so each model differs from a cold start's within ``tol``.
    Off: every grid point from zero.
PSD_FACTORISE_MAX_N : int
    500. ``psd_check="auto"`` factorises training Grams of at most this
    order (an O(n^3) certificate); a larger one gets the O(n^2) necessary
    conditions, ``PSD_BLOCKS_CHECKED`` principal submatrices of this order
    and Lanczos steps. Changes which slightly indefinite Grams are refused
    (:class:`~structk.exceptions.NotPSDError`), never a fit.
PSD_BLOCKS_CHECKED : int or None
    1. How many interleaved principal submatrices of ``PSD_FACTORISE_MAX_N``
    objects are factorised for a larger Gram (``None``: all): a cost
    independent of n.
PSD_LANCZOS_STEPS : int
    10. Lanczos steps (one product with the Gram each) on a Gram too large
    to factorise, when structk's own kernels computed it: those are PSD by
    construction, so the check looks for bugs, which show as gross negative
    directions found in 5-8 steps, while each step reads a triangle of a
    Gram that may have cost little more to compute.
PSD_LANCZOS_STEPS_CLOSED_FORM : int
    0. The same for a Gram of the vector kernels (``Linear``,
    ``Polynomial``, ``Gaussian``, ``Laplace``) and the algebra over them:
    PSD by a theorem and computed by BLAS products and elementwise
    functions whose rounding is bounded (distances to ``1e-13`` of the
    bandwidth), so there is no algorithm whose bug the steps could find,
    while each step costs a fifth of the fit's Gram (10 steps were 19 % of
    a default fit of 5,000 Gaussian vectors). The O(n^2) necessary
    conditions (read in the pass that mirrors the Gram) and the principal
    submatrix still run: they catch a non-finite or inconsistent Gram.
PSD_LANCZOS_STEPS_USER : int
    60. The same for a Gram the learner was given (``kernel="precomputed"``)
    or computed with a kernel written outside structk, where an indefinite
    Gram is most likely: enough steps to find a negative eigenvalue of
    about ``-1e-5 ||K||_F`` among the near-zero ones of a log local
    alignment Gram (step 52 on the set of docs/learners.md; a rebuilt set
    of 1,600 proteins shifted to ``-1e-5`` needs 62, just past it). A
    single eigenvalue among a smooth Gaussian Gram's near-zero ones takes
    more (64 steps at ``-2.3e-5``, 88 at ``-1e-5``, 1,000 objects; the
    principal submatrix finds those):
    ``benchmarks/bench_psd_search.py``, which also measures the cheaper
    ways to take the products (none keeps this power without a copy of
    the Gram; docs/performance.md). ``KernelSVM`` on a given Gram too large
    to factorise runs none of them: it certifies the block of its free
    support vectors instead (``PSD_SOLUTION_FACTORISE_MAX_N``).
PSD_SOLUTION_FACTORISE_MAX_N : int
    3000. ``KernelSVM(kernel="precomputed")`` with ``psd_check="auto"`` on
    a Gram of more than ``PSD_FACTORISE_MAX_N`` objects certifies, after the
    solve, the principal submatrix of each machine's free support vectors
    (``0 < alpha < C``), the block the solution's optimality rests on: one
    factorisation up to this many objects (exact), beyond it the principal
    submatrix and ``PSD_LANCZOS_STEPS_USER`` Lanczos steps on the block
    (``structk.learners._psd.solution_block_psd``).
WALK_DENSE_EIG_MAX_N : int
    2000. ``RandomWalk(lam="auto")`` takes the spectral radius of each graph
    of at most this many nodes from an eigendecomposition of its adjacency;
    a larger graph's is bounded by its degrees (time and memory against a
    looser bound, hence a smaller ``lam``).
NESTED_MAX_N : int
    15000. ``structk fit`` runs no inner cross-validation over a default grid
    above this many training objects: it would need the n x n Gram (1.8 GB
    at 15,000), which the learners past the Gram never form. The learner's
    default parameters are used instead (a note says so).
MAX_OVO_MACHINES : int
    1000000. Most one-vs-one machines a ``KernelSVM`` fit builds (k classes
    need k (k - 1) / 2); beyond it the fit is refused at once, with a
    message proposing ``multi_class="ovr"``, rather than run for days.
EXPLAIN_GKM_MAX_DENSE_L : int
    12. Largest ``l`` whose dense table of ``4^l`` l-mer weights the
    explainer builds for a gapped k-mer model (128 MiB at l = 12); larger
    ``l`` is refused (:func:`structk.explain.ism` still works).
MISMATCH_MEMORY_FALLBACK : int
    4 GiB (bytes). The memory a mismatch-kernel expansion may use when the
    machine's available memory cannot be read; a larger expansion is
    refused with a ``MemoryError`` naming ``m``.
GKM_MEMORY_FALLBACK : int
    4 GiB (bytes). The same for a gapped k-mer Gram.
TILE_WORK_FACTOR : int
    4. Working memory of one tile of a blockwise Gram (``structk.gram``), in
    tiles of float64 (the tile, its mirrored copy, a kernel's temporaries):
    the memory check refuses a ``block_size`` and ``n_jobs`` whose tiles
    would not fit by this margin.
"""

# ------------------------------------------------------------ learners
PRIMAL_MIN_N = 3000
PRIMAL_HINGE_MIN_N = 15_000
NYSTROEM_MIN_N = 15_000
DEFAULT_N_COMPONENTS = 1000

# ------------------------------------------------------- the SVM's path
SVM_NUMPY_MAX_N = 400
SVM_NUMPY_BUDGET = 1000
SVM_NUMPY_WORK = 2_000_000
SVM_IPM_EAGER_MAX_N = 600
SVM_IPM_MAX_N = 3000
SVM_IPM_WORK_DIVISOR = 16
SVM_IPM_AFTER = 5000
CV_SVM_WIDE_C_MAX_N = 750
CV_SVM_C_PATH = True

# ----------------------------------------------------------- PSD check
PSD_FACTORISE_MAX_N = 500
PSD_BLOCKS_CHECKED = 1
PSD_LANCZOS_STEPS = 10
PSD_LANCZOS_STEPS_CLOSED_FORM = 0
PSD_LANCZOS_STEPS_USER = 60
PSD_SOLUTION_FACTORISE_MAX_N = 3000

# -------------------------------------------------------------- kernels
WALK_DENSE_EIG_MAX_N = 2000

# --------------------------------------------------------- command line
NESTED_MAX_N = 15_000

# ------------------------------------------------- what is refused
MAX_OVO_MACHINES = 1_000_000
EXPLAIN_GKM_MAX_DENSE_L = 12
MISMATCH_MEMORY_FALLBACK = 4 * 2**30
GKM_MEMORY_FALLBACK = 4 * 2**30
TILE_WORK_FACTOR = 4
