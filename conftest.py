"""Repository-wide pytest setup: for tests/ and for the doctests in lab/ (``--doctest-modules``).

* One BLAS/OpenMP thread per process.  With torch's default (a thread per core) two processes on a 2-core
  machine, or one process beside other work, spin-wait for each other's cores: on a loaded machine that made
  tests 10-30x slower.  Tests check results, never speed; subprocesses (``panel serve``, notebook kernels, the
  CLI) inherit the setting.  An explicit ``OMP_NUM_THREADS`` etc. in the environment is respected.
* Slow tests (``@pytest.mark.slow``) are collected first, so that with ``-n 2`` (pytest-xdist) they start early
  and short tests fill the gaps instead of one worker finishing a long test alone at the end.
* Browser tests (``@pytest.mark.browser``: a ``panel serve`` process and Chromium each) are slow and share one
  xdist group, so they run one after another on one worker (``--dist loadgroup``) instead of piling up.
"""
import os

import pytest

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# lab/__main__.py runs the CLI when imported: not a module to import for doctests
collect_ignore = ["lab/__main__.py", "app.py", "bench"]


def pytest_configure(config):
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
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow first, order kept
