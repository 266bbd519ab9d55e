"""Server-side SVG line charts (toolkit.svgplot): well-formed, labelled, gaps kept."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from toolkit.svgplot import Series, format_value, line_chart

SVG = "{http://www.w3.org/2000/svg}"


def _parse(markup: str) -> ET.Element:
    return ET.fromstring(markup)


def _texts(root: ET.Element) -> list[str]:
    return [element.text or "" for element in root.iter(f"{SVG}text")]


def test_a_chart_is_well_formed_svg_with_title_axis_labels_and_legend() -> None:
    root = _parse(line_chart("Lag", ("12:00", "13:00 UTC"),
                             [Series("primary", [0.5, 2.0]), Series("standby", [1.0, 4.0])],
                             "s"))
    assert root.tag == f"{SVG}svg"
    texts = _texts(root)
    assert {"Lag", "12:00", "13:00 UTC", "primary", "standby", "4 s", "0 s"} <= set(texts)


def test_a_missing_value_splits_the_line_and_a_lone_point_is_a_dot() -> None:
    root = _parse(line_chart("x", ("a", "b"), [Series("s", [1, 2, None, 3, None, 4, 5, 6])]))
    lines = [p.get("points", "").split() for p in root.iter(f"{SVG}polyline")]
    assert [len(points) for points in lines] == [2, 3]
    assert len(list(root.iter(f"{SVG}circle"))) == 1


def test_labels_are_escaped_and_nothing_is_fetched() -> None:
    markup = line_chart("<b>&", ("<", ">"), [Series('"q" <script>', [1])])
    root = _parse(markup)
    assert "<b>&" in _texts(root) and '"q" <script>' in _texts(root)
    assert "<script" not in markup and "href" not in markup


def test_values_map_into_the_plot_with_the_largest_at_the_top() -> None:
    root = _parse(line_chart("x", ("a", "b"), [Series("s", [0, 10])], height=170))
    frame = next(root.iter(f"{SVG}rect"))
    top, bottom = float(frame.get("y", 0)), float(frame.get("y", 0)) + float(
        frame.get("height", 0))
    (first, last), = [p.get("points", "").split() for p in root.iter(f"{SVG}polyline")]
    assert float(first.split(",")[1]) == bottom and float(last.split(",")[1]) == top


def test_a_chart_without_values_says_no_data() -> None:
    root = _parse(line_chart("x", ("a", "b"), [Series("s", [None, None])]))
    assert "no data" in _texts(root)
    assert not list(root.iter(f"{SVG}polyline"))


def test_many_series_get_more_legend_rows_and_a_taller_chart() -> None:
    few = _parse(line_chart("x", ("a", "b"), [Series(str(n), [n]) for n in range(4)]))
    many = _parse(line_chart("x", ("a", "b"), [Series(str(n), [n]) for n in range(9)]))
    assert int(many.get("height", 0)) == int(few.get("height", 0)) + 24


def test_axis_values_are_short() -> None:
    assert [format_value(v) for v in (0, 0.000123456, 2.5, 12345.6)] == [
        "0", "0.000123", "2.5", "12,346"]
