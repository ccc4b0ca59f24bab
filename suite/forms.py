"""The declarative check forms of suite/src/, and the regex each one expands into.

A long check is written in the sources as what it means ("no date in October other than the 23rd",
"every clock time given with a zone names 15:00 UTC") and the build expands it into the `regex`
check the published suite holds, so the methodology's check kinds do not change and a reviewer
reads the meaning instead of the machine-written pattern. Every expansion is ECMA-262 (`u` flag)
and runs on lobrec's linear-time translation: the only lookaround is a leading `^(?![\\s\\S]*...)`.
docs/suite-format.md ("Check forms") documents each form with an example.

Time zones: `suite/src/zones.json` names the abbreviations and places a clock time may be given
in, each with its IANA zone; the offsets come from the system's IANA database (`zoneinfo`) when
the suite is built, for the date each check names (the suite's date, 2026-10-21, by default).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from typing import Any
from zoneinfo import ZoneInfo

from lobrec.errors import SuiteError

FORMS = ("clock_time", "same_instant", "other_date", "piece_of", "none_of")
"""The source-only check kinds; each expands into one `regex` check."""

_SYNTAX = set("\\^$.*+?()[]{}|/")
_DIGITS = "0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")

# The pieces of a clock time in free text (the same as suite 1.2.0's).
_TIME24 = r"\d{1,2}[:.h]\d\d(?::\d\d)?"
_TIME12 = r"\d{1,2}(?::\d\d)? ?[ap]\.?m\b\.?"
_RANGE = r"(?:[ \t]*[-–—][ \t]*\d{1,2}(?:[:.h]\d\d)?(?: ?[ap]\.?m\b\.?)?)?"
"""The end of a range (`15:00-16:00 CEST`): the zone is judged on the range's start."""
_SEP = r"[ \t]*\(?[ \t]*(?:in |at |on )?"
_START = r"(?:(?:^|[^-–—\s:.])\s*|[:.]\s+)\b"
"""Where a time starts: not as the end of a dash range (that one is judged by its start), and not
inside another time (the `15 am` of `11:15 am`)."""
OFFSETS = (*range(-12 * 60, 0, 60), *range(60, 15 * 60, 60), 330)
"""The numeric offsets (minutes) a time may be given in, judged as any zone: UTC-12 to UTC+14 in
whole hours, and India's +5:30 (UTC+2, GMT-4, +02:00, UTC+0530)."""
_UNJUDGED_WORDS = ("utc", "gmt", "zulu", "z")
_UNKNOWN_WORDS = ("local", "european")
"""Words after a time that name no one zone: they fail, as in 1.2.0."""
_QUALIFIERS = ("standard", "daylight", "summer")


def escape(text: str) -> str:
    """`text` as an ECMA-262 pattern with the `u` flag (only syntax characters are escaped)."""
    return "".join("\\" + c if c in _SYNTAX else c for c in text)


def _char_class(chars: Iterable[str]) -> str:
    """A set of characters as a class, with runs of three or more written as ranges (`[a-ce-z]`)."""
    points = sorted({ord(c) for c in chars})
    if len(points) == 1:
        return escape(chr(points[0]))
    if points == list(range(ord("0"), ord("9") + 1)):
        return r"\d"
    runs: list[list[int]] = []
    for point in points:
        if runs and point == runs[-1][-1] + 1:
            runs[-1].append(point)
        else:
            runs.append([point])
    body = "".join(
        f"{chr(run[0])}-{chr(run[-1])}" if len(run) > 2 else "".join(chr(p) for p in run) for run in runs
    )
    return f"[{body}]"


def _join(options: list[str]) -> str:
    return options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"


def _any(alphabet: str, low: int, high: int | None) -> str:
    cls = _char_class(alphabet)
    if high is None:
        return cls + ("*" if low == 0 else "+" if low == 1 else f"{{{low},}}")
    if (low, high) == (1, 1):
        return cls
    if high == 0:
        return ""
    return cls + (f"{{{low}}}" if low == high else "?" if (low, high) == (0, 1) else f"{{{low},{high}}}")


