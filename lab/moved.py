"""Where modules moved, so that code written against an earlier layout still imports.

Issue 47 put everything a family owns in the family's folder (``lab/<family>/family.py``, ``pane.py``, ``plots_*.py``,
``claims*.py``).  The old dotted names, ``lab.experiments.dynamics``, ``lab.plots.sharing_mpl``,
``lab.reproduce.emlp`` and the rest, are public enough (notebooks and scripts import them), so they keep working: an
import finder (installed by ``import lab``) answers each old name with the module now at its new place, the very same
module object, so ``lab.experiments.dynamics.FAMILY is lab.dynamics.family.FAMILY``.  This table is a frozen record of
past names; a new module never needs a line here.

>>> import lab.plots.dynamics_mpl as old, lab.dynamics.plots_mpl as new
>>> old is new
True
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: old dotted name -> where the module lives now
MOVED = {
    "lab.dashboard.basis_explorer": "lab.basis.pane",
    "lab.dashboard.bounds": "lab.bounds.pane",
    "lab.dashboard.discovery": "lab.discovery.pane",
    "lab.dashboard.ensembles": "lab.ensembles.pane",
    "lab.dashboard.equivariance_meter": "lab.meter.pane",
    "lab.dashboard.equivariant_models": "lab.emlp.pane",
    "lab.dashboard.rpp_regimes": "lab.rpp.pane",
    "lab.dashboard.sharing_discovery": "lab.sharing.pane",
    "lab.dashboard.sweeps": "lab.sweeps.pane",
    "lab.dashboard.training_dynamics": "lab.dynamics.pane",
    "lab.dashboard.worker_pane": "lab.dashboard.job_pane",
    "lab.experiments.basis": "lab.basis.family",
    "lab.experiments.bounds": "lab.bounds.family",
    "lab.experiments.discovery": "lab.discovery.family",
    "lab.experiments.dynamics": "lab.dynamics.family",
    "lab.experiments.emlp": "lab.emlp.family",
    "lab.experiments.ensembles": "lab.ensembles.family",
    "lab.experiments.meter": "lab.meter.family",
    "lab.experiments.msr": "lab.sharing.family_msr",
    "lab.experiments.rpp": "lab.rpp.family",
    "lab.experiments.sharing": "lab.sharing.family",
    "lab.plots.bounds_bokeh": "lab.bounds.plots_bokeh",
    "lab.plots.bounds_mpl": "lab.bounds.plots_mpl",
    "lab.plots.discovery_bokeh": "lab.discovery.plots_bokeh",
    "lab.plots.discovery_mpl": "lab.discovery.plots_mpl",
    "lab.plots.dynamics_hv": "lab.dynamics.plots_hv",
    "lab.plots.dynamics_mpl": "lab.dynamics.plots_mpl",
    "lab.plots.emlp_bokeh": "lab.emlp.plots_bokeh",
    "lab.plots.emlp_mpl": "lab.emlp.plots_mpl",
    "lab.plots.ensembles_bokeh": "lab.ensembles.plots_bokeh",
    "lab.plots.ensembles_mpl": "lab.ensembles.plots_mpl",
    "lab.plots.meter_bokeh": "lab.meter.plots_bokeh",
    "lab.plots.meter_mpl": "lab.meter.plots_mpl",
    "lab.plots.rpp_bokeh": "lab.rpp.plots_bokeh",
    "lab.plots.rpp_mpl": "lab.rpp.plots_mpl",
    "lab.plots.rpp_posterior_mpl": "lab.rpp.plots_posterior_mpl",
    "lab.plots.sharing_hv": "lab.sharing.plots_hv",
    "lab.plots.sharing_mpl": "lab.sharing.plots_mpl",
    "lab.plots.sweeps_bokeh": "lab.sweeps.plots_bokeh",
    "lab.presets": "lab.basis.presets",
    "lab.reproduce.bounds": "lab.bounds.claims",
    "lab.reproduce.discovery": "lab.discovery.claims",
    "lab.reproduce.dynamics": "lab.dynamics.claims",
    "lab.reproduce.dynamics_theory": "lab.dynamics.claims_theory",
    "lab.reproduce.emlp": "lab.emlp.claims",
    "lab.reproduce.emlp_pendulum": "lab.emlp.claims_pendulum",
    "lab.reproduce.ensembles": "lab.ensembles.claims",
    "lab.reproduce.krylov": "lab.basis.claims_krylov",
    "lab.reproduce.meter": "lab.meter.claims",
    "lab.reproduce.msr": "lab.sharing.claims_msr",
    "lab.reproduce.ranks": "lab.basis.claims",
    "lab.reproduce.rpp": "lab.rpp.claims",
    "lab.reproduce.sharing": "lab.sharing.claims",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name of ``MOVED`` and loads it as the module at its new place."""

    def __init__(self):
        self.specs = {}  # a moved module's own spec, kept across its aliased import

    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        self.specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module):
        """Nothing to run (the module ran under its new name); only put back its own ``__spec__``, which the
        import system has just overwritten with the old name's."""
        module.__spec__ = self.specs[module.__name__]


def install() -> None:
    """Add the finder to ``sys.meta_path`` once (after the standard finders: an old name has no file)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
