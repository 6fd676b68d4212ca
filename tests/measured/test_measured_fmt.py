"""The one number formatter: table cells, prose values, ratios and chart labels all come from it."""

from __future__ import annotations

import math

import pytest

from site_plugins.measured import fmt

NB = "\u00a0"


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (3893.6, "3,894"),  # integer digits are never rounded away
        (12345.4, "12,345"),
        (999.6, "1,000"),
        (100.0, "100"),
        (97.26, "97.3"),
        (99.96, "100"),  # rounding carries into a new digit: still three significant digits
        (9.996, "10.0"),
        (1.9234, "1.92"),
        (1.5, "1.50"),  # trailing zeros are significant and kept
        (0.30123, "0.301"),
        (0.0312, "0.0312"),
        (0.000412, "0.000412"),
        (0.0, "0"),
        (-2.345, "-2.35"),
        (None, "\u2014"),
        (math.nan, "\u2014"),
        (math.inf, "\u2014"),
    ],
)
def test_number(x: float | None, text: str) -> None:
    assert fmt.number(x) == text


def test_units_join_with_a_no_break_space() -> None:
    assert fmt.prose("gbps", 3893.6) == f"3,894{NB}GB/s"
    assert fmt.prose("time", 0.30123) == f"0.301{NB}ms"
    assert fmt.prose("iqr", 0.00075) == f"0.000750{NB}ms"
    assert fmt.prose("gflops", 51234.0) == f"51,234{NB}GFLOP/s"
    assert fmt.prose("pct_copy", 97.26) == f"97.3{NB}%"
    assert fmt.prose("pct_peak", None) == "\u2014"


def test_cell_is_the_number_alone_and_agrees_with_prose() -> None:
    for column in fmt.COLUMNS:
        assert fmt.prose(column, 1234.5).startswith(fmt.cell(column, 1234.5))


def test_ratio_and_percent_and_size() -> None:
    assert fmt.ratio(1.8894) == "1.89\u00d7"
    assert fmt.ratio(None) == "\u2014"
    assert fmt.percent(52.08) == f"52.1{NB}%"
    assert fmt.size_label("8192x8192") == f"8192{NB}\u00d7{NB}8192"


def test_size_labels_other_than_dims_stay_as_written() -> None:
    assert fmt.size_label("2003x3001x1999") == f"2003{NB}\u00d7{NB}3001{NB}\u00d7{NB}1999"
    assert fmt.size_label("16384 blocks x 256 loads") == "16384 blocks x 256 loads"
    assert fmt.size_label("256 MiB") == "256 MiB"


def test_registers_are_whole_numbers_in_cells_and_prose() -> None:
    from site_plugins.measured import fmt

    assert fmt.cell("registers", 31.0) == "31" and fmt.prose("registers", 127.0) == "127"
    assert fmt.cell("registers", None) == fmt.DASH
    assert fmt.prose("pct_shared_peak", 70.12) == "70.1\u00a0%"
