"""The width a measurement table needs (site_plugins/measured/fit.py) and the stylesheet's breaks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from site_plugins.measured import fit

CSS = Path(__file__).parents[2] / "site_plugins/assets/measured/measured.css"


@pytest.mark.parametrize(("need", "expected"), [
    (10.0, 0), (16.0, 0), (16.1, 1), (20.0, 1), (25.9, 2), (32.0, 3), (39.0, 4), (48.0, 5), (48.1, 6), (90.0, 6),
])
def test_fit_class_is_the_first_break_wide_enough(need: float, expected: int) -> None:
    assert fit.fit_class(need) == expected


def test_a_kernel_name_wraps_but_a_number_does_not() -> None:
    base = fit.need_rem(["Kernel", "GB/s"], [["copy 32x32 tiles", "4,050"]])  # 16 characters
    # A longer name wraps at its spaces to lines of KERNEL_CHARS characters: no wider...
    long_name = fit.need_rem(["Kernel", "GB/s"], [["register tile 128x128, double-buffered (16-byte "
        "cp.async)", "4,050"]])
    assert long_name == pytest.approx(base)
    # ...unless one of its words is longer; a figure always counts whole.
    word = fit.need_rem(["Kernel", "GB/s"], [["COMPUTE_32F_FAST_TF32_AND_MORE", "4,050"]])
    assert word - base == pytest.approx((30 - 16) * fit.CODE_REM * fit.SLACK)
    wide_number = fit.need_rem(["Kernel", "GB/s"], [["copy 32x32 tiles", "0.0200 (kernel 0.0180)"]])
    assert wide_number - base == pytest.approx((22 - 5) * fit.DIGIT_REM * fit.SLACK)
    # A header wraps at its spaces: only its longest word counts.
    header = fit.need_rem(["Kernel", "% of FP32 ceiling (FMA chains (8 per thread), 62,960 GFLOP/s)"],
                          [["copy 32x32 tiles", "1"]])
    assert header == pytest.approx((16 * fit.CODE_REM + fit.PAD_REM + 8 * fit.HEAD_REM + fit.PAD_REM) * fit.SLACK)


def test_every_break_has_its_container_query_in_the_stylesheet() -> None:
    css = CSS.read_text(encoding="utf-8")
    queries = re.findall(r'@container gloss-measured \(width < ([\d.]+)rem\) \{\n  \.md-typeset \.gloss-measured'
                         r'\[data-fit="(\d+)"\]', css)
    assert [(float(w), int(i)) for w, i in queries] == [(b, i) for i, b in enumerate(fit.BREAKS)]
    # Past the widest break a table is always stacked.
    always = len(fit.BREAKS)
    assert f'@container gloss-measured (width >= 0) {{\n  .md-typeset .gloss-measured[data-fit="{always}"]' in css
