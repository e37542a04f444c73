"""The equivariance meter: how equivariant is a torch model, and which layer breaks it (thesis chapter 4).

* ``ImageTransform``, ``TRANSFORMS``, ``INTERPOLATIONS``, ``PADDINGS`` -- differentiable one-parameter image
  transformations (translations in pixels, rotation in radians, scale, shear, hyperbolic rotation, stretch,
  brightening) by resampling (``lab.meter.transforms``);
* ``lie_derivative``, ``lee``, ``lee_per_input`` -- ``L_X f(x)`` and the local equivariance error
  ``E_x |L_X f(x)|^2 / dim(out)`` (eq. 4.4) of any model on images, by forward-mode autodiff (``lab.meter.lie``);
* ``generator_lie_derivatives``, ``generator_lee``, ``discrete_equivariance_errors`` -- the same for the engine's
  groups and reps: one Lie derivative per Lie-algebra generator, and the relative error over sampled elements for
  finite groups (``lab.meter.lie``);
* ``layerwise_lie_derivative``, ``probe_norms`` -- the layer-wise decomposition ``L_X f = sum_i C_i`` (eq. 4.6) with
  forward hooks on any ``nn.Module``, and the thesis's Gaussian-probe estimates of ``|C_i|`` (``lab.meter.layerwise``);
* ``MODELS``, ``build``, ``train``, ``digits_data`` -- the small digits CNN in strided, blurred (``BlurPool``) and
  smooth-activation variants, trained here (``lab.meter.cnn``); ``AliasingConfig``, ``aliasing_study``,
  ``lee_report`` -- the aliasing study of sections 4.5-4.6: LEE per variant, transformation and input set (train,
  test, a held-out class, noise), the layer kinds' shares (``lab.meter.aliasing``);
* ``transformed_example``, ``cumulative_contributions`` -- the numbers the meter's pictures draw: one input under its
  flow with the output's change and tangent, and Figure 4.4's cumulative layer contributions (``lab.meter.example``).

A science package: torch and numpy, no UI; bad input raises ``MeterError`` (a ``LabError``).
"""
from ..lazy import lazy_exports

#: the public names, each imported from its module on first use: torch loads only then, so the family's light
#: modules (``presets``: what ``lab --help`` and the manifest read) import without it
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("Decomposition", "LayerContribution", "ProbeNorm", "layerwise_lie_derivative", "probe_norms",
                     "select_modules"), "layerwise"),
    **dict.fromkeys(("METHODS", "OUTPUTS", "discrete_equivariance_errors", "generator_lee",
                     "generator_lie_derivatives", "jvp", "lee", "lee_per_input", "lie_derivative"), "lie"),
    **dict.fromkeys(("LAYER_KINDS", "MODEL_NAMES", "MODELS", "BlurPool", "DigitsData", "Trained", "TrainSettings",
                     "build", "digits_data", "layer_kind", "train"), "cnn"),
    **dict.fromkeys(("INPUTS", "AliasingConfig", "AliasingResult", "input_sets", "kind_contributions",
                     "kind_summary", "lee_report", "summarize", "table"), "aliasing"),
    "aliasing_study": "aliasing:run",
    **dict.fromkeys(("cumulative_contributions", "transformed_example"), "example"),
    **dict.fromkeys(("DEFAULT_INTERPOLATION", "DEFAULT_PADDING", "INTERPOLATIONS", "PADDINGS", "THESIS_SETTING",
                     "TRANSFORMS", "UNITS", "ImageTransform", "MeterError"), "transforms"),
})

__all__ = ["ImageTransform", "MeterError", "TRANSFORMS", "INTERPOLATIONS", "PADDINGS", "DEFAULT_INTERPOLATION",
           "DEFAULT_PADDING", "THESIS_SETTING", "UNITS", "METHODS", "OUTPUTS", "jvp", "lie_derivative", "lee",
           "lee_per_input", "generator_lie_derivatives", "generator_lee", "discrete_equivariance_errors",
           "layerwise_lie_derivative", "probe_norms", "select_modules", "Decomposition", "LayerContribution",
           "ProbeNorm", "MODELS", "MODEL_NAMES", "build", "BlurPool", "digits_data", "DigitsData", "train", "Trained",
           "TrainSettings", "layer_kind", "LAYER_KINDS", "AliasingConfig", "AliasingResult", "aliasing_study",
           "summarize", "table", "lee_report", "input_sets", "kind_contributions", "kind_summary", "INPUTS",
           "transformed_example", "cumulative_contributions"]
