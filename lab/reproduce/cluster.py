"""``lab reproduce --scheduler ADDRESS``: the claims measured as one sweep on a Dask cluster (issue 32).

The claims are grouped by the module that declares them (a module's claims share their expensive runs through
``profile.memo``; different modules' runs are independent), each group is one Dask task that measures its claims
with ``runner.run(..., report=False)`` -- the same function as a local run -- and writes each finished claim's file
into the output directory (the cluster's workers must see it: a shared file system, as the lab's results directory
on a cluster is).  When every task has ended, the client runs ``runner.run`` once more over all the claims: every
finished claim is read back from its file (the resume path), anything a task could not finish is measured here, and
the report is written as a local run writes it.
"""
from __future__ import annotations

import time


def groups(ids=None) -> list[list[str]]:
    """The selected claims' ids grouped by their declaring module, in report order."""
    from . import runner

    out: dict[str, list[str]] = {}
    for c in runner.select(ids):
        out.setdefault(c.measure.__module__, []).append(c.id)
    return list(out.values())


def _measure(ids, profile, out, device, dtype, data, fresh, seed=0) -> dict:
    from . import runner

    t0 = time.monotonic()
    made = runner.run(ids, profile=profile, out=out, device=device, dtype=dtype, data=data, fresh=fresh,
                      report=False, seed=seed)
    return {"ids": ids, "status": made.status, "seconds": time.monotonic() - t0,
            "errors": [r.id for r in made.results if r.status == "error"]}


def run_on_cluster(ids=None, profile: str = "quick", out=None, device: str = "auto", dtype=None, data=None,
                   fresh: bool = False, scheduler: str | None = None, progress=None, client=None,
                   seed: int = 0):
    """Measure the claims on the cluster at ``scheduler`` (or ``client``), then write the report here; returns
    the ``Report``."""
    from dask.distributed import Client, as_completed

    from ..experiments.family import progress_record
    from ..sweeps.run import CONNECT_TIMEOUT
    from ..sweeps.spec import SweepError
    from . import runner

    emit = progress or (lambda record: None)
    directory = runner.output_dir(out, profile)
    directory.mkdir(parents=True, exist_ok=True)
    parts = groups(ids)
    own = None
    if client is None:
        try:
            own = client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as err:
            raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    try:
        emit({"kind": "dashboard", "url": getattr(client, "dashboard_link", None)})
        futures = [client.submit(_measure, g, profile, str(directory.resolve()), device, dtype, data, fresh, seed,
                                 key=f"reproduce-{g[0]}-{time.time_ns()}", pure=False) for g in parts]
        done = 0
        emit(progress_record(0, len(parts), f"{len(parts)} groups of claims on the cluster"))
        for fut in as_completed(futures):
            done += 1
            try:
                r = fut.result()
                message = f"{', '.join(r['ids'])}: {r['status']}"
            except Exception as err:  # a lost worker: the client measures these claims itself below
                message = f"a group failed on the cluster ({type(err).__name__}); measured here"
            emit(progress_record(done, len(parts), message))
    finally:
        if own is not None:
            own.close()
    return runner.run(ids, profile=profile, out=directory, device=device, dtype=dtype, data=data, fresh=False,
                      progress=None, seed=seed)
