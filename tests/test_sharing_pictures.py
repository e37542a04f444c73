"""The Sharing discovery pane's pictures agree with its numbers (issue 13, item 2).

Each test runs a tiny job through the pane (a thread worker, few steps), then reads what the DynamicMaps DRAW for
the current slider position (the HoloViews elements' data, as the browser gets them) and checks the text beside
them against a partition distance computed here from the drawn 0/1 matrix, by brute force over block matchings
where that is small enough.  Deadlines are hang guards; no test asserts how fast anything runs."""
from __future__ import annotations

import itertools
import re
import time

import holoviews as hv
import numpy as np
import pytest

from lab.sharing.pane import SharingDiscovery
from lab.sharing.plots_hv import MIN_SIDE, TITLE_PX, fit_title, frame_size, weights_coloring
from lab.sharing.partition import partition_distance

from polling import DEADLINE  # noqa: E402  (a hang guard, never a speed requirement)


def _run(pane, timeout=DEADLINE):
    assert pane.start()
    deadline = time.monotonic() + timeout
    while pane.runner.busy and time.monotonic() < deadline:
        time.sleep(0.05)
        pane.poll()
    pane.poll()
    assert not pane.runner.busy


def drawn(hv_pane):
    """The element a HoloViews pane draws now (a DynamicMap evaluated on its stream's last frame)."""
    obj = hv_pane.object
    return obj[()] if isinstance(obj, hv.DynamicMap) else obj


def image(element) -> hv.Image:
    if isinstance(element, hv.Overlay):
        return next(e for e in element if isinstance(e, hv.Image))
    return element


def matrix(element, vdim: int = 0) -> np.ndarray:
    """The matrix drawn, row 0 at the top (the images invert their y axis)."""
    img = image(element)
    return np.asarray(img.dimension_values(img.vdims[vdim], flat=False))


def title(element) -> str:
    return element.opts.get().kwargs["title"]


def brute_distance(a, b) -> int:
    """Entries to move so that partition ``a`` equals ``b``: K minus the best overlap over every one-to-one
    matching of their blocks, tried exhaustively (small cases only)."""
    a_blocks, b_blocks = sorted(set(a)), sorted(set(b))
    small, large = (a_blocks, b_blocks) if len(a_blocks) <= len(b_blocks) else (b_blocks, a_blocks)
    pairs = list(zip(a, b)) if small is a_blocks else list(zip(b, a))
    best = 0
    for image_ in itertools.permutations(large, len(small)):
        match = dict(zip(small, image_))
        best = max(best, sum(match[x] == y for x, y in pairs))
    return len(a) - best


def distance_of(a, b) -> int:
    """The partition distance, by brute force when the blocks are few (else the lab's assignment solver)."""
    if max(len(set(a)), len(set(b))) <= 7:
        return brute_distance(list(a), list(b))
    return partition_distance(a, b)


def shown_distance(pane) -> int:
    """The partition distance the pane's text beside the pictures states."""
    found = re.findall(r"partition distance \*\*(\d+)\*\*", pane._reading.object)
    assert len(found) == 1, pane._reading.object
    return int(found[0])


def check_frame(pane) -> int:
    """The drawn relaxed A, snapped A and W agree with each other and with the text; returns the distance."""
    gt_sorted = np.sort(pane._view["gt"])  # the pictures' rows are sorted by true block
    relaxed, snapped = drawn(pane._a_pane), drawn(pane._snapped_pane)
    A, S = matrix(relaxed), matrix(snapped)
    K = len(gt_sorted)
    assert A.shape == S.shape == (K, K)
    assert set(np.unique(S)) <= {0.0, 1.0} and (S.sum(1) == 1).all()  # a hard partition, one 1 per row
    distance = distance_of(S.argmax(1), gt_sorted)
    assert shown_distance(pane) == distance  # the number in the text is the drawn matrix's
    assert title(snapped).endswith(f"distance {distance}")  # and so is the one in its title
    if not pane._view.get("final", {}).get("merged"):  # unmerged: the snapped A is the drawn relaxed A's argmax
        assert (S[np.arange(K), A.argmax(1)] == 1).all()
    i = pane._slider.value
    np.testing.assert_allclose(np.sort(A.ravel()), np.sort(np.asarray(pane.snapshots[i]).ravel()))
    W = drawn(pane._w_pane)  # W coloured by the drawn partition: as many parameters as the snapped A's columns
    labels = matrix(W, vdim=1)
    assert labels.shape == tuple(pane._view["shape"])
    blocks = len(np.unique(S.argmax(1)))
    assert len(np.unique(labels)) == blocks and title(W).startswith(f"W: {blocks} parameter")
    return distance


