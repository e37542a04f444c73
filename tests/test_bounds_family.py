"""The ``bounds`` family, ``lab bound`` (issue 31): the models (the GCNN invariant under 90-degree rotations through
the engine's filter bases, parameter counts comparable and exact before building), the data, the JSON contract,
bad input as one line and exit 2, save / load, MNIST from IDX files the test writes, and the issue's sanity check:
on shuffled labels every bound is vacuous."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from lab.bounds.family import DATASETS, FAMILY, LEVEL_INITS, MODELS, PROJECTOR_CHOICES, ROTATIONS, BoundsConfig

TINY = dict(dims="0,6", steps=4, quant_steps=4, train_points=64)


def _main(capsys, *args):
    from lab.cli import main

    try:
        code = main(["bound", *args])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_the_lists_agree_with_the_science():
    from lab.bounds.data import DATASETS as D, ROTATIONS as R
    from lab.bounds.models import MODELS as M
    from lab.bounds.projectors import PROJECTORS
    from lab.bounds.quantize import LEVEL_INITS as L

    assert DATASETS == D and ROTATIONS == R and MODELS == M and LEVEL_INITS == L
    assert PROJECTOR_CHOICES == ("auto", *PROJECTORS)


def test_the_gcnn_is_invariant_to_quarter_turns_and_the_cnn_is_not():
    from lab.bounds.models import build_model, c4_filter_bases

    lift, group = c4_filter_bases()
    # C4 acts freely on the 4 orientations, so Hom(V, Reg) has 9 * 4 / 4 and Hom(Reg * V, Reg) 36 * 4 / 4 elements
    assert lift.shape == (4, 9, 9) and group.shape == (4, 36, 36)
    x = torch.rand(6, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    for name, invariant in (("gcnn", True), ("cnn", False), ("mlp", False)):
        m = build_model(name, 8, seed=1)
        y = m(x)
        for k in (1, 2, 3):
            err = float((m(torch.rot90(x, k, (2, 3))) - y).abs().max().detach())
            assert (err < 1e-5 * float(y.abs().max().detach())) == invariant, (name, k, err)


def test_parameter_counts_are_exact_before_building_and_comparable():
    from lab.bounds.models import build_model, model_parameters, parameter_count

    for side in (8, 28):
        counts = {}
        for name in MODELS:
            counts[name] = parameter_count(build_model(name, 16, side=side))
            assert counts[name] == model_parameters(name, 16, side, 10)
        if side == 8:  # the digits: comparable (on 28 x 28 the CNN's read-out of every position outgrows the rest)
            assert max(counts.values()) <= 1.3 * min(counts.values()), counts


def test_the_data_perturbations():
    from lab.bounds.data import bound_data

    plain = bound_data("digits", 0)
    assert plain.n == 1438 and plain.x_train.shape[1:] == (1, 8, 8)
    pixels = bound_data("shuffled-pixels", 0)
    perm = [int((pixels.x_train[:, 0].reshape(len(pixels.x_train), -1) == plain.x_train[:, 0].reshape(
        len(plain.x_train), -1)[:, [j]]).all(0).nonzero()[0]) for j in range(3)]
    assert len(set(perm)) == 3  # each pixel column moved as a whole: one permutation for every image
    assert torch.equal(pixels.y_train, plain.y_train)
    labels = bound_data("shuffled-labels", 0)
    assert torch.equal(labels.x_train, plain.x_train) and not torch.equal(labels.y_train, plain.y_train)
    assert torch.equal(torch.bincount(labels.y_train), torch.bincount(plain.y_train))
    rot = bound_data("rotated-digits", 0, "c4")
    match = [any(torch.equal(torch.rot90(a, k, (1, 2)), b) for k in range(4)) for a, b in zip(plain.x_train,
                                                                                              rot.x_train)]
    assert all(match) and not torch.equal(rot.x_train, plain.x_train)
    cont = bound_data("rotated-digits", 0, "continuous")
    assert cont.x_train.shape == plain.x_train.shape and torch.allclose(cont.x_train.sum((1, 2, 3)),
                                                                        plain.x_train.sum((1, 2, 3)), rtol=0.35)


def test_on_shuffled_labels_every_bound_is_vacuous():
    """The issue's independent sanity check: nothing generalizes from random labels, so no bound may say it does --
    at every d, including one large enough to fit part of the labels (and the same run on the true labels is not)."""
    cfg = dict(model="mlp", dims="50,200,800", steps=300, quant_steps=100)
    s = FAMILY.summary(FAMILY.run(BoundsConfig(data="shuffled-labels", **cfg)))
    assert all(r["bound"] >= 0.9 for r in s["dims"]) and s["vacuous"] is True
    assert min(r["train_error"] for r in s["dims"]) < 0.8  # it did fit some of them
    true = FAMILY.summary(FAMILY.run(BoundsConfig(data="digits", **cfg)))
    assert true["best_bound"] < 0.8 and true["vacuous"] is False


def test_the_json_contract_and_the_table(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    code, out, err = _main(capsys, "--dims", "0,6", "--steps", "4", "--quant-steps", "4", "--train-points", "64",
                           "--json")
    assert code == 0, err
    s = json.loads(out)
    assert {"best_bound", "best_dim", "dims"} <= set(s)
    assert [r["d"] for r in s["dims"]] == [0, 6]
    for r in s["dims"]:
        assert {"d", "train_error", "compressed_bits", "bound"} <= set(r)
        assert r["train_error"] <= r["bound"] <= 1
    assert s["best_bound"] == min(r["bound"] for r in s["dims"])
    assert s["dims"][0]["compressed_bits"] == pytest.approx(1.0)  # d = 0: only the choice of d among two
    saved = FAMILY.load(sorted((tmp_path / "bounds").iterdir())[-1])
    assert list(saved.dims["d"]) == [0, 6] and saved.meta["summary"]["best_bound"] == s["best_bound"]
    code, out, err = _main(capsys, "--dims", "0,6", "--steps", "4", "--quant-steps", "4", "--train-points", "64",
                           "--no-save")
    assert code == 0 and "best bound" in out


@pytest.mark.parametrize("args,words", [
    (("--dims", "10,x"), "'x'"),
    (("--dims", "10,10"), "twice"),
    (("--dims", "99999"), "larger than the model's"),
    (("--rotation", "continuous"), "--data rotated-digits"),
    (("--data", "mnist"), "--data-dir"),
    (("--data-dir", "/nonexistent"), "--data mnist"),
    (("--model", "vit"), "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, words):
    code, out, err = _main(capsys, *args, "--no-save")
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_costs_before_work(monkeypatch):
    cfg = BoundsConfig(model="cnn", dims="100,5000", projector="dense").validate()
    c = cfg.costs()
    assert c["parameters"] == 7370 and c["projector_numbers"] == 7370 * 5000
    assert c["steps"] == 2 * (cfg.steps + cfg.quant_steps)
    kron = BoundsConfig(model="cnn", dims="100,5000", projector="kron-product").validate().costs()
    assert kron["projector_numbers"] < c["projector_numbers"] / 10
    monkeypatch.setenv("LAB_MEMORY_LIMIT", "100MB")
    with pytest.raises(Exception, match="memory"):
        BoundsConfig(model="cnn", dims="7000", projector="dense").validate()
    BoundsConfig(model="cnn", dims="7000", projector="kron-product").validate()  # the Kronecker projector fits


def _idx(path: Path, array) -> None:
    header = bytes([0, 0, 8, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    path.write_bytes(header + np.asarray(array, dtype=np.uint8).tobytes())


def test_mnist_from_the_users_idx_files(tmp_path, capsys):
    rng = np.random.default_rng(0)
    for split, n in (("train", 40), ("t10k", 20)):
        _idx(tmp_path / f"{split}-images-idx3-ubyte", rng.integers(0, 256, (n, 28, 28)))
        _idx(tmp_path / f"{split}-labels-idx1-ubyte", rng.integers(0, 10, n))
    cfg = BoundsConfig(data="mnist", data_dir=str(tmp_path), dims="4", steps=2, quant_steps=2, width=4)
    s = FAMILY.summary(FAMILY.run(cfg))
    assert s["n"] == 40 and s["parameters"] == cfg.parameters() and len(s["dims"]) == 1
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    code, out, err = _main(capsys, "--data", "mnist", "--data-dir", str(tmp_path), "--no-save")
    assert code == 2 and "t10k-labels" in err and len(err.strip().splitlines()) == 1


def test_stop_and_progress():
    from lab.control import Control

    records = []
    control = Control()

    def progress(r):
        records.append(r)
        if r.get("kind") == "dim":
            control.stop()

    res = FAMILY.run(BoundsConfig(**{**TINY, "dims": "0,4,6"}), progress, control)
    assert res.status == "stopped" and [r["d"] for r in res.rows] == [0]
    done = [r for r in records if r["kind"] == "progress"]
    assert all(r["done"] <= r["total"] for r in done)
    full = []
    FAMILY.run(BoundsConfig(**TINY), full.append)
    last = [r for r in full if r["kind"] == "progress"][-1]
    assert last["done"] == last["total"]


def test_comparing_models_weights_each_models_steps_by_what_one_costs(monkeypatch):
    """``compare``'s progress counts work: each model's steps times its measured weight (``_step_weights``, here
    pinned, and measured once for real), so the units rise monotonically to the total, the first model's steps end
    at its weight times its steps, and the last record is the whole job's."""
    from lab.bounds import family as bounds_family

    cfg = BoundsConfig(**TINY)
    measured = bounds_family._step_weights([replace(cfg, model=m).validate() for m in ("mlp", "gcnn")])
    assert measured[0] >= 1 and measured[1] >= 1 and min(measured) == 10  # the cheapest model is 10 units a step
    monkeypatch.setattr(bounds_family, "_step_weights", lambda configs, control=None: [1, 7])
    records = []
    results = bounds_family.compare(cfg, ["mlp", "gcnn"], records.append)
    steps = cfg.validate().costs()["steps"]
    progress = [r for r in records if r["kind"] == "progress"]
    assert [r["done"] for r in progress] == sorted(r["done"] for r in progress)
    assert {r["total"] for r in progress[1:]} == {8 * steps} and progress[-1]["done"] == 8 * steps
    mlp = [r for r in progress if r.get("model") == "mlp"]
    assert mlp[-1]["done"] == steps and len(results) == 2 and "2 models finished" in progress[-1]["message"]
