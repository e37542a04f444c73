"""The ``lab`` command line: contract of ``basis`` and ``groups``, exit code 2 with one line on bad input."""
import json
import os
import shutil
import subprocess
import sys

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


def test_basis_exports_png_and_npz(tmp_path, capsys):
    import numpy as np

    from lab.export import load_basis

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
