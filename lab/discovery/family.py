"""Experiment family ``discovery``: learn a continuous symmetry from data and hand it to the engine (issue 33;
``lab discover-lie``; the science in ``lab.discovery``).

One run: samples of a task with a known answer (``--task``), an MLP fitted to them, k candidate Lie-algebra
generators learned from its Lie derivative (``--method gradient|spectral``), those below the threshold kept and cut
at the gap of their losses (none when no loss falls below it), their principal angles to the true algebra and
structure constants, the learned group's equivariant basis of ``V >> V`` solved with the stated tolerance (``--tol``)
with the singular-value gap at the cut and the rank the true algebra gives the same way, and the loop: an MLP, EMLP
over the true group and EMLP over the learned one trained alike on the same data (``lab.discovery.loop``).

>>> from lab.discovery.family import FAMILY, DiscoveryConfig
>>> s = FAMILY.summary(FAMILY.run(DiscoveryConfig(samples=200, fit_steps=50, steps=20, restarts=1)))
>>> sorted(k for k in ("generators", "principal_angles", "structure_constants", "basis_rank", "singular_gap",
...                    "test_mse") if k in s)
['basis_rank', 'generators', 'principal_angles', 'singular_gap', 'structure_constants', 'test_mse']
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ..config import SEED_HIGH, Config, ConfigError, option
from ..experiments.family import Family, progress_record

#: ``lab.discovery.tasks.TASKS`` and ``lab.discovery.learn.METHODS``, spelled here (``lab --help`` imports no torch)
TASKS = ("o5", "inertia", "lorentz", "rotated-plane", "none")
METHODS = ("gradient", "spectral")
OPTIMIZERS = ("lbfgs", "adam")
#: each task's input and output sizes (tests check they agree with ``lab.discovery.tasks``)
SIZES = {"o5": (10, 1), "inertia": (20, 9), "lorentz": (16, 1), "rotated-plane": (2, 1), "none": (4, 1)}
TEST_POINTS = 1000


@dataclass
class DiscoveryConfig(Config):
    """The settings of one symmetry-discovery run (``lab discover-lie``): fit an MLP to samples of ``task``, learn
    ``generators`` candidate Lie-algebra generators from its Lie derivative (``method``), keep those whose loss is
    below ``threshold``, solve the learned group's equivariant basis (``tol``) and train the loop's models.

    Its fields are declared with ``option(...)``.  ``samples``, ``optimizer``, ``fit_steps`` and ``hidden`` set the
    fitted MLP; ``steps`` and ``restarts`` the gradient method; ``loop_epochs`` and ``loop_seeds`` the loop (an
    MLP, EMLP over the true group and EMLP over the learned one; 0 epochs skips it).  ``closure`` (off at 0) and
    ``loop_seeds`` above 1 are the lab's own options.  ``check()`` refuses more generators than the task's
    generator space has (``form_size``) and computes the run's sizes (``costs``), refused over the memory limit
    before any work.
    """

    task: str = option("rotated-plane", "the data: a task with a known symmetry (O(5); inertia, under GL(3) on the "
                                        "positions and per-point mass-position trades; Lorentz; a rotation in a "
                                        "sheared basis) or none", choices=TASKS)
    generators: int = option(3, "k: the generators learned (at most the size of the algebra of input and output "
                                "maps); those whose loss is not below the threshold are dropped", low=1, high=1000)
    method: str = option("gradient", "gradient: the symmetry loss with orthogonality and sparsity terms, trained "
                                     "by the optimizer from restarts (the issue's recipe); spectral: the exact minimisers (the lab's "
                                     "option)", choices=METHODS)
    threshold: float = option(0.005, "a generator is kept when its symmetry loss, relative to an arbitrary "
                                     "direction's, is below this", positive=True, low=0.0, high=1.0)
    tol: float = option(0.2, "the solve's tolerance: singular values of the stacked constraint at most tol x the "
                             "largest span the basis (learned generators a few degrees off leave the true kernel's "
                             "values near sin(angle); the gap at the cut is reported)", positive=True, low=0.0,
                        high=1.0)
    closure: float = option(0.0, "the lab's improvement, off at 0: after the count is chosen, move the kept span to a "
                                 "nearby one closed under the bracket (this weight on the closure residual against "
                                 "the symmetry loss; 0.1 took O(5) from 6.6 to 2.0 degrees)", low=0.0, high=1e6)
    samples: int = option(4000, "training samples the model is fitted to (the rotated plane over eight seeds: its "
                                "generator kept at 4 000, the worst loss 0.0022 against the threshold 0.005; two "
                                "seeds found nothing at 2 000, one at 3 000; the task with no symmetry's lowest "
                                "loss 0.011-0.013 at 4 000)", low=10,
                          high=10_000_000)
    optimizer: str = option("lbfgs", "how the MLP is fitted and the gradient method's generators trained: L-BFGS "
                                     "(full batch; measured on O(5), a fit ten times closer than Adam's in the same "
                                     "time, and the generators at the exact minimum) or Adam",
                            choices=OPTIMIZERS)
    fit_steps: int = option(800, "iterations fitting the MLP (L-BFGS iterations or Adam steps)", low=1,
                            high=10_000_000)
    hidden: int = option(64, "the MLP's width (three SiLU layers)", low=2, high=4096)
    steps: int = option(500, "iterations of the gradient method, per restart", low=1, high=10_000_000)
    restarts: int = option(2, "random starts of the gradient method (the lowest loss kept)", low=1, high=100)
    loop_epochs: int = option(100, "epochs each model of the loop (MLP, EMLP over the true group, EMLP over the "
                                   "learned one) is trained for; 0 skips the loop (test_mse then holds the fitted "
                                   "MLP's alone, with why)", low=0, high=100_000)
    loop_seeds: int = option(1, "the lab's option: seeds each model of the loop is trained from (seed, seed + 1, "
                                "...; the same data), test_mse then the means and test_mse.spread each one's "
                                "range; at 1 the loop's numbers are one seed's, within seed noise (measured on the "
                                "rotated plane: an EMLP's error varies 2-5x between seeds at 100 epochs)",
                             low=1, high=100)
    seed: int = option(0, "seed of the data, the model and the generators", low=0, high=SEED_HIGH)
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")

    def check(self) -> None:
        from ..device import check_device_name

        self.device = check_device_name(self.device)
        m = self.form_size()
        if self.generators > m:
            raise ConfigError(f"--generators {self.generators} is more than the {m} directions of the {self.task} "
                              f"task's generator space")
        self.costs()

    def output_action(self) -> bool:
        return SIZES[self.task][1] > 1

    def form_size(self) -> int:
        """m: the generator space's dimension (d_in^2, plus d_out^2 with an output action)."""
        d_in, d_out = SIZES[self.task]
        return d_in * d_in + (d_out * d_out if self.output_action() else 0)

    def costs(self) -> dict:
        """Exact ``form_entries`` (m^2), ``jacobian_entries`` (samples used x d_out x d_in) and ``memory_bytes`` (the
        form, the per-chunk design matrix and the data, float64), refused over the memory limit."""
        from ..limits import check_memory

        d_in, d_out = SIZES[self.task]
        m = self.form_size()
        used = min(self.samples, 2000)
        need = 8 * (3 * m * m + 512 * d_out * m * 2 + (self.samples + TEST_POINTS) * (d_in + d_out) * 2)
        check_memory(f"learning generators of the {self.task} task", need)
        return {"form_entries": m * m, "jacobian_entries": used * d_out * d_in, "memory_bytes": need,
                "fit_steps": self.fit_steps, "generator_steps": self.steps * self.restarts}


