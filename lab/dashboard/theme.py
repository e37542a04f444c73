"""The dashboard's light or dark theme: chosen when the page opens, never by a toggle that reloads it.

Panel's FastListTemplate switches its theme by reloading the page with ``?theme=...`` (its header toggle sets
``window.location.href``): the session ends, and with it a running job.  The lab's template has no toggle;
the theme is the URL's ``?theme=dark`` (or ``default`` / ``light``), else the ``LAB_THEME`` environment
variable, else light.  An unknown name is not an error page: the light theme is used and the log says why.

>>> pick_theme("dark", None), pick_theme(None, "Dark"), pick_theme("light", "dark"), pick_theme(None, None)
('dark', 'dark', 'default', 'default')
>>> pick_theme("purple", None)
'default'
"""
from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

THEMES = ("default", "dark")  #: Panel's theme names
ALIASES = {"light": "default", "default": "default", "dark": "dark"}
ENV = "LAB_THEME"


def _name(value, where: str) -> str | None:
    if value is None:
        return None
    text = str(value).strip().strip("'\"").lower()
    if not text:
        return None
    if text not in ALIASES:
        log.warning("unknown theme %r in %s: use dark or light; the light theme is used", value, where)
        return "default"
    return ALIASES[text]


def pick_theme(url: str | None, env: str | None) -> str:
    """The theme from the URL's ``theme`` argument, else from ``LAB_THEME``'s value, else ``"default"``."""
    return _name(url, "the URL") or _name(env, ENV) or "default"


def template_theme() -> dict:
    """The template's theme arguments for this session: ``theme`` as ``pick_theme`` decides, no reloading toggle.

    Panel's Fast templates read ``?theme=`` themselves (and fail on an unknown name), so the session's URL
    argument is set to the theme decided here; the session's ``pn.config.theme`` (the widgets' and plots'
    theme) follows it too."""
    import panel as pn

    args = pn.state.session_args
    raw = args.get("theme") if isinstance(args, dict) else None
    url = raw[0].decode("utf-8", "replace") if raw else None
    theme = pick_theme(url, os.environ.get(ENV))
    if raw:  # the template reads it: only a name it knows
        args["theme"] = [theme.encode()]
    if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
        pn.config.theme = theme  # this session's only
    return {"theme": theme, "theme_toggle": False}
