"""Experiment family ``basis``: the equivariant basis of a representation (or of the layer REP >> REP_OUT).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..config import Config, Option, option
from ..solvers import BASES, SOLVERS
from ..experiments.family import Family, Output, progress_record
from .cli import PRESETS_COMMAND
from .presets import PRESETS, fill_size, has_size  # noqa: F401  (its teaching presets: the pane reads them here)


@dataclass
class BasisConfig(Config):
    """The settings of one basis solve (``lab basis``, the Basis explorer pane): the equivariant basis of the
    representation ``rep`` of ``group``, or with ``rep_out`` of the layer ``rep >> rep_out``.

    Its fields are declared with ``option(...)`` (default, help, choices): ``group`` and ``rep`` are texts of the
    group and representation language (``"S(5)"``, ``"T(2)+3*V"``), ``solver`` picks the solver (``auto``: the
    fastest that applies), ``basis`` which basis the pictures draw (``canonical`` or the solver's), and
    ``device``, ``memory_limit`` (a size such as ``8GB``) and ``cache`` where and how the solve runs.  ``check()``
    refuses an unknown device or a malformed memory size before any work; ``estimate`` sizes the request from its
    texts alone.
    """

    group: str = option("S(5)", 'group text, e.g. "S(5)", "Z(8)*Z(8)", "SO13()"', positional=True)
    rep: str = option("T(2)", 'representation text, e.g. "T(4)", "V >> V", "T(2)+3*V" (with --rep-out: the '
                      'input rep of the layer REP >> REP_OUT)', positional=True)
    rep_out: str | None = option(None, "output rep: solve the layer REP >> REP_OUT")
    solver: str = option("auto", "the solver (auto picks the fastest that applies)", choices=SOLVERS)
    basis: str = option("canonical", "which basis the pictures draw: canonical = the one a person would write "
                        "(sparsest, reduced row echelon, exact small fractions; e.g. δ_ij δ_kl for SO(3)), "
                        "solver = the solver's orthonormal basis (what --npz holds either way)", choices=BASES)
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")
    memory_limit: str | None = option(None, "refuse solves needing more, e.g. 8GB (default: 80% of free RAM)")
    cache: bool = option(True, "do not read or write the on-disk basis cache", cli="--no-cache")

    def check(self) -> None:
        from ..device import check_device_name
        from ..solvers import memory

        self.device = check_device_name(self.device)
        if self.memory_limit is not None:
            memory.memory_limit(self.memory_limit)  # a bad size is refused before any work


@dataclass
class BasisResult:
    config: BasisConfig
    solution: object  # lab.solvers.Solution
    rep_in: str  # printed input rep of a layer ("" when REP was solved on its own)
    rep_out: str
    device: str
    status: str = "finished"


def build_rep(config: BasisConfig):
    """(rep to solve, input text, output text) from a config; bad text raises ``LabError`` before any work."""
    from ..errors import RepError
    from ..groups import parse_group
    from ..reps.parse import parse_rep

    group = parse_group(config.group)
    a = parse_rep(config.rep, group)
    if config.rep_out is None:
        return a, "", ""
    b = parse_rep(config.rep_out, group)
    if any(getattr(r, "maps", None) is not None for r in (a, b)):
        raise RepError("input and output reps cannot themselves be maps ('>>'); write the map as one rep instead")
    return a >> b, str(a), str(b)


@dataclass(frozen=True)
class Estimate:
    """What a basis request will cost, from its text alone (nothing built): ``entries`` of the rep solved and
    the group's ``footprint`` (None when not known in advance)."""

    entries: int
    footprint: object
    config: BasisConfig | None = None

    @property
    def small(self) -> bool:
        """Cheap enough to run beside the caller: a group of at most ``SMALL_GROUP_BYTES``, a rep of at most
        ``SMALL_ENTRIES`` entries, and a solve the cost model (``lab.solvers.predict_seconds``) puts under
        ``SMALL_SECONDS``; anything larger belongs in a worker process that can be ended.  Sizing the solve
        builds the (small) group and reads its generators: milliseconds."""
        fp = self.footprint
        if fp is None or fp.bytes > SMALL_GROUP_BYTES or self.entries > SMALL_ENTRIES or self.config is None:
            return False
        try:
            from ..solvers import predict_seconds

            rep, _, _ = build_rep(self.config)
            return predict_seconds(rep, self.config.solver, self.config.memory_limit) <= SMALL_SECONDS
        except Exception:  # anything the cost model cannot size runs where it can be ended
            return False


SMALL_ENTRIES = 100_000
SMALL_SECONDS = 0.3
SMALL_GROUP_BYTES = 4 * 2**20


def estimate(config: BasisConfig) -> Estimate:
    """Parse the texts and size the request without building the group or the rep (microseconds to
    milliseconds); raises the same ``LabError``s as ``build_rep`` for bad or over-limit input.

    >>> estimate(BasisConfig(group="S(5)", rep="T(2)", rep_out="T(2)")).entries
    625
    >>> estimate(BasisConfig(group="Z(1000)*Z(1000)", rep="V", rep_out="V"))
    Traceback (most recent call last):
    ...
    lab.limits.LimitError: the layer V >> V over Z(1000)*Z(1000): dimension 1,000,000,000,000 is over the limit of 2,147,483,647 (rep_size; raise it with LAB_MAX_REP_SIZE=...)
    """
    from .. import limits
    from ..errors import RepError
    from ..groups import group_footprint
    from ..reps.parse import parse_rep
    from ..reps.rep import dimension_over

    footprint = group_footprint(config.group)
    a = parse_rep(config.rep)
    rep = a
    if config.rep_out is not None:
        b = parse_rep(config.rep_out)
        if any(getattr(r, "maps", None) is not None for r in (a, b)):
            raise RepError("input and output reps cannot themselves be maps ('>>'); write the map as one rep instead")
        rep = a >> b
    what = (f"the layer {config.rep} >> {config.rep_out}" if config.rep_out is not None else f"the rep {config.rep}")
    what += f" over {config.group.strip()}"
    for name, value in (("tensor_order", rep.measure[2]), ("blocks", rep.measure[1])):
        limits.check(name, value, what)
    entries = None
    if footprint is not None:
        entries = limits.check("rep_size", dimension_over(rep, footprint.d), what)
    return Estimate(entries if entries is not None else 0, footprint, config)


def run(config: BasisConfig, progress=None, control=None) -> BasisResult:
    """Solve the basis a config asks for; solver progress arrives as ``progress`` records, and a stopped
    ``control`` ends the solve at its next progress report.

    >>> from lab.basis.family import FAMILY, BasisConfig
    >>> result = FAMILY.run(BasisConfig(group="S(5)", rep="T(2)", rep_out="T(2)", cache=False))
    >>> FAMILY.summary(result)["rank"]        # equivariant graph layers (Maron et al.): Bell(4) = 15
    15
    """
    from ..device import pick_device

    config = config.validate()
    rep, text_in, text_out = build_rep(config)
    if config.device.lower() not in ("auto", "cpu"):
        pick_device(config.device)  # an unknown name, or CUDA on a machine without it: refused before any work

    def report(fraction, message):
        if control is not None:
            control.checkpoint()  # a superseded or stopped solve ends at its next progress report
        if progress is not None:
            progress(progress_record(round(1000 * fraction), 1000, message))

    sol = rep.solve(solver=config.solver, device=config.device, memory_limit=config.memory_limit,
                    cache=config.cache, progress=report)
    # where the solve ran: torch's device for the krylov and subgroup solvers; orbit and dense solve in numpy on
    # the CPU (and never import torch, which keeps ``lab basis`` of a small rep fast to start)
    torch_solve = any(b.solver in ("krylov", "subgroup") for b in sol.blocks)
    device = str(pick_device(config.device)) if torch_solve else "cpu"
    return BasisResult(config, sol, text_in, text_out, device)


def layer(group: str, rep_in: str, rep_out: str | None = None, **settings) -> BasisResult:
    """Solve the layer ``rep_in >> rep_out`` (or ``rep_in`` alone) over ``group``: scripts' and notebooks'
    one-liner for ``run(BasisConfig(...))``.

    >>> layer("Z(8)", "V", "V").solution.rank      # convolutions: the 8 circulant matrices
    8
    """
    return run(BasisConfig(group=group, rep=rep_in, rep_out=rep_out, **settings))


def summary(result: BasisResult) -> dict:
    """The ``lab basis --json`` object: rank, dim, solver, seconds, group, rep, cached, blocks, device."""
    info = result.solution.summary()
    info["device"] = result.device
    return info


def text(result: BasisResult) -> str:
    info = summary(result)
    return "\n".join([f"group    {info['group']}", f"rep      {info['rep']}", f"rank     {info['rank']}",
                      f"dim      {info['dim']}", f"ratio    {info['rank'] / max(info['dim'], 1):.3g}",
                      f"solver   {info['solver']}{' (cached)' if info['cached'] else ''}",
                      f"seconds  {info['seconds']:.3f}"])


def slug(result: BasisResult) -> str:
    """A file name stem: ``S_5_T_2_to_T_2``."""
    s = summary(result)
    name = f"{s['group']}_{result.rep_in}_to_{result.rep_out}" if result.rep_in else f"{s['group']}_{s['rep']}"
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "basis"


def coloring(result: BasisResult, **kw):
    """The basis-coloring plot data of a solved basis (``lab.plots.coloring``), of the basis its config asks
    for (``basis``: canonical or solver)."""
    from ..plots.coloring import basis_coloring

    kw.setdefault("basis", result.config.basis)
    return basis_coloring(result, **kw)


def write_png(result: BasisResult, path: str) -> None:
    from ..plots.coloring_mpl import coloring_png

    data = coloring(result)
    _write(path, lambda f: f.write(coloring_png(data)))


def write_npz(result: BasisResult, path: str) -> None:
    from ..export import save_basis

    _write(path, lambda f: save_basis(result.solution, f, result.rep_in, result.rep_out))


def _write(path, fill) -> None:
    """Write a file the user named atomically; a failure is one ``LabError`` naming ``path``
    (``lab.runstore.write_file``)."""
    from ..runstore import write_file

    write_file(path, fill)


def save(result: BasisResult, directory=None):
    """Write the basis as ``.npz`` (``lab.export``) into ``directory``; returns the file's path."""
    from pathlib import Path

    root = Path(directory or ".")
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{slug(result)}.npz"
    write_npz(result, str(path))
    return path


def load(path):
    """A basis file written by ``save`` (``lab.export.load_basis``: ``RunFileError`` when it is not one)."""
    from ..export import load_basis

    return load_basis(path)


def _file_option(name: str, help: str) -> Option:
    return Option(name=name, type=str, default=None, help=help, optional=True, metavar="FILE")


FAMILY = Family(
    order=10,
    pane="lab.basis.pane:BasisExplorer", tab=10, commands=(PRESETS_COMMAND,),
    claims=("lab.basis.claims", "lab.basis.claims_krylov"),
    name="basis", title="Basis explorer", config=BasisConfig, run=run, summary=summary, text=text, save=save,
    load=load, help="solve for the equivariant basis of a representation",
    description="Solve rho(g) v = v for the representation REP of GROUP.",
    outputs=(Output(_file_option("png", "write the basis-coloring figure (PNG)"), write_png),
             Output(_file_option("npz", "write the basis (numpy .npz, see lab.export)"), write_npz)))
