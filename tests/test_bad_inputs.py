"""Bad input of every kind, over the command line and the API: exit code 2 and one line (or a typed ``LabError``),
never a traceback, a hang or an allocation past the memory limit.

The command-line cases run in one subprocess (``lab.cli.main`` called per case, ``LAB_MEMORY_LIMIT=1GB``), which
reports each case's exit code and stderr and its own peak RSS; the subprocess's timeout is a hang guard only.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lab import limits
from lab.errors import LabError

DEEP = "(" * 40 + "V" + ")" * 40
LONG = "V+" * 6000 + "V"
CLI_CASES = {
    # representation language: sizes refused before anything is built
    "huge tensor order": ["basis", "S(3)", "T(5000000)"],
    "huge literal": ["basis", "S(3)", "T(99999999)"],
    "huge power of numbers": ["basis", "S(3)", "9**999999999"],
    "tensor order over the limit": ["basis", "S(3)", "T(700)"],
    "huge multiplicity": ["basis", "S(3)", "10**9*V"],
    "multiplicity over the limit": ["basis", "S(3)", "20000*V"],
    "deep nesting": ["basis", "S(3)", DEEP],
    "text over the limit": ["basis", "S(3)", LONG],
    "5000-digit number": ["basis", "S(3)", "1" * 5000 + "*V"],
    "rep power over the limit": ["basis", "S(3)", "V**40"],
    "product over the limit": ["basis", "S(3)", "*".join(["V"] * 40)],
    "size that would wrap int64": ["basis", "S(4)", "T(16)*T(16)"],
    "too many blocks": ["basis", "S(4)", "(V+V)**20"],
    "layout over the memory limit": ["basis", "S(10)", "(V+Scalar)**8"],
    "rep over the memory limit": ["basis", "RubiksCube()", "T(5)"],
    # group language: sizes refused before the group is built
    "huge product group": ["basis", "Z(10000)*Z(10000)", "V"],
    "huge grid group": ["basis", "C4Grid(10000)", "V"],
    "huge GCNN group": ["basis", "GCNN(10000)", "V"],
    "huge symplectic group": ["basis", "Sp(10000)", "V"],
    "huge rotation group": ["basis", "SO(150)", "V"],
    "huge alternating group": ["basis", "Alt(100000)", "V"],
    "huge unitary group": ["basis", "U(200)", "V"],
    "group size 0": ["basis", "S(0)", "V"],
    "unknown group": ["basis", "Q(3)", "V"],
    "group missing argument": ["basis", "S()", "V"],
    "group syntax": ["basis", "S(3) Z(2)", "V"],
    "rep syntax": ["basis", "S(3)", "T(2"],
    "unknown rep name": ["basis", "S(3)", "V >> W"],
    "empty rep": ["basis", "S(3)", ""],
    "orbit solver on a Lie group": ["basis", "SO(3)", "T(2)", "--solver", "orbit"],
    "unknown solver": ["basis", "S(3)", "V", "--solver", "magic"],
    "infinite memory limit": ["basis", "SO(3)", "T(3)", "--memory-limit", "1e999"],
    "negative memory limit": ["basis", "S(3)", "V", "--memory-limit", "-5"],
    "unreadable memory limit": ["basis", "S(3)", "V", "--memory-limit", "lots"],
    "unknown device": ["basis", "S(3)", "V", "--device", "tpu"],
    # training: every numeric option checked before any work
    "NaN learning rate": ["dynamics", "--lr", "nan"],
    "infinite learning rate": ["dynamics", "--lr", "inf"],
    "negative learning rate": ["dynamics", "--lr", "-1"],
    "zero learning rate": ["dynamics", "--lr", "0"],
    "negative steps": ["dynamics", "--steps", "-3"],
    "zero steps": ["dynamics", "--steps", "0"],
    "negative seed": ["dynamics", "--seed", "-1"],
    "zero runs": ["dynamics", "--runs", "0"],
    "NaN penalty weight": ["dynamics", "--gamma", "nan"],
    "unstable penalty": ["dynamics", "--strategies", "aug_penalty", "--gamma", "1e6"],
    "unknown strategy": ["dynamics", "--strategies", "nom,foo"],
    "unknown experiment": ["dynamics", "--experiment", "nope"],
    "rep without custom": ["dynamics", "--rep", "T(2)"],
    "zero batch size": ["dynamics", "--batch-size", "0"],
    "training device": ["dynamics", "--device", "tpu"],
    "non-integer steps": ["dynamics", "--steps", "1.5"],
    # discovery
    "K of another task": ["discover", "--task", "msr", "--K", "0"],
    "K too small": ["discover", "--K", "1"],
    "blocks above K": ["discover", "--blocks", "9", "--K", "2"],
    "rank of another task": ["discover", "--rank", "0"],
    "zero rank": ["discover", "--task", "msr", "--rank", "0"],
    "zero kernel": ["discover", "--task", "msr", "--kernel", "0"],
    "kernel over the inputs": ["discover", "--task", "msr", "--kernel", "20"],
    "zero positions": ["discover", "--task", "sum", "--positions", "0"],
    "positions of another task": ["discover", "--task", "conv", "--positions", "9"],
    "NaN entropy weight": ["discover", "--entropy", "nan"],
    "infinite nuclear weight": ["discover", "--nuclear", "inf"],
    "split of one": ["discover", "--split", "1"],
    "infinite outer learning rate": ["discover", "--lr", "1e999"],
    "Lie group in the group task": ["discover", "--task", "group", "--group", "SO(3)"],
    "huge rep in the group task": ["discover", "--task", "group", "--rep-in", "T(40)"],
    "huge group in the group task": ["discover", "--task", "group", "--group", "Z(5000)*Z(5000)"],
    "unknown task": ["discover", "--task", "magic"],
    # training and discovery sized from their settings before anything is built
    "training over the memory limit": ["dynamics", "--experiment", "custom", "--group", "S(300)", "--runs", "100"],
    "custom rep over the size limit": ["dynamics", "--experiment", "custom", "--group", "S(3)", "--rep", "T(30)"],
    "meta-learning over the memory limit": ["discover", "--task", "msr", "--n-in", "4096", "--tasks", "100000"],
}

_RUNNER = textwrap.dedent("""
    import contextlib, io, json, resource, sys, time
    from lab.cli import main
    cases = json.loads(sys.stdin.read())
    out = {}
    for name, argv in cases.items():
        err = io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                rc = main(argv)
            except SystemExit as e:
                rc = e.code
            except BaseException as e:
                rc = "escaped " + type(e).__name__ + ": " + str(e)[:200]
        out[name] = {"rc": rc, "stderr": err.getvalue(), "seconds": time.perf_counter() - t0}
    out["__peak_mb__"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def cli_results(tmp_path_factory):
    env = {"LAB_MEMORY_LIMIT": "1GB", "LAB_CACHE_DIR": "off",
           "LAB_RESULTS_DIR": str(tmp_path_factory.mktemp("runs")), "PYTHONWARNINGS": "ignore"}
    import os

    proc = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(CLI_CASES), capture_output=True,
                          text=True, timeout=600, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_there_are_at_least_forty_cases():
    assert len(CLI_CASES) + len(API_CASES) >= 40


EXPECTED = {  # the class of refusal a case is there to show
    "size that would wrap int64": "rep_size", "layout over the memory limit": "memory limit",
    "too many blocks": "(blocks;", "huge GCNN group": "group_dim", "huge rotation group": "group_bytes",
    "deep nesting": "(nesting;", "text over the limit": "(text;", "multiplicity over the limit": "(multiplicity;",
    "rep over the memory limit": "memory limit", "training over the memory limit": "memory limit",
    "meta-learning over the memory limit": "memory limit", "custom rep over the size limit": "rep_size",
}


@pytest.mark.parametrize("name", list(CLI_CASES))
def test_cli_bad_input_exits_2_with_one_line(cli_results, name):
    r = cli_results[name]
    assert r["rc"] == 2, f"{CLI_CASES[name]!r}: exit {r['rc']}, stderr {r['stderr'][-500:]!r}"
    lines = r["stderr"].strip().splitlines()
    assert len(lines) == 1, r["stderr"][-1000:]
    assert EXPECTED.get(name, "") in lines[0]
    assert "Traceback" not in r["stderr"] and lines[0].startswith(("lab: error:", "lab basis: error:",
                                                                    "lab dynamics: error:", "lab discover: error:"))


def test_cli_bad_inputs_stay_under_the_memory_limit(cli_results):
    # 1 GB limit plus the interpreter with numpy, scipy and torch loaded (a few hundred MB)
    assert cli_results["__peak_mb__"] < 1024 + 700, cli_results["__peak_mb__"]


def _parse_rep(text, group="S(3)"):
    from lab import parse_rep

    return parse_rep(text, group).blocks


def _group(text):
    from lab import parse_group

    return parse_group(text)


API_CASES = {
    "T over the limit": lambda: __import__("lab").T(40),
    "power over the limit": lambda: __import__("lab").V ** 64,
    "multiplicity over the limit": lambda: 10**6 * __import__("lab").V,
    "direct huge group": lambda: __import__("lab").SO(500),
    "direct huge grid": lambda: __import__("lab").C4Grid(5000),
    "product of built groups": lambda: __import__("lab").Z(5000) * __import__("lab").Z(5000),
    "blocks over the limit": lambda: _parse_rep("(V+V)**18"),
    "nesting": lambda: _parse_rep(DEEP),
    "group text nesting": lambda: _group("S(" * 50),
    "non-text rep": lambda: _parse_rep(12),
    "memory limit string": lambda: __import__("lab").solve(_group("S(3)") and __import__("lab").parse_rep("V", "S(3)"),
                                                           memory_limit="1e999"),
}


@pytest.mark.parametrize("name", list(API_CASES))
def test_api_bad_input_raises_a_lab_error(name):
    with pytest.raises(LabError) as info:
        API_CASES[name]()
    assert "\n" not in str(info.value)


def test_a_limit_can_be_raised_and_the_message_says_how():
    from lab import T

    with pytest.raises(limits.LimitError, match="LAB_MAX_TENSOR_ORDER"):
        T(40)
    with limits.override(tensor_order=64):
        assert T(40).measure[2] == 40


def test_sizes_are_exact_integers_past_int64():
    from lab import parse_rep

    rep = parse_rep("T(16)*T(16)", "S(2)")  # 2**32 entries: size known, nothing laid out
    assert rep.size == 2**32
    with limits.override(tensor_order=70):
        assert parse_rep("T(64)", "S(2)").size == 2**64  # used to wrap around to 0


def test_the_readme_lists_every_limit_with_its_default():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    for lim in limits.LIMITS.values():
        assert f"| `{lim.name}` | {lim.default:,} | `{lim.env}` |" in readme, lim.name
