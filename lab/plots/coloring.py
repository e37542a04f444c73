"""Basis-coloring data: the weight matrix of a layer, each entry coloured by the basis element it belongs to.

Thesis figures 2.2 and 2.3: solve ``rho(g) vec(W) = vec(W)`` for the layer ``rep_in >> rep_out`` and draw
W (rows = output entries, columns = input entries).  Two views:

* **categorical** -- the basis is a set of disjoint 0/+-1 patterns (always for permutation groups, and
  for some continuous cases such as the Levi-Civita symbol or the Lorentz metric): every entry carries the
  index of its basis element (``-1`` = forced to zero) and a sign;
* **continuous** -- overlapping basis elements (SO(3) T(4), ...): a random element of the equivariant space
  (Gaussian coefficients) plus a gallery of individual basis elements.

Both draw the basis ``Solution.basis`` gives (``basis="canonical"``, the default: the basis a person would
write down, ``lab.solvers.canonical``; ``"solver"``: the solver's orthonormal one).  A categorical plot of more
than ``MANY_ELEMENTS`` elements colours entries by element number on a sequential scale (``scheme="index"``)
instead of one distinct colour each; the continuous view's gallery is paged, ``GALLERY`` elements a page.

Everything here is numpy; ``lab.plots.coloring_hv`` (dashboard) and ``lab.plots.coloring_mpl`` (notebooks,
PNG export) only draw a ``ColoringData``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..reps.layout import matrix_layout
from ..reps.rep import Rep, SumRep

MAX_CELLS = 250_000  # cells sent to a browser / drawn in a figure; larger matrices are strided
GALLERY = 12  # basis elements per gallery page
GALLERY_CELLS = 2_000_000  # shown cells kept for the gallery's pages (every element, up to this budget)
#: above this many basis elements a categorical plot cannot give each a colour one can tell apart (about two
#: dozen): entries are coloured by element number on a sequential scale instead (``scheme="index"``)
MANY_ELEMENTS = 24


@dataclass
class Span:
    """A run of rows or columns belonging to one summand of a direct sum."""

    label: str
    start: int
    stop: int
    order: int = 0  # number of tensor factors when the summand is one tensor block (V: 1, T(2): 2), else 0


@dataclass
class ColoringData:
    """What a basis-coloring plot draws (see the module docstring)."""

    kind: str  # "categorical" or "continuous"
    shape: tuple[int, int]  # full weight-matrix shape (rows = output, columns = input)
    rows: np.ndarray  # original row indices shown (strided when the matrix is large)
    cols: np.ndarray
    labels: np.ndarray | None  # categorical: basis element of each shown entry, -1 = zero
    signs: np.ndarray | None  # categorical: +-1 (0 where zero)
    values: np.ndarray | None  # continuous: a random equivariant matrix, max |value| = 1
    gallery: list[np.ndarray] = field(default_factory=list)  # continuous: basis elements (all that fit
    # GALLERY_CELLS), drawn GALLERY to a page
    names: list = field(default_factory=list)  # continuous: per gallery element its δ/ε name, or None
    # (``lab.reps.named``: a checked identity, e.g. "δᵢⱼδₖₗ")
    row_spans: list[Span] = field(default_factory=list)
    col_spans: list[Span] = field(default_factory=list)
    row_guides: list[float] = field(default_factory=list)  # faint lines inside V blocks (group.channels)
    col_guides: list[float] = field(default_factory=list)
    rank: int = 0
    dim: int = 0
    solver: str = ""
    seconds: float = 0.0
    cached: bool = False
    group: str = ""
    rep_in: str = ""
    rep_out: str = ""
    stride: int = 1
    note: str = ""  # which view is shown and why, in a sentence
    scheme: str = "distinct"  # categorical colours: "distinct" (one per element) or "index" (sequential scale)
    basis: str = "canonical"  # which basis is drawn: "canonical" or "solver" (``Solution.basis``)

    @property
    def downsampled(self) -> bool:
        return self.stride > 1

    @property
    def pages(self) -> int:
        """Pages of the gallery (``GALLERY`` elements each)."""
        return -(-len(self.gallery) // GALLERY)

    def page(self, page: int) -> range:
        """The element numbers on gallery page ``page`` (0-based; clamped to the pages there are)."""
        page = min(max(int(page), 0), max(self.pages - 1, 0))
        return range(page * GALLERY, min((page + 1) * GALLERY, len(self.gallery)))

    def gallery_title(self, page: int = 0) -> str:
        """The gallery page's title with the true count, elements numbered from 0 as in the hover:
        '3 basis elements (0–2; ...)', 'basis elements 12–14 of 15 (page 2 of 2; ...)'."""
        shown = self.page(page)
        if not shown:
            return ""
        scaled = "each scaled to max |value| = 1"
        numbers = f"{shown.start}–{shown.stop - 1}" if len(shown) > 1 else f"{shown.start}"
        if len(shown) == self.rank:
            return f"{self.rank} basis element{'s' if self.rank > 1 else ''} ({numbers}; {scaled})"
        kept = f"; the first {len(self.gallery)} are kept" if len(self.gallery) < self.rank else ""
        return (f"basis element{'s' if len(shown) > 1 else ''} {numbers} of {self.rank} "
                f"(page {self.page(page).start // GALLERY + 1} of {self.pages}{kept}; {scaled})")

    def gallery_names(self, page: int = 0) -> str:
        """The named elements of a gallery page, "0: δᵢₗδⱼₖ · 1: δᵢⱼδₖₗ" ("" when none is named)."""
        return " · ".join(f"{e}: {self.names[e]}" for e in self.page(page)
                          if e < len(self.names) and self.names[e])

    def info(self) -> dict:
        """The information card: group, reps, rank, dimension, r/dim, solver, time."""
        return {"group": self.group, "input": self.rep_in, "output": self.rep_out, "rank": self.rank,
                "dim": self.dim, "ratio": self.rank / self.dim if self.dim else 0.0, "solver": self.solver,
                "seconds": self.seconds, "cached": self.cached, "view": self.kind,
                "shape": list(self.shape), "stride": self.stride}


def summands(rep: Rep) -> list[Span]:
    """The top-level direct summands of ``rep`` as consecutive spans of its natural layout."""
    parts = rep.children if isinstance(rep, SumRep) else [rep]
    spans, start = [], 0
    for p in parts:
        blocks = p.blocks if p.group is not None else []
        order = len(blocks[0].factors) if len(blocks) == 1 and blocks[0].contiguous else 0
        spans.append(Span(str(p), start, start + p.size, order))
        start += p.size
    return spans


def guides(spans: list[Span], channels: int, d: int) -> list[float]:
    """Faint sub-block lines inside each span: between the ``channels`` equal parts of a ``V`` (GCNN
    orientations, image rows), and between the d slices of the first index of a tensor (T(2) as d rows
    of d entries: an adjacency matrix)."""
    out: list[float] = []
    for s in spans:
        size = s.stop - s.start
        parts = channels if s.order == 1 else (d if s.order >= 2 else 1)
        if parts > 1 and size % parts == 0:
            step = size // parts
            out += [s.start + k * step - 0.5 for k in range(1, parts)]
    return out


def _stride(n_rows: int, n_cols: int, max_cells: int) -> int:
    cells = n_rows * n_cols
    return 1 if cells <= max_cells else math.ceil(math.sqrt(cells / max_cells))


def disjoint_pattern(B: np.ndarray, tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray] | None:
    """(labels, signs) if the columns of B have disjoint supports and equal magnitudes within each."""
    if B.shape[1] == 0:
        return None
    nz = np.abs(B) > tol
    if np.any(nz.sum(axis=1) > 1):
        return None
    labels = np.where(nz.any(axis=1), nz.argmax(axis=1), -1)
    signs = np.zeros(B.shape[0], dtype=np.int8)
    for k in range(B.shape[1]):
        vals = B[nz[:, k], k]
        mags = np.abs(vals)
        if vals.size == 0 or np.ptp(mags) > tol * mags.max() or np.iscomplexobj(vals) and np.any(
                np.abs(vals.imag) > tol * mags.max()):
            return None
        sk = np.sign(vals.real).astype(np.int8)
        # overall sign is arbitrary: most entries +1, ties broken by the first entry (eps_012 = +1)
        if sk.sum() < 0 or sk.sum() == 0 and sk[0] < 0:
            sk = -sk
        signs[nz[:, k]] = sk
    return labels.astype(np.int32), signs


def coloring_from_solution(sol, rep_in: str = "", rep_out: str = "", max_cells: int = MAX_CELLS,
                           seed: int = 0, gallery: int | None = None, basis: str = "canonical",
                           many: int = MANY_ELEMENTS) -> ColoringData:
    """Turn a ``Solution`` into plot data (see the module docstring).

    ``basis``: which basis of the solved space is drawn (``Solution.basis``: ``canonical`` or ``solver``).
    ``gallery``: at most this many elements kept for the gallery (default: all that fit ``GALLERY_CELLS``).
    ``many``: above this many elements a categorical plot colours by element index (``scheme="index"``).
    """
    rep = sol.rep
    out_rep, in_rep = matrix_layout(rep)
    n_rows = out_rep.size
    n_cols = rep.size // n_rows if n_rows else 0
    if n_rows * n_cols == 0:  # every picture and export comes through here: one refusal, in one line
        from ..errors import LabError

        side = "output" if n_rows == 0 else "input"
        in_size = in_rep.size if in_rep is not None else 1
        raise LabError(f"nothing to draw: the layer {rep_in or in_rep or 'Scalar'} -> {rep_out or out_rep} has no "
                       f"weights (its {side} side is zero-dimensional: a {n_rows} x {in_size} matrix)")
    stride = _stride(n_rows, n_cols, max_cells)
    row_spans = summands(out_rep)
    col_spans = summands(in_rep) if in_rep is not None else []
    channels, d = rep.group.channels, rep.group.d
    rows, cols = np.arange(0, n_rows, stride), np.arange(0, n_cols, stride)
    common = dict(shape=(n_rows, n_cols), rows=rows, cols=cols, dim=n_rows * n_cols,
                  solver=sol.solver, seconds=sol.seconds, cached=sol.cached, group=str(rep.group),
                  rep_in=rep_in or (str(in_rep) if in_rep is not None else "Scalar"),
                  rep_out=rep_out or str(out_rep), stride=stride, basis=basis,
                  row_spans=row_spans, col_spans=col_spans, row_guides=guides(row_spans, channels, d),
                  col_guides=guides(col_spans, channels, d))

    def shown(flat: np.ndarray) -> np.ndarray:
        return flat.reshape(n_rows, n_cols)[::stride, ::stride]

    why_strided = (f" The {n_rows} x {n_cols} matrix is too large to draw cell by cell: one row and column in "
                   f"every {stride} is shown." if stride > 1 else "")
    zero = " Blank (white) entries are forced to zero."

    def categorical(labels, signs, rank, what):
        if rank > many:
            scheme = "index"
            note = (f"With r = {rank} basis elements, one distinct colour each would be confetti (more than "
                    f"{many} colours cannot be told apart): each entry is coloured by the number of its basis "
                    "element on a sequential scale (elements numbered in reading order of their first entry, "
                    "so neighbouring numbers have similar colours); hover an entry for its element and sign."
                    + zero + (" A light shade is −1." if np.any(signs < 0) else ""))
        else:
            scheme = "distinct"
            note = "Each colour is one basis element: " + what + zero
        return ColoringData(kind="categorical", labels=shown(labels), signs=shown(signs), values=None,
                            rank=rank, scheme=scheme, note=note + (" Only the zero map is equivariant."
                                                                  if rank == 0 else "") + why_strided, **common)

    if sol.labels is not None:
        return categorical(sol.labels, sol.signs, sol.rank, "the basis is a set of disjoint 0/±1 patterns "
                           "(orbits of the permutation action).")
    B = np.asarray(sol.basis(basis))
    pattern = disjoint_pattern(B)
    if pattern is not None:
        labels, signs = pattern
        return categorical(labels, signs, B.shape[1], "this basis happens to be a set of disjoint 0/±1 "
                           "patterns even though the group is continuous.")
    rank = B.shape[1]
    rng = np.random.default_rng(seed)
    w = (B @ rng.standard_normal(rank)).real if rank else np.zeros(B.shape[0])
    scale = np.abs(w).max()
    values = shown(w / scale if scale > 0 else w)
    keep = rank if gallery is None else min(gallery, rank)
    keep = min(keep, max(GALLERY, GALLERY_CELLS // max(len(rows) * len(cols), 1)))
    elements = []
    for k in range(keep):
        b = B[:, k].real
        m = np.abs(b).max()
        elements.append(shown(b / m if m > 0 else b))
    from ..reps.named import element_names, tensor_order

    names = element_names(B[:, :keep], rep.group.d, tensor_order(str(out_rep)),
                          tensor_order(str(in_rep)) if in_rep is not None else 0)
    which = ("the canonical basis elements (the sparsest reduced-row-echelon basis of the space, entries exact "
             "small fractions where they are)" if basis == "canonical" else
             "the basis elements as the solver returned them (an orthonormal basis: an arbitrary rotation of a "
             "readable one; choose the canonical basis to see that)")
    note = ("The basis elements overlap (they are not disjoint 0/±1 patterns), so one colour per element "
            "is impossible: shown is a random element of the equivariant space (Gaussian coefficients), "
            f"and below it {which}." if rank else
            "Only the zero map is equivariant: the equivariant space is {0}.")
    if np.iscomplexobj(B):
        note += " The group is complex: real parts are drawn."
    if any(names):
        note += (" Where an element is a known invariant tensor it is named (δ: Kronecker delta, ε: Levi-Civita; "
                 "output indices i, j, … first, then the input's).")
    return ColoringData(kind="continuous", labels=None, signs=None, values=values, gallery=elements, rank=rank,
                        names=names, note=note + why_strided, **common)


def basis_coloring(solved, rep_in: str = "", rep_out: str = "", max_cells: int = MAX_CELLS, seed: int = 0,
                   gallery: int | None = None, basis: str | None = None) -> ColoringData:
    """Plot data of a solved basis: a ``Solution``, or a result with ``.solution``, ``.rep_in``, ``.rep_out``
    (``lab.basis.family``; its ``config.basis`` picks the basis unless ``basis`` is given; default
    canonical).  Plots never parse or solve: solve first (``lab.basis.family.layer``)."""
    if basis is None:
        basis = getattr(getattr(solved, "config", None), "basis", "canonical")
    if hasattr(solved, "solution"):
        rep_in, rep_out, solved = rep_in or solved.rep_in, rep_out or solved.rep_out, solved.solution
    return coloring_from_solution(solved, rep_in, rep_out, max_cells=max_cells, seed=seed, gallery=gallery,
                                  basis=basis)
