"""Write one saved run of every family that keeps runs, at the tiny settings of ``tests/test_experiments.py``,
into ``tests/data/runs-<commit>/`` laid out as ``$LAB_RESULTS_DIR`` is.

The folders it made are fixtures of the run format as a given commit wrote it: ``tests/test_saved_runs.py`` loads
them with today's code.  Never regenerate an existing folder (that would test nothing); when the format changes,
run this at the new commit and keep both folders.  Run from a checkout of that commit::

    python tests/data/make_saved_runs.py
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=HERE, check=True).stdout.strip()
    out = HERE / f"runs-{commit}"
    if out.exists():
        print(f"{out} exists: a fixture is never regenerated", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp())
    os.environ["LAB_RESULTS_DIR"] = str(work)
    sys.path.insert(0, str(HERE.parent))
    from test_experiments import TINY  # the settings every family's smoke test runs

    from lab.experiments import FAMILIES

    for name, family in FAMILIES.items():
        if family.save is None or family.results_dir is None:  # basis writes a file, not a run
            continue
        result = family.run(TINY[name])
        print(name, family.save(result, None))
    shutil.copytree(work, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