def other_than(excluded: Iterable[str], alphabet: str, low: int, high: int | None) -> str | None:
    """A pattern for the strings over `alphabet` of length `low`..`high` not in `excluded` (None if
    there is none). Used where the next character cannot continue the string (a separator, `\\b`)."""
    words = {w for w in excluded if set(w) <= set(alphabet) and (high is None or len(w) <= high)}
    options: list[str] = []
    ends_here = low == 0 and "" not in words
    if high != 0:
        firsts = {w[0] for w in words if w}
        rest = (max(low - 1, 0), None if high is None else high - 1)
        others = [c for c in alphabet if c not in firsts]
        if others:
            options.append(_char_class(others) + _any(alphabet, *rest))
        for first in sorted(firsts):
            tail = other_than({w[1:] for w in words if w and w[0] == first}, alphabet, *rest)
            if tail is not None:
                options.append(escape(first) + tail)
    if not options:
        return "" if ends_here else None
    body = _join(options)
    if ends_here:
        return (body if body.startswith("(?:") else f"(?:{body})") + "?"
    return body


def _not_followed_by(words: Iterable[str]) -> str:
    """What may follow a name so that none of `words` comes next (a word boundary, and then not a
    blank and one of `words`), nor more of an offset (`:30` after `UTC+5`)."""

    def rest(suffixes: set[str]) -> str:
        if "" in suffixes:
            return r"[^\s\S]"
        firsts = sorted({s[0] for s in suffixes})
        options = ["$", "[^" + "".join(firsts) + "]"]
        options += [f"{c}{rest({s[1:] for s in suffixes if s[0] == c})}" for c in firsts]
        return "(?:" + "|".join(options) + ")"

    return r"(?:$|[^\w :]|:(?:$|\D)| " + rest({w.lower() for w in words}) + ")"


# --- dates ---------------------------------------------------------------------------------------


def _date(value: Any, where: str) -> dt.date:
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise SuiteError(f"{where}: date {value!r} is not YYYY-MM-DD") from None


_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip


def other_date(
    day: dt.date, any_month: bool = False, crossings: dict[dt.date, dict[str, set[int]]] | None = None
) -> str:
    """No date in `day`'s month other than `day`, written 2026-10-22, 10/22, 10-22, 22/10, Oct 22,
    October 22nd, 22 Oct or 22nd of October. With `any_month`, no day of another month either: by
    its name (`Nov 23`, `23rd of November`), in full (2026-11-23), or as `day`'s own day number
    with another month's number (`23/11`, `11/23`, `11-23`); other pairs of numbers (`24/7` beside
    the 23rd) stay free. `crossings` (from `crossings()`) names the days of the month a conversion
    may fall on: such a day passes only right after a right conversion to it (`_next_day`)."""
    exempt = {d for d in crossings or {} if d.month == day.month and d != day}
    days = [day, *sorted(exempt)]
    d2 = other_than({f"{d.day:02d}" for d in days}, _DIGITS, 2, 2)
    d12 = other_than({t for d in days for t in (str(d.day), f"{d.day:02d}")}, _DIGITS, 1, 2)
    month, name = f"0?{day.month}", _MONTHS[day.month - 1]
    others = ""
    if any_month:
        names = sorted(
            {n for i, full in enumerate(_MONTH_NAMES) if i != day.month - 1 for n in (full, full[:3])}
            | ({"sept"} if day.month != 9 else set()),
            key=lambda n: (-len(n), n),
        )
        named = "(" + "|".join(names) + ")"
        numbers = [m for m in range(1, 13) if m != day.month]
        numeric = "(" + "|".join(f"0?{m}" if m < 10 else str(m) for m in numbers) + ")"
        two = "(" + "|".join(f"{m:02d}" for m in numbers) + ")"
        dd = f"0?{day.day}" if day.day < 10 else str(day.day)
        others = (
            rf"|\b{named}\.? \d{{1,2}}(st|nd|rd|th)?\b|\b\d{{1,2}}(st|nd|rd|th)? (of )?{named}\b"
            rf"|\b{day.year}-{two}-\d\d\b|\b{numeric}[-/]{dd}\b|\b{dd}/{numeric}\b"
        )
    return (
        rf"^(?![\s\S]*(\b{day.year}-{day.month:02d}-{d2}\b|\b{month}[-/]{d12}\b|\b{d12}/{month}\b"
        rf"|\b{name}(\w*)?\.? {d12}(st|nd|rd|th)?\b|\b{d12}(st|nd|rd|th)? (of )?{name}{others}"
        + "".join("|" + _next_day(other, (crossings or {})[other]) for other in sorted(exempt))
        + "))"
    )


