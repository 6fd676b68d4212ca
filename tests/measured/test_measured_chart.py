"""The chart's geometry as plain data: no label crossed by a guide line or by another label, at any
values, names and ceilings; an axis with its unit; a width that follows the column (no pixel width)."""

from __future__ import annotations

import itertools
import math
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from site_plugins.measured import chart

SVG = "{http://www.w3.org/2000/svg}"
COPY = chart.Guide(4081.0, "copy kernel (copy, 32x32 tiles of an 8192-wide matrix, same bytes) 4,081 GB/s", "4 2")
MEMCPY = chart.Guide(4251.0, "driver memcpy (1 GiB) 4,251 GB/s", "1 3",
                     "gloss-chart-ceiling gloss-chart-ceiling--second")
DAY13 = [chart.Bar("copy", 4066.0, "4,066"), chart.Bar("naive", 559.0, "559"),
         chart.Bar("tile[32][32]", 1743.0, "1,743"), chart.Bar("tile[32][33]", 3609.0, "3,609", True)]


def test_the_collision_check_sees_a_label_on_a_line() -> None:
    """The check itself can fail: a value written across a ceiling line and over a name is reported."""
    lay = chart.layout(DAY13, unit="GB/s", guides=[COPY])
    guide = next(line for line in lay.lines if line.cls == "gloss-chart-ceiling" and line.x1 == line.x2)
    crossing = chart.Text(guide.x1 - 10, (guide.y1 + guide.y2) / 2 + 4.5, "3,609 GB/s", "gloss-chart-value")
    bad = chart.Layout(lay.height, (*lay.texts, crossing), lay.lines, lay.bars)
    found = chart.collisions(bad)
    assert ("3,609 GB/s", "gloss-chart-ceiling") in found
    off = chart.Text(chart.WIDTH - 5, 20.0, "past the edge", "gloss-chart-value")
    assert ("past the edge", "the chart's edge") in chart.collisions(
        chart.Layout(lay.height, (off,), (), ()))


def test_day13_chart_has_no_collisions_and_a_value_moves_past_the_second_ceiling() -> None:
    """The reported defect: tile[32][33]'s value sat across the memcpy line, which was not avoided."""
    lay = chart.layout(DAY13, unit="GB/s", guides=[COPY, MEMCPY])
    assert chart.collisions(lay) == []
    guides = sorted({line.x1 for line in lay.lines if "ceiling" in line.cls and line.x1 == line.x2})
    assert len(guides) == 2
    value = next(t for t in lay.texts if t.text.startswith("3,609"))
    assert value.box.left > max(guides)  # right of both lines, not between or across them
    naive = next(t for t in lay.texts if t.text.startswith("559"))
    assert naive.box.right < min(guides)  # a short bar keeps its value beside it


def test_value_x_moves_past_every_line_it_would_cross() -> None:
    assert chart.value_x(106.0, "1,096 GB/s", [290.0]) == 106.0
    assert chart.value_x(286.0, "3,835 GB/s", [290.0]) == 296.0
    assert chart.value_x(286.0, "3,835 GB/s", [290.0, 297.0]) == 303.0  # the second line follows the first
    assert chart.value_x(286.0, "3,835 GB/s", [297.0, 290.0]) == 303.0  # in any order


def _random_case(rng: random.Random) -> tuple[list[chart.Bar], list[chart.Guide], str]:
    names = ["copy", "naive", "tile[32][33]", "smem tile (double-buffered)", "x" * rng.randint(1, 60),
             " ".join(["reg"] * rng.randint(1, 20))]
    bars = []
    for _ in range(rng.randint(1, 7)):
        v = rng.choice([None, 0.0, rng.uniform(0, 5000), rng.uniform(0, 0.5), rng.uniform(1e4, 1e9)])
        bars.append(chart.Bar(rng.choice(names), v, "n/a" if not v else f"{v:,.0f}", rng.random() < 0.3))
    guides = [chart.Guide(rng.uniform(1, 6000), "copy ceiling " + "word " * rng.randint(0, 40), "4 2")]
    if rng.random() < 0.6:
        guides.append(chart.Guide(rng.uniform(1, 6000), "driver memcpy 4,251 GB/s", "1 3"))
    return bars, guides if rng.random() < 0.9 else [], rng.choice(["GB/s", "GFLOP/s", "Shared-memory GB/s", ""])


