"""Ensembles become equivariant under data augmentation (Nordenfors & Flinth; the poster in ``shared/seeds``).

* ``network`` -- the members: a small bias-free CNN as a function of stacked parameters (``ensemble_logits``), its
  filters restricted to a support; C4 on images and its lifted action on parameters (``rotate_images``,
  ``rotate_parameters``); the three settings and the checks of the theorem's assumptions (``SETTINGS``,
  ``check_assumptions``);
* ``train`` -- every member trained at once by projected SGD under sampled, exact-orbit or no augmentation;
* ``mechanism`` -- the theorem's mechanism exactly: the group-averaged ensemble of one member's orbit, at
  initialisation and trained with orbit-averaged or sampled augmentation (``group_average_errors``);
* ``metrics`` -- the ensemble's equivariance error, symmetric KL and orbit-same-prediction, per ensemble size by
  resampling a pool, and the fitted log-log slope.

A science package: torch and numpy, no UI; bad input raises ``EnsembleError`` (a ``LabError``).
"""
from ..lazy import lazy_exports

#: the public names, each imported from its module on first use: torch loads only then, so the family's light
#: modules (its manifest, what ``lab --help`` reads) import without it
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("AVERAGES", "METRICS", "ensemble_output", "fit_slope", "invariance_metrics", "orbit_logits",
                     "size_curve"), "metrics"),
    **dict.fromkeys(("ORDER", "SETTINGS", "SUPPORTS", "EnsembleError", "check_assumptions", "ensemble_logits",
                     "group_average_members", "init_members", "member_logits", "parameter_count", "rotate_images",
                     "rotate_parameters", "support_invariant"), "network"),
    **dict.fromkeys(("AUGMENTS", "TrainSettings", "loop_step", "sgd_step", "train"), "train"),
    **dict.fromkeys(("group_average_errors", "lifted_action_error"), "mechanism"),
})

__all__ = ["AVERAGES", "METRICS", "ensemble_output", "fit_slope", "invariance_metrics", "orbit_logits", "size_curve",
           "ORDER", "SETTINGS", "SUPPORTS", "EnsembleError", "check_assumptions", "ensemble_logits",
           "group_average_members", "init_members", "member_logits", "parameter_count", "rotate_images",
           "rotate_parameters", "support_invariant", "AUGMENTS", "TrainSettings", "loop_step", "sgd_step", "train",
           "group_average_errors", "lifted_action_error"]
