"""The ``lab audit PATH|PRESET`` command the meter family contributes (``lab.experiments.Command``): its parser and
its run, torch-free until it runs (``lab --help`` builds the parser).  The audit itself is the shared equivariance
layer's (``lab.equivariance.audit``); the targets are the meter's presets and saved runs (``lab.meter.audit``)."""
from __future__ import annotations

import json

from ..cliargs import check_number, given_text, strict
from ..config import SEED_HIGH
from ..experiments.family import Command
from .presets import PRESETS

#: the most group elements and inputs an audit samples (the meter's --samples has the same bound)
MAX_AUDIT_SAMPLES = 100_000


def add_parser(sub) -> None:
    """``lab audit PATH|PRESET``: is a saved or preset matrix-group model equivariant (``lab.meter.audit``)."""
    sp = sub.add_parser("audit", help="audit a model's equivariance: exit 0 within tolerance, 3 when not",
                        description="Audit a model for equivariance (lab.equivariance): the relative Lie derivative along "
                                    "every Lie-algebra generator and the relative error f(gx) vs g f(x) for the "
                                    "discrete generators and sampled group elements, against a tolerance for the "
                                    "model's dtype (1000 x eps x cond(rho(g))), and each layer's output, naming the "
                                    "first layer that breaks it. Exit code 0 when equivariant within tolerance, 3 "
                                    "when not, 2 on bad input.")
    sp.add_argument("model", metavar="PATH|PRESET",
                    type=given_text(allowed="a preset or a run's directory", required=True),
                    help="the directory of a run saved by lab lie-derivative of a preset (its weights), or a preset "
                         "built afresh: " + "; ".join(f"{k}: {p.description}" for k, p in PRESETS.items()))
    text = given_text()
    sp.add_argument("--group", default=None, metavar="G", type=text,
                    help="the group to audit against, e.g. 'SO(3)' (default: the model's own)")
    sp.add_argument("--rep-in", dest="rep_in", default=None, metavar="R", type=text,
                    help="the input rep, e.g. '2*V' (default: the model's own, over --group)")
    sp.add_argument("--rep-out", dest="rep_out", default=None, metavar="R", type=text,
                    help="the output rep, e.g. 'Scalar+V' (default: the model's own, over --group)")
    sp.add_argument("--tolerance", type=float, default=None, metavar="T",
                    help="one fixed tolerance for every check, a finite number >= 0 (default: 1000 x eps(dtype) x "
                         "cond(rho(g)))")
    sp.add_argument("--samples", type=int, default=None, metavar="N",
                    help=f"group elements sampled besides the discrete generators, 0 to {MAX_AUDIT_SAMPLES} "
                         f"(default: 8)")
    sp.add_argument("--inputs", type=int, default=None, metavar="N",
                    help=f"random input vectors, 1 to {MAX_AUDIT_SAMPLES} (default: 16)")
    sp.add_argument("--seed", type=int, default=0,
                    help="seed of the inputs, the sampled elements and a preset's weights, 0 to 2^32 - 1 "
                         "(default: 0)")
    sp.add_argument("--json", action="store_true",
                    help='print one JSON object: "ok", "worst", "tolerance", "first_breaking_layer", "per_generator", '
                         '"per_element", "layers", ... (lab.equivariance.AuditResult.to_dict) and "target", "preset", '
                         '"source", "exit_code"')
    sp.set_defaults(contributed=run)


def run(args) -> int:
    """Audit the target (``lab.meter.audit.run``: torch loads here) and print its verdict; the exit code is the
    verdict's."""
    from .audit import run as audit_target

    # each number in its domain before any model is built (one line naming the option, exit code 2)
    for flag, value, kind, low, high in (("--tolerance", args.tolerance, float, 0, None),
                                         ("--samples", args.samples, int, 0, MAX_AUDIT_SAMPLES),
                                         ("--inputs", args.inputs, int, 1, MAX_AUDIT_SAMPLES),
                                         ("--seed", args.seed, int, 0, SEED_HIGH)):
        check_number(flag, value, kind, low, high)
    out = audit_target(args.model, args.group, args.rep_in, args.rep_out, args.tolerance, args.samples, args.inputs, args.seed)
    print(json.dumps(strict(out.payload), allow_nan=False) if args.json else out.text(), flush=True)
    return out.exit_code


AUDIT = Command("audit", add_parser, run)
