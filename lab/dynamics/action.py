"""Group elements acting on data: what augmentation applies to inputs (and to equivariant targets).

Signed-permutation groups act on any tensor rep by a signed permutation of its entries, computed from
the base permutation without building matrices; other groups act by dense matrices ``rep.rho(g)``.
``Elements`` holds a batch of group elements in whichever form, and applies them to batched data.
"""
from __future__ import annotations

from dataclasses import dataclass
import numpy as np
import torch

from ..errors import GroupError, RepError
from ..groups.base import Group
from ..reps.rep import Rep

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