@pytest.mark.parametrize("seed", range(8))
def test_no_label_is_crossed_or_clipped_at_any_values(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        bars, guides, unit = _random_case(rng)
        lay = chart.layout(bars, unit=unit, guides=guides)
        assert chart.collisions(lay) == [], ([(b.label, b.value) for b in bars], [g.value for g in guides], unit)


def test_guide_lines_stay_within_the_bars_band() -> None:
    lay = chart.layout(DAY13, unit="GB/s", guides=[COPY, MEMCPY])
    names = [t for t in lay.texts if t.cls == "gloss-chart-label"]
    for line in (x for x in lay.lines if "ceiling" in x.cls and x.x1 == x.x2):
        assert any(r.y - 1 == line.y1 and r.y + r.h + 1 == line.y2 for r in lay.bars)
        assert not any(n.box.meets(line.box) for n in names)


def test_the_axis_gives_round_values_and_the_unit() -> None:
    lay = chart.layout(DAY13, unit="GB/s", guides=[COPY, MEMCPY])
    ticks = [t.text for t in lay.texts if t.cls == "gloss-chart-tick"]
    assert ticks == ["0", "1,000", "2,000", "3,000", "4,000"]
    assert [t.text for t in lay.texts if t.cls == "gloss-chart-unit"] == ["GB/s"]
    assert chart.ticks(17180.0, 286.0) == [0.0, 5000.0, 10000.0, 15000.0]
    assert chart.ticks(0.8, 286.0) == [0.0, 0.2, 0.4, 0.6, 0.8]
    assert chart.tick_text(0.25) == "0.25" and chart.tick_text(12500.0) == "12,500"


def test_the_svg_takes_the_column_width_without_a_pixel_width() -> None:
    out = chart.render(DAY13, unit="GB/s", title="t", desc="d", ceiling=COPY.value, ceiling_text=COPY.label,
                       second=(MEMCPY.value, MEMCPY.label)).replace(chart.ID, "c")
    narrow_svg, wide_svg = out.split("</svg>")[:2]
    out = narrow_svg + "</svg>"
    svg = ET.fromstring(out)
    assert svg.get("width") == "100%" and svg.get("viewBox", "").startswith(f"0 0 {chart.WIDTH} ")
    assert not re.search(r"\d\s*px", out), "no pixel width anywhere"
    # Grown to its cap, the FONT-unit text draws at the body text's 0.8 rem; in a 358 px phone column it
    # draws at 11 px or more.
    assert svg.get("style") == f"max-width:calc(0.8rem * {chart.WIDTH} / {chart.FONT})"
    assert chart.FONT * 358 / chart.WIDTH >= 11
    assert svg.get("role") == "img" and svg.get("aria-labelledby") == "c-t c-d"
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert texts[0].startswith("copy kernel") and "GB/s" in texts
    # The wide layout: the same chart on a wider viewBox, capped the same way, out of the search index.
    wide = ET.fromstring(wide_svg + "</svg>")
    assert wide.get("class") == "gloss-chart gloss-chart--w" and wide.get("data-search-exclude") == ""
    assert wide.get("viewBox", "").startswith(f"0 0 {chart.WIDE} ")
    assert wide.get("style") == f"max-width:calc(0.8rem * {chart.WIDE} / {chart.FONT})"
    assert wide.get("aria-labelledby") == "cw-t cw-d"
    # It shows where the column is at least WIDE_REM wide; there its text draws at 11 px or more.
    assert chart.FONT * chart.WIDE_REM * 20 / chart.WIDE >= 11
    css = (Path(__file__).parents[2] / "site_plugins/assets/measured/measured.css").read_text(encoding="utf-8")
    assert f"@container gloss-measured (width >= {chart.WIDE_REM}rem)" in css


# --- the axis the data call for -------------------------------------------------------------------------

# The day-16 ladder on the H200 (GFLOP/s, as the committed result gives them): cuBLAS on tensor cores is
# seven times cuBLAS SGEMM, and scaled to it the FP32 rungs the lesson is about were slivers.
LADDER = [5855.0, 8672.0, 8092.0, 8022.0, 28588.0, 35036.0, 39511.0, 38961.0, 51210.0, 364073.0]
# Host transfers of 4 MiB in streams beside the kernel they feed, in device memory (GB/s).
TRANSFERS = [53.1, 84.9, 82.5, 2629.0]


@pytest.mark.parametrize(("values", "guides", "expected"), [
    (LADDER, [], chart.Scale("broken", 51210.0)),
    (TRANSFERS, [], chart.Scale("broken", 84.9)),
    # Two bars far above eight others: both off the scale (at most a third of the bars may be).
    ([1.0, 1.2, 1.1, 1.3, 1.0, 1.2, 1.1, 1.4, 9.0, 10.0], [], chart.Scale("broken", 1.4)),
    # A ceiling above the rest but under the break counts in the scale.
    (TRANSFERS, [120.0], chart.Scale("broken", 120.0)),
    # A gap that is not big enough, or too many bars above it: linear, to the largest value or ceiling.
    ([555.0, 1744.0, 3606.0, 4050.0], [4074.0, 4250.0], chart.Scale("linear", 4250.0)),
    ([1.0, 10.0, 11.0], [], chart.Scale("linear", 11.0)),
    # A slow outlier at the bottom is the comparison itself (atomics on one word): linear.
    ([1016.0, 1025.0, 9.59, 1023.0], [], chart.Scale("linear", 1025.0)),
    # Values spread evenly over four decades: slivers on a linear axis, so logarithmic.
    ([3.0, 30.0, 300.0, 3000.0, 30000.0], [], chart.Scale("log", 100000.0, 1.0)),
    # Too few bars to judge, or none: linear.
    ([1.0, 100.0], [], chart.Scale("linear", 100.0)),
    ([], [], chart.Scale("linear", 1.0)),
])
def test_the_scale_is_chosen_from_the_values(values: list[float], guides: list[float], expected: chart.Scale) -> None:
    assert chart.choose_scale(values, guides) == expected


def test_an_off_scale_bar_is_cut_and_the_rungs_use_the_axis() -> None:
    bars = [chart.Bar(f"rung {i}", v, f"{v:,.0f}") for i, v in enumerate(LADDER)]
    lay = chart.layout(bars, unit="GFLOP/s")
    assert lay.scale == chart.Scale("broken", 51210.0)
    span = chart.WIDTH - chart.VALUE_W - chart.X0
    widths = [r.w for r in lay.bars]
    # The rungs in proportion to cuBLAS SGEMM, the largest on the scale, at the axis's end...
    assert widths[:9] == pytest.approx([span * v / 51210.0 for v in LADDER[:9]])
    assert widths[0] > 30 and widths[6] > 4 * widths[0]
    # ...and cuBLAS TF32 past it, marked, with two cuts and its value said to be off the scale.
    assert [r.off for r in lay.bars] == [False] * 9 + [True]
    assert widths[9] == span + chart.OFF_W
    assert len([ln for ln in lay.lines if ln.cls == "gloss-chart-break"]) == 2
    assert any(t.text == "364,073\u00a0GFLOP/s, off the scale" for t in lay.texts)
    assert any(t.text == "GFLOP/s, axis cut" for t in lay.texts)
    assert chart.collisions(lay) == []
    out = chart.render(bars, unit="GFLOP/s", title="t", desc="Bar chart.", ceiling=None, ceiling_text="")
    assert out.count('class="gloss-chart-bar gloss-chart-bar--off"') == 2  # narrow and wide
    assert ("The axis is cut at 51,210\u00a0GFLOP/s: the bars beyond it are drawn broken, off the scale of "
            "the others.") in out


def test_a_log_axis_has_round_powers_of_ten() -> None:
    bars = [chart.Bar(str(v), v, str(v)) for v in (3.0, 30.0, 300.0, 3000.0, 30000.0)]
    lay = chart.layout(bars, unit="GB/s", width=chart.WIDE)
    assert lay.scale.kind == "log"
    ticks = [t.text for t in lay.texts if t.cls == "gloss-chart-tick"]
    values = [float(t.replace(",", "")) for t in ticks]
    assert len(values) >= 3 and values[0] == 1.0  # powers of ten, evenly spaced in decades
    assert all(b / a == values[1] / values[0] and math.log10(b).is_integer() for a, b in itertools.pairwise(values))
    widths = [r.w for r in lay.bars]
    steps = [b - a for a, b in itertools.pairwise(widths)]
    assert steps == pytest.approx([steps[0]] * 4)  # each tenfold step the same length
    assert chart.collisions(lay) == []
