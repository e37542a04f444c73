"""Which layer breaks equivariance: the layer-wise decomposition of the Lie derivative (section 4.5, eq. 4.6, A.3.1).

The Lie derivative obeys a chain rule (eq. 4.5, appendix A.3.1.2): for ``NN = f_N o ... o f_1``,
``L_X(NN)(x) = sum_i C_i`` with ``C_i = df_{N:i+1} L_X f_i`` (eq. 4.6): layer ``i``'s own Lie derivative at its input
``x_{i-1}``, ``L_X f_i = d/dt rho_i(g_{-t}) f_i(rho_{i-1}(g_t) x_{i-1})|_0`` (transform the layer's input, apply the
layer, transform its output back: how far the layer is from commuting with the transformation), carried to the
output by the Jacobian of everything downstream.  Each ``C_i`` is a vector the size of the output.

Every intermediate tensor needs a representation of its own; the one chosen here is read off its shape, the same
rule as ``lab.equivariance.lie``: an (N, C, h, w) tensor with more than one pixel is an image, moved by the same geometric
transformation at its own size (``ImageTransform.at``: ``t`` is in pixels of the model's input), anything else is
invariant.  Any consistent choice makes the sum telescope, so the ``C_i`` add up to the model's Lie derivative
exactly (to rounding) whenever the hooked modules, in the order they run, are the whole computation
(``nn.Sequential`` of leaves, or a forward that only chains hooked modules).  Work done outside hooked modules
(a functional ``F.relu`` or ``x + skip`` in a ``forward``) is no layer's: it is returned as ``unattributed`` =
total - sum_i C_i, so the books always balance.  A flatten is a layer in its own right (image in, invariant vector
out), and so is a pooling to 1 x 1.

Norms.  Only ``|L_X f| <= sum_i |C_i|`` holds: contributions of opposite sign cancel in the total, so per-layer
norms need not add up to the total's (the thesis's Figure 4.4 plots them cumulatively all the same).  The exact
``|C_i|`` come with the vectors; ``probe_norms`` estimates ``|C_i|^2`` as the thesis does (appendix A.3.1.3), with
Gaussian probes ``z``: ``|C_i|^2 = E[(z^T df_{N:i+1} L_X f_i)^2]``, one reverse pass per probe for all layers at once
(``z^T df_{N:i+1}`` is a vector-Jacobian product), and the standard error of the mean over probes (the variance of
one probe's estimate is ``2 |C_i|^4``: about ``sqrt(2 / probes)`` relative; the thesis uses 100 probes).

>>> import torch
>>> from torch import nn
>>> from lab.equivariance.transforms import ImageTransform
>>> net = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1, padding_mode="circular"), nn.ReLU(),
...                     nn.AdaptiveAvgPool2d(1), nn.Flatten()).double()
>>> d = layerwise_lie_derivative(net, torch.randn(2, 1, 6, 6, dtype=torch.float64), ImageTransform("translate-x"))
>>> [c.name for c in d.layers]
['0', '1', '2', '3']
>>> float((d.total - sum(c.contribution for c in d.layers)).abs().max()) < 1e-12
True
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from ..equivariance.lie import _check_images, is_image, jvp, lie_derivative
from ..equivariance.transforms import ImageTransform, MeterError


@dataclass
class LayerContribution:
    """One call of one module: ``C_i`` ``(N, *out)`` and the layer's own Lie derivative ``L_X f_i`` at its input."""

    name: str  # the module's name in the model ("#k" appended for its k-th extra call)
    module: str  # its class
    contribution: torch.Tensor
    own: torch.Tensor

    @property
    def norms(self) -> torch.Tensor:
        """``|C_i(x_n)|`` for each input (N,)."""
        return torch.linalg.vector_norm(self.contribution.reshape(self.contribution.shape[0], -1), dim=1)

    @property
    def norm(self) -> float:
        """The mean over inputs of ``|C_i|`` (what the thesis plots per layer, Figure 4.4)."""
        return float(self.norms.mean())


@dataclass
class Decomposition:
    """``total = sum(c.contribution for c in layers) + unattributed``, layers in the order they ran."""

    total: torch.Tensor
    layers: list[LayerContribution] = field(default_factory=list)
    unattributed: torch.Tensor | None = None

    @property
    def total_norm(self) -> float:
        """The mean over inputs of ``|L_X f|`` (at most the sum of the layers' norms plus the unattributed one)."""
        return float(torch.linalg.vector_norm(self.total.reshape(self.total.shape[0], -1), dim=1).mean())


@dataclass
class ProbeNorm:
    """The probe estimate of ``|C_i|^2`` per input (N,) with its standard error over probes."""

    name: str
    module: str
    sq_norm: torch.Tensor
    stderr: torch.Tensor
    probes: int

    @property
    def norm(self) -> torch.Tensor:
        """``sqrt`` of the estimate (N,); its standard error is about ``stderr / (2 norm)``."""
        return self.sq_norm.clamp(min=0).sqrt()


def select_modules(model: nn.Module, modules=None) -> list[tuple[str, nn.Module]]:
    """The modules to hook: every leaf (a module without children) by default, or those named (``model``'s
    ``named_modules`` names).  One named inside another would be counted twice: refused."""
    named = dict(model.named_modules())
    if modules is None:
        chosen = [(n, m) for n, m in named.items() if not list(m.children()) and n]
        if not chosen:
            chosen = [("", model)]
        return chosen
    names = list(modules)
    missing = [n for n in names if n not in named]
    if missing:
        raise MeterError(f"no module named {missing[0]!r} in the model (names: {', '.join(n for n in named if n)})")
    for a in names:
        for b in names:
            if a != b and (a == "" or b.startswith(a + ".")):
                raise MeterError(f"module {b!r} lies inside {a!r}: its contribution would be counted twice")
    return [(n, named[n]) for n in names]


