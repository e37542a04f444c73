"""``lab reproduce --scheduler ADDRESS``: the claims measured as one sweep on a Dask cluster (issue 32).

The claims are grouped by the module that declares them (a module's claims share their expensive runs through
``profile.memo``; different modules' runs are independent), each group is one Dask task that measures its claims
with ``runner.run(..., report=False)`` -- the same function as a local run -- and writes each finished claim's file
into the output directory (the cluster's workers must see it: a shared file system, as the lab's results directory
on a cluster is).  When every task has ended, the client runs ``runner.run`` once more over all the claims: every
finished claim is read back from its file (the resume path), anything a task could not finish is measured here, and
the report is written as a local run writes it.

``lab reproduce --workers N`` (the default: one per core) measures the same groups on ``N`` processes of this
machine (``run_local``: a ``LocalCluster`` of one-thread workers), the largest groups first.  Every claim computes on
one torch thread whichever way it runs (``runner.run``), so a seed gives the same numbers serially and in parallel.
"""
from __future__ import annotations

import os
import time


def groups(ids=None) -> list[list[str]]:
    """The selected claims' ids grouped by their declaring module (a module that reads another's shared runs names
    it as ``SHARES_RUNS_WITH`` and joins its group), in report order."""
    import sys

    from . import runner

    out: dict[str, list[str]] = {}
    for c in runner.select(ids):
        module = c.measure.__module__
        out.setdefault(getattr(sys.modules[module], "SHARES_RUNS_WITH", module), []).append(c.id)
    return list(out.values())


def expected_seconds(group, profile: str) -> float:
    """The seconds a group of claims is expected to take under ``profile`` (each claim's declared estimate)."""
    from . import runner

    return float(sum(c.seconds.get(profile, runner.DEFAULT_SECONDS) for c in runner.select(group)))


def _measure(ids, profile, out, device, dtype, data, fresh, seed=0, run_id="") -> dict:
    from . import runner

    t0 = time.monotonic()
    made = runner.run(ids, profile=profile, out=out, device=device, dtype=dtype, data=data, fresh=fresh,
                      report=False, seed=seed, run_id=run_id)
    return {"ids": ids, "status": made.status, "seconds": time.monotonic() - t0,
            "errors": [r.id for r in made.results if r.status == "error"]}


def run_on_cluster(ids=None, profile: str = "quick", out=None, device: str = "auto", dtype=None, data=None,
                   fresh: bool = False, scheduler: str | None = None, progress=None, client=None,
                   seed: int = 0, control=None):
    """Measure the claims on the cluster at ``scheduler`` (or ``client``), then write the report here; returns
    the ``Report``.  ``control`` (a ``lab.control.Control``): a stop cancels the groups not yet finished, and the
    report holds the claims that did."""
    from dask.distributed import Client

    from ..control import progress_record
    from ..sweeps.run import CONNECT_TIMEOUT
    from ..sweeps.spec import SweepError
    from . import runner

    t0 = time.perf_counter()
    run_id = f"{time.time_ns():x}-{os.getpid()}"  # the claims this run measures are read back as measured, not kept
    runner.check_request(profile, device, data)  # refused here, before a worker is asked
    emit = progress or (lambda record: None)
    directory = runner.output_dir(out, profile)
    directory.mkdir(parents=True, exist_ok=True)
    # each group's expected seconds, read once; the largest groups first, so that the last to finish is a short one
    weighted = sorted(((expected_seconds(g, profile), g) for g in groups(ids)), key=lambda wg: -wg[0])
    parts = [g for _, g in weighted]
    total = max(int(round(sum(w for w, _ in weighted))), 1)
    if fresh:  # measured again: a group that fails must not leave an earlier run's file to be read back
        for g in parts:
            for cid in g:
                runner._claim_file(directory, cid).unlink(missing_ok=True)
    own = None
    if client is None:
        try:
            own = client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as err:
            raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    try:
        emit({"kind": "dashboard", "url": getattr(client, "dashboard_link", None)})
        futures = {client.submit(_measure, g, profile, str(directory.resolve()), device, dtype, data, fresh, seed,
                                 run_id, key=f"reproduce-{g[0]}-{time.time_ns()}", pure=False): w for w, g in weighted}
        done, busy = 0.0, 0.0
        workers = len(client.scheduler_info()["workers"])
        emit(progress_record(0, total, f"{len(parts)} groups of claims on {workers} workers"))
        pending = set(futures)
        while pending:
            if control is not None and control.stopped:
                client.cancel(list(pending))
                break
            finished = {f for f in pending if f.done()}
            if not finished:
                time.sleep(0.25)
                continue
            pending -= finished
            for fut in finished:
                done += futures[fut]
                try:
                    r = fut.result()
                    busy += r["seconds"]
                    message = f"{', '.join(r['ids'])}: {r['status']}"
                except Exception as err:  # a lost worker: the client measures these claims itself below
                    message = f"a group failed on the cluster ({type(err).__name__}); measured here"
                emit(progress_record(int(done), total, message))
    finally:
        if own is not None:
            own.close()
    made = runner.run(ids, profile=profile, out=directory, device=device, dtype=dtype, data=data, fresh=False,
                      progress=None, control=control, seed=seed, report=False, run_id=run_id)
    made.process_seconds = busy + made.seconds  # the workers' seconds and this process's reading back
    made.seconds = time.perf_counter() - t0  # the report's header states the whole run's seconds
    made.workers = max(workers, 1)
    from .report import write_report

    write_report(made)
    return made


def default_workers(ids=None) -> int:
    """``--workers auto``: a process per core this process may run on, no more than there are groups of claims."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, len(groups(ids))))


def run_local(ids=None, profile: str = "quick", out=None, device: str = "auto", dtype=None, data=None,
              fresh: bool = False, workers: int = 2, progress=None, control=None, seed: int = 0):
    """The groups of claims measured by ``workers`` processes on this machine (a Dask ``LocalCluster`` of
    one-thread workers, no dashboard), then the report written here; returns the ``Report``."""
    import logging

    from dask.distributed import Client

    from ..sweeps.run import local_cluster
    from . import runner

    runner.check_request(profile, device, data)  # a bad request is refused before a process starts
    # no dashboard; the scheduler's HTTP routes on a free port rather than 8787 (a user's own cluster may hold it)
    cluster = local_cluster(int(workers), 1, dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"},
                            silence_logs=logging.ERROR)
    try:
        with Client(cluster) as client:
            return run_on_cluster(ids, profile=profile, out=out, device=device, dtype=dtype, data=data, fresh=fresh,
                                  progress=progress, client=client, seed=seed, control=control)
    finally:
        cluster.close()
