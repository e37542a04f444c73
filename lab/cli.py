"""The ``lab`` command line (also ``python -m lab``): thin, built from the experiment declarations.

Every experiment command (``basis``, ``dynamics``, ``discover``) takes its options, choices, defaults and
``--help`` from its family's config (``lab.experiments``); ``COMMANDS`` says which families a command runs.
A command shared by several families (``discover``: sharing for gaussian/conv/group/sum, msr for msr) picks
the family whose ``task`` choices hold the ``--task`` given.  Bad input exits with code 2 and one line on
stderr; Ctrl-C exits with 130.

Long commands (``dynamics``, ``discover``, large ``basis`` solves) show a progress line with an ETA on stderr
(not with ``--json``; see ``ProgressLine``) and end with ``saved PATH`` for what they wrote.  The first Ctrl-C
stops a run at its next checkpoint: a run that can stop early (dynamics, discover) is saved with status
``stopped`` and its summary printed; the exit code is 130 either way.  ``--json`` prints one strict JSON object
(``strict``: no NaN or Infinity).  Any other failure is one line on stderr and exit code 1.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time

from .commands import COMMANDS, DISPATCH  # noqa: F401  (the command -> families table, lab/commands.py)
from .config import SEED_HIGH
from .cliargs import check_number, given_text, number, strict  # noqa: F401  (strict: re-exported)
from .errors import LabError
from .threads import choose_wait_policy


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
            choices = [c for _, opt in group for c in (opt.choices or ())]
            kw["type"] = o.type if o.type in (int, float) else given_text(o.type is tuple, choices, group)
            if choices and o.type is not tuple:
                kw["choices"] = list(dict.fromkeys(choices))
            if o.metavar:
                kw["metavar"] = o.metavar
        parser.add_argument(o.flag, **kw)



#: the most worker processes (and threads per worker) a local sweep cluster may start
MAX_LOCAL_WORKERS = 256


def build_parser() -> argparse.ArgumentParser:
    from .experiments import FAMILIES

    p = _Parser(prog="lab", description="Symmetry Lab: groups, representations and equivariant bases.")
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                   help="print the installed version and exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command, names in COMMANDS.items():
        families = [FAMILIES[n] for n in names]
        first = families[0]
        sp = sub.add_parser(command, help=first.help, description=first.description)
        add_config_arguments(sp, families)
        for fam in families:
            for out in fam.outputs:
                sp.add_argument(out.option.flag, metavar=out.option.metavar, default=None, help=out.option.help,
                                type=given_text())
        if any(f.cli_saves for f in families):
            sp.add_argument("--out", default=None, metavar="DIR", type=given_text(),
                            help="results directory (default: LAB_RESULTS_DIR or the user data dir)")
            sp.add_argument("--no-save", action="store_true", help="do not save the run")
        sp.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_parser("groups", help="list the groups with their arguments")
    for command in _contributed(FAMILIES).values():  # the families' own extra commands (lab presets, lab audit)
        command.add(sub)
    add_reproduce_parser(sub)
    add_runs_parser(sub)
    add_sweep_parser(sub)
    add_dashboard_parser(sub)
    return p


def version() -> str:
    """The installed distribution's version (``symmetry-lab``), else the package's own (a checkout not installed)."""
    from importlib.metadata import PackageNotFoundError, version as dist_version

    from . import __version__

    try:
        return dist_version("symmetry-lab")
    except PackageNotFoundError:
        return __version__


def add_dashboard_parser(sub) -> None:
    """``lab dashboard``: the dashboard from the installed package (``lab.dashboard.serve``)."""
    from .dashboard.serve import DEFAULT_PORT, PORTS, SLUG, THEMES

    sp = sub.add_parser("dashboard", help="open the dashboard (the page of `panel serve app.py`, from the installed "
                                          "package)",
                        description=f"Serve the dashboard with Panel's server at http://localhost:PORT/{SLUG} until "
                                    f"Ctrl-C: the same page as `panel serve app.py` in a checkout.")
    sp.add_argument("--port", type=number(int, *PORTS), default=DEFAULT_PORT,
                    help=f"the port to listen on (default: {DEFAULT_PORT}; 0: any free port)")
    sp.add_argument("--address", default=None, type=given_text(),
                    help="the address to listen on (default: every local address, as `panel serve`)")
    sp.add_argument("--show", action="store_true", help="open the page in a web browser")
    sp.add_argument("--theme", choices=THEMES, default=None,
                    help="the theme of a page whose URL names none (default: LAB_THEME, else light; a page's "
                         "?theme=dark still wins)")


def add_sweep_parser(sub) -> None:
    """``lab sweep FILE``: an experiment family over a grid of its options on Dask (``lab.sweeps``)."""
    sp = sub.add_parser("sweep", help="run an experiment over a grid of its options on Dask (a local cluster by "
                                      "default), into one results store",
                        description="Run the points of a sweep file (YAML: experiment, fixed, grid, zip, seeds) on "
                                    "Dask distributed -- a LocalCluster on this machine, or the cluster at "
                                    "--scheduler -- each point the family's own run, saved as the command saves it, "
                                    "with a Parquet index of every point's settings and summary.  Every point is "
                                    "validated before anything runs.  Re-running resumes: points already done are "
                                    "skipped.")
    sp.add_argument("file", metavar="FILE", help="the sweep file (YAML)")
    sp.add_argument("--scheduler", default=None, metavar="ADDRESS", type=given_text(),
                    help="an existing Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: a LocalCluster here)")
    sp.add_argument("--workers", type=number(int, 1, MAX_LOCAL_WORKERS), default=None, metavar="N",
                    help=f"local cluster: worker processes, 1 to {MAX_LOCAL_WORKERS} (default: 2)")
    sp.add_argument("--threads-per-worker", dest="threads_per_worker", type=number(int, 1, MAX_LOCAL_WORKERS),
                    default=1, metavar="T", help=f"local cluster: threads per worker, 1 to {MAX_LOCAL_WORKERS} "
                                                 f"(default: 1)")
    sp.add_argument("--out", default=None, metavar="DIR", type=given_text(),
                    help="the results store (default: LAB_RESULTS_DIR/sweeps/<file's name>)")
    sp.add_argument("--retry-failed", dest="retry_failed", action="store_true",
                    help="run again the points that failed (by default they are skipped, like the done ones)")
    sp.add_argument("--json", action="store_true",
                    help='print one JSON object: {"done", "failed", "skipped", "store", "points", "dashboard", '
                         '"seconds", "errors"}')


def add_runs_parser(sub) -> None:
    """``lab runs list`` and ``lab runs compare RUN RUN ...``: saved runs side by side (``lab.compare``)."""
    sp = sub.add_parser("runs", help="list saved runs, or compare several (curves as CSV and PNG)",
                        description="Saved runs: list every family's, or compare several training-dynamics or "
                                    "sharing runs: their curves in one table (CSV) and one figure (PNG), each run "
                                    "labelled by the settings that differ between them.")
    runs = sp.add_subparsers(dest="runs_command", required=True, parser_class=_Parser)
    directory = dict(default=None, metavar="DIR", type=given_text(),
                     help="the runs directory to look in (default: every family's under LAB_RESULTS_DIR, or the "
                          "user data dir)")
    ls = runs.add_parser("list", help="the saved runs, newest first")
    ls.add_argument("--dir", **directory)
    ls.add_argument("--json", action="store_true", help="print one JSON object")
    cp = runs.add_parser("compare", help="overlay the curves of saved runs (of one kind)",
                         description="Overlay the curves of saved runs of one kind: training dynamics (drift "
                                     "||Pi_perp A|| and loss per strategy, medians over runs) or sharing discovery "
                                     "(losses and partition distance; outer loss for msr runs). Prints each "
                                     "run's label and last values.")
    cp.add_argument("runs", nargs="+", metavar="RUN", help="a run's directory, or its name in the results directory")
    cp.add_argument("--dir", **directory)
    cp.add_argument("--csv", default=None, metavar="FILE", type=given_text(),
                    help="write the curves as CSV (columns run, name, metric, series, step, value)")
    cp.add_argument("--png", default=None, metavar="FILE", type=given_text(),
                    help="write the overlay as a PNG figure")
    cp.add_argument("--logy", action="store_true", help="logarithmic y axes in the PNG")
    cp.add_argument("--json", action="store_true",
                    help='print one JSON object: {"runs": [{"label", "name", "path", "status", "final": '
                         '{metric: {series: value}}}], "csv": FILE, "png": FILE}')


def add_reproduce_parser(sub) -> None:
    """``lab reproduce``: every claim of the seed papers (``lab.reproduce``)."""
    from .reproduce.claim import CLAIM_IDS, QUICK_MEASURED

    sp = sub.add_parser("reproduce", help="check the claims of the seed papers and write a report",
                        description="Measure every claim of the seed papers with the lab's own functions and write "
                                    "a report (report.html with the figures, report.json). --quick (default) runs "
                                    "reduced settings (" + QUICK_MEASURED + "), each part judged on its draws "
                                    "against its null (the report counts the draws per part); --full larger "
                                    "settings, the papers' own where "
                                    "a 2-core machine can run them (each claim's paper_settings says what it ran "
                                    "against its paper) (hours on a CPU, minutes on a GPU), resumable: finished "
                                    "claims are kept in "
                                    "the output directory and not measured again (--fresh measures them again).")
    mode = sp.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="profile", action="store_const", const="quick",
                      help=f"reduced settings, {QUICK_MEASURED} (the default)")
    mode.add_argument("--full", dest="profile", action="store_const", const="full",
                      help="larger settings, the papers' own where they can run here (uses the GPU when present)")
    sp.set_defaults(profile="quick")
    sp.add_argument("--only", default=None, metavar="ID,...",
                    type=given_text(True, allowed="one or more claim ids, comma-separated (lab reproduce --list)"),
                    help="comma list of claim ids (default: all): " + ", ".join(CLAIM_IDS))
    sp.add_argument("--out", default=None, metavar="DIR", type=given_text(),
                    help="output directory (default: LAB_RESULTS_DIR/reproduce/PROFILE or the user data dir)")
    sp.add_argument("--device", default="auto", type=given_text(allowed="auto, cpu or cuda"),
                    help="auto (CUDA when present), cpu or cuda")
    sp.add_argument("--dtype", default=None, choices=("float32", "float64"),
                    help="training precision (default: float32 on CUDA, float64 on CPU)")
    sp.add_argument("--data", default=None, metavar="DIR", type=given_text(),
                    help="a directory with MNIST IDX files you already have (t10k-images-idx3-ubyte[.gz], "
                         "t10k-labels-idx1-ubyte[.gz]): Trans then trains on MNIST 14x14 as in the paper "
                         "(default: scikit-learn's digits; nothing is downloaded)")
    sp.add_argument("--fresh", action="store_true", help="measure every claim again (ignore finished claims)")
    sp.add_argument("--seed", type=number(int, 0, SEED_HIGH), default=0, metavar="N",
                    help="the first replicate seed, 0 to 2^32 - 1 (default 0): the same seed gives the same report "
                         "numbers")
    sp.add_argument("--workers", default="auto", type=_workers, metavar="N",
                    help="processes measuring the claims on this machine, each module's claims in one, the largest "
                         "first (default auto: one per core; 1: in this process); every claim computes on one torch "
                         "thread, so the numbers do not depend on N")
    sp.add_argument("--scheduler", default=None, metavar="ADDRESS", type=given_text(),
                    help="measure the claims as one sweep on the Dask cluster at ADDRESS (each module's claims one "
                         "task; the workers must see --out, e.g. a shared file system), then write the report here")
    sp.add_argument("--list", action="store_true", help="list the claims and exit")
    sp.add_argument("--json", action="store_true",
                    help='print one JSON object: {"claims": [{"id", "paper", "where", "claim", "paper_value", '
                         '"measured", "holds", "settings", "seconds", "criterion", "null_holds", "accuracy", '
                         '"verdict", "parts", "replicates", "interval", "criterion_version", "criterion_history", '
                         '"paper_settings", ...}], "report": PATH}; "holds" is true only when every part of the '
                         'criterion is met and every part\'s null fails ("null_holds" false)')


def _workers(text: str):
    """``--workers``: auto or a whole number from 1 to 64."""
    if text == "auto":
        return text
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: auto or a whole number from 1 to 64") from None
    if not 1 <= n <= 64:
        raise argparse.ArgumentTypeError(f"{text!r}: auto or a whole number from 1 to 64")
    return n


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
    from .config import ConfigError

    try:
        return family.config(**{k: v for k, v in given.items() if k in names}).validate()
    except ConfigError as err:  # a number out of its domain: the message says which flag and what it takes
        o = getattr(err, "option", None)
        if o is None or o.type not in (int, float) or o.choices or o.positional:
            raise
        raise ConfigError(f"{err} ({o.flag} takes {o.range_text})") from None


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
    """``progress`` records as a progress line on stderr: the message, the percentage, the time elapsed since the
    command started and (once a rate is known) the ETA: ``step 3/10 · 30% · 36 s elapsed · ETA 14 s``.

    On a terminal the line updates in place (``\r``) at most five times a second.  Elsewhere (a pipe, a log file)
    plain lines are written, at most one every ``interval`` seconds, and the last state when the run ends.
    Nothing is shown during the first ``delay`` seconds (quick commands print no progress; ``LAB_PROGRESS_DELAY``
    overrides the one-second default), but a record that arrived meanwhile is shown once the delay is over, even
    when the next one is minutes away.  The rate excludes start-up: it is measured from the last record before
    ``done`` first grew (after a long build, say).  ``partial`` (0..1) counts as that much of the next unit.
    """

    TTY_SECONDS = 0.2  # a terminal's line: at most this often

    def __init__(self, stream=None, delay: float | None = None, interval: float = 5.0, tty: bool | None = None,
                 clock=time.monotonic, wake: bool = True):
        """``wake``: a timer shows a record that arrived during the delay once it is over (tests with a fake
        ``clock`` turn it off)."""
        self.stream = sys.stderr if stream is None else stream
        if delay is None:
            try:
                delay = float(os.environ.get("LAB_PROGRESS_DELAY", "1"))
            except ValueError:
                delay = 1.0
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            try:
                tty = bool(isatty and isatty())
            except (OSError, ValueError):
                tty = False
        self.delay, self.interval, self.tty, self.clock = delay, interval, tty, clock
        self.t0 = clock()
        self.base = None  # (time, done) the rate is measured from
        self.rate = 0.0
        self.last_print = None
        self.shown = False  # a line was written (a terminal's line is still open)
        self.printed = False  # any progress line was ever written
        self.pending = None  # the newest line not written yet
        self.closed = False
        self._lock = threading.RLock()  # a Ctrl-C handler may note() while this thread writes
        self._timer = None
        if delay > 0 and wake:
            self._timer = threading.Timer(delay, self._after_delay)
            self._timer.daemon = True
            self._timer.start()

    def __call__(self, record: dict) -> None:
        if record.get("kind") != "progress":
            return
        now = self.clock()
        total = max(int(record.get("total", 0)), 1)
        done = min(record.get("done", 0) + record.get("partial", 0.0), total)
        if self.base is None or done <= self.base[1]:
            self.base = (now, done)  # no progress yet: the rate's clock starts at the newest such record
        elif now > self.base[0]:
            self.rate = (done - self.base[1]) / (now - self.base[0])
        eta = f" · ETA {_seconds((total - done) / self.rate)}" if self.rate > 0 and done < total else ""
        line = f"{record.get('message', '')} · {100 * done / total:.0f}% · {_seconds(now - self.t0)} elapsed{eta}"
        with self._lock:
            if self.closed:
                return
            self.pending = line
            if now - self.t0 < self.delay:
                return  # the timer shows it once the delay is over
            gap = self.TTY_SECONDS if self.tty else self.interval
            if self.last_print is None or now - self.last_print >= gap or (self.tty and done >= total):
                self._write(now)

    def _after_delay(self) -> None:
        with self._lock:
            if not self.closed and self.pending is not None and self.last_print is None:
                self._write(self.clock())

    def _write(self, now: float) -> None:  # with the lock held
        if self.tty:
            self.stream.write(f"\r{self.pending}\033[K")
        else:
            self.stream.write(self.pending + "\n")
        self.stream.flush()
        self.pending, self.last_print, self.shown, self.printed = None, now, True, True

    def note(self, text: str) -> None:
        """A line of its own on the stream (e.g. what Ctrl-C does), after ending the terminal's progress line."""
        with self._lock:
            if self.tty and self.shown:
                self.stream.write("\n")
                self.shown = False
                self.last_print = None
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        """End the progress output: the last state (when anything was shown or the delay had passed), and the
        newline after a terminal's line."""
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            if self.closed:
                return
            now = self.clock()
            if self.pending is not None and (self.last_print is not None or now - self.t0 >= self.delay):
                self._write(now)
            if self.tty and self.shown:
                self.stream.write("\n")
                self.stream.flush()
            self.closed = True


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"


