"""Bad input to the experiment commands, ``sweep``, ``audit`` and ``reproduce`` (issue 48 item 11): a value outside
its option's domain, a sweep too large to expand and an explicitly empty selection are each refused before any work
with exit code 2 and one line naming the option and what it takes -- never exit 1, a traceback, a run of every claim
or a long expansion.  Every case here is refused before anything trains (the families' ``run`` is replaced by one
that fails the test if reached)."""
from __future__ import annotations

import pytest

from lab import limits
from lab.cli import main
from lab.config import SEED_HIGH, ConfigError

# (argv, words the one line must hold: the option's name and what it takes)
REFUSED = [
    # (a) a parameter outside its mathematical domain, refused where the option is declared
    (["bound", "--levels", "1"], ["levels", "--levels takes a whole number from 2 to 256"]),
    (["bound", "--dims", "1"], ["--dims", "d = 1"]),
    (["bound", "--dims", "0,1,50"], ["--dims", "d = 1"]),
    (["bound", "--lr", "0"], ["lr must be above 0", "--lr takes a finite number above 0"]),
    (["bound", "--lr", "-1"], ["lr must be above 0"]),
    (["bound", "--quant-lr", "-1"], ["quant_lr must be above 0", "--quant-lr"]),
    (["ensembles", "--lr", "0"], ["lr must be above 0", "--lr"]),
    (["bound", "--seed", str(SEED_HIGH + 1)], ["seed must be at most 4294967295",
                                              "--seed takes a whole number from 0"]),
    (["emlp", "--seed", "99999999999999999999"], ["seed must be at most 4294967295", "--seed"]),
    (["discover-lie", "--seed", "99999999999999999999"], ["--seed"]),
    (["lie-derivative", "--seed", "99999999999999999999"], ["--seed"]),
    (["ensembles", "--seed", "9223372036854775807"], ["--seed"]),
    (["rpp", "--seed", "-1"], ["seed must be at least 0", "--seed"]),
    (["discover", "--task", "msr", "--seed", "99999999999999999999"], ["--seed"]),
    (["dynamics", "--seed", "99999999999999999999"], ["--seed"]),
    (["dynamics", "--test-fraction", "0.95"], ["test_fraction", "--test-fraction takes a finite number from 0 to 0.9"]),
    (["discover-lie", "--closure", "1e7"], ["closure must be at most 1000000", "--closure"]),
    (["emlp", "--lr", "nan"], ["lr must be a finite number", "--lr"]),
    # (c) an explicitly empty value or list is refused, not read as the default or as everything
    (["reproduce", "--only", ""], ["--only", "empty"]),
    (["reproduce", "--only", " , "], ["--only", "empty"]),
    (["emlp", "--sizes", ","], ["--sizes", "empty list"]),
    (["emlp", "--models", " "], ["--models", "mlp, mlp-aug, emlp"]),
    (["rpp", "--models", ","], ["--models", "empty list"]),
    (["dynamics", "--strategies", ""], ["--strategies", "empty list"]),
    (["emlp", "--task", "pendulum", "--dynamics", ","], ["--dynamics", "empty list"]),
    (["bound", "--dims", ","], ["--dims"]),
    (["dynamics", "--device", ""], ["--device", "empty value"]),
    (["lie-derivative", "--model", ""], ["--model", "empty value"]),
    (["ensembles", "--data", ""], ["--data", "empty value"]),
    (["bound", "--data-dir", " "], ["--data-dir", "empty value"]),
    (["basis", "S(3)", "V", "--png", ""], ["--png", "empty value"]),
    (["dynamics", "--out", ""], ["--out", "empty value"]),
    (["reproduce", "--device", ""], ["--device", "empty value"]),
    (["reproduce", "--out", ""], ["--out", "empty value"]),
    (["reproduce", "--data", ""], ["--data", "empty value"]),
    (["reproduce", "--scheduler", ""], ["--scheduler", "empty value"]),
    (["reproduce", "--seed", "-1"], ["--seed", "0 to 4294967295"]),
    (["reproduce", "--device", "tpu"], ["unknown device"]),
    (["audit", ""], ["PATH|PRESET", "empty value"]),
    (["audit", "emlp-o3", "--group", ""], ["--group", "empty value"]),
    (["audit", "emlp-o3", "--tolerance", "inf"], ["--tolerance", "finite number"]),
    (["audit", "emlp-o3", "--tolerance", "-1"], ["--tolerance", "finite number of at least 0"]),
    (["audit", "emlp-o3", "--samples", "-1"], ["--samples", "0 to 100000"]),
    (["audit", "emlp-o3", "--inputs", "0"], ["--inputs", "1 to 100000"]),
    (["audit", "emlp-o3", "--seed", "99999999999999999999"], ["--seed", "0 to 4294967295"]),
    (["sweep", "missing.yaml", "--workers", "0"], ["--workers", "1 to 256"]),
    (["sweep", "missing.yaml", "--workers", "1000000"], ["--workers", "1 to 256"]),
    (["sweep", "missing.yaml", "--threads-per-worker", "0"], ["--threads-per-worker", "1 to 256"]),
    (["sweep", "missing.yaml", "--out", ""], ["--out", "empty value"]),
    (["runs", "list", "--dir", ""], ["--dir", "empty value"]),
]


