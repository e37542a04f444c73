"""The paper's settings (lab.tasks.nordenfors_paper), MNIST from IDX files, float32 training, held-out test accuracy."""
from __future__ import annotations

import gzip
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from lab.dynamics import DynamicsConfig, Trainer
from lab.tasks.nordenfors import build
from lab.data.mnist import load_mnist, read_idx
from lab.tasks.nordenfors_paper import PAPER, SMALL, markdown_table
from lab.errors import LabError

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_table_is_the_paper_table():
    text = README.read_text()
    block = re.search(r"<!-- paper-settings:[^\n]*-->\n(.*?)\n<!-- /paper-settings -->", text, re.S)
    assert block is not None
    assert block.group(1).strip() == markdown_table().strip()
    for exp, entries in PAPER.items():
        if exp == "custom":
            continue
        for key, entry in entries.items():
            assert f"| {exp} | {key} |" in block.group(1) and entry.source


@pytest.mark.parametrize("experiment", ["perm", "trans", "rot"])
def test_paper_scale_reads_every_setting_from_the_table(experiment):
    cfg = DynamicsConfig(experiment=experiment, scale="paper").validate()
    table = PAPER[experiment]
    for key in ("lr", "steps", "runs", "aug_passes", "batch_size", "init", "dtype", "test_fraction"):
        assert getattr(cfg, key) == table[key].value, key
    small = DynamicsConfig(experiment=experiment).validate()
    assert (small.lr, small.steps, small.runs) == tuple(SMALL[experiment][k] for k in ("lr", "steps", "runs"))


def test_published_values():
    # the facts read from the reference code, written here independently of the table
    assert (PAPER["perm"]["lr"].value, PAPER["perm"]["batch_size"].value, PAPER["perm"]["data_size"].value) == (
        1e-4, 200, 1000)
    assert (PAPER["trans"]["lr"].value, PAPER["trans"]["batch_size"].value, PAPER["rot"]["lr"].value,
            PAPER["rot"]["data_size"].value, PAPER["e2"]["lr"].value) == (1e-5, 25, 1e-5, 3000, 5e-5)
    assert all(PAPER[e]["steps"].value == 50 and PAPER[e]["runs"].value == 30 and PAPER[e]["aug_passes"].value == 25
               for e in ("perm", "trans", "rot", "e2"))


def test_paper_architectures_match_the_reference_code():
    perm = build("perm", "paper", graphs=20)
    assert [(s.c_in, s.c_out, s.after, s.bias) for s in perm.specs] == [
        (1, 32, "leaky_relu", False), (32, 64, "leaky_relu,layernorm", False), (64, 32, "leaky_relu", False),
        (32, 1, "", False)]
    trans = build("trans", "paper", images=30)
    assert [(s.rep_out, s.c_in, s.c_out, s.after) for s in trans.specs] == [
        ("V", 1, 32, "leaky_relu"), ("V", 32, 32, "leaky_relu"), ("Scalar", 32, 32, "tanh,layernorm"),
        ("Scalar", 32, 10, "")]
    rot = build("rot", "paper", images=10)
    assert [(s.c_in, s.c_out, s.after) for s in rot.specs] == [
        (1, 32, "leaky_relu"), (32, 32, "leaky_relu"), (32, 16, "leaky_relu"), (16, 2, "leaky_relu,channel_norm")]
    assert rot.group.d == 14 * 14 and rot.mask_loss == "sum" and perm.group.d == 10


def test_reference_init_scales():
    tr = Trainer(DynamicsConfig(experiment="perm", runs=40, steps=1, init="reference", strategies=("nom",),
                                options={"graphs": 20, "nodes": 6, "channels": (4, 8, 16)}))
    W = tr.A0
    n = 6
    pool = W[1]  # (R, 8, 4, 1, 36): one value per channel pair, constant over entries
    assert torch.allclose(pool, pool[..., :1].expand_as(pool))
    assert abs(float(pool[..., 0].std()) * math.sqrt(8) - 1) < 0.1  # N(0, 1/c_out)
    assert abs(float(W[2].std()) / (n / 8) - 1) < 0.1 and abs(float(W[3].std()) / (n / 16) - 1) < 0.2