def _day_spellings(day: dt.date) -> str:
    """`day` in other_date's spellings (2026-11-05, 11/5, 11-05, 5/11, Nov 5, 5th of November)."""
    d = f"0?{day.day}" if day.day < 10 else str(day.day)
    m, name = f"0?{day.month}", _MONTHS[day.month - 1]
    return (
        rf"(?:\b{day.year}-{day.month:02d}-{day.day:02d}\b|\b{m}[-/]{d}\b|\b{d}/{m}\b"
        rf"|\b{name}(\w*)?\.? {d}(st|nd|rd|th)?\b|\b{d}(st|nd|rd|th)? (of )?{name})"
    )


_CONNECTOR = ",? (?:on )?"
"""What may stand between a converted time's zone and the day it falls on: `AEDT on Nov 5`,
`AEDT, Nov 5`, `AEDT Nov 5`, `AEDT, on Nov 5`."""


def _next_day(other: dt.date, zones: dict[str, set[int]]) -> str:
    """`other` named anywhere but right after a conversion that falls on it: a time in one of
    `zones` (one-word names) at one of its local times, then `_CONNECTOR`. Read backwards from the
    date: what stands before it is not a blank, or not a word of `zones` (nor `on`), or such a
    word after no time or after another time. No lookbehind, so every wrong context is spelt."""
    words = sorted(zones)
    not_zone = other_than(set(words), _LOWER + _DIGITS + "_", 1, None)
    not_zone_nor_on = other_than({*words, "on"}, _LOWER + _DIGITS + "_", 1, None)
    wrong = [
        "(?:^|[^ -])",  # not "-": the 11-05 inside 2026-11-05
        "(?:^|[^\\w,]) ",
        "(?:^|\\W), ",
        "(?:^|[^\\w, ]),? ?on ",
        f"\\b{not_zone_nor_on},? ",
        f"\\b{not_zone},? on ",
        "\\bon, ",
    ]
    for word in words:
        ends = f"{_RANGE}{_SEP}{word}{_CONNECTOR}"
        wrong.append(f"{_START}{_time_not_in(zones[word])}{ends}")
        wrong.append(f"(?:^|[^\\d.m\\s(])[ \\t]*\\(?[ \\t]*(?:in |at |on )?{word}{_CONNECTOR}")
    return "(?:" + "|".join(wrong) + ")" + _day_spellings(other)


# --- pieces of a text ----------------------------------------------------------------------------


def piece_of(text: str, words: list[str]) -> str:
    """The whole argument (blanks around it aside) is a piece of `text` that holds one of `words`."""
    options = []
    lowered = text.lower()
    for word in words:
        start = lowered.find(word.lower())
        if start < 0:
            raise SuiteError(f"piece_of: {word!r} is not in {text!r}")
        while start >= 0:
            end = start + len(word)
            before, after = text[:start], text[end:]
            heads = "|".join(escape(before[i:]) for i in range(len(before)))
            tails = "|".join(escape(after[:j]) for j in range(len(after), 0, -1))
            options.append(
                (f"({heads})?" if heads else "") + escape(text[start:end]) + (f"({tails})?" if tails else "")
            )
            start = lowered.find(word.lower(), start + 1)
    return r"^\s*(" + "|".join(options) + r")\s*$"


