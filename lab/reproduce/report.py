"""The report of a ``lab reproduce`` run: ``report.json`` (every claim with its evidence) and ``report.html``
(a static, self-contained page: the summary table, then each claim with the paper's words, the measurement,
the settings, the note and the figures as embedded PNGs).
"""
from __future__ import annotations

import base64
import html
import json
import time
from pathlib import Path

from .claim import KINDS, PAPERS, UNCOVERED
from .parts import LAYER, percent

CSS_CLASS = {"holds": "ok", "does not hold": "bad", "not shown": "na", "no power at these settings": "warn",
             "no null check": "warn", "no pass/fail form": "na", "error": "bad"}


def verdict(result) -> tuple[str, str]:
    """(text, css class) of a claim's outcome."""
    text = result.verdict
    return text, CSS_CLASS[text]


def coverage(report) -> list[dict]:
    """Every seed paper by its own title: the checks of this report that cover it (id, kind, verdict) and what it
    claims that no check covers yet."""
    from . import load_claims

    registered = load_claims()
    measured = {r.id: r for r in report.results}
    out = []
    for key, title in PAPERS.items():
        ids = [cid for cid, c in registered.items() if c.paper == key]
        out.append({"paper": key, "title": title,
                    "covered": [{"id": cid, "kind": registered[cid].kind,
                                 "verdict": measured[cid].verdict if cid in measured else "not run"} for cid in ids],
                    "uncovered": list(UNCOVERED.get(key, []))})
    return out


#: what each profile runs, in words (the report's header: true for every claim under that profile; each claim's
#: ``paper_settings`` says what it ran against what its paper ran)
PROFILE_TEXT = {
    "quick": "reduced settings that run in minutes on a laptop CPU: smaller data, fewer epochs and steps",
    "full": "larger settings: the papers' own where a 2-core machine can run them, and stand-ins elsewhere "
            "(scikit-learn's 8 x 8 digits for MNIST, CIFAR and ImageNet in thesis chapters 4-5 and the ensembles "
            "poster; small trained networks for the thesis's pretrained models)",
}


def counts_text(counts: dict) -> str:
    """Verdict counts (``Report.counts()``: verdict -> number) as one phrase, leaving out the zeros; ``"none"``
    when every count is zero.

    >>> counts_text({"holds": 3, "does not hold": 0, "error": 1})
    '3 holds, 1 error'
    """
    return ", ".join(f"{v} {k}" for k, v in counts.items() if v) or "none"


def report_dict(report) -> dict:
    """The ``report.json`` object of a ``lab.reproduce.runner.Report`` (``"format": 1``): the run's profile, status,
    device, seed, lab version, creation time and seconds (wall and summed over workers), the verdicts counted in all
    and by kind, the profile's settings in words, the interval method, every seed paper with its coverage
    (``coverage``), the runs shared between claims, each claim's ``ClaimResult.to_dict()`` and the HTML report's
    path."""
    from .. import __version__
    from .stats import LEVEL, METHOD, SEPARATION

    return {"format": 1, "profile": report.profile, "status": report.status, "device": report.device,
            "lab_version": __version__, "created": time.strftime("%Y-%m-%d %H:%M:%S"),
            "seconds": round(report.seconds, 3), "workers": report.workers,
            "process_seconds": round(report.seconds if report.process_seconds is None else report.process_seconds, 3),
            "counts": report.counts(), "papers": PAPERS,
            "counts_by_kind": report.counts_by_kind(), "kinds": KINDS,
            "profile_settings": PROFILE_TEXT.get(report.profile, ""), "seed": report.seed,
            "interval_method": {"level": LEVEL, "method": METHOD, "separation": SEPARATION, "layer": LAYER},
            "draws": draws_summary(report), "provenance": provenance_counts(report),
            "coverage": coverage(report), "shared_runs": report.shared,
            "claims": [r.to_dict() for r in report.results], "report": str(report.html_path)}