def _idx(path: Path, array: np.ndarray, gz: bool):
    header = bytes([0, 0, 8, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    raw = header + array.astype(np.uint8).tobytes()
    if gz:
        with gzip.open(path.with_name(path.name + ".gz"), "wb") as f:
            f.write(raw)
    else:
        path.write_bytes(raw)


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_idx_round_trip(tmp_path, gz):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (12, 28, 28))
    labels = rng.integers(0, 10, 12)
    _idx(tmp_path / "t10k-images-idx3-ubyte", images, gz)
    _idx(tmp_path / "t10k-labels-idx1-ubyte", labels, gz)
    suffix = ".gz" if gz else ""
    np.testing.assert_array_equal(read_idx(tmp_path / f"t10k-images-idx3-ubyte{suffix}"), images)
    X, y = load_mnist(tmp_path, "t10k", size=14)
    np.testing.assert_array_equal(y, labels)
    blocks = images.reshape(12, 14, 2, 14, 2).mean((2, 4)) / 255.0  # 2 x 2 averages: area resizing
    np.testing.assert_allclose(X, blocks, atol=1e-12)
    tr = Trainer(DynamicsConfig(experiment="trans", data=str(tmp_path), runs=1, steps=1, test_fraction=0.25,
                                strategies=("nom", "equi"), options={"channels": (2, 2, 4)}))
    assert str(tr.exp.group) == "Z(14)*Z(14)" and tr.X.shape[1:] == (1, 196) and len(tr.X_test) == 3
    tr.run()
    assert 0 <= tr.summary()["nom"]["test_accuracy"] <= 1


def test_mnist_errors_are_lab_errors(tmp_path):
    (tmp_path / "t10k-images-idx3-ubyte").write_bytes(b"\x08\x00\x03\x01garbage")
    with pytest.raises(LabError, match="magic"):
        read_idx(tmp_path / "t10k-images-idx3-ubyte")
    _idx(tmp_path / "t10k-images-idx3-ubyte", np.zeros((3, 28, 28)), False)
    (tmp_path / "t10k-images-idx3-ubyte").write_bytes((tmp_path / "t10k-images-idx3-ubyte").read_bytes()[:-5])
    with pytest.raises(LabError, match="header announces"):
        read_idx(tmp_path / "t10k-images-idx3-ubyte")
    with pytest.raises(LabError, match="never downloaded"):
        load_mnist(tmp_path, "t10k")  # the labels file is missing
    (tmp_path / "t10k-labels-idx1-ubyte.gz").write_bytes(b"not gzip at all")
    _idx(tmp_path / "t10k-images-idx3-ubyte", np.zeros((3, 28, 28)), False)
    with pytest.raises(LabError, match="cannot read"):
        load_mnist(tmp_path, "t10k")
    with pytest.raises(LabError, match="trans"):
        DynamicsConfig(experiment="perm", data=str(tmp_path)).validate()


def test_float32_equi_stays_in_E_and_tf32_is_scoped():
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        tr = Trainer(DynamicsConfig(experiment="trans", dtype="float32", runs=2, steps=5, lr=0.5,
                                    strategies=("nom", "equi"), options={"images": 100}))
        assert tr.A0[0].dtype == torch.float32
        tr.run()
        assert torch.backends.cuda.matmul.allow_tf32 is True  # restored after training
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before
    A = tr.params["equi"]
    outside = math.sqrt(sum(float(((a - p).double() ** 2).sum()) for a, p in zip(A, tr.model.project(A))))
    assert outside / math.sqrt(sum(float((a.double() ** 2).sum()) for a in A)) < 1e-5
    assert tr.summary()["equi"]["dist_from_init"] > 1e-2 and tr.summary()["nom"]["dist_from_E"] > 1e-2
    assert Trainer(DynamicsConfig(experiment="perm", runs=1, steps=1, device="cpu")).A0[0].dtype == torch.float64


def test_trans_learns_at_the_small_settings():
    # the small Trans preset (digits 8 x 8, 400 trained on, 100 held out): test accuracy far above chance (0.1)
    tr = Trainer(DynamicsConfig(experiment="trans", runs=1, dtype="float32", strategies=("nom", "aug")))
    tr.run()
    s = tr.summary()
    assert s["nom"]["test_samples"] == 100
    assert s["nom"]["test_accuracy"] > 0.7
    assert s["aug"]["test_accuracy"] > 0.3


def test_the_demo_scale_is_the_small_scale_with_less_work():
    """``--scale demo`` (a class demo): fewer runs, steps, passes and data than small; every other setting is the
    small scale's, and the paper scale is untouched."""
    from lab.dynamics.config import SCALES, DynamicsConfig

    assert SCALES == ("demo", "small", "paper")
    for experiment in ("perm", "trans", "rot", "custom"):
        demo = DynamicsConfig(experiment=experiment, scale="demo").validate()
        small = DynamicsConfig(experiment=experiment, scale="small").validate()
        assert demo.runs < small.runs and demo.steps < small.steps and demo.aug_passes <= small.aug_passes
        assert (demo.lr, demo.batch_size, demo.init) == (small.lr, small.batch_size, small.init)
        assert demo.runs * demo.steps * demo.aug_passes < small.runs * small.steps * small.aug_passes / 4
