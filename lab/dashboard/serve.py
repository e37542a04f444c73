"""``lab dashboard``: the dashboard served from the installed package, the same page as ``panel serve app.py``.

``panel serve app.py`` needs the repository (``app.py`` sits beside ``lab/``); an installed wheel has only the
package.  This serves the same ``build_app`` at the same URL (``http://localhost:5006/app``) through Panel's own
server (``panel.serve``: one ``build_app()`` per browser session, as ``panel serve`` runs the script once per
session), with the same theme choice (``?theme=dark`` in the URL, or ``--theme``, which sets ``LAB_THEME``).

>>> options(theme="dark", port=5007)["port"]
5007
>>> options(port=70000)
Traceback (most recent call last):
...
lab.errors.LabError: --port must be between 0 and 65535 (0: any free port), got 70000
"""
from __future__ import annotations

import os

from ..errors import LabError

#: the app's path on the server: the same URL as ``panel serve app.py``
SLUG = "app"
DEFAULT_PORT = 5006
#: the ports --port accepts (0: any free port)
PORTS = (0, 65535)
#: --theme's choices: the names ``lab.dashboard.theme.pick_theme`` reads
THEMES = ("light", "dark")


def options(port: int = DEFAULT_PORT, address: str | None = None, show: bool = False,
            theme: str | None = None) -> dict:
    """The server's settings, checked (a bad value: ``LabError``, one line)."""
    if not PORTS[0] <= int(port) <= PORTS[1]:
        raise LabError(f"--port must be between {PORTS[0]} and {PORTS[1]} (0: any free port), got {port}")
    if theme is not None and theme not in THEMES:
        raise LabError(f"--theme must be one of {', '.join(THEMES)}, got {theme!r}")
    return {"port": int(port), "address": address, "show": bool(show), "theme": theme}


def serve(port: int = DEFAULT_PORT, address: str | None = None, show: bool = False, theme: str | None = None):
    """Serve the dashboard until interrupted; prints the page's URL on stderr."""
    import sys

    o = options(port, address, show, theme)
    if o["theme"]:
        os.environ["LAB_THEME"] = o["theme"]  # each session's theme when its URL names none (lab.dashboard.theme)
    import panel as pn

    from .app import build_app

    # Panel's own show opens "/", an index of apps; the page itself is /app (below).  Ctrl-C: Panel's handler
    # stops the loop
    server = pn.serve({SLUG: build_app}, port=o["port"], address=o["address"], show=False, start=False,
                      title="Symmetry Lab", verbose=False)
    host = o["address"] or "localhost"
    print(f"Symmetry Lab: http://{host}:{server.port}/{SLUG}  (Ctrl-C stops it)", file=sys.stderr, flush=True)
    server.start()
    if o["show"]:
        server.io_loop.add_callback(server.show, f"/{SLUG}")
    try:
        server.io_loop.start()
    except KeyboardInterrupt:  # before Panel's handler was installed
        pass
    finally:
        server.stop()