def draws_summary(report) -> dict:
    """What the header promises, computed from the claims: {number of claim draws per judged part: how many parts}
    and the fewest and most draws any judged part had (valid draws: the invalid ones among them are left out; a draw
    replaced before the part was read is not among them)."""
    counts: dict = {}
    for r in report.results:
        for p in r.parts:
            if p.get("replicates"):
                left_out = sum("index" in d and not d.get("null") for d in p.get("invalid") or [])
                n = sum(v is not None for v in p["replicates"]) - left_out
                counts[n] = counts.get(n, 0) + 1
    return {"parts_by_draws": {str(k): v for k, v in sorted(counts.items())},
            "fewest": min(counts) if counts else None, "most": max(counts) if counts else None}


def draws_text(report) -> str:
    """``draws_summary`` in words: "judged parts with 3 draws: 57; with 10: 6"."""
    d = draws_summary(report)["parts_by_draws"]
    if not d:
        return "no part judged on draws"
    return "judged parts by their number of claim draws: " + "; ".join(f"{n} draw{'s' if n != '1' else ''}: {k}"
                                                                         for n, k in d.items())


def provenance_counts(report) -> dict:
    """{"measured": n, "kept": n}: the claims this run measured and those read back from an earlier run."""
    out = {"measured": 0, "kept": 0}
    for r in report.results:
        if r.status == "finished":
            out[r.provenance] += 1
    return out


