"""The settings of Nordenfors, Ohlsson & Flinth's experiments, one table: every value, its source, and where the
lab deviates, why (no torch here: the command line and the configs read it).

``PAPER[experiment][key]`` is an ``Entry``: the value ``--scale paper`` uses, where it comes from (the paper's
section, or the reference code ``usinedepain/eq_aug_dyn`` where the paper's text lost or omits the number), and,
when the lab does not do exactly what the source does, the reason (``deviation``).  ``SMALL`` holds the values the
``small`` scale changes (smaller data, channels, more learning rate); everything else is shared, so the small
presets have the paper's architectures (layer order, non-linearities, norm layers) shrunk.

``DynamicsConfig.check`` fills the settings left empty (lr, steps, runs, aug_passes, batch_size, init, dtype,
test_fraction) from ``setting(experiment, scale, key)``; ``lab.tasks.nordenfors`` builds data and layers from
the same table.  The README's table of the paper's settings is ``markdown_table()`` (a test compares them).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    value: object
    source: str
    deviation: str = ""  # empty: the lab does what the source does


#: the experiments (appendix D, and the lab's teacher-student ``custom``) and the scales each is preset at
EXPERIMENTS = ("perm", "trans", "rot", "custom")
SCALES = ("demo", "small", "paper")

#: a layer: (name, rep_in, rep_out, channel index in, channel index out, operations after it, bias); channel
#: indices point into the experiment's ``channels`` (0 = the input's channel count)
Layer = tuple


#: the reference code: https://github.com/usinedepain/eq_aug_dyn (models.py, datasets.py, opt_utils.py, train_*.py)
COMMON = {
    "steps": Entry(50, "§5 (50 epochs); train_*.py: range(50) calls of cluster_epoch"),
    "runs": Entry(30, "§5: each experiment is repeated 30 times"),
    "aug_passes": Entry(25, "§5 (L passes); the training scripts' first argument, 25 in the paper"),
    "optimizer": Entry("full-batch plain SGD: gradient of the mean loss accumulated over mini-batches",
                       "§5 (Nom/Aug/Equi); opt_utils.py augmentedSGD_epoch / restrictedSGD_epoch"),
    "dtype": Entry("float32", "models.py: every layer is torch.float",
                   "float32 at paper scale as in the reference; --dtype float64 on request (small scale: float64 "
                   "on CPU for exact tests)"),
    "test_fraction": Entry(0.0, "§5, D.2: trained on the whole data set; no held-out evaluation"),
}

PAPER = {
    "perm": {
        **COMMON,
        "lr": Entry(1e-4, "train_permutation.py: lr = 1e-4 (the paper's text lost the number)"),
        "batch_size": Entry(200, "train_permutation.py: DataLoader(batch_size=200)"),
        "data": Entry("sbm", "D.1: two-block stochastic block model graphs, connected or not"),
        "data_size": Entry(1000, "train_permutation.py: adMat(nbr_samples=1000)"),
        "nodes": Entry(10, "D.1; datasets.adMat(n=5): two blocks of 5 nodes"),
        "sbm_p": Entry(0.5, "datasets.adMat: p = .5 inside a block"),
        "sbm_q": Entry(0.05, "datasets.adMat: q = .05 across blocks"),
        "label": Entry("connected", "D.1: all entries of (I + A)^(n-1) positive",
                       "decided exactly by graph search; the reference's Laplacian eigenvalue > 1e-15 test "
                       "mislabels some graphs"),
        "input": Entry("x - 0.5", "D.1; PermutationAdjNet.forward: x = x - .5"),
        "channels": Entry((1, 32, 64, 32, 1), "train_permutation.py: ns = [1, 32], ms = [64, 32] (+ 1 output)"),
        "layers": Entry((("equivariant T(2)→T(2)", "T(2)", "T(2)", 0, 1, "leaky_relu", False),
                         ("invariant T(2)→T(0)", "T(2)", "Scalar", 1, 2, "leaky_relu,layernorm", False),
                         ("fc", "Scalar", "Scalar", 2, 3, "leaky_relu", False),
                         ("fc out", "Scalar", "Scalar", 3, 4, "", False)),
                        "D.1; models.PermutationAdjNet.forward: LeakyReLU after the pooling layer, then "
                        "LayerNorm(64, no affine), fc 64→32 LeakyReLU, fc 32→1; no biases"),
        "output": Entry("sigmoid + binary cross-entropy", "D.1; PermutationAdjNet.fc_nonlin = Sigmoid, BCELoss",
                        "the logit with BCE-with-logits: the same function, computed without overflow"),
        "init": Entry("reference", "models.PermutationAdjNet.reset: early layer N(0, (1/(n·sqrt(c_in·c_out)))²) "
                      "projected onto E; invariant layer N(0, 1/m0) constant over entries; fc randn·n/m",
                      "the paper's text says 'standard Gaussian projected onto E' (--init standard)"),
    },
    "trans": {
        **COMMON,
        "lr": Entry(1e-5, "train_translation.py: lr = 1e-5 (the paper's text lost the number)"),
        "batch_size": Entry(25, "train_translation.py: get_MNIST_loader(25, 14)"),
        "data": Entry("mnist", "D.2: MNIST's 10 000 test images (datasets.get_MNIST_loader(train=False))",
                      "without --data DIR (MNIST IDX files) the lab uses scikit-learn's 1 797 digits, 8 x 8: "
                      "nothing is downloaded"),
        "data_size": Entry(10000, "D.2: the 10 000 test examples"),
        "image_size": Entry(14, "D.2: resized to 14 x 14 (opencv resize; torchvision Resize in the code)",
                            "area averaging of 28 x 28 (torch); 8 x 8 for the digits"),
        "group": Entry("Z(n)*Z(n)", "D.2: cyclic translations (models.TranslationNet, datasets.Shift)",
                       "the reference's Shift draws randint(0, n), which includes n (not uniform); the lab "
                       "samples uniformly (--draws reference reproduces the reference's draws)"),
        "input": Entry("x - 0.5", "D.2; TranslationNet.forward: x = x - .5"),
        "channels": Entry((1, 32, 32, 32, 10), "train_*.py: ns = [1, 32, 32], ms = [32] (+ 10 classes)"),
        "layers": Entry((("equivariant V→V (1)", "V", "V", 0, 1, "leaky_relu", False),
                         ("equivariant V→V (2)", "V", "V", 1, 2, "leaky_relu", False),
                         ("invariant V→T(0)", "V", "Scalar", 2, 3, "tanh,layernorm", False),
                         ("fc out", "Scalar", "Scalar", 3, 4, "", False)),
                        "D.2; models.TranslationNet: LeakyReLU after the convolutions, Tanh after the pooling "
                        "layer (last_nonlin), then LayerNorm(32, no affine), fc 32→10; no biases"),
        "output": Entry("softmax + cross-entropy", "D.2; TranslationNet.fc_nonlin = Softmax, CrossEntropyLoss",
                        "the reference applies CrossEntropyLoss to the softmax output (a double softmax); the lab "
                        "gives it the logits"),
        "init": Entry("reference", "models.TranslationNet.reset: convolutions N(0, (1/(n·sqrt(c_in)))²) projected "
                      "onto E; invariant layer N(0, 1/m0) constant; fc randn·n/m",
                      "the paper's text says 'standard Gaussian projected onto E' (--init standard)"),
    },
    "rot": {
        **COMMON,
        "lr": Entry(1e-5, "train_rotation.py: lr = 1e-5 (the paper's text lost the number)"),
        "batch_size": Entry(25, "train_rotation.py: batch_size = 25"),
        "data": Entry("shapes", "D.3: one triangle or pentagon, same orientation, two masks",
                      "rasterised at pixel centres (matplotlib.path) instead of drawn and resized with opencv"),
        "data_size": Entry(3000, "train_rotation.py: SimpleShapes(nbr_samples=3000)"),
        "image_size": Entry(14, "train_rotation.py: n = 14"),
        "group": Entry("C4Grid(n)", "D.3: 90° rotations (models.RotationNet.project)",
                       "the reference's Rotate on (batch, 1, n²) data is not a rotation (a discarded reshape); "
                       "the lab rotates the images and the masks by the same element of C4 (--draws reference "
                       "reproduces the reference's draws: identity 2/5, half-turn 3/5)"),
        "input": Entry("x - 0.5", "lab choice, as Perm and Trans",
                       "RotationNet.forward does not subtract 0.5; the lab centres the 0/1 images like the others"),
        "channels": Entry((1, 32, 32, 16, 2), "train_rotation.py: ns = [1, 32, 32, 16, 2]"),
        "layers": Entry((("equivariant V→V (1)", "V", "V", 0, 1, "leaky_relu", False),
                         ("equivariant V→V (2)", "V", "V", 1, 2, "leaky_relu", False),
                         ("equivariant V→V (3)", "V", "V", 2, 3, "leaky_relu", False),
                         ("equivariant V→V (out)", "V", "V", 3, 4, "leaky_relu,channel_norm", False)),
                        "D.3; models.RotationNet: LeakyReLU after every layer including the last, then "
                        "LayerNorm over the 2 channels of each pixel (the paper's 'batch norm before the last "
                        "non-linearity'), no biases"),
        "output": Entry("sigmoid + BCE per mask, summed", "D.3 (45); train_rotation.py imloss",
                        "logits with BCE-with-logits (the same function)"),
        "init": Entry("reference", "models.RotationNet.reset: N(0, (1/(n·sqrt(c_in)))²) projected onto E (the "
                      "last layer uses c_in = 32, the loop variable's last value)",
                      "the lab uses each layer's own c_in; the paper's text says 'standard Gaussian'"),
    },
    "e2": {
        **COMMON,
        "lr": Entry(5e-5, "train_different_groups.py: lr = 5e-5"),
        "batch_size": Entry(25, "train_different_groups.py: get_MNIST_loader(25, 14)"),
        "data": Entry("mnist", "E.2: the Trans data (MNIST test set, 14 x 14)",
                      "8 x 8 scikit-learn digits unless --data DIR"),
        "data_size": Entry(10000, "E.2: as Trans"),
        "image_size": Entry(14, "E.2: as Trans"),
        "groups": Entry((("Trans", "Z(n)*Z(n)"), ("Rot", "C4Grid(n)"), ("OneDTrans", "Trivial(n)*Z(n)"),
                         ("TransRot", "P4Grid(n)")),
                        "E.2; train_different_groups.py: TranslationNet/Shift, RotationNet/Rotate, "
                        "OneDTranslationNet/Xshift, RotoTransNet/RotoShift"),
        "channels": Entry((1, 32, 32, 32, 10), "train_different_groups.py: ns = [1, 32, 32], ms = [32]"),
        "layers": Entry("as trans", "E.2: the Trans architecture for every group",
                        "the reference's RotationNet replaces Trans's Tanh by LeakyReLU; the lab keeps the Trans "
                        "architecture for all four groups, as the paper states"),
        "output": Entry("softmax + cross-entropy", "as Trans", "logits, as Trans"),
        "init": Entry("reference", "as Trans"),
    },
}

#: the small scale (seconds on a 2-core CPU): what it changes; the architectures stay the paper's
SMALL = {
    "perm": {"lr": 0.01, "steps": 40, "runs": 5, "aug_passes": 10, "batch_size": 50, "data_size": 200,
             "channels": (1, 8, 16, 8, 1), "init": "fan_in", "dtype": None, "test_fraction": 0.0},
    # lr 0.1: at 0.5 the loss of Nom rose for its first steps (checked on the training loss) and the invariant
    # models need ~100 steps to leave the plateau of their weakly informative pooled features
    "trans": {"lr": 0.1, "steps": 100, "runs": 5, "aug_passes": 5, "batch_size": 100, "data_size": 500,
              "channels": (1, 4, 8, 16, 10), "init": "fan_in", "dtype": None, "test_fraction": 0.2},
    "rot": {"lr": 0.5, "steps": 30, "runs": 5, "aug_passes": 4, "batch_size": 50, "data_size": 200,
            "image_size": 10, "channels": (1, 4, 4, 4, 2), "init": "fan_in", "dtype": None,
            "test_fraction": 0.0},
    "custom": {"lr": 0.5, "steps": 30, "runs": 5, "aug_passes": 5, "batch_size": 100, "init": "fan_in",
               "dtype": None, "test_fraction": 0.0},
}
SMALL["e2"] = {**SMALL["trans"]}

#: the demo scale (a class demo on a busy laptop: well under a minute): the small scale with fewer runs, steps
#: and augmentation passes, and less data; every other setting is the small scale's
DEMO = {"perm": {"runs": 3, "steps": 20, "aug_passes": 5, "data_size": 100},
        "trans": {"runs": 3, "steps": 40, "aug_passes": 3, "data_size": 200},
        "rot": {"runs": 3, "steps": 15, "aug_passes": 2, "data_size": 100},
        "custom": {"runs": 3, "steps": 20, "aug_passes": 3}}
DEMO["e2"] = {**DEMO["trans"]}

#: the custom experiment is the lab's own: at paper scale it takes §5's common settings and its small lr
PAPER["custom"] = {**COMMON, "lr": Entry(0.5, "lab (not in the paper)"),
                   "batch_size": Entry(100, "lab (not in the paper)"),
                   "init": Entry("fan_in", "lab (not in the paper)")}

#: (a small dtype of None: float32 on CUDA, float64 on CPU, decided by the trainer once the device is known)
INITS = ("reference", "standard", "fan_in")


def setting(experiment: str, scale: str, key: str):
    """The value of ``key`` for ``experiment`` at ``scale`` (demo falls back to small, small to the paper's)."""
    if scale == "demo" and key in DEMO.get(experiment, {}):
        return DEMO[experiment][key]
    if scale in ("demo", "small") and key in SMALL.get(experiment, {}):
        return SMALL[experiment][key]
    return PAPER[experiment][key].value


def markdown_table() -> str:
    """The README's table: one row per (experiment, setting) with the paper's value, its source and the lab's
    deviation."""
    rows = ["| experiment | setting | paper value | source | lab deviation |", "|---|---|---|---|---|"]
    for exp in ("perm", "trans", "rot", "e2"):
        for key, e in PAPER[exp].items():
            rows.append(f"| {exp} | {key} | {_cell(e.value)} | {_cell(e.source)} | {_cell(e.deviation) or '—'} |")
    return "\n".join(rows)


def _cell(value) -> str:
    if isinstance(value, tuple) and value and isinstance(value[0], tuple) and len(value[0]) == 7:  # layers
        value = "; ".join(f"{name} ({after or 'linear'})" for name, _, _, _, _, after, _ in value)
    elif isinstance(value, tuple) and value and isinstance(value[0], tuple):
        value = "; ".join(" ".join(map(str, row)) for row in value)
    elif isinstance(value, tuple):
        value = ", ".join(str(v) for v in value)
    return str(value).replace("|", "/")
