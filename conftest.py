"""Repository-wide pytest setup: for tests/ and for the doctests in lab/ (``--doctest-modules``).

* One BLAS/OpenMP thread per process.  With torch's default (a thread per core) two processes on a 2-core
  machine, or one process beside other work, spin-wait for each other's cores: on a loaded machine that made
  tests 10-30x slower.  Tests check results, never speed; subprocesses (``panel serve``, notebook kernels, the
  CLI) inherit the setting.  An explicit ``OMP_NUM_THREADS`` etc. in the environment is respected.
* Slow tests (``@pytest.mark.slow``) are collected first, so that with ``-n 2`` (pytest-xdist) they start early
  and short tests fill the gaps instead of one worker finishing a long test alone at the end.
"""
import os

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


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow first, order kept
