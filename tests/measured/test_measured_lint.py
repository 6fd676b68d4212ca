"""The hand-typed-figure lint: positive and negative cases, tables, code, and the cited-figure escape."""

from __future__ import annotations

import plainview as pv
import pytest

from site_plugins.measured import expand, lint

PATH = "content/terms/t.md"


def remedy(figure: str) -> str:
    return (
        "take it from a result with {{ value EXPERIMENT row=KERNEL col=COLUMN }} (or {{ ratio ... }}), "
        f'or quote a cited source with {{{{ cited "{figure}" source="SOURCE TITLE" }}}}'
    )


def problems(body: str, **kw: object) -> list[str]:
    out = expand(body, path=PATH, first_line=5, view=pv.view(), preview=False, **kw)  # type: ignore[arg-type]
    return [str(p) for p in out.problems]


@pytest.mark.parametrize(
    ("sentence", "figure"),
    [
        ("HBM3e gives 4.8 TB/s here.", "4.8 TB/s"),
        ("HBM3e gives 4.8TB/s here.", "4.8TB/s"),
        ("It reached 3,894 GB/s.", "3,894 GB/s"),
        ("A launch takes 0.3 ms.", "0.3 ms"),
        ("About 12 µs per call.", "12 µs"),
        ("About 12 μs per call.", "12 μs"),  # Greek mu, not the micro sign
        ("About 12 us per call.", "12 us"),
        ("Latency is 5 ns.", "5 ns"),
        ("Peak is 51 TFLOP/s.", "51 TFLOP/s"),
        ("Peak is 989 TFLOPS.", "989 TFLOPS"),
        ("Naive runs at 900 GFLOP/s.", "900 GFLOP/s"),
        ("It took 10 milliseconds.", "10 milliseconds"),
        ("Roughly 4.8&nbsp;TB/s.", "4.8&nbsp;TB/s"),
        ("A PCIe link moves 64 GiB/s.", "64 GiB/s"),
        ("Between 1-2 ms.", "2 ms"),
        ("# Heading with 3 ms", "3 ms"),
        ("- a list item: 7 ns", "7 ns"),
    ],
)
def test_hand_typed_figures_are_flagged(sentence: str, figure: str) -> None:
    assert problems(f"Intro.\n{sentence}\n") == [f"{PATH}:6: hand-typed figure '{figure}'; {remedy(figure)}"]


@pytest.mark.parametrize(
    "sentence",
    [
        "Compile for sm_90 with 32 threads per warp.",
        "The ms field and GB/s in general.",
        "An H200 with CUDA 13.0 and driver 580.159.04.",
        "Takes 3 s to compile, version v13.0, 100 % done, x86 host, 2nd try.",
        "Inline code `3 ms` and ``4.8 TB/s`` are code.",
        'Written with a cited figure: {{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }}.',
        "<!-- a hidden 3 ms note -->",
    ],
)
def test_not_figures(sentence: str) -> None:
    assert problems(f"{sentence}\n") == []


def test_figures_in_fenced_code_are_not_prose() -> None:
    assert problems("```text\nmemcpy: 3894 GB/s, 0.14 ms\n```\n\n    ~~~\n    12 ns\n    ~~~\n") == []


def test_numeric_cells_under_a_unit_header_are_hand_typed() -> None:
    body = (
        "| Kernel | Time (ms) | GB/s | Notes |\n"
        "|---|--:|--:|---|\n"
        "| copy | 0.140 | 3,834 | 1 |\n"
        "| naive | 0.490 | 1,095 | fine |\n"
        "\n"
        "| Kernel | Threads |\n"
        "|---|---|\n"
        "| copy | 256 |\n"
    )
    assert problems(body) == [
        f"{PATH}:7: hand-typed figure '0.140'; {remedy('0.140')}",
        f"{PATH}:7: hand-typed figure '3,834'; {remedy('3,834')}",
        f"{PATH}:8: hand-typed figure '0.490'; {remedy('0.490')}",
        f"{PATH}:8: hand-typed figure '1,095'; {remedy('1,095')}",
    ]