class _Interrupts:
    """Ctrl-C during a run: the first asks the run to stop at its next checkpoint (it returns what it has, which
    is then saved with status ``stopped``); a second one aborts at once.  Installed in the main thread only."""

    def __init__(self, control, printer):
        self.control, self.printer = control, printer
        self.count = 0
        self.previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        return False

    def _handle(self, signum, frame):
        self.count += 1
        if self.count > 1:
            raise KeyboardInterrupt
        self.control.stop()
        text = "lab: stopping at the next checkpoint (Ctrl-C again to abort)"
        if self.printer is not None:
            self.printer.note(text)
        else:
            print(text, file=sys.stderr, flush=True)


def _saved(path, args) -> None:
    if not args.json:
        print(f"saved {path}", file=sys.stderr, flush=True)


def run_command(command: str, args) -> int:
    from .control import Control, Stopped

    family = pick_family(command, args)
    config = config_from_args(family, args)
    printer = ProgressLine() if not args.json else None
    control = Control()
    with _Interrupts(control, printer) as interrupts:
        try:
            result = family.run(config, progress=printer, control=control)
        except Stopped:  # stopped before it had a result (e.g. a basis solve): nothing to keep
            raise KeyboardInterrupt from None
        finally:
            if printer is not None:
                printer.close()
        status = getattr(result, "status", "finished")
        if family.cli_saves and not args.no_save:
            try:
                path = family.save(result, args.out)
            except OSError as err:
                raise LabError(f"cannot save the run under {args.out or 'the results directory'}: {err}") from err
            _saved(f"{path}{' (stopped: a partial run)' if status == 'stopped' else ''}", args)
        for out in family.outputs:
            value = getattr(args, out.option.name, None)
            if value:
                out.write(result, value)
                if printer is not None and printer.printed:  # a long command: say where its files went
                    _saved(value, args)
        print(json.dumps(strict(family.summary(result)), allow_nan=False) if args.json else family.text(result),
              flush=True)
    if interrupts.count:
        print(f"lab: interrupted{'' if status == 'stopped' else ' after the run had finished'}", file=sys.stderr)
        return 130
    return 0


