"""Benchmark: sweeps on Dask (issue 32), each figure against a baseline measured in the same run.

    python bench/sweeps.py [--sizes 1000,10000,100000] [--points 32] [--out bench/results/sweeps.json]

1. **Client memory and index filtering against the sweep's size** -- sweeps of ``--sizes`` trivial points (the
   machinery only: each task returns its row at once, ``run_sweep(task=...)``) on a 2-worker LocalCluster: the
   client's peak resident memory above its baseline before the sweep (``psutil``, sampled every 50 ms), the seconds
   per point, and the time to filter the index (``aggregate.select`` on two axes, then ``aggregate``) -- how they grow.
2. **Workers** -- a ``--points``-point sweep of short dynamics runs with 1 and with 2 workers (same run, same points,
   fresh stores): the seconds each, and the ratio.
3. **Per-task overhead** -- the same short dynamics points run by calling ``run_point`` directly in this process,
   against the 1-worker sweep: (sweep seconds - direct seconds) / points.

Measured on this shared 2-core CPU (a helper's tests running beside it): 1 000 / 10 000 / 100 000 trivial points took
2.1 / 3.0 / 3.2 ms a point (the scheduler's own cost on two cores), the client's peak memory above its start 38 / 35 /
72 MB (the window of futures and one buffer of rows, not the sweep), reading the compacted index 0.004 / 0.03 /
0.14 s, filtering it on two axes and aggregating 3.3 / 3.8 / 13 ms; validating every point 0.9 / 0.5 / 5.3 s.  32 dynamics
points of 400 steps (about 0.5 s each), machine otherwise idle: 1 worker 17.2 s, 2 workers 10.2 s (1.69x), called
directly in one process 16.3 s, so the scheduler, the result's trip and the index cost 29 ms a task.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def trivial(experiment, settings, point, store_root, axes):
    import time as _t

    return {"point": point, "status": "done", "error": None, "run": None, "seconds": 0.0, "finished": _t.time(),
            "worker": "bench", "settings": None, "summary": None, **{f"x.{a}": settings.get(a) for a in axes},
            "s.value": float(settings.get("seed", 0) % 7)}


class Peak:
    def __init__(self):
        import psutil

        self.proc, self.peak, self.stop = psutil.Process(), 0, False
        self.base = self.proc.memory_info().rss
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop:
            self.peak = max(self.peak, self.proc.memory_info().rss)
            time.sleep(0.05)

    def done(self) -> float:
        self.stop = True
        self.t.join()
        return (self.peak - self.base) / 2**20


def machinery(sizes, client) -> list[dict]:
    from lab.sweeps import SweepStore, parse_sweep
    from lab.sweeps.aggregate import aggregate, select
    from lab.sweeps.run import run_sweep

    out = []
    for n in sizes:
        # bounds points: the cheapest config to validate; 4 models x widths x seeds = n points
        spec = parse_sweep({"experiment": "bound", "grid": {"model": ["mlp", "cnn"], "width": [4, 8]},
                            "seeds": n // 4})
        root = Path(tempfile.mkdtemp(prefix="sweepbench-"))
        t0 = time.perf_counter()
        spec.validate()
        validate = time.perf_counter() - t0
        peak = Peak()
        t0 = time.perf_counter()
        res = run_sweep(spec, SweepStore(root), client=client, task=trivial, window=2000)
        seconds = time.perf_counter() - t0
        mb = peak.done()
        store = SweepStore(root)
        t0 = time.perf_counter()
        df = store.frame()
        read = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(5):
            sub = select(df, {"model": ["cnn"], "width": [8]})
            agg = aggregate(df, "width", "value", "model", {"model": ["cnn", "mlp"]})
        filt = (time.perf_counter() - t0) / 5
        row = {"points": n, "done": res.done, "validate_s": validate, "sweep_s": seconds, "per_point_ms":
               1e3 * seconds / n, "client_peak_mb": mb, "index_parts": len(store.parts()), "read_index_s": read,
               "filter_s": filt, "selected": len(sub), "groups": len(agg)}
        print(json.dumps(row), flush=True)
        out.append(row)
        shutil.rmtree(root, ignore_errors=True)
    return out


def workers(points: int, steps: int) -> dict:
    from dask.distributed import Client, LocalCluster

    from lab.sweeps import SweepStore, parse_sweep
    from lab.sweeps.run import run_sweep
    from lab.sweeps.task import run_point
    from lab.sweeps.spec import point_id

    spec = parse_sweep({"experiment": "dynamics", "fixed": {"experiment": "custom", "runs": 1, "steps": steps,
                                                            "scale": "demo", "group": "S(4)"},
                        "grid": {"strategies": ["nom", "equi"]}, "seeds": points // 2})
    out = {}
    for n in (1, 2):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
        client.submit(run_point, spec.experiment, next(spec.points()), "warm", tempfile.mkdtemp(), []).result()
        root = Path(tempfile.mkdtemp(prefix="sweepbench-"))
        t0 = time.perf_counter()
        res = run_sweep(spec, SweepStore(root), client=client)
        out[f"{n}_workers_s"] = time.perf_counter() - t0
        assert res.done == points, res.summary()
        client.close()
        cluster.close()
        shutil.rmtree(root, ignore_errors=True)
        print(f"{n} worker(s): {out[f'{n}_workers_s']:.1f} s for {points} points", flush=True)
    root = Path(tempfile.mkdtemp(prefix="sweepbench-"))
    import torch

    torch.set_num_threads(1)
    run_point(spec.experiment, next(spec.points()), "warm", str(root), [])
    t0 = time.perf_counter()
    for s in spec.points():
        run_point(spec.experiment, s, point_id(s), str(root), spec.axis_names)
    out["direct_s"] = time.perf_counter() - t0
    out["speedup_2_over_1"] = out["1_workers_s"] / out["2_workers_s"]
    out["overhead_ms_per_task"] = 1e3 * (out["1_workers_s"] - out["direct_s"]) / points
    shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(out), flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--points", type=int, default=32)
    ap.add_argument("--steps", type=int, default=400, help="steps of each dynamics point (about 0.5 s each)")
    ap.add_argument("--part", choices=("all", "machinery", "workers"), default="all")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "sweeps.json"))
    args = ap.parse_args(argv)
    from dask.distributed import Client, LocalCluster

    result = {}
    if args.part in ("all", "machinery"):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
        result["machinery"] = machinery([int(v) for v in args.sizes.split(",")], client)
        client.close()
        cluster.close()
    if args.part in ("all", "workers"):
        result["workers"] = workers(args.points, args.steps)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