def penalty_curve(pane):
    """The partition-distance curve as the penalties figure holds it (Bokeh sources of the live-pane base), the
    marker's point and the dashed step line's place."""
    view = pane.curves["penalties"]
    steps, ys = view.points("shr-penalties", "partition_distance")
    marks = pane._marks["shr-penalties"]
    return steps, ys, (list(marks["shown"].data["x"]), list(marks["shown"].data["y"]), marks["step"].location)


@pytest.mark.parametrize("task, settings", [("conv", dict(steps=30)), ("sum", dict(steps=30)),
                                            ("group", dict(steps=20, restarts=2)),
                                            ("gaussian", dict(steps=60, merge=True))])
def test_the_distance_shown_is_the_drawn_snapped_matrix_s_at_every_slider_position(task, settings, tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task=task, worker="thread", **settings)
    _run(pane)
    n = len(pane.snapshots)
    assert n > 2 and pane._slider.value == n - 1
    final = check_frame(pane)
    assert final == pane._view["final"]["partition_distance"]  # the job's own score of its final partition
    assert "**final, step" in pane._reading.object
    steps, ys, marker = penalty_curve(pane)
    assert marker[1] == [final]  # the curve's marker is the drawn snapshot's
    assert steps == [float(h["step"]) for h in pane.history]  # the finished curve holds every recorded step
    for i in (0, n // 2):  # scrub back: the text and every picture follow the slider
        pane._slider.value = i
        d = check_frame(pane)
        assert d == pane.history[i]["partition_distance"]  # the learner's number for that snapshot
        assert f"**step {pane.history[i]['step']}**" in pane._reading.object
        steps, ys, marker = penalty_curve(pane)
        assert ys[i] == d and marker[0] == [steps[i]] and marker[2] == steps[i]  # the point and the line
    assert ys[0] == distance_of(np.asarray(pane.snapshots[0]).argmax(1), pane._view["gt"])  # starts at A_0's


def test_switching_the_task_rebuilds_every_picture_in_the_new_shape(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="conv", steps=15, worker="thread")
    _run(pane)
    assert matrix(drawn(pane._w_pane), 1).shape == (2, 3) and matrix(drawn(pane._a_pane)).shape == (6, 6)
    old_w, old_pipe = pane._w_pane.object, pane._pipe
    pane.task = "sum"  # the conv run's pictures go: another task is chosen
    assert pane._w_pane.object is not old_w and pane._pipe is not old_pipe
    assert not pane.snapshots and pane._reading.object == "" and title(drawn(pane._w_pane)) == "W"
    pane.positions = 4
    _run(pane)
    W = drawn(pane._w_pane)
    assert matrix(W, 1).shape == (4, 1) and matrix(drawn(pane._a_pane)).shape == (4, 4)
    assert matrix(drawn(pane._gt_pane)).shape == (4, 1)
    opts = image(W).opts.get().kwargs  # sized from the 4 x 1 matrix: taller than wide, no side under the minimum
    assert opts["frame_height"] > opts["frame_width"] >= MIN_SIDE
    check_frame(pane)
    assert old_pipe.data is None or old_pipe.data.get("task") == "conv"  # the old plots never got a sum frame


def test_curves_of_a_saved_run_show_the_last_trial_from_its_first_snapshot(tmp_path):
    """A saved run holds every trial's records but the last trial's snapshots: the curves are that trial's, from
    step 0 (not trial 1's end joined to trial 2's start, the 'jump' of the issue)."""
    pane = SharingDiscovery(results=str(tmp_path), task="conv", steps=10, trials=2, worker="thread")
    _run(pane)
    fresh = SharingDiscovery(results=str(tmp_path))
    assert fresh.load(str(next(tmp_path.iterdir())))
    assert {h["trial"] for h in fresh.history} == {0, 1}
    steps, ys, _ = penalty_curve(fresh)
    assert (np.diff(steps) > 0).all() and steps[0] == 0 and len(steps) == len(fresh.snapshots)
    assert ys[0] == distance_of(np.asarray(fresh.snapshots[0]).argmax(1), fresh._view["gt"])
    assert "trial 2" in fresh._reading.object and "mean of 2 trials" in fresh._status.object
    check_frame(fresh)


def test_the_msr_view_ends_on_the_chosen_sparsity_and_says_so(tmp_path):
    pane = SharingDiscovery(results=str(tmp_path), task="msr", steps=20, tasks=8, sparsity="exclusive",
                            worker="thread")
    last_u = {}
    receive = pane._on_message

    def spy(msg):
        if msg["kind"] == "msr" and msg.get("U") is not None:
            last_u[msg["label"]] = np.array(msg["U"])
        receive(msg)

    pane.runner.on_message = spy
    _run(pane)
    assert list(last_u) == ["msr, none sparsity", "msr, exclusive sparsity"]  # the chosen one ran last
    n_out, n_in = pane._view["n_out"], pane._view["n_in"]
    picture = drawn(pane._u_pane)
    drawn_u = matrix(picture)
    expected = np.abs(last_u["msr, exclusive sparsity"]).reshape(n_out, n_in, -1).max(-1)
    np.testing.assert_allclose(drawn_u, expected)
    other = np.abs(last_u["msr, none sparsity"]).reshape(n_out, n_in, -1).max(-1)
    assert not np.allclose(drawn_u, other)
    assert title(picture) == "max_k |U|: exclusive (chosen)"
    assert "final U of **msr, exclusive sparsity** (the chosen sparsity)" in pane._u_reading.object


@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (5, 1), (2, 3), (6, 6), (16, 16), (68, 70), (1, 400), (400, 400)])
def test_heatmaps_are_sized_from_their_matrix(shape):
    """No side under the minimum, square cells unless a side is clamped, no cell under 2 px, and titles that fit."""
    rows, cols = shape
    w, h = frame_size(rows, cols)
    assert w >= MIN_SIDE and h >= MIN_SIDE
    assert w / cols >= 2 and h / rows >= 2
    if w > MIN_SIDE and h > MIN_SIDE:
        assert abs(w / h - cols / rows) < 0.05 * cols / rows
    plot = weights_coloring(np.arange(rows * cols) % 3, shape)
    opts = image(plot).opts.get().kwargs
    text = plot.opts.get().kwargs["title"]
    assert all(len(line) * TITLE_PX <= opts["frame_width"] for line in text.split("\n"))
    for words in ("A snapped: distance 12", "max_k |U|: exclusive (chosen)", "x" * 40):
        text, width = fit_title(words, w)
        assert width >= w and all(len(line) * TITLE_PX <= width for line in text.split("\n"))
        assert text.replace("\n", " ") == words


def test_the_notebook_figure_titles_the_snapped_matrix_it_draws():
    """sharing_figure (matplotlib): an A whose block {0, 1} is split over two columns at 0.55 / 0.45 draws the
    snapped matrix with that split, and its title's distance is the drawn matrix's; W has its blocks."""
    from lab.sharing.plots_mpl import sharing_figure

    gt = np.array([0, 0, 1, 1, 2, 2])
    A = np.full((6, 6), 0.0)
    A[0, [0, 3]] = 0.55, 0.45
    A[1, [0, 3]] = 0.45, 0.55
    A[[2, 3], 1] = 1.0
    A[[4, 5], 2] = 1.0
    fig = sharing_figure(A, gt, A.argmax(1), (2, 3))
    S = np.asarray(fig.axes[1].images[0].get_array())
    assert (S.sum(1) == 1).all()
    d = distance_of(S.argmax(1), gt)  # rows in gt order (already sorted here)
    assert d == 1 and fig.axes[1].get_title() == f"A snapped: partition distance {d}"
    assert len(np.unique(np.asarray(fig.axes[3].images[0].get_array()))) == 4
