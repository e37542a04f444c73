"""``lab dashboard`` serves the page of ``panel serve app.py`` from the package; ``lab --version`` says the
version."""
from __future__ import annotations

import os
import sys

import pytest

from browser import free_port, served

from lab import __version__
from lab.cli import main, version
from lab.dashboard.serve import options
from lab.errors import LabError


def test_version_is_printed_and_is_the_packages(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"lab {version()}"
    assert version() == __version__  # the installed metadata and the package agree (pyproject reads lab.__version__)


@pytest.mark.parametrize("args, words", [(["--port", "70000"], "out of range"), (["--port", "x"], "not a whole"),
                                         (["--theme", "purple"], "invalid choice")])
def test_bad_options_are_one_line_and_exit_2(capsys, args, words):
    with pytest.raises(SystemExit) as exit_:
        main(["dashboard", *args])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and len(err.splitlines()) == 1 and words in err, err


def test_the_api_refuses_bad_options_with_a_lab_error():
    with pytest.raises(LabError, match="--port"):
        options(port=-1)
    with pytest.raises(LabError, match="--theme"):
        options(theme="sepia")


@pytest.mark.slow
def test_lab_dashboard_serves_the_page_and_ctrl_c_ends_it(tmp_path):
    port = free_port()
    env = dict(os.environ, LAB_RESULTS_DIR=str(tmp_path))
    command = [sys.executable, "-m", "lab", "dashboard", "--port", str(port), "--address", "127.0.0.1", "--theme",
               "dark"]
    with served(command, f"http://127.0.0.1:{port}/app", cwd=tmp_path, env=env) as (proc, page):
        assert "<title>Symmetry Lab</title>" in page
        assert "theme/dark.css" in page and "theme/default.css" not in page  # --theme dark: the dark template
    assert proc.returncode == 0, proc.err[-2000:]
    assert f"http://127.0.0.1:{port}/app" in proc.err
