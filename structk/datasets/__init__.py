"""Dataset readers and the small data sets bundled with structk."""

from .._lazy import attach

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".bundled": ["bundled_path", "load_moons"],
    },
)
