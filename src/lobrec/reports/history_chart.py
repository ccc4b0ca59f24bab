"""The history page's line chart as geometry: a line per model across the files, its points marked by
their step, each line named at its end, the suite's changes and the files on the axes; numbers for
`templates/history.html.j2` to draw in SVG. `reports.historyview` gives it the hover of every step."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from lobrec.core.metrics.history import History, ModelHistory, Step
from lobrec.reports._format import percent
from lobrec.reports._labels import LABEL_HEIGHT, Box, Label, place_labels, text_width
from lobrec.reports._text import printable

PALETTE = (
    "#0969da",
    "#d1242f",
    "#1a7f37",
    "#8250df",
    "#bc4c00",
    "#1b7c83",
    "#bf3989",
    "#6e7781",
    "#9a6700",
    "#4d2d8c",
)
"""Line colours, one per model in the history's order, repeating after ten (each line is also
named at its end and in the table, so colour is never the only cue)."""


_BOTTOM = 40
"""Room under the plot for the files' names."""


class Marker(NamedTuple):
    x: float
    y: float
    shape: str
    """`dot`, `hollow` (rescored), `up` or `down` (a step found real)."""
    title: str


class Segment(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float
    dashed: bool
    """The later end's step could not be compared."""


class Series(NamedTuple):
    model: str
    colour: str
    segments: list[Segment]
    markers: list[Marker]
    label_x: float
    label_y: float
    leader: Segment | None
    """A line from the last point to its label when the label is not beside it."""
    label: str = ""
    """The name at the line's end: the model, or all whose lines coincide (`a = b`; the rest none)."""


class Tick(NamedTuple):
    at: float
    text: str


class SuiteLine(NamedTuple):
    """Where the suite changed: the file's x, the version, and where its label starts or ends (to the
    left of the line; to the right when that would cross the chart's left edge)."""

    at: float
    text: str
    text_x: float
    anchor: str


class Chart(NamedTuple):
    width: int
    height: int
    left: int
    top: int
    plot_width: int
    plot_height: int
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    suite_lines: list[SuiteLine]
    """Where the suite changed: the x of that file and its suite."""
    series: list[Series]


class _Axes(NamedTuple):
    """The plot area and its scales: x by the file's place, y by the rate (from `low` to 100%)."""

    left: int
    top: int
    width: int
    height: int
    low: float
    step: float
    """Between two y ticks, in percentage points."""
    last: int
    """The last file's place, counted from 0 (1 at least, so two files span the width)."""

    def x(self, run: int) -> float:
        return round(self.left + (run - 1) / self.last * self.width, 1)

    def y(self, rate: float) -> float:
        return round(self.top + (100 - rate) / (100 - self.low) * self.height, 1)


def _axes(history: History) -> _Axes:
    """A y axis from a multiple of 10 below the lowest rate up to 100%, at most 6 ticks apart."""
    rates = [point.overall for model in history.models for point in model.points if point.overall is not None]
    low = max(0.0, 10 * ((min(rates, default=0.0) - 1) // 10))
    step = next(size for size in (2, 5, 10, 20) if (100 - low) / size <= 6)
    return _Axes(
        left=56, top=30, width=494, height=300, low=low, step=float(step), last=len(history.runs) - 1 or 1
    )


def _shape(step: Step | None) -> str:
    if step is not None and step.verdict != "none":
        return "up" if step.verdict == "better" else "down"
    return "hollow" if step is not None and step.provenance == "rescored" else "dot"


def _line(
    model: ModelHistory, axes: _Axes, hovers: Mapping[tuple[str, int], str]
) -> tuple[list[Marker], list[Segment]]:
    """A model's points with a rate, and the lines between them (dashed into a step not compared)."""
    valued = [(point, point.overall) for point in model.points if point.overall is not None]
    markers = [
        Marker(
            axes.x(point.run),
            axes.y(rate),
            _shape(point.step),
            hovers.get((model.model, point.run), f"{model.model} #{point.run}: {percent(rate)}"),
        )
        for point, rate in valued
    ]
    segments = [
        Segment(a.x, a.y, b.x, b.y, after.step is not None and not after.step.comparable)
        for a, b, (after, _) in zip(markers, markers[1:], valued[1:], strict=False)
    ]
    return markers, segments


def _leader(last: Marker, label_y: float, end: float, axes: _Axes) -> Segment | None:
    """A line from a line's last point to its name, when the name is not right beside it."""
    if last.x < axes.left + axes.width or abs(label_y - last.y) > LABEL_HEIGHT / 2:
        return Segment(last.x, last.y, end - 2, label_y, True)
    return None


def _suite_lines(history: History, axes: _Axes) -> list[SuiteLine]:
    """Where the suite changed: that file's x and its suite version, labelled `§ suite 1.2.0` left of
    the line, or right of it near the left edge (a change at #2 of fifty files)."""
    lines = []
    for run in history.runs:
        if run.suite_changed:
            at = axes.x(run.run)
            if at - 4 - text_width(f"§ suite {run.suite.version}") >= 0:
                lines.append(SuiteLine(at, run.suite.version, at - 4, "end"))
            else:
                lines.append(SuiteLine(at, run.suite.version, at + 4, "start"))
    return lines


def _x_ticks(history: History, axes: _Axes) -> list[Tick]:
    """The files named under the x axis: every k-th, k as small as keeps the names apart, always
    the first and the last (fifty files would otherwise print `#1#2#3...` on top of each other)."""
    last = len(history.runs)
    room = text_width(f"#{last}") + 4
    every = max(1, math.ceil(room / (axes.width / axes.last)))
    shown = [run for run in range(1, last + 1, every) if run == 1 or last - run >= every]
    return [Tick(axes.x(run), f"#{run}") for run in sorted({*shown, last})]


class _Drawn(NamedTuple):
    """A model with a line: its place in the history's order (which picks its colour), its points
    and the lines between them."""

    place: int
    model: str
    markers: list[Marker]
    segments: list[Segment]


def _drawn(history: History, axes: _Axes, hovers: Mapping[tuple[str, int], str]) -> list[_Drawn]:
    """Every model's line in the history's order; a model without scores has no line."""
    lines = [
        _Drawn(place, model.model, *_line(model, axes, hovers)) for place, model in enumerate(history.models)
    ]
    return [line for line in lines if line.markers]


def _names(drawn: list[_Drawn]) -> dict[str, str]:
    """The name at a line's end, by model: lines drawn exactly on top of each other share one name
    (`a = b`), held by the first of them; the others are absent here."""
    same: dict[tuple[tuple[float, float], ...], list[str]] = {}
    for line in drawn:
        same.setdefault(tuple((marker.x, marker.y) for marker in line.markers), []).append(line.model)
    return {models[0]: " = ".join(map(printable, models)) for models in same.values()}


def _place_names(
    drawn: list[_Drawn], names: dict[str, str], end: float, axes: _Axes
) -> tuple[list[Label], dict[str, Box]]:
    """The names' labels, each wanting the height of its line's last point, and the box each got."""
    named = [(line.model, line.markers[-1]) for line in drawn if line.model in names]
    labels = [Label(end, end + text_width(names[model]), last.y) for model, last in named]
    placed = place_labels(labels, top=4.0, bottom=axes.top + axes.height + _BOTTOM - 4)
    return labels, dict(zip([model for model, _ in named], placed, strict=True))


def _series(line: _Drawn, spot: Box | None, label: str, end: float, axes: _Axes) -> Series:
    """One line as drawn: its colour, and its name where `spot` put it (no spot: named by another)."""
    label_y = 0.0 if spot is None else round((spot.y0 + spot.y1) / 2, 1)
    leader = None if spot is None else _leader(line.markers[-1], label_y, end, axes)
    colour = PALETTE[line.place % len(PALETTE)]
    return Series(line.model, colour, line.segments, line.markers, float(end), label_y, leader, label)


def _y_ticks(axes: _Axes) -> list[Tick]:
    count = round((100 - axes.low) / axes.step)
    return [
        Tick(axes.y(axes.low + i * axes.step), f"{axes.low + i * axes.step:g}%") for i in range(count + 1)
    ]


def chart(history: History, hovers: Mapping[tuple[str, int], str]) -> Chart:
    """The lines' geometry: x is the file's place, y the overall rate; every number rounded to 0.1 px.
    Each line is named at the right, the names kept apart by `place_labels`; `hovers` holds each
    step's line by model and the file it ends at."""
    axes = _axes(history)
    drawn = _drawn(history, axes, hovers)
    end = axes.left + axes.width + 12
    names = _names(drawn)
    labels, boxes = _place_names(drawn, names, end, axes)
    lowest = max([spot.y1 for spot in boxes.values()] + [0.0])
    return Chart(
        width=max(760, math.ceil(max([label.x1 for label in labels], default=0.0)) + 8),  # names whole
        height=max(axes.top + axes.height + _BOTTOM, int(lowest) + 8),
        left=axes.left,
        top=axes.top,
        plot_width=axes.width,
        plot_height=axes.height,
        y_ticks=_y_ticks(axes),
        x_ticks=_x_ticks(history, axes),
        suite_lines=_suite_lines(history, axes),
        series=[_series(line, boxes.get(line.model), names.get(line.model, ""), end, axes) for line in drawn],
    )
