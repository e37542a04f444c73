"""What the meter's pictures show: one input under its transformation, and the layers' contributions cumulatively.

* ``transformed_example(model, x, transform)`` -- one image ``x`` moved along the flow, ``T_t(x)`` at a few ``t``
  (the "transformed versions" a reader looks at), and the model's output ``f(T_t x)`` on a fine grid of ``t``
  beside its tangent line at ``t = 0``, ``f(x) + t L_X f(x)``: for an invariant output (class probabilities) the Lie
  derivative *is* the slope of the output along the flow, so a curve that bends away from its tangent within a
  fraction of a pixel is the aliasing of section 4.4 drawn.  The span of ``t`` (``SPANS``) is a pixel for the
  translations and a comparable move for the others: enough to see the output change, small enough for the
  tangent to mean something.
* ``cumulative_contributions(layers)`` -- thesis Figure 4.4: the per-layer numbers ``E|C_i|`` of
  ``lee_report(..., layerwise=True)`` summed in layer order, and as a fraction of their total.  (The norms do not
  add up to ``E|L_X f|``; the figure shows where along the depth the error enters, not a partition of it.  The
  signed ``share`` column is the partition, adding up to 1.)

Numbers only (numpy and plain dicts): the dashboard's Bokeh figures and the notebook's matplotlib ones draw these.
"""
from __future__ import annotations

import numpy as np
import torch

from .aliasing import measurable
from ..equivariance.lie import lie_derivative
from ..equivariance.transforms import DEFAULT_INTERPOLATION, DEFAULT_PADDING, UNITS, ImageTransform, MeterError

#: half-width of the ``t`` range shown per transformation, in its units (``lab.equivariance.transforms.UNITS``): one pixel for
#: the translations; for the others a move of about one pixel at the border of an 8 x 8 image
SPANS = {"translate-x": 1.0, "translate-y": 1.0, "rotate": 0.3, "scale": 0.25, "shear": 0.3, "hyperbolic": 0.25,
         "stretch": 0.25, "brighten": 0.5}
#: transformed versions drawn (odd: the middle one is the input itself) and points of the output curve
VERSIONS, CURVE_POINTS = 5, 41


def transformed_example(model: torch.nn.Module, x: torch.Tensor, transform: str, output: str = "probs",
                        interpolation: str = DEFAULT_INTERPOLATION, padding: str = DEFAULT_PADDING,
                        span: float | None = None, versions: int = VERSIONS, points: int = CURVE_POINTS) -> dict:
    """One image ``x`` (1, C, H, W) or (C, H, W) under ``transform``.  Returns plain numbers:

    ``t_versions`` (versions,) and ``images`` (versions, H, W) -- ``T_t(x)``, channel 0; ``t`` (points,) and
    ``outputs`` (points, classes) -- ``f(T_t x)``; ``output0`` and ``lie`` (classes,) -- ``f(x)`` and ``L_X f(x)``;
    ``top`` (the class ``f(x)`` ranks first), ``unit`` ("pixel", "radian", ...), ``lee`` (``|L_X f(x)|^2 / dim``,
    this input's term of eq. 4.4) and the settings.  ``model`` is measured as the meter measures it (float64, eval,
    with a softmax for ``output="probs"``)."""
    if transform not in SPANS:
        raise MeterError(f"unknown transformation {transform!r}: choose one of {', '.join(SPANS)}")
    if not isinstance(x, torch.Tensor) or x.dim() not in (3, 4) or (x.dim() == 4 and x.shape[0] != 1):
        raise MeterError(f"one image (1, C, H, W) or (C, H, W) is needed, got "
                         f"{tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__}")
    for name, n in (("versions", versions), ("points", points)):
        if not isinstance(n, int) or n < 2:
            raise MeterError(f"{name} must be an integer of at least 2, got {n!r}")
    span = SPANS[transform] if span is None else float(span)
    if not span > 0:
        raise MeterError(f"span must be positive, got {span!r}")
    net = measurable(model, output)
    x64 = (x if x.dim() == 4 else x[None]).detach().cpu().double()
    T = ImageTransform(transform, interpolation, padding).at(x64.shape[-2:])
    tv = np.linspace(-span, span, versions)
    tc = np.linspace(-span, span, points)
    with torch.no_grad():
        images = torch.cat([T(x64, float(t)) for t in tv])[:, 0]
        moved = torch.cat([T(x64, float(t)) for t in tc])
        outputs = net(moved).reshape(points, -1)
        y0 = net(x64).reshape(-1)
    lie = lie_derivative(net, x64, T).detach().reshape(-1)
    return {"transform": transform, "unit": UNITS[transform], "output": output, "interpolation": interpolation,
            "padding": padding, "t_versions": tv, "images": images.numpy(), "t": tc, "outputs": outputs.numpy(),
            "output0": y0.numpy(), "lie": lie.numpy(), "top": int(y0.argmax()),
            "lee": float(lie.pow(2).mean())}


def cumulative_contributions(layers: list[dict]) -> list[dict]:
    """Thesis Figure 4.4's data: ``layers`` (rows with ``name`` and ``contribution`` = ``E|C_i|``, in layer order,
    as ``lee_report`` gives them) with ``cumulative`` (the running sum) and ``fraction`` (it over the total; 0
    throughout when every contribution is 0) added; the input rows are not changed."""
    out, run = [], 0.0
    values = [float(r["contribution"]) for r in layers]
    if any(not np.isfinite(v) or v < 0 for v in values):
        raise MeterError("contributions must be finite and non-negative (they are norms E|C_i|)")
    total = sum(values)
    for r, v in zip(layers, values):
        run += v
        out.append({**r, "cumulative": run, "fraction": run / total if total > 0 else 0.0})
    return out
