"""The HTML report's plot of score against cost: its geometry (axes, ticks, points, intervals and
labels placed clear of each other), as numbers for `templates/_plot.html.j2` to draw in SVG."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from lobrec.reports._format import cost, fixed, percent
from lobrec.reports._labels import LABEL_HEIGHT, Box, Label, place_labels, text_width
from lobrec.reports._text import printable
from lobrec.reports.view import PlotPoint, ReportView

WIDTH, HEIGHT = 720, 380
LEFT, RIGHT, TOP, BOTTOM = 64, 180, 20, 56


def interval_text(interval: tuple[float, float]) -> str:
    """A 95% interval as the reports write it: low and high joined by an en dash, then `%`."""
    return f"{fixed(interval[0])}–{fixed(interval[1])}%"


def _nice_step(span: float, count: int = 5) -> float:
    raw = span / count
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


_Axis = tuple[str, float, float, list[float]]
"""(scale, low, high, ticks) of the cost axis."""


def _x_axis(costs: list[float]) -> _Axis:
    """(scale, low, high, ticks), fitted to the data: logarithmic when costs span more than 20x;
    linear from 0 when the cheapest costs at most half the dearest; else linear over nice steps
    just around the costs (every point between $0.076 and $0.081 would sit in one corner of a
    $0-$0.10 axis, their labels crowded), the axis's first tick saying where it starts."""
    low, high = min(costs), max(costs)
    if low > 0 and high / low > 20:
        return _log_axis(low, high)
    if low <= 0 or low <= high / 2:
        return _axis_from_zero(high)
    return _axis_around(low, high)