def none_of(phrases: list[str]) -> str:
    """None of `phrases` (pattern pieces) appears as words anywhere in the argument."""
    return r"^(?![\s\S]*\b(" + "|".join(phrases) + r")\b)"


# --- clock times ---------------------------------------------------------------------------------


def _minutes(value: Any, where: str) -> int:
    try:
        hours, minutes = (int(part) for part in str(value).split(":"))
    except ValueError:
        hours = minutes = -1
    if not (0 <= hours < 24 and 0 <= minutes < 60):
        raise SuiteError(f"{where}: time {value!r} is not HH:MM")
    return hours * 60 + minutes


@functools.cache
def _abbreviation_offset(abbreviation: str, zone: str, year: int) -> int:
    """The offset (minutes) the IANA database gives `abbreviation` in `zone` during `year`."""
    tz = ZoneInfo(zone)
    for day in range(0, 366, 1):
        moment = dt.datetime(year, 1, 1, 12, tzinfo=dt.UTC) + dt.timedelta(days=day)
        local = moment.astimezone(tz)
        if local.tzname() == abbreviation:
            offset = local.utcoffset()
            assert offset is not None
            return int(offset.total_seconds()) // 60
    raise SuiteError(f"zones.json: {zone} never uses the abbreviation {abbreviation} in {year}")


@functools.cache
def _season_offsets(zone: str, year: int) -> tuple[int, int]:
    """The zone's standard and summer offsets (minutes) in `year` (equal when it keeps one)."""
    tz = ZoneInfo(zone)
    standard = summer = None
    for day in range(0, 366, 7):
        local = (dt.datetime(year, 1, 1, 12, tzinfo=dt.UTC) + dt.timedelta(days=day)).astimezone(tz)
        offset, dst = local.utcoffset(), local.dst()
        assert offset is not None
        if dst:
            summer = int(offset.total_seconds()) // 60
        else:
            standard = int(offset.total_seconds()) // 60
    assert standard is not None or summer is not None
    standard = summer if standard is None else standard
    assert standard is not None
    return standard, standard if summer is None else summer


def _zone_names(zones: dict[str, Any], instants: list[dt.datetime]) -> list[tuple[str, list[int | None]]]:
    """Each accepted way to name a zone, as a pattern, with the offset it names at each instant, or
    None where it names none: an abbreviation, "standard time" or "summer time" out of season (CEST
    on 2026-10-27, after Europe's change), so any time given with it fails. A name is followed by
    `_guard` (not by a qualifier or a longer name: `Central European`)."""
    year = instants[0].year if instants else dt.date.fromisoformat(zones["date"]).year
    out: list[tuple[str, list[int | None]]] = []
    for abbreviation, zone in zones["abbreviations"].items():
        _abbreviation_offset(abbreviation, zone, year)  # the database knows it
        offsets = [
            _offset_at(zone, i) if _local(zone, i).tzname() == abbreviation else None for i in instants
        ]
        out.append((escape(abbreviation.lower()), offsets))
    for name, zone in zones["places"].items():
        word = escape(name.lower())
        now = [_offset_at(zone, instant) for instant in instants]
        summer = [bool(_local(zone, instant).dst()) for instant in instants]
        standing = [None if dst else offset for offset, dst in zip(now, summer, strict=True)]
        saving = [offset if dst else None for offset, dst in zip(now, summer, strict=True)]
        if len(set(_season_offsets(zone, year))) == 1:
            saving = list(now)  # a zone without daylight saving: its summer time is its time
        out.append((word, list(now)))
        out.append((word + " standard time", standing))
        out.append((word + " (?:daylight|summer) time", saving))
    out.extend((_numeric_offset(offset), [offset] * len(instants)) for offset in OFFSETS)
    for zone in _zone_ids(zones):
        out.append((escape(zone.lower()), [_offset_at(zone, instant) for instant in instants]))
    return out