def _contributed(families=None) -> dict:
    """{name: ``lab.experiments.Command``}: the sub-commands the families contribute, in family order."""
    if families is None:
        from .experiments import FAMILIES as families
    return {c.name: c for family in families.values() for c in family.commands}


def _groups() -> int:
    from .groups import group_catalog

    rows = group_catalog()
    width = max(len(sig) for sig, _ in rows)
    for sig, desc in rows:
        print(f"{sig:<{width}}  {desc}")
    print(f"{'G1*G2':<{width}}  direct product, e.g. Z(8)*Z(8) (2-D translations of an 8x8 grid)")
    return 0


def _reproduce(args) -> int:
    from .control import Control
    from .reproduce import load_claims, runner
    from .reproduce.report import text_table

    if args.list:
        for c in load_claims().values():
            print(f"{c.id:<34} {c.paper:<9} {c.kind:<10} {c.where}")
        return 0
    runner.select(args.only)  # an unknown id (or an empty selection) is refused before anything runs
    runner.check_request(args.profile, args.device, args.data)  # so are a bad device and --data, before workers
    printer = ProgressLine() if not args.json else None
    control = Control()
    with _Interrupts(control, printer) as interrupts:
        try:
            if args.scheduler:
                from .reproduce.cluster import run_on_cluster

                report = run_on_cluster(args.only, profile=args.profile, out=args.out, device=args.device,
                                        dtype=args.dtype, data=args.data, fresh=args.fresh, scheduler=args.scheduler,
                                        progress=printer, seed=args.seed)
            else:
                from .reproduce.cluster import default_workers, run_local

                workers = default_workers(args.only) if args.workers == "auto" else args.workers
                if workers > 1:
                    report = run_local(args.only, profile=args.profile, out=args.out, device=args.device,
                                       dtype=args.dtype, data=args.data, fresh=args.fresh, workers=workers,
                                       progress=printer, control=control, seed=args.seed)
                else:
                    report = runner.run(args.only, profile=args.profile, out=args.out, device=args.device,
                                        dtype=args.dtype, data=args.data, fresh=args.fresh, progress=printer,
                                        control=control, seed=args.seed)
        finally:
            if printer is not None:
                printer.close()
    if args.json:
        print(json.dumps(strict({"claims": [r.public() for r in report.results], "report": str(report.html_path)}),
                         allow_nan=False), flush=True)
    else:
        print(text_table(report), flush=True)
        _saved(report.html_path, args)
    if interrupts.count or report.status == "stopped":
        print("lab: interrupted: the report holds the claims that finished", file=sys.stderr)
        return 130
    return 0


