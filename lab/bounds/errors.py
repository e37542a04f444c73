"""The bounds package's error: bad input to the compression-bound machinery (a ``LabError``)."""
from __future__ import annotations

from ..errors import LabError


class BoundsError(LabError, ValueError):
    """Bad input to ``lab.bounds`` (a projector, a code, a bound's arguments)."""