def _local(zone: str, instant: dt.datetime) -> dt.datetime:
    return instant.astimezone(ZoneInfo(zone))


_REGIONS = ("africa", "america", "antarctica", "asia", "atlantic", "australia", "europe", "indian")
"""The regions of IANA zone ids a time may be given in (`Europe/Berlin`); `Pacific/...` is left
out, since "Pacific" alone is the US region."""


def _zone_ids(zones: dict[str, Any]) -> list[str]:
    """The IANA ids of the listed zones, accepted as names too (`17:00 Europe/Berlin`)."""
    ids = {*zones["abbreviations"].values(), *zones["places"].values()}
    return sorted(zone for zone in ids if zone.split("/")[0].lower() in _REGIONS)


def _offset_at(zone: str, instant: dt.datetime) -> int:
    offset = instant.astimezone(ZoneInfo(zone)).utcoffset()
    assert offset is not None
    return int(offset.total_seconds()) // 60


def _numeric_offset(offset: int) -> str:
    """`UTC+2`, `GMT -04:00`, `+0530`: a bare sign only a plus or the minus sign U+2212 (a
    hyphen after a time is a range)."""
    hours, minutes = divmod(abs(offset), 60)
    sign, bare = (r"\+", r"\+") if offset > 0 else ("[-−]", "−")
    number = (f"0?{hours}" if hours < 10 else str(hours)) + (
        "(?::?00)?" if minutes == 0 else f":?{minutes:02d}"
    )
    return f"(?:(?:utc|gmt) ?{sign} ?|{bare}){number}"


def _guard(zones: dict[str, Any]) -> str:
    """What may follow a zone's name: not a qualifier or the next word of a longer name."""
    places = [name.lower() for name in zones["places"]]
    longer = {p[len(q) + 1 :].split(" ")[0] for q in places for p in places if p.startswith(q + " ")}
    return _not_followed_by([*_QUALIFIERS, *sorted(longer)])


def _twelve(minute: int) -> tuple[int, str]:
    hour = minute // 60
    return (hour % 12 or 12), ("a" if hour < 12 else "p")


def _hours(hour: int) -> set[str]:
    return {str(hour), f"{hour:02d}"}


def _time_in(minutes: set[int]) -> str:
    """A clock time, in 24-hour or 12-hour form, at one of `minutes` (after midnight; not none)."""
    assert minutes, "no time to match"
    options = []
    for minute in sorted(minutes):
        hour, mm = divmod(minute, 60)
        h12, ap = _twelve(minute)
        clock12 = "(?::00)?" if mm == 0 else f":{mm:02d}"
        options.append(rf"{_join(sorted(_hours(hour)))}[:.h]{mm:02d}(?::\d\d)?")
        options.append(rf"{_join(sorted(_hours(h12)))}{clock12} ?{ap}\.?m\b\.?")
    return _join(options)