def _run_directories(directory) -> list:
    """``--dir``, else every family's runs directory (its manifest's ``results_dir``), each once."""
    from .experiments import FAMILIES

    if directory:
        return [directory]
    return list(dict.fromkeys(str(f.results_dir()) for f in FAMILIES.values() if f.results_dir is not None))


def _runs(args) -> int:
    from . import compare, runstore
    from .experiments import FAMILIES

    dirs = _run_directories(args.dir)
    if args.runs_command == "list":
        rows = []
        for d in dict.fromkeys(map(str, dirs)):
            for path in runstore.list_run_dirs(d):
                try:
                    rows.append(compare.describe_run(path, FAMILIES))
                except LabError as err:
                    rows.append({"name": path.name, "path": str(path), "kind": "?", "what": "?",
                                 "status": f"unreadable: {err}"})
        if args.json:
            print(json.dumps({"runs": rows}), flush=True)
        elif not rows:
            print(f"no saved runs in {', '.join(map(str, dirs))}", file=sys.stderr)
        else:
            width = max(len(r["name"]) for r in rows)
            for r in rows:
                print(f"{r['name']:<{width}}  {r['kind']:<8}  {r['what']:<9}  {r['status']}")
        return 0
    result = compare.compare([compare.find_run(text, dirs) for text in args.runs])
    if args.csv:  # atomic; a missing directory is one line naming the path given (exit code 2)
        csv = compare.frame_csv(result.frame).encode("utf-8")
        runstore.write_file(args.csv, lambda f: f.write(csv))
    if args.png:
        from .plots.compare_mpl import compare_png

        png = compare_png(result.frame, result.metrics(), logy=args.logy, kind=result.kind)
        runstore.write_file(args.png, lambda f: f.write(png))
    final = compare.final_values(result.frame)
    if args.json:
        runs = []
        for run, label in zip(result.runs, result.labels):
            values: dict = {}
            for row in final[final.run == label].itertuples():
                values.setdefault(row.metric, {})[row.series or row.metric] = float(row.value)
            runs.append({"label": label, "name": run.name, "path": str(run.path), "status": run.status,
                         "final": values})
        print(json.dumps(strict({"runs": runs, "csv": args.csv, "png": args.png}), allow_nan=False), flush=True)
        return 0
    for run, label in zip(result.runs, result.labels):
        print(f"{label}  ({run.name}, {run.status})")
        rows = final[final.run == label]
        if rows.empty:
            print("  no curves recorded")
        for metric in result.metrics():
            part = rows[rows.metric == metric]
            if not part.empty:
                values = " · ".join(f"{s + ' ' if s else ''}{v:.4g}" for s, v in zip(part.series, part.value))
                print(f"  {metric:<18} {values}  (step {int(part.step.max())})")
    for what, file in (("curves", args.csv), ("figure", args.png)):
        if file:
            print(f"saved {file}", file=sys.stderr)
    return 0


