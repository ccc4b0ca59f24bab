"""The check forms of suite/src/ (suite/forms.py): each expansion accepts what it says and rejects
its neighbours, and runs on lobrec's linear-time ECMA-262 translation.

Right and wrong values are generated here from their meaning (an instant converted with the IANA
database, a day of a month in another spelling, a piece of a text), not from the patterns.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lobrec.core.suite.checks import compile_pattern
from tests.support.examples import costly
from tests.support.scriptfiles import load_script

ROOT = Path(__file__).resolve().parents[2]
ZONES: dict[str, Any] = json.loads((ROOT / "suite" / "src" / "zones.json").read_text(encoding="utf-8"))


forms = load_script("suite/forms.py", "suite_forms")

FIXED = {"CET": 60, "CEST": 120, "BST": 60, "EST": -300, "EDT": -240, "PST": -480, "PDT": -420}
FIXED |= {"IST": 330, "JST": 540, "AEDT": 660, "CDT": -300, "MST": -420, "EEST": 180}
FIXED |= {"UTC+2": 120, "UTC-4": -240, "GMT+9": 540, "UTC+05:30": 330, "UTC−07:00": -420}
"""Abbreviations and numeric offsets with their offsets in minutes, written by hand as the oracle."""

DATES = [dt.date(2026, 10, 21), dt.date(2026, 10, 27), dt.date(2026, 11, 4), dt.date(2026, 7, 1)]
"""The suite's date, after Europe's change to winter time, after the US's, and mid-summer."""

SEASONS = {
    "europe": (dt.date(2026, 3, 29), dt.date(2026, 10, 25)),
    "us": (dt.date(2026, 3, 8), dt.date(2026, 11, 1)),
    "sydney": (dt.date(2026, 4, 5), dt.date(2026, 10, 4)),  # its winter: AEDT outside it
}
IN_SUMMER = {"CEST": "europe", "BST": "europe", "EEST": "europe", "EDT": "us", "PDT": "us", "CDT": "us"}
IN_WINTER = {"CET": "europe", "EST": "us", "PST": "us", "MST": "us", "AEDT": "sydney"}
"""When each seasonal abbreviation is in effect in its zone (written by hand, 2026)."""


def _in_season(zone_name: str, day: dt.date) -> bool:
    if zone_name in IN_SUMMER:
        start, end = SEASONS[IN_SUMMER[zone_name]]
        return start <= day < end
    if zone_name in IN_WINTER:
        start, end = SEASONS[IN_WINTER[zone_name]]
        return not start <= day < end
    return True


def _offset(zone_name: str, instant: dt.datetime) -> int:
    if zone_name in FIXED:
        return FIXED[zone_name]
    offset = instant.astimezone(ZoneInfo(ZONES["places"][zone_name])).utcoffset()
    assert offset is not None
    return int(offset.total_seconds()) // 60


def _spell(minute: int, twelve: bool) -> str:
    hour, mm = divmod(minute % 1440, 60)
    if not twelve:
        return f"{hour:02d}:{mm:02d}"
    h12, ap = (hour % 12 or 12), ("AM" if hour < 12 else "PM")
    return f"{h12} {ap}" if mm == 0 else f"{h12}:{mm:02d} {ap}"


zone_names = st.sampled_from(sorted([*FIXED, *ZONES["places"]]))
instants = st.builds(
    lambda day, quarter: dt.datetime.combine(day, dt.time(), dt.UTC) + dt.timedelta(minutes=15 * quarter),
    st.sampled_from(DATES),
    st.sampled_from([0, 1, 2, 5, 34, 36, 44, 47, 48, 60, 63, 70, 88, 94, 95]),
)
"""Quarter hours past midnight: around midnight and noon (12-hour edges), :15, :30 and :45."""


@functools.cache
def _patterns(instant: dt.datetime) -> tuple[Any, Any]:
    time = f"{instant.hour:02d}:{instant.minute:02d}"
    clock = forms.clock_time(ZONES, time, instant.date(), "test")
    same = forms.same_instant(ZONES, [time], instant.date(), "test")
    return compile_pattern(clock), compile_pattern(same)


