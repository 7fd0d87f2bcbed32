"""``python -m structk``: the ``structk`` command (see ``structk --help``)."""

import sys

from .cli import main

sys.exit(main())