def _sweep(args) -> int:
    from pathlib import Path

    from .runstore import runs_root
    from .sweeps import SweepStore, load_sweep
    from .sweeps.run import run_sweep

    spec = load_sweep(args.file)  # its number of points is refused over the limit sweep_points before any is built
    out = Path(args.out) if args.out else runs_root(None, env_sub="sweeps", user_sub="sweeps") / Path(args.file).stem
    store = SweepStore(out)
    printer = ProgressLine() if not args.json else None

    def progress(record):
        if record.get("kind") == "dashboard" and record.get("url") and not args.json:
            print(f"Dask dashboard: {record['url']}", file=sys.stderr, flush=True)
        if printer is not None:
            printer(record)

    try:
        outcome = run_sweep(spec, store, text=Path(args.file).read_text(), scheduler=args.scheduler,
                            workers=args.workers, threads_per_worker=args.threads_per_worker,
                            retry_failed=args.retry_failed, progress=progress)
    finally:
        if printer is not None:
            printer.close()
    s = outcome.summary()
    if args.json:
        print(json.dumps(strict(s), allow_nan=False), flush=True)
    else:
        print(f"{s['done']} done, {s['failed']} failed, {s['skipped']} skipped of {s['points']} points in "
              f"{s['seconds']:.1f} s; store {s['store']}")
        for e in s["errors"][:5]:
            print(f"  failed {e['point']}: {e['error']}")
    return 0


def main(argv=None) -> int:
    choose_wait_policy()  # before a command imports torch: OpenMP reads OMP_WAIT_POLICY once (lab/threads.py)
    args = build_parser().parse_args(argv)
    try:
        if args.command in COMMANDS:
            return run_command(args.command, args)
        if args.command == "reproduce":
            return _reproduce(args)
        if args.command == "runs":
            return _runs(args)
        contributed = _contributed()
        if args.command in contributed:
            return contributed[args.command].run(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "dashboard":
            from .dashboard.serve import serve

            serve(port=args.port, address=args.address, show=args.show, theme=args.theme)
            return 0
        return _groups()
    except LabError as err:
        print(f"lab: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of our output left (``lab reproduce --list | head``): as a shell tool does
        # Python would print another error flushing stdout at exit: point it at /dev/null (Python's signal docs)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, a shell's code for a writer whose reader closed the pipe
    except Exception as err:  # a bug or a numerical failure: one line, not a traceback (LAB_DEBUG=1 shows it)
        if os.environ.get("LAB_DEBUG"):
            raise
        from .jobs import error_text

        print(f"lab: error: {error_text(err)} (LAB_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
