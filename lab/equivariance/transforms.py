"""One-parameter image transformations ``t -> T_t(x)`` for batches ``(N, C, H, W)``, differentiable in ``t``.

The flows of thesis section 4.6 and appendix A.3.3.4: ``translate-x``, ``translate-y``, ``rotate``, ``scale``,
``shear``, ``hyperbolic`` (hyperbolic rotation), ``stretch`` and ``brighten``.  Each is a one-parameter group
(``T_s T_t = T_{s+t}`` on the continuous image), so ``d/dt T_t(x)|_{t=0}`` is its Lie-algebra generator applied to
``x`` (``ImageTransform.tangent``), the input tangent of every Lie derivative in ``lab.meter``.

Units.  ``t`` is in *pixels of the reference image* for the translations (``t = 1``: content moves one pixel right /
down), in *radians* for ``rotate`` (counter-clockwise as displayed, row 0 at the top, about the image centre), and
dimensionless for the rest: ``scale`` is the log-scale (content grows by ``e^t`` about the centre), ``shear`` moves
column ``x`` by ``t * y`` (``y`` = rows below the centre, in pixels), ``hyperbolic`` is ``[[cosh t, sinh t], [sinh t,
cosh t]]`` and ``stretch`` ``diag(e^t, e^-t)`` on (column, row) about the centre, ``brighten`` multiplies values by
``e^t``.  So a Lie derivative is "per pixel" or "per radian".  The thesis measures translations as a fraction of the
image in normalised coordinates ([-1, 1]); its translation Lie derivative is ``W / 2`` times the one here.  A tensor
of another size than the reference (an intermediate feature map, ``reference=``) is moved by the same geometric
transformation: ``t`` reference pixels are ``t * w / W`` of its own.

Resampling.  Pixel centres are at integer (column, row) positions; ``T_t(x)`` at pixel ``p`` is the interpolated
``x`` at ``g_{-t} p``.  Interpolation (``INTERPOLATIONS``):

* ``"bicubic"`` (default): Keys' cubic convolution with ``a = -0.75`` (what ``torch.nn.functional.grid_sample``'s
  bicubic mode uses; the two agree on every padding they share, tested).  It is C¹ in the sample position, so
  ``t -> T_t(x)`` is differentiable at ``t = 0`` and the forward-mode Lie derivative is the two-sided derivative, the
  limit of central finite differences.  That is why it is the default.
* ``"bilinear"``: the thesis's choice (section 4.6, with reflection padding).  It is piecewise linear with a kink
  at every integer position, and at ``t = 0`` every sample sits on a kink: only one-sided derivatives exist.  Here the
  derivative taken is always the *right* derivative ``t -> 0+`` (the sampler takes the cell a moving sample point
  enters), so the bilinear Lie derivative is well defined; ``grid_sample`` itself picks the side pixel by pixel by
  the rounding of its normalised coordinates (measured: mixed forward and backward differences in one float64 row).
* ``"fourier"``: translations only, by a phase shift of the discrete Fourier transform: exact for a periodic image
  band-limited to its grid (and C^∞ in ``t``).  Periodic padding is implied.  On an even size the Nyquist frequency
  is ambiguous (its cosine and sine agree on the grid); its real reading is kept, which shrinks that one component
  by ``cos(pi t)``, so shifts compose exactly (``T_s T_t = T_{s+t}``) only on odd sizes or without it; its
  contribution to the derivative at ``t = 0`` is 0 either way.

Padding (``PADDINGS``), for samples that fall outside the image: ``"circular"`` (default) wraps around, so a
translation is an exact group action on the periodic image: a map that commutes with translation there (a circular
convolution, the global mean) has a Lie derivative of zero to rounding, and any error the meter shows is the model's,
not the border's.  ``"reflection"`` (half-sample symmetric; the thesis's choice), ``"border"`` (edge value repeated)
and ``"zeros"`` are offered; zeros makes even a pointwise affine map ``a x + b`` non-equivariant at the border.

Why not ``grid_sample`` itself: it has no forward-mode autodiff in this torch (``torch.func.jvp`` through it
raises), its normalised coordinates put samples at ``t = 0`` a rounding error off the pixel (see bilinear above), and
it has no circular padding.  The sampler here is the same arithmetic written with gathers, so ``torch.func.jvp`` and
every higher derivative go through it (the thesis's authors replace ``grid_sample`` the same way, Figure 4.3).

>>> import torch
>>> x = torch.arange(16.).reshape(1, 1, 4, 4)
>>> T = ImageTransform("translate-x", interpolation="bilinear")
>>> T(x, 1.0)[0, 0, 0].tolist()     # one pixel right, periodic
[3.0, 0.0, 1.0, 2.0]
>>> T.tangent(x)[0, 0, 0].tolist()  # d/dt at 0+: -(x[p] - x[p-1])
[3.0, -1.0, -1.0, -1.0]
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..errors import LabError


class MeterError(LabError, ValueError):
    """A transformation, interpolation, padding, model or input the equivariance meter cannot use."""


#: the transformations, in the thesis's order (section 4.6, appendix A.3.3.4)
TRANSFORMS = ("translate-x", "translate-y", "rotate", "scale", "shear", "hyperbolic", "stretch", "brighten")
#: how samples between pixels are read; the first is the default (see the module docstring for why)
INTERPOLATIONS = ("bicubic", "bilinear", "fourier")
#: what lies outside the image; the first is the default
PADDINGS = ("circular", "reflection", "border", "zeros")
DEFAULT_INTERPOLATION = INTERPOLATIONS[0]
DEFAULT_PADDING = PADDINGS[0]
#: the thesis's own setting (section 4.6): bilinear interpolation with reflection padding
THESIS_SETTING = {"interpolation": "bilinear", "padding": "reflection"}
#: the unit of ``t`` per transformation (for reports: a Lie derivative is "per <unit>")
UNITS = {"translate-x": "pixel", "translate-y": "pixel", "rotate": "radian", "scale": "unit log-scale",
         "shear": "unit shear", "hyperbolic": "unit rapidity", "stretch": "unit log-stretch",
         "brighten": "unit log-brightness"}

_KEYS_A = -0.75  # grid_sample's (and OpenCV's) bicubic constant


def _choice(value: str, allowed: tuple, what: str) -> str:
    if value not in allowed:
        raise MeterError(f"unknown {what} {value!r}: choose one of {', '.join(allowed)}")
    return value


@dataclass(frozen=True)
class ImageTransform:
    """The one-parameter group ``kind`` acting on images ``(N, C, H, W)``.

    ``reference``: the (H, W) whose pixel is the unit of ``t`` and whose centre-relative geometry is kept; ``None``:
    each tensor's own size.  The meter sets it to the model input's size, so that feature maps of other sizes are
    moved by the same geometric transformation.
    """

    kind: str
    interpolation: str = DEFAULT_INTERPOLATION
    padding: str = DEFAULT_PADDING
    reference: tuple[int, int] | None = None

    def __post_init__(self):
        _choice(self.kind, TRANSFORMS, "transformation")
        _choice(self.interpolation, INTERPOLATIONS, "interpolation")
        _choice(self.padding, PADDINGS, "padding")
        if self.interpolation == "fourier":
            if self.kind not in ("translate-x", "translate-y", "brighten"):
                raise MeterError(f"fourier interpolation shifts images: it applies to translate-x and translate-y, "
                                 f"not {self.kind} (use bicubic)")
            if self.padding != "circular":
                raise MeterError("fourier interpolation treats the image as periodic: use padding 'circular'")
        if self.reference is not None:
            ref = tuple(int(r) for r in self.reference)
            if len(ref) != 2 or min(ref) < 1:
                raise MeterError(f"reference must be a (height, width) of positive sizes, got {self.reference!r}")
            object.__setattr__(self, "reference", ref)

    def at(self, reference) -> "ImageTransform":
        """The same transformation with ``reference`` (H, W) as its unit."""
        return ImageTransform(self.kind, self.interpolation, self.padding, tuple(reference))

    # ------------------------------------------------------------------ the action
    def __call__(self, x: torch.Tensor, t) -> torch.Tensor:
        """``T_t(x)`` for ``x`` (N, C, H, W) and a scalar ``t`` (float or 0-dim tensor; differentiable in both)."""
        if x.dim() != 4:
            raise MeterError(f"an image transformation needs images (N, C, H, W), got shape {tuple(x.shape)}")
        t = torch.as_tensor(t, dtype=x.dtype, device=x.device)
        if t.dim() != 0:
            raise MeterError(f"t must be a scalar, got shape {tuple(t.shape)}")
        if self.kind == "brighten":
            return x * torch.exp(t)
        if self.interpolation == "fourier":
            return self._fourier_shift(x, t)
        px, py, vx, vy = self._source(x, t)
        return _resample(x, px, py, vx, vy, self.interpolation, self.padding)

    def tangent(self, x: torch.Tensor) -> torch.Tensor:
        """``d/dt T_t(x)`` at ``t = 0`` (the generator applied to ``x``), by forward-mode autodiff."""
        zero = torch.zeros((), dtype=x.dtype, device=x.device)
        return torch.func.jvp(lambda t: self(x, t), (zero,), (torch.ones_like(zero),))[1]

    # ------------------------------------------------------------------ geometry
    def _scale(self, h: int, w: int) -> tuple[float, float]:
        H, W = self.reference if self.reference is not None else (h, w)
        return w / W, h / H

    def _source(self, x, t):
        """Where each output pixel reads from (``g_{-t} p``, columns and rows, (h, w) each) and the direction that
        point moves as ``t`` grows (its sign picks the bilinear cell at ``t = 0``)."""
        h, w = x.shape[-2:]
        sx, sy = self._scale(h, w)
        cx, cy = (w - 1) / 2, (h - 1) / 2
        rows, cols = torch.meshgrid(torch.arange(h, dtype=x.dtype, device=x.device),
                                    torch.arange(w, dtype=x.dtype, device=x.device), indexing="ij")
        u, v = (cols - cx) / sx, (rows - cy) / sy  # reference pixels from the centre
        k = self.kind
        # du, dv: g_{-t}(u, v) - (u, v), exactly 0 at t = 0; fu, fv: the flow's field d/dt g_t(u, v) at t = 0
        if k == "translate-x":
            du, dv, fu, fv = -t * torch.ones_like(u), torch.zeros_like(v), torch.ones_like(u), torch.zeros_like(v)
        elif k == "translate-y":
            du, dv, fu, fv = torch.zeros_like(u), -t * torch.ones_like(v), torch.zeros_like(u), torch.ones_like(v)
        elif k == "rotate":  # g_t = [[cos, sin], [-sin, cos]] on (column, row-down): counter-clockwise on screen
            c, s = torch.cos(t), torch.sin(t)
            du, dv, fu, fv = (c - 1) * u - s * v, s * u + (c - 1) * v, v, -u
        elif k == "scale":
            e = torch.expm1(-t)
            du, dv, fu, fv = e * u, e * v, u, v
        elif k == "shear":
            du, dv, fu, fv = -t * v, torch.zeros_like(v), v, torch.zeros_like(v)
        elif k == "hyperbolic":
            ch, sh = torch.cosh(t) - 1, torch.sinh(t)
            du, dv, fu, fv = ch * u - sh * v, -sh * u + ch * v, v, u
        elif k == "stretch":
            du, dv, fu, fv = torch.expm1(-t) * u, torch.expm1(t) * v, u, -v
        else:  # pragma: no cover - validated in __post_init__
            raise MeterError(k)
        # the source point moves along -field as t grows
        return cols + sx * du, rows + sy * dv, -fu, -fv

    def _fourier_shift(self, x, t):
        h, w = x.shape[-2:]
        sx, sy = self._scale(h, w)
        dim, n, shift = (-1, w, t * sx) if self.kind == "translate-x" else (-2, h, t * sy)
        X = torch.fft.rfft(x, dim=dim)
        k = torch.arange(n // 2 + 1, dtype=x.dtype, device=x.device)
        phase = torch.polar(torch.ones_like(k), -2 * math.pi * k * shift / n)
        if dim == -2:
            phase = phase[:, None]
        # irfft keeps the real part of the Nyquist bin (even n): the band-limited, real reading of a shift
        return torch.fft.irfft(X * phase, n=n, dim=dim)


def _pad_index(i: torch.Tensor, n: int, padding: str):
    """Tap indices into range; also the mask of taps that read a real pixel (only ``zeros`` uses it)."""
    if padding == "circular":
        return torch.remainder(i, n), None
    if padding == "reflection":  # half-sample symmetric: -1 -> 0, n -> n - 1 (grid_sample's, align_corners=False)
        m = torch.remainder(i, 2 * n)
        return torch.where(m >= n, 2 * n - 1 - m, m), None
    inside = (i >= 0) & (i < n)
    return i.clamp(0, n - 1), (inside if padding == "zeros" else None)


def _taps(coord, velocity, n, interpolation, padding):
    """Indices (.., K) and weights (.., K) of the 1-D interpolation taps at ``coord``."""
    base = torch.floor(coord)
    if interpolation == "bilinear":
        # on a pixel, a point moving left enters the cell to its left: take it, so d/dt is the right derivative
        base = torch.where((coord == base) & (velocity < 0), base - 1, base)
        f = coord - base
        offsets, weights = (0, 1), [1 - f, f]
    else:  # Keys cubic convolution, a = -0.75; distances 1 + f, f, 1 - f, 2 - f
        f = coord - base
        a = _KEYS_A

        def near(s):  # |s| <= 1
            return ((a + 2) * s - (a + 3)) * s * s + 1

        def far(s):  # 1 < |s| < 2
            return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
        offsets, weights = (-1, 0, 1, 2), [far(1 + f), near(f), near(1 - f), far(2 - f)]
    idx = torch.stack([base + o for o in offsets], -1).long()
    w = torch.stack(weights, -1)
    idx, inside = _pad_index(idx, n, padding)
    if inside is not None:
        w = w * inside.to(w.dtype)
    return idx, w


def _resample(x, px, py, vx, vy, interpolation, padding):
    """``x`` read at columns ``px`` and rows ``py`` (each (h, w)), by separable taps."""
    N, C, H, W = x.shape
    ix, wx = _taps(px, vx, W, interpolation, padding)
    iy, wy = _taps(py, vy, H, interpolation, padding)
    flat = x.reshape(N, C, H * W)
    out = None
    for a in range(iy.shape[-1]):
        for b in range(ix.shape[-1]):
            term = flat[:, :, iy[..., a] * W + ix[..., b]] * (wy[..., a] * wx[..., b])
            out = term if out is None else out + term
    return out
