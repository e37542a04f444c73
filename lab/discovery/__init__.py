"""Discovering continuous symmetries from data (issue 33): learned Lie-algebra generators handed to the engine.

* ``tasks`` -- tasks with known answers: O(5), inertia (gl(3) and five mass-position trades: 14), Lorentz (so(1,3)
  and a trade between the lepton pairs: 7), a rotation in a sheared basis, and a function with no symmetry; the
  truth from the engine's rep language, and where the function has more symmetry than it is posed with, derived in
  ``tasks``;
* ``learn`` -- a fitted model's Lie derivative as a quadratic form in the generators; the gradient method (normalised,
  orthogonal, sparse, restarts) and the exact spectral one;
* ``algebra`` -- principal angles to the truth, structure constants and closure, the learned group with its stated
  tolerance (``LearnedGroup``: every solve of its reps uses it), the tolerant basis with the singular-value gap.

A science package: torch, numpy, scipy, no UI.
"""
from ..lazy import lazy_exports

#: the public names, each imported from its module on first use: torch loads only then, so the family's light
#: modules (its manifest, what ``lab --help`` reads) import without it
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("TOL", "LearnedGroup", "learned_group", "principal_angles", "structure_constants",
                     "tolerant_basis"), "algebra"),
    **dict.fromkeys(("METHODS", "TAU", "FitSettings", "fit", "learn_gradient", "learn_spectral",
                     "symmetry_form"), "learn"),
    **dict.fromkeys(("DISCOVERY", "TASKS", "get_task"), "tasks"),
})

__all__ = ["TOL", "LearnedGroup", "learned_group", "principal_angles", "structure_constants", "tolerant_basis",
           "METHODS", "TAU", "FitSettings", "fit", "learn_gradient", "learn_spectral", "symmetry_form", "DISCOVERY",
           "TASKS", "get_task"]
