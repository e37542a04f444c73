"""The browser tests' reading of ``panel serve``'s log: an app's traceback fails a test, a closed page's races
in tornado and Bokeh do not."""
from browser import server_errors

_APP = """2026-11-28 00:32:30,100 Exception in callback
Traceback (most recent call last):
  File "/x/lab/dashboard/training_dynamics.py", line 10, in _on_start
    raise ValueError("boom")
ValueError: boom
"""
_DETACHED = """2026-11-28 00:32:35,819 error handling message
 message: Message 'PATCH-DOC' content: {'events': []}
 error: AssertionError()
Traceback (most recent call last):
  File "/v/site-packages/bokeh/server/protocol_handler.py", line 94, in handle
    work = await handler(message, connection)
  File "/v/site-packages/bokeh/server/connection.py", line 65, in session
    assert self._session is not None
           ^^^^^^^^^^^^^^^^^^^^^^^^^
AssertionError
"""
_CLOSED = """2026-11-28 00:32:36,000 Task exception was never retrieved
Traceback (most recent call last):
  File "/v/site-packages/tornado/websocket.py", line 1086, in write_message
tornado.websocket.WebSocketClosedError
"""
_APP_ASSERT = """2026-11-28 00:32:37,000 Exception in callback
Traceback (most recent call last):
  File "/x/lab/dashboard/sharing_discovery.py", line 5, in _tick
    assert self._session is not None
AssertionError
"""


def test_app_tracebacks_count_and_a_closed_pages_races_do_not(tmp_path):
    log = tmp_path / "serve.log"
    log.write_text(_DETACHED + _CLOSED + "Received signal SIGTERM, shutting down\n")
    assert server_errors(log) == []
    log.write_text(_DETACHED + _APP + _CLOSED + _APP_ASSERT)
    found = server_errors(log)
    assert len(found) == 2  # the app's ValueError, and an assertion of the same text in the app's own code
    assert "ValueError: boom" in found[0] and "sharing_discovery.py" in found[1]
