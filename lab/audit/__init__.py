"""The equivariance audit (issue 29): ``audit(model, group, rep_in, rep_out)`` measures a model's equivariance
error per Lie-algebra generator and per group element against a tolerance for its dtype, names the first layer
that breaks it, and refuses user-declared reps that are not homomorphisms.

* ``audit``, ``tolerance_for``, ``eps``, ``TOLERANCE_FACTOR`` -- ``lab.audit.measure``;
* ``AuditResult`` (``ok``, ``worst``, ``per_generator``, ``per_element``, ``layers``, ``first_breaking_layer``,
  ``tolerance``, ``text()``, ``to_dict()``), ``AuditError``, ``AuditWarning`` -- ``lab.audit.result``;
* ``check_rep``, ``HomomorphismError``, ``HOM_TOLERANCE`` -- ``lab.audit.homomorphism``.
"""
from .homomorphism import HOM_TOLERANCE, HomomorphismCheck, HomomorphismError, check_leaf, check_rep, user_leaves
from .measure import DEFAULT_INPUTS, DEFAULT_SAMPLES, TOLERANCE_FACTOR, audit, eps, tolerance_for
from .result import AuditError, AuditResult, AuditWarning, Check, ElementCheck, GeneratorCheck, LayerCheck

__all__ = ["audit", "eps", "tolerance_for", "TOLERANCE_FACTOR", "DEFAULT_SAMPLES", "DEFAULT_INPUTS", "AuditResult",
           "AuditError", "AuditWarning", "Check", "ElementCheck", "GeneratorCheck", "LayerCheck", "check_rep",
           "check_leaf", "user_leaves", "HomomorphismError", "HomomorphismCheck", "HOM_TOLERANCE"]
