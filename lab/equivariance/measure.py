"""``audit(model, group, rep_in, rep_out)``: is a torch model equivariant, within rounding, and which layer breaks it.

What is measured (thesis chapter 4; ``lab.meter`` does the calculus):

* per Lie-algebra generator ``A`` (continuous groups): the Lie derivative ``L_A f(x) = J_f(x) drho_in(A) x -
  drho_out(A) f(x)`` (``lab.meter.generator_lie_derivatives``, forward mode or double backward), made relative:
  ``rms(L_A f) / rms(|drho_in(A) x| |J_f(x) u| + |drho_out(A) f(x)|)`` over the batch, with ``u`` a random unit
  input direction per input.  The denominator is what the two terms of ``L_A f`` would be for a generic function
  of the same sensitivity (``|J u|`` per unit input change), so the ratio is 0 for an equivariant model and of
  order one for a generic one, whatever the scale of the inputs, the outputs or the generator -- also for an
  invariant output, where ``drho_out(A) = 0`` and a plain ``|L| / |f|`` would have no reference.  The meter's LEE
  (eq. 4.4) is reported alongside.
* per group element: the discrete generators (finite groups; the components of a disconnected Lie group such as
  O(3)) and ``samples`` elements from ``group.sample``: with ``a = f(rho_in(g) x)``, ``b = rho_out(g) f(x)``, the
  thesis's RelErr (eq. 3.3) as rms over the batch (one tiny output cannot blow it up), ``rms(a - b) / (rms(a) +
  rms(b))``.  In [0, 1].
* zero outputs: where the denominator is itself zero to the tolerance at the inputs' scale (``rms(a) + rms(b) <=
  tol * rms(x)``; for generators ``<= tol * rms(drho_in(A) x)``), the numerator is divided by that scale instead,
  an absolute error, which is then at most the tolerance.  EMLP ``V -> L2`` over SO(3) computes the zero map (its
  only route to L2 is the antisymmetric part of T(2), which has none): its outputs are rounding noise, 1e-17,
  whose plain relative error is of order one, yet zero is equivariant.  (A floor at the inputs' scale everywhere,
  the EMLP library's ``rms(g - I)``, would also do, but it shrinks the error of every output smaller than the
  inputs: an EMLP at initialisation, its outputs 1e-2 of its inputs, with a ReLU inserted measured 3e-4 so.)
* per layer (``nn.Module`` models): the same relative error for every module's output whose rep is known (see
  ``layer_reps``), the same inputs and elements, in the order the modules ran; when the model fails, the first layer
  that fails is ``first_breaking_layer`` -- every layer before it passed, so its inputs were equivariant and the
  layer itself breaks the symmetry -- and a warning (``AuditWarning``) names it.

The tolerance.  An exactly equivariant network computes both sides with rounding errors of a few ``eps`` per
operation, summed over its depth and width: a relative error of about ``eps`` times a modest count.  The verdict
allows ``factor * eps(dtype) * cond``, ``factor = TOLERANCE_FACTOR = 1000``, ``eps`` of the model's real dtype
(float32: 1.19e-7, so 1.19e-4, the EMLP library's own test threshold; float64: 2.22e-16, so 2.2e-13), and ``cond``
the larger 2-norm condition number of ``rho_in(g)`` and of the rep at hand's ``rho(g)`` (1 for orthogonal and
permutation actions; large elements of non-compact groups such as SO(1,3) amplify rounding by it).  Generators use
``cond = 1``.  ``tolerance=`` replaces the rule by one number.  Measured (models of tests/test_audit.py at initialisation):
EMLP and RPP-EMLP's equivariant pathway at most 2e-7 in float32 (every layer) and 4e-16 in float64; an MLP 0.4 to
0.9; an EMLP with an inserted ``nn.Linear`` 0.03 (the layer itself 0.6) or a ``ReLU`` on O(3) features 0.7 (the
layer 0.15); RPP-EMLP's free pathway at its initial scale 0.1.

Which rep an intermediate carries (``LayerCheck.source``), the first rule that applies: ``declared`` (given in
``layer_reps`` by module name); ``attribute`` (the module's ``rep_out``, or ``rep`` for the gated nonlinearities:
every layer of ``lab.nn`` and ``lab.rpp.nn`` says what it outputs); ``child`` (the module
returns a tensor another module produced, e.g. an EMLP block its nonlinearity's output); ``assumed`` (a
shape-preserving module with no rep of its own -- an inserted ``nn.Linear(h, h)``, a ``ReLU``, a ``LayerNorm`` --
is held to the rep of its input: what keeping a feature's type means).  Any other module is listed with no rep and
not judged.

Models run in eval mode (restored afterwards), so dropout and batch statistics do not count as symmetry breaking.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import torch
from torch import nn

from ..equivariance.lie import generator_lie_derivatives, jvp
from .transforms import MeterError
from ..nn.linear import bind
from ..reps import Rep
from .homomorphism import check_rep
from .result import AuditError, AuditResult, AuditWarning, ElementCheck, GeneratorCheck, LayerCheck

TOLERANCE_FACTOR = 1000  # the verdict allows factor * eps(dtype) * cond (module docstring)
DEFAULT_SAMPLES = 8  # sampled group elements, besides the discrete generators
DEFAULT_INPUTS = 16  # random inputs when none are given


def eps(dtype: torch.dtype) -> float:
    """Machine epsilon of a torch dtype (of the real part for complex dtypes)."""
    real = torch.empty(0, dtype=dtype).real.dtype if dtype.is_complex else dtype
    return float(torch.finfo(real).eps)


def tolerance_for(dtype: torch.dtype, factor: float = TOLERANCE_FACTOR, cond: float = 1.0) -> float:
    """The verdict's tolerance: ``factor * eps(dtype) * cond`` (module docstring)."""
    return float(factor) * eps(dtype) * float(cond)


