"""The session's fit cache (``lab.fitcache``): a fit read back is the fit computed, seen the same way by its caller."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from lab import fitcache
from lab.discovery.learn import FitSettings, fit
from lab.discovery.tasks import get_task

SMALL = FitSettings(hidden=8, layers=2, steps=20)


def _data(n=64, seed=0):
    return get_task("rotated-plane").make(n, seed)


def _params(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_off_by_default_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(fitcache.ENV, raising=False)
    assert fitcache.directory() is None
    X, Y = _data()
    a, b = fit(X, Y, SMALL), fit(X, Y, SMALL)
    assert all(torch.equal(a[0].state_dict()[k], b[0].state_dict()[k]) for k in a[0].state_dict())  # deterministic


def test_a_fit_read_back_equals_the_fit_and_reports_the_same_progress(tmp_path, monkeypatch):
    X, Y = _data()
    monkeypatch.delenv(fitcache.ENV, raising=False)
    steps_fresh = []
    fresh = fit(X, Y, SMALL, seed=3, on_step=lambda k, v: steps_fresh.append((k, v)))
    rng_after_fresh = torch.get_rng_state()

    monkeypatch.setenv(fitcache.ENV, str(tmp_path))
    first = fit(X, Y, SMALL, seed=3)  # computed and kept
    assert len(list(tmp_path.glob("discovery-fit-*.pt"))) == 1
    torch.manual_seed(12345)  # disturb the global generator: a read-back fit leaves it as a fresh fit does
    steps_read = []
    again = fit(X, Y, SMALL, seed=3, on_step=lambda k, v: steps_read.append((k, v)))
    assert torch.equal(torch.get_rng_state(), rng_after_fresh)
    assert steps_read == steps_fresh and again[2] == fresh[2] and again[1] == fresh[1]
    for k, v in _params(fresh[0]).items():
        assert torch.equal(_params(first[0])[k], v) and torch.equal(_params(again[0])[k], v), k
    x = torch.as_tensor(X[:5])
    assert torch.equal(again[0](x), fresh[0](x))


@pytest.mark.parametrize("change", ["data", "settings", "seed"])
def test_any_changed_input_is_a_new_fit(tmp_path, monkeypatch, change):
    monkeypatch.setenv(fitcache.ENV, str(tmp_path))
    X, Y = _data()
    fit(X, Y, SMALL, seed=0)
    if change == "data":
        X = X.copy()
        X[0, 0] += 1e-12
        fit(X, Y, SMALL, seed=0)
    elif change == "settings":
        fit(X, Y, FitSettings(hidden=8, layers=2, steps=21), seed=0)
    else:
        fit(X, Y, SMALL, seed=1)
    assert len(list(tmp_path.glob("discovery-fit-*.pt"))) == 2


def test_another_process_reads_the_fit_this_one_kept(tmp_path, monkeypatch):
    monkeypatch.setenv(fitcache.ENV, str(tmp_path))
    X, Y = _data()
    model, _, _ = fit(X, Y, SMALL, seed=2)
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "y.npy", Y)
    script = (
        "import numpy as np, torch, sys\n"
        "from lab.discovery import learn\n"
        "calls = []\n"
        "real = learn._fit\n"
        "learn._fit = lambda *a, **k: calls.append(1) or real(*a, **k)\n"
        f"X, Y = np.load({str(tmp_path / 'x.npy')!r}), np.load({str(tmp_path / 'y.npy')!r})\n"
        "m, _, _ = learn.fit(X, Y, learn.FitSettings(hidden=8, layers=2, steps=20), seed=2)\n"
        "print(len(calls), float(m(torch.as_tensor(X[:3])).sum().detach()))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    calls, value = out.stdout.split()
    assert calls == "0"  # read back, not fitted again
    with torch.no_grad():
        assert float(value) == float(model(torch.as_tensor(X[:3])).sum())


def test_a_fit_that_raises_is_not_kept(tmp_path, monkeypatch):
    from lab.control import Control, Stopped

    monkeypatch.setenv(fitcache.ENV, str(tmp_path))
    control = Control()
    control.stop()
    X, Y = _data()
    with pytest.raises(Stopped):
        fit(X, Y, SMALL, control=control)
    assert not list(tmp_path.glob("discovery-fit-*.pt"))


def test_the_key_refuses_what_it_cannot_read():
    with pytest.raises(TypeError):
        fitcache.key(object())
