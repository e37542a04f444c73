"""The documentation site (``docs/``, Sphinx): every public name of the API reference's modules is documented, and
the site builds with no warning, with its internal links resolving and nothing fetched from another host.

The modules are the ones the reference's pages name in an ``automodule`` directive (read from ``docs/api/*.md``),
so the reference and this check cannot drift apart; each family's config class and run function (the
``lab-families`` pages, generated from the installed manifests) must be documented too.
"""
from __future__ import annotations

import importlib
import inspect
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def reference_modules() -> list[str]:
    names = []
    for page in sorted((DOCS / "api").glob("*.md")):
        names += re.findall(r"^\.\. automodule:: ([\w.]+)\s*$", page.read_text(), re.M)
    return names


def public_names(module) -> list[str]:
    """``__all__``, or else the module's own functions and classes not starting with ``_``."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [n for n, v in vars(module).items() if not n.startswith("_")
            and (inspect.isfunction(v) or inspect.isclass(v)) and getattr(v, "__module__", None) == module.__name__]


def own_doc(obj) -> str:
    """A function's or class's own docstring ("" if none: for a class an inherited one does not count, nor the
    signature dataclasses write when the class has none; neither says anything about the class)."""
    doc = (obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__) or ""
    if inspect.isclass(obj) and doc.startswith(f"{obj.__name__}("):
        return ""
    return doc.strip()


def undocumented(module) -> list[str]:
    """The module's public functions and classes with no docstring of their own (``own_doc``)."""
    return [f"{module.__name__}.{name}" for name in public_names(module)
            if (inspect.isfunction(obj := getattr(module, name)) or inspect.isclass(obj)) and not own_doc(obj)]


def test_the_reference_covers_the_public_api():
    modules = reference_modules()
    for expected in ("lab.groups", "lab.reps", "lab.solvers", "lab.nn", "lab.meter", "lab.equivariance",
                     "lab.experiments", "lab.runstore", "lab.reproduce.report", "lab.sweeps"):
        assert expected in modules, f"the API reference has no page for {expected}"


def test_every_public_name_of_the_reference_is_documented():
    missing = [n for m in reference_modules() for n in undocumented(importlib.import_module(m))]
    assert not missing, f"{len(missing)} public names without a docstring: {', '.join(missing)}"


def test_every_family_config_and_run_function_is_documented():
    from lab.experiments import FAMILIES

    missing = []
    for fam in FAMILIES.values():
        missing += [f"{fam.name}: {obj.__qualname__}" for obj in (fam.config, fam.run) if not own_doc(obj)]
        for o in fam.config.declarations():
            if not o.help.strip():
                missing.append(f"{fam.name}: option {o.name}")
    assert not missing, missing


def test_the_undocumented_check_finds_a_missing_docstring():
    """The check itself could fail: a module with one documented and one bare function."""
    import types

    m = types.ModuleType("fake")
    exec("def good():\n    'Documented.'\n\ndef bare():\n    pass\n\nclass Bare:\n    pass\n", m.__dict__)
    for v in vars(m).values():
        if callable(v):
            v.__module__ = "fake"
    assert undocumented(m) == ["fake.bare", "fake.Bare"]


# ---------------------------------------------------------------- the site itself
class _Links(HTMLParser):
    """Every link, script, stylesheet and image of a page, and every id it defines."""

    def __init__(self):
        super().__init__()
        self.refs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append((tag, a[key]))


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def build_site(cache: Path, out: Path):
    """The site, built as the README says (warnings as errors), its tutorials from the executed notebooks in
    ``cache``, with no way out to another host (a proxy that refuses every connection)."""
    import os
    import subprocess
    import sys

    nowhere = "http://127.0.0.1:9"
    env = dict(os.environ, LAB_DOCS_CACHE=str(cache), LAB_NOTEBOOK_MODE="fast", http_proxy=nowhere,
               https_proxy=nowhere, HTTP_PROXY=nowhere, HTTPS_PROXY=nowhere, no_proxy="", NO_PROXY="")
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-d",
                           str(out / "doctrees"), "docs", str(out / "html")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=3600)