def _time_not_in(minutes: set[int]) -> str:
    """A clock time, in 24-hour or 12-hour form, at none of `minutes`."""
    if not minutes:
        return f"(?:{_TIME24}|{_TIME12})"
    allowed24: dict[str, set[str]] = {}
    allowed12: dict[tuple[str, str], set[str]] = {}
    for minute in minutes:
        hour, mm = divmod(minute, 60)
        for text in _hours(hour):
            allowed24.setdefault(text, set()).add(f"{mm:02d}")
        h12, ap = _twelve(minute)
        for text in _hours(h12):
            allowed12.setdefault((text, ap), set()).update({"", "00"} if mm == 0 else {f"{mm:02d}"})
    options = []
    other_hour = other_than(allowed24, _DIGITS, 1, 2)
    if other_hour:
        options.append(rf"{other_hour}[:.h]\d\d(?::\d\d)?")
    for text, mms in sorted(allowed24.items()):
        options.append(rf"{text}[:.h]{other_than(mms, _DIGITS, 2, 2)}(?::\d\d)?")
    hours12 = {text for text, _ in allowed12}
    other_hour = other_than(hours12, _DIGITS, 1, 2)
    if other_hour:
        options.append(rf"{other_hour}(?::\d\d)? ?[ap]\.?m\b\.?")
    for text in sorted(hours12):
        for ap in "ap":
            forms = allowed12.get((text, ap))
            if forms is None:
                options.append(rf"{text}(?::\d\d)? ?{ap}\.?m\b\.?")
                continue
            if "" not in forms:
                options.append(rf"{text} ?{ap}\.?m\b\.?")
            other_minute = other_than(forms - {""}, _DIGITS, 2, 2)
            if other_minute:
                options.append(rf"{text}:{other_minute} ?{ap}\.?m\b\.?")
    return _join(options)


def _instants(times: list[Any], day: dt.date, where: str) -> list[dt.datetime]:
    return [
        dt.datetime.combine(day, dt.time(), dt.UTC) + dt.timedelta(minutes=_minutes(t, where)) for t in times
    ]


def _groups(zones: dict[str, Any], instants: list[dt.datetime]) -> dict[frozenset[int], list[str]]:
    """The accepted zone names, grouped by the local clock times the instants have in them."""
    groups: dict[frozenset[int], list[str]] = {}
    for name, offsets in _zone_names(zones, instants):
        local = frozenset(
            (i.hour * 60 + i.minute + offset) % 1440
            for i, offset in zip(instants, offsets, strict=True)
            if offset is not None
        )
        groups.setdefault(local, []).append(name)
    return groups


def _unknown_zone(zones: dict[str, Any]) -> str:
    """A zone after a time that the list does not know: it fails."""
    names = [*zones["abbreviations"], *zones["places"]]
    upper = {n.upper() for n in names} | {"UTC", "GMT", "AM", "PM"}
    single = {n.lower() for n in names if " " not in n} | set(_UNJUDGED_WORDS) | set(_UNKNOWN_WORDS)
    abbreviation = other_than(upper, _UPPER, 2, 5)
    word = other_than(single, _LOWER, 1, None)
    known = [zone.lower().split("/", 1) for zone in _zone_ids(zones)]
    ids = [
        f"{region}/{other_than({city for r, city in known if r == region}, _LOWER + '_/', 1, None)}"
        for region in _REGIONS
    ]
    return (
        f"(?:(?-i:{abbreviation}\\b)|(?:{'|'.join(_UNKNOWN_WORDS)})\\b"
        f"|{word} (?:(?:{'|'.join(_QUALIFIERS)}) )?time\\b|(?:{'|'.join(ids)})(?:$|[^\\w/]))"
    )


_UTC_NAME = r"(?:utc|gmt|zulu|z)"
_NO_SIGN = r"(?:$|[^\w +−-]|[+−-](?:$|[^ \d]| (?:$|\D))| (?:$|[^+−-]|[+−-](?:$|[^ \d]| (?:$|\D))))"
"""After UTC, GMT, Zulu or Z: not an offset (`UTC+2` is read as UTC+2, not as UTC)."""


def same_instant(zones: dict[str, Any], times: list[Any], day: dt.date, where: str) -> str:
    """Every clock time given with a zone names one of `times` (UTC) on `day`: in UTC, GMT or Z it
    is one of `times`, in a listed zone the same instant; a zone the list does not know fails. With
    no `times`, a time in UTC, GMT or Z is free and every other zone fails. A time with no zone is
    left to other checks."""
    instants = _instants(times, day, where)
    known = [
        f"{_time_not_in(set(local))}{_RANGE}{_SEP}(?:{'|'.join(names)})"
        for local, names in _groups(zones, instants).items()
    ]
    bad = [
        f"(?:{_TIME24}|{_TIME12}){_RANGE}{_SEP}{_unknown_zone(zones)}",
        f"(?:{'|'.join(known)}){_guard(zones)}",
    ]
    if instants:
        utc = {i.hour * 60 + i.minute for i in instants}
        bad.append(f"{_time_not_in(utc)}{_RANGE}{_SEP}{_UTC_NAME}{_NO_SIGN}")
    return rf"^(?![\s\S]*{_START}(?:" + "|".join(bad) + "))"