@costly(2)
@given(instant=instants, zone=zone_names, twelve=st.booleans())
def test_a_conversion_beside_the_utc_time_passes_when_it_names_the_same_instant(
    instant: dt.datetime, zone: str, twelve: bool
) -> None:
    assume(_in_season(zone, instant.date()))
    clock, same = _patterns(instant)
    utc = _spell(instant.hour * 60 + instant.minute, twelve)
    local = _spell(instant.hour * 60 + instant.minute + _offset(zone, instant), twelve)
    text = f"Heads-up: this goes out at {utc} UTC ({local} {zone})."
    assert clock.search(text) and same.search(text), text
    alone = f"It goes out at {local} {zone} time."
    assert clock.search(alone) and same.search(alone), alone


@costly(2)
@given(
    instant=instants,
    zone=zone_names,
    twelve=st.booleans(),
    shift=st.sampled_from([-120, -60, -30, 30, 60, 120, 180]),
)
def test_a_time_in_a_zone_naming_another_instant_fails(
    instant: dt.datetime, zone: str, twelve: bool, shift: int
) -> None:
    clock, same = _patterns(instant)
    utc = _spell(instant.hour * 60 + instant.minute, twelve)
    wrong = _spell(instant.hour * 60 + instant.minute + _offset(zone, instant) + shift, twelve)
    assert not same.search(f"Heads-up: this goes out at {utc} UTC ({wrong} {zone})."), (utc, wrong, zone)
    alone = f"It goes out at {wrong} {zone}."
    assert not (clock.search(alone) and same.search(alone)), alone


@costly(2)
@given(instant=instants, zone=st.sampled_from(sorted({*IN_SUMMER, *IN_WINTER})), twelve=st.booleans())
def test_an_abbreviation_out_of_season_fails_even_at_its_own_offset(
    instant: dt.datetime, zone: str, twelve: bool
) -> None:
    """CEST on 2026-10-27 (Berlin is on CET) names no time there: 16:00 CEST is a slip, not 14:00 UTC."""
    assume(not _in_season(zone, instant.date()))
    _, same = _patterns(instant)
    local = _spell(instant.hour * 60 + instant.minute + FIXED[zone], twelve)
    assert not same.search(f"At {_spell(instant.hour * 60 + instant.minute, twelve)} UTC ({local} {zone}).")


@costly(2)
@given(
    instant=instants,
    zone=st.text(alphabet="ABDFJKLMOQRVXY", min_size=3, max_size=4),
    twelve=st.booleans(),
)
def test_a_zone_the_list_does_not_know_fails(instant: dt.datetime, zone: str, twelve: bool) -> None:
    _, same = _patterns(instant)
    time = _spell(instant.hour * 60 + instant.minute, twelve)
    assert not same.search(f"At {time} UTC ({time} {zone})."), zone
    assert not same.search(f"At {time} local time."), time


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        ("Heads-up: the v2.14.0 release goes out today at 15:00 UTC (17:00 CEST).", True),
        ("15:00 UTC (11:00 EDT, 08:00 PDT)", True),
        ("3 pm UTC (5 pm Berlin time, 8am PT)", True),
        ("15:00 UTC (11:00 Eastern Daylight Time)", True),
        ("15:00 UTC (10:00 Eastern Standard Time)", False),
        ("It goes out today (CET).", False),
        ("15:00 UTC (17:00 Central European Summer Time)", True),
        ("15:00 UTC (16:00-17:00 BST)", True),
        ("15:00 UTC (17:00 UTC+2, 20:30 UTC+5:30)", True),
        ("15:00 UTC+2", False),
        ("15:00 UTC (17:00 Europe/Berlin, 11:00 America/New_York)", True),
        ("15:00 UTC (18:00 Europe/Moscow)", False),
        ("15:00 UTC (18:00:30 CEST)", False),
        ("15:00 UTC (18:00 CEST)", False),
        ("15:00 CEST", False),
        ("15:00 UTC (10:00 EDT)", False),
        ("15:00 UTC (10:00 ET)", False),
        ("15:00 UTC (10:00 EST)", False),
        ("15:00 UTC (16:00 CET)", False),
        ("17:00 CEST (16:00 UTC)", False),
        ("3 pm local time", False),
        ("15:00 Central European Time", False),
        ("15:00 UTC (17:00 MSK)", False),
    ],
)
def test_the_suites_own_example_of_15_00_utc_on_2026_10_21(text: str, passes: bool) -> None:
    clock, same = _patterns(dt.datetime(2026, 10, 21, 15, tzinfo=dt.UTC))
    assert bool(clock.search(text) and same.search(text)) is passes


