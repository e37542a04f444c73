"""The Residual Pathway Priors chapter's science (thesis ch. 3): its data, the three symmetry regimes of Figure 3.2
(``lab.rpp.tasks``: exact, approximate and misspecified, on the inertia and the double pendulum), training MLP, EMLP
and RPP-EMLP on them (``lab.rpp.train``; on the pendulum, as Hamiltonian networks, ``lab.rpp.pendulum``; the
experiment family ``lab rpp`` is ``lab.experiments.rpp``), and section 3.5.2's studies: the deep ensembles'
equivariance through training (``lab.rpp.posterior.posterior_levels``) and the priors against the wind
(``lab.rpp.pendulum.prior_wind_grid``).  The models, RPP-EMLP, live in ``lab.nn.rpp``.

>>> [r.name for r in REGIMES.values()]  # doctest: +NORMALIZE_WHITESPACE
['inertia-exact', 'inertia-approximate', 'inertia-misspecified', 'pendulum-exact', 'pendulum-approximate',
 'pendulum-misspecified']
"""
from .tasks import (DEFAULT_VARIANT, EPS, MEASURES, MODIFIED_INERTIA, MODIFIED_INERTIA_ORIGINAL, REGIMES, SYMMETRIES,
                    TASKS, VARIANTS, W0, WINDY_PENDULUM, Regime, RegimeError, added_term_scale, modified_inertia,
                    modified_inertia_target, regime, target_symmetry_error, target_symmetry_errors, windy_pendulum)
from .train import MODELS, PRIOR_NAMES, RPPTrainError, objective, train_model, train_rpp
from .pendulum import build_rpp, pendulum_chunks, prior_wind_grid, summed_nll
from .posterior import POSTERIOR, PosteriorError, posterior_levels
from .pendulum import train as train_pendulum

__all__ = ["TASKS", "SYMMETRIES", "VARIANTS", "DEFAULT_VARIANT", "added_term_scale", "MEASURES", "REGIMES", "Regime",
           "RegimeError", "regime",
           "MODIFIED_INERTIA", "MODIFIED_INERTIA_ORIGINAL", "modified_inertia", "modified_inertia_target",
           "WINDY_PENDULUM", "windy_pendulum", "EPS", "W0", "target_symmetry_error", "target_symmetry_errors",
           "MODELS", "PRIOR_NAMES", "RPPTrainError", "objective", "train_model", "train_rpp",
           "build_rpp", "pendulum_chunks", "summed_nll", "train_pendulum", "prior_wind_grid", "POSTERIOR",
           "PosteriorError", "posterior_levels"]
