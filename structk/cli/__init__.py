"""The ``structk`` command line.

==============  ============================================================
module          what
==============  ============================================================
``commands``    the argument parser and the sub-commands
``inputs``      readers for FASTA, token-set files, TU folders and CSV
``spec``        the safe parser of kernel and learner expressions
``evaluation``  Gram matrices with progress, cross-validation of kernels x
                learners on precomputed Grams, result tables
``demo``        ``structk demo``: the main job on the bundled data
==============  ============================================================
"""


def main(argv=None):
    """Run the ``structk`` command (see ``structk --help``); returns the exit code."""
    from .commands import main as _main

    return _main(argv)
