"""Sphinx configuration of the Symmetry Lab documentation site.

Build it (from the repository root, with ``pip install -e ".[docs]"``)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

What is written by hand is the prose (the user guide) and which modules the API reference covers
(``docs/api/*.md``). The rest is generated from the code at build time by ``docs/_ext/labdocs.py``: a page per
experiment family found through the ``symmetry_lab.families`` entry point, the dashboard's tabs (``lab.dashboard
.PANES``) with their screenshots, and the tutorials (the notebooks of ``notebooks/``, executed by myst-nb in their
fast mode and cached by jupyter-cache, so an unchanged notebook is not run again). The command line's reference is
sphinx-argparse reading ``lab.cli.build_parser``. Nothing is fetched from another host, at build or at view time:
the theme bundles its fonts and icons, and MathJax is served from the site itself.
"""
from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(ROOT))

import lab  # noqa: E402

project = "Symmetry Lab"
author = "Symmetry Lab developers"
copyright = "2026, Symmetry Lab developers"
release = version = lab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "sphinxarg.ext",
    "myst_nb",
    "labdocs",
]

exclude_patterns = ["_build", "jupyter_execute", "**/.ipynb_checkpoints", "img/*.md"]
suppress_warnings = ["myst.header"]  # a notebook's sections start at ## under its # title: not an error in a notebook

# ---------------------------------------------------------------- the API reference (autodoc)
autodoc_member_order = "bysource"
autodoc_typehints = "signature"          # type hints shown in the signatures
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True         # defaults as written (SIZES["x"], not the value)
autodoc_default_options = {"members": True, "show-inheritance": True}
add_module_names = False
smartquotes = False                      # "--merge" stays two hyphens (the texts name command-line flags)

# ---------------------------------------------------------------- notebooks (myst-nb)
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = os.environ.get("LAB_DOCS_EXECUTE", "cache")  # "off": not executed (kept without outputs)
nb_execution_cache_path = os.environ.get("LAB_DOCS_CACHE", str(DOCS / "_build" / ".jupyter_cache"))
nb_execution_timeout = 1800              # a hang guard per cell, as in tests/test_notebooks.py
nb_execution_raise_on_error = True       # a notebook that fails fails the build
nb_merge_streams = True
os.environ["LAB_NOTEBOOK_MODE"] = "fast"  # the tutorials run their quick settings (the kernel inherits it)
nb_execution_in_temp = True             # a notebook that writes files writes them in a temporary directory

# ---------------------------------------------------------------- the site
html_theme = "pydata_sphinx_theme"
html_title = f"Symmetry Lab {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_context = {"default_mode": "light"}

# MathJax from the site itself (the files of the sphinx-mathjax-offline distribution), never a CDN
_mathjax = Path(str(metadata.distribution("sphinx-mathjax-offline").locate_file("sphinx-mathjax-offline/static")))
html_static_path.append(str(_mathjax))
mathjax_path = "mathjax/tex-chtml.js"
