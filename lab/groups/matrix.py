"""Matrix groups: finite rotation groups of the plane and the classical Lie groups."""
from __future__ import annotations

import numpy as np
import scipy.linalg

from ..errors import GroupError
from .base import Footprint, Group
from .permutation import _check_n


def _stats():
    """``scipy.stats`` (Haar-random samples), imported on first use: it costs ~0.3 s at start-up."""
    from scipy import stats

    return stats


def _rot2(theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def _antisymmetric_basis(n: int) -> np.ndarray:
    mats = []
    for i in range(n):
        for j in range(i + 1, n):
            A = np.zeros((n, n))
            A[i, j], A[j, i] = -1.0, 1.0
            mats.append(A)
    return np.stack(mats) if mats else np.zeros((0, n, n))


def _plane_quarter_turn(n: int, i: int, j: int) -> np.ndarray:
    """The 90-degree rotation e_i -> e_j, e_j -> -e_i: a signed permutation matrix in SO(n)."""
    g = np.eye(n)
    g[[i, j], [i, j]] = 0.0
    g[j, i], g[i, j] = 1.0, -1.0
    return g


def _signed_perm_group(mats, d, name):
    return Group(discrete=np.stack(mats), d=d, name=name) if mats else None


def _hypercube_group(n: int, reflection=None):
    """The symmetries of the n-cube: the quarter turns in the planes (i, i+1) (its rotations), with ``reflection``
    all of them (every signed permutation).  SO(n) and SL(n) contain the rotations, O(n) and GL(n) all."""
    mats = [_plane_quarter_turn(n, i, i + 1) for i in range(n - 1)]
    if reflection is None:
        return _signed_perm_group(mats, n, f"hyperoctahedral+({n})")
    return _signed_perm_group(mats + [reflection], n, f"hyperoctahedral({n})")


class C(Group):
    """Rotations of the plane by multiples of 2*pi/k, acting on R^2."""

    description = "cyclic rotation group of order k acting on R^2"

    footprint = staticmethod(lambda k: Footprint(2, 0, 1))

    def __init__(self, k: int):
        k = _check_n("C", k)
        super().__init__(discrete=_rot2(2 * np.pi / k)[None], name=f"C({k})")


class D(Group):
    """The dihedral group of order 2k acting on R^2 (rotations by 2*pi/k and a reflection)."""

    description = "dihedral group of order 2k acting on R^2"

    footprint = staticmethod(lambda k: Footprint(2, 0, 2))

    def __init__(self, k: int):
        k = _check_n("D", k)
        super().__init__(discrete=np.stack([_rot2(2 * np.pi / k), np.diag([1.0, -1.0])]), name=f"D({k})")


class SO(Group):
    """Rotations of R^n (Lie algebra: antisymmetric matrices).  Sampled from the Haar measure.

    The Lie-algebra basis is ``E_ji - E_ij`` for i < j (rotations in the planes 01, 02, ..., in order):

    >>> G = SO(3)
    >>> G.num_lie, G.lie[0].astype(int).tolist()
    (3, [[0, -1, 0], [1, 0, 0], [0, 0, 0]])
    >>> g = G.sample(rng=0)
    >>> bool(np.allclose(g.T @ g, np.eye(3))), bool(np.isclose(np.linalg.det(g), 1))
    (True, True)
    """

    description = "special orthogonal group: rotations of R^n"

    footprint = staticmethod(lambda n: Footprint(n, 0, 0, n * (n - 1) // 2))

    def __init__(self, n: int):
        n = _check_n("SO", n)
        super().__init__(lie=_antisymmetric_basis(n), d=n, name=f"SO({n})")

    @property
    def finite_subgroup(self):
        """Rotations of the hypercube: 90-degree turns in the coordinate planes (i, i+1)."""
        return _hypercube_group(self.d)

    def _sample_one(self, rng):
        return np.eye(1) if self.d == 1 else _stats().special_ortho_group.rvs(self.d, random_state=rng)


class O(Group):
    """Rotations and reflections of R^n (SO(n) plus one reflection).  Haar-sampled."""

    description = "orthogonal group: rotations and reflections of R^n"

    footprint = staticmethod(lambda n: Footprint(n, 0, 1, n * (n - 1) // 2))

    def __init__(self, n: int):
        n = _check_n("O", n)
        refl = np.eye(n)
        refl[0, 0] = -1
        super().__init__(discrete=refl[None], lie=_antisymmetric_basis(n), d=n, name=f"O({n})")

    @property
    def finite_subgroup(self):
        """All symmetries of the hypercube: quarter turns and one reflection."""
        return _hypercube_group(self.d, reflection=self.discrete[0])

    def _sample_one(self, rng):
        if self.d == 1:
            return np.array([[rng.choice([-1.0, 1.0])]])
        return _stats().ortho_group.rvs(self.d, random_state=rng)


_ETA = np.diag([-1.0, 1.0, 1.0, 1.0])  # Minkowski metric, signature (-,+,+,+), time first


def _lorentz_algebra() -> np.ndarray:
    mats = list(_antisymmetric_basis(4)[[3, 4, 5]])  # rotations among the spatial axes 1,2,3
    for i in range(1, 4):  # boosts: symmetric in (t, x_i)
        B = np.zeros((4, 4))
        B[0, i] = B[i, 0] = 1.0
        mats.append(B)
    return np.stack(mats)


class SO13p(Group):
    """The proper orthochronous Lorentz group SO+(1,3) on R^4 = (t, x, y, z), metric diag(-1,1,1,1).

    Sampling (not Haar, the group is not compact): a Haar rotation times a boost of rapidity ~ N(0, 1)
    along a uniform direction.
    """

    footprint = staticmethod(lambda: Footprint(4, 0, 0, 6))

    description = "proper orthochronous Lorentz group SO+(1,3) on (t,x,y,z)"
    metric = _ETA

    def __init__(self, discrete=None, name="SO13p()"):
        super().__init__(discrete=discrete, lie=_lorentz_algebra(), d=4, name=name)

    @property
    def finite_subgroup(self):
        """Cube rotations of space (quarter turns in the xy and yz planes) and the discrete generators."""
        mats = [_plane_quarter_turn(4, 1, 2), _plane_quarter_turn(4, 2, 3)] + list(self.discrete)
        return _signed_perm_group(mats, 4, f"cube-in-{self.name}")

    def _sample_one(self, rng):
        R = np.eye(4)
        R[1:, 1:] = _stats().special_ortho_group.rvs(3, random_state=rng)
        n = rng.normal(size=3)
        B = np.zeros((4, 4))
        B[0, 1:] = B[1:, 0] = n / np.linalg.norm(n) * rng.normal()
        g = scipy.linalg.expm(B) @ R
        if self.num_discrete:
            g = g @ self._random_word(rng, length=4)
        return g


class SO13(SO13p):
    """SO(1,3): SO+(1,3) together with the total inversion PT = -I."""

    footprint = staticmethod(lambda: Footprint(4, 0, 1, 6))

    description = "Lorentz group SO(1,3) (adds PT = -I)"

    def __init__(self):
        super().__init__(discrete=-np.eye(4)[None], name="SO13()")


class O13(SO13p):
    """The full Lorentz group O(1,3): SO+(1,3) with parity P and time reversal T."""

    footprint = staticmethod(lambda: Footprint(4, 0, 2, 6))

    description = "full Lorentz group O(1,3) (adds parity and time reversal)"

    def __init__(self):
        P = np.diag([1.0, -1.0, -1.0, -1.0])
        T = np.diag([-1.0, 1.0, 1.0, 1.0])
        super().__init__(discrete=np.stack([P, T]), name="O13()")


class SO11p(Group):
    """The proper orthochronous Lorentz group SO+(1,1) on R^2 = (t, x), metric diag(-1, 1): the boosts
    exp(phi K), K = [[0, 1], [1, 0]], one non-compact generator and no finite part (the EMLP library's
    ``SO11p``).  Sampling: exp(a K) with a ~ N(0, 1/2), the base rule; no Haar probability exists.
    """

    footprint = staticmethod(lambda: Footprint(2, 0, 0, 1))

    description = "proper orthochronous Lorentz group SO+(1,1) on (t,x): the boosts"
    metric = np.diag([-1.0, 1.0])

    def __init__(self):
        super().__init__(lie=np.array([[[0.0, 1.0], [1.0, 0.0]]]), d=2, name="SO11p()")


class Sp(Group):
    """The symplectic group Sp(2n, R) acting on R^(2n), preserving J = [[0, I], [-I, 0]].

    Lie algebra: {A : A^T J + J A = 0} = {J S : S symmetric}.  Sampling: exp of a random algebra
    element (a documented approximation: the group is not compact, there is no Haar probability).
    """

    description = "symplectic group Sp(2n) acting on R^(2n)"

    footprint = staticmethod(lambda n: Footprint(2 * n, 0, 0, n * (2 * n + 1)))

    def __init__(self, n: int):
        n = _check_n("Sp", n)
        m = 2 * n
        J = np.zeros((m, m))
        J[:n, n:] = np.eye(n)
        J[n:, :n] = -np.eye(n)
        self.J = J
        mats = []
        for i in range(m):
            for j in range(i, m):
                Sym = np.zeros((m, m))
                Sym[i, j] = Sym[j, i] = 1.0
                mats.append(J @ Sym)
        super().__init__(lie=np.stack(mats), d=m, name=f"Sp({n})")

    @property
    def finite_subgroup(self):
        """Quarter turns (q_i, p_i) -> (p_i, -q_i) and simultaneous permutations of the q's and p's."""
        n, m = self.d // 2, self.d
        mats = [_plane_quarter_turn(m, i + n, i) for i in range(n)]
        if n > 1:
            cyc = np.roll(np.eye(n), 1, axis=0)
            mats.append(scipy.linalg.block_diag(cyc, cyc))
            swap = np.eye(n)[[1, 0] + list(range(2, n))]
            mats.append(scipy.linalg.block_diag(swap, swap))
        return _signed_perm_group(mats, m, f"signed-perms-in-Sp({n})")


def _linear_algebra(n: int, traceless: bool) -> np.ndarray:
    """gl(n): the matrix units E_ij; sl(n): E_ij for i != j and E_ii - E_(i+1)(i+1) (trace zero)."""
    mats = []
    for i in range(n):
        for j in range(n):
            if i != j or not traceless:
                E = np.zeros((n, n))
                E[i, j] = 1.0
                mats.append(E)
    if traceless:
        for i in range(n - 1):
            H = np.zeros((n, n))
            H[i, i], H[i + 1, i + 1] = 1.0, -1.0
            mats.append(H)
    return np.stack(mats) if mats else np.zeros((0, n, n))


def _sample_linear(rng, n: int, special: bool, reflect: bool) -> np.ndarray:
    """``R1 diag(exp(s)) R2`` with R1, R2 Haar rotations and s_i ~ N(0, 1/4) (the scale of the generic Lie
    sampling), s centred for SL.  Every element of GL+(n) is of this form (singular value decomposition), and
    the condition number is exp(max s - min s) by construction (about 3 for n = 5): ``exp`` of a random
    element of gl(n) is not normal, and its condition number grows much faster with n, which float32
    equivariance checks of networks on T(k) (condition number to the power k) would feel.  ``reflect``: R1 is
    Haar in O(n), reaching both components of GL(n)."""
    stats = _stats()
    s = rng.normal(scale=0.5, size=n)
    if special:
        s -= s.mean()  # det = exp(sum s) = 1
    if n == 1:
        r1 = np.array([[rng.choice([-1.0, 1.0]) if reflect else 1.0]])
        return r1 * np.exp(s[0])
    r1 = (stats.ortho_group if reflect else stats.special_ortho_group).rvs(n, random_state=rng)
    r2 = stats.special_ortho_group.rvs(n, random_state=rng)
    return (r1 * np.exp(s)) @ r2


class SL(Group):
    """The special linear group SL(n, R) on R^n: the linear maps of determinant 1 (volume and orientation).

    Lie algebra sl(n), the trace-zero matrices: the matrix units ``E_ij`` (i != j, row by row), then
    ``E_ii - E_(i+1)(i+1)``.  Not orthogonal: V* differs from V (T(1,1) has the identity as invariant,
    T(2) has none for n > 2), and the Levi-Civita symbol is invariant in T(n) and T(0,n).  Sampling (not Haar,
    the group is not compact): a Haar rotation, a diagonal stretch of determinant 1 and another rotation.

    >>> G = SL(3)
    >>> G.num_lie, G.num_discrete, G.is_orthogonal
    (8, 0, False)
    >>> G.lie[-1].astype(int).tolist()
    [[0, 0, 0], [0, 1, 0], [0, 0, -1]]
    >>> bool(np.isclose(np.linalg.det(G.sample(rng=0)), 1))
    True
    """

    description = "special linear group SL(n): linear maps of R^n of determinant 1"

    footprint = staticmethod(lambda n: Footprint(n, 0, 0, n * n - 1))

    def __init__(self, n: int):
        n = _check_n("SL", n)
        if n < 2:
            raise GroupError("SL(n) needs n >= 2 (SL(1) is trivial: use Trivial(1))")
        super().__init__(lie=_linear_algebra(n, traceless=True), d=n, name=f"SL({n})")

    @property
    def finite_subgroup(self):
        """The rotations of the hypercube (signed permutations of determinant 1), as for SO(n)."""
        return _hypercube_group(self.d)

    def _sample_one(self, rng):
        return _sample_linear(rng, self.d, special=True, reflect=False)


class GL(Group):
    """The general linear group GL(n, R) on R^n: all invertible linear maps, both components.

    Lie algebra gl(n): all n^2 matrix units ``E_ij`` (row by row); one discrete generator, the reflection
    diag(-1, 1, ..., 1), reaches the maps of negative determinant (as O(n) adds one to SO(n)).  EMLP's ``GL(n)``
    has no discrete generator, so it is the identity component GL+(n); on tensors T(p, q) the two have the same
    invariants (only the p == q permutation tensors: the scalars t*I act on T(p, q) as t^(p-q)), they differ on
    representations such as the sign of the determinant.  Sampling (not Haar): a Haar element of O(n), a
    diagonal stretch and a Haar rotation.

    >>> G = GL(2)
    >>> G.num_lie, G.num_discrete, G.is_orthogonal
    (4, 1, False)
    >>> sorted({int(np.sign(np.linalg.det(g))) for g in G.sample(20, rng=0)})
    [-1, 1]
    """

    description = "general linear group GL(n): all invertible linear maps of R^n"

    footprint = staticmethod(lambda n: Footprint(n, 0, 1, n * n))

    def __init__(self, n: int):
        n = _check_n("GL", n)
        refl = np.eye(n)
        refl[0, 0] = -1
        super().__init__(discrete=refl[None], lie=_linear_algebra(n, traceless=False), d=n, name=f"GL({n})")

    @property
    def finite_subgroup(self):
        """All symmetries of the hypercube (every signed permutation): quarter turns and the reflection."""
        return _hypercube_group(self.d, reflection=self.discrete[0])

    def _sample_one(self, rng):
        return _sample_linear(rng, self.d, special=False, reflect=True)


def _unitary_algebra(n: int, traceless: bool) -> np.ndarray:
    mats = []
    for j in range(n):
        for k in range(j + 1, n):
            A = np.zeros((n, n), complex)
            A[j, k], A[k, j] = 1, -1
            mats.append(A)
            B = np.zeros((n, n), complex)
            B[j, k] = B[k, j] = 1j
            mats.append(B)
    for j in range(n - 1 if traceless else n):
        H = np.zeros((n, n), complex)
        H[j, j] = 1j
        if traceless:
            H[j + 1, j + 1] = -1j
        mats.append(H)
    return np.stack(mats) if mats else np.zeros((0, n, n), complex)


class U(Group):
    """The unitary group U(n) acting on C^n.  Haar-sampled."""

    description = "unitary group U(n) acting on C^n (complex)"

    footprint = staticmethod(lambda n: Footprint(n, 0, 0, n * n, 16))

    def __init__(self, n: int):
        n = _check_n("U", n)
        super().__init__(lie=_unitary_algebra(n, traceless=False), d=n, name=f"U({n})")

    def _sample_one(self, rng):
        if self.d == 1:
            return np.array([[np.exp(2j * np.pi * rng.random())]])
        return _stats().unitary_group.rvs(self.d, random_state=rng)


class SU(Group):
    """The special unitary group SU(n) acting on C^n.  Haar-sampled."""

    description = "special unitary group SU(n) acting on C^n (complex)"

    footprint = staticmethod(lambda n: Footprint(n, 0, 0, n * n - 1, 16))

    def __init__(self, n: int):
        n = _check_n("SU", n)
        if n < 2:
            raise GroupError("SU(n) needs n >= 2 (SU(1) is trivial: use Trivial(1))")
        super().__init__(lie=_unitary_algebra(n, traceless=True), d=n, name=f"SU({n})")

    def _sample_one(self, rng):
        u = _stats().unitary_group.rvs(self.d, random_state=rng)
        return u / np.linalg.det(u) ** (1 / self.d)