@dataclass
class DiscoveryResult:
    config: DiscoveryConfig
    generators: list = field(default_factory=list)  # kept (A, B) pairs, lowest loss first
    losses: list = field(default_factory=list)  # relative losses of all k candidates
    next_loss: float | None = None  # the lowest loss outside the candidates' span
    gap_ratio: float | None = None  # the loss after the last kept over the last kept's
    spectrum: list = field(default_factory=list)  # spectral: every relative eigenvalue
    angles: list = field(default_factory=list)  # principal angles (radians) to the truth
    posed_angles: list = field(default_factory=list)  # the posed group's algebra within the kept span (radians)
    history: list = field(default_factory=list)  # gradient: (step, max angle to the truth in degrees)
    structure: list = field(default_factory=list)
    closure: float = 0.0
    meter: dict = field(default_factory=dict)  # the meter along the kept generators: {"lee", "form"}
    unrefined: dict = field(default_factory=dict)  # with --closure: the recipe's angles and closure before refining
    basis: dict = field(default_factory=dict)
    truth_rank: int | None = None
    test_mse: dict = field(default_factory=dict)
    loop: dict = field(default_factory=dict)  # the loop's seeds, and its noise (one seed) or spread (more)
    fit_losses: list = field(default_factory=list)
    device: str = "cpu"
    seconds: float = 0.0
    status: str = "finished"


