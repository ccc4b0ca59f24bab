"""Where the plot's point labels go, so that no two ever overlap: plain geometry, no SVG.

Each label is a box beside its point, at a fixed x; only its height on the page moves. Labels
are placed one at a time, from the top of the plot down (ties: left to right, then input
order). A label keeps the place it wants (centred on its point) when that is free; otherwise it
takes the free place nearest to it among the places just above or just below every box it
could collide with. A place inside the bounds wins over any place outside; when no place is
left inside, the label goes below everything in its way and the caller grows the drawing.

The same input always gives the same places, and no two returned boxes (nor a label and an
obstacle) are closer than `gap` vertically where they share any horizontal extent.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

EPSILON = 1e-9
LABEL_FONT_PX = 12.0
LABEL_HEIGHT = 14.0
"""The height of one line of 12 px text, ascenders to descenders."""


class Box(NamedTuple):
    """An axis-aligned rectangle: x0 <= x1, y0 <= y1 (y grows downwards, as in SVG)."""

    x0: float
    y0: float
    x1: float
    y1: float


class Label(NamedTuple):
    """A label to place: its horizontal extent, and the y its box's centre would like to have."""

    x0: float
    x1: float
    y: float


def text_width(text: str, font_px: float = LABEL_FONT_PX) -> float:
    """A generous width estimate for `text` in a proportional sans-serif font, without measuring.

    Over-estimating only spreads labels a little more; under-estimating could let two overlap.
    """
    width = 0.0
    for char in text:
        if unicodedata.east_asian_width(char) in ("W", "F"):
            width += 1.0
        elif unicodedata.combining(char):
            continue
        elif char in "il.,:;|!'`":
            width += 0.32
        elif char.isupper() or char in "mwMW@%":
            width += 0.8
        else:
            width += 0.62
    return math.ceil(width * font_px)


def _apart(a: Box, b: Box, gap: float) -> bool:
    """The boxes share no horizontal extent, or are at least `gap` apart vertically."""
    if a.x1 <= b.x0 or b.x1 <= a.x0:
        return True
    return a.y0 >= b.y1 + gap - EPSILON or b.y0 >= a.y1 + gap - EPSILON


def place_labels(
    labels: Sequence[Label],
    *,
    height: float = LABEL_HEIGHT,
    top: float,
    bottom: float,
    gap: float = 2.0,
    obstacles: Sequence[Box] = (),
) -> list[Box]:
    """One box per label, in the order given: no two overlap, none overlaps an obstacle.

    Every box starts at or below `top`; each ends at or above `bottom` unless there is no room
    left there, in which case it goes below whatever is in its way.
    """
    placed: list[Box | None] = [None] * len(labels)
    taken: list[Box] = list(obstacles)
    order = sorted(range(len(labels)), key=lambda i: (labels[i].y, labels[i].x0, i))
    for index in order:
        box = _place(labels[index], taken, height=height, top=top, bottom=bottom, gap=gap)
        placed[index] = box
        taken.append(box)
    return [box for box in placed if box is not None]


def _place(
    label: Label, taken: Sequence[Box], *, height: float, top: float, bottom: float, gap: float
) -> Box:
    """The box of one label among the boxes `taken`: the free place nearest the one it wants."""
    wanted = label.y - height / 2
    in_way = [box for box in taken if _shares_x(box, label)]
    candidates = [max(top, min(wanted, bottom - height))]
    for box in in_way:
        candidates.extend((box.y0 - gap - height, box.y1 + gap))

    def box_at(y0: float) -> Box:
        return Box(label.x0, y0, label.x1, y0 + height)

    fitting = [y for y in candidates if y >= top - EPSILON and _free(box_at(y), in_way, gap)]
    inside = [y for y in fitting if y + height <= bottom + EPSILON]
    return box_at(min(inside or fitting, key=lambda y: (abs(y - wanted), y)))


def _shares_x(box: Box, label: Label) -> bool:
    """The box and the label share some horizontal extent (so one could sit on the other)."""
    return not (box.x1 <= label.x0 or label.x1 <= box.x0)


def _free(box: Box, others: Sequence[Box], gap: float) -> bool:
    return all(_apart(box, other, gap) for other in others)


def overlapping(boxes: Sequence[Box], gap: float = 0.0) -> list[tuple[int, int]]:
    """Pairs of boxes (by index) closer than `gap`: empty when a placement is good."""
    return [
        (i, j)
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if not _apart(boxes[i], boxes[j], gap)
    ]
