"""The Sharing discovery pane through its API: live snapshots, stop, save and reload, method 2."""
from __future__ import annotations

import time

from lab.dashboard.sharing_discovery import SharingDiscovery


def _run(pane, timeout=60):
    deadline = time.monotonic() + timeout
    seen = []
    while (pane.running or pane._pending) and time.monotonic() < deadline:
        time.sleep(0.05)
        pane.poll()
        seen.append(len(pane.snapshots))
    pane.poll()
    return seen


def test_conv_streams_snapshots_recovers_and_saves(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="conv")
    assert pane.start()
    seen = _run(pane)
    assert len(set(seen)) > 2  # snapshots of A arrive while it learns
    assert "final partition distance **0**" in pane._status.object
    assert pane.snapshots[-1].shape == (6, 6) and len(pane.history) == len(pane.snapshots)
    assert pane._slider.end == len(pane.snapshots) - 1
    pane._slider.value = 0  # scrub back: the first snapshot is shown without error
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1
    fresh = SharingDiscovery(results=str(tmp_path))
    assert fresh.load(str(saved[0])) and len(fresh.snapshots) == len(pane.snapshots)


def test_stop_ends_the_worker(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="group", steps=100_000)
    assert pane.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    pane.stop(wait=True)
    assert time.monotonic() - t0 < 2 and not pane.worker.is_alive()
    pane.poll()
    assert "stopped" in pane._status.object


def test_method_2_compares_with_and_without_sparsity(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="msr", steps=60, tasks=30)
    assert pane.start()
    _run(pane)
    table = pane._m2[2].object
    assert list(table.model) == ["msr, exclusive sparsity", "msr, none sparsity", "fully connected"]
    assert (table["test loss"] > 0).all()


def test_bad_group_is_an_inline_error(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="group", group="SO(3)")
    assert not pane.start()
    assert pane._error.visible and "permutation group" in pane._error.object


def test_pause_holds_method_2(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="msr", steps=100_000, tasks=20)
    assert pane.start()
    time.sleep(0.5)
    pane._toggle_pause()
    time.sleep(0.3)
    pane.poll()
    before = len(pane.history)
    time.sleep(0.6)
    pane.poll()
    assert len(pane.history) <= before + 1
    pane.stop(wait=True)
    assert not pane.worker.is_alive()