class _Hooks:
    """Forward hooks that record each call's input and output, or add a tensor to one call's output."""

    def __init__(self, chosen):
        self.chosen = chosen
        self.calls: list[tuple[str, nn.Module, torch.Tensor, torch.Tensor]] = []
        self.add: dict[int, torch.Tensor] = {}
        self.recording = False
        self.counter = 0
        self.handles = []

    def __enter__(self):
        for name, module in self.chosen:
            self.handles.append(module.register_forward_hook(self._hook(name)))
        return self

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()

    def _hook(self, name):
        def hook(module, inputs, output):
            if not self.recording and not self.add:
                return None
            if len(inputs) != 1 or not isinstance(inputs[0], torch.Tensor) or not isinstance(output, torch.Tensor):
                raise MeterError(f"module {name!r} ({type(module).__name__}) does not map one tensor to one tensor: "
                                 "hook the modules around it instead (modules=[...])")
            k = self.counter
            self.counter += 1
            if self.recording:
                self.calls.append((name, module, inputs[0].detach(), output.detach()))
            return output + self.add[k] if k in self.add else None
        return hook

    def run(self, model, x, add=None):
        self.counter, self.add = 0, dict(add or {})
        try:
            return model(x)
        finally:
            self.add = {}


def _own_lie(module, xi, transform, method):
    """``L_X f_i`` at the layer input ``xi`` (shapes read as in the module docstring)."""
    with torch.no_grad():
        yi = module(xi)
    v = transform.tangent(xi) if is_image(xi) else None
    if v is None:
        Jv = torch.zeros_like(yi)
    else:
        _, Jv = jvp(module, xi, v, method)
    return Jv - transform.tangent(yi) if is_image(yi) else Jv


def _names(calls):
    seen: dict[str, int] = {}
    out = []
    for name, module, _, _ in calls:
        k = seen.get(name, 0)
        seen[name] = k + 1
        out.append((name or type(module).__name__) + (f"#{k}" if k else ""))
    return out


def _record(model, x, chosen):
    with _Hooks(chosen) as hooks:
        hooks.recording = True
        with torch.no_grad():
            hooks.run(model, x)
        hooks.recording = False
    if not hooks.calls:
        raise MeterError("none of the hooked modules ran in the model's forward pass")
    return hooks.calls


def layerwise_lie_derivative(model: nn.Module, x: torch.Tensor, transform: ImageTransform, modules=None,
                             method: str = "auto") -> Decomposition:
    """The exact decomposition ``L_X f(x) = sum_i C_i + unattributed`` over the calls of the hooked modules
    (``modules``: names, default every leaf), one downstream Jacobian-vector product per call."""
    _check_images(x)
    if not isinstance(model, nn.Module):
        raise MeterError(f"the layer-wise decomposition hooks modules: the model must be an nn.Module, "
                         f"got {type(model).__name__}")
    transform = transform.at(x.shape[-2:])
    chosen = select_modules(model, modules)
    calls = _record(model, x, chosen)
    total = lie_derivative(model, x, transform, method=method).detach()
    layers = []
    with _Hooks(chosen) as hooks:
        for k, (name, (_, module, xi, yi)) in enumerate(zip(_names(calls), calls)):
            hooks.recording = False
            own = _own_lie(module, xi, transform, method).detach()
            if own.abs().max() == 0:
                C = torch.zeros_like(total)
            else:
                _, C = jvp(lambda e, k=k: hooks.run(model, x, {k: e}), torch.zeros_like(yi), own, method)
            layers.append(LayerContribution(name, type(module).__name__, C.detach(), own))
    rest = total - sum(c.contribution for c in layers)
    return Decomposition(total, layers, rest)


def probe_norms(model: nn.Module, x: torch.Tensor, transform: ImageTransform, modules=None, probes: int = 100,
                seed: int = 0, method: str = "auto") -> list[ProbeNorm]:
    """Hutchinson estimates of ``|C_i|^2`` per input (appendix A.3.1.3), in layer order: ``probes`` Gaussian ``z``,
    one reverse pass each for every layer's ``z^T df_{N:i+1}``, dotted with the layer's own Lie derivative."""
    _check_images(x)
    if not isinstance(probes, (int, np.integer)) or probes < 2:
        raise MeterError(f"probes must be an integer >= 2 (for a standard error), got {probes!r}")
    transform = transform.at(x.shape[-2:])
    chosen = select_modules(model, modules)
    calls = _record(model, x, chosen)
    owns = [_own_lie(m, xi, transform, method).detach() for _, m, xi, _ in calls]
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    est = []
    with _Hooks(chosen) as hooks, torch.enable_grad():
        leaves = [torch.zeros_like(yi, requires_grad=True) for _, _, _, yi in calls]
        y = hooks.run(model, x, dict(enumerate(leaves)))
        for _ in range(int(probes)):
            z = torch.randn(y.shape, generator=gen, dtype=y.dtype).to(y.device)
            grads = torch.autograd.grad(y, leaves, z, retain_graph=True, allow_unused=True)
            row = []
            for g, own in zip(grads, owns):
                dot = torch.zeros(x.shape[0], dtype=y.dtype, device=y.device) if g is None else \
                    (g * own).reshape(x.shape[0], -1).sum(1)
                row.append(dot.pow(2))
            est.append(torch.stack(row))  # (layers, N)
    A = torch.stack(est)  # (probes, layers, N)
    mean, se = A.mean(0), A.std(0, unbiased=True) / float(np.sqrt(probes))
    return [ProbeNorm(n, type(m).__name__, mean[i].detach(), se[i].detach(), int(probes))
            for i, (n, (_, m, _, _)) in enumerate(zip(_names(calls), calls))]
