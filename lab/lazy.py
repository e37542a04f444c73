"""Public names of a package loaded on first use (PEP 562), so that importing its light modules (configs,
defaults) does not import torch: ``__getattr__, __dir__ = lazy_exports(__name__, {"Trainer": "train"})``."""
from __future__ import annotations

import importlib
import sys


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

    return __getattr__, __dir__