def clock_time(zones: dict[str, Any], time: Any, day: dt.date, where: str) -> str:
    """The clock time `time` (UTC) is stated: with no zone, in UTC, GMT or Z, or as the same instant
    on `day` in a zone of the list."""
    minute = _minutes(time, where)
    hour, mm = divmod(minute, 60)
    h12, ap = _twelve(minute)
    hours = _join(sorted(_hours(hour)))
    utc = [
        rf"\b{hours}[:.h]{'?' if hour >= 10 else ''}{mm:02d}z?\b",
        rf"\b{_join(sorted(_hours(h12)))}{'(?::00)?' if mm == 0 else f':{mm:02d}'} ?{ap}\.?m\b",
    ]
    zoned = [
        f"{_time_in(set(local))}{_RANGE}{_SEP}(?:{'|'.join(names)})"
        for local, names in _groups(zones, _instants([time], day, where)).items()
        if local  # a name out of season names no time
    ]
    return "|".join(utc) + rf"|{_START}(?:{'|'.join(zoned)}){_guard(zones)}"


def crossings(
    zones: dict[str, Any], times: list[Any], day: dt.date, where: str
) -> dict[dt.date, dict[str, set[int]]]:
    """For each day other than `day` that one of `times` (UTC on `day`) falls on in a listed zone
    named by one word (JST, AEDT, Tokyo; not "Sydney time" or UTC+11), those names with the local
    times (minutes after midnight) it has there."""
    instants = _instants(times, day, where)
    out: dict[dt.date, dict[str, set[int]]] = {}
    for name, offsets in _zone_names(zones, instants):
        if not name.isalpha():
            continue
        for instant, offset in zip(instants, offsets, strict=True):
            if offset is None:
                continue
            local = instant + dt.timedelta(minutes=offset)
            if local.date() != day:
                out.setdefault(local.date(), {}).setdefault(name, set()).add(local.hour * 60 + local.minute)
    return out


# --- expanding a source check --------------------------------------------------------------------


def expand(check: dict[str, Any], zones: dict[str, Any], where: str) -> dict[str, Any]:
    """A source check as the published suite holds it: a form becomes a `regex` check."""
    kind = check.get("kind")
    if kind not in FORMS:
        return check
    fields = {
        "clock_time": {"time", "date"},
        "same_instant": {"times", "date"},
        "other_date": {"date", "any_month", "times"},
        "piece_of": {"text", "words"},
        "none_of": {"phrases"},
    }[kind] | {"kind", "arg"}
    unknown = sorted(set(check) - fields)
    if unknown:
        raise SuiteError(f"{where}: unknown keys {unknown} for the form {kind}")
    day = _date(check.get("date", zones["date"]), where)
    if kind == "clock_time":
        pattern = clock_time(zones, check["time"], day, where)
    elif kind == "same_instant":
        pattern = same_instant(zones, list(check["times"]), day, where)
    elif kind == "other_date":
        any_month = check.get("any_month", False)
        if not isinstance(any_month, bool):
            raise SuiteError(f"{where}: any_month must be true or false")
        times = check.get("times")
        pattern = other_date(
            day, any_month, None if times is None else crossings(zones, list(times), day, where)
        )
    elif kind == "piece_of":
        pattern = piece_of(check["text"], list(check["words"]))
    else:
        pattern = none_of(list(check["phrases"]))
    return {"kind": "regex", "arg": check["arg"], "pattern": pattern}
