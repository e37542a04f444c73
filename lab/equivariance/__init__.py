"""The shared equivariance layer: how equivariant is a model, measured by forward-mode Lie derivatives, and the
audit's verdict on it.  Every family that measures a model uses it (the meter, the audit of trained EMLPs and
training-dynamics runs, the discovery's check of learned generators); it imports no family.

* ``ImageTransform``, ``TRANSFORMS``, ``INTERPOLATIONS``, ``PADDINGS``, ``UNITS``, ``MeterError`` -- differentiable
  one-parameter image transformations by resampling (``lab.equivariance.transforms``);
* ``lie_derivative``, ``lee``, ``lee_per_input``, ``jvp`` -- ``L_X f(x)`` and the local equivariance error of any
  model on images (thesis eq. 4.4); ``generator_lie_derivatives``, ``generator_lee``,
  ``discrete_equivariance_errors`` -- the same for the engine's groups and reps (``lab.equivariance.lie``);

The audit (issue 29): ``audit(model, group, rep_in, rep_out)`` measures a model's equivariance error per Lie-algebra
generator and per group element against a tolerance for its dtype, names the first layer that breaks it, and refuses
user-declared reps that are not homomorphisms.

* ``audit``, ``tolerance_for``, ``eps``, ``TOLERANCE_FACTOR`` -- ``lab.equivariance.measure``;
* ``AuditResult`` (``ok``, ``worst``, ``per_generator``, ``per_element``, ``layers``, ``first_breaking_layer``,
  ``tolerance``, ``text()``, ``to_dict()``), ``AuditError``, ``AuditWarning`` -- ``lab.equivariance.result``;
* ``check_rep``, ``HomomorphismError``, ``HOM_TOLERANCE`` -- ``lab.equivariance.homomorphism``.
"""
from .transforms import (DEFAULT_INTERPOLATION, DEFAULT_PADDING, INTERPOLATIONS, PADDINGS, THESIS_SETTING, TRANSFORMS,
                         UNITS, ImageTransform, MeterError)
from .homomorphism import HOM_TOLERANCE, HomomorphismCheck, HomomorphismError, check_leaf, check_rep, user_leaves
from .measure import DEFAULT_INPUTS, DEFAULT_SAMPLES, TOLERANCE_FACTOR, audit, eps, tolerance_for
from .lie import (METHODS, OUTPUTS, discrete_equivariance_errors, generator_lee, generator_lie_derivatives, jvp,
                  lee, lee_per_input, lie_derivative)
from .result import AuditError, AuditResult, AuditWarning, Check, ElementCheck, GeneratorCheck, LayerCheck

__all__ = ["audit", "eps", "tolerance_for", "TOLERANCE_FACTOR", "DEFAULT_SAMPLES", "DEFAULT_INPUTS", "AuditResult",
           "AuditError", "AuditWarning", "Check", "ElementCheck", "GeneratorCheck", "LayerCheck", "check_rep",
           "check_leaf", "user_leaves", "HomomorphismError", "HomomorphismCheck", "HOM_TOLERANCE",
           "ImageTransform", "MeterError", "TRANSFORMS", "INTERPOLATIONS", "PADDINGS", "DEFAULT_INTERPOLATION",
           "DEFAULT_PADDING", "THESIS_SETTING", "UNITS", "METHODS", "OUTPUTS", "jvp", "lie_derivative", "lee",
           "lee_per_input", "generator_lie_derivatives", "generator_lee", "discrete_equivariance_errors"]
