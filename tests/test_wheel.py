"""The wheel works outside the checkout: built (with the sdist) from the repository, installed into a fresh virtual
environment, and run from a directory that is not the checkout -- ``lab --version``, a ``lab basis`` solve, a
family's fast run, and ``lab dashboard`` serving its page.

The fresh environment sees this one's installed dependencies through a path file (torch is not downloaded again) but
not this checkout: the ``lab`` it imports is the wheel's, which the test checks."""
from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from browser import free_port, served

from lab.cli import version

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh environment's bin directory, a working directory outside the checkout, the built wheel)."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    out = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(dist),
                          str(ROOT)], capture_output=True, text=True, timeout=900, cwd=tmp)
    assert out.returncode == 0, out.stderr[-3000:]
    wheel = next(dist.glob("symmetry_lab-*.whl"))
    assert next(dist.glob("symmetry_lab-*.tar.gz"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    purelib = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                   "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    # this environment's dependencies, after the fresh one's own site-packages (where the wheel goes)
    ours = [p for p in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()}
            if Path(p).is_dir()]
    (purelib / "_lab_test_deps.pth").write_text("\n".join(ours) + "\n")
    out = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                          "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    work = tmp / "elsewhere"
    work.mkdir()
    return venv / "bin", work, wheel


def _env(work):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return dict(env, LAB_RESULTS_DIR=str(work / "results"), LAB_CACHE_DIR=str(work / "cache"))


def _run(installed, *args, timeout=600):
    bin_, work, _ = installed
    return subprocess.run([str(bin_ / "lab"), *args], capture_output=True, text=True, cwd=work, env=_env(work),
                          timeout=timeout)


def test_the_wheel_holds_the_package_its_data_and_the_app(installed):
    names = zipfile.ZipFile(installed[2]).namelist()
    assert "lab/dashboard/serve.py" in names and "lab/reproduce/criteria.json" in names
    assert not any(n.startswith(("tests/", "notebooks/", "bench/")) for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(installed[2]).read(entry).decode()
    assert "lab = lab.cli:main" in text and "symmetry_lab.families" in text


def test_the_installed_lab_is_the_wheels_and_says_its_version(installed):
    bin_, work, _ = installed
    where = subprocess.run([str(bin_ / "python"), "-c", "import lab; print(lab.__file__)"], capture_output=True,
                           text=True, cwd=work, env=_env(work), check=True).stdout.strip()
    assert Path(where).resolve().is_relative_to((bin_.parent).resolve()), where  # not the checkout's
    out = _run(installed, "--version")
    assert out.returncode == 0 and out.stdout.strip() == f"lab {version()}", out.stdout + out.stderr


def test_a_basis_solve_and_a_familys_fast_run_from_elsewhere(installed):
    out = _run(installed, "basis", "S(5)", "T(2)", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["rank"] == 2  # Bell(2): the equivariant maps T(2) -> scalars of S(5)
    out = _run(installed, "dynamics", "--experiment", "custom", "--runs", "1", "--steps", "3", "--scale", "demo",
               "--no-save", "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert set(summary) >= {"nom", "aug", "equi"}, summary


def test_lab_dashboard_serves_its_page_from_the_installed_wheel(installed):
    bin_, work, _ = installed
    port = free_port()
    command = [str(bin_ / "lab"), "dashboard", "--port", str(port), "--address", "127.0.0.1"]
    with served(command, f"http://127.0.0.1:{port}/app", cwd=work, env=_env(work)) as (proc, page):
        assert "<title>Symmetry Lab</title>" in page
    assert proc.returncode == 0, proc.err[-2000:]
