"""Line charts as inline SVG markup, drawn on the server: no script, no external resource.

A chart has a title, labelled series over shared x positions, the y axis from 0 (or the
smallest value, if negative) to the largest value with both labelled, and the first and last
x labels. A missing value (None) leaves a gap; a point with no neighbour is drawn as a dot.

>>> line_chart("Deliveries/s", ["12:00", "13:00"], [Series("primary", [0, 4.5, None, 3])])
'<svg xmlns="http://www.w3.org/2000/svg" ...'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 56, 8, 22, 24
LEGEND_COLUMNS, LEGEND_ROW, LEGEND_WIDTH = 4, 12, 96


@dataclass(frozen=True)
class Series:
    """One line: its label and a value (or None) per x position."""

    label: str
    values: Sequence[float | None]


def line_chart(title: str, x_labels: tuple[str, str], series: Sequence[Series],
               unit: str = "", width: int = 440, height: int = 170) -> str:
    """An ``<svg>`` element plotting ``series``; ``x_labels`` name the first and last x."""
    values = [v for line in series for v in line.values if v is not None]
    low, high = min([0.0, *values]), max([0.0, *values])
    if high == low:
        high = low + 1
    legend_rows = math.ceil(len(series) / LEGEND_COLUMNS)
    height += LEGEND_ROW * max(0, legend_rows - 1)
    frame = _Frame(width, height, max((len(line.values) for line in series), default=1), low,
                   high, legend_rows)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" '
             f'font-family="sans-serif" font-size="10">',
             f'<title>{escape(title)}</title>',
             f'<text x="{MARGIN_LEFT}" y="13" font-size="12" font-weight="bold">'
             f'{escape(title)}</text>', *_axes(frame, x_labels, unit)]
    for number, line in enumerate(series):
        colour = COLOURS[number % len(COLOURS)]
        parts += _line(frame, line.values, colour)
        parts.append(_legend(frame, number, line.label, colour))
    if not values:
        parts.append(f'<text x="{(frame.left + frame.right) / 2:.1f}" '
                     f'y="{(frame.top + frame.bottom) / 2:.1f}" text-anchor="middle" '
                     f'fill="#888">no data</text>')
    parts.append("</svg>")
    return "".join(parts)


def format_value(value: float) -> str:
    """A value for an axis label: 3 significant digits, no exponent below a million."""
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


@dataclass(frozen=True)
class _Frame:
    width: int
    height: int
    points: int
    low: float
    high: float
    legend_rows: int

    @property
    def left(self) -> int:
        return MARGIN_LEFT

    @property
    def right(self) -> int:
        return self.width - MARGIN_RIGHT

    @property
    def top(self) -> int:
        return MARGIN_TOP

    @property
    def bottom(self) -> int:
        return self.height - MARGIN_BOTTOM - LEGEND_ROW * max(0, self.legend_rows - 1)

    def x(self, index: int) -> float:
        span = max(1, self.points - 1)
        return self.left + (self.right - self.left) * index / span

    def y(self, value: float) -> float:
        return self.bottom - (self.bottom - self.top) * (value - self.low) / (self.high - self.low)


def _axes(frame: _Frame, x_labels: tuple[str, str], unit: str) -> list[str]:
    suffix = f" {unit}" if unit else ""
    return [
        f'<rect x="{frame.left}" y="{frame.top}" width="{frame.right - frame.left}" '
        f'height="{frame.bottom - frame.top}" fill="none" stroke="#ccc"/>',
        f'<text x="{frame.left - 4}" y="{frame.top + 4}" text-anchor="end">'
        f'{escape(format_value(frame.high) + suffix)}</text>',
        f'<text x="{frame.left - 4}" y="{frame.bottom}" text-anchor="end">'
        f'{escape(format_value(frame.low) + suffix)}</text>',
        f'<text x="{frame.left}" y="{frame.bottom + 12}">{escape(x_labels[0])}</text>',
        f'<text x="{frame.right}" y="{frame.bottom + 12}" text-anchor="end">'
        f'{escape(x_labels[1])}</text>',
    ]


def _line(frame: _Frame, values: Sequence[float | None], colour: str) -> list[str]:
    """A polyline per run of values without a gap; a run of one is a dot."""
    parts, run = [], []
    for index, value in enumerate([*values, None]):
        if value is not None:
            run.append((frame.x(index), frame.y(value)))
            continue
        if len(run) == 1:
            parts.append(f'<circle cx="{run[0][0]:.1f}" cy="{run[0][1]:.1f}" r="2" '
                         f'fill="{colour}"/>')
        elif run:
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
            parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" '
                         f'stroke-width="1.5"/>')
        run = []
    return parts


def _legend(frame: _Frame, number: int, label: str, colour: str) -> str:
    x = frame.left + LEGEND_WIDTH * (number % LEGEND_COLUMNS)
    y = frame.bottom + 22 + LEGEND_ROW * (number // LEGEND_COLUMNS)
    return (f'<rect x="{x}" y="{y - 7}" width="8" height="8" fill="{colour}"/>'
            f'<text x="{x + 11}" y="{y}">{escape(label)}</text>')
