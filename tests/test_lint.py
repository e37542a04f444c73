"""ruff's checks as pyproject.toml configures them ([tool.ruff]: pyflakes' unused and undefined names, syntax
errors) pass on the lab, its tests, benchmarks and docs -- and the check has power: a planted undefined name fails."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["lab", "tests", "bench", "docs", "app.py"]


def _ruff(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_ruff_passes_on_the_repository():
    out = _ruff(*PATHS)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_ruff_catches_a_planted_undefined_name(tmp_path):
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "planted.py").write_text("def f():\n    return undefined_name\n")
    out = _ruff("planted.py", cwd=tmp_path)
    assert out.returncode == 1 and "F821" in out.stdout, out.stdout
