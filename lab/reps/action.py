"""Group elements acting on data: what augmentation applies to inputs (and to equivariant targets).

Signed-permutation groups act on any tensor rep by a signed permutation of its entries, computed from
the base permutation without building matrices; other groups act by dense matrices ``rep.rho(g)``.
``Elements`` holds a batch of group elements in whichever form, and applies them to batched data.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
import numpy as np
import torch

from ..errors import GroupError, RepError
from ..groups.base import Group
from .rep import Rep

EXACT_ORBIT_MAX = 5000  # exact orbit averaging enumerates the group: refuse beyond this many elements


def rep_signed_perm(rep: Rep, perms: np.ndarray, signs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each entry of ``rep`` goes under signed base permutations: (dest (n, size), sign (n, size)).

    ``rho(g) x`` has ``x[j] * sign[j]`` at position ``dest[j]``.  Works block by block: a tensor block
    with k factors maps its multi-index (i1..ik) to (p[i1]..p[ik]) with the product of the signs (V* acts
    like V because signed permutation matrices are orthogonal).
    """
    n, d = perms.shape
    size = rep.size
    dest = np.empty((n, size), dtype=np.int64)
    sign = np.empty((n, size), dtype=np.int8)
    for block in rep.blocks:
        pos = block.positions()
        k = len(block.factors)
        if any(getattr(f, "tensor_role", None) is None for f in block.factors):  # a user rep: no index map
            raise RepError(f"{rep} is not a tensor of V: its block {block.label} has no signed-permutation action")
        if k == 0:
            dest[:, pos] = pos
            sign[:, pos] = 1
            continue
        grids = np.indices((d,) * k).reshape(k, -1)  # multi-index of every entry of the block
        idx = np.zeros((n, d ** k), dtype=np.int64)
        sg = np.ones((n, d ** k), dtype=np.int8)
        for axis in range(k):
            idx = idx * d + perms[:, grids[axis]]
            sg = sg * signs[:, grids[axis]]
        dest[:, pos] = pos[idx]
        sign[:, pos] = sg
    return dest, sign


@dataclass
class Elements:
    """A batch of group elements, as signed permutations of the base space or as base matrices."""

    group: Group
    perms: np.ndarray | None = None  # (n, d)
    signs: np.ndarray | None = None
    matrices: np.ndarray | None = None  # (n, d, d)

    def __len__(self):
        return len(self.perms) if self.perms is not None else len(self.matrices)

    def operator(self, rep: Rep, dtype=torch.float64, device="cpu"):
        """The action on ``rep`` as something ``apply`` understands: gather indices or dense matrices."""
        if self.perms is not None:
            dest, sign = rep_signed_perm(rep, self.perms, self.signs)
            src = np.argsort(dest, axis=1)  # (rho x)[k] = sign[src[k]] * x[src[k]]
            src_sign = np.take_along_axis(sign, src, axis=1)
            return ("perm", torch.as_tensor(src, device=device),
                    torch.as_tensor(src_sign, dtype=dtype, device=device))
        mats = np.stack([rep.rho(g) for g in self.matrices]).real
        return ("dense", torch.as_tensor(mats, dtype=dtype, device=device))


def apply(op, x: torch.Tensor, per_run: bool = False) -> torch.Tensor:
    """Apply R group elements (one per run) to data.

    ``x`` is (B, ..., size) shared by all runs, or (R, B, ..., size) with ``per_run=True``; the result is
    (R, B, ..., size).
    """
    R = op[1].shape[0]
    xs = x if per_run else x.unsqueeze(0).expand(R, *x.shape)
    if op[0] == "perm":
        src, sign = op[1], op[2]  # (R, size)
        shape = (R,) + (1,) * (xs.dim() - 2) + (src.shape[1],)
        return torch.gather(xs, -1, src.view(shape).expand(xs.shape)) * sign.view(shape)
    mats = op[1]  # (R, size, size)
    flat = xs.reshape(R, -1, xs.shape[-1])
    return torch.bmm(flat, mats.transpose(1, 2)).reshape(xs.shape)


def sample_elements(group: Group, n: int, rng) -> Elements:
    """``n`` random group elements: uniform for finite groups, Haar (or the engine's sampler) for Lie groups."""
    if group.is_signed_permutation:
        p, s = group.sample_signed(n, rng)
        return Elements(group, p, s)
    return Elements(group, matrices=group.sample(n, rng=rng))


def all_elements(group: Group) -> Elements:
    """Every element of a small finite group (exact orbit averaging); ``GroupError`` if too large."""
    order = group.order()
    if order is None or order > EXACT_ORBIT_MAX:
        raise GroupError(f"exact orbit averaging enumerates the group, but {group} has "
                         f"{'infinitely many' if order is None else order} elements (limit {EXACT_ORBIT_MAX}); "
                         "use sampled augmentation (--aug-passes) instead")
    mats = group.elements(cap=EXACT_ORBIT_MAX)
    if group.is_signed_permutation:
        perms = np.abs(mats).argmax(axis=1)  # column j has its nonzero in row perms[j]
        signs = np.take_along_axis(mats, perms[:, None, :], axis=1)[:, 0, :]
        return Elements(group, perms.astype(np.int64), np.sign(signs).astype(np.int8))
    return Elements(group, matrices=mats)



