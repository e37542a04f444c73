"""The ``lab`` command line (also ``python -m lab``): thin, built from the experiment declarations.

Every experiment command (``basis``, ``dynamics``, ``discover``) takes its options, choices, defaults and
``--help`` from its family's config (``lab.experiments``); ``COMMANDS`` says which families a command runs.
A command shared by several families (``discover``: sharing for gaussian/conv/group/sum, msr for msr) picks
the family whose ``task`` choices hold the ``--task`` given.  Bad input exits with code 2 and one line on
stderr; Ctrl-C exits with 130.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

from .errors import LabError

#: sub-command -> the experiment families it runs (the first is the default of ``--task``)
COMMANDS = {"basis": ("basis",), "dynamics": ("dynamics",), "discover": ("sharing", "msr")}
DISPATCH = "task"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage errors: one line, exit code 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _default_text(entries) -> str:
    """`` (default: 5)``, or per family where families sharing a command differ (`` (msr: 600)``)."""
    fmt = lambda v: ",".join(v) if isinstance(v, tuple) else str(v)  # noqa: E731
    defaults = {fam.name: o.default for fam, o in entries}
    if len(set(map(repr, defaults.values()))) == 1 or entries[0][1].name == DISPATCH:
        v = entries[0][1].default
        return "" if v is None or isinstance(v, bool) else f" (default: {fmt(v)})"
    return " (" + "; ".join(f"{name}: {fmt(v)}" for name, v in defaults.items() if v is not None) + ")"


def add_config_arguments(parser: argparse.ArgumentParser, families) -> None:
    """One argument per declared option of the families' configs (merged by name; defaults stay in the
    configs: an option not given is not passed)."""
    entries: dict[str, list] = {}
    for fam in families:
        for o in fam.config.declarations():
            if o.cli != "":
                entries.setdefault(o.name, []).append((fam, o))
    for name, group in entries.items():
        fam, o = group[0]
        if o.positional:
            parser.add_argument(name, metavar=o.metavar or name.upper(), help=o.help.replace("%", "%%"))
            continue
        help_text = (o.help + _default_text(group)).replace("%", "%%")
        kw = dict(dest=name, default=argparse.SUPPRESS, help=help_text)
        if o.type is bool:
            kw["action"] = "store_false" if o.default else "store_true"
        else:
            kw["type"] = o.type if o.type in (int, float) else str
            choices = [c for _, opt in group for c in (opt.choices or ())]
            if choices and o.type is not tuple:
                kw["choices"] = list(dict.fromkeys(choices))
            if o.metavar:
                kw["metavar"] = o.metavar
        parser.add_argument(o.flag, **kw)


def build_parser() -> argparse.ArgumentParser:
    from .experiments import FAMILIES

    p = _Parser(prog="lab", description="Symmetry Lab: groups, representations and equivariant bases.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command, names in COMMANDS.items():
        families = [FAMILIES[n] for n in names]
        first = families[0]
        sp = sub.add_parser(command, help=first.help, description=first.description)
        add_config_arguments(sp, families)
        for fam in families:
            for out in fam.outputs:
                sp.add_argument(out.option.flag, metavar=out.option.metavar, default=None, help=out.option.help)
        if any(f.cli_saves for f in families):
            sp.add_argument("--out", default=None, metavar="DIR",
                            help="results directory (default: LAB_RESULTS_DIR or the user data dir)")
            sp.add_argument("--no-save", action="store_true", help="do not save the run")
        sp.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_parser("groups", help="list the groups with their arguments")
    sub.add_parser("presets", help="list the teaching presets as lab basis command lines")
    return p


def pick_family(command: str, args):
    """The family of ``command`` that runs these arguments (by ``--task`` when the command has several)."""
    from .experiments import FAMILIES

    families = [FAMILIES[n] for n in COMMANDS[command]]
    if len(families) == 1:
        return families[0]
    value = getattr(args, DISPATCH, families[0].config.option_named(DISPATCH).default)
    return next(f for f in families if value in f.config.option_named(DISPATCH).choices)


def config_from_args(family, args):
    """The family's config from the options given; an option of another family is refused, not ignored."""
    from .experiments import FAMILIES

    names = {o.name for o in family.config.declarations()}
    given = vars(args)
    for other in FAMILIES.values():
        if other is family:
            continue
        for o in other.config.declarations():
            if o.name in given and o.name not in names and not o.positional:
                raise LabError(f"{o.flag} does not apply to {_describe(family, given)} "
                               f"(it is an option of {_describe(other, None, o.only)})")
    return family.config(**{k: v for k, v in given.items() if k in names}).validate()