def test_cited_figure_renders_with_a_visible_source_marker() -> None:
    body = 'The H200 is rated at {{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }} of HBM3e bandwidth.\n'
    out = expand(body, path=PATH, first_line=1, view=pv.view(), preview=False)
    assert out.problems == []
    assert out.shown_values == ()  # a cited figure is text the sign-off covers, not a measured value
    assert out.markdown == (
        'The H200 is rated at <span class="gloss-cited">4.8 TB/s<sup class="gloss-cited-source" '
        'title="quoted from NVIDIA H200 datasheet">[NVIDIA H200 datasheet]</sup></span> of HBM3e bandwidth.\n'
    )


def test_cited_source_must_be_one_of_the_entrys_sources_when_given() -> None:
    body = 'Rated at {{ cited "4.8 TB/s" source="NVIDIA H200 datasheat" }}.\n'
    sources = ["NVIDIA H200 datasheet", "CUDA C++ Best Practices Guide"]
    assert problems(body, sources=sources) == [
        f"{PATH}:5: cited source 'NVIDIA H200 datasheat' is not one of this entry's sources; "
        "did you mean 'NVIDIA H200 datasheet'? add it under 'sources:' in the front matter or name one of: "
        "'NVIDIA H200 datasheet', 'CUDA C++ Best Practices Guide'"
    ]
    assert problems(body.replace("datasheat", "datasheet"), sources=sources) == []


def test_preview_marks_the_hand_typed_figure_on_the_page() -> None:
    body = "It moves 4.8 TB/s.\n"
    shown = expand(body, path=PATH, first_line=1, view=pv.view(), preview=True)
    assert shown.markdown == 'It moves <mark class="gloss-measured-problem">4.8 TB/s</mark>.\n'
    built = expand(body, path=PATH, first_line=1, view=pv.view(), preview=False)
    assert built.markdown == body
    assert shown.problems == built.problems != []


def test_lint_figures_for_text_that_is_never_expanded() -> None:
    from site_plugins.measured import lint_figures

    assert [
        str(p) for p in lint_figures("Tiling reaches 3.7 TB/s on an `H200 (4.8 TB/s)`.", path=PATH, first_line=3)
    ] == [f"{PATH}:3: hand-typed figure '3.7 TB/s'; {remedy('3.7 TB/s')}"]
    assert lint_figures("Tiling stages a piece of an array in shared memory.", path=PATH, first_line=3) == []


# --- issue 34: the unit class, declared once ------------------------------------------------------------


@pytest.mark.parametrize("figure", ["18.5 FLOP/byte", "9.8 FLOP/B", "4 FLOPs per byte", "1.98 GHz", "1,980 MHz",
                                    "32 cycles", "4 clock cycles", "12 clocks", "228 KB", "50 MB", "227 KiB",
                                    "141 GB", "700 W", "2.5 ps", "3 TB per second", "0.5 bytes/FLOP"])
def test_every_family_of_units_is_a_figure(figure: str) -> None:
    assert lint.figures(f"It reaches {figure} here.") == [figure]
    nbsp = figure.replace(" ", chr(0xA0), 1)
    assert lint.figures(f"It reaches {nbsp} here.") == [nbsp]


def test_every_unit_a_page_renders_is_in_the_declared_class() -> None:
    from site_plugins.measured import fmt

    units = {u for _, u in fmt.COLUMNS.values() if u and u != "%"} | {"KiB"}  # (observed limits: KiB)
    assert units  # each as the formatter writes it, with its no-break space
    for unit in sorted(units):
        assert lint.figures(f"It shows {fmt.quantity(227.5, unit)}.") == [fmt.quantity(227.5, unit)], unit


@pytest.mark.parametrize("text", ["a 256 MiB buffer", "4 KiB pages", "an 8192 × 8192 tile of 4-byte floats",
                                  "unrolled 4x", "32 threads", "64 bytes per line"])
def test_chosen_sizes_and_counts_are_not_figures(text: str) -> None:
    assert lint.figures(text) == []


def test_a_unit_in_a_table_header_marks_its_cells() -> None:
    lines = ["| Kernel | Ridge (FLOP/byte) | Clock (GHz) |", "|---|---|---|", "| a | 18.5 | 1.98 |"]
    cols = lint.table_unit_columns(lines, 0)
    assert cols == [False, True, True] and lint.numeric_cells(lines[2], cols) == ["18.5", "1.98"]
