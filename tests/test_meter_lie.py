"""lab.equivariance.transforms and lab.equivariance.lie: Lie derivatives that vanish exactly where the transformation commutes with
the map as implemented, match finite differences where the interpolation is C¹, and separate EMLP from MLP along
every generator and over sampled elements of a finite group (thesis section 4.4, eqs. 4.3-4.4)."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lab.errors import LabError
from lab.groups import SO, O, S
from lab.equivariance import (TRANSFORMS, ImageTransform, MeterError, discrete_equivariance_errors, generator_lee,
                             generator_lie_derivatives, lee, lee_per_input, lie_derivative)
from lab.nn import EMLP, MLP

D = torch.float64
SPATIAL = [k for k in TRANSFORMS if k != "brighten"]


def images(n=3, c=2, h=8, w=8, seed=0):
    return torch.randn(n, c, h, w, dtype=D, generator=torch.Generator().manual_seed(seed))


def rel(a, b):
    a, b = a.detach(), b.detach()
    return float((a - b).norm() / b.norm())


def invariant_cnn():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.Tanh(), nn.Conv2d(3, 2, 3, stride=2), nn.Softplus(),
                         nn.Flatten(), nn.Linear(2 * 3 * 3, 4)).to(D)


def image_cnn():
    torch.manual_seed(1)
    return nn.Sequential(nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular"), nn.Tanh(),
                         nn.Conv2d(3, 2, 1)).to(D)


# ------------------------------------------------------------------------------------------------ the sampler
@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_sampler_agrees_with_grid_sample(interpolation, padding):
    x = images(h=7, w=9)
    for kind in SPATIAL:
        T = ImageTransform(kind, interpolation, padding)
        t = torch.tensor(0.37, dtype=D)
        px, py, _, _ = T._source(x, t)
        grid = torch.stack([(2 * px + 1) / 9 - 1, (2 * py + 1) / 7 - 1], -1).expand(x.shape[0], -1, -1, -1)
        ref = F.grid_sample(x, grid, mode=interpolation, padding_mode=padding, align_corners=False)
        assert (T(x, t) - ref).abs().max() < 1e-12, kind


def test_transformations_are_one_parameter_groups():
    """T_s T_t = T_{s+t} for Fourier shifts of an odd-sized image (no ambiguous Nyquist frequency), and integer
    periodic shifts are rolls."""
    x = images(w=9)
    T = ImageTransform("translate-x", "fourier")
    assert (T(T(x, 0.3), 0.45) - T(x, 0.75)).abs().max() < 1e-12
    assert (T(x, 0.3) - x).abs().max() > 0.1
    B = ImageTransform("translate-y", "bilinear")
    assert torch.equal(B(x, 2.0), torch.roll(x, 2, dims=-2))
    R = ImageTransform("rotate")
    assert (R(x, 0.0) - x).abs().max() == 0


# ------------------------------------------------------------------------------------------ zero where it must be
@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic", "fourier"])
@pytest.mark.parametrize("kind", ["translate-x", "translate-y"])
def test_global_mean_is_invariant_under_periodic_translation(kind, interpolation):
    x = images()
    T = ImageTransform(kind, interpolation)
    L = lie_derivative(lambda z: z.mean(dim=(2, 3)), x, T)
    assert T.tangent(x).abs().max() > 0.5  # the input does move
    assert L.abs().max() < 1e-13


@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kind", SPATIAL)
def test_pointwise_affine_map_commutes(kind, interpolation):
    """Interpolation weights sum to 1, so ``a x + b`` commutes with any resampling under circular padding; with zero
    padding the samples that read outside the image lose the offset ``b``, and the border breaks it."""
    x = images()
    T = ImageTransform(kind, interpolation)
    L = lie_derivative(lambda z: 1.7 * z - 0.3, x, T)
    assert L.abs().max() < 1e-12
    Z = ImageTransform(kind, interpolation, padding="zeros")
    if interpolation == "bilinear" and kind == "scale":
        return  # for t -> 0+ scaling in pulls every bilinear sample inwards: none reads outside
    assert lie_derivative(lambda z: 1.7 * z - 0.3, x, Z).abs().max() > 1e-3


def test_pointwise_nonlinearity_aliases_under_subpixel_translation():
    """ReLU creates frequencies above the grid's Nyquist limit: transforming before and after it differ (section
    4.5's aliasing), while its linear counterpart commutes."""
    x = images()
    T = ImageTransform("translate-x", "bilinear")
    L = lie_derivative(torch.relu, x, T)
    assert float(L.norm() / T.tangent(torch.relu(x)).norm()) > 0.1
    assert lie_derivative(lambda z: 2 * z, x, T).abs().max() < 1e-13


# ------------------------------------------------------------------------------------------ finite differences
def _conjugated(model, x, T, image_out):
    def F_(t):
        y = model(T(x, t))
        return T.at(x.shape[-2:])(y, -t) if image_out else y
    return F_