def run(config: DiscoveryConfig, progress=None, control=None) -> DiscoveryResult:
    """Fit, learn, measure, solve; records ``started``, ``progress``, ``fit`` (loss every 50 steps), ``snapshot``
    (the gradient method's generators as they train: ``restart``, ``step``, ``generators`` (the k input matrices A),
    ``losses`` (each one's symmetry loss relative to chance; the frame rotated within its span as the method's end
    rotates it, ``lab.discovery.learn.ritz``),
    ``max_angle`` (degrees: the truth's dimension of lowest-loss generators against the truth; None without one)),
    ``generators`` (the kept restart's angle history), ``result``."""
    import numpy as np
    import torch

    from ..control import Stopped
    from ..device import pick_device
    from . import algebra, learn
    from .tasks import get_task

    config = config.validate()
    emit = progress or (lambda record: None)
    costs = config.costs()
    device = pick_device(config.device)
    task = get_task(config.task)
    result = DiscoveryResult(config, device=str(device))
    # progress units: the fit's steps, the learning's, the solve (1), and the loop's epochs of its three models
    loop_units = 3 * config.loop_epochs * config.loop_seeds
    total = config.fit_steps + config.steps * config.restarts * (config.method == "gradient") + 1 + loop_units
    emit({"kind": "started", "task": config.task, "total": total, **costs})
    t0 = time.monotonic()
    X, Y = task.make(config.samples, config.seed)
    Xt, Yt = task.make(TEST_POINTS, config.seed + 1)
    oa = config.output_action()
    # angles to the truth are taken modulo generators acting only outside the outputs' span (``learn.quotient``)
    P = learn.output_range(Y) if oa else None
    truth = learn.quotient(learn.truth_vectors(task.truth(), oa), task.d_in, task.d_out, P)

    def angles(U):
        return algebra.principal_angles(learn.quotient(U, task.d_in, task.d_out, P), truth)

    try:
        settings = learn.FitSettings(hidden=config.hidden, steps=config.fit_steps, optimizer=config.optimizer)

        def on_fit(step, loss):
            if step % 50 == 0:
                emit(progress_record(min(step, config.fit_steps), total, f"fitting the model: step {step}"))

        model, scale, fit_losses = learn.fit(X, Y, settings, seed=config.seed, device=device, control=control,
                                             on_step=on_fit)
        result.fit_losses = fit_losses[::50]
        emit({"kind": "fit", "losses": result.fit_losses})
        emit(progress_record(config.fit_steps, total, "model fitted"))
        with torch.no_grad():
            pred = model(torch.as_tensor(Xt, dtype=torch.float64, device=device)).cpu().numpy() * scale
        result.test_mse = {"mlp": float(np.mean((pred - Yt) ** 2) / np.mean(Yt ** 2)), "emlp_true": None,
                           "emlp_learned": None}
        C, D = learn.symmetry_form(model, X[:2000], oa)
        # the search runs among the quotient's representatives (B in the outputs' span, ``learn.quotient_basis``;
        # everything when the output is not acted on); ``lift`` maps its coordinates back to (vec A, vec B)
        Q = learn.quotient_basis(task.d_in, task.d_out, P) if P is not None else None
        Cs, Ds = (Q.T @ C @ Q, Q.T @ D @ Q) if Q is not None else (C, D)

        def lift(U):
            return U @ Q.T if Q is not None else U

        level = learn.chance(Cs, Ds)  # an arbitrary direction's loss, among those searched
        k = min(config.generators, len(Cs))

        def on_step(r, step, loss):
            if step % 50 == 0:
                emit(progress_record(config.fit_steps + r * config.steps + step, total,
                                     f"generators: restart {r + 1}, step {step}"))

        if config.method == "spectral":
            learned = learn.learn_spectral(Cs, Ds, k, config.threshold)
            result.spectrum = learned.spectrum.tolist()
        else:
            def on_snapshot(r, step, U, losses):
                # shown as the method ends: rotated within the frame's span to (C, D)'s eigenvectors there
                U = learn.ritz(Cs, Ds, U)
                losses = learn.relative_losses(Cs, Ds, U)
                U = lift(U)
                A = [learn.split(u, task.d_in, task.d_out, oa)[0].tolist() for u in U]
                # the r lowest-loss generators (r: the truth's dimension) against the truth: the whole k-frame
                # would trivially contain it once k fills the space
                best = U[np.argsort(losses)[:len(truth)]]
                angle = float(np.degrees(angles(best).max())) if len(truth) else None
                emit({"kind": "snapshot", "restart": r, "step": step, "generators": A,
                      "losses": [float(v) for v in losses], "max_angle": angle})

            learned = learn.learn_gradient(Cs, Ds, k, steps=config.steps, restarts=config.restarts, seed=config.seed,
                                           tau=config.threshold, optimizer=config.optimizer, control=control,
                                           on_step=on_step,
                                           on_snapshot=on_snapshot)
            if len(truth):
                result.history = [(s, float(np.degrees(angles(lift(u[np.argsort(ls)[:len(truth)]])).max())))
                                  for s, u, ls in learned.history]
            emit({"kind": "generators", "history": result.history})
        result.losses = learned.losses.tolist()
        result.next_loss, result.gap_ratio = learned.next_loss, learned.gap_ratio
        # the kept generators: the quotient's representatives, B in the outputs' span -- the rest acts on no value
        # the function takes, and its brackets were noise to the closure step (inertia: closing with it moved two
        # generators 17-26 degrees off; without it 4.9 -> 3.3 degrees)
        kept = lift(learned.vectors[:learned.kept])
        if config.closure > 0 and len(kept) >= 2:
            before = [learn.split(v, task.d_in, task.d_out, oa)[0] for v in kept]
            result.unrefined = {"closure_residual": algebra.structure_constants(before)[1],
                                "principal_angles": angles(kept).tolist() if len(truth) else []}
            emit(progress_record(total - 1 - loop_units, total, "closing the learned span under the bracket"))
            kept = learn.refine_closure(C, D, kept, task.d_in, task.d_out, oa, config.closure, control=control)
            result.losses[:len(kept)] = learn.relative_losses(C, D, kept, level).tolist()
        result.generators = [learn.split(v, task.d_in, task.d_out, oa) for v in kept]
        if len(kept) and len(truth):
            result.angles = angles(kept).tolist()
        if len(kept) and task.posed_truth is not None:
            # the algebra the task is posed with (so(3) for inertia) inside the kept span: as many angles as it has
            posed = learn.quotient(learn.truth_vectors(task.posed_truth(), oa), task.d_in, task.d_out, P)
            within = algebra.principal_angles(posed, learn.quotient(kept, task.d_in, task.d_out, P)).tolist()
            result.posed_angles = within + [math.pi / 2] * (len(posed) - len(within))  # fewer kept: some miss
        A = [a for a, _ in result.generators]
        c, result.closure = algebra.structure_constants(A)
        result.structure = c.tolist()
        if A:
            B = [b for _, b in result.generators] if oa else None
            G, vin, vout = algebra.learned_group(A, B, tol=config.tol)
            tb = algebra.tolerant_basis(vin >> vin, config.tol)
            # the meter (lab.equivariance.lie, forward-mode JVPs) measuring the fitted model along the learned generators,
            # in the data's units, beside the same quantity read off the symmetry form (reverse-mode Jacobians)
            from ..equivariance.lie import generator_lee

            pts = torch.as_tensor(X[:2000], dtype=torch.float64, device=device)
            lee = generator_lee(model, pts, vin, vout, G)
            form = np.einsum("im,mk,ik->i", kept, C, kept) / task.d_out  # kept: the generators' vectors
            result.meter = {"lee": [v * scale ** 2 for v in lee], "form": (form * scale ** 2).tolist()}
            result.basis = {"rank": tb.rank, "gap": tb.gap, "singular_values": tb.singular_values.tolist()}
        if len(truth):
            _, tin, _ = algebra.learned_group([a for a, _ in task.truth()], None, tol=1e-8)
            result.truth_rank = algebra.tolerant_basis(tin >> tin, 1e-8).rank
        if not result.generators:
            result.test_mse["why"] = "no generator was kept: there is no learned group to build an EMLP over"
        elif not len(truth):
            result.test_mse["why"] = "the task has no true algebra to compare with"
        elif not config.loop_epochs:
            result.test_mse["why"] = "the loop was skipped (--loop-epochs 0)"
        if result.generators and len(truth) and config.loop_epochs:
            from .loop import compare

            names = ("the MLP", "the EMLP over the learned group", "the EMLP over the true group")
            start = total - loop_units

            def on_epoch(i, epoch):
                which = "" if config.loop_seeds == 1 else f" (seed {config.seed + i // 3})"
                emit(progress_record(start + i * config.loop_epochs + epoch, total,
                                     f"the loop: {names[i % 3]}{which}, epoch {epoch}/{config.loop_epochs}"))

            emit(progress_record(start, total, "the loop: MLP, EMLP over the true and the learned group"))
            loop = compare(X, Y, Xt, Yt, result.generators, task.truth(), oa, config.tol, seed=config.seed,
                           epochs=config.loop_epochs, control=control, on_epoch=on_epoch, seeds=config.loop_seeds)
            if loop["why"] is None:
                result.test_mse = {k: loop[k] for k in ("mlp", "emlp_true", "emlp_learned")}
                # one seed: how far the numbers are from settled; more: the mean of each and its range
                result.loop = {k: loop[k] for k in ("noise", "spread", "seeds") if k in loop}
            else:
                result.test_mse["why"] = loop["why"]
    except Stopped:
        result.status = "stopped"
    result.seconds = time.monotonic() - t0
    s = summary(result)
    emit({"kind": "result", "kept": len(result.generators), "max_angle": s["max_angle_degrees"]})
    emit(progress_record(total, total, f"{result.status} in {result.seconds:.1f} s"))
    return result


