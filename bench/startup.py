"""Benchmark: start-up of the ``lab`` command line (wall time and peak memory of a whole process).

    python bench/startup.py [--repeats 5] [--root CHECKOUT ...] [--out bench/results/startup.json]

Each command runs ``--repeats`` times as ``python -m lab ...`` in a fresh process (interleaved: one round runs
every command once); reported are the medians of the wall time and of the maximum resident set size (from
``os.wait4``'s rusage of the child), plus which heavy packages the command imported (one extra run with
``sys.modules`` inspection).  The basis cache is off, so the basis command solves.  ``--root`` measures other
checkouts of the lab too (e.g. the main branch for a before/after table), interleaved with this one.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "lab --help": ["--help"],
    "lab groups": ["groups"],
    "lab presets": ["presets"],
    "lab basis 'S(4)' 'V>>V'": ["basis", "S(4)", "V>>V"],
}
HEAVY = ("torch", "scipy.stats", "matplotlib", "holoviews", "panel", "pandas", "sympy")
PROBE = ("import runpy, sys\n"
         "sys.argv = ['lab'] + sys.argv[1:]\n"
         "try:\n"
         "    runpy.run_module('lab', run_name='__main__')\n"
         "except SystemExit:\n"
         "    pass\n"
         "sys.stdout.flush()\n"
         "sys.stderr.write('HEAVY ' + ','.join(m for m in %r if m in sys.modules) + '\\n')\n") % (HEAVY,)


def env(root: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
            "LAB_CACHE_DIR": "off"}


def once(args: list[str], root: Path) -> tuple[float, float]:
    """(wall seconds, max RSS in MB) of one ``python -m lab ARGS`` process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "lab", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env(root), cwd=root)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"lab {' '.join(args)} exited with {proc.returncode}")
    return wall, usage.ru_maxrss / 1024  # Linux: kilobytes


def heavy(args: list[str], root: Path) -> str:
    res = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env(root),
                         cwd=root)
    line = [x for x in res.stderr.splitlines() if x.startswith("HEAVY ")]
    return line[-1][6:] if line else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--root", action="append", default=[], help="another checkout to measure too")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    roots = [Path(r).resolve() for r in a.root] + [ROOT]
    samples = {(r, name): [] for r in roots for name in COMMANDS}
    for _ in range(a.repeats):
        for name, args in COMMANDS.items():
            for r in roots:
                samples[(r, name)].append(once(args, r))
    rows = []
    print(f"{'checkout':<22} {'command':<28} {'wall s':>7} {'max RSS MB':>11}  heavy imports")
    for r in roots:
        for name, args in COMMANDS.items():
            wall = statistics.median(s[0] for s in samples[(r, name)])
            rss = statistics.median(s[1] for s in samples[(r, name)])
            h = heavy(args, r)
            rows.append({"checkout": str(r), "command": name, "wall_s": round(wall, 3), "max_rss_mb": round(rss, 1),
                         "heavy": h})
            print(f"{str(r)[-22:]:<22} {name:<28} {wall:>7.2f} {rss:>11.0f}  {h or '-'}")
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps({"repeats": a.repeats, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
