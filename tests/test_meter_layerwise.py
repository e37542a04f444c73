"""lab.meter.layerwise: the contributions C_i = df_{N:i+1} L_X f_i (eq. 4.6) add up to the model's Lie derivative,
match a hand-written chain rule, single out the layers that break equivariance, and the thesis's probe estimates
of their norms (appendix A.3.1.3) agree with the exact norms within the standard error they state."""
import pytest
import torch
from torch import nn

from lab.errors import LabError
from lab.equivariance import ImageTransform, MeterError, lie_derivative
from lab.meter import layerwise_lie_derivative, probe_norms

D = torch.float64


def images(n=3, c=1, h=8, w=8, seed=0):
    return torch.randn(n, c, h, w, dtype=D, generator=torch.Generator().manual_seed(seed))


def small_cnn():
    """conv (stride 1, circular) - conv (stride 2) - relu - pool - flatten - linear."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 3, 3, padding=1, padding_mode="circular"),
                         nn.Conv2d(3, 4, 3, stride=2, padding=1, padding_mode="circular"), nn.ReLU(),
                         nn.AvgPool2d(2), nn.Flatten(), nn.Linear(4 * 2 * 2, 5)).to(D)


def _norm(t):
    return float(t.detach().norm())


@pytest.mark.parametrize("kind", ["translate-x", "rotate", "scale", "brighten"])
@pytest.mark.parametrize("interpolation", ["bicubic", "bilinear"])
def test_contributions_sum_to_the_lie_derivative(kind, interpolation):
    net, x = small_cnn(), images()
    T = ImageTransform(kind, interpolation)
    d = layerwise_lie_derivative(net, x, T)
    assert [c.name for c in d.layers] == ["0", "1", "2", "3", "4", "5"]
    assert [c.module for c in d.layers] == ["Conv2d", "Conv2d", "ReLU", "AvgPool2d", "Flatten", "Linear"]
    total = lie_derivative(net, x, T).detach()
    assert _norm(total) > 1e-3
    assert _norm(d.total - total) == 0
    assert _norm(sum(c.contribution for c in d.layers) - total) < 1e-12 * _norm(total)
    assert _norm(d.unattributed) < 1e-12 * _norm(total)
    # only the triangle inequality holds for the norms
    assert d.total_norm <= sum(c.norm for c in d.layers) + 1e-12


def test_which_layers_break_translation_equivariance():
    """Under periodic translation a stride-1 circular convolution commutes with the resampling exactly; the strided
    convolution and the ReLU (aliasing) do not; a linear layer on a vector has nothing to break."""
    d = layerwise_lie_derivative(small_cnn(), images(), ImageTransform("translate-x"))
    n = {c.name: c.norm for c in d.layers}
    assert n["0"] < 1e-12 and n["5"] == 0
    assert n["1"] > 1e-3 and n["2"] > 1e-3


def test_contributions_follow_the_chain_rule_by_hand():
    """Two layers f2(f1(x)): C_1 = J_f2(f1 x) L f1 and C_2 = L f2 at f1(x), computed here without hooks."""
    torch.manual_seed(2)
    f1 = nn.Conv2d(1, 2, 3, stride=2, padding=1).to(D)
    f2 = nn.Tanh()
    x, T = images(), ImageTransform("rotate").at((8, 8))
    d = layerwise_lie_derivative(nn.Sequential(f1, f2), x, T)
    with torch.no_grad():
        h = f1(x)
    L1 = torch.func.jvp(f1, (x,), (T.tangent(x),))[1] - T.tangent(h)
    C1 = torch.func.jvp(f2, (h,), (L1,))[1]
    C2 = torch.func.jvp(f2, (h,), (T.tangent(h),))[1] - T.tangent(torch.tanh(h))
    assert _norm(d.layers[0].contribution - C1) < 1e-13
    assert _norm(d.layers[1].contribution - C2) < 1e-13
    assert _norm(C1) > 1e-3 and _norm(C2) > 1e-3


class Residual(nn.Module):
    """A module called twice and functional glue (a skip sum, a functional nonlinearity) outside any module."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.conv = nn.Conv2d(1, 1, 3, stride=1, padding=1)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64, 2))

    def forward(self, x):
        h = self.conv(x)
        h = torch.nn.functional.softplus(self.conv(h) + x)
        return self.head(h)


def test_repeated_calls_and_unattributed_glue():
    net, x, T = Residual().to(D), images(), ImageTransform("rotate")
    d = layerwise_lie_derivative(net, x, T)
    assert [c.name for c in d.layers] == ["conv", "conv#1", "head.0", "head.1"]
    total = lie_derivative(net, x, T).detach()
    assert _norm(sum(c.contribution for c in d.layers) + d.unattributed - total) < 1e-12 * _norm(total)
    assert _norm(d.unattributed) > 1e-3  # the functional softplus aliases too, and no layer owns it
    named = layerwise_lie_derivative(net, x, T, modules=["conv", "head"])
    assert [c.name for c in named.layers] == ["conv", "conv#1", "head"]


@pytest.mark.parametrize("kind", ["translate-x", "rotate"])
def test_probe_norms_agree_with_exact_norms_within_their_error(kind):
    net, x = small_cnn(), images()
    T = ImageTransform(kind)
    d = layerwise_lie_derivative(net, x, T)
    est = probe_norms(net, x, T, probes=400, seed=1)
    assert [p.name for p in est] == [c.name for c in d.layers]
    checked = 0
    for c, p in zip(d.layers, est):
        exact = c.norms.pow(2)
        assert torch.all((p.sq_norm - exact).abs() <= 4 * p.stderr + 1e-15), c.name
        if exact.max() > 1e-6:
            checked += 1
            # the stated error is the probes' own: about sqrt(2 / probes) of the estimate for Gaussian probes
            assert torch.all(p.stderr < 0.15 * p.sq_norm) and torch.all(p.stderr > 0.03 * p.sq_norm)
    assert checked >= 2


@pytest.mark.parametrize("make", [
    lambda: layerwise_lie_derivative(small_cnn(), images(), ImageTransform("rotate"), modules=["nope"]),
    lambda: layerwise_lie_derivative(Residual().to(D), images(), ImageTransform("rotate"),
                                     modules=["head", "head.1"]),
    lambda: layerwise_lie_derivative(torch.relu, images(), ImageTransform("rotate")),
    lambda: layerwise_lie_derivative(small_cnn(), torch.randn(2, 64, dtype=D), ImageTransform("rotate")),
    lambda: probe_norms(small_cnn(), images(), ImageTransform("rotate"), probes=1),
])
def test_bad_input_is_one_line_lab_error(make):
    with pytest.raises(LabError) as err:
        make()
    assert isinstance(err.value, MeterError)
    assert "\n" not in str(err.value)