def _describe(family, given: dict | None, only=None) -> str:
    """``--task msr`` for a family picked by ``--task`` (every task it takes when ``given`` is None, or those
    in ``only``), else the family's name."""
    try:
        dispatch = family.config.option_named(DISPATCH)
    except KeyError:
        return family.name
    if given is None:
        return f"--{DISPATCH} {'|'.join(only or dispatch.choices)}"
    return f"--{DISPATCH} {given.get(DISPATCH, dispatch.default)}"


class ProgressLine:
    """``progress`` records as one updating line on stderr, with rate and ETA (after the first second)."""

    def __init__(self, stream=sys.stderr, delay: float = 1.0):
        self.stream, self.delay = stream, delay
        self.t0 = time.monotonic()
        self.first = None  # (time, done) of the first record: the rate excludes start-up
        self.last_print = 0.0
        self.shown = False

    def __call__(self, record: dict) -> None:
        if record.get("kind") != "progress":
            return
        now = time.monotonic()
        done, total = record["done"], max(record["total"], 1)
        if self.first is None:
            self.first = (now, done)
        if now - self.t0 < self.delay or now - self.last_print < 0.2 and done < total:
            return
        t1, d1 = self.first
        rate = (done - d1) / (now - t1) if now > t1 and done > d1 else 0.0
        eta = f" · ETA {_seconds((total - done) / rate)}" if rate > 0 and done < total else ""
        self.stream.write(f"\r{record.get('message', '')} · {100 * done / total:.0f}%{eta}\033[K")
        self.stream.flush()
        self.last_print, self.shown = now, True

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def strict(value):
    """A copy of a JSON object with every non-finite number replaced by ``null`` and its reason in a key beside
    it (``"loss": null, "loss_reason": "NaN: not a number"``), so that strict JSON parsers read the output."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
                out[f"{k}_reason"] = "NaN: not a number (e.g. every run diverged)" if v != v else f"{v}: not finite"
            else:
                out[k] = strict(v)
        return out
    if isinstance(value, (list, tuple)):
        return [None if isinstance(v, float) and not math.isfinite(v) else strict(v) for v in value]
    return value


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"


def run_command(command: str, args) -> int:
    family = pick_family(command, args)
    config = config_from_args(family, args)
    printer = ProgressLine() if not args.json else None
    try:
        result = family.run(config, progress=printer)
    finally:
        if printer is not None:
            printer.close()
    if family.cli_saves and not args.no_save:
        try:
            path = family.save(result, args.out)
        except OSError as err:
            raise LabError(f"cannot save the run under {args.out or 'the results directory'}: {err}") from err
        if not args.json:
            print(f"saved {path}", file=sys.stderr)
    for out in family.outputs:
        value = getattr(args, out.option.name, None)
        if value:
            out.write(result, value)
    print(json.dumps(strict(family.summary(result)), allow_nan=False) if args.json else family.text(result))
    return 0


def _presets() -> int:
    from .presets import PRESETS

    for p in PRESETS.values():
        print(f"{p.name}:\n  lab basis '{p.group_text()}' '{p.rep_in} >> {p.rep_out}'\n  {p.blurb}")
    return 0


def _groups() -> int:
    from .groups import group_catalog

    rows = group_catalog()
    width = max(len(sig) for sig, _ in rows)
    for sig, desc in rows:
        print(f"{sig:<{width}}  {desc}")
    print(f"{'G1*G2':<{width}}  direct product, e.g. Z(8)*Z(8) (2-D translations of an 8x8 grid)")
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command in COMMANDS:
            return run_command(args.command, args)
        return _presets() if args.command == "presets" else _groups()
    except LabError as err:
        print(f"lab: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
