"""A closed (or reloaded) page logs one INFO line, not a traceback.

When a browser tab closes while the server writes to it, tornado and Bokeh race with the closing socket: tornado's
write raises ``WebSocketClosedError`` / ``StreamClosedError`` in a task nobody awaits (asyncio logs "Task exception
was never retrieved" at ERROR with the traceback), and Bokeh may handle a message the page sent just before closing
after its connection was detached (``assert self._session is not None`` in ``bokeh/server/connection.py``, logged
at ERROR as "error handling message").  Neither is the app's error, and each is noise in the server log of every
reload.  ``quiet_closed_pages()`` installs a filter on those loggers that rewrites exactly these records into one
INFO line ("a page closed while the server wrote to it") and leaves every other record as it is.

>>> import logging
>>> class WebSocketClosedError(Exception): ...  # tornado's, by name
>>> record = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "Task exception was never retrieved", None,
...                            (WebSocketClosedError, WebSocketClosedError(), None))
>>> ClosedPageFilter().filter(record), record.levelname, record.getMessage(), record.exc_info
(True, 'INFO', 'a page closed while the server wrote to it (WebSocketClosedError)', None)
>>> other = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "boom", None, (ValueError, ValueError(), None))
>>> ClosedPageFilter().filter(other), other.levelname
(True, 'ERROR')
"""
from __future__ import annotations

import logging
import traceback

#: the loggers a closed page's races are written to
LOGGERS = ("asyncio", "tornado.application", "tornado.general", "bokeh.server.protocol_handler")
#: the names of the exceptions a write to a closed socket raises (tornado's; matched by name, no import needed)
CLOSED = {"WebSocketClosedError", "StreamClosedError"}


def _closed_page(exc: BaseException | None) -> bool:
    if exc is None:
        return False
    if type(exc).__name__ in CLOSED or type(exc.__context__).__name__ in CLOSED:
        return True
    if isinstance(exc, AssertionError) and exc.__traceback__ is not None:
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return last.filename.replace("\\", "/").endswith("bokeh/server/connection.py") and "_session" in (
            last.line or "")
    return False


class ClosedPageFilter(logging.Filter):
    """Rewrites a closed page's race (see the module docstring) into one INFO line; passes everything else."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if record.levelno >= logging.ERROR and _closed_page(exc):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = f"a page closed while the server wrote to it ({type(exc).__name__})", None
            record.exc_info, record.exc_text = None, None
        return True


_installed = False


def quiet_closed_pages() -> None:
    """Install ``ClosedPageFilter`` on ``LOGGERS`` (once per process)."""
    global _installed
    if _installed:
        return
    for name in LOGGERS:
        logging.getLogger(name).addFilter(ClosedPageFilter())
    _installed = True
