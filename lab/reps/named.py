"""Names of basis elements that are known invariant tensors.

A basis element of a layer ``T(a) -> T(b)`` is a tensor with ``a + b`` indices.  For the orthogonal groups the
invariant tensors are spanned by products of Kronecker deltas (one δ per pair of indices: δᵢⱼδₖₗ, δᵢₖδⱼₗ, …)
and, for the rotations of R^n, by one Levi-Civita symbol on n indices times deltas on the rest (εᵢⱼₖ for SO(3)).
``element_names`` writes each element of a solved basis as such a product (or a short sum of them with small
rational coefficients, up to the element's scale) when it is one, and leaves it unnamed otherwise.

Nothing is assumed about the group: a candidate tensor is used only after it is checked to lie in the solved
space, and a name only after the element is checked to equal its sum, so a name is a checked identity in the
frame the pictures draw (rows: the output's indices i, j, …; columns: the input's, lettered on from there).
"""
from __future__ import annotations

import itertools
import re
from fractions import Fraction

import numpy as np

LETTERS = "ijklmnpqrs"
SUB = dict(zip("ijklmnpqrs", "ᵢⱼₖₗₘₙₚqᵣₛ"))
MAX_ENTRIES = 100_000  # tensors with more entries are not named (the candidates would be too many to check)
MAX_CANDIDATES = 300
TOL = 1e-8


def tensor_order(rep_text: str) -> int | None:
    """k when ``rep_text`` is a plain tensor power of the group's V ("Scalar", "V", "T(k)"), else None."""
    text = rep_text.strip()
    if text == "Scalar":
        return 0
    if text == "V":
        return 1
    m = re.fullmatch(r"T\((\d+)\)", text)
    return int(m.group(1)) if m else None


def _matchings(indices: tuple[int, ...]):
    """Every way to split ``indices`` (even count) into pairs."""
    if not indices:
        yield ()
        return
    first, rest = indices[0], indices[1:]
    for i, other in enumerate(rest):
        for tail in _matchings(rest[:i] + rest[i + 1:]):
            yield ((first, other),) + tail


def _levi_civita(d: int) -> np.ndarray:
    eps = np.zeros((d,) * d)
    for perm in itertools.permutations(range(d)):
        inversions = sum(1 for a, b in itertools.combinations(perm, 2) if a > b)
        eps[perm] = -1.0 if inversions % 2 else 1.0
    return eps


def _candidates(d: int, k: int):
    """(name, tensor) of every δ product on k indices and every ε (on d indices) times δs on the rest."""
    letters = LETTERS[:k]

    def sub(ix):
        return "".join(SUB[letters[i]] for i in ix)

    eye = np.eye(d)
    if k % 2 == 0:
        for pairs in _matchings(tuple(range(k))):
            operands = [x for p in pairs for x in (eye, list(p))]
            yield "".join(f"δ{sub(p)}" for p in pairs), np.einsum(*operands, list(range(k)))
    if d <= k and (k - d) % 2 == 0 and d <= 4:
        eps = _levi_civita(d)
        for on in itertools.combinations(range(k), d):
            rest = tuple(i for i in range(k) if i not in on)
            for pairs in _matchings(rest):
                operands = [eps, list(on)] + [x for p in pairs for x in (eye, list(p))]
                yield (f"ε{sub(on)}" + "".join(f"δ{sub(p)}" for p in pairs),
                       np.einsum(*operands, list(range(k))))


def _term(coef: Fraction, name: str, first: bool) -> str:
    sign = "−" if coef < 0 else ("" if first else "+")
    size = abs(coef)
    scale = "" if size == 1 else f"{size}·"
    return f"{sign} {scale}{name}".strip() if not first else f"{sign}{scale}{name}"


def element_names(B: np.ndarray, d: int, out_order: int | None, in_order: int | None) -> list[str | None]:
    """A name per column of ``B`` (the basis elements, each flattened as the (output, input) matrix the pictures
    draw) where it is a δ/ε tensor or a short sum of them, else None.  ``out_order``/``in_order``: the layer's
    tensor orders (None: not a plain tensor power, nothing is named)."""
    B = np.real_if_close(np.asarray(B))
    if out_order is None or in_order is None or np.iscomplexobj(B) or B.ndim != 2 or B.shape[1] == 0:
        return [None] * (B.shape[1] if B.ndim == 2 else 0)
    k = out_order + in_order
    if k == 0 or d ** k != B.shape[0] or d ** k > MAX_ENTRIES:
        return [None] * B.shape[1]
    Q, _ = np.linalg.qr(B)
    kept = []
    for name, tensor in itertools.islice(_candidates(d, k), MAX_CANDIDATES):
        t = tensor.reshape(-1)
        if np.linalg.norm(t - Q @ (Q.T @ t)) <= TOL * max(np.linalg.norm(t), 1.0):  # in the solved space
            kept.append((name, t))
    if not kept:
        return [None] * B.shape[1]
    C = np.stack([t for _, t in kept], axis=1)
    names = []
    for col in B.T:
        coef, *_ = np.linalg.lstsq(C, col, rcond=None)
        if np.linalg.norm(C @ coef - col) > TOL * max(np.linalg.norm(col), 1.0):
            names.append(None)
            continue
        used = [(i, c) for i, c in enumerate(coef) if abs(c) > TOL * np.abs(coef).max()]
        lead = used[0][1]
        fracs = [(i, Fraction(c / lead).limit_denominator(12)) for i, c in used]
        if len(used) > 4 or any(abs(float(f) * lead - c) > 1e-6 * abs(lead) for (_, f), (_, c) in zip(fracs, used)):
            names.append(None)
            continue
        names.append(" ".join(_term(f, kept[i][0], n == 0) for n, (i, f) in enumerate(fracs)))
    return names
