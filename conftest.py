"""Repository-wide pytest setup: for tests/ and for the doctests in lab/ (``--doctest-modules``).

* One BLAS/OpenMP thread per process.  With torch's default (a thread per core) two processes on a 2-core
  machine, or one process beside other work, spin-wait for each other's cores: on a loaded machine that made
  tests 10-30x slower.  Tests check results, never speed; subprocesses (``panel serve``, notebook kernels, the
  CLI) inherit the setting.  An explicit ``OMP_NUM_THREADS`` etc. in the environment is respected.  OpenMP threads
  (a subprocess given more than one) sleep while they wait (``OMP_WAIT_POLICY=PASSIVE`` unless set, as ``import
  lab`` sets it): a spinning wait beside the other workers would burn the cores they need.
* Slow tests (``@pytest.mark.slow``) are collected first, so that with ``-n 2`` (pytest-xdist) they start early
  and short tests fill the gaps instead of one worker finishing a long test alone at the end.
* Browser tests (``@pytest.mark.browser``: a ``panel serve`` process and Chromium each) are slow and share one
  xdist group, so they run one after another on one worker (``--dist loadgroup``) instead of piling up.
  (pytest-xdist 3.8 marks a group by rewriting ``item._nodeid``, which pytest >= 9.2 no longer reads: the groups
  are not honoured there, so nothing below relies on them.)
* Fitted models are shared: ``LAB_FIT_CACHE`` (``lab.fitcache``) names one directory for the session's workers and
  every process they start, so that a fit asked for by a fixture, a notebook and a claim with identical inputs (the
  O(5) symmetry-discovery MLP) runs once.  Tests that compare two runs for determinism take it out of their
  subprocesses' environment.
* ``lab reproduce --quick`` runs ONCE per test session, in the background from the end of collection (its default
  ``--workers``: a process per core, one torch thread each), while the workers run every other test; the tests that read
  it (fixture ``quick_report``) are collected after those and wait for it (``tests/conftest.py``), and the browser
  tests come last, once it has ended.  Without xdist the fixture starts it itself.
* Notebooks execute once: each notebook test stores the notebook it executed (fast mode) in the session's
  jupyter-cache, and the documentation build (fixture ``executed_notebooks``, scheduled with the quick report's
  readers) waits for the notebook tests and builds the tutorials from those outputs.
"""
import os
from pathlib import Path

import pytest

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as ``import lab`` sets it (lab/threads.py), before torch loads

# lab/__main__.py runs the CLI when imported: not a module to import for doctests
collect_ignore = ["lab/__main__.py", "app.py", "bench"]


def pytest_configure(config):
    config.lab_start_quick_report = start_quick_report  # for the quick_report fixture (tests/conftest.py)
    config.lab_fit_cache_dir = fit_cache_dir  # for the session's fit cache (tests/conftest.py)
    config.lab_notebook_cache_dir = notebook_cache_dir  # executed notebooks, for the docs build (tests/conftest.py)
    try:
        import torch
    except ImportError:  # pragma: no cover
        return
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group("browser"))
    # stable, order kept within each part: every other test (slow first), then the tests of the one quick report
    # (it runs meanwhile, see above), then the browser tests, which wait on pages with time limits and so run when
    # the background report has ended
    items.sort(key=lambda item: (item.get_closest_marker("browser") is not None,
                                 bool({"quick_report", "executed_notebooks"} & set(getattr(item, "fixturenames", ()))),
                                 item.get_closest_marker("slow") is None))


def quick_report_dir(config) -> Path:
    """The directory of this session's one ``lab reproduce --quick`` run, shared by the xdist workers (their
    base temporary directories are siblings) or the session's own."""
    base = Path(config._tmp_path_factory.getbasetemp())
    return (base.parent if hasattr(config, "workerinput") else base) / "reproduce-quick"


def notebook_cache_dir(config) -> Path:
    """The session's executed notebooks (a jupyter-cache, as myst-nb reads it): each notebook test stores the
    notebook it executed there, and the documentation build (tests/test_docs.py) reads them instead of executing
    the notebooks a second time."""
    return quick_report_dir(config).parent / "notebook-cache"


def fit_cache_dir(config) -> Path:
    """The session's fit cache (``LAB_FIT_CACHE``, ``lab.fitcache``): one directory for its xdist workers, the
    processes they start and the background quick report, so that a fit they share is computed once."""
    return quick_report_dir(config).parent / "fit-cache"


def start_quick_report(config) -> Path:
    """Start ``lab reproduce --quick --json`` in the background unless this session already did (``mkdir`` is
    the lock: atomic across workers); returns its directory.  Its exit code lands in ``rc`` when it ends."""
    import subprocess
    import sys

    directory = quick_report_dir(config)
    try:
        directory.mkdir(parents=False)
    except FileExistsError:
        return directory  # another worker started it
    # a process per core (--workers' default), each on one thread (the runner's): beside the workers the report
    # takes its fair share of the cores, and all of them once the workers wait for it
    env = dict(os.environ, LAB_PROGRESS_DELAY="0", LAB_CACHE_DIR=str(directory / "cache"),
               LAB_FIT_CACHE=str(fit_cache_dir(config)),
               LAB_RESULTS_DIR=str(directory / "results"), OMP_WAIT_POLICY="PASSIVE")
    out = directory / "report"
    command = (f"'{sys.executable}' -m lab reproduce --quick --json --device cpu --out '{out}' "
               f"> '{directory}/stdout.json' 2> '{directory}/stderr.txt'; echo $? > '{directory}/rc.tmp' && "
               f"mv '{directory}/rc.tmp' '{directory}/rc'")
    # its own process group: an interrupted session stops it with its worker processes (pytest_sessionfinish)
    proc = subprocess.Popen(["bash", "-c", command], env=env, cwd=str(config.rootpath), start_new_session=True)
    (directory / "pid").write_text(str(proc.pid))
    config._quick_report_proc = proc
    return directory


def pytest_collection_finish(session):
    if any("quick_report" in getattr(item, "fixturenames", ()) for item in session.items) \
            and not os.environ.get("LAB_QUICK_REPORT_DIR"):
        start_quick_report(session.config)


def pytest_sessionfinish(session, exitstatus):
    """A session interrupted (Ctrl-C) stops the quick report it started; otherwise a worker that runs out of tests
    leaves it running for the workers still waiting on it."""
    proc = getattr(session.config, "_quick_report_proc", None)
    if proc is not None and proc.poll() is None and exitstatus == pytest.ExitCode.INTERRUPTED:
        import signal

        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except OSError:  # it ended meanwhile
            pass
