"""``python -m structk.cli``: the ``structk`` command."""

import sys

from . import main

sys.exit(main())
