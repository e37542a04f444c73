"""Every numeric box of every job pane: a value outside its field's declared range is kept as typed, named inline
beside Start with the range (``**Label**: a whole number from 1 to 4,096; got 0``), and Start stays disabled until
it is fixed (issue 48, item 5: no silent snap back to the last good value, never "unexpected").  The same for an
empty box of a field that needs a value, and for a refusal that names a command-line flag (said with the box's
label on the page)."""
from __future__ import annotations

import math

import pytest

from lab.dashboard.config_params import allowed
from lab.experiments import FAMILIES

JOB_TABS = sorted({f.pane: n for n, f in FAMILIES.items() if f.pane and n != "basis"}.values())


def _pane(family: str, tmp_path):
    return FAMILIES[family].pane_class()(results=str(tmp_path))


def _outside(o):
    """A value outside the option's declared range (None when every number of its type is allowed)."""
    if o.low is not None:
        return o.low if o.positive else (o.low - 1 if o.type is int else o.low - 0.5)
    if o.high is not None:
        return o.high + 1
    return math.nan if o.type is float else None


@pytest.mark.parametrize("family", JOB_TABS)
def test_every_numeric_box_names_its_range_and_holds_start(family, tmp_path):
    pane = _pane(family, tmp_path)
    assert pane._field_labels, f"{family}: its numeric boxes are made with JobPane._number"
    assert not pane._invalid.visible and not pane._start_b.disabled, pane._invalid.object
    judged = 0
    for name, label in pane._field_labels.items():
        if not pane._field_applies(name):
            continue
        o, before = pane._option(name), getattr(pane, name)
        bad = _outside(o)
        if bad is None:
            continue
        setattr(pane, name, bad)
        assert getattr(pane, name) == bad or (isinstance(bad, float) and math.isnan(getattr(pane, name)))
        assert pane._start_b.disabled, f"{family}.{name} = {bad}: Start still enabled"
        assert pane._invalid.visible and pane._invalid.object.startswith(f"**{label}**: {allowed(o)}; got "), \
            pane._invalid.object
        assert "unexpected" not in pane._invalid.object
        if not o.optional:  # an empty box of a field that needs a value
            setattr(pane, name, None)
            assert pane._start_b.disabled and pane._invalid.object.endswith("got an empty box")
        setattr(pane, name, before)
        assert not pane._invalid.visible and not pane._start_b.disabled, (name, pane._invalid.object)
        judged += 1
    assert judged >= 2


def test_a_box_of_another_task_is_not_judged(tmp_path):
    """Sharing discovery shows only the chosen task's boxes: a bad value in a hidden one does not hold Start."""
    pane = _pane("sharing", tmp_path)
    pane.task = "conv"
    pane.K = 0  # the gaussian task's box, hidden for conv
    assert not pane._invalid.visible and not pane._start_b.disabled
    pane.task = "gaussian"
    assert pane._start_b.disabled and pane._invalid.object.startswith("**K**")


def test_a_relation_between_fields_and_a_limit_are_said_too(tmp_path):
    pane = _pane("sharing", tmp_path)
    pane.param.update(task="gaussian", K=3, blocks=5)
    assert pane._start_b.disabled and "blocks (5) cannot exceed K (3)" in pane._invalid.object
    pane.blocks = 2
    assert not pane._start_b.disabled and not pane._invalid.visible


def test_a_flag_in_a_refusal_is_said_with_the_boxs_label(tmp_path):
    pane = _pane("bounds", tmp_path)
    words = pane._in_words("--dims: 'x' is not a whole number; --data-dir applies to --data mnist")
    assert "--" not in words
    assert words.startswith(f"**{pane._labels['dims']}**: 'x'")
    assert "**data dir**" in words or f"**{pane._labels.get('data_dir')}**" in words
    assert pane._in_words("a-b --x-y") == "a-b **x y**"  # a dash inside a word is not a flag


def test_a_box_typed_in_the_browser_keeps_its_value(tmp_path):
    """As a browser's change arrives: the number typed stays in the box (no snap back), and fixing it clears the
    message."""
    pane = _pane("ensembles", tmp_path)
    box = next(w for w in pane.runner._widgets() if getattr(w, "label", "") == pane._field_labels["members"])
    box._process_events({"value": 100000})
    assert box.value == pane.members == 100000
    assert pane._start_b.disabled and pane._invalid.object.endswith("got 100,000")
    box._process_events({"value": 8})
    assert not pane._start_b.disabled and not pane._invalid.visible