def summary(result: DiscoveryResult) -> dict:
    """The ``lab discover-lie --json`` object: ``generators`` (the kept input generators A, as nested lists; empty when
    none is found), ``principal_angles`` (radians, to the true algebra; empty without one), ``structure_constants``
    (c[i][j][k]), ``basis_rank`` (of V >> V over the learned group at ``tol``), ``singular_gap`` ({below, above,
    ratio} at the cut), ``test_mse`` ({mlp, emlp_true, emlp_learned}: relative test MSEs of the three trained alike
    by ``lab.discovery.loop``; where no generator is kept or the learned EMLP is too large to build, the fitted MLP's
    alone, the EMLP ones null, and ``why``; the loop's ``test_mse_seeds``, and with one seed ``test_mse_noise``
    (in words: one seed's numbers are within seed noise), with ``--loop-seeds`` over 1 (test_mse then the means)
    ``test_mse_spread`` ({model: [least, largest]}); absent without the loop); plus ``singular_values`` (all of
    the solve's, relative to the largest),
    ``output_generators`` (B), ``losses`` (every candidate's, relative to chance), ``next_loss`` (the lowest outside
    the candidates' span), ``count_gap`` ({last_kept, next, ratio, sharp, why}: the gap the count was cut at;
    null when none is kept), ``threshold``, ``found`` (how many), ``none_reason``, ``closure_residual``,
    ``meter_lee`` (``lab.meter``'s LEE of the fitted model along each kept generator, E|L_A f|^2 / d_out in the
    data's units) and ``meter_lee_form`` (the same read off the symmetry form: the two agree to rounding),
    ``unrefined`` (with ``--closure``: the recipe's ``principal_angles`` and ``closure_residual`` before the
    refinement; null without it), ``true_dimension``, ``true_basis_rank``, ``max_angle_degrees``,
    ``connected_group``, ``basis_group`` (which group's basis the solve is: the connected one's, in words; null when
    nothing is kept), ``posed_group`` and ``posed_group_angles`` (where the function has more symmetry than the
    group the task is posed with -- inertia, Lorentz: that group's name and the principal angles, radians, of its
    algebra within the kept span; null and empty elsewhere), ``task``, ``method``, ``tol``, ``device``, ``seconds``,
    ``status``."""
    from .learn import GAP
    from .tasks import get_task

    cfg = result.config
    task = get_task(cfg.task)
    found = len(result.generators)
    reason = None
    if not found and result.losses:
        reason = (f"no direction's symmetry loss fell below the threshold {cfg.threshold:g} (the lowest was "
                  f"{min(result.losses):.3g} of an arbitrary direction's)")
    count = None
    if found:
        after = (result.losses[found] if found < len(result.losses) else result.next_loss)
        sharp = result.gap_ratio is not None and result.gap_ratio >= GAP
        if sharp:
            why = f"cut at the gap: the next loss is {result.gap_ratio:.3g} times the last kept (at least {GAP:g})"
        else:
            why = (f"no gap of {GAP:g} below the threshold: every candidate under it kept, so the count is not sharp"
                   + (" -- more symmetric directions may lie outside the k learned: raise --generators"
                      if result.next_loss is not None and result.next_loss < cfg.threshold else ""))
        count = {"last_kept": result.losses[found - 1], "next": after, "ratio": result.gap_ratio, "sharp": sharp,
                 "why": why}
    return {"generators": [a.tolist() for a, _ in result.generators],
            "principal_angles": result.angles, "structure_constants": result.structure,
            "basis_rank": result.basis.get("rank", 0), "singular_gap": result.basis.get("gap"),
            "singular_values": result.basis.get("singular_values", []),
            "test_mse": result.test_mse,
            **{f"test_mse_{k}": v for k, v in result.loop.items()},
            "output_generators": [b.tolist() for _, b in result.generators] if cfg.output_action() else [],
            "losses": result.losses, "next_loss": result.next_loss, "count_gap": count,
            "threshold": cfg.threshold, "found": found, "none_reason": reason,
            "closure_residual": result.closure, "meter_lee": result.meter.get("lee", []),
            "meter_lee_form": result.meter.get("form", []), "unrefined": result.unrefined or None, "true_dimension": len(task.truth()),
            "true_basis_rank": result.truth_rank,
            "max_angle_degrees": (math.degrees(max(result.angles)) if result.angles else None),
            "connected_group": task.connected or None,
            "basis_group": (f"the basis of the identity component, {task.connected} (an algebra generates only the "
                            f"connected group; a disconnected one, with reflections, would cut it further)"
                            if found and task.connected else None),
            "posed_group": task.posed or None,
            "posed_group_angles": result.posed_angles, "task": cfg.task, "method": cfg.method, "tol": cfg.tol,
            "device": result.device, "seconds": result.seconds, "status": result.status}


