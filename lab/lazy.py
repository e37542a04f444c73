"""Public names of a package loaded on first use (PEP 562), so that importing its light modules (configs,
defaults) does not import torch: ``__getattr__, __dir__ = lazy_exports(__name__, {"Trainer": "train"})``."""
from __future__ import annotations

import importlib
import sys
import types


def lazy_exports(package: str, names: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps a public name to the submodule that
    defines it (``"module:attr"`` when it is named differently there); the first access imports the submodule and
    keeps the value in the package."""

    def __getattr__(name: str):
        if name in names:
            module, _, attr = names[name].partition(":")
            value = getattr(importlib.import_module(f"{package}.{module}"), attr or name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(names))

    _keep_shadowed(package, {n for n, where in names.items() if where.partition(":")[0] == n
                             and where.partition(":")[2] in ("", n)})
    return __getattr__, __dir__


def _keep_shadowed(package: str, shadowed: set[str]) -> None:
    """A public name that is also the name of the submodule defining it (``lab.ensembles.train``, the function in
    ``train.py``) stays the public object: the import system sets the package's attribute to the submodule on its
    first import, and the package's module class puts the object of that name back (as an eager
    ``from .train import train`` did)."""
    if not shadowed:
        return

    class Package(types.ModuleType):
        def __setattr__(self, name, value):
            if name in shadowed and isinstance(value, types.ModuleType) and value.__name__ == f"{package}.{name}":
                value = getattr(value, name)
            super().__setattr__(name, value)

    sys.modules[package].__class__ = Package
