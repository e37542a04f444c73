"""The equivariance meter: how equivariant is a torch model, and which layer breaks it (thesis chapter 4).

The image transformations and the Lie derivatives the meter reads (``ImageTransform``, ``lie_derivative``,
``lee``, ``generator_lee``, ...) live in the shared equivariance layer, ``lab.equivariance``.

* ``layerwise_lie_derivative``, ``probe_norms`` -- the layer-wise decomposition ``L_X f = sum_i C_i`` (eq. 4.6) with
  forward hooks on any ``nn.Module``, and the thesis's Gaussian-probe estimates of ``|C_i|`` (``lab.meter.layerwise``);
* ``MODELS``, ``build``, ``train``, ``digits_data`` -- the small digits CNN in strided, blurred (``BlurPool``) and
  smooth-activation variants, trained here (``lab.meter.cnn``); ``AliasingConfig``, ``aliasing_study``,
  ``lee_report`` -- the aliasing study of sections 4.5-4.6: LEE per variant, transformation and input set (train,
  test, a held-out class, noise), the layer kinds' shares (``lab.meter.aliasing``);
* ``transformed_example``, ``cumulative_contributions`` -- the numbers the meter's pictures draw: one input under its
  flow with the output's change and tangent, and Figure 4.4's cumulative layer contributions (``lab.meter.example``).

A science package: torch and numpy, no UI; bad input raises ``lab.equivariance.MeterError`` (a ``LabError``).
"""
from ..lazy import lazy_exports

#: the public names, each imported from its module on first use: torch loads only then, so the family's light
#: modules (``presets``: what ``lab --help`` and the manifest read) import without it
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("Decomposition", "LayerContribution", "ProbeNorm", "layerwise_lie_derivative", "probe_norms",
                     "select_modules"), "layerwise"),
    **dict.fromkeys(("LAYER_KINDS", "MODEL_NAMES", "MODELS", "BlurPool", "DigitsData", "Trained", "TrainSettings",
                     "build", "digits_data", "layer_kind", "train"), "cnn"),
    **dict.fromkeys(("INPUTS", "AliasingConfig", "AliasingResult", "input_sets", "kind_contributions",
                     "kind_summary", "lee_report", "summarize", "table"), "aliasing"),
    "aliasing_study": "aliasing:run",
    **dict.fromkeys(("cumulative_contributions", "transformed_example"), "example"),
})

__all__ = ["layerwise_lie_derivative", "probe_norms", "select_modules", "Decomposition", "LayerContribution",
           "ProbeNorm", "MODELS", "MODEL_NAMES", "build", "BlurPool", "digits_data", "DigitsData", "train", "Trained",
           "TrainSettings", "layer_kind", "LAYER_KINDS", "AliasingConfig", "AliasingResult", "aliasing_study",
           "summarize", "table", "lee_report", "input_sets", "kind_contributions", "kind_summary", "INPUTS",
           "transformed_example", "cumulative_contributions"]