# ------------------------------------------------------------------------------------------------ inputs
def _count(value, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise AuditError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _resolve(model, group, rep_in, rep_out):
    rep_in = rep_in if rep_in is not None else getattr(model, "rep_in", None)
    rep_out = rep_out if rep_out is not None else getattr(model, "rep_out", None)
    if rep_in is None or rep_out is None:
        raise AuditError("give rep_in and rep_out (the model has no rep_in / rep_out of its own)")
    if group is None:
        group = getattr(model, "group", None) or getattr(rep_in, "group", None)
    if group is None:
        raise AuditError("give the group (neither the model nor its input rep names one)")
    return group, bind(rep_in, group), bind(rep_out, group)


def _dtype_of(model, dtype, group) -> torch.dtype:
    if dtype is not None:
        return dtype
    p = next(iter(model.parameters()), None) if isinstance(model, nn.Module) else None
    if p is not None and (p.is_floating_point() or p.is_complex()):
        return p.dtype
    real = torch.get_default_dtype()
    if group.is_complex:
        return torch.complex64 if real == torch.float32 else torch.complex128
    return real


def _device_of(model):
    p = next(iter(model.parameters()), None) if isinstance(model, nn.Module) else None
    return p.device if p is not None else torch.device("cpu")


def _inputs(x, rep_in, dtype, device, inputs: int, rng) -> torch.Tensor:
    if x is None:
        a = rng.standard_normal((inputs, rep_in.size))
        if dtype.is_complex:
            a = a + 1j * rng.standard_normal((inputs, rep_in.size))
        return torch.as_tensor(a, dtype=dtype, device=device)
    if not isinstance(x, torch.Tensor) or x.dim() != 2:
        raise AuditError(f"x must be a batch of vectors (N, d), got {getattr(x, 'shape', type(x).__name__)}")
    if x.shape[1] != rep_in.size:
        raise AuditError(f"x has {x.shape[1]} features but the input rep {rep_in} has size {rep_in.size}")
    if not (x.is_floating_point() or x.is_complex()):
        raise AuditError(f"x must be floating point, got {x.dtype}")
    return x


def _matrix(m, like: torch.Tensor) -> torch.Tensor:
    m = np.array(m)
    if np.iscomplexobj(m) and not like.is_complex():
        if np.abs(m.imag).max(initial=0.0) > 1e-12:
            raise AuditError("the group acts by complex matrices: give complex inputs")
        m = m.real
    return torch.as_tensor(m, dtype=like.dtype, device=like.device)


def _cond(rep, g, leaves: dict) -> float:
    """The 2-norm condition number of ``rep.rho(g)`` from its leaves' singular values (a Kronecker product's are the
    products of its factors', a direct sum's the union of its blocks'): no SVD of the whole matrix."""
    hi, lo = 0.0, np.inf
    for block in rep.blocks:
        bh = bl = 1.0
        for leaf in block.factors:
            if leaf not in leaves:
                sv = np.linalg.svd(np.asarray(leaf.rho(g)), compute_uv=False)
                leaves[leaf] = (float(sv.max()), float(sv.min()))
            bh, bl = bh * leaves[leaf][0], bl * leaves[leaf][1]
        hi, lo = max(hi, bh), min(lo, bl)
    return hi / lo if lo > 0 else float("inf")


def _rms(t: torch.Tensor) -> float:
    return float(t.abs().pow(2).mean().sqrt()) if t.numel() else 0.0


def _ratio(num: float, den: float, scale: float, tol: float) -> float:
    """``num / den``, or ``num / scale`` where ``den <= tol * scale``: a quantity that is zero to the tolerance at the
    inputs' scale is judged by its absolute size there (module docstring)."""
    if den > tol * scale:
        return num / den
    if scale > 0:
        return num / scale
    return 0.0 if num == 0 else float("inf")


def _relerr(a: torch.Tensor, b: torch.Tensor, scale: float, tol: float) -> float:
    """RelErr (eq. 3.3) as rms over the batch, ``rms(a - b) / (rms(a) + rms(b))``: in [0, 1]; see ``_ratio``."""
    return _ratio(_rms(a - b), _rms(a) + _rms(b), scale, tol)


# ------------------------------------------------------------------------------------------------ layer walk
def _own_rep(module, size: int, group):
    for attr in ("rep_out", "rep"):
        rep = getattr(module, attr, None)
        if isinstance(rep, Rep) and rep.group == group and rep.size == size:
            return rep
    return None


class _Recorder:
    """Forward hooks on every module but the root: each call's name, class, output and (first run) the rep."""

    def __init__(self, model: nn.Module, group, rep_in, layer_reps: dict):
        self.model, self.group, self.rep_in, self.layer_reps = model, group, rep_in, layer_reps
        self.calls: list[tuple] = []  # (name, class, output, rep, source)
        self.known: dict[int, Rep] = {}
        self.keep: list = []  # keeps tensors alive so that their ids stay unique
        self.resolve = True
        self.handles = []

    def __enter__(self):
        for name, module in self.model.named_modules():
            if name:
                self.handles.append(module.register_forward_hook(self._hook(name)))
        return self

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()

    def start(self, x, resolve: bool):
        self.calls, self.resolve = [], resolve
        if resolve:
            self.known, self.keep = {id(x): self.rep_in}, [x]

    def _hook(self, name):
        def hook(module, inputs, output):
            if not isinstance(output, torch.Tensor):
                self.calls.append((name, type(module).__name__, None, None, None))
                return
            rep = source = None
            if self.resolve:
                size = output.shape[-1] if output.dim() else 0
                inp = inputs[0] if inputs and isinstance(inputs[0], torch.Tensor) else None
                declared = self.layer_reps.get(name)
                if declared is not None:
                    rep, source = declared, "declared"
                elif (own := _own_rep(module, size, self.group)) is not None:
                    rep, source = own, "attribute"
                elif id(output) in self.known:
                    rep, source = self.known[id(output)], "child"
                elif inp is not None and id(inp) in self.known and inp.shape == output.shape:
                    rep, source = self.known[id(inp)], "assumed"
                if rep is not None and rep.size != size:
                    rep = source = None
                if rep is not None:
                    self.known[id(output)] = rep
                    self.keep.append(output)
            # a copy: an in-place module after this one (ReLU(inplace=True)) must not rewrite what was recorded
            self.calls.append((name, type(module).__name__, output.detach().clone(), rep, source))
        return hook


# ------------------------------------------------------------------------------------------------ the audit
def audit(model, group=None, rep_in=None, rep_out=None, x: torch.Tensor | None = None, *,
          samples: int = DEFAULT_SAMPLES, inputs: int = DEFAULT_INPUTS, seed: int = 0,
          factor: float = TOLERANCE_FACTOR, tolerance: float | None = None, dtype: torch.dtype | None = None,
          layers: bool = True, layer_reps: dict | None = None, method: str = "auto",
          warn: bool = True) -> AuditResult:
    """Audit ``model`` (any ``nn.Module`` or callable on (N, d_in) batches) for equivariance ``rep_in -> rep_out``
    under ``group`` (reps as ``Rep`` or text; all three default to the model's ``rep_in``, ``rep_out``, ``group``).

    ``x``: the inputs (default ``inputs`` standard normal rows, seeded); ``samples``: group elements drawn besides the
    discrete generators; ``factor`` / ``tolerance``: the verdict's rule or one fixed number (module docstring);
    ``dtype``: for a callable without parameters (default: the model's parameters', else torch's default);
    ``layers``: walk the modules with forward hooks; ``layer_reps``: {module name: rep} for intermediates whose
    rep cannot be read off the module; ``method``: the meter's autodiff (``lab.meter.METHODS``).

    Every user-declared leaf of the reps (``UserRep``, a ``Leaf`` subclass) is first checked to be a homomorphism
    (``lab.equivariance.homomorphism``): ``HomomorphismError`` (one line: the rep, the check, its size) when it is not.
    Bad arguments raise ``AuditError``.  A failing model warns (``AuditWarning``) with its first breaking layer."""
    if not callable(model):
        raise AuditError(f"the model must be an nn.Module or a callable, got {type(model).__name__}")
    samples, inputs, seed = _count(samples, "samples", 0), _count(inputs, "inputs", 1), _count(seed, "seed", 0)
    if tolerance is not None and not (isinstance(tolerance, (int, float)) and tolerance >= 0):
        raise AuditError(f"tolerance must be a number >= 0, got {tolerance!r}")
    if not (isinstance(factor, (int, float)) and factor > 0):
        raise AuditError(f"factor must be a number > 0, got {factor!r}")
    group, rep_in, rep_out = _resolve(model, group, rep_in, rep_out)
    layer_reps = {k: bind(v, group) for k, v in (layer_reps or {}).items()}
    hidden = [r for r in getattr(model, "hidden", []) if isinstance(r, Rep)]
    homomorphism = check_rep(rep_in, rep_out, *hidden, *layer_reps.values(), n=samples, seed=seed)

    rng = np.random.default_rng(seed)
    dtype = _dtype_of(model, dtype, group)
    x = _inputs(x, rep_in, dtype, _device_of(model), inputs, rng)
    base = float(tolerance) if tolerance is not None else tolerance_for(x.dtype, factor)
    tol = (lambda cond: base) if tolerance is not None else (lambda cond: tolerance_for(x.dtype, factor, cond))
    result = AuditResult(model=type(model).__name__, group=str(group), rep_in=str(rep_in), rep_out=str(rep_out),
                         dtype=str(x.dtype).replace("torch.", ""), eps=eps(x.dtype), factor=float(factor),
                         tolerance=base, inputs=int(x.shape[0]), homomorphism=homomorphism)
    modes = [(m, m.training) for m in model.modules()] if isinstance(model, nn.Module) else []
    if modes:
        model.eval()
    try:
        _elements(model, group, rep_in, rep_out, x, samples, rng, tol, layers, layer_reps, result)
        if group.num_lie:
            _generators(model, group, rep_in, rep_out, x, rng, base, method, result)
    finally:
        for m, mode in modes:  # each module's own mode back, not one flag for all
            m.training = mode
    if not result.checks:
        result.notes.append(f"nothing to test: {group} has no generators and samples = 0")
    if not result.ok:
        bad = [c for c in result.layers if c.ok is False]
        result.first_breaking_layer = bad[0].name if bad else None
        if warn:
            w = result.worst_check
            where = (f"first breaking layer: {bad[0].name} ({bad[0].module}, output {bad[0].rep}, error "
                     f"{bad[0].error:.3g})") if bad else "no layer with a known output rep breaks it"
            warnings.warn(f"{result.model} is not equivariant under {group}: error {w.error:.3g} at {w.label} "
                          f"(tolerance {w.tolerance:.3g}); {where}", AuditWarning, stacklevel=2)
    return result


def _elements(model, group, rep_in, rep_out, x, samples, rng, tol, layers, layer_reps, result):
    """Per element: the model's RelErr and, with hooks, every module's with a known rep."""
    elements = [(f"generator {k}", g) for k, g in enumerate(group.discrete)]
    if samples:
        elements += [(f"sample {k}", g) for k, g in enumerate(group.sample(samples, rng))]
    hooked = layers and isinstance(model, nn.Module)
    rec = _Recorder(model, group, rep_in, layer_reps) if hooked else None
    worst: dict[int, tuple[float, float]] = {}  # call index -> (error, tolerance) at the worst ratio
    scale = _rms(x)  # outputs that are zero to the tolerance at this scale are judged absolutely (_ratio)
    with torch.no_grad(), (rec if rec is not None else _Null()):
        if rec is not None:
            rec.start(x, resolve=True)
        fx = model(x)
        base_calls = list(rec.calls) if rec is not None else []
        if not isinstance(fx, torch.Tensor) or fx.shape[-1] != rep_out.size:
            raise AuditError(f"the model's output has shape {tuple(getattr(fx, 'shape', ()))}, the output rep "
                             f"{rep_out} has size {rep_out.size}")
        for label, g in elements:
            leaves: dict = {}  # leaf -> (largest, smallest) singular value of its rho(g)
            mats: dict = {}  # rep -> rho(g) as a tensor, shared by the layers that carry one rep
            Rin = rep_in.rho(g)
            cond_in = _cond(rep_in, g, leaves)
            if rec is not None:
                rec.start(None, resolve=False)
            fgx = model(x @ _matrix(Rin, x).T)
            gfx = fx @ _matrix(rep_out.rho(g), fx).T
            t = tol(max(cond_in, _cond(rep_out, g, leaves)))
            result.per_element.append(ElementCheck(label, _relerr(fgx, gfx, scale, t), t, cond=cond_in))
            if rec is None:
                continue
            if len(rec.calls) != len(base_calls):
                result.notes.append(f"the modules ran differently at {label}: layers not compared there")
                continue
            for k, ((name, _, out, rep, _), (_, _, out_g, _, _)) in enumerate(zip(base_calls, rec.calls)):
                if rep is None or out is None or out_g is None:
                    continue
                if rep not in mats:
                    mats[rep] = (_matrix(rep.rho(g), out), tol(max(cond_in, _cond(rep, g, leaves))))
                R, t = mats[rep]
                e = _relerr(out_g, out @ R.to(out.dtype).T, scale, t)
                if k not in worst or e / max(t, 1e-300) > worst[k][0] / max(worst[k][1], 1e-300):
                    worst[k] = (e, t)
    for k, (name, cls, _, rep, source) in enumerate(base_calls):
        e, t = worst.get(k, (None, None))
        result.layers.append(LayerCheck(name, cls, None if rep is None else str(rep), source, e, t))


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _generators(model, group, rep_in, rep_out, x, rng, base, method, result):
    """Per Lie-algebra generator: the relative Lie derivative (module docstring) and the meter's LEE."""
    try:
        L = generator_lie_derivatives(model, x, rep_in, rep_out, group, method)
        u = torch.as_tensor(rng.standard_normal(tuple(x.shape)), device=x.device)
        u = (u / torch.linalg.vector_norm(u, dim=1, keepdim=True)).to(x.dtype)
        fx, Ju = jvp(model, x, u, method)
    except MeterError as err:
        raise AuditError(str(err)) from None
    sens = torch.linalg.vector_norm(Ju.detach(), dim=-1)  # |J u| per input, |u| = 1
    d_out = max(int(fx.shape[-1]), 1)
    for i, A in enumerate(group.lie):
        dx = x @ _matrix(rep_in.drho(A), x).T
        din = torch.linalg.vector_norm(dx, dim=-1)
        dout = torch.linalg.vector_norm(fx.detach() @ _matrix(rep_out.drho(A), fx).T, dim=-1)
        Li = L[i].detach()
        num = _rms(Li)
        den = float(torch.linalg.vector_norm(din * sens + dout)) / math.sqrt(Li.shape[0] * d_out)
        err = _ratio(num, den, _rms(dx), base)
        result.per_generator.append(GeneratorCheck(f"A{i}", err, base, lee=float(Li.abs().pow(2).mean())))
