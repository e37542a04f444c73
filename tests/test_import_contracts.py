"""The import rules (issue 63), as import-linter contracts in pyproject.toml: families are independent leaves, and
no shared layer imports a family.  Checked on the lab as it is, and shown to fail on a planted family -> family
import (a copy of the package, so the tree under test is never touched)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command as c; "
        "sys.argv = ['lint-imports', *sys.argv[1:]]; c()"]


def _lint(root: Path, config: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run(LINT + ["--config", str(config), "--no-cache"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_lab_keeps_its_import_contracts():
    out = _lint(ROOT, ROOT / "pyproject.toml")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "Families are independent of one another KEPT" in out.stdout
    assert "The shared layers import no family KEPT" in out.stdout
    assert "The shared layers stand on one another in order KEPT" in out.stdout


def test_a_planted_family_to_family_import_breaks_the_contract(tmp_path):
    shutil.copytree(ROOT / "lab", tmp_path / "lab", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "lab" / "bounds" / "planted.py").write_text("from ..sharing import partition  # planted\n")
    (tmp_path / "lab" / "groups" / "planted.py").write_text("from ..dynamics import train  # planted\n")
    out = _lint(tmp_path, tmp_path / "pyproject.toml")
    assert out.returncode == 1, out.stdout[-3000:]
    assert "Families are independent of one another BROKEN" in out.stdout
    assert "lab.bounds.planted -> lab.sharing.partition" in out.stdout
    assert "The shared layers import no family BROKEN" in out.stdout
    assert "lab.groups.planted -> lab.dynamics.train" in out.stdout


def test_the_contracts_name_every_family_and_every_shared_module():
    """The contracts' lists are checked against the package on disk: a family is a folder with a ``family.py``
    (what the plugin discovery reads), every other module of ``lab`` is shared; a new family or module that the
    contracts leave out fails here instead of escaping both rules."""
    import tomllib

    contracts = {c["id"]: c for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
                 ["contracts"]}
    lab = ROOT / "lab"
    leaves = sorted(contracts["families-independent"]["modules"])
    plugins = {f"lab.{p.parent.name}" for p in lab.glob("*/family*.py")} - {"lab.experiments"}  # its protocol
    assert plugins <= set(leaves)  # every plugin family is a leaf
    shared = sorted(f"lab.{p.stem if p.is_file() else p.name}" for p in lab.iterdir()
                    if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
                    or (p.is_dir() and (p / "__init__.py").exists() and f"lab.{p.name}" not in leaves))
    assert sorted(contracts["shared-knows-no-family"]["forbidden_modules"]) == leaves
    assert sorted(contracts["shared-knows-no-family"]["source_modules"]) == shared
    layered = sorted(m.strip() for layer in contracts["shared-layers"]["layers"] for m in layer.replace("|", ":").split(":"))
    assert layered == shared  # every shared module has its floor
