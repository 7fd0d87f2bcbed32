"""How much memory the machine can give (a leaf: the standard library only).

Callers look :func:`available_memory` up in this module at call time
(``_memory.available_memory()``), so that a test can pretend the machine is
small by patching it here.
"""

from __future__ import annotations

import os


def available_memory():
    """Bytes the OS can give without swapping (Linux MemAvailable), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
