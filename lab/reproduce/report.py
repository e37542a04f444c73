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

from .claim import PAPERS

VERDICT = {True: ("holds", "ok"), False: ("does not hold", "bad"), None: ("no pass/fail form", "na")}


def verdict(result) -> tuple[str, str]:
    """(text, css class) of a claim's outcome."""
    if result.status == "error":
        return "error", "bad"
    return VERDICT[result.holds]


def report_dict(report) -> dict:
    from .. import __version__

    return {"format": 1, "profile": report.profile, "status": report.status, "device": report.device,
            "lab_version": __version__, "created": time.strftime("%Y-%m-%d %H:%M:%S"),
            "seconds": round(report.seconds, 3), "counts": report.counts(), "papers": PAPERS,
            "claims": [r.to_dict() for r in report.results], "report": str(report.html_path)}


def _rounded(value):
    """``value`` with every float shown to 4 significant digits (display only; report.json keeps full values)."""
    if isinstance(value, float):
        return float(f"{value:.4g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def short(value, limit: int = 160) -> str:
    """A JSON value as one line of text for the tables (floats to 4 significant digits)."""
    if isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(_rounded(value), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em} h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em} td,th{border:1px solid #ddd;padding:.25em .5em;
vertical-align:top;text-align:left} th{background:#f5f5f5} caption{text-align:left;font-weight:600;padding:.3em 0}
.ok{background:#e6f4ea;color:#137333;font-weight:600} .bad{background:#fce8e6;color:#a50e0e;font-weight:600}
.na{background:#f1f3f4;color:#555} .badge{padding:.1em .5em;border-radius:.3em;white-space:nowrap}
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


def summary_table_html(report) -> str:
    rows = []
    for r in report.results:
        text, css = verdict(r)
        rows.append(f"<tr><td><a href='#{r.id}'><code>{r.id}</code></a></td><td>{html.escape(r.paper)}</td>"
                    f"<td>{html.escape(r.where)}</td><td>{html.escape(short(r.paper_value))}</td>"
                    f"<td>{html.escape(short(r.measured))}</td><td><span class='badge {css}'>{text}</span></td>"
                    f"<td>{r.seconds:.1f}</td></tr>")
    return ("<table><thead><tr><th>claim</th><th>source</th><th>where</th><th>the paper says</th>"
            "<th>the lab measures</th><th>verdict</th><th>s</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table>")


def claim_html(r) -> str:
    text, css = verdict(r)
    settings = "".join(f"<tr><td><code>{html.escape(str(k))}</code></td><td>{html.escape(short(v, 400))}</td></tr>"
                       for k, v in r.settings.items())
    figures = "".join(_figure_html(item) for item in r.evidence)
    note = f"<div class='note'>{html.escape(r.note)}</div>" if r.note else ""
    resumed = " (kept from an earlier run)" if r.resumed else ""
    return (f"<h2 id='{r.id}'><code>{r.id}</code> <span class='badge {css}'>{text}</span></h2>"
            f"<p><b>{html.escape(PAPERS.get(r.paper, r.paper))}</b>, {html.escape(r.where)}</p>"
            f"<p><i>{html.escape(r.claim)}</i></p>"
            f"<table><tr><th>paper</th><td>{html.escape(short(r.paper_value, 400))}</td></tr>"
            f"<tr><th>lab</th><td>{html.escape(short(r.measured, 400))}</td></tr>"
            f"<tr><th>seconds</th><td>{r.seconds:.1f}{resumed}</td></tr></table>{note}"
            f"<details><summary>settings</summary><table>{settings}</table></details>{figures}")


def html_page(report) -> str:
    c = report.counts()
    counts = ", ".join(f"{v} {k}" for k, v in c.items() if v)
    stopped = "<p class='note'>This run was stopped: the claims below are those that finished.</p>" \
        if report.status == "stopped" else ""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Symmetry Lab: reproduction report "
            f"({report.profile})</title><style>{CSS}</style></head><body>"
            f"<h1>Symmetry Lab — reproduction report ({html.escape(report.profile)})</h1>"
            f"<p>{len(report.results)} claim{'s' if len(report.results) != 1 else ''}: {counts}. Device {html.escape(report.device)}; "
            f"{report.seconds:.0f} s. Each claim is measured with the lab's own functions; <b>quick</b> runs "
            f"reduced settings in minutes on a laptop CPU, <b>full</b> the papers' own settings.</p>{stopped}"
            f"{summary_table_html(report)}" + "".join(claim_html(r) for r in report.results) + "</body></html>")


def write_report(report) -> None:
    from ..runstore import atomic_file, to_json

    report.directory.mkdir(parents=True, exist_ok=True)
    with atomic_file(report.json_path) as tmp:
        Path(tmp).write_text(json.dumps(to_json(report_dict(report)), indent=1, allow_nan=False))
    with atomic_file(report.html_path) as tmp:
        Path(tmp).write_text(html_page(report), encoding="utf-8")


def text_table(report) -> str:
    """The lines ``lab reproduce`` prints: one per claim."""
    width = max((len(r.id) for r in report.results), default=10)
    lines = [f"{'claim':<{width}}  {'verdict':<17} {'seconds':>8}  lab (paper)"]
    for r in report.results:
        text, _ = verdict(r)
        lines.append(f"{r.id:<{width}}  {text:<17} {r.seconds:>8.1f}  {short(r.measured, 70)} "
                     f"({short(r.paper_value, 40)})")
    c = report.counts()
    lines.append(", ".join(f"{v} {k}" for k, v in c.items() if v) + f"; report: {report.html_path}")
    return "\n".join(lines)
