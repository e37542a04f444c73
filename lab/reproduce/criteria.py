"""The register of criteria: every claim's criterion versions, fixed before the runs that judge them.

``criteria.json`` (beside this file, committed) holds, per claim, each registered version's fingerprint (its rule
in words, thresholds and parts), date and reason.  A criterion declared in code that no longer matches its
registered fingerprint has been changed after the fact: ``problems()`` names it, and a test fails.  The way to
change a criterion is a new version (``Criterion(version + 1, ..., reason=...)`` appended to the claim's
``criteria``), registered with ``python -m lab.reproduce.criteria --register``, which adds new versions and never
rewrites an existing one.  The report then shows every run under every version.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

PATH = Path(__file__).with_name("criteria.json")


def declared() -> dict:
    """{claim id: {version (str): {"fingerprint", "date", "reason"}}} from the claims as declared in code."""
    from . import load_claims

    return {cid: {str(c.version): {"fingerprint": c.fingerprint(), "date": c.date, "reason": c.reason}
                  for c in claim.criteria}
            for cid, claim in load_claims().items()}


def registered(path: Path = PATH) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {}


def problems(path: Path = PATH, now: dict | None = None) -> list[str]:
    """What differs between the declared criteria and the register, one line each (empty: they agree)."""
    now = declared() if now is None else now
    reg = registered(path)
    out = []
    for cid, versions in now.items():
        for v, entry in versions.items():
            old = reg.get(cid, {}).get(v)
            if old is None:
                out.append(f"{cid} v{v}: not registered (python -m lab.reproduce.criteria --register)")
            elif old["fingerprint"] != entry["fingerprint"]:
                out.append(f"{cid} v{v}: changed after it was registered (declare version "
                           f"{max(int(k) for k in versions) + 1} with its reason instead)")
        for v in reg.get(cid, {}):
            if v not in versions:
                out.append(f"{cid} v{v}: registered but no longer declared (versions are never removed)")
    return out


def register(path: Path = PATH) -> list[str]:
    """Add every declared version missing from the register (never rewrites one); returns what was added."""
    now, reg = declared(), registered(path)
    added = []
    for cid, versions in now.items():
        for v, entry in versions.items():
            if v not in reg.setdefault(cid, {}):
                reg[cid][v] = entry
                added.append(f"{cid} v{v}")
    Path(path).write_text(json.dumps(reg, indent=1, sort_keys=True) + "\n")
    return added


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--register"]:
        added = register()
        print("registered: " + (", ".join(added) if added else "nothing new"))
        bad = problems()
        print("\n".join(bad))
        return 2 if bad else 0
    bad = problems()
    print("\n".join(bad) if bad else "every criterion matches its registered version")
    return 2 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
