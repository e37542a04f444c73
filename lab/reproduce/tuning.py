"""Settings chosen apart from the verdict seeds: a claim's quick setting picked by a probe on the tuning seeds.

A verdict seed (0, 1, 2 ... from ``lab reproduce --seed``) never chooses a setting.  Where a quick profile cuts a
setting (fewer epochs, a shorter schedule, a smaller grid) and the choice needs a measurement, the family declares
a ``Probe``: the candidates, cheapest first; the rule, in words and as a function, fixed before the probe runs;
and what the probe reads on one candidate and one seed.  ``python -m lab.reproduce.tuning NAME`` runs it on
``TUNING_SEEDS`` (100, 101, 102: apart from any verdict seed the report uses) and keeps every reading and the choice
in ``tuning.json`` beside this file (committed).  The claim's ``chosen_on`` is then ``chosen_on(NAME)``: the seeds,
the rule and the choice, which the report prints.  ``problems()`` (a test) fails when the code's setting is not the
kept choice, when the rule or the candidates changed after the probe ran, or when a probe was never run.

The rule picks the cheapest candidate it accepts; when it accepts none, the most expensive (the last) is kept, or
the cheapest where the probe declares ``fallback="cheapest"``, and the record says so.  No torch here: probes import
what they need when they run.

>>> p = Probe("demo", "epochs", "the fewest epochs whose accuracy is at least 0.9 on every tuning seed",
...           {"5": 5, "10": 10, "20": 20}, lambda c, s: {"accuracy": 0.5 + c / 20},
...           lambda rs: min(r["accuracy"] for r in rs.values()) >= 0.9, lambda: 10, ("a-claim",))
>>> record = p.run(seeds=(100, 101))
>>> record["chosen"], record["met"], [c["accepted"] for c in record["candidates"]]
('10', True, [False, True, True])
"""
from __future__ import annotations

import datetime
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import LabError
from ..threads import fixed_threads, one_thread

#: the seeds probes choose settings on: apart from the verdict seeds (a report's seeds start at ``--seed``, 0 by
#: default, and run a few up; nothing the lab reports uses 100 and up)
TUNING_SEEDS = (100, 101, 102)
PATH = Path(__file__).with_name("tuning.json")


@dataclass(frozen=True)
class Probe:
    """How one quick setting is chosen: ``setting`` (what, in words); ``rule`` (the rule in words, fixed before the
    probe runs); ``candidates`` ({label: value}, cheapest first; the value is what the code declares);
    ``read(value, seed) -> dict`` (the readings of one candidate on one tuning seed, JSON numbers);
    ``accept({seed: readings}) -> bool`` (the rule); ``current() -> value`` (the setting the code uses now);
    ``claims`` (the claim ids whose quick settings it chooses)."""

    name: str
    setting: str
    rule: str
    candidates: dict
    read: Callable[[Any, int], dict]
    accept: Callable[[dict], bool]
    current: Callable[[], Any]
    claims: tuple = ()
    #: stop at the first accepted candidate (the dearer ones are listed, not read: a probe whose every candidate
    #: costs minutes)
    stop_early: bool = False
    #: the candidate kept when none meets the rule: "dearest" (the last) or "cheapest" (the first: where the claim's
    #: part reads no power whatever the setting, paying for the dearest buys nothing); part of the rule's words
    fallback: str = "dearest"

    def run(self, seeds=TUNING_SEEDS, progress: Callable[[str], None] = lambda message: None) -> dict:
        """Every candidate read on every seed, the rule applied: the record ``tuning.json`` keeps.  Read on one torch
        thread with the pool fixed, as ``lab reproduce`` measures, so that a probe run again reads the same numbers
        whatever the machine."""
        if set(seeds) & set(range(0, 100)):
            raise LabError(f"tuning probe {self.name}: seeds {sorted(seeds)} overlap the verdict seeds (0-99)")
        with fixed_threads(), one_thread():  # as lab reproduce measures: the same seed reads the same numbers
            rows = self._read_all(seeds, progress)
        accepted = [r["candidate"] for r in rows if r["accepted"]]
        return {"probe": self.name, "setting": self.setting, "rule": self.rule, "seeds": [int(s) for s in seeds],
                "candidates": rows, "chosen": accepted[0] if accepted else
                rows[0 if self.fallback == "cheapest" else -1]["candidate"], "fallback": self.fallback,
                "met": bool(accepted), "claims": list(self.claims), "date": datetime.date.today().isoformat()}

    def _read_all(self, seeds, progress) -> list:
        rows = []
        for label, value in self.candidates.items():
            if self.stop_early and any(r["accepted"] for r in rows):
                rows.append({"candidate": label, "value": value, "readings": {}, "accepted": None})
                continue
            readings = {}
            for seed in seeds:
                progress(f"{self.name}: {label}, seed {seed}")
                readings[int(seed)] = self.read(value, int(seed))
            rows.append({"candidate": label, "value": value, "readings": {str(s): r for s, r in readings.items()},
                         "accepted": bool(self.accept(readings))})
        return rows


