"""Run a function once a module has been imported, without importing it: ``after_import("gymnasium", f)``.

``import war_env`` registers its env ids with Gymnasium, but the game core (``war_env.core``) must import
without Gymnasium, and importing any ``war_env`` module runs ``war_env/__init__.py`` first. So the package
registers at once when Gymnasium is already loaded, and otherwise leaves a finder on ``sys.meta_path`` that
registers right after Gymnasium's own import finishes, whichever of the two the user imports first
(Gymnasium 1.x loads no entry-point plugins, so it cannot ask for the registration itself).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable


def after_import(module: str, callback: Callable[[], None]) -> None:
    """``callback()`` now if ``module`` is imported, else once, right after it is (nothing is imported here)."""
    if module in sys.modules:
        callback()
    else:
        sys.meta_path.insert(0, _CallAfterImport(module, callback))


class _CallAfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: on the import of ``module`` it steps aside (once), lets the other finders find the
    module, and wraps their loader so that ``callback`` runs after the module's code."""

    def __init__(self, module: str, callback: Callable[[], None]):
        self.module, self.callback = module, callback

    def find_spec(self, fullname, path, target=None):
        if fullname != self.module:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenCall(spec.loader, self.callback)
        return spec


class _ThenCall(importlib.abc.Loader):
    def __init__(self, loader, callback: Callable[[], None]):
        self.loader, self.callback = loader, callback

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__loader__ = module.__spec__.loader = self.loader  # the module keeps the loader that found it
        self.loader.exec_module(module)
        self.callback()

    def __getattr__(self, name):
        return getattr(self.loader, name)