def text(result: DiscoveryResult) -> str:
    s = summary(result)
    lines = [f"{s['task']}: {s['found']} generator(s) found by the {s['method']} method (true algebra: "
             f"{s['true_dimension']}{', ' + s['connected_group'] if s['connected_group'] else ''}); fitted MLP's "
             f"relative test MSE {s['test_mse'].get('mlp', float('nan')):.4f}; {s['status']} in {s['seconds']:.1f} s",
             "losses relative to an arbitrary direction: " + ", ".join(f"{v:.3g}" for v in s["losses"])]
    if s["none_reason"]:
        lines.append(f"no symmetry: {s['none_reason']}")
    if s["count_gap"]:
        lines.append(f"count: {s['count_gap']['why']}")
    if s["max_angle_degrees"] is not None:
        lines.append(f"largest principal angle to the true algebra: {s['max_angle_degrees']:.2f} degrees")
    if s["posed_group_angles"]:
        lines.append(f"the posed group {s['posed_group']}'s algebra within the learned span: largest angle "
                     f"{math.degrees(max(s['posed_group_angles'])):.2f} degrees")
    mse = loop_mse(s)
    if mse.get("emlp_learned") is not None and mse.get("emlp_true") is not None:
        spread = mse.get("spread") or {}

        def one(k):
            lo_hi = spread.get(k)
            return f"{mse[k]:.4f}" + (f" ({lo_hi[0]:.4f}-{lo_hi[1]:.4f})" if lo_hi else "")

        lines.append(f"the loop (relative test MSE{', mean of %d seeds, range' % mse['seeds'] if spread else ''}): "
                     f"MLP {one('mlp')}, EMLP over the true group {one('emlp_true')}, over the learned group "
                     f"{one('emlp_learned')}" + (f"; {mse['noise']}" if mse.get("noise") else ""))
    if s["found"]:
        gap = s["singular_gap"] or {}
        lines.append(f"closure residual {s['closure_residual']:.3g}; V >> V over the learned group at tol "
                     f"{s['tol']:g}: rank {s['basis_rank']} (the true algebra's: {s['true_basis_rank']}); kept "
                     f"singular values up to {_g(gap.get('below'))}, the next {_g(gap.get('above'))}"
                     + (f"; {s['basis_group']}" if s["basis_group"] else ""))
    return "\n".join(lines)