#: every declared probe (filled by the claim modules on import)
PROBES: dict[str, Probe] = {}


def probe(name: str, setting: str, rule: str, candidates: dict, accept: Callable[[dict], bool],
          current: Callable[[], Any], claims: tuple = (), stop_early: bool = False, fallback: str = "dearest"):
    """Declare ``read(value, seed) -> dict`` as the probe ``name`` (see ``Probe``)."""
    if not candidates:
        raise ValueError(f"tuning probe {name}: no candidates")

    def register(read):
        PROBES[name] = Probe(name, setting, rule, dict(candidates), read, accept, current, tuple(claims), stop_early,
                             fallback)
        return read

    return register


def records(path: Path = PATH) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {}


def chosen_on(name: str, path: Path = PATH) -> str:
    """The claim's ``chosen_on`` in words, from the kept record of probe ``name`` (read when the claim module is
    imported: the report prints it)."""
    rec = records(path).get(name)
    if rec is None:
        return f"tuning probe {name} not run yet (python -m lab.reproduce.tuning {name})"
    seeds = rec["seeds"]
    span = f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else ", ".join(map(str, seeds))
    labels = ", ".join(c["candidate"] for c in rec["candidates"])
    dearest = rec.get("fallback", "dearest") == "dearest"
    verdict = "chosen" if rec["met"] else \
        f"kept (no candidate met the rule: the {'most expensive' if dearest else 'cheapest'})"
    return (f"tuning seeds {span}, apart from the verdict seeds (probe {name}, {rec['date']}): {rec['setting']} "
            f"{verdict} by the rule \"{rec['rule']}\" among {labels}: {rec['chosen']}")


def problems(path: Path = PATH) -> list[str]:
    """What differs between the declared probes and the kept records, one line each (empty: they agree)."""
    from . import load_claims

    load_claims()
    kept, out = records(path), []
    for name, p in PROBES.items():
        rec = kept.get(name)
        if rec is None:
            out.append(f"{name}: never run (python -m lab.reproduce.tuning {name})")
            continue
        if rec["rule"] != p.rule or [c["candidate"] for c in rec["candidates"]] != list(p.candidates):
            out.append(f"{name}: its rule or candidates changed after it ran (run it again)")
        values = {c["candidate"]: c["value"] for c in rec["candidates"]}
        if _plain(p.current()) != _plain(values.get(rec["chosen"])):
            out.append(f"{name}: the code uses {p.current()!r}, the probe chose {rec['chosen']} "
                       f"({values.get(rec['chosen'])!r})")
    return out


def _plain(value):
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def main(argv=None) -> int:
    from . import load_claims

    argv = sys.argv[1:] if argv is None else argv
    load_claims()
    if not argv:
        print("\n".join(problems()) or "every probe's choice is the code's setting")
        print("probes: " + ", ".join(PROBES))
        return 0
    for name in argv:
        if name not in PROBES:
            print(f"unknown probe {name!r}: choose from {', '.join(PROBES)}", file=sys.stderr)
            return 2
    for name in argv:
        rec = PROBES[name].run(progress=lambda m: print(m, file=sys.stderr, flush=True))
        kept = records()  # read again: another probe may have written while this one ran
        kept[name] = rec
        PATH.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
        for c in rec["candidates"]:
            print(f"{name} {c['candidate']}: accepted={c['accepted']} {json.dumps(c['readings'])}")
        print(f"{name}: chose {rec['chosen']} (rule met: {rec['met']})")
    return 0


if __name__ == "__main__":  # run as the imported module, whose PROBES the claim modules fill (not __main__'s)
    from lab.reproduce import tuning as _module

    raise SystemExit(_module.main())
