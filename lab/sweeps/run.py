"""Running a sweep on Dask distributed (``run_sweep``): a ``LocalCluster`` on this machine by default, an existing
cluster when a scheduler address is given -- never a scheduler of the lab's own.

Points are validated (``SweepSpec.validate``) before anything runs, then submitted in bounded batches: at most
``window`` tasks are in flight, more are submitted as ``as_completed`` hands back finished ones, and finished rows are
written to the store's index as they come (every ``flush_rows`` rows or ``flush_seconds``), so the client never
holds the whole sweep and a killed worker or client loses only unfinished tasks; at the end the index's parts are
merged into one.  Points already done in the store
are skipped (resume); failed ones are rerun only with ``retry_failed``.  A point whose ``device`` option asks for
CUDA requests the worker resource ``GPU=1`` (a local cluster declares the GPUs it sees).  Each worker writes its
points' run directories under the store itself, so on a cluster the store must be on a file system every worker
sees; the index is the client's alone.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from .spec import SweepError, SweepSpec, point_id
from .store import SweepStore
from .task import needs_gpu, run_point


#: how long connecting to a scheduler may take before the sweep is refused (one line)
CONNECT_TIMEOUT = "10s"


@dataclass
class SweepOutcome:
    done: int = 0  # points finished in this run
    failed: int = 0  # points that failed in this run
    skipped: int = 0  # points already done in the store (or failed, without retry_failed)
    store: str = ""
    points: int = 0
    dashboard: str | None = None
    seconds: float = 0.0
    errors: list = field(default_factory=list)  # (point, one line) of this run's failures, the first few

    def summary(self) -> dict:
        """The ``lab sweep --json`` object: ``done``, ``failed``, ``skipped``, ``store`` (a contract), plus
        ``points``, ``dashboard``, ``seconds``, ``errors``."""
        return {"done": self.done, "failed": self.failed, "skipped": self.skipped, "store": self.store,
                "points": self.points, "dashboard": self.dashboard, "seconds": self.seconds,
                "errors": [{"point": p, "error": e} for p, e in self.errors]}


#: what Dask's nanny sets in a worker's environment before it starts (``distributed.nanny.pre-spawn-environ``), less
#: its ``MALLOC_TRIM_THRESHOLD_=65536``: glibc then hands freed memory back to the system at every 64 KB, and
#: torch's small tensors of a training loop are allocated afresh each step: measured on 2 cores, the dynamics
#: Perm training of ``lab reproduce`` (3 runs) took 35.8 s under that setting against 16.5 s without it
WORKER_ENVIRON = {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1}


def local_cluster(n_workers: int, threads_per_worker: int = 1, **kw):
    """A Dask ``LocalCluster`` of worker processes with ``WORKER_ENVIRON`` (one BLAS/OpenMP thread each, glibc's
    own trim threshold)."""
    import dask
    from dask.distributed import LocalCluster

    with dask.config.set({"distributed.nanny.pre-spawn-environ": dict(WORKER_ENVIRON)}):
        return LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True, **kw)


def _local_gpus() -> int:
    try:
        import torch

        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception:
        return 0


def run_sweep(spec: SweepSpec, store: SweepStore, *, text: str | None = None, scheduler: str | None = None,
              workers: int | None = None, threads_per_worker: int = 1, retry_failed: bool = False,
              window: int | None = None, flush_rows: int = 500, flush_seconds: float = 5.0, progress=None,
              client=None, task=None) -> SweepOutcome:
    """Run every point of ``spec`` not yet done in ``store``; ``progress(record)`` receives ``{"kind":
    "progress", "done", "total", "message", "running", "failed"}`` and a ``{"kind": "dashboard", "url"}`` first.
    ``client``: an existing ``dask.distributed.Client`` (tests, notebooks); else one is made and closed here.
    ``task``: the function each point runs (default ``run_point``; ``bench/sweeps.py`` times the machinery with a
    trivial one)."""
    from dask.distributed import Client, as_completed

    emit = progress or (lambda record: None)
    total = spec.validate()
    if text is not None:
        store.write_spec(text)
    store.root.mkdir(parents=True, exist_ok=True)
    states = store.states()
    axes = spec.axis_names
    out = SweepOutcome(store=str(store.root), points=total)
    t0 = time.monotonic()

    def pending():
        for settings in spec.points():
            pid = point_id(settings)
            state = states.get(pid)
            if state == "done" or (state == "failed" and not retry_failed):
                out.skipped += 1
                continue
            yield pid, settings

    own_cluster = None
    if client is None:
        if scheduler:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as err:
                raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
        else:
            gpus = _local_gpus()
            own_cluster = local_cluster(workers or 2, threads_per_worker, dashboard_address=":0",
                                        resources={"GPU": gpus} if gpus else None)
            client = Client(own_cluster)
    closing = client if (own_cluster is not None or scheduler) else None
    try:
        out.dashboard = client.dashboard_link if hasattr(client, "dashboard_link") else None
        emit({"kind": "dashboard", "url": out.dashboard})
        info = client.scheduler_info()
        slots = sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()) or 1
        has_gpu = any(w.get("resources", {}).get("GPU") for w in info.get("workers", {}).values())
        window = window or max(4 * slots, 8)
        todo = pending()
        ac = as_completed()
        running, buffer, last_flush = 0, [], time.monotonic()

        def submit_next() -> bool:
            nonlocal running
            try:
                pid, settings = next(todo)
            except StopIteration:
                return False
            family = spec.family(settings)
            gpu = needs_gpu(settings, family)
            if gpu and not has_gpu:
                raise SweepError(f"point {pid} asks for CUDA (device {settings.get('device')}) but no Dask worker "
                                 f"has a GPU resource (start workers with --resources GPU=1)")
            fut = client.submit(task or run_point, spec.experiment, settings, pid, str(store.root.resolve()), axes,
                                key=f"sweep-{pid}-{time.time_ns()}", pure=False,
                                resources={"GPU": 1} if gpu else None)
            ac.add(fut)
            running += 1
            return True

        for _ in range(window):
            if not submit_next():
                break
        finished_here = 0

        def flush(force=False):
            nonlocal buffer, last_flush
            if buffer and (force or len(buffer) >= flush_rows or time.monotonic() - last_flush >= flush_seconds):
                store.append(buffer)
                buffer, last_flush = [], time.monotonic()

        emit(_progress(out, total, running, t0))
        for fut in ac:
            running -= 1
            try:
                row = fut.result()
            except Exception as err:  # the worker died or the task could not run: the point failed, the sweep goes on
                pid = fut.key.split("-")[1] if isinstance(fut.key, str) else "?"
                row = {"point": pid, "status": "failed", "error": f"{type(err).__name__}: {err}"[:500],
                       "finished": time.time()}
            buffer.append(row)
            if row["status"] == "done":
                out.done += 1
            else:
                out.failed += 1
                if len(out.errors) < 20:
                    out.errors.append((row["point"], row.get("error")))
            finished_here += 1
            fut.release()
            flush()
            submit_next()
            emit(_progress(out, total, running, t0))
        flush(force=True)
        store.compact()  # one part: filtering the index stays one read however long the sweep ran
    finally:
        if closing is not None:
            closing.close()
        if own_cluster is not None:
            own_cluster.close()
    out.seconds = time.monotonic() - t0
    return out


def _progress(out: SweepOutcome, total: int, running: int, t0: float) -> dict:
    from ..control import progress_record

    done = out.done + out.failed + out.skipped
    rec = progress_record(done, total, f"{out.done} done · {running} running · {out.failed} failed"
                                       + (f" · {out.skipped} skipped" if out.skipped else ""))
    rec.update(running=running, failed=out.failed, elapsed=time.monotonic() - t0)
    return rec