def loop_mse(s: dict) -> dict:
    """A summary's ``test_mse`` with the loop's ``seeds``, ``noise`` and ``spread`` (its ``test_mse_*`` keys)."""
    return {**(s.get("test_mse") or {}),
            **{k: s[f"test_mse_{k}"] for k in ("seeds", "noise", "spread") if s.get(f"test_mse_{k}") is not None}}


def _g(x) -> str:
    return "n/a" if x is None else f"{x:.3g}"


def save(result: DiscoveryResult, directory=None):
    """``config.json`` (config, status, summary) + ``generators.npz`` (A and B stacked), atomically."""
    import numpy as np

    from .store import RUNS

    s = summary(result)
    A = np.array([a for a, _ in result.generators]) if result.generators else np.zeros((0, 0, 0))
    B = np.array([b for _, b in result.generators]) if result.generators else np.zeros((0, 0, 0))
    meta = {"config": result.config.to_dict(), "status": result.status, "summary": s}
    return RUNS.save(meta, arrays={"generators.npz": {"A": A, "B": B}}, directory=directory)


def load(path, root=None):
    """``(meta, A, B)`` of a saved run (checked; ``RunFileError`` naming the file otherwise)."""
    from .store import RUNS

    run = RUNS.read(path, root)
    return run.meta, run.arrays["A"], run.arrays["B"]


