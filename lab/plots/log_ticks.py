"""Readable ticks for Bokeh's logarithmic axes.

Bokeh's own ``LogTicker`` switches to *linear* ticks when the axis spans less than two decades (BokehJS
``LogTicker.get_ticks_no_defaults``): a loss falling from 0.09 to 0.005 then gets 0.01, 0.02, …, 0.09, nine labels
crowded into the top third of a log axis and running into each other.  ``log_ticker()`` puts ticks at 1, 2 and 5
times each power of ten under a decade or so of range, at 1 and 3 up to three decades, at the powers alone beyond
(every k-th when there are many), and at every integer mantissa when that would leave fewer than two ticks (a very
short range), so the labels spread evenly on the log scale whatever the range.

The rule is one JavaScript body (``LOG_TICKS_JS``), run by the browser for each viewport (it follows zooming);
``tests/test_browser_log_ticks.py`` runs it in Chromium on ranges whose ticks are known.

The labels need their own rule too (``LOG_LABEL_JS``, ``log_formatter()``): Bokeh's ``LogTickFormatter`` writes
every tick as 10 to its *rounded* exponent whenever no two ticks round alike, so a lone 0.09 reads "10⁻¹" and the
pair 3, 30 reads "10⁰, 10¹".  Here a tick is written as its number (four significant digits: 0.003, 30, 2e-7),
and as 10ⁿ only when every tick is a power of ten and n is outside -3 … 4.
"""
from __future__ import annotations

#: the body of ``major_code``: ``cb_data.start``/``cb_data.end`` in, the tick values out (ascending)
LOG_TICKS_JS = """
const lo = Math.min(cb_data.start, cb_data.end), hi = Math.max(cb_data.start, cb_data.end);
if (!(lo > 0) || !(hi > lo) || !isFinite(hi)) return [];
const span = Math.log10(hi / lo);
const d0 = Math.floor(Math.log10(lo)), d1 = Math.ceil(Math.log10(hi));
const every = span > 8 ? Math.ceil(span / 8) : 1;
const pick = (mantissas) => {
  const out = [];
  for (let d = d0; d <= d1; d++) {
    if ((d - d0) % every) continue;
    for (const m of mantissas) {
      const t = Number((m * Math.pow(10, d)).toPrecision(12));
      if (t >= lo && t <= hi) out.push(t);
    }
  }
  return out;
};
let ticks = pick(span <= 1.3 ? [1, 2, 5] : span <= 3 ? [1, 3] : [1]);
if (ticks.length < 2) ticks = pick([1, 2, 3, 4, 5, 6, 7, 8, 9]);
return ticks;
"""


#: the body of a ``CustomJSTickFormatter``: ``tick`` and ``ticks`` in, the label out
LOG_LABEL_JS = """
const sup = {"-": "\u207b", "0": "\u2070", "1": "\u00b9", "2": "\u00b2", "3": "\u00b3", "4": "\u2074",
             "5": "\u2075", "6": "\u2076", "7": "\u2077", "8": "\u2078", "9": "\u2079"};
const power = (t) => t > 0 && Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9;
const k = Math.round(Math.log10(tick));
if (ticks.every(power) && (k < -3 || k > 4)) return "10" + String(k).split("").map((c) => sup[c]).join("");
return String(Number(tick.toPrecision(4)));
"""


def log_ticker():
    """A ``CustomJSTicker`` with the rule above, for a log axis (``fig.yaxis.ticker = log_ticker()``)."""
    from bokeh.models import CustomJSTicker

    return CustomJSTicker(major_code=LOG_TICKS_JS)


def log_formatter():
    """A ``CustomJSTickFormatter`` with the labels above (``fig.yaxis.formatter = log_formatter()``)."""
    from bokeh.models import CustomJSTickFormatter

    return CustomJSTickFormatter(code=LOG_LABEL_JS)


def readable_log_axis(axis) -> None:
    """Both rules on a Bokeh axis (``fig.yaxis``, ``fig.xaxis``)."""
    axis.ticker = log_ticker()
    axis.formatter = log_formatter()
