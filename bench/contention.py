"""Benchmark: how much a CPU run slows beside busy processes (issue 26, item 5 "Fair on a busy machine").

    python bench/contention.py [--runs 5] [--steps 20] [--busy 4] [--repeats 1] [--settings new,old]
                               [--out bench/results/contention.json]

The command ``lab dynamics --experiment perm --runs R --steps S --device cpu --json`` (a fresh process, its result
saved to a temporary directory) is timed idle and beside ``--busy`` processes that spin on one core each
(``python -c "while True: pass"``), for each setting, in the same run:

* ``new``    -- the lab's default: nothing set, so the lab fits its threads to the load (``lab/threads.py``):
                ``OMP_WAIT_POLICY=PASSIVE`` when the machine is busy at start, and torch's pool cut to the cores the
                other processes leave free at every checkpoint (one thread beside four busy processes);
* ``passive`` -- ``OMP_WAIT_POLICY=PASSIVE`` always (the lab's default before the fit): fair, but +20 % idle;
* ``old``    -- the behaviour before it: ``LAB_THREADS=keep`` (the lab leaves every pool alone), so libgomp's
                default wait (spin about 300,000 rounds, then sleep);
* ``active`` -- ``OMP_WAIT_POLICY=ACTIVE`` (spin until the work comes; not run unless asked: slow when contended).

Every thread setting of the caller's environment (``OMP_NUM_THREADS``, ``OMP_WAIT_POLICY``, ``LAB_THREADS``...)
is removed first: the runs get torch's default pool, one thread per core.  Per setting and load: the wall seconds
(median over ``--repeats``), the CPU seconds of the process (user + system) and the slowdown contended / idle.
Targets: contended at most 3x idle (fair share beside 4 busy processes on 2 cores: 3x); the new setting idle
within 10 % of the old one.  The load average before each idle run is recorded: other work on the machine makes
"idle" less so.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: setting -> the variables added to the cleaned environment
SETTINGS = {
    "new": {},
    "passive": {"OMP_WAIT_POLICY": "PASSIVE"},
    "old": {"LAB_THREADS": "keep"},
    "active": {"OMP_WAIT_POLICY": "ACTIVE"},
    "spin": {"LAB_THREADS": "keep", "GOMP_SPINCOUNT": "10000"},
    "spin1k": {"LAB_THREADS": "keep", "GOMP_SPINCOUNT": "1000"},
    "spin100k": {"LAB_THREADS": "keep", "GOMP_SPINCOUNT": "100000"},
    "spin100": {"LAB_THREADS": "keep", "GOMP_SPINCOUNT": "100"},
    "one": {"LAB_THREADS": "keep", "OMP_NUM_THREADS": "1"},
}
LABELS = {"new": "new (fit to the load)", "passive": "OMP_WAIT_POLICY=PASSIVE", "old": "old (libgomp default)", "active": "OMP_WAIT_POLICY=ACTIVE",
          "spin": "GOMP_SPINCOUNT=10000", "spin1k": "GOMP_SPINCOUNT=1000", "spin100k": "GOMP_SPINCOUNT=100000",
          "spin100": "GOMP_SPINCOUNT=100",
          "one": "one thread"}
#: removed from the caller's environment before every run
CLEARED = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
           "KMP_BLOCKTIME", "LAB_THREADS", "OMP_DISPLAY_ENV", "LAB_WAIT_POLICY")
MAX_RATIO = 3.0  # contended / idle
MAX_IDLE_CHANGE = 0.10  # new idle against old idle


def environment(setting: str, cache_dir: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(SETTINGS[setting], LAB_CACHE_DIR=cache_dir, LAB_PROGRESS_DELAY="0",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return env


def run_once(runs: int, steps: int, env: dict) -> dict:
    """One ``lab dynamics`` process: wall seconds, CPU seconds (user, system) and its exit code."""
    with tempfile.TemporaryDirectory(prefix="lab-bench-contention-") as out:
        command = [sys.executable, "-m", "lab", "dynamics", "--experiment", "perm", "--runs", str(runs),
                   "--steps", str(steps), "--device", "cpu", "--json", "--out", out]
        with open(Path(out) / "stderr.txt", "w+b") as stderr:
            t0 = time.perf_counter()
            proc = subprocess.Popen(command, env=env, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=stderr)
            _, status, usage = os.wait4(proc.pid, 0)  # its own CPU time, not the busy processes'
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
            stderr.seek(0)
            err = stderr.read().decode(errors="replace").strip()
    if proc.returncode != 0:
        raise RuntimeError(f"lab dynamics failed ({proc.returncode}): {(err.splitlines() or [''])[-1]}")
    return {"wall": wall, "user": usage.ru_utime, "sys": usage.ru_stime}


class Busy:
    """``n`` processes spinning on one core each, for the time of a ``with`` block."""

    def __init__(self, n: int):
        self.n, self.procs = n, []

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.n)]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def measure(args) -> dict:
    """Time every setting idle and contended (see the module docstring); ``args``: ``runs``, ``steps``, ``busy``,
    ``repeats``, ``settings`` (a comma list or a sequence of names in ``SETTINGS``)."""
    runs, steps = getattr(args, "runs", 5), getattr(args, "steps", 20)
    busy, repeats = getattr(args, "busy", 4), max(1, getattr(args, "repeats", 1))
    settings = getattr(args, "settings", "new,old")
    settings = [s.strip() for s in settings.split(",")] if isinstance(settings, str) else list(settings)
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        raise ValueError(f"unknown settings {unknown}: choose from {', '.join(SETTINGS)}")
    samples = {s: {"idle": [], "contended": []} for s in settings}
    loads = []
    with tempfile.TemporaryDirectory(prefix="lab-bench-cache-") as cache:
        run_once(1, 1, environment(settings[0], cache))  # warm the basis cache and the file cache: not timed
        for _ in range(repeats):  # interleaved, so that a change of the machine's load hits every setting alike
            for s in settings:
                loads.append(os.getloadavg()[0])
                samples[s]["idle"].append(run_once(runs, steps, environment(s, cache)))
            with Busy(busy):
                for s in settings:
                    samples[s]["contended"].append(run_once(runs, steps, environment(s, cache)))

    def summary(rows):
        return {k: statistics.median(r[k] for r in rows) for k in ("wall", "user", "sys")} | {"samples": rows}

    result = {"command": f"lab dynamics --experiment perm --runs {runs} --steps {steps} --device cpu",
              "busy": busy, "repeats": repeats, "cores": len(os.sched_getaffinity(0)),
              "load_before_idle": loads, "targets": {"max_ratio": MAX_RATIO, "max_idle_change": MAX_IDLE_CHANGE},
              "settings": {}}
    for s in settings:
        idle, contended = summary(samples[s]["idle"]), summary(samples[s]["contended"])
        result["settings"][s] = {"label": LABELS[s], "env": SETTINGS[s], "idle": idle, "contended": contended,
                                 "ratio": contended["wall"] / idle["wall"],
                                 "ok": contended["wall"] <= MAX_RATIO * idle["wall"]}
    if "new" in settings and "old" in settings:
        change = result["settings"]["new"]["idle"]["wall"] / result["settings"]["old"]["idle"]["wall"] - 1
        result["idle_change"] = change
        result["idle_ok"] = change <= MAX_IDLE_CHANGE
    return result


def table(result: dict) -> str:
    lines = [result["command"] + f"  (idle / beside {result['busy']} busy processes, {result['cores']} cores)",
             f"{'setting':<24} {'idle s':>8} {'contended s':>12} {'ratio':>6}  {'CPU s idle':>10} "
             f"{'CPU s contended':>16}"]
    for r in result["settings"].values():
        cpu = lambda part: part["user"] + part["sys"]  # noqa: E731
        lines.append(f"{r['label']:<24} {r['idle']['wall']:>8.1f} {r['contended']['wall']:>12.1f} {r['ratio']:>6.2f}"
                     f"  {cpu(r['idle']):>10.1f} {cpu(r['contended']):>16.1f}"
                     f"  {'ok' if r['ok'] else 'over ' + format(MAX_RATIO, 'g') + 'x'}")
    if "idle_change" in result:
        lines.append(f"new idle against old idle: {result['idle_change']:+.1%} "
                     f"({'ok' if result['idle_ok'] else 'over ' + format(MAX_IDLE_CHANGE, '.0%')})")
    lines.append("load average before the idle runs: " + ", ".join(f"{x:.1f}" for x in result["load_before_idle"]))
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--busy", type=int, default=4, help="busy processes beside the contended runs")
    p.add_argument("--repeats", type=int, default=1, help="measurements per setting and load (median)")
    p.add_argument("--settings", default="new,old", help=f"comma list of {', '.join(SETTINGS)}")
    p.add_argument("--out", default=str(ROOT / "bench" / "results" / "contention.json"))
    args = p.parse_args(argv)
    result = measure(args)
    print(table(result))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