def learned_rep(path, name: str = "LearnedV", tol: float | None = None, root=None):
    """The saved run's learned group's ``V``, registered in the rep language under ``name`` (``parse_rep`` then reads
    it), solved at the run's tolerance unless ``tol`` is given."""
    from .algebra import learned_group
    from ..reps import register_rep

    meta, A, _ = load(path, root)
    if A is None or len(A) == 0:
        from ..errors import LabError

        raise LabError(f"{path}: the run found no generators, so there is no group to build")
    _, vin, _ = learned_group(list(A), None, tol=tol if tol is not None else meta["config"]["tol"])
    return register_rep(name, vin, replace=True)


def results_dir(directory=None):
    from .store import RUNS

    return RUNS.directory(directory)


FAMILY = Family(
    order=100, command="discover-lie",
    pane="lab.discovery.pane:SymmetryDiscovery", tab=40, run_css=".disc",
    claims=("lab.discovery.claims",),
    name="discovery", title="Symmetry discovery", config=DiscoveryConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True, runs="lab.discovery.store:RUNS",
    help="learn Lie-algebra generators from data and hand them to the engine with an explicit tolerance",
    description="Fit an MLP to samples of a task, learn k Lie-algebra generators along which its Lie derivative "
                "vanishes, keep those below the threshold (none when nothing falls below it), and report their "
                "principal angles to the true algebra, their structure constants, and the learned group's basis of "
                "V >> V solved with an explicit tolerance and the singular-value gap at the cut.")