# ---------------------------------------------------------------------------------------------- the reference's draws
def _compose(g: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The permutation g ∘ h (h first), in the convention e_i -> e_{p[i]}: (g ∘ h)[i] = g[h[i]]."""
    return np.take_along_axis(g, h, axis=-1) if g.ndim > 1 else g[h]


def _perm_order(p: np.ndarray) -> int:
    ident = np.arange(len(p))
    q, k = p.copy(), 1
    while not np.array_equal(q, ident):
        q, k = p[q], k + 1
    return k


def _power_tables(group: Group) -> list[np.ndarray]:
    """Per generator g of order n: the table (n + 1, d) of g^0 .. g^n (both ends the identity)."""
    if not group.is_permutation:
        raise GroupError(f"the reference's draws are defined for permutation groups; {group} is not one")
    tables = []
    for p in group.perms[0]:
        n = _perm_order(p)
        rows = [np.arange(group.d)]
        for _ in range(n):
            rows.append(p[rows[-1]])
        tables.append(np.stack(rows))
    return tables


def _uniform_reference(group: Group) -> bool:
    """S(n): the authors' code permutes with torch.randperm, which is uniform."""
    from ..groups.permutation import S

    return isinstance(group, S)


def _half_turn(group: Group) -> np.ndarray:
    (p,) = group.perms[0]  # C4Grid: one generator, the quarter turn
    return p[p]


def reference_distribution(group: Group, flattened: bool = False) -> dict[tuple, Fraction]:
    """The exact distribution of the authors' augmentation draws (``draws="reference"``), element (as the tuple
    of its base permutation) -> probability, as fractions.

    * S(n): uniform (``torch.randperm``);
    * the translation and rotation groups (Z(n), products of them, C4Grid, P4Grid): the word g1^a1 ... gk^ak in
      the group's generators, each exponent drawn by ``random.randint(0, n_i)``, which includes n_i: n_i + 1
      values of which 0 and n_i are both the identity (``Shift``, ``Xshift``, ``Rotate``, ``RotoShift`` of
      datasets.py), so a cyclic factor of order n draws its identity with probability 2 / (n + 1);
    * ``flattened`` (the Rot experiment of §5, C4Grid only): ``Rotate`` on (batch, 1, n^2) images discards its
      reshape to n x n, so r = 1, 2, 3 all reverse the flattened image (a half-turn): identity 2/5, half-turn
      3/5.
    """
    ident = tuple(range(group.d))
    if flattened:
        half = tuple(int(v) for v in _half_turn(group))
        return {ident: Fraction(2, 5), half: Fraction(3, 5)}
    if _uniform_reference(group):
        els = all_elements(group)
        return {tuple(int(v) for v in p): Fraction(1, len(els)) for p in els.perms}
    tables = _power_tables(group)
    out: dict[tuple, Fraction] = {}
    weight = Fraction(1, int(np.prod([len(t) for t in tables])))
    for exps in product(*(range(len(t)) for t in tables)):
        img = np.arange(group.d)
        for t, a in zip(reversed(tables), reversed(exps)):  # g1^a1 ∘ (g2^a2 ∘ (...))
            img = t[a][img]
        key = tuple(int(v) for v in img)
        out[key] = out.get(key, Fraction(0)) + weight
    return out


def sample_reference(group: Group, n: int, rng, flattened: bool = False) -> Elements:
    """``n`` elements drawn as the authors' code draws them (``reference_distribution``)."""
    rng = np.random.default_rng(rng)
    d = group.d
    if flattened:
        half = _half_turn(group)
        r = rng.integers(0, 5, size=n)  # random.randint(0, 4): 0 and 4 the identity, 1, 2, 3 a half-turn
        perms = np.where(((r == 0) | (r == 4))[:, None], np.arange(d)[None], half[None])
        return Elements(group, perms.astype(np.int64), np.ones((n, d), dtype=np.int8))
    if _uniform_reference(group):
        return sample_elements(group, n, rng)
    tables = _power_tables(group)
    exps = [rng.integers(0, len(t), size=n) for t in tables]  # randint(0, n_i): n_i + 1 values
    img = np.tile(np.arange(d), (n, 1))
    for t, a in zip(reversed(tables), reversed(exps)):
        img = np.take_along_axis(t[a], img, axis=1)
    return Elements(group, img.astype(np.int64), np.ones((n, d), dtype=np.int8))


def draw_elements(group: Group, n: int, rng, draws: str = "uniform", flattened: bool = False) -> Elements:
    """``n`` augmentation elements: ``draws="uniform"`` (the paper's text, ``sample_elements``) or
    ``"reference"`` (the authors' code, ``sample_reference``; ``flattened``: the §5 Rot experiment)."""
    if draws == "uniform":
        return sample_elements(group, n, rng)
    if draws == "reference":
        return sample_reference(group, n, rng, flattened=flattened)
    raise ValueError(f"unknown draws {draws!r}: choose uniform or reference")
