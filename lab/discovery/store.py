"""Saving and reloading ``lab discover-lie`` runs: ``config.json`` (``config``, ``status``, ``summary``: the ``--json``
object) + ``generators.npz`` (the learned generators of the input, ``A``, and of the output, ``B``, stacked: (k, n, n)).
``RUNS`` declares them; writing, naming, listing and checking are ``lab.runstore``'s."""
from __future__ import annotations

from .. import runstore

RUNS = runstore.RunKind("discovery",
                        arrays=(runstore.Arrays("generators.npz", (("A", 3), ("B", 3)), compressed=False),),
                        label=lambda c: f"{c.get('task', '')}-{c.get('method', '')}")
