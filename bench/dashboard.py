"""Benchmark: Basis explorer latency from a control change to the plot being ready, server side.

    python bench/dashboard.py [--repeats 9] [--out bench/results/dashboard.json]

For each case (a cached basis with at most 10^4 weight-matrix entries) the size control is toggled
between two values whose bases are both cached, and the time from the parameter change to the pane
having its new plot is measured, in two modes:

* ``data``   -- the pane is not attached to a document: basis lookup, ColoringData, HoloViews objects,
                information card (the issue's "plot data ready");
* ``models`` -- the pane is attached to a Bokeh Document, so the same change also builds the Bokeh
                models Panel sends to the browser.

Baseline, measured in the same run: the same change with the basis cache switched off (a cold solve).
Reported: medians over ``--repeats`` changes, and the ratio cold / cached.  Target: under 300 ms.
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

from lab.dashboard.basis_explorer import BasisExplorer  # noqa: E402
from lab.solvers import cache  # noqa: E402

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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "dashboard.json"))
    args = ap.parse_args(argv)

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
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