@pytest.fixture(autouse=True)
def nothing_runs(monkeypatch, tmp_path):
    """Refusal happens before work: reaching a family's run, a claim or an audit fails the test."""
    import dataclasses

    from lab import cli
    from lab.reproduce import cluster, runner

    def reached(*a, **k):
        raise AssertionError("the command started work on input it should have refused")

    pick = cli.pick_family
    monkeypatch.setattr(cli, "pick_family", lambda command, args: dataclasses.replace(pick(command, args), run=reached))
    for module, name in ((runner, "run"), (cluster, "run_local"), (cluster, "run_on_cluster")):
        monkeypatch.setattr(module, name, reached)
    monkeypatch.setattr("lab.meter.audit.audit", reached)
    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusals
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("argv, words", REFUSED, ids=[" ".join(a) or "(empty)" for a, _ in REFUSED])
def test_bad_input_exits_2_with_one_line_naming_the_option(argv, words, capsys):
    code, out, err = run(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and "Traceback" not in err and "unexpected" not in err, err
    assert lines[0].startswith(("lab: error:", f"lab {argv[0]}: error:", "lab runs list: error:")), lines[0]
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("argv", [["bound", "--levels", "2", "--dims", "0,2"], ["bound", "--seed", str(SEED_HIGH)],
                                  ["ensembles", "--lr", "1e-3"], ["reproduce", "--only", "pac-nonvacuous"]])
def test_values_at_the_edge_of_the_domain_are_accepted(argv, capsys, monkeypatch):
    monkeypatch.setenv("LAB_DEBUG", "1")  # the stub's AssertionError propagates instead of becoming exit code 1
    with pytest.raises(AssertionError, match="started work"):  # validation passed: the (stubbed) work was reached
        main(argv)


def test_the_api_refuses_the_same_values():
    from lab.bounds.family import BoundsConfig
    from lab.ensembles.family import EnsemblesConfig
    from lab.reproduce import runner
    from lab.reproduce.runner import ReproduceError

    for bad in (dict(levels=1), dict(dims="1,50"), dict(lr=0.0), dict(quant_lr=-1.0), dict(seed=2**32)):
        with pytest.raises(ConfigError):
            BoundsConfig(**bad).validate()
    with pytest.raises(ConfigError, match="lr must be above 0"):
        EnsemblesConfig(lr=-0.5).validate()
    for empty in ("", " , ", []):
        with pytest.raises(ReproduceError, match="empty selection"):
            runner.select(empty)
    assert len(runner.select(None)) == len(runner.select(",".join(c.id for c in runner.select(None))))


def test_every_positive_option_has_a_lower_bound_and_every_seed_an_upper_one():
    from lab.experiments import FAMILIES

    for fam in FAMILIES.values():
        for o in fam.config.declarations():
            if o.positive:
                assert o.low is not None, (fam.name, o.name)
            if o.name == "seed":
                assert (o.low, o.high) == (0, SEED_HIGH), (fam.name, o.high)


# --------------------------------------------------------------------------- (b) a sweep's size before its points
def _big(tmp_path, n=3000):
    values = ", ".join(str(2 + i % 1000) for i in range(n))
    f = tmp_path / "big.yaml"
    f.write_text(f"experiment: bound\ngrid:\n  width: [{values}]\n  batch: [{values}]\n")
    return f


def _no_expansion(monkeypatch):
    from lab.sweeps import spec

    def expanded(self):
        raise AssertionError("the sweep's points were expanded before its size was checked")

    monkeypatch.setattr(spec.SweepSpec, "points", expanded)
    monkeypatch.setattr(spec.SweepSpec, "config", expanded)


def test_a_nine_million_point_sweep_is_refused_before_any_point_is_built(tmp_path, monkeypatch, capsys):
    from lab.sweeps.spec import SweepError, SweepSizeError, load_sweep

    _no_expansion(monkeypatch)
    with pytest.raises(SweepSizeError) as info:
        load_sweep(_big(tmp_path))
    err = info.value
    assert isinstance(err, SweepError) and isinstance(err, limits.LimitError)
    assert err.value == 9_000_000 and err.limit == limits.get("sweep_points")
    assert "sweep_points" in str(err) and "LAB_MAX_SWEEP_POINTS" in str(err) and "9,000,000" in str(err)
    code, _, stderr = run(["sweep", str(_big(tmp_path)), "--out", str(tmp_path / "store")], capsys)
    assert code == 2 and len(stderr.strip().splitlines()) == 1 and "sweep_points" in stderr, stderr
    assert not (tmp_path / "store").exists()


def test_the_size_counts_zip_groups_and_seeds_and_never_builds_the_seed_axis(monkeypatch):
    from lab.sweeps.spec import SweepSizeError, parse_sweep, sweep_size

    _no_expansion(monkeypatch)
    assert sweep_size([3, 4], [5], seeds=2) == 120
    data = {"experiment": "bound", "grid": {"width": [4, 8]}, "zip": [{"lr": [0.1, 0.2, 0.3], "steps": [1, 2, 3]}],
            "seeds": 10}
    with limits.override(sweep_points=59):
        with pytest.raises(SweepSizeError, match="number of points 60 is over the limit of 59"):
            parse_sweep(data)
    with limits.override(sweep_points=60):
        assert parse_sweep(data).size() == 60
    from lab.sweeps import spec

    calls = []  # a trillion seeds: the seed axis (range(seeds) in lab.sweeps.spec) is never built
    monkeypatch.setattr(spec, "range", lambda *a: calls.append(a) or [], raising=False)
    with pytest.raises(SweepSizeError, match="1,000,000,000,000"):
        parse_sweep({"experiment": "bound", "seeds": 10**12})
    assert calls == []


def test_validate_checks_the_size_before_expanding_a_spec_built_directly(monkeypatch):
    from lab.sweeps.spec import SweepSizeError, SweepSpec

    _no_expansion(monkeypatch)
    spec = SweepSpec("bound", axes={"width": list(range(2, 3002)), "batch": list(range(1, 3001))})
    with pytest.raises(SweepSizeError, match="sweep_points"):
        spec.validate()
    with pytest.raises(SweepSizeError, match="over the limit of 10"):
        SweepSpec("bound", axes={"width": list(range(2, 13))}).validate(limit=10)


def test_the_limit_can_be_raised_by_its_environment_variable(monkeypatch):
    from lab.sweeps.spec import parse_sweep

    data = {"experiment": "bound", "grid": {"width": list(range(2, 402)), "batch": list(range(1, 401))}}
    monkeypatch.setenv("LAB_MAX_SWEEP_POINTS", "200000")
    assert parse_sweep(data).size() == 160_000


@pytest.mark.parametrize("fixed, words", [({"device": ""}, "'device': an empty value"),
                                          ({"sizes": []}, "'sizes': an empty list"),
                                          ({"levels": 1}, "levels must be at least 2")])
def test_a_sweep_refuses_empty_and_out_of_domain_values(fixed, words):
    from lab.sweeps.spec import SweepError, parse_sweep

    experiment = "emlp" if "sizes" in fixed else "bound"
    with pytest.raises(SweepError, match=words):
        parse_sweep({"experiment": experiment, "fixed": fixed}).validate()