@pytest.mark.slow
@pytest.mark.timeout(3600)  # a hang guard: the notebooks this session did not execute are executed by the build
def test_the_site(executed_notebooks, tmp_path):
    """One build (each check below reads it): it passes with warnings as errors; every page is there; the tutorials
    are the executed notebooks; the reference comes from the code; every internal link and anchor resolves and
    nothing is loaded from another host."""
    proc = build_site(executed_notebooks, tmp_path)
    assert proc.returncode == 0, (proc.stdout[-2000:] + proc.stderr[-4000:])
    assert not re.search(r"WARNING:|ERROR:", proc.stderr), proc.stderr[-4000:]  # Sphinx's own (and -W: rc)
    html = tmp_path / "html"
    for page in ("index", "install", "guide/cli", "guide/dashboard", "guide/sweeps", "guide/reproduce",
                 "adding-a-family", "api/nn", "api/families"):
        assert (html / f"{page}.html").is_file(), page
    check_tutorials(html)
    check_reference(html)
    check_links(html)


def check_tutorials(html: Path) -> None:
    """Every notebook is a page with its outputs: it ran in fast mode and its figures are on the page."""
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = html / "tutorials" / f"{nb.stem}.html"
        assert page.is_file(), nb.name
        text = page.read_text(encoding="utf-8")
        assert "fast mode:" in text, f"{nb.name}: not executed in fast mode"
        assert 'src="../_images/' in text, f"{nb.name}: no figure on its page"


def check_reference(html: Path) -> None:
    """The API pages hold the docstrings, each installed family has a section with its options (from its config's
    declarations), and the CLI page has every sub-command (from the parser)."""
    import lab.nn
    from lab.cli import build_parser
    from lab.experiments import FAMILIES

    nn = (html / "api" / "nn.html").read_text(encoding="utf-8")
    for name in lab.nn.__all__:
        if callable(getattr(lab.nn, name)):
            assert f'id="lab.nn.{name}"' in nn, name
    families = (html / "api" / "families.html").read_text(encoding="utf-8")
    for fam in FAMILIES.values():
        assert f'id="family-{fam.name}"' in families, fam.name
        for o in fam.config.declarations():
            shown = (o.metavar or o.name.upper()) if o.positional else o.flag or o.name
            assert f'<span class="pre">{shown}</span>' in families, (fam.name, shown)
    cli = (html / "guide" / "cli.html").read_text(encoding="utf-8")
    commands = next(a for a in build_parser()._actions if isinstance(getattr(a, "choices", None), dict)).choices
    for command in commands:
        assert f'id="lab-{command}"' in cli, command


def check_links(html: Path) -> None:
    """Every link between pages (and its #anchor) lands on a page and id that exist; every script, stylesheet,
    font and image is served by the site itself (links *to* other sites, ``<a href="https://...">``, are allowed:
    they are requests only when clicked)."""
    from urllib.parse import unquote, urlsplit

    # the site's pages (a theme's _static/ holds template files named .html too: not pages)
    pages = {p: _parse(p) for p in html.rglob("*.html") if "_static" not in p.relative_to(html).parts}
    broken, outside = [], []
    for page, parsed in pages.items():
        for tag, ref in parsed.refs:
            url = urlsplit(ref)
            if url.scheme or ref.startswith("//"):
                if tag != "a" and url.scheme in ("http", "https", ""):
                    outside.append(f"{page.relative_to(html)}: <{tag}> {ref}")
                continue
            target = page if not url.path else (page.parent / unquote(url.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(html)} -> {ref}")
            elif url.fragment and target.suffix == ".html" and target in pages \
                    and unquote(url.fragment) not in pages[target].ids:
                broken.append(f"{page.relative_to(html)} -> {ref} (no such anchor)")
    assert not broken, broken[:20]
    assert not outside, outside[:20]
    css = "".join(p.read_text(errors="ignore") for p in html.rglob("*.css"))
    assert "fonts.googleapis" not in css and "@import url(http" not in css
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()


def test_the_link_check_finds_a_broken_link_and_an_outside_script(tmp_path):
    """The check itself could fail."""
    (tmp_path / "a.html").write_text("<a href='b.html#here'>b</a><a href='https://example.org'>ok</a>")
    (tmp_path / "b.html").write_text("<p id='there'>b</p>")
    with pytest.raises(AssertionError, match="no such anchor"):
        check_links(tmp_path)
    (tmp_path / "b.html").write_text("<p id='here'>b</p><script src='https://cdn.example.org/x.js'></script>")
    with pytest.raises(AssertionError, match="cdn.example.org"):
        check_links(tmp_path)
