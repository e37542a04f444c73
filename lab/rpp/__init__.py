"""The Residual Pathway Priors chapter's science (thesis ch. 3): its data, the three symmetry regimes of Figure 3.2
(``lab.rpp.tasks``: exact, approximate and misspecified, on the inertia and the double pendulum), training MLP, EMLP
and RPP-EMLP on them (``lab.rpp.train``; on the pendulum, as Hamiltonian networks, ``lab.rpp.pendulum``; the
experiment family ``lab rpp`` is ``lab.rpp.family``), and section 3.5.2's studies: the deep ensembles'
equivariance through training (``lab.rpp.posterior.posterior_levels``) and the priors against the wind
(``lab.rpp.pendulum.prior_wind_grid``).  The models, RPP-EMLP, live in ``lab.rpp.nn``.

>>> [r.name for r in REGIMES.values()]  # doctest: +NORMALIZE_WHITESPACE
['inertia-exact', 'inertia-approximate', 'inertia-misspecified', 'pendulum-exact', 'pendulum-approximate',
 'pendulum-misspecified']
"""
from ..lazy import lazy_exports

#: the public names, each imported from its module on first use: torch loads only then, so the family's light
#: modules (its manifest, what ``lab --help`` reads) import without it
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("DEFAULT_VARIANT", "EPS", "MEASURES", "MODIFIED_INERTIA", "MODIFIED_INERTIA_ORIGINAL",
                     "REGIMES", "SYMMETRIES", "TASKS", "VARIANTS", "W0", "WINDY_PENDULUM", "Regime", "RegimeError",
                     "added_term_scale", "modified_inertia", "modified_inertia_target", "regime",
                     "target_symmetry_error", "target_symmetry_errors", "windy_pendulum"), "tasks"),
    **dict.fromkeys(("MODELS", "PRIOR_NAMES", "RPPTrainError", "objective", "train_model", "train_rpp"), "train"),
    **dict.fromkeys(("build_rpp", "pendulum_chunks", "prior_wind_grid", "summed_nll"), "pendulum"),
    **dict.fromkeys(("POSTERIOR", "PosteriorError", "posterior_levels"), "posterior"),
    **dict.fromkeys(("train_pendulum",), "pendulum:train"),
})

__all__ = ["TASKS", "SYMMETRIES", "VARIANTS", "DEFAULT_VARIANT", "added_term_scale", "MEASURES", "REGIMES", "Regime",
           "RegimeError", "regime",
           "MODIFIED_INERTIA", "MODIFIED_INERTIA_ORIGINAL", "modified_inertia", "modified_inertia_target",
           "WINDY_PENDULUM", "windy_pendulum", "EPS", "W0", "target_symmetry_error", "target_symmetry_errors",
           "MODELS", "PRIOR_NAMES", "RPPTrainError", "objective", "train_model", "train_rpp",
           "build_rpp", "pendulum_chunks", "summed_nll", "train_pendulum", "prior_wind_grid", "POSTERIOR",
           "PosteriorError", "posterior_levels"]