def test_with_no_instant_every_zone_but_utc_fails_and_utc_times_pass() -> None:
    same = compile_pattern(forms.same_instant(ZONES, [], dt.date(2026, 10, 21), "test"))
    assert same.search("It ships Friday, October 23, by 12:00 UTC (or 12:00 GMT, 12:00Z).")
    assert not same.search("It ships Friday, October 23, by 14:00 CEST.")


def _date_spellings(day: dt.date) -> list[str]:
    month = day.strftime("%B")
    return [
        day.isoformat(),
        f"{day.month}/{day.day}",
        f"{day.day}/{day.month}",
        f"{month} {day.day}",
        f"{month[:3]}. {day.day}th",
        f"{day.day} {month}",
        f"{day.day}th of {month}",
    ]


@costly(2)
@given(day=st.dates(dt.date(2026, 1, 1), dt.date(2027, 12, 31)), other=st.integers(1, 31))
def test_other_date_accepts_the_day_and_rejects_another_day_of_its_month(day: dt.date, other: int) -> None:
    check = compile_pattern(forms.other_date(day))
    for text in _date_spellings(day):
        assert check.search(f"Due {text}."), text
    try:
        neighbour = day.replace(day=other)
    except ValueError:
        return
    if neighbour != day:
        for text in _date_spellings(neighbour):
            assert not check.search(f"Due {text}."), (day, text)


@costly(2)
@given(
    day=st.dates(dt.date(2026, 1, 1), dt.date(2027, 12, 31)),
    month=st.integers(1, 12),
    other=st.integers(1, 28),
)
def test_other_date_in_any_month_also_rejects_a_day_of_another_month(
    day: dt.date, month: int, other: int
) -> None:
    assume(month != day.month)
    check = compile_pattern(forms.other_date(day, any_month=True))
    for text in _date_spellings(day):
        assert check.search(f"Due {text} at 15:00, in 2 days."), text
    by_name = dt.date(day.year, month, other)
    name = by_name.strftime("%B")
    for text in (f"{name} {other}", f"{name[:3]}. {other}th", f"{other} {name}", by_name.isoformat()):
        assert not check.search(f"Due {text}."), (day, text)
    same_day = f"{day.day}/{month}", f"{month}/{day.day}"
    for text in same_day:
        assert not check.search(f"Due {text}."), (day, text)
    assert compile_pattern(forms.other_date(day)).search(f"Due {name} {other}.")


CROSSING = {
    "JST": "Asia/Tokyo",
    "AEDT": "Australia/Sydney",
    "NZDT": "Pacific/Auckland",
    "HST": "Pacific/Honolulu",
}


