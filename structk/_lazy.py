"""Lazy attribute loading for package namespaces (PEP 562).

``import structk`` must stay cheap: scikit-learn, scipy, numba and hypothesis
together take over a second to import, and numba must not compile anything
at import time. Packages therefore name their public attributes here and the
defining module is imported on first access.
"""

from __future__ import annotations

import importlib


def attach(package_name: str, submodules: dict[str, list[str]], subpackages=()):
    """Return ``(__getattr__, __dir__, __all__)`` for a lazily loaded package.

    Parameters
    ----------
    package_name : str
        ``__name__`` of the package doing the attaching.
    submodules : dict
        Maps a module path relative to the package (e.g. ``".kernels.vectors"``)
        to the public names it defines.
    subpackages : sequence of str
        Public submodules reachable as attributes (``structk.kernels`` after
        a plain ``import structk``), imported on first access.
    """
    where = {}
    for module, names in submodules.items():
        for name in names:
            if name in where:
                raise RuntimeError(f"{package_name}.{name} is exported twice")
            where[name] = module
    public = sorted(where)
    subpackages = frozenset(subpackages)

    def __getattr__(name):
        if name in subpackages:
            return importlib.import_module(f"{package_name}.{name}")
        try:
            module = where[name]
        except KeyError:
            raise AttributeError(f"module {package_name!r} has no attribute {name!r}") from None
        return getattr(importlib.import_module(module, package_name), name)

    def __dir__():
        return sorted(set(public) | subpackages)

    return __getattr__, __dir__, public
