"""Hypothesis fuzzing of the group and representation languages and of the command line's numeric options:
whatever is typed, the answer is a value or a typed ``LabError`` — never another exception, never a hang.

Examples are bounded (short texts over the languages' own alphabet, a fixed number of examples) and every
example has a deadline; the parsers refuse sizes before building, so an example never allocates much.
"""
from __future__ import annotations

import contextlib
import io
import math

import pytest

import hypothesis  # noqa: F401  (a dev requirement: CI must run these)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lab.errors import LabError  # noqa: E402

FUZZ = settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

REP_TOKENS = ["V", "Scalar", "T", "(", ")", ",", "+", "*", "**", ">>", ".T", "0", "1", "2", "3", "7", "40",
              "999", "1000001", " ", "W", "L2", "-", "9" * 30]
GROUP_TOKENS = ["S", "Z", "SO", "O", "Sp", "U", "SU", "C4Grid", "GCNN", "Alt", "RubiksCube", "SO13", "Trivial",
                "(", ")", ",", "*", "1", "2", "3", "4", "64", "150", "2049", "100000", "0", " ", "x"]


def _texts(tokens):
    return st.lists(st.sampled_from(tokens), max_size=14).map("".join) | st.text(max_size=20)


@FUZZ
@given(text=_texts(REP_TOKENS), group=st.sampled_from(["S(3)", "SO(3)", "Z(4)*Z(4)", "RubiksCube()", "U(2)"]))
def test_the_rep_language_answers_with_a_rep_or_a_lab_error(text, group):
    from lab import parse_rep

    try:
        rep = parse_rep(text, group)
        size = rep.size
        assert isinstance(size, int) and size >= 0
        rep.check_limits()  # laying it out would be within the limits, or LimitError: nothing built yet
    except LabError as err:
        assert "\n" not in str(err)


@FUZZ
@given(text=_texts(GROUP_TOKENS))
def test_the_group_language_answers_with_a_group_or_a_lab_error(text):
    from lab.groups import group_footprint, parse_group

    try:
        fp = group_footprint(text)  # nothing built: sizes from the text
    except LabError as err:
        assert "\n" not in str(err)
        with pytest.raises(LabError):  # what the text refuses, building refuses too
            parse_group(text)
        return
    group = parse_group(text)
    assert fp is None or group.d == fp.d


NUMBERS = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from(["nan", "inf", "-inf", "1e999", "0", "-0", "1e-320", "0x10", "", "abc", "1_0"]))
OPTIONS = {
    "dynamics": ["--lr", "--steps", "--runs", "--seed", "--gamma", "--aug-passes", "--batch-size"],
    "discover": ["--K", "--blocks", "--samples", "--split", "--sigma", "--steps", "--lr", "--entropy",
                 "--nuclear", "--restarts", "--merge-tolerance", "--trials", "--seed"],
}


@settings(max_examples=150, deadline=5000, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # one patch for all
@given(command=st.sampled_from(sorted(OPTIONS)), data=st.data())
def test_numeric_options_are_refused_with_exit_2_or_accepted_before_any_work(command, data, monkeypatch):
    """Every value is checked against its declaration: either the config validates (then the run is not
    started here: ``run`` is replaced) or the command exits 2 with one line; never a traceback."""
    from lab import cli

    flag = data.draw(st.sampled_from(OPTIONS[command]))
    value = data.draw(NUMBERS)
    argv = [command, flag, str(value)]
    started = []
    monkeypatch.setattr(cli, "run_command", lambda c, a: started.append(cli.config_from_args(cli.pick_family(c, a), a))
                        or 0)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = cli.main(argv)
        except SystemExit as e:
            rc = e.code
    if rc == 0:
        config = started[0]
        for o in config.declarations():
            v = getattr(config, o.name)
            if isinstance(v, float):
                assert math.isfinite(v), (argv, o.name, v)
    else:
        assert rc == 2, (argv, rc, err.getvalue())
        assert len(err.getvalue().strip().splitlines()) == 1 and "Traceback" not in err.getvalue()