@costly(2)
@given(
    minute=st.integers(0, 1439),
    abbreviation=st.sampled_from(sorted(CROSSING)),
    shift=st.sampled_from([-60, 60, 180]),
)
def test_other_date_with_times_accepts_the_day_a_conversion_falls_on_right_after_it(
    minute: int, abbreviation: str, shift: int
) -> None:
    day = dt.date(2026, 11, 4)  # AEDT and NZDT in season, HST has none
    instant = dt.datetime.combine(day, dt.time(), dt.UTC) + dt.timedelta(minutes=minute)
    local = instant.astimezone(ZoneInfo(CROSSING[abbreviation]))
    assume(local.date() != day and local.tzname() == abbreviation)
    utc = f"{minute // 60:02d}:{minute % 60:02d}"
    check = compile_pattern(forms.other_date(day, crossings=forms.crossings(ZONES, [utc], day, "test")))
    named = f"{local:%b} {local.day}"
    assert check.search(f"Rotate by {utc} UTC ({local:%H:%M} {abbreviation} on {named}).")
    assert check.search(f"Rotate by {utc} UTC ({local:%H:%M} {abbreviation}, {local:%Y-%m-%d}).")
    other = (local + dt.timedelta(minutes=shift)).strftime("%H:%M")
    assert not check.search(f"Rotate by {utc} UTC ({other} {abbreviation} on {named}).")
    assert not check.search(f"Rotate by {utc} UTC on {named}.")
    assert not check.search(f"Rotate by {named} ({local:%H:%M} {abbreviation}).")
    assert not check.search(f"Rotate in {abbreviation} on {named}.")
    plain = compile_pattern(forms.other_date(day))
    assert not plain.search(f"Rotate by {utc} UTC ({local:%H:%M} {abbreviation} on {named}).")


TEXT = "def test_session_expires_after_idle_timeout(client, frozen_clock):"


@costly(2)
@given(start=st.integers(0, len(TEXT)), end=st.integers(0, len(TEXT)))
def test_piece_of_accepts_exactly_the_pieces_holding_a_word(start: int, end: int) -> None:
    check = compile_pattern(forms.piece_of(TEXT, ["session", "expir"]))
    piece = TEXT[min(start, end) : max(start, end)]
    holds = "session" in piece or "expir" in piece
    assert bool(check.search(f"  {piece} ")) is holds, piece
    assert not check.search(piece + "#")  # no piece of the text holds a #
    assert not check.search("session-expiry")


@costly(2)
@given(
    phrase=st.sampled_from(["will be deployed", "not yet live", "rolled back"]),
    pad=st.text("ab ", max_size=8),
)
def test_none_of_rejects_each_phrase_as_words_and_nothing_else(phrase: str, pad: str) -> None:
    check = compile_pattern(forms.none_of(["will (be )?deployed", "not (yet )?live", "rolled back"]))
    assert not check.search(f"{pad} {phrase}.")
    assert check.search(f"{pad} {phrase}x".replace(" ", "_"))
    assert check.search(f"It is deployed {pad}.")


def test_a_form_with_an_unknown_field_or_a_bad_value_is_a_one_line_error() -> None:
    from lobrec.errors import SuiteError

    with pytest.raises(SuiteError, match=r"x: unknown keys \['times'\] for the form clock_time"):
        forms.expand({"kind": "clock_time", "arg": "text", "times": ["15:00"]}, ZONES, "x")
    with pytest.raises(SuiteError, match=r"x: time '25:00' is not HH:MM"):
        forms.expand({"kind": "clock_time", "arg": "text", "time": "25:00"}, ZONES, "x")
    with pytest.raises(SuiteError, match=r"x: date '2026-13-01' is not YYYY-MM-DD"):
        forms.expand({"kind": "other_date", "arg": "text", "date": "2026-13-01"}, ZONES, "x")
    with pytest.raises(SuiteError, match=r"x: any_month must be true or false"):
        forms.expand(
            {"kind": "other_date", "arg": "text", "date": "2026-10-21", "any_month": "yes"}, ZONES, "x"
        )
    with pytest.raises(SuiteError, match=r"x: time '9' is not HH:MM"):
        forms.expand({"kind": "other_date", "arg": "text", "date": "2026-10-21", "times": ["9"]}, ZONES, "x")


def test_no_check_pattern_in_the_sources_is_longer_than_300_characters() -> None:
    longest = 0
    for path in sorted((ROOT / "suite" / "src").glob("*.json")):
        cases = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(cases, list):
            continue
        for case in cases:
            for step in case.get("steps", []):
                for call in step.get("calls", []):
                    for check in call.get("checks", []):
                        if check["kind"] == "regex":
                            longest = max(longest, len(check["pattern"]))
                        elif check["kind"] not in forms.FORMS:
                            assert "pattern" not in check
    assert 0 < longest <= 300
