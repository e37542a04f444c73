"""The ``lab`` command line: contract of ``basis`` and ``groups``, exit code 2 with one line on bad input."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from lab.cli import main


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_basis_json_contract(capsys):
    code, out, err = run(["basis", "S(5)", "T(4)", "--json"], capsys)
    assert code == 0 and err == ""
    info = json.loads(out)
    assert info["rank"] == 15 and info["dim"] == 625 and info["solver"] == "orbit"
    assert isinstance(info["seconds"], float) and info["seconds"] >= 0


def test_basis_text_output(capsys):
    code, out, _ = run(["basis", "Z(8)", "V >> V"], capsys)
    assert code == 0
    fields = dict(line.split(None, 1) for line in out.strip().splitlines())
    assert fields["rank"] == "8" and fields["dim"] == "64" and fields["solver"].startswith("orbit")
    assert float(fields["seconds"]) >= 0


def test_solver_and_device_options(capsys):
    code, out, _ = run(["basis", "SO(3)", "T(3)", "--solver", "krylov", "--device", "cpu", "--json", "--no-cache"], capsys)
    info = json.loads(out)
    assert code == 0 and info["rank"] == 1 and info["solver"] == "krylov" and info["device"] == "cpu"


def test_groups_lists_arguments_and_descriptions(capsys):
    code, out, _ = run(["groups"], capsys)
    assert code == 0
    lines = out.strip().splitlines()
    assert any(line.startswith("S(n) ") for line in lines)
    assert any(line.startswith("RubiksCube() ") for line in lines)
    assert any(line.startswith("SO13p() ") for line in lines)
    assert all(len(line.split(None, 1)) == 2 for line in lines)


@pytest.mark.parametrize("args, needle", [
    (["basis", "Foo(3)", "V"], "unknown group"),
    (["basis", "S(0)", "V"], "n >= 1"),
    (["basis", "S(3)", "T(2"], "position 3"),
    (["basis", "S(3)", "V >> W"], "position 5"),
    (["basis", "RubiksCube()", "T(7)"], "over the limit"),
    (["basis", "SO(3)", "T(2)", "--solver", "orbit"], "orbit solver needs"),
    (["basis", "S(3)", "V", "--memory-limit", "lots"], "memory size"),
    (["basis", "S(3)", "V", "--solver", "magic"], "invalid choice"),
    (["nonsense"], "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(args, needle, capsys):
    with pytest.raises(SystemExit) if "invalid choice" in needle else _nullcontext() as exc:
        code = main(args)
    out = capsys.readouterr()
    if exc is not None and hasattr(exc, "value"):
        code = exc.value.code
    assert code == 2
    assert out.out == ""
    assert len(out.err.strip().splitlines()) == 1 and needle in out.err


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def test_console_script_and_module_entry_points():
    env = dict(os.environ)
    exe = shutil.which("lab", path=os.path.dirname(sys.executable))
    assert exe is not None, "the 'lab' console script is not installed next to this python"
    # timeouts: hang guards for a busy machine, not speed requirements
    res = subprocess.run([exe, "basis", "S(5)", "T(4)", "--json"], capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0 and json.loads(res.stdout)["rank"] == 15
    res = subprocess.run([sys.executable, "-m", "lab", "basis", "Foo", "V"], capture_output=True, text=True,
                         env=env, timeout=600)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "unknown group" in res.stderr


def test_basis_exports_png_and_npz(tmp_path, capsys, monkeypatch):
    import numpy as np

    from lab.export import load_basis

    # the export is under test, not the progress line: a loaded machine can take more than its default one-second
    # delay (CI printed "solving block ..." lines here), so stderr would hold progress whatever the export did
    monkeypatch.setenv("LAB_PROGRESS_DELAY", "3600")
    png, npz = tmp_path / "conv.png", tmp_path / "conv.npz"
    code, _, err = run(["basis", "Z(6)", "V >> V", "--png", str(png), "--npz", str(npz)], capsys)
    assert code == 0 and err == ""
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    d = load_basis(npz)
    assert d["rank"] == 6 and list(d["shape"]) == [6, 6]
    labels = d["labels"].reshape(6, 6)
    assert all(labels[i, j] == labels[0, (j - i) % 6] for i in range(6) for j in range(6))  # circulant
    assert np.unique(labels).size == 6


def test_unwritable_export_exits_2(tmp_path, capsys):
    code, out, err = run(["basis", "Z(4)", "V >> V", "--png", str(tmp_path / "missing" / "x.png")], capsys)
    assert code == 2 and err.count("\n") == 1 and "cannot write" in err


def test_presets_are_runnable_command_lines(capsys):
    code, out, _ = run(["presets"], capsys)
    assert code == 0 and "Graph layer:" in out
    line = next(ln.strip() for ln in out.splitlines() if ln.strip().startswith("lab basis 'S(4)' 'T(2) >> T(2)'"))
    assert line
    assert main(["basis", "S(4)", "T(2) >> T(2)", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rank"] == 15


# ---------------------------------------------------------------------------------------------- long commands
def strict_loads(text: str):
    """json.loads that refuses NaN and Infinity (what strict parsers in other languages do)."""
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


class FakeClock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_progress_line_plain_lines_with_eta_at_most_every_interval():
    import io

    from lab.cli import ProgressLine
    from lab.experiments import progress_record

    clock, stream = FakeClock(), io.StringIO()
    line = ProgressLine(stream, delay=1.0, interval=5.0, tty=False, clock=clock, wake=False)
    line(progress_record(0, 10, "building"))  # within the delay: not shown yet
    assert stream.getvalue() == ""
    clock.t += 30  # a long build: not counted in the rate
    line(progress_record(0, 10, "step 0/10"))
    for step in range(1, 5):
        clock.t += 2
        line(progress_record(step, 10, f"step {step}/10"))
    line(progress_record(4, 10, "step 5/10: half of it", partial=0.5))
    line.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue() and len(lines) == 3  # first, one 5 s later, the last at the end
    assert lines[0].startswith("step 0/10 · 0%")
    assert lines[1] == "step 3/10 · 30% · 36 s elapsed · ETA 14 s"  # 3 steps in 6 s after the build
    assert lines[2] == "step 5/10: half of it · 45% · 38 s elapsed · ETA 10 s"  # 4.5 steps in 8 s


def test_progress_line_on_a_terminal_updates_one_line():
    import io

    from lab.cli import ProgressLine
    from lab.experiments import progress_record

    clock, stream = FakeClock(), io.StringIO()
    line = ProgressLine(stream, delay=0.0, tty=True, clock=clock, wake=False)
    for step in range(3):
        clock.t += 1
        line(progress_record(step, 2, f"step {step}/2"))
    line.close()
    text = stream.getvalue()
    assert text.count("\r") == 3 and text.endswith("step 2/2 · 100% · 3 s elapsed\033[K\n")


def test_quick_command_prints_no_progress():
    import io

    from lab.cli import ProgressLine
    from lab.experiments import progress_record

    clock, stream = FakeClock(), io.StringIO()
    line = ProgressLine(stream, delay=1.0, tty=False, clock=clock, wake=False)
    line(progress_record(0, 1, "solving"))
    clock.t += 0.01
    line(progress_record(1, 1, "done"))
    line.close()
    assert stream.getvalue() == ""


def test_dynamics_shows_progress_and_where_it_saved(tmp_path, capsys, monkeypatch):
    from lab.dynamics.store import load_run

    monkeypatch.setenv("LAB_PROGRESS_DELAY", "0")
    code, out, err = run(["dynamics", "--experiment", "custom", "--runs", "1", "--steps", "2", "--strategies",
                          "nom,equi", "--out", str(tmp_path)], capsys)
    assert code == 0 and "equi" in out
    lines = err.splitlines()
    assert lines[0].startswith("building custom · 0%")
    assert any(ln.startswith("step 2/2 · 100%") for ln in lines)
    assert lines[-1].startswith("saved ")
    saved = lines[-1][len("saved "):]
    assert load_run(saved).meta["status"] == "finished" and str(tmp_path) in saved


def test_discover_saves_and_says_where(tmp_path, capsys, monkeypatch):
    from lab.sharing.store import load_sharing

    monkeypatch.setenv("LAB_PROGRESS_DELAY", "0")
    code, out, err = run(["discover", "--task", "gaussian", "--steps", "20", "--out", str(tmp_path)], capsys)
    assert code == 0 and "partition_distance" in out
    assert "trial 1, step 0 · 0%" in err and err.splitlines()[-1].startswith("saved ")
    assert load_sharing(err.splitlines()[-1][len("saved "):]).meta["status"] == "finished"
    code, out, err = run(["discover", "--task", "gaussian", "--steps", "20", "--no-save"], capsys)
    assert code == 0 and "saved" not in err


@pytest.mark.parametrize("args", [
    # every run diverges: the losses and distances are NaN
    ["dynamics", "--experiment", "custom", "--runs", "1", "--steps", "3", "--strategies", "nom,equi",
     "--lr", "1e300", "--no-save"],
    # the data overflow: the objective is infinite from the start, the MSE gap NaN, its bound infinite
    ["discover", "--task", "gaussian", "--sigma", "1e200", "--steps", "5", "--no-save"],
])
def test_json_of_a_diverged_run_is_strict(args, capsys):
    code, out, err = run(args + ["--json"], capsys)
    assert code == 0 and err == ""
    assert out.count("\n") == 1  # one object on one line
    info = strict_loads(out)
    reasons = [k for k in json.dumps(info).split('"') if k.endswith("_reason")]
    assert reasons, "the run was expected to diverge"
    if args[0] == "dynamics":
        assert info["nom"]["loss"] is None and "NaN" in info["nom"]["loss_reason"]
        assert info["nom"]["diverged_runs"] == 1
    else:
        assert info["gap_bound"] is None and info["diverged_trials"] == 1


def test_strict_turns_numpy_values_into_json():
    import numpy as np

    from lab.cli import strict

    out = strict({"a": np.float32("nan"), "b": np.int64(3), "c": np.array([1.0, np.inf]), "d": [{"e": np.nan}]})
    assert strict_loads(json.dumps(out, allow_nan=False)) == {
        "a": None, "a_reason": "NaN: not a number (e.g. every run diverged)", "b": 3, "c": [1.0, None],
        "d": [{"e": None, "e_reason": "NaN: not a number (e.g. every run diverged)"}]}


def test_json_says_a_run_without_a_test_set_has_no_test_loss(capsys):
    code, out, err = run(["dynamics", "--experiment", "custom", "--runs", "1", "--steps", "1", "--strategies", "nom",
                          "--no-save", "--json"], capsys)
    nom = strict_loads(out)["nom"]
    assert code == 0 and nom["test_samples"] == 0 and nom["test_loss"] is None and nom["test_accuracy"] is None
    assert "no test set" in nom["test_loss_reason"] and "diverged" not in nom["test_loss_reason"]
    assert "no test set" in nom["test_accuracy_reason"]


def _interrupt(args, tmp_path, first_line: str):
    """Run ``lab ARGS`` in a subprocess, send SIGINT once its stderr shows ``first_line``; (code, stdout, stderr)."""
    import signal

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "LAB_PROGRESS_DELAY": "0", "LAB_RESULTS_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "lab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=root)
    head = []
    try:
        while True:
            line = proc.stderr.readline()
            head.append(line)
            if not line or line.startswith(first_line):
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=600)  # a hang guard, not a speed requirement
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, "".join(head) + err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_stops_dynamics_saves_the_partial_run_and_exits_130(tmp_path):
    from lab.dynamics.store import load_run

    code, out, err = _interrupt(["dynamics", "--experiment", "custom", "--runs", "1", "--steps", "1000000",
                                 "--strategies", "nom"], tmp_path, "building")
    assert code == 130, err
    assert "Traceback" not in err and "lab: interrupted" in err
    saved = next(ln for ln in err.splitlines() if ln.startswith("saved "))
    assert saved.endswith("(stopped: a partial run)")
    run_dir = saved[len("saved "):].split(" (")[0]
    loaded = load_run(run_dir)
    assert loaded.meta["status"] == "stopped" and loaded.meta["steps_done"] < 1000000
    assert "nom" in out  # the partial run's summary


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_stops_discover_and_keeps_the_run(tmp_path):
    from lab.sharing.store import load_sharing

    code, out, err = _interrupt(["discover", "--task", "gaussian", "--steps", "10000000"], tmp_path, "trial 1")
    assert code == 130 and "Traceback" not in err and "lab: interrupted" in err
    assert "partition_distance" in out  # the best restart so far, snapped
    runs = list((tmp_path / "sharing").iterdir())
    assert len(runs) == 1 and load_sharing(runs[0]).meta["status"] == "stopped"
    assert f"saved {runs[0]} (stopped: a partial run)" in err


def test_a_record_from_the_delay_is_shown_when_it_is_over():
    import io

    from lab.cli import ProgressLine
    from lab.experiments import progress_record

    stream = io.StringIO()
    line = ProgressLine(stream, delay=0.05, tty=False)
    line(progress_record(0, 5, "building"))  # and then nothing for a long time
    deadline = time.monotonic() + 60  # a hang guard: the timer fires after 0.05 s
    while not stream.getvalue() and time.monotonic() < deadline:
        time.sleep(0.01)
    line.close()
    assert stream.getvalue() == "building · 0% · 0 s elapsed\n"


def test_readme_generated_blocks_are_fresh():
    """The README's group table is what ``lab groups`` lists and its screenshots are one per dashboard tab, each
    file present: ``docs/readme.py`` regenerates both, so neither can go stale silently."""
    import sys
    from pathlib import Path

    from lab.dashboard import PANES
    from lab.groups import group_catalog

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root))
    from docs.readme import render

    readme = root.joinpath("README.md").read_text()
    assert render(readme) == readme, "README.md is stale: run python docs/readme.py"
    table = readme[readme.index("<!-- generated: groups -->"):readme.index("<!-- /generated: groups -->")]
    for signature, _ in group_catalog():
        assert f"| `{signature}` |" in table, signature
    assert "P4Grid(n)" in table
    shots = readme[readme.index("<!-- generated: screenshots -->"):readme.index("<!-- /generated: screenshots -->")]
    images = re.findall(r"\]\((docs/img/[^)]+\.png)\)", shots)
    assert len(images) == len(PANES)
    for image in images:
        assert root.joinpath(image).stat().st_size > 10_000, image


def test_license_and_environment_for_a_fresh_machine():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    assert root.joinpath("LICENSE").read_text().startswith("MIT License")
    env = root.joinpath("environment.yml").read_text()
    assert "jupyterlab" in env and "notebook" in env


def test_png_into_a_missing_directory_names_the_user_s_path(tmp_path, capsys):
    target = tmp_path / "missing" / "dir" / "f.png"
    code, out, err = run(["basis", "S(3)", "V", "--png", str(target)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(target) in err and ".tmp-" not in err
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("layer", [["0*V"], ["V", "--rep-out", "0*V"], ["0*V", "--rep-out", "V"]])
def test_a_layer_with_a_zero_dimensional_side_is_refused_in_one_line_in_every_picture(layer, tmp_path, capsys):
    """No weights, nothing to draw: --png says so in one line (exit 2); the plot functions raise a LabError; the
    numbers (--json) still answer (rank 0)."""
    from lab.errors import LabError
    from lab.basis.family import layer as solve_layer
    from lab.plots.coloring import basis_coloring

    code, out, err = run(["basis", "S(3)", *layer, "--png", str(tmp_path / "f.png")], capsys)
    assert code == 2 and err.count("\n") == 1 and "nothing to draw" in err and "zero-dimensional" in err
    assert not (tmp_path / "f.png").exists()
    code, out, err = run(["basis", "S(3)", *layer, "--json"], capsys)
    assert code == 0 and json.loads(out)["rank"] == 0
    rep_out = layer[2] if len(layer) > 1 else None
    result = solve_layer("S(3)", layer[0], rep_out)
    with pytest.raises(LabError, match="nothing to draw"):
        basis_coloring(result)


@pytest.mark.parametrize("layer, shape", [(["V", "--rep-out", "0*V"], [0, 3]), (["0*V", "--rep-out", "V"], [3, 0]),
                                          (["0*V"], [0, 1])])
def test_a_layer_with_a_zero_dimensional_side_exports_an_empty_basis_of_its_true_shape(layer, shape, tmp_path,
                                                                                       capsys):
    """--npz has no picture to refuse: it writes the empty basis (rank 0, dim 0) with the weight matrix's real
    shape (0 x 3 for V -> 0*V, not 0 x 0), and the file reads back."""
    from lab.export import load_basis

    target = tmp_path / "z.npz"
    code, out, err = run(["basis", "S(3)", *layer, "--npz", str(target), "--json"], capsys)
    assert code == 0 and json.loads(out)["rank"] == 0
    d = load_basis(target)
    assert (d["rank"], d["dim"], d["shape"].tolist(), d["Q"].shape) == (0, 0, shape, (0, 0))


def test_runs_compare_into_a_missing_directory_names_the_user_s_path(tmp_path, capsys):
    """--csv and --png of ``lab runs compare`` are written like --png of ``lab basis``: atomically, and a missing
    directory is one line naming the path given, exit code 2 (not 'unexpected FileNotFoundError', exit 1)."""
    runs = tmp_path / "runs"
    for lr in ("0.1", "0.3"):
        code, _, _ = run(["dynamics", "--experiment", "custom", "--group", "S(3)", "--rep", "V", "--runs", "1",
                          "--steps", "2", "--strategies", "nom", "--lr", lr, "--out", str(runs), "--json"], capsys)
        assert code == 0
    names = [p.name for p in runs.iterdir()]
    for flag in ("--csv", "--png"):
        target = tmp_path / "missing" / "dir" / f"f.{flag[2:]}"
        code, out, err = run(["runs", "compare", *names, "--dir", str(runs), flag, str(target)], capsys)
        assert code == 2 and out == ""
        assert err == f"lab: error: cannot write {target}: No such file or directory\n"
    assert not (tmp_path / "missing").exists()
    code, _, _ = run(["runs", "compare", *names, "--dir", str(runs), "--csv", str(tmp_path / "c.csv")], capsys)
    assert code == 0 and (tmp_path / "c.csv").read_text().startswith("run,name,metric,series,step,value")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


def test_a_reader_that_leaves_early_is_not_an_error():
    """``lab groups | true``: the pipe is closed before the command writes (``true`` exits at once, the command
    first imports for a second), which then ends quietly with the shell's code for it (141), not with an error
    line on stderr."""
    command = f"'{sys.executable}' -m lab groups | true; echo ${{PIPESTATUS[0]}}"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300)
    assert proc.stderr == "", proc.stderr
    assert proc.stdout.strip() == "141"
