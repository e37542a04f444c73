"""Every notebook in notebooks/ executes top to bottom (nbclient, a real Jupyter kernel).

The notebooks run in their fast mode (``LAB_NOTEBOOK_MODE=fast``: every section and figure at small sizes) unless
the environment already sets the mode: ``LAB_NOTEBOOK_MODE=full pytest -m notebook`` runs them at full size.
The per-cell timeout is a hang guard for a busy machine, never a speed requirement.
"""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 900  # seconds per cell: a hang guard only


def test_every_notebook_has_a_mode_switch():
    assert NOTEBOOKS, "no notebooks found"
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        first = next(c for c in nb.cells if c.cell_type == "code")
        assert "parameters" in first.metadata.get("tags", []), f"{path.name}: the first code cell is not tagged"
        assert "LAB_NOTEBOOK_MODE" in first.source and "SIZES" in first.source, path.name
        docs = " ".join(c.source for c in nb.cells[:first_index(nb)] if c.cell_type == "markdown")
        assert "LAB_NOTEBOOK_MODE" in docs, f"{path.name}: the switch is not documented above it"


def first_index(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")


@pytest.mark.notebook
@pytest.mark.slow
@pytest.mark.timeout(1800)  # a hang guard on a loaded machine; each cell has its own (CELL_TIMEOUT)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path, monkeypatch, request):
    mode = os.environ.get("LAB_NOTEBOOK_MODE", "fast")
    monkeypatch.setenv("LAB_NOTEBOOK_MODE", mode)  # the kernel inherits it
    cache = request.config.lab_notebook_cache_dir(request.config)
    try:
        nb = nbformat.read(path, as_version=4)
        NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
        assert not [o for o in outputs if o.output_type == "error"]
        printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
        assert f"{mode} mode:" in printed, "the notebook did not run in the mode it was asked for"
        assert sum("image/png" in o.get("data", {}) for o in outputs) >= 1, "the notebook drew no figure"
        if mode == "fast":  # what the docs build shows
            store_executed(path, nb, cache)
    finally:
        (cache / "done").mkdir(parents=True, exist_ok=True)
        (cache / "done" / path.name).touch()  # the docs build waits for this (tests/conftest.py)


def store_executed(path, nb, cache) -> None:
    """Keep the executed notebook in the session's jupyter-cache, keyed as myst-nb keys the source notebook (its
    code and cell metadata): the cells' outputs go into a copy of the source, whose metadata nbclient has not
    touched.  One writer at a time (the cache is one SQLite file)."""
    import copy
    import fcntl

    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    source = nbformat.read(path, as_version=4)
    bundle = copy.deepcopy(source)
    for cell, run in zip(bundle.cells, nb.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = run.outputs, run.execution_count
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        store = get_cache(str(cache))
        store.cache_notebook_bundle(CacheBundleIn(bundle, uri=str(path)), check_validity=False, overwrite=True)
        assert store.match_cache_notebook(source) is not None  # myst-nb will find it
