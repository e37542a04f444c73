"""The double spring pendulum in 3-D (thesis ch. 2.7.2, appendix A.1.10): Hamiltonian, dynamics, trajectories.

Two unit masses hang from the origin on two springs in series; gravity pulls along -z.  The state is
``z = (q1, q2, p1, p2)`` in R^12 (positions of the two masses, then their momenta), the Hamiltonian, with
every constant 1 as in the original EMLP code (``m1 = m2 = k1 = k2 = l1 = l2 = g = 1``)::

    H = |p1|^2/2 + |p2|^2/2 + (|q1| - 1)^2/2 + (|q1 - q2| - 1)^2 + q1_z + q2_z  [- w.(q1 + q2)]

Note the second spring term: the original code has no 1/2 there (the thesis's text writes k2/2); this module
follows the code, as the published numbers were made with it.  The optional constant force ``wind`` ``w`` is the
residual-pathway-priors chapter's windy pendulum (``H0 + eps*H1``, ``H1 = -w0.(q1 + q2)``, ``w0 = (-8, -5, 0)``,
``eps = 0.01``: ``WINDY``); it breaks the rotations about z, so the angular momentum ``L_z`` is no longer
conserved (energy still is).

The dynamics are ``dz/dt = J grad H``, ``J = [[0, I], [-I, 0]]``, integrated with ``torchdiffeq.odeint``
(adaptive Dormand-Prince, in float64, rtol = atol = 2e-6 by default: the thesis's tolerance).  Initial conditions
as the original: ``q1 = (0, 0, -1.5) + .2 N``, ``q2 = (0, 0, -3) + .2 N``, ``p = .4 N``; observations every
``dt = 0.2`` s.

Symmetry: H is invariant under O(2) acting on R^3 as rotations about z and reflections through planes containing
z, applied to each of q1, q2, p1, p2 (the representation ``4*V``).  The groups about z are ``lab.groups.z_axis``'s,
named as in the original library (``O2eR3()``, ``SO2eR3()``, ``DkeR3(k)``, group texts of ``parse_group``);
``ZAxisGroup`` and ``z_axis_group`` (which accepts only these) are re-exported here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import GroupError, LabError, ParseError
from ..groups import Group, parse_group
from ..groups.z_axis import ZAxisGroup
from .sizes import check_bytes, check_count, check_dtype

STATE_DIM = 12
WINDY = (-0.08, -0.05, 0.0)  # eps * w0 of the windy pendulum (RPP appendix A.2.3.1): eps = 0.01, w0 = (-8, -5, 0)


# ------------------------------------------------------------------------------------------- groups about z
def z_axis_group(text) -> ZAxisGroup:
    """The group about z named by ``text``: ``"O2eR3()"``, ``"SO2eR3()"`` or ``"DkeR3(k)"`` (``parse_group``'s names,
    ``lab.groups.z_axis``; the first two also without the parentheses).  Any other text, a group that does not act
    about z included, is a ``GroupError``.

    >>> G = z_axis_group("O2eR3()")
    >>> G.d, G.num_lie, G.num_discrete, z_axis_group("DkeR3(6)").order()
    (3, 1, 1, 12)
    """
    try:
        group = parse_group(text)
    except ParseError as err:
        raise GroupError(str(err)) from None
    if not isinstance(group, ZAxisGroup):
        raise GroupError(f"{str(text)!r} is not a group about z: O2eR3(), SO2eR3() or DkeR3(k)")
    return group


def state_group(text) -> Group:
    """Any group acting on R^3 (``d == 3``), named by ``text``: what an EMLP over the state ``4*V`` may be built
    over.  The groups about z (``z_axis_group``) are the pendulum's own; ``"SO(3)"`` or ``"O(3)"`` are the
    residual-pathway-priors chapter's *misspecified* symmetry (gravity breaks them).  Any other text is a
    ``GroupError``.

    >>> state_group("SO(3)").d, state_group("O2eR3()").num_lie
    (3, 1)
    """
    if isinstance(text, Group):
        group = text
    else:
        try:
            group = parse_group(text)
        except ParseError as err:
            raise GroupError(str(err)) from None
    if group.d != 3:
        raise GroupError(f"{str(text)!r} acts on R^{group.d}, not on the pendulum's 3-vectors: a group about z "
                         "(O2eR3(), SO2eR3(), DkeR3(k)) or one of R^3 such as SO(3)")
    return group


# ------------------------------------------------------------------------------------------- the physics
def hamiltonian(z: torch.Tensor, wind=(0.0, 0.0, 0.0)) -> torch.Tensor:
    """H(z) for states ``z`` (..., 12) -> (...): the energy with every constant 1 (module docstring)."""
    q1, q2, p1, p2 = z[..., 0:3], z[..., 3:6], z[..., 6:9], z[..., 9:12]
    kinetic = 0.5 * (p1 ** 2).sum(-1) + 0.5 * (p2 ** 2).sum(-1)
    springs = 0.5 * (q1.norm(dim=-1) - 1.0) ** 2 + ((q1 - q2).norm(dim=-1) - 1.0) ** 2  # no 1/2: as the original
    gravity = q1[..., 2] + q2[..., 2]
    energy = kinetic + springs + gravity
    w = tuple(float(v) for v in wind)
    if any(w):
        w_t = torch.as_tensor(w, dtype=z.dtype, device=z.device)
        energy = energy - ((q1 + q2) * w_t).sum(-1)
    return energy


def symplectic(grad: torch.Tensor) -> torch.Tensor:
    """``J @ grad`` with ``J = [[0, I], [-I, 0]]``: (dH/dp, -dH/dq)."""
    d = grad.shape[-1] // 2
    return torch.cat([grad[..., d:], -grad[..., :d]], dim=-1)


def hamiltonian_vector_field(H, z: torch.Tensor, create_graph: bool = False) -> torch.Tensor:
    """``J grad H(z)`` for any Hamiltonian ``H`` (a function of (..., 2n) states to (...)), by autograd.

    ``create_graph=True`` keeps the graph (to train a Hamiltonian network through its vector field).
    """
    with torch.enable_grad():
        zz = z if (create_graph and z.requires_grad) else z.detach().requires_grad_(True)
        (grad,) = torch.autograd.grad(H(zz).sum(), zz, create_graph=create_graph)
    return symplectic(grad)


def angular_momentum_z(z) -> torch.Tensor | np.ndarray:
    """``L_z = sum_i (q_i x p_i)_z`` of states (..., 12) (torch or numpy)."""
    q1, q2, p1, p2 = z[..., 0:3], z[..., 3:6], z[..., 6:9], z[..., 9:12]
    return (q1[..., 0] * p1[..., 1] - q1[..., 1] * p1[..., 0]) + (q2[..., 0] * p2[..., 1] - q2[..., 1] * p2[..., 0])


# ------------------------------------------------------------------------------------------- the task
@dataclass(frozen=True)
class DoubleSpringPendulum:
    """The pendulum task: trajectories integrated with torchdiffeq, and what a model trains on.

    ``make(n, seed)`` gives pairs ``(z_t, z_{t+dt})`` (``rep_in -> rep_out`` = ``4*V -> 4*V``: the time-dt flow map
    is equivariant); ``chunks(n, seed)`` the original training data (one random ``chunk_len``-point chunk of
    each trajectory, ``(ts, Z)`` with ``Z[:, 0]`` the initial states); ``hamiltonian_rep`` is the output of a
    Hamiltonian network (``4*V -> Scalar``).  Defaults are the original's except ``default_n``.

    >>> task = DoubleSpringPendulum(n_steps=10)
    >>> X, Y = task.make(3, seed=0)
    >>> X.shape, Y.dtype, task.rep_in, task.group
    ((3, 12), dtype('float32'), '4*V', 'O2eR3()')
    """

    name: str = "pendulum"
    dt: float = 0.2  # seconds between observations
    n_steps: int = 150  # time points of a trajectory: t = 0, dt, ..., (n_steps - 1) dt (30 s as the original)
    chunk_len: int = 5  # time points of a training chunk (1 s at five 0.2 s intervals)
    rtol: float = 2e-6  # the thesis's integrator tolerance (A.1.9)
    atol: float = 2e-6
    method: str = "dopri5"  # torchdiffeq's adaptive Runge-Kutta (Dormand-Prince 5(4))
    wind: tuple = (0.0, 0.0, 0.0)  # a constant force on each mass (WINDY breaks the symmetry)
    rep_in: str = "4*V"
    rep_out: str = "4*V"
    hamiltonian_rep: str = "Scalar"
    group: str = "O2eR3()"  # the data's symmetry (O(2) about z: lab.groups.z_axis)
    groups: tuple = ("O2eR3()", "SO2eR3()", "DkeR3(6)")  # the thesis's EMLP variants (Table 2.2)
    default_n: int = 32
    description: str = field(default="double spring pendulum in 3-D, O(2) about z: (q1, q2, p1, p2) in R^12",
                             compare=False)

    d_in: int = STATE_DIM
    d_out: int = STATE_DIM

    # ----------------------------------------------------------------- physics bound to this task's wind
    def H(self, z: torch.Tensor) -> torch.Tensor:
        """The Hamiltonian of states (..., 12)."""
        return hamiltonian(z, self.wind)

    def vector_field(self, z: torch.Tensor) -> torch.Tensor:
        """``dz/dt = J grad H(z)`` of states (..., 12)."""
        return hamiltonian_vector_field(self.H, z)

    def symmetry_group(self, text: str | None = None) -> Group:
        """The group ``text`` (default: ``self.group``) as a lab ``Group`` acting on R^3."""
        return z_axis_group(text or self.group)

    # ----------------------------------------------------------------- sizes
    def times(self) -> np.ndarray:
        """The observation times (n_steps,): 0, dt, 2 dt, ..."""
        return np.arange(self._steps()) * float(self.dt)

    def _steps(self) -> int:
        steps = check_count(self.n_steps, "n_steps")
        if steps < 1:
            raise LabError("n_steps must be at least 1")
        return steps

    def cost(self, n: int) -> int:
        """Bytes that integrating ``n`` trajectories allocates (exact integers, nothing built): the float64
        trajectories, the integrator's stages and work arrays (dopri5 holds about 16 states per trajectory)
        and the float32/64 copies handed back."""
        n = check_count(n, "the number of trajectories")
        return 8 * STATE_DIM * n * (2 * self._steps() + 16)

    def check(self, n: int) -> int:
        """``n`` when ``n`` trajectories are within the lab's limits, else ``LabError``/``MemoryLimitError``."""
        n = check_count(n, "the number of trajectories")
        if not float(self.dt) > 0:
            raise LabError(f"dt must be positive, got {self.dt}")
        check_bytes(f"integrating {n:,} pendulum trajectories of {self._steps():,} steps", self.cost(n))
        return n

    # ----------------------------------------------------------------- data
    def initial_conditions(self, n: int, rng) -> np.ndarray:
        """(n, 12) float64 states: q1 = (0,0,-1.5) + .2N, q2 = (0,0,-3) + .2N, p = .4N (the original's)."""
        rng = np.random.default_rng(rng)
        q1 = np.array([0.0, 0.0, -1.5]) + 0.2 * rng.standard_normal((n, 3))
        q2 = np.array([0.0, 0.0, -3.0]) + 0.2 * rng.standard_normal((n, 3))
        p = 0.4 * rng.standard_normal((n, 6))
        return np.concatenate([q1, q2, p], axis=-1)

    def integrate(self, z0, ts=None, control=None) -> torch.Tensor:
        """Trajectories (n, T, 12) float64 from initial states ``z0`` (n, 12) at times ``ts`` (default
        ``times()``), all integrated together with ``torchdiffeq.odeint`` at this task's rtol/atol.  ``control``
        (``lab.control``) is checked at every evaluation of the field: a long integration stops within one."""
        from torchdiffeq import odeint

        from ..control import checkpoint

        z0 = torch.as_tensor(np.asarray(z0, dtype=np.float64))
        if z0.ndim != 2 or z0.shape[1] != STATE_DIM:
            raise LabError(f"initial states must be (n, {STATE_DIM}), got {tuple(z0.shape)}")
        self.check(z0.shape[0])
        ts = torch.as_tensor(self.times() if ts is None else np.asarray(ts, dtype=np.float64))
        if z0.shape[0] == 0:
            return torch.zeros((0, len(ts), STATE_DIM), dtype=torch.float64)
        with torch.no_grad():
            def field(t, z):
                checkpoint(control)
                return self.vector_field(z)

            zs = odeint(field, z0, ts, rtol=self.rtol, atol=self.atol, method=self.method)
        return zs.transpose(0, 1)

    def trajectories(self, n: int, seed: int = 0, dtype=np.float32, control=None) -> tuple[np.ndarray, np.ndarray]:
        """``(ts, zs)``: times (n_steps,) and ``n`` trajectories (n, n_steps, 12) from seeded initial conditions."""
        dtype = check_dtype(dtype)
        n = self.check(n)
        rng = np.random.default_rng(seed)
        zs = self.integrate(self.initial_conditions(n, rng), control=control).numpy()
        return self.times().astype(dtype), zs.astype(dtype)

    def chunks(self, n: int, seed: int = 0, dtype=np.float32, control=None) -> tuple[np.ndarray, np.ndarray]:
        """The original's training data: ``(ts, Z)``, ``ts`` (chunk_len,) from 0 and ``Z`` (n, chunk_len, 12), one
        random chunk (of the n_steps // chunk_len consecutive ones) of each of ``n`` trajectories."""
        dtype = check_dtype(dtype)
        chunk = check_count(self.chunk_len, "chunk_len")
        if chunk < 2 or chunk > self._steps():
            raise LabError(f"chunk_len must be between 2 and n_steps = {self._steps()}, got {chunk}")
        n = self.check(n)
        rng = np.random.default_rng(seed)
        zs = self.integrate(self.initial_conditions(n, rng), control=control).numpy()
        per = self._steps() // self.chunk_len
        start = rng.integers(0, per, size=n) * self.chunk_len
        idx = start[:, None] + np.arange(self.chunk_len)
        Z = np.take_along_axis(zs, idx[:, :, None], axis=1)
        return (np.arange(self.chunk_len) * float(self.dt)).astype(dtype), Z.astype(dtype)

    def make(self, n: int | None = None, seed: int = 0, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
        """Pairs of states one ``dt`` apart: ``X = Z[:, 0]``, ``Y = Z[:, 1]`` of ``chunks(n, seed)``, each (n, 12)."""
        _, Z = self.chunks(self.default_n if n is None else n, seed, dtype)
        return Z[:, 0], Z[:, 1]