def _rounded(value):
    """``value`` with every float shown to 4 significant digits (display only; report.json keeps full values)."""
    if isinstance(value, float):
        return float(f"{value:.4g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def short(value, limit: int | None = None) -> str:
    """A JSON value as text for the tables, whole (floats to 4 significant digits, dicts as ``key: value`` pairs,
    a missing value as a dash); ``limit`` cuts only where a one-line terminal table needs it."""
    text = readable(value)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def readable(value) -> str:
    """A JSON value as text for the report's tables: None as a dash, booleans as yes / no, floats to 4 significant
    digits, dicts as ``key: value`` pairs separated by semicolons, lists in brackets, anything else as JSON.

    >>> readable({"loss": 0.0123456, "ok": True, "ranks": [1, 2.5]})
    'loss: 0.01235; ok: yes; ranks: [1, 2.5]'
    """
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "; ".join(f"{k}: {readable(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(readable(v) for v in value) + "]"
    return json.dumps(_rounded(value), default=str)


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em} h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em} td,th{border:1px solid #ddd;padding:.25em .5em;
vertical-align:top;text-align:left} th{background:#f5f5f5} caption{text-align:left;font-weight:600;padding:.3em 0}
.ok{background:#e6f4ea;color:#137333;font-weight:600} .bad{background:#fce8e6;color:#a50e0e;font-weight:600}
.na{background:#f1f3f4;color:#555} .warn{background:#fef7e0;color:#8a5a00;font-weight:600}
.kind{font-size:.8em;color:#555;border:1px solid #ccc;border-radius:.3em;padding:0 .3em;display:inline-block} .badge{padding:.1em .5em;border-radius:.3em;white-space:nowrap}
.note{background:#fffbe6;border-left:4px solid #f0c36d;padding:.4em .8em;margin:.6em 0}
img{max-width:100%;margin:.3em 0} code{background:#f5f5f5;padding:0 .2em} details{margin:.4em 0}
"""


def _figure_html(item: dict) -> str:
    from ..plots import reproduce_mpl

    if item.get("kind") == "table":
        return reproduce_mpl.table_html(item)
    if item.get("kind") not in reproduce_mpl.DRAWN:
        return ""
    data = base64.b64encode(reproduce_mpl.png(item)).decode()
    return f"<img alt='{html.escape(item.get('title', ''))}' src='data:image/png;base64,{data}'>"


def _null_text(r) -> str:
    if r.null is None:
        return "none declared"
    outcome = "passes too: no power" if r.null.get("holds") else "fails, as it must"
    return f"{r.null.get('baseline', '')}: {readable(r.null.get('measured'))} ({outcome})"


def _accuracy_text(accuracy) -> str:
    """{"perm": {"nom": 0.9, ..., "chance": 0.5}} as "perm: nom 0.90, aug 0.88 (chance 0.50)"."""
    if not accuracy:
        return ""
    parts = []
    for exp, acc in accuracy.items():
        if not isinstance(acc, dict):
            parts.append(f"{exp}: {readable(acc)}")
            continue
        models = ", ".join(f"{k} {v:.2f}" if isinstance(v, (int, float)) else f"{k} {readable(v)}"
                           for k, v in acc.items() if k not in ("chance", "majority"))
        base = ", ".join(f"{k} {acc[k]:.2f}" for k in ("chance", "majority") if isinstance(acc.get(k), (int, float)))
        parts.append(f"{exp}: {models}" + (f" ({base})" if base else ""))
    return "; ".join(parts)


#: the kinds as short badges (the summary table); the claim's own section spells them out (``KINDS``)
KIND_BADGE = {"hypothesis": "the paper's hypothesis", "lab": "the lab's own check"}


def _kind_badge(r, long: bool = False) -> str:
    if r.kind == "claim":
        return ""
    text = KINDS.get(r.kind, r.kind) if long else KIND_BADGE.get(r.kind, r.kind)
    return f" <span class='kind'>{html.escape(text)}</span>"


def _num(v) -> str:
    if isinstance(v, bool) or v is None:
        return readable(v)
    if isinstance(v, (int, float)):
        return f"{v:.3g}"
    return readable(v)


def part_value(p: dict, null: bool = False) -> str:
    """A part's point value with its interval: ``0.031 [0.012, 0.05]`` (the null's with ``null=True``); the
    interval's level is printed where the part says it (``level_text``)."""
    point = p.get("null_measured" if null else "measured")
    iv = p.get("null_interval" if null else "interval")
    text = _num(point)
    if iv and None not in iv:
        text += f" [{_num(iv[0])}, {_num(iv[1])}]"
    return text


def level_text(p: dict) -> str:
    """The method and real level of a part's interval (layer 2; a yes/no part: its exact tests), else layer 1's
    printed level."""
    if p.get("method"):
        return p["method"]
    if p.get("layer", 1) >= 2:
        what = "an identity read per draw" if p.get("exact") else "a yes/no statistic"
        tests = "; ".join(t for t in (f"sign test p = {p['sign_p']:.3g}" if p.get("sign_p") is not None else "",
                                      f"Fisher's exact p = {p['fisher_p']:.3g} against the null"
                                      if p.get("fisher_p") is not None else "") if t)
        return f"{what}: no interval, exact tests ({tests})" if tests else f"{what}: no interval"
    return "95 % percentile bootstrap (layer 1: with three draws, their range)"


def difference_value(p: dict) -> str:
    """The claim - null difference's interval, with its method (layer 2), or a dash."""
    iv = p.get("difference")
    if not iv or None in iv:
        return "—"
    return f"[{_num(iv[0])}, {_num(iv[1])}]"


def _part_state(holds, null_holds, verdict=None) -> str:
    if verdict is not None:
        return verdict
    if holds is None:
        return "no pass/fail form"
    if not holds:
        return "not met"
    return {True: "met, null met too", False: "met, null fails", None: "met, no null"}[null_holds]


def summary_measured(r, limit: int = 6) -> str:
    """The summary table's short measurement: each part's point value and interval against its null's; a claim
    without parts shows at most ``limit`` of its numbers (the claim's section has them all)."""
    if r.parts and any(p.get("replicates") or p.get("interval") for p in r.parts):
        return "; ".join(f"{p['name']}: {part_value(p)} (null {part_value(p, True)})"
                         + (f" [{percent(p['level'])}]" if p.get("level") else "") for p in r.parts)
    value = r.measured
    if isinstance(value, dict) and len(value) > limit:
        shown = dict(list(value.items())[:limit])
        return readable(shown) + f"; and {len(value) - limit} more in the claim's section"
    return readable(value)


def criterion_short(r) -> str:
    """The criterion as the summary shows it: each part's rule, else the criterion's first sentence."""
    rules = [f"{p['name']}: {p['rule']}" for p in r.parts if p.get("rule")]
    if rules:
        return "; ".join(rules)
    text = r.criterion or "—"
    return text if len(text) <= 160 else text[: text.rfind(" ", 0, 160)] + " (in full below)"


def summary_table_html(report) -> str:
    """The report's summary table (HTML): one row per claim with its id (linking to its section) and kind, where the
    paper says it, the criterion (each part's rule) and its version, the paper's value, the measurement (each part
    with its 95 % interval against its null's; the trained models' accuracy where given), the verdict, and the
    seconds (the claim's own plus its share of the shared runs)."""
    rows = []
    for r in report.results:
        text, css = verdict(r)
        acc = _accuracy_text(r.accuracy)
        rows.append(f"<tr><td><a href='#{r.id}'><code>{r.id}</code></a>{_kind_badge(r)}</td>"
                    f"<td>{html.escape(r.where)}</td><td>{html.escape(criterion_short(r))}"
                    f"<br><small>version {r.criterion_version}</small></td>"
                    f"<td>{html.escape(short(r.paper_value))}</td>"
                    f"<td>{html.escape(summary_measured(r))}"
                    + (f"<br><small>accuracy: {html.escape(acc)}</small>" if acc else "") +
                    f"</td><td><span class='badge {css}'>{text}</span></td>"
                    f"<td>{r.seconds:.1f} + {r.share_seconds:.1f}</td></tr>")
    return ("<table><thead><tr><th>claim</th><th>where</th><th>criterion (each part's rule)</th>"
            "<th>the paper says</th><th>the lab measures: each part [interval] (its null) [the interval's level]</th>"
            "<th>verdict</th>"
            "<th>s: own + share of shared runs</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def parts_html(r) -> str:
    """The table of a claim's criterion parts (HTML; ``""`` for a claim without parts): each part's rule, what it
    measured with its 95 % interval and its draws, its null (the competing explanation) measured the same way, and
    the claim - null difference's interval (separation), and the part's verdict with its reasons (invalid draws with
    their seeds, no power, too few draws).  ``r`` is a ``ClaimResult``."""
    if not r.parts:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(str(p['name']))}</td><td>{html.escape(p.get('rule') or '—')}</td>"
        f"<td>{html.escape(part_value(p))}<br><small>{html.escape(level_text(p))}; "
        f"{len(p.get('replicates') or [])} draws: {html.escape(readable(p.get('replicates') or []))}</small></td>"
        f"<td>{html.escape(p.get('null') or '—')}</td>"
        f"<td>{html.escape(part_value(p, True))}<br><small>{len(p.get('null_replicates') or [])} draws: "
        f"{html.escape(readable(p.get('null_replicates') or []))}</small></td>"
        f"<td>{html.escape(difference_value(p))}<br><small>{html.escape(p.get('difference_method') or '')}"
        + (f"; Fisher p = {p['fisher_p']:.3g}" if p.get("fisher_p") is not None else "") + "</small></td>"
        f"<td>{html.escape(_part_state(p.get('holds'), p.get('null_holds'), p.get('verdict')))}"
        + "".join(f"<br><small>{html.escape(why)}</small>" for why in p.get("reasons") or [])
        + "".join(f"<br><small>invalid draw, seed {html.escape(str(d.get('seed')))}"
                  f"{' (null)' if d.get('null') else ''}: {html.escape(str(d.get('why')))}</small>"
                  for d in p.get("invalid") or []) + "</td></tr>" for p in r.parts)
    return ("<table><caption>The criterion's parts, each judged on its own draws against its own null (read by the "
            "same statistic): a part holds when its interval clears the threshold and the claim is separated from "
            "its null</caption><thead><tr><th>part</th><th>rule</th><th>measured [interval]</th>"
            "<th>null: the competing explanation</th><th>null measured [interval]</th><th>claim − null [interval]"
            "</th><th>part's verdict</th></tr></thead><tbody>" + rows + "</tbody></table>")


def _registered_text(r) -> str:
    reg = r.criterion_registered or {}
    if not reg.get("date"):
        return ""
    why = f": {reg['reason']}" if reg.get("reason") else ""
    return f"<br><small>registered {html.escape(reg['date'])}{html.escape(why)}</small>"


def history_html(r) -> str:
    """The table of the earlier versions of a claim's criterion, this run judged under each: version, date
    registered, criterion, why it changed, verdict (HTML; ``""`` when the criterion has no earlier version)."""
    if not r.criterion_history:
        return ""
    rows = "".join(f"<tr><td>{h['version']}</td><td>{html.escape(h.get('date', ''))}</td>"
                   f"<td>{html.escape(h.get('criterion', ''))}</td><td>{html.escape(h.get('reason') or '—')}</td>"
                   f"<td>{html.escape(h.get('verdict', ''))}"
                   + (f"<br><small>{html.escape(readable(h['measured']))}</small>" if h.get("measured") is not None
                      else "")
                   + (f"<br><small>{html.escape(h['why'])}</small>" if h.get("why") else "") + "</td></tr>"
                   for h in r.criterion_history)
    return (f"<table><caption>Earlier versions of the criterion, this run judged under each (version "
            f"{r.criterion_version} decides the verdict)</caption><thead><tr><th>version</th><th>registered</th>"
            "<th>criterion</th><th>why it changed</th><th>this run's verdict</th></tr></thead><tbody>" + rows
            + "</tbody></table>")


def papers_html(report) -> str:
    """The seed papers by their titles: the checks covering each, and its claims not yet covered."""
    items = []
    for p in coverage(report):
        covered = ", ".join((f"<code>{c['id']}</code>" if c["verdict"] == "not run"  # no section to link to
                             else f"<a href='#{c['id']}'><code>{c['id']}</code></a>") + f" ({html.escape(c['verdict'])}"
                            + ("" if c["kind"] == "claim" else f", {html.escape(c['kind'])}") + ")"
                            for c in p["covered"]) or "none yet"
        uncovered = "".join(f"<li>{html.escape(u)}</li>" for u in p["uncovered"])
        items.append(f"<li><b>{html.escape(p['title'])}</b><br>covered: {covered}"
                     + (f"<br>not yet covered:<ul>{uncovered}</ul>" if uncovered else "") + "</li>")
    return "<h2 id='papers'>The seed papers</h2><ul>" + "".join(items) + "</ul>"


def shared_html(report) -> str:
    """The runs shared between claims as a collapsed table (HTML): each run's label, its seconds and the claims that
    used it; ``""`` when no run was shared."""
    if not report.shared:
        return ""
    rows = "".join(f"<tr><td>{html.escape(label)}</td><td>{e['seconds']:.1f}</td>"
                   f"<td>{html.escape(', '.join(e.get('used_by') or [e.get('built_by') or '']))}</td></tr>"
                   for label, e in report.shared.items())
    return ("<details><summary>Runs shared between claims (timed apart from the claims)</summary><table><thead>"
            "<tr><th>run</th><th>s</th><th>used by</th></tr></thead><tbody>" + rows + "</tbody></table></details>")


def claim_html(r) -> str:
    """One claim's section of the page (HTML, anchored at its id): the verdict and kind, the paper's title, place and
    words, the paper's value, the criterion with its version and registration, the settings against the paper's,
    the replicates, the measurement, the null check, the models' accuracy, the seconds, the note, the criterion's
    parts and earlier versions, the named variants, every setting used and the evidence (tables, and figures as
    embedded PNGs).  ``r`` is a ``ClaimResult``."""
    text, css = verdict(r)
    settings = "".join(f"<tr><td><code>{html.escape(str(k))}</code></td><td>{html.escape(short(v))}</td></tr>"
                       for k, v in r.settings.items())
    figures = "".join(_figure_html(item) for item in r.evidence)
    note = f"<div class='note'>{html.escape(r.note)}</div>" if r.note else ""
    resumed = " (kept from an earlier run)" if r.resumed else " (measured in this run)"
    shared = "".join(f"; shared run '{html.escape(s['run'])}' {s['seconds']:.1f} s" for s in r.shared)
    acc = _accuracy_text(r.accuracy)
    variants = ""
    if r.variants:
        variants = ("<table><caption>Named variants, run side by side (they do not decide the verdict)</caption>"
                    "<thead><tr><th>variant</th><th>what</th><th>measured</th><th>criterion met</th></tr></thead>"
                    "<tbody>" + "".join(f"<tr><td>{html.escape(str(v.get('name', '')))}</td>"
                                        f"<td>{html.escape(str(v.get('what', '')))}</td>"
                                        f"<td>{html.escape(readable(v.get('measured')))}</td>"
                                        f"<td>{html.escape(readable(v.get('holds')))}</td></tr>"
                                        for v in r.variants) + "</tbody></table>")
    return (f"<h2 id='{r.id}'><code>{r.id}</code> <span class='badge {css}'>{text}</span>{_kind_badge(r, long=True)}</h2>"
            f"<p><b>{html.escape(PAPERS.get(r.paper, r.paper))}</b>, {html.escape(r.where)}</p>"
            f"<p><i>{html.escape(r.claim)}</i></p>"
            f"<table><tr><th>paper</th><td>{html.escape(short(r.paper_value))}</td></tr>"
            f"<tr><th>criterion (version {r.criterion_version})</th><td>{html.escape(r.criterion or '—')}"
            + _registered_text(r) + "</td></tr>"
            + (f"<tr><th>settings against the paper's</th><td>{html.escape(r.paper_settings)}</td></tr>"
               if r.paper_settings else "")
            + (f"<tr><th>replicates</th><td>{html.escape(readable(r.replicates))}</td></tr>" if r.replicates else "")
            + (f"<tr><th>settings chosen on</th><td>{html.escape(r.chosen_on)}</td></tr>" if r.chosen_on else "")
            + paper_numbers_html(r)
            + f"<tr><th>lab</th><td>{html.escape(short(r.measured))}</td></tr>"
            f"<tr><th>null check</th><td>{html.escape(_null_text(r))}</td></tr>"
            + (f"<tr><th>accuracy</th><td>{html.escape(acc)}</td></tr>" if acc else "") +
            f"<tr><th>seconds</th><td>{r.seconds:.1f} (the claim's own) + {r.share_seconds:.1f} (its share of the "
            f"shared runs){resumed}{shared}</td></tr></table>{note}{parts_html(r)}{history_html(r)}"
            f"{variants}<details><summary>settings</summary><table>{settings}</table></details>{figures}")


def paper_numbers_html(r) -> str:
    """A table row: the paper's printed numbers, each read by the claim's statistic against its threshold."""
    if not r.paper_numbers:
        return ""
    items = "; ".join(f"{n['part']}: {_num(n['value'])} {n['op']} {_num(n['threshold'])} "
                      f"({'met' if n['meets'] else 'NOT met'}; {n['source']})" for n in r.paper_numbers)
    return f"<tr><th>the paper's own numbers under the criterion</th><td>{html.escape(items)}</td></tr>"


def counts_html(report) -> str:
    """The verdicts counted apart by kind: the papers' claims, the papers' hypotheses, the lab's own checks."""
    rows = "".join(f"<li>{html.escape(KINDS.get(kind, kind))}: {sum(c.values())} ({html.escape(counts_text(c))})"
                   "</li>" for kind, c in report.counts_by_kind().items())
    return f"<ul>{rows}</ul>"


def html_page(report) -> str:
    """The whole ``report.html``: one self-contained page (its CSS inline, figures as embedded PNGs, nothing fetched)
    with the header (the verdicts counted by kind, device, seed, seconds, the profile in words and how claims are
    judged), the summary table, the shared runs, the seed papers' coverage and each claim's section."""
    from .stats import METHOD, SEPARATION

    stopped = "<p class='note'>This run was stopped: the claims below are those that finished.</p>" \
        if report.status == "stopped" else ""
    provenance = provenance_counts(report)
    n = len(report.results)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Symmetry Lab: reproduction report "
            f"({report.profile})</title><style>{CSS}</style></head><body>"
            f"<h1>Symmetry Lab — reproduction report ({html.escape(report.profile)})</h1>"
            f"<p>{n} check{'s' if n != 1 else ''} ({html.escape(counts_text(report.counts()))}), by kind:</p>"
            f"{counts_html(report)}<p>Device {html.escape(report.device)}; seed {report.seed}; {report.seconds:.0f} s. Each claim is "
            f"measured with the lab's own functions. This is the <b>{html.escape(report.profile)}</b> profile: "
            f"{html.escape(PROFILE_TEXT.get(report.profile, ''))}; each claim states what it ran against what its "
            f"paper ran. A criterion is registered with a version before the runs that judge it; a claim judged "
            f"under an earlier version shows that verdict too. Each part of a criterion is judged on its own draws "
            f"({html.escape(METHOD)}; each interval's level is printed beside it) against its own null, a competing "
            f"explanation read by the same statistic ({html.escape(SEPARATION)}). A part <b>holds</b> when its "
            f"interval clears the threshold and the claim is separated from its null; it <b>does not hold</b> when "
            f"the interval lies wholly on the wrong side; it is <b>not shown</b> when the interval straddles the "
            f"threshold; it has <b>no power at these settings</b> when the null is not separated from the claim, the "
            f"models do not beat the trivial baseline, a best over a grid lies at its edge, or too few draws are "
            f"valid. A claim's verdict is its weakest part's (no power, then not shown, then does not hold). "
            f"{html.escape(draws_text(report))}. Claims measured in this run: {provenance['measured']}; "
            f"kept from an earlier run: {provenance['kept']}.</p>{stopped}"
            f"{summary_table_html(report)}{shared_html(report)}{papers_html(report)}"
            + "".join(claim_html(r) for r in report.results) + "</body></html>")


def write_report(report) -> None:
    """Write ``report.json`` (``report_dict``, strict JSON: non-finite numbers become null with a reason,
    ``lab.runstore.to_json``) and ``report.html`` (``html_page``) into ``report.directory``, creating it; each file
    is replaced atomically (``lab.runstore.atomic_file``), so a reader never sees half of one."""
    from ..runstore import atomic_file, to_json

    report.directory.mkdir(parents=True, exist_ok=True)
    with atomic_file(report.json_path) as tmp:
        Path(tmp).write_text(json.dumps(to_json(report_dict(report)), indent=1, allow_nan=False))
    with atomic_file(report.html_path) as tmp:
        Path(tmp).write_text(html_page(report), encoding="utf-8")


def text_table(report) -> str:
    """The lines ``lab reproduce`` prints: one per claim."""
    width = max((len(r.id) for r in report.results), default=10)
    lines = [f"{'claim':<{width}}  {'verdict':<26} {'seconds':>8}  lab (paper)"]
    for r in report.results:
        text, _ = verdict(r)
        lines.append(f"{r.id:<{width}}  {text:<26} {r.total_seconds:>8.1f}  {short(summary_measured(r), 70)} "
                     f"({short(r.paper_value, 40)})")
    by_kind = "; ".join(f"{KINDS.get(k, k)}: {counts_text(c)}" for k, c in report.counts_by_kind().items())
    lines.append(by_kind + f"; report: {report.html_path}")
    return "\n".join(lines)