@pytest.mark.parametrize("kind", SPATIAL + ["brighten"])
@pytest.mark.parametrize("image_out", [False, True])
def test_bicubic_lie_derivative_is_the_central_difference(kind, image_out):
    x = images()
    model = image_cnn() if image_out else invariant_cnn()
    T = ImageTransform(kind, "bicubic")
    L = lie_derivative(model, x, T)
    h = 1e-5
    F_ = _conjugated(model, x, T, image_out)
    with torch.no_grad():
        fd = (F_(h) - F_(-h)) / (2 * h)
    assert L.norm() > 1e-3
    assert rel(L.detach(), fd) < 1e-4


@pytest.mark.parametrize("kind", ["translate-x", "translate-y"])
def test_fourier_lie_derivative_is_the_central_difference(kind):
    x = images()
    model = image_cnn()
    T = ImageTransform(kind, "fourier")
    F_ = _conjugated(model, x, T, True)
    with torch.no_grad():
        fd = (F_(1e-4) - F_(-1e-4)) / 2e-4
    assert rel(lie_derivative(model, x, T).detach(), fd) < 1e-4


@pytest.mark.parametrize("kind", ["translate-x", "rotate", "shear"])
def test_bilinear_lie_derivative_is_the_right_derivative(kind):
    """Bilinear sampling has a kink at t = 0: the meter's derivative is the one from the right, the left one
    differs."""
    x = images()
    model = invariant_cnn()
    T = ImageTransform(kind, "bilinear")
    L = lie_derivative(model, x, T).detach()
    F_ = _conjugated(model, x, T, False)
    h = 1e-7
    with torch.no_grad():
        right = (F_(h) - F_(0.0)) / h
        left = (F_(0.0) - F_(-h)) / h
    assert rel(L, right) < 1e-4
    assert rel(L, left) > 1e-2


def test_forward_mode_and_double_backward_agree():
    x = images()
    for model in (invariant_cnn(), image_cnn()):
        a = lie_derivative(model, x, ImageTransform("rotate"), method="forward")
        b = lie_derivative(model, x, ImageTransform("rotate"), method="double-backward")
        assert rel(b, a) < 1e-12


def test_lee_is_eq_4_4():
    x = images()
    model = invariant_cnn()
    T = ImageTransform("scale")
    L = lie_derivative(model, x, T).detach()
    assert lee(model, x, T) == pytest.approx(float(L.pow(2).sum() / (L.shape[0] * L.shape[1])), rel=1e-12)
    assert lee_per_input(model, x, T).shape == (3,)


# ------------------------------------------------------------------------------------------ the engine's groups
@pytest.mark.parametrize("group, rep_in, rep_out", [(O(3), "2*V", "Scalar+V"), (SO(2), "V+V**2", "V")],
                         ids=["O(3)", "SO(2)"])
def test_emlp_lie_derivative_vanishes_along_every_generator(group, rep_in, rep_out):
    for Model, zero in ((EMLP, True), (MLP, False)):
        torch.manual_seed(0)
        model = Model(rep_in, rep_out, group, channels=16, layers=2, dtype=D)
        x = torch.randn(6, model.rep_in.size, dtype=D, generator=torch.Generator().manual_seed(0))
        L = generator_lie_derivatives(model, x).detach()
        assert L.shape[0] == group.num_lie >= 1
        scale = model(x).detach().norm()
        for Li in L:
            if zero:
                assert Li.norm() / scale < 1e-12
            else:
                assert Li.norm() / scale > 1e-3
    assert len(generator_lee(model, x)) == group.num_lie


def test_discrete_error_over_a_permutation_group():
    G = S(4)
    x = torch.randn(5, 4, dtype=D, generator=torch.Generator().manual_seed(0))
    torch.manual_seed(0)
    emlp, mlp = EMLP("V", "V", G, channels=16, layers=2, dtype=D), MLP("V", "V", G, channels=16, layers=2, dtype=D)
    e = discrete_equivariance_errors(emlp, x, n=6)
    assert e.shape == (G.num_discrete + 6, 5)
    assert e.max() < 1e-12
    assert discrete_equivariance_errors(mlp, x, n=6).max() > 1e-2
    assert generator_lie_derivatives(emlp, x).shape[0] == 0  # a finite group has no flow


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("make", [
    lambda: ImageTransform("twirl"),
    lambda: ImageTransform("rotate", "fourier"),
    lambda: ImageTransform("translate-x", "fourier", "zeros"),
    lambda: ImageTransform("rotate", "nearest"),
    lambda: ImageTransform("rotate", padding="wrap"),
    lambda: lie_derivative(torch.relu, torch.randn(3, 4), ImageTransform("rotate")),
    lambda: lie_derivative(torch.relu, images(), ImageTransform("rotate"), output="vector"),
    lambda: lie_derivative(torch.relu, images(), ImageTransform("rotate"), method="sideways"),
    lambda: lie_derivative(torch.relu, images(), "rotate"),
    lambda: generator_lee(torch.relu, torch.randn(2, 3)),
    lambda: discrete_equivariance_errors(EMLP("V", "V", S(3), channels=4, layers=1), torch.randn(2, 5)),
])
def test_bad_input_is_one_line_lab_error(make):
    with pytest.raises(LabError) as err:
        make()
    assert "\n" not in str(err.value)
    assert isinstance(err.value, MeterError)
