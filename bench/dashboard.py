"""Benchmark: the dashboard -- Basis explorer latency, live drawing while training, frame cost, contention.

    python bench/dashboard.py [--part basis|training|sharing|frames|contention|all] [--repeats 9]
                              [--out bench/results/dashboard.json] [-- contention options]

For each case (a cached basis with at most 10^4 weight-matrix entries) the size control is toggled
between two values whose bases are both cached, and the time from the parameter change to the pane
having its new plot is measured, in two modes:

* ``data``   -- the pane is not attached to a document: basis lookup, ColoringData, HoloViews objects,
                information card (the issue's "plot data ready");
* ``models`` -- the pane is attached to a Bokeh Document, so the same change also builds the Bokeh
                models Panel sends to the browser.

Baseline, measured in the same run: the same change with the basis cache switched off (a cold solve).
Reported: medians over ``--repeats`` changes, and the ratio cold / cached.  Target: under 300 ms.

Part ``training`` (``--part training``): the Training dynamics pane's live redraw rate and the training speed,
with the job in a worker thread and in a worker process.  The same dynamics config is trained for ``--seconds``
of training (after its build) in these ways, interleaved over ``--rounds`` rounds:

* ``headless``         -- the ``lab.jobs.Job`` alone, its messages drained every 200 ms (as a script would);
* ``pane``             -- the pane attached to a Bokeh Document (its redraws build the Bokeh models a browser
                          would get), polled every ``runner.PERIOD_MS`` like the server's periodic callback,
                          with the pane's redraw throttle for that mode (``REDRAW_SECONDS``: today every tick in
                          both; drawing at most ``DRAW_SHARE`` of the event loop);
* ``pane, every tick`` -- (``--every-tick``) a thread job's pane redrawing on every tick whatever its throttle.

Jobs compute on ``--threads`` torch threads (the panes' ``WORKER_THREADS``); a thread job with torch's default
(one per core: what a server that sets nothing gives it) is measured too.  The config is ``--runs`` (30) runs x all
four strategies.  Reported: redraws/s while training (the pane's draw callbacks), training steps/s (the job's rate,
build and paused time excluded), the median frame cost, and the slowdown against headless with the same job kind
in the same round.  Targets: at least 4 redraws/s while training, training slowed under 10 %.

Part ``sharing``: the same for the Sharing discovery pane (its default conv task, in a worker process -- the
pane's default -- and a thread; the pane polled every ``FRAME_MS`` with its matrices, reading and streamed
curves), against the same job headless.

Then the cost of one live frame with 100, 1 000 and 10 000 steps recorded (``--part frames`` alone): one new
step of 30 runs x 4 strategies streamed into the pane's live-pane base, the document changes encoded as the
server sends them (their size reported), and the finished view's cost.  Target: flat (at most 2x from 100 to
10 000 steps).

Part ``contention`` runs ``bench/contention.py`` (its options after ``--``): a CPU run idle and beside busy
processes.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["LAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="lab-bench-cache-")

from bokeh.document import Document  # noqa: E402

CASES = [  # (label, fixed controls, the control that changes, its two values); all <= 10^4 entries
    ("graph layer S(n) T(2)->T(2), n 9<->10", dict(group="S(n)", rep_in="T(2)", rep_out="T(2)"), "n", (9, 10)),
    ("2-D conv Z(n)*Z(n) V->V, n 9<->10", dict(group="Z(n)*Z(n)", rep_in="V", rep_out="V"), "n", (9, 10)),
    ("GCNN(n) V->V, n 4<->5", dict(group="GCNN(n)", rep_in="V", rep_out="V"), "n", (4, 5)),
    ("Rubik's cube (Scalar+)V->V", dict(group="RubiksCube()", rep_out="V"), "rep_in", ("V", "Scalar+V")),
    ("SO(n) T(2)->T(2), n 3<->4", dict(group="SO(n)", rep_in="T(2)", rep_out="T(2)"), "n", (3, 4)),
    ("O13() T(2)<->V -> T(2)", dict(group="O13()", rep_out="T(2)"), "rep_in", ("T(2)", "V")),
    ("SO(3) T(3)<->T(4) -> T(4)", dict(group="SO(n)", n=3, rep_out="T(4)"), "rep_in", ("T(3)", "T(4)")),
]
TARGET = 0.300


def _changes(case):
    """The two parameter updates that toggle a case between its two cached states."""
    _, controls, name, values = case
    return [dict(controls, **{name: v}) for v in values]


def _time_changes(explorer, changes, repeats, cold=False):
    from lab.solvers import cache

    times = []
    for i in range(repeats):
        if cold:
            cache.clear_memory()
        t0 = time.perf_counter()
        explorer.param.update(**changes[i % 2])
        times.append(time.perf_counter() - t0)
        if explorer._error.visible:
            raise RuntimeError(explorer._error.object)
    return statistics.median(times)


def basis_part(args) -> list[dict]:
    from lab.basis.pane import BasisExplorer

    detached = BasisExplorer(preset="Custom")
    attached = BasisExplorer(preset="Custom")
    attached.__panel__().get_root(Document())
    rows = []
    for case in CASES:
        changes = _changes(case)
        entries = 0
        for ex in (detached, attached):  # warm the caches and the code paths
            for c in changes:
                ex.param.update(**c)
                entries = max(entries, ex._result[0].dim)
        assert entries <= 10_000, entries
        data_s = _time_changes(detached, changes, args.repeats)
        models_s = _time_changes(attached, changes, args.repeats)
        os.environ["LAB_CACHE_DIR"] = "off"
        cold_s = _time_changes(detached, changes, max(3, args.repeats // 3), cold=True)
        os.environ["LAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="lab-bench-cache-")
        row = dict(case=case[0], entries=entries, data_ms=1000 * data_s, models_ms=1000 * models_s,
                   cold_ms=1000 * cold_s, cold_over_cached=cold_s / data_s, target_ms=1000 * TARGET,
                   ok=models_s < TARGET)
        rows.append(row)
        print(f"{row['case']:<40} entries {entries:>6}  data {row['data_ms']:7.1f} ms  +models "
              f"{row['models_ms']:7.1f} ms  cold {row['cold_ms']:8.1f} ms  (x{row['cold_over_cached']:.1f})  "
              f"{'OK' if row['ok'] else 'OVER'}", flush=True)
    return rows


# ---------------------------------------------------------------------- part "training"
REDRAW_TARGET = 4.0  # redraws per second while training
SLOWDOWN_TARGET = 0.10  # training slowed by less than this with the pane open
FLAT_TARGET = 2.0  # a live frame at 10 000 recorded steps costs at most this times one at 100


def _training_config(args):
    from lab.dynamics.config import DynamicsConfig

    return DynamicsConfig(experiment=args.experiment, runs=args.runs, strategies=STRATEGIES, steps=10_000_000,
                          device="cpu").validate()


def _until_running(job, tick, seconds_limit=300.0):
    deadline = time.monotonic() + seconds_limit
    while job.state == "building" and time.monotonic() < deadline:
        tick()
    if job.state not in ("running", "paused"):
        raise RuntimeError(f"the job did not start training: {job.state} {job.final}")


def _headless_job(job, args, period: float) -> dict:
    """``job`` alone, its messages drained every ``period`` seconds (its pane's period): steps/s over
    ``args.seconds`` of training."""
    job.start()

    def tick():
        job.drain()
        time.sleep(period)

    try:
        _until_running(job, tick)
        t0 = time.monotonic()
        while time.monotonic() - t0 < args.seconds:
            tick()
        return {"steps_per_s": job.rate, "steps": job.done, "redraws_per_s": None, "draw_ms": None}
    finally:
        job.stop()
        job.join(60)


def _pane_job(pane, draw: str, args, period: float) -> dict:
    """``pane`` attached to a Document and started, polled every ``period`` seconds like the server's periodic
    callback (a Tornado PeriodicCallback: fixed period, missed ticks skipped), its ``draw`` method timed:
    redraws/s, the median draw and steps/s over ``args.seconds`` of training."""
    pane.__panel__().get_root(Document())
    costs, original = [], getattr(pane, draw)

    def timed(*a, **kw):
        t = time.perf_counter()
        original(*a, **kw)
        costs.append(time.perf_counter() - t)

    setattr(pane, draw, timed)
    next_tick = [time.monotonic()]

    def tick():
        pane.poll()
        next_tick[0] += period
        now = time.monotonic()
        if next_tick[0] < now:
            next_tick[0] = now
        time.sleep(next_tick[0] - now)

    if not pane.start():
        raise RuntimeError(pane._error.object)
    job = pane.runner.job
    _until_running(job, tick)
    t0, frames0, costs0 = time.monotonic(), len(pane.frames), len(costs)
    while time.monotonic() - t0 < args.seconds:
        tick()
    span = time.monotonic() - t0
    row = {"steps_per_s": job.rate, "steps": job.done, "redraws_per_s": (len(pane.frames) - frames0) / span,
           "draw_ms": 1000 * statistics.median(costs[costs0:]) if costs[costs0:] else None}
    pane.stop(wait=True, timeout=60)
    return row


def _headless(args, process: bool, threads: int | None) -> dict:
    """The training job alone, drained every 200 ms."""
    from lab.jobs import Job

    return _headless_job(Job("dynamics", _training_config(args), process=process, threads=threads), args, 0.2)


def _with_pane(args, process: bool, threads: int | None, every_tick: bool, results: str) -> dict:
    """The Training dynamics pane, polled every PERIOD_MS."""
    from lab.dashboard import job_pane
    from lab.dashboard.runner import PERIOD_MS
    from lab.dynamics import pane as td

    mode = "process" if process else "thread"
    cfg = _training_config(args)
    saved = dict(td.REDRAW_SECONDS), job_pane.WORKER_THREADS
    job_pane.WORKER_THREADS = threads  # the same compute threads as the headless job (the job panes' setting)
    if every_tick:
        td.REDRAW_SECONDS[mode] = 0.0
    try:
        pane = td.TrainingDynamics(results=results, worker=mode)
        pane.param.update(experiment=cfg.experiment)
        pane.param.update(runs=cfg.runs, strategies=list(cfg.strategies), steps=cfg.steps, device=cfg.device)
        return _pane_job(pane, "_redraw", args, PERIOD_MS / 1000)
    finally:
        td.REDRAW_SECONDS.update(saved[0])
        job_pane.WORKER_THREADS = saved[1]


def _medians(samples: dict, is_pane, row_of, title: str) -> list[dict]:
    """The table of medians over rounds, one line per way (``samples``: way -> its rounds' rows); a pane's line
    is judged against the targets.  ``row_of(way, medians, rounds)``: the JSON row (with ``job`` and ``pane``)."""
    rows = []
    print(f"\n{'job':<16} {'pane':<17} {'redraws/s':>9} {'draw ms':>8} {'steps/s':>8} {'slowdown':>9}  {title}")
    for way, got in samples.items():
        med = {k: (statistics.median([g[k] for g in got]) if got[0][k] is not None else None)
               for k in ("steps_per_s", "redraws_per_s", "draw_ms", "slowdown")}
        row = row_of(way, med, got)
        pane = is_pane(way)
        if pane:
            row["ok"] = med["redraws_per_s"] >= REDRAW_TARGET and med["slowdown"] < SLOWDOWN_TARGET
        rows.append(row)
        red = f"{med['redraws_per_s']:9.2f}" if pane else f"{'-':>9}"
        draw = f"{med['draw_ms']:8.0f}" if pane and med["draw_ms"] is not None else f"{'-':>8}"
        slow = f"{100 * med['slowdown']:+8.1f}%" if pane else f"{'-':>9}"
        verdict = "" if not pane else ("  OK" if row["ok"] else "  MISSED")
        print(f"{row['job']:<16} {row['pane']:<17} {red} {draw} {med['steps_per_s']:8.2f} {slow}{verdict}")
    return rows


STRATEGIES = ("nom", "aug", "equi", "aug_penalty")


def _synthetic_history(steps: int, runs: int, strategies, seed: int = 0):
    """A recorded history of ``steps`` steps x ``runs`` runs x strategies with the Training dynamics columns
    (random walks: the values' shape does not change the drawing cost, only their count does)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    k = len(strategies)
    step = np.repeat(np.arange(steps), k * runs)
    strategy = np.tile(np.repeat(np.array(strategies, dtype=object), runs), steps)
    run = np.tile(np.arange(runs), steps * k)
    walk = lambda: np.abs(np.cumsum(rng.normal(size=(steps, k * runs)), axis=0)).ravel() + 0.1  # noqa: E731
    return pd.DataFrame({"step": step, "strategy": strategy, "run": run, "dist_from_E": walk(),
                         "dist_from_init": walk(), "loss": walk(), "accuracy": rng.uniform(size=step.size)})


def frame_costs(args, lengths=(100, 1_000, 10_000), repeats: int = 9) -> list[dict]:
    """The cost of one live frame of the Training dynamics pane (``args.runs`` runs x 4 strategies) with 100,
    1 000 and 10 000 steps already recorded: one new step arrives, the pane draws it, and the Bokeh document
    changes it makes are encoded as the server would send them (``PATCH-DOC`` messages; their size reported).
    Also the finished view's cost at each length (decimated once, when the run ends).  Target: the live frame
    flat in the history length (at most 2x from 100 to 10 000 steps)."""
    from bokeh.protocol import Protocol

    from lab.dynamics import pane as td
    from lab.dashboard.live import LiveData

    pane = td.TrainingDynamics(results=tempfile.mkdtemp(prefix="lab-bench-runs-"), worker="process")
    doc = Document()
    doc.add_root(pane.__panel__().get_root(doc))
    protocol, sent = Protocol(), []

    def encode(event):  # what the server does with every change of a session's document
        msg = protocol.create("PATCH-DOC", [event])
        sent.append(len(msg.content_json) + sum(len(b.data) for b in msg.buffers))

    doc.on_change(encode)
    rows = []
    for n in lengths:
        df = _synthetic_history(n + repeats, args.runs, STRATEGIES, seed=n)
        data = LiveData.from_frame(df[df.step < n], pane.live.columns, groups=list(STRATEGIES))
        new = [df[df.step == n + k].to_dict("records") for k in range(repeats)]
        pane.live.reset(list(STRATEGIES), data)
        pane.live.draw()  # the first frame after a reset sends the history at once: not a live frame
        times, sizes = [], []
        for k in range(repeats):
            pane.live.add(new[k])
            sent.clear()
            t = time.perf_counter()
            pane.live.draw()
            times.append(time.perf_counter() - t)
            sizes.append(sum(sent))
        sent.clear()
        t = time.perf_counter()
        pane.live.draw(final=True)
        final = time.perf_counter() - t
        row = {"steps_recorded": n, "runs": args.runs, "strategies": len(STRATEGIES),
               "frame_ms": 1000 * statistics.median(times), "frame_bytes": statistics.median(sizes),
               "final_ms": 1000 * final, "final_bytes": sum(sent),
               "points_on_screen": len(pane.live.points("loss", "nom")[0])}
        rows.append(row)
        print(f"  {n:>6} steps recorded: live frame {row['frame_ms']:6.1f} ms ({row['frame_bytes'] / 1e3:6.1f} kB "
              f"sent), finished view {row['final_ms']:7.1f} ms ({row['final_bytes'] / 1e6:5.2f} MB)", flush=True)
    growth = rows[-1]["frame_ms"] / rows[0]["frame_ms"]
    print(f"  live frame {lengths[-1]} / {lengths[0]} steps: {growth:.2f}x  (target <= {FLAT_TARGET:g}x) "
          f"-> at most {1000 / rows[-1]['frame_ms']:.0f} frames/s at {lengths[-1]} steps", flush=True)
    for r in rows:
        r["growth_vs_first"] = r["frame_ms"] / rows[0]["frame_ms"]
        r["ok"] = r["growth_vs_first"] <= FLAT_TARGET
    return rows


def training_part(args) -> list[dict]:
    import torch

    default_threads = torch.get_num_threads()
    results = tempfile.mkdtemp(prefix="lab-bench-runs-")
    n = args.threads
    # (label, process?, torch threads of the job, pane?, redraw every tick?)
    ways = [(f"thread, {n} thr", False, n, False, False), (f"thread, {n} thr", False, n, True, False),
            (f"process, {n} thr", True, n, False, False), (f"process, {n} thr", True, n, True, False)]
    if args.every_tick:  # a throttled mode also drawn on every tick (both modes draw every tick today)
        ways[2:2] = [(f"thread, {n} thr", False, n, True, True)]
    if args.default_threads and default_threads != n:  # what a thread job gets in a server that sets nothing
        # before the process ways: each pane right after its headless baseline (the machine drifts over a round)
        at = next(i for i, w in enumerate(ways) if w[1])
        ways[at:at] = [(f"thread, {default_threads} thr", False, default_threads, False, False),
                       (f"thread, {default_threads} thr", False, default_threads, True, False)]

    def name(way):
        return "headless" if not way[3] else ("pane, every tick" if way[4] else "pane")

    samples: dict = {w: [] for w in ways}
    for r in range(args.rounds):
        for way in ways:
            label, process, threads, pane, every_tick = way
            if not process:
                torch.set_num_threads(threads)  # a thread job computes in this process
            row = (_with_pane(args, process, threads, every_tick, results) if pane else
                   _headless(args, process, threads))
            head = next(w for w in ways if w[:3] == way[:3] and not w[3])
            base = samples[head][-1]["steps_per_s"] if pane else row["steps_per_s"]
            row["slowdown"] = 1 - row["steps_per_s"] / base if base else None
            samples[way].append(row)
            print(f"  round {r + 1}: {label:<16} {name(way):<17} {row['steps_per_s']:6.2f} steps/s  "
                  + (f"{row['redraws_per_s']:5.2f} redraws/s  draw {row['draw_ms'] or float('nan'):6.1f} ms  "
                     f"slowdown {100 * row['slowdown']:+5.1f} %" if pane else ""), flush=True)
    torch.set_num_threads(args.threads)
    print(f"\nthe cost of one live frame as the history grows ({args.runs} runs x {len(STRATEGIES)} strategies):")
    rows = [dict(job="frame cost", **r) for r in frame_costs(args)]
    torch.set_num_threads(default_threads)
    rows += _medians(samples, lambda way: way[3],
                     lambda way, med, got: dict(job=way[0], process=way[1], threads=way[2], pane=name(way), **med,
                                                rounds=got, experiment=args.experiment, runs=args.runs,
                                                seconds=args.seconds),
                     f"(medians over {args.rounds} rounds of {args.seconds:g} s; {args.experiment}, {args.runs} "
                     f"runs, cpu, {os.cpu_count()} cores)")
    return rows


def _sharing_config(args):
    from lab.sharing.family import SharingConfig

    return SharingConfig(task=args.sharing_task, steps=10_000_000).with_defaults()


def _sharing_headless(args, process: bool) -> dict:
    """A sharing job alone, drained every FRAME_MS (the pane's period)."""
    from lab.sharing.pane import FRAME_MS
    from lab.jobs import Job

    job = Job("sharing", _sharing_config(args), process=process, threads=args.threads)
    return _headless_job(job, args, FRAME_MS / 1000)


def _sharing_pane(args, process: bool, results: str) -> dict:
    """The Sharing discovery pane, polled every FRAME_MS (its periodic callback)."""
    from lab.sharing import pane as sd

    saved = sd.WORKER_THREADS
    sd.WORKER_THREADS = args.threads
    try:
        cfg = _sharing_config(args)
        pane = sd.SharingDiscovery(results=results, task=cfg.task, worker="process" if process else "thread")
        pane.param.update(steps=cfg.steps)
        row = _pane_job(pane, "_send", args, sd.FRAME_MS / 1000)
        return dict(row, points=len(pane.history))
    finally:
        sd.WORKER_THREADS = saved


def sharing_part(args) -> list[dict]:
    """Sharing discovery: redraws/s while it learns and steps/s with the pane open vs headless (same config),
    interleaved over ``--rounds`` rounds, in a worker process (the pane's default) and a thread."""
    results = tempfile.mkdtemp(prefix="lab-bench-runs-")
    ways = [("process", True, False), ("process", True, True), ("thread", False, False), ("thread", False, True)]
    samples: dict = {w: [] for w in ways}
    for r in range(args.rounds):
        for way in ways:
            label, process, pane = way
            row = _sharing_pane(args, process, results) if pane else _sharing_headless(args, process)
            base = samples[(label, process, False)][-1]["steps_per_s"] if pane else row["steps_per_s"]
            row["slowdown"] = 1 - row["steps_per_s"] / base if base else None
            samples[way].append(row)
            print(f"  round {r + 1}: sharing {label:<8} {'pane' if pane else 'headless':<9} "
                  f"{row['steps_per_s']:7.1f} steps/s"
                  + (f"  {row['redraws_per_s']:5.2f} redraws/s  draw {row['draw_ms'] or float('nan'):6.1f} ms  "
                     f"slowdown {100 * row['slowdown']:+5.1f} %" if pane else ""), flush=True)
    return _medians(samples, lambda way: way[2],
                    lambda way, med, got: dict(job=f"sharing, {way[0]}", pane="pane" if way[2] else "headless",
                                               **med, rounds=got, task=args.sharing_task, seconds=args.seconds),
                    f"(medians over {args.rounds} rounds of {args.seconds:g} s; sharing {args.sharing_task}, cpu)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("basis", "training", "sharing", "frames", "contention", "all"), default="all",
                    help="frames: the frame cost as the history grows alone; contention: bench/contention.py "
                         "(its own options after --)")
    ap.add_argument("--repeats", type=int, default=9, help="basis: changes per case")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "dashboard.json"))
    ap.add_argument("--training-out", default=str(Path(__file__).parent / "results" / "dashboard_training.json"))
    ap.add_argument("--sharing-out", default=str(Path(__file__).parent / "results" / "dashboard_sharing.json"))
    ap.add_argument("--sharing-task", default="conv", help="sharing: the task learned (default: the pane's first)")
    ap.add_argument("--frames-out", default=str(Path(__file__).parent / "results" / "dashboard_frames.json"))
    ap.add_argument("--experiment", default="custom", help="training: the dynamics experiment")
    ap.add_argument("--runs", type=int, default=30, help="training: runs (batched), each with all four strategies")
    ap.add_argument("--seconds", type=float, default=20.0, help="training: seconds of training per measurement")
    ap.add_argument("--rounds", type=int, default=3, help="training: interleaved rounds (medians reported)")
    ap.add_argument("--threads", type=int, default=1, help="training: torch compute threads of the job "
                    "(the panes' WORKER_THREADS)")
    ap.add_argument("--every-tick", action="store_true", help="training: also a thread job's pane redrawing on "
                    "every tick whatever its throttle")
    ap.add_argument("--no-default-threads", dest="default_threads", action="store_false",
                    help="training: skip the thread job with torch's default threads (a server that sets none)")
    args, rest = ap.parse_known_args(argv)
    if rest and args.part != "contention":
        ap.error(f"unrecognized arguments: {' '.join(rest)}")

    if args.part in ("basis", "all"):
        rows = basis_part(args)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(rows, indent=1))
    if args.part == "frames":
        rows = frame_costs(args)
        Path(args.frames_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.frames_out).write_text(json.dumps(rows, indent=1))
    if args.part in ("contention", "all"):
        import contention  # bench/contention.py: the same run idle and beside busy processes

        contention.main([a for a in rest if a != "--"])
    if args.part in ("sharing", "all"):
        rows = sharing_part(args)
        Path(args.sharing_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.sharing_out).write_text(json.dumps(rows, indent=1))
    if args.part in ("training", "all"):
        rows = training_part(args)
        Path(args.training_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.training_out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
