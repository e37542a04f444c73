"""One sweep point, as a Dask task runs it: the family's own ``run`` and ``save`` -- the same functions as the
command line and the panes, no second code path."""
from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path


def run_point(experiment: str, settings: dict, point: str, store_root: str, axes: list) -> dict:
    """Run one point and save its run under ``STORE/runs``; returns its index row (never raises for the point's
    own failure: a failed point is a row with ``status`` failed and its one-line ``error``)."""
    from ..sweeps.spec import SweepSpec
    from ..sweeps.store import NUMBERED, RUNS, summary_columns

    import torch

    torch.set_num_threads(1)  # the sweep's parallelism is its tasks: one compute thread each (lab/threads.py's lesson)
    t0 = time.monotonic()
    row = {"point": point, "settings": json.dumps(settings, default=str), "worker": f"{socket.gethostname()}:"
           f"{os.getpid()}", **{f"x.{a}": settings.get(a) for a in axes}}
    try:
        spec = SweepSpec(experiment)
        family = spec.family(settings)
        config = spec.config(settings)
        result = family.run(config)
        summary = family.summary(result)
        run = None
        if family.save is not None:
            path = Path(family.save(result, Path(store_root) / RUNS))
            run = str(path.relative_to(store_root)) if path.is_relative_to(store_root) else str(path)
        from ..runstore import to_json

        summary = to_json(summary)
        row.update(status="done", error=None, run=run, summary=json.dumps(summary, allow_nan=False),
                   **summary_columns(summary, family))
        row[NUMBERED] = True
    except Exception as err:  # the point's failure, kept as its row; the sweep goes on
        text = " ".join(str(err).split()) or type(err).__name__
        row.update(status="failed", error=f"{type(err).__name__}: {text}"[:500], run=None, summary=None)
    row.update(seconds=time.monotonic() - t0, finished=time.time())
    return row


def needs_gpu(settings: dict, family) -> bool:
    """A point whose family's ``device`` option asks for CUDA (``cuda`` or ``cuda:N``)."""
    try:
        family.config.option_named("device")
    except KeyError:
        return False
    return str(settings.get("device", "")).lower().startswith("cuda")
