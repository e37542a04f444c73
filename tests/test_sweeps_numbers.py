"""The Sweeps tab reads every number of a point's summary (issue 48): nested numbers are index columns under dotted
names (``s.nom.dist_from_E``), a family's ``numbers`` hook adds plain names (a one-strategy dynamics point's
``dist_from_E``), the y list offers results only (summary numbers that echo a setting of the point are left out;
``seconds`` stays but is never the first shown: the family's ``headline`` is), every point's summary line shows its
numbers, and an index written before nested numbers were kept still plots (its columns recomputed from ``summary``).

The README's own example sweep (its YAML block, with the fewest steps and runs its options allow) runs in-process,
point by point through ``run_point`` -- what each Dask task calls -- and opens in the tab."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import yaml
from bokeh.document import Document

from lab.experiments import FAMILIES
from lab.sweeps import SweepStore, parse_sweep, point_id
from lab.sweeps.aggregate import TIMINGS, aggregate, echoes, first_quantity, quantities, results
from lab.sweeps.pane import Sweeps, summary_line
from lab.sweeps.store import MAX_NUMBERS, NUMBERED, summary_columns, summary_numbers, with_numbers

ROOT = Path(__file__).resolve().parents[1]


def readme_sweep() -> str:
    """The sweep file the README shows in its Sweeps paragraph (its first ```yaml block after ``**Sweeps**``)."""
    text = (ROOT / "README.md").read_text()
    start = text.index("**Sweeps** (`lab.sweeps`)")
    block = re.search(r"```yaml\n(.*?)```", text[start:], re.S)
    assert block, "the README's Sweeps paragraph has no ```yaml block"
    return block.group(1)


def _pane(**kw) -> Sweeps:
    pane = Sweeps(**kw)
    pane.__panel__().get_root(Document())  # the layout builds into Bokeh models, no browser
    return pane


def _medians(fig) -> dict:
    """{series label: its median line's data} of the aggregate figure."""
    out = {}
    for r in fig.renderers:
        if r.name and r.name.startswith("swp-median-") and r.name[len("swp-median-"):].isdigit():
            out[r.data_source.data["series"][0]] = r.data_source.data
    return out


# ---------------------------------------------------------------------------------------------- the numbers read
def test_nested_numbers_are_dotted_columns_and_the_familys_hook_adds_names():
    summary = {"best": 0.5, "ok": True, "name": "x", "none": None, "nan": math.nan, "list": [1, 2],
               "nom": {"dist_from_E": 0.25, "steps": 50, "deep": {"n": 3}, "why": "text"}}
    assert summary_numbers(summary) == {"best": 0.5, "ok": 1.0, "nom.dist_from_E": 0.25, "nom.steps": 50.0,
                                        "nom.deep.n": 3.0}
    assert summary_columns({"a": 1, "b": {"c": 2.5}}) == {"s.a": 1.0, "s.b.c": 2.5}  # the old top-level names kept
    dynamics = FAMILIES["dynamics"]
    one = {"nom": {"dist_from_E": 0.25, "loss": 0.1, "steps": 50}}
    assert summary_numbers(one, dynamics) == {"nom.dist_from_E": 0.25, "nom.loss": 0.1, "nom.steps": 50.0,
                                              "dist_from_E": 0.25, "loss": 0.1, "steps": 50.0}
    two = {"nom": {"dist_from_E": 0.25}, "equi": {"dist_from_E": 0.0}}
    assert summary_numbers(two, dynamics) == {"nom.dist_from_E": 0.25, "equi.dist_from_E": 0.0}  # no plain names

    class Clash:  # a hook never replaces a name the summary itself gives
        numbers = staticmethod(lambda s: {"best": 9.0, "extra": 2, "text": "no"})

    assert summary_numbers({"best": 0.5}, Clash) == {"best": 0.5, "extra": 2.0}
    assert len(summary_numbers({f"k{i}": i for i in range(MAX_NUMBERS + 10)})) == MAX_NUMBERS
    assert dynamics.headline == "dist_from_E" and FAMILIES["ensembles"].headline == "slope"


def _ensembles_index():
    """An ensembles-like index by hand: members swept, steps fixed, two seeds; the summary echoes members, steps
    (and the seed), and holds the slope, the time taken, nested accuracies and an ``lr`` that is not the one set."""
    import pandas as pd

    rows = []
    for members in (4, 8):
        for seed in (0, 1):
            settings = {"members": members, "steps": 10, "seed": seed, "lr": 0.01}
            summary = {"sizes": [1, 2, 4], "slope": -0.5 + 0.01 * members + 0.001 * seed, "members": members,
                       "steps": 10, "seed": seed, "lr": 0.5, "seconds": 1.0 + seed + members,
                       "accuracy": {"ensemble": 0.9, "member_median": 0.8 + 0.01 * seed}}
            rows.append({"point": point_id(settings), "status": "done", "settings": json.dumps(settings),
                         "summary": json.dumps(summary), "finished": 1.7e9 + len(rows), "seconds": 2.0,
                         "x.members": members, "x.seed": seed, **summary_columns(summary)})
    return pd.DataFrame(rows)


def test_echoed_settings_are_not_offered_and_seconds_is_not_the_first_y():
    df = _ensembles_index()
    options = {o.name for o in FAMILIES["ensembles"].config.declarations()}
    assert set(quantities(df)) >= {"members", "steps", "seed", "slope", "seconds", "lr"}
    assert set(echoes(df, options)) == {"members", "steps", "seed"}
    offered = results(df, options)
    assert offered == ["slope", "lr", "seconds", "accuracy.ensemble", "accuracy.member_median"]  # lr: not the echo
    assert first_quantity(df, offered, "slope") == "slope"
    assert first_quantity(df, offered, "") == "slope"  # the first result that varies
    assert first_quantity(df, ["seconds", "accuracy.ensemble"], "") == "accuracy.ensemble"  # a timing: never first
    assert first_quantity(df, list(TIMINGS[:1]), "") == "seconds"  # unless it is all there is
    # points of several strategies each: the headline's first nested column
    assert first_quantity(df, ["slope", "nom.loss", "nom.slope", "equi.slope"], "dist") == "slope"
    assert first_quantity(df, ["nom.loss", "nom.slope", "equi.slope"], "slope") == "nom.slope"
    # the settings alone say what is echoed, without the family's option names
    assert set(echoes(df)) == {"members", "steps", "seed"}


def test_an_ensembles_store_offers_results_only_in_the_tab(tmp_path):
    store = SweepStore(tmp_path / "ens")
    store.write_spec("experiment: ensembles\nfixed: {steps: 10, lr: 0.01}\ngrid: {members: [4, 8]}\nseeds: 2\n")
    store.append(_ensembles_index().to_dict("records"))
    pane = _pane(results=str(tmp_path), store=str(store.root))
    assert not pane._error.visible, pane._error.object
    offered = list(pane._y_w.options)
    assert "members" not in offered and "steps" not in offered and "seed" not in offered
    assert "seconds" in offered and pane._y_w.value == "slope" and pane._x_w.value == "members"
    assert len(_medians(pane._figure_pane.object)["slope"]["median"]) == 2
    note = pane._point_note.object
    assert "slope" in note and "accuracy.member_median" in note and "members 4" not in note


# ---------------------------------------------------------------------------------------------- the README's sweep
def run_readme_sweep(root: Path):
    """The README's example sweep, every point run in-process by ``run_point`` (the fewest steps and runs), in the
    store ``root``; returns ``(store, spec)``."""
    import torch

    from lab.sweeps.task import run_point

    data = yaml.safe_load(readme_sweep())
    family = parse_sweep(data).family()
    config = family.config
    data["fixed"] = {**data.get("fixed", {}), "steps": config.option_named("steps").low,
                     "runs": config.option_named("runs").low}
    text = yaml.safe_dump(data, sort_keys=False)
    spec = parse_sweep(data)
    store = SweepStore(root)
    store.write_spec(text)
    threads = torch.get_num_threads()
    try:
        rows = [run_point(spec.experiment, settings, point_id(settings), str(store.root), spec.axis_names)
                for settings in spec.points()]
    finally:
        torch.set_num_threads(threads)  # run_point sets one compute thread, as a Dask worker's task
    assert [r["error"] for r in rows if r["status"] != "done"] == []
    store.append(rows)
    return store, spec


@pytest.fixture(scope="module")
def readme_store(tmp_path_factory):
    """The README's example sweep run into a store under ``<tmp>/sweeps``."""
    return run_readme_sweep(tmp_path_factory.mktemp("readme") / "sweeps" / "readme")


def test_the_readmes_sweep_plots_in_the_sweeps_tab(readme_store):
    store, spec = readme_store
    assert spec.experiment == "dynamics" and spec.size() == 12
    df = store.frame()
    assert {"s.nom.dist_from_E", "s.equi.dist_from_E", "s.dist_from_E", "s.loss"} <= set(df.columns)
    assert df[NUMBERED].all() and with_numbers(df) is df  # written with every number: nothing to recompute
    pane = _pane(results=str(store.root.parent))
    assert pane.store is not None and pane.store.root == store.root, pane._error.object
    status = pane._status.object
    assert "12 points" in status and "**12 done**" in status and "0 failed" in status and "not run yet" not in status
    offered = list(pane._y_w.options)
    assert offered and pane._y_w.value == "dist_from_E" != "seconds"
    assert {"dist_from_E", "dist_from_init", "loss", "nom.dist_from_E", "equi.loss"} <= set(offered)
    assert not {"steps", "runs", "nom.steps", "equi.runs"} & set(offered)  # settings echoed, not results
    assert (pane._x_w.value, pane._group_w.value) == ("group", "strategies")
    medians = _medians(pane._figure_pane.object)
    assert set(medians) == {"strategies = nom", "strategies = equi"}
    assert all(len(d["median"]) == 2 and list(d["n"]) == [3, 3] for d in medians.values())
    assert max(medians["strategies = equi"]["median"]) < 1e-6 < min(medians["strategies = nom"]["median"])
    assert "no summary number" not in pane._figure_pane.object.title.text
    for point in pane._points:  # every point's summary line shows its numbers
        pane._point_w.value = point
        summary = pane._point_note.object.split("summary: ", 1)[1]
        assert re.search(r"(nom|equi)\.dist_from_E \S", summary) and "steps" not in summary, summary


def test_an_index_written_before_nested_numbers_still_plots(readme_store, tmp_path):
    """The same points as the old code indexed them (no ``s.`` column: the dynamics summary has no top-level
    number), one of them failed: the tab recomputes the numbers from each row's summary and plots them."""
    store, _ = readme_store
    old = SweepStore(tmp_path / "sweeps" / "old")
    old.write_spec((store.root / "sweep.yaml").read_text())
    rows = [{k: v for k, v in r.items() if not k.startswith("s.") and k != NUMBERED}
            for r in store.frame().to_dict("records")]
    rows[0].update(status="failed", error="RuntimeError: out of luck", summary=None, run=None)
    old.append(rows)
    assert not [c for c in old.frame().columns if c.startswith("s.")]
    renumbered = with_numbers(old.frame(), parse_sweep(yaml.safe_load(readme_sweep())).family)
    assert renumbered["s.dist_from_E"].notna().sum() == 11
    pane = _pane(results=str(tmp_path / "sweeps"))
    assert pane.store.root == old.root and pane._y_w.value == "dist_from_E"
    assert "**11 done**" in pane._status.object and "1 failed" in pane._status.object
    medians = _medians(pane._figure_pane.object)
    assert sum(sum(d["n"]) for d in medians.values()) == 11
    want = aggregate(renumbered, "group", "dist_from_E", "strategies")
    assert sorted(want["median"]) == sorted(m for d in medians.values() for m in d["median"])


def test_a_summary_line_names_nested_numbers_and_top_level_texts():
    line = summary_line({"model": "mlp", "best": 0.123456, "nom": {"loss": 0.5, "ok": True, "why": "x"},
                         "steps": 10}, echoed={"steps"})
    assert line == "best 0.1235 · nom.loss 0.5 · nom.ok True · model mlp"
    assert summary_line({}) == "(no number)"
    many = summary_line({f"k{i}": i for i in range(30)})
    assert many.endswith("· … 6 more")
