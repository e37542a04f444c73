"""Sweeps beyond one machine (issue 32): an experiment family over a grid of its options, run on Dask distributed,
into one results store.

* ``spec`` -- the sweep file (YAML: experiment, fixed, grid, zip, seeds), its points and their validation through the
  family's config;
* ``store`` -- the results store: the families' run directories and a Parquet index appended atomically;
* ``task`` -- one point as a Dask task runs it (the family's own ``run`` and ``save``);
* ``run`` -- the sweep on a ``LocalCluster`` or an existing scheduler, in bounded batches, resumable.
"""
from .spec import SweepError, SweepSpec, load_sweep, parse_sweep, point_id
from .store import SweepStore

__all__ = ["SweepError", "SweepSpec", "load_sweep", "parse_sweep", "point_id", "SweepStore"]
