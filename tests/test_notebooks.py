"""Every notebook in notebooks/ executes top to bottom (nbclient, a real Jupyter kernel)."""
from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
BUDGET = {"01_groups_and_bases.ipynb": 60, "02_augmentation_vs_equivariance.ipynb": 120,
          "03_sharing_discovery.ipynb": 120}  # seconds the issues allow


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    seconds = time.perf_counter() - t0
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code"
                 for o in c.get("outputs", []))
    assert images >= 1, "the notebook drew no figure"
    assert seconds < BUDGET.get(path.name, 120), f"{path.name} took {seconds:.0f} s"