def _log_axis(low: float, high: float) -> _Axis:
    """A tick at every power of ten from the one at or below `low` to the one at or above `high`."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    ticks = [10.0**k for k in range(first, last + 1)]
    return "log", ticks[0], ticks[-1], ticks


def _axis_from_zero(high: float) -> _Axis:
    """From $0 to the first nice step at or above `high` ($1 when nothing costs anything)."""
    span = high if high > 0 else 1.0
    step = _nice_step(span)
    top = step * math.ceil(span / step)
    count = round(top / step)
    return "linear", 0.0, top, [step * i for i in range(count + 1)]


def _axis_around(low: float, high: float) -> _Axis:
    """Nice steps just around the costs, at least two of them, the data in the middle."""
    step = _nice_step(high - low if high > low else high / 10, count=4)
    start = step * math.floor(low / step + 1e-9)
    end = step * math.ceil(high / step - 1e-9)
    if end - start < step * 2:
        start, end = max(0.0, start - step), end + step
    count = round((end - start) / step)
    ticks = [round(start + step * i, 12) for i in range(count + 1)]
    return "linear", ticks[0], ticks[-1], ticks


def _tick_labels(scale: str, ticks: list[float]) -> list[str]:
    """Dollar labels that share one precision on a linear axis (`$0.05`, `$0.10`), short on a log one."""
    if scale == "log":
        return [f"${tick:g}" for tick in ticks]
    places = next(
        (d for d in range(9) if all(abs(round(tick, d) - tick) <= 1e-9 * max(1.0, tick) for tick in ticks)), 8
    )
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    if step < 1:
        places = max(places, 2)
    return [f"${tick:.{places}f}" for tick in ticks]


def shortened(text: str, room: float) -> str:
    """`text` as it fits in `room` px: whole, or cut with `…` (the point's hover keeps it whole)."""
    if text_width(text) <= room:
        return text
    while text and text_width(text + "…") > room:
        text = text[:-1]
    return text + "…"


def _point_labels(
    points: list[tuple[str, float, float]], right_edge: float
) -> tuple[list[Label], list[str], list[str]]:
    """A label beside each point: on its right, or on its left when the right has no room; a name
    too long for either side is shortened to fit the roomier one, so no label leaves the drawing."""
    labels, sides, texts = [], [], []
    for name, x, y in points:
        text = printable(name)
        right, left = right_edge - (x + 10), x - 10 - (WIDTH - right_edge)
        if text_width(text) > max(right, left):
            text = shortened(text, max(right, left))
        width = text_width(text)
        if width <= right:
            labels.append(Label(x + 10, x + 10 + width, y))
            sides.append("right")
        else:
            labels.append(Label(x - 10 - width, x - 10, y))
            sides.append("left")
        texts.append(text)
    return labels, sides, texts


class Tick(NamedTuple):
    """One tick of an axis: where it sits and where its label sits (formatted), and the label."""

    at: str
    """The tick's coordinate, formatted (`y` for the score axis, `x` for the cost axis)."""
    text_at: str
    label: str


@dataclass(frozen=True)
class Point:
    model: str
    label: str
    """The name as drawn beside the point: shortened with `…` when the whole would leave the plot."""
    x: str
    y: str
    title: str
    interval: str | None
    """The interval's path (`d`), None without an interval."""
    interval_title: str
    text_x: str
    text_y: str
    anchor_end: bool
    leader: tuple[str, str, str, str] | None


@dataclass(frozen=True)
class Plot:
    skipped: str
    """Models not plotted, each with why, joined by `; ` (empty: none)."""
    height: int
    frame: tuple[int, int, int, int]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    axis: str
    axis_x: str
    axis_y: str
    points: list[Point]


def _x_of(scale: str, low: float, high: float, plot_w: float) -> Callable[[float], float]:
    """Where a cost sits across the frame, on the axis's scale."""

    def x_of(usd: float) -> float:
        if scale == "log":
            share = (math.log10(usd) - math.log10(low)) / (math.log10(high) - math.log10(low))
        else:
            share = (usd - low) / (high - low)
        return LEFT + share * plot_w

    return x_of


def plot(view: ReportView) -> Plot | str:
    """The plot's geometry, or (nothing to plot) the models left out and why."""
    plotted = view.plot
    skipped = "; ".join(f"{name} ({why})" for name, why in view.not_plotted)
    if not plotted:
        return skipped
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    scale, low, high, ticks = _x_axis([point.cost_usd for point in plotted])
    x_of = _x_of(scale, low, high, plot_w)

    def y_of(rate: float) -> float:
        return TOP + (1 - rate / 100) * plot_h

    y_ticks = [Tick(f"{y_of(v):.1f}", f"{y_of(v) + 4:.1f}", f"{v}%") for v in range(0, 101, 20)]
    x_ticks = [
        Tick(f"{x_of(tick):.1f}", f"{x_of(tick):.1f}", label)
        for tick, label in zip(ticks, _tick_labels(scale, ticks), strict=True)
    ]
    located = [(point, x_of(point.cost_usd), y_of(point.rate)) for point in plotted]
    boxes, points = _labelled(located, plot_w, plot_h, y_of)
    lowest = max((box.y1 for box in boxes), default=0.0)
    # more labels than fit beside the frame: grow the drawing below it
    height = math.ceil(lowest + 4) if lowest > HEIGHT else HEIGHT
    axis = "Cost per 100 cases (USD" + (", log scale)" if scale == "log" else ")")
    return Plot(
        skipped=skipped,
        height=height,
        frame=(LEFT, TOP, plot_w, plot_h),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        axis=axis,
        axis_x=f"{LEFT + plot_w / 2:.1f}",
        axis_y=f"{TOP + plot_h / 2:.1f}",
        points=points,
    )


def _labelled(
    located: list[tuple[PlotPoint, float, float]],
    plot_w: float,
    plot_h: float,
    y_of: Callable[[float], float],
) -> tuple[list[Box], list[Point]]:
    """Each point with its label placed clear of the other labels, the points and the x axis."""
    labels, sides, texts = _point_labels([(point.model, x, y) for point, x, y in located], WIDTH - 4)
    obstacles = [Box(x - 7, y - 7, x + 7, y + 7) for _, x, y in located]
    # The x axis's tick labels and title sit below the frame: labels pushed down must miss them.
    obstacles += [Box(LEFT - 40, TOP + plot_h + 4, LEFT + plot_w + 40, HEIGHT)]
    boxes = place_labels(labels, top=2.0, bottom=TOP + plot_h, obstacles=obstacles)
    points = [
        _point(point, text, x, y, box, side, _ci_ys(point, y_of))
        for (point, x, y), box, side, text in zip(located, boxes, sides, texts, strict=True)
    ]
    return boxes, points


def _ci_ys(point: PlotPoint, y_of: Callable[[float], float]) -> tuple[float, float] | None:
    interval = point.ci95
    return None if interval is None else (y_of(interval[0]), y_of(interval[1]))


def _point(
    point: PlotPoint, label: str, x: float, y: float, box: Box, side: str, ci: tuple[float, float] | None
) -> Point:
    interval = point.ci95
    path, interval_title = None, ""
    if interval is not None and ci is not None:
        y_low, y_high = ci
        path = (
            f"M{x - 4:.1f} {y_high:.1f}H{x + 4:.1f}M{x:.1f} {y_high:.1f}V{y_low:.1f}"
            f"M{x - 4:.1f} {y_low:.1f}H{x + 4:.1f}"
        )
        interval_title = f"{point.model}: 95% interval {interval_text(interval)}"
    middle = (box.y0 + box.y1) / 2
    leader = None
    if abs(middle - y) > LABEL_HEIGHT / 2:
        end = box.x0 - 1 if side == "right" else box.x1 + 1
        leader = (f"{x:.1f}", f"{y:.1f}", f"{end:.1f}", f"{middle:.1f}")
    text_x = box.x0 if side == "right" else box.x1
    return Point(
        model=point.model,
        label=label,
        x=f"{x:.1f}",
        y=f"{y:.1f}",
        title=f"{point.model}: {percent(point.rate)}, {cost(point.cost_usd)}",
        interval=path,
        interval_title=interval_title,
        text_x=f"{text_x:.1f}",
        text_y=f"{middle + 4:.1f}",
        anchor_end=side != "right",
        leader=leader,
    )
