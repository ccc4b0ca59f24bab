"""Formatting shared by the terminal, Markdown and HTML reports, so the three always agree.

Every number a report shows goes through one function here: a rate with nothing to apply to is
a dash in all three, a cost has the same precision in all three. What the leaderboard holds (its
columns, the ranking, the re-record rule) is the view's: `leaderboard.py`, applied by `view.py`.
Text that came from a model or a gateway goes through `printable` (`reports/_text.py`, the one
rule for outside text) first, so a control character is shown, never obeyed.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from lobrec.core.metrics.results import Rate, RunResult
from lobrec.reports._text import printable

DASH = "—"
LOWER_IS_BETTER_NOTE = "↓ lower is better"
GLOSSARY = "docs/reports.md#glossary"
"""Where every report sends a reader for its terms (tier, resolution, pass^K, Nex, the failure kinds)."""
KEY = (
    f"{LOWER_IS_BETTER_NOTE} · Stale counts stale and unrecorded cases · {DASH} nothing to rate · "
    f"terms: {GLOSSARY}"
)
"""The line under every leaderboard that explains its marks."""


def provenance(run: RunResult) -> str:
    """What judged the run and what recorded it, in every report: the suite's name, version and
    origin ("bundled" or the --suite path), lobrec's version, and the suite versions the cassettes
    were recorded with (from their manifests). Older results files lack some parts; they are left out."""
    suite = f"suite {run.suite.name} {run.suite.version}"
    if run.suite.source is not None:
        suite += f" ({run.suite.source})"
    line = f"Judged with {suite}" + (f" by lobrec {run.lobrec_version}" if run.lobrec_version else "")
    recorded = sorted({r.suite.version for model in run.models for r in model.recorded}, key=_version_key)
    if recorded:
        line += f"; cassettes recorded with suite {', '.join(recorded)}"
    return printable(line + ".")


def _version_key(version: str) -> tuple[int, ...]:
    from lobrec.core.suite.format import SEMVER, version_order

    return version_order(version) if SEMVER.match(version) else (-1,)


def fixed(value: float, places: int = 1) -> str:
    """`value` with `places` decimals, rounded half up (away from zero) on the number as written, as
    a spreadsheet rounds: 81.25 (13/16) is `81.3`, never the `81.2` of binary round-half-even. The
    one rounding rule of every rate and difference in the reports (docs/reports.md)."""
    if not math.isfinite(value):
        return f"{value}"
    step = Decimal(1).scaleb(-places)
    text = str(Decimal(repr(value)).quantize(step, rounding=ROUND_HALF_UP))
    return "0" + text[2:] if text.startswith("-0") and not text.strip("-0.") else text


def percent(rate: float | None) -> str:
    """A rate in percent with one decimal (half up), or a dash when it had nothing to apply to."""
    return DASH if rate is None else f"{fixed(rate)}%"


def points(value: float, *, signed: bool = False) -> str:
    """A difference in percentage points with one decimal (half up): `9.8 pp`, `10.0 pp`, `+2.5 pp`."""
    text = fixed(value)
    return f"{'+' if signed and not text.startswith('-') and float(text) else ''}{text} pp"


def rate_counts(rate: Rate) -> str:
    """`12/14`, the counts behind a rate; a dash when there was nothing to count."""
    return DASH if rate.total == 0 else f"{rate.passed}/{rate.total}"


def _decimals_for(value: float) -> int:
    """Two decimals for cents and up, else enough for three significant digits (max 6)."""
    if value == 0 or abs(value) >= 0.1:
        return 2
    return min(6, 2 - math.floor(math.log10(abs(value))))


def cost(usd: float | None) -> str:
    """Dollars: `$1.25`, `$0.0312`; a dash when any call was unpriced."""
    if usd is None:
        return DASH
    return f"${usd:.{_decimals_for(usd)}f}"


def latency(ms: float | None) -> str:
    """`850 ms` under a second, `1.24 s` from a second up."""
    if ms is None:
        return DASH
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.2f} s"


def _shown(value: float, unit: str, extra: int) -> tuple[float, str, int]:
    """`value` rounded as printed with `extra` more decimals: (the printed number, the text, its
    decimals in the delta's unit)."""
    if unit == "pp":
        places = 1 + extra
        text = fixed(value, places)
        return float(text), f"{text}%", places
    if unit == "ms":
        shown = round(value, extra)
        if shown < 1000:
            return shown, f"{shown:.{extra}f} ms", extra
        places = 2 + extra
        seconds = round(value / 1000, places)
        return seconds * 1000, f"{seconds:.{places}f} s", max(0, places - 3)
    if unit == "usd":
        places = _decimals_for(value) + extra
        shown = round(value, places)
        return shown, f"${shown:.{places}f}", places
    raise ValueError(f"unknown unit {unit!r}")


_EXTRA_DECIMALS = 3
"""How many decimals a pair of values may gain so that two different values print differently."""


class Change(NamedTuple):
    """Two values and their difference as printed, in agreement: the difference is the one between
    the printed values, so `23 ms → 24 ms` never reads `0 ms worse`."""

    a: str
    b: str
    delta: str
    shown: float | None
    """The difference of the printed values (None when either is missing): what better or worse
    is judged on, so a printed 0 is neither."""


def _pair(a: float, b: float, unit: str, extra: int) -> tuple[str, str, float, int]:
    """Both values printed with `extra` more decimals, their printed difference and its decimals."""
    (ra, ta, da), (rb, tb, db) = _shown(a, unit, extra), _shown(b, unit, extra)
    places = max(da, db) if rb != ra else {"pp": 1, "ms": 0, "usd": 2}[unit]
    return ta, tb, round(rb - ra, places), places


def change(a: float | None, b: float | None, unit: str) -> Change:
    """`a`, `b` and `b - a` as text: with more decimals when two different values would otherwise
    print alike, and the difference taken from the printed values."""
    if a is None or b is None:
        plain = {"pp": percent, "ms": latency, "usd": cost}[unit]
        return Change(plain(a), plain(b), DASH, None)
    ta, tb, shown, places = _agreeing_pair(a, b, unit)
    return Change(ta, tb, _signed(shown, places, unit), shown)


def _agreeing_pair(a: float, b: float, unit: str) -> tuple[str, str, float, int]:
    """`_pair` with the fewest extra decimals that print different values differently and give a
    printed difference true to within half its last place (23.3 → 23.5 ms is +0.2 ms, not +1 ms);
    printed plainly when no precision does both (the difference is then that of what is printed)."""
    for extra in range(_EXTRA_DECIMALS + 1):
        ta, tb, shown, places = _pair(a, b, unit, extra)
        if (ta != tb or a == b) and abs(shown - (b - a)) <= 0.5 * 10**-places + 1e-9:
            return ta, tb, shown, places
    return _pair(a, b, unit, 0)


def _signed(shown: float, places: int, unit: str) -> str:
    """A printed difference with its sign and unit: `+0.2 pp`, `-3 ms`, `+$0.01`, `0.0 pp`."""
    size = fixed(abs(shown), places) if unit == "pp" else f"{abs(shown):.{places}f}"
    text = {"pp": f"{size} pp", "ms": f"{size} ms", "usd": f"${size}"}[unit]
    sign = "+" if shown > 0 else "-" if shown < 0 else ""
    return sign + text


# --- groups --------------------------------------------------------------------------------------

_GROUP_LABELS = {
    "selection": "Selection",
    "arguments": "Arguments",
    "near_misses": "Near misses",
    "no_call": "No call needed",
    "parallel": "Parallel",
    "chains": "Chains",
}


def group_label(group: str) -> str:
    return _GROUP_LABELS.get(group, printable(group))
