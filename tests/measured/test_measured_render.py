"""Table embeds, charts and value references rendered from plain result data (no files, no build)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import escape

import plainview as pv

from site_plugins.measured import expand
from site_plugins.measured.model import Result

PATH = "content/terms/t.md"
NB = "\u00a0"
SENTENCE = (
    "NVIDIA H200, driver 580.159.04, CUDA 13.0 (V13.0.88), built with nvcc -O3 -arch=sm_90, "
    "captured 2026-12-02 on verification node h200-1"
)
SVG = "http://www.w3.org/2000/svg"


def run(body: str, preview: bool = False, view: object = None) -> tuple[str, list[str], tuple[str, ...]]:
    out = expand(body, path=PATH, first_line=1, view=view or pv.view(), preview=preview)  # type: ignore[arg-type]
    return out.markdown, [str(p) for p in out.problems], out.shown_values


def svg_of(markdown: str) -> ET.Element:
    match = re.search(r"<svg.*?</svg>", markdown)
    assert match, markdown
    return ET.fromstring(match.group(0))


def test_embed_renders_provenance_then_table_then_chart() -> None:
    md, problems, values = run("Before.\n{{ measured day13-transpose size=8192x8192 }}\nAfter.\n")
    assert problems == []
    # The block stands in its own paragraph so Markdown leaves the HTML alone.
    before, block, after = md.split("\n\n")
    assert before == "Before." and after == "After.\n"
    assert block.startswith(
        '<div class="gloss-measured" data-experiment="day13-transpose" data-size="8192x8192" '
        'data-node="h200-1"><p class="gloss-measured-provenance" data-search-exclude>' + SENTENCE + ".</p><table>"
    )
    assert block.index("gloss-measured-provenance") < block.index("<table>") < block.index("<svg")
    assert (
        '<thead><tr><th>Kernel</th> <th class="gloss-num">Time (ms)</th> <th class="gloss-num">GB/s</th> '
        '<th class="gloss-num">% of copy</th></tr></thead>'
    ) in block
    assert (
        '<tr><td><code>tile[32][33]</code></td> <td class="gloss-num">0.145</td> '
        '<td class="gloss-num">3,703</td> <td class="gloss-num">93.1</td></tr>'
    ) in block
    assert re.findall(r"<code>([^<]+)</code>", block) == ["copy", "naive", "tile[32][32]", "tile[32][33]"]
    key = "day13-transpose/8192x8192/h200-1"
    assert values[0] == f"{key} provenance: {SENTENCE}"
    assert values[1:4] == (
        f"{key} copy time: 0.140{NB}ms",
        f"{key} copy gbps: 3,835{NB}GB/s",
        f"{key} copy pct_copy: 96.4{NB}%",
    )
    assert len(values) == 1 + 4 * 3


def test_rows_by_label_or_id_in_the_order_given_with_columns_and_a_ceiling_row() -> None:
    md, problems, values = run(
        '{{ measured day13-transpose size=8192x8192 rows="tile[32][33]",tile32,memcpy cols=gbps,pct_peak,iqr }}\n'
    )
    assert problems == []
    assert re.findall(r"<code>([^<]+)</code>", md) == ["tile[32][33]", "tile[32][32]", "cudaMemcpy D2D"]
    assert (
        '<th class="gloss-num">GB/s</th> <th class="gloss-num">% of peak</th> <th class="gloss-num">IQR (ms)</th>'
    ) in md
    assert [v.split(" ", 1)[1] for v in values[1:4]] == [
        f"tile[32][33] gbps: 3,703{NB}GB/s",
        f"tile[32][33] pct_peak: 76.9{NB}%",
        f"tile[32][33] iqr: 0.000400{NB}ms",
    ]


def test_suspect_and_noisy_rows_are_marked_with_their_reason() -> None:
    md, problems, _ = run("{{ measured day13-transpose size=2003x3001 }}\n")
    assert problems == []
    assert (
        '<tr class="gloss-suspect"><td><code>copy</code> <span class="gloss-suspect-mark" title="suspect" '
        'data-search-exclude>\u26a0</span></td>'
    ) in md
    assert '<td class="gloss-note">1</td>' in md
    assert '<td class="gloss-note">1, 2</td>' in md
    assert (
        '<ol class="gloss-notes" aria-label="Notes"><li>suspect: working set fits in L2</li>'
        "<li>noisy: stopped at the time limit</li></ol>"
    ) in md
    assert "<th>Note</th>" in md


def test_chart_bars_scale_with_the_values_against_the_ceiling() -> None:
    md, _, _ = run("{{ measured day13-transpose size=8192x8192 }}\n")
    svg = svg_of(md)
    assert svg.get("role") == "img"
    assert svg.get("aria-labelledby") == "gloss-measured-1-t gloss-measured-1-d"
    title = svg.find(f"{{{SVG}}}title")
    desc = svg.find(f"{{{SVG}}}desc")
    assert title is not None and title.get("id") == "gloss-measured-1-t"
    assert title.text == f"GB/s by kernel, day13-transpose at 8192{NB}\u00d7{NB}8192 on h200-1"
    assert desc is not None and desc.text == (
        f"Bar chart of GB/s by kernel against the copy ceiling 3,977{NB}GB/s. "
        f"copy: 3,835{NB}GB/s (96.4{NB}% of copy). naive: 1,096{NB}GB/s (27.6{NB}% of copy). "
        f"tile[32][32]: 1,988{NB}GB/s (50.0{NB}% of copy). tile[32][33]: 3,703{NB}GB/s (93.1{NB}% of copy)."
    )
    bars = svg.findall(f"{{{SVG}}}rect")
    widths = [float(b.get("width", "0")) for b in bars]
    x0 = float(bars[0].get("x", "0"))
    # The first ceiling line is the legend's sample; the next ones are drawn across each bar.
    ceiling = svg.findall(f"{{{SVG}}}line[@class='gloss-chart-ceiling']")[1]
    assert ceiling.get("x1") == ceiling.get("x2")
    span = float(ceiling.get("x1", "0")) - x0  # the ceiling is the longest thing drawn
    for w, gbps in zip(widths, [3834.8, 1095.7, 1988.4, 3702.6], strict=True):
        assert abs(w - span * gbps / 3976.8) < 0.1
    labels = [t.text for t in svg.findall(f"{{{SVG}}}text")]
    assert labels[:3] == [f"copy ceiling 3,977{NB}GB/s", "copy", f"3,835{NB}GB/s"]  # legend, then the bars
    assert labels[-5:] == ["0", "1,000", "2,000", "3,000", "GB/s"]  # the axis and its unit
    # Palette-following: no hard-coded colours, only currentColor and the classes styled by the theme CSS.
    assert not re.search(r'(fill|stroke)="(?!currentColor|none)[^"]*"', md)
    assert "<script" not in md


def test_suspect_bars_are_drawn_differently_and_flagged_in_the_text_alternative() -> None:
    md, _, _ = run("{{ measured day13-transpose size=2003x3001 }}\n")
    svg = svg_of(md)
    assert [b.get("class") for b in svg.findall(f"{{{SVG}}}rect")] == [
        "gloss-chart-bar gloss-chart-bar--suspect",
        "gloss-chart-bar gloss-chart-bar--suspect",
    ]
    desc = svg.find(f"{{{SVG}}}desc")
    assert desc is not None and "(suspect: working set fits in L2)" in (desc.text or "")


def test_gflops_experiment_has_no_copy_column_and_no_ceiling_line() -> None:
    md, problems, values = run("{{ measured day16-matmul }}\n")
    assert problems == []
    assert '<th class="gloss-num">GFLOP/s</th></tr>' in md and "% of copy" not in md
    assert "gloss-chart-ceiling" not in md
    assert values[-1] == f"day16-matmul/4096/h200-1 smem tile gflops: 10,995{NB}GFLOP/s"


def test_two_charts_on_a_page_get_unique_ids() -> None:
    md, _, _ = run("{{ measured day13-transpose size=8192x8192 }}\n\n{{ measured day13-transpose size=8192x8192 }}\n")
    ids = re.findall(r' id="([^"]+)"', md)
    assert ids == ["gloss-measured-1-t", "gloss-measured-1-d", "gloss-measured-2-t", "gloss-measured-2-d"]


def test_values_and_ratios_in_prose_match_the_table() -> None:
    body = (
        'Padded: {{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }}, '
        "{{ value day13-transpose size=8192x8192 row=tile32-padded col=pct_copy }} of copy, "
        'in {{ value day13-transpose size=8192x8192 row="tile[32][33]" col=time }}; '
        '{{ ratio day13-transpose size=8192x8192 num="tile[32][33]" den="tile[32][32]" }} the unpadded tile, '
        "naive at {{ ratio day13-transpose size=8192x8192 num=naive den=copy as=percent }} of copy; "
        '{{ value day16-matmul row="smem tile" }}.\n'
    )
    md, problems, values = run(body + "\n{{ measured day13-transpose size=8192x8192 }}\n")
    assert problems == []
    # The page says, above its text, which GPU the figures in the text were measured on.
    said, blank, first = md.split("\n")[:3]
    assert said == '<p class="gloss-figures-node" data-search-exclude>Figures in the text: NVIDIA H200 (h200-1).</p>'
    assert blank == ""
    text = re.sub(r"<[^>]+>", "", first)
    assert text == (
        f"Padded: 3,703{NB}GB/s, 93.1{NB}% of copy, in 0.145{NB}ms; 1.86\u00d7 the unpadded tile, "
        f"naive at 28.6{NB}% of copy; 10,995{NB}GFLOP/s."
    )
    key = "day13-transpose/8192x8192/h200-1"
    assert values[:6] == (
        f"{key} tile[32][33] gbps: 3,703{NB}GB/s",
        f"{key} tile[32][33] pct_copy: 93.1{NB}%",
        f"{key} tile[32][33] time: 0.145{NB}ms",
        f"{key} tile[32][33]/tile[32][32] gbps: 1.86\u00d7",
        f"{key} naive/copy gbps: 28.6{NB}%",
        f"day16-matmul/4096/h200-1 smem tile gflops: 10,995{NB}GFLOP/s",
    )
    # The same figure in prose and in the table, from the one formatter.
    assert '<td class="gloss-num">3,703</td>' in md and f"{key} tile[32][33] gbps: 3,703{NB}GB/s" in values[6:]
    assert (
        '<span class="gloss-value" title="day13-transpose, tile[32][33], 8192\u00a0\u00d7\u00a08192, h200-1">'
        f"3,703{NB}GB/s</span>"
    ) in md
    # Inline HTML keeps Markdown punctuation inert.
    assert "&#42;" not in md and "tile&#91;" not in text


def test_broken_embed_shows_a_banner_never_a_table() -> None:
    stale = pv.result(
        state="stale",
        problem="code/day13/transpose.cu changed since it was measured",
        remedy="re-run `gloss measure run day13-transpose --node h200-1`",
    )
    view = pv.view(stale)
    body = "{{ measured day13-transpose size=8192x8192 }}\nAt {{ value day13-transpose size=8192x8192 row=copy }}.\n"
    problem = (
        "result of experiment 'day13-transpose' on node 'h200-1' is stale: code/day13/transpose.cu changed "
        "since it was measured"
    )
    remedy = "re-run `gloss measure run day13-transpose --node h200-1`"
    for preview in (True, False):
        md, problems, values = run(body, preview=preview, view=view)
        assert problems == [f"{PATH}:1: {problem}; {remedy}", f"{PATH}:2: {problem}; {remedy}"]
        assert values == ()
        assert "<table>" not in md and "<svg" not in md and "3,835" not in md
    md, _, _ = run(body, preview=True, view=view)
    assert md.startswith(
        '<div class="admonition danger gloss-measured-problem" role="alert">'
        '<p class="admonition-title">Measurement not shown: day13-transpose</p>'
        f"<p>{problem}; re-run &#96;gloss measure run day13-transpose --node h200-1&#96;</p></div>\n\n"
    )
    assert f'At <mark class="gloss-measured-problem" title="{escape(problem)}">\u26a0 {problem}</mark>.' in md
    md, _, _ = run(body, preview=False, view=view)
    assert f"<p>{problem}</p></div>" in md  # readers are not told to run commands
    assert (
        f'At <mark class="gloss-measured-problem" title="{escape(problem)}">\u26a0 measured value unavailable</mark>.'
        in md
    )


def test_several_nodes_need_a_choice_unless_one_alone_is_fresh() -> None:
    h200 = pv.result()
    other = Result("day13-transpose", "h100-1", "stale", provenance=pv.PROV, tables=(pv.BIG,))
    _, problems, _ = run("{{ value day13-transpose size=8192x8192 row=copy }}\n", view=pv.view(h200, other))
    assert problems == []
    other_fresh = Result("day13-transpose", "h100-1", "fresh", provenance=pv.PROV, tables=(pv.BIG,))
    _, problems, _ = run("{{ value day13-transpose size=8192x8192 row=copy }}\n", view=pv.view(h200, other_fresh))
    assert problems == [
        f"{PATH}:1: experiment 'day13-transpose' has results on several nodes: h100-1 (fresh), "
        "h200-1 (fresh); choose one with node=h100-1, or name the node the page's figures come from with "
        "'node: h100-1' in its front matter (or the gloss plugin's default_node in mkdocs.yml)"
    ]


def test_pages_without_directives_or_figures_come_back_unchanged() -> None:
    body = "Plain prose about tiles, 32 threads and [32][33] padding.\n"
    out = expand(body, path=PATH, first_line=1, view=pv.view(), preview=False)
    assert out.markdown == body and out.problems == [] and out.shown_values == () and out.experiments == ()


def test_values_from_suspect_rows_carry_the_suspect_mark() -> None:
    md, problems, values = run(
        "At {{ value day13-transpose size=2003x3001 row=copy }} and "
        "{{ ratio day13-transpose size=2003x3001 num=copy den=naive }}.\n"
    )
    assert problems == []
    mark = '<sup class="gloss-suspect-mark" title="{}" data-search-exclude>\u26a0</sup>'
    assert f"{NB}GB/s</span>{mark.format('copy: suspect: working set fits in L2')} and" in md
    assert mark.format("copy: suspect: working set fits in L2 / naive: suspect: working set fits in L2") in md
    assert values[0] == f"day13-transpose/2003x3001/h200-1 copy gbps: 2,404{NB}GB/s"  # the number, not the mark


def test_shared_memory_experiment_defaults_to_shared_bandwidth_without_copy_or_ceiling() -> None:
    banks = Result(
        "day15-bank-conflicts", "h200-1", "fresh", metric="shared_gbps", provenance=pv.PROV, tables=(pv.BANKS,)
    )
    view = pv.view(banks)
    md, problems, values = run(
        "{{ measured day15-bank-conflicts }}\nThe 32-way stride takes "
        "{{ ratio day15-bank-conflicts num=stride-32 den=stride-1 col=time }} as long.\n",
        view=view,
    )
    assert problems == []
    assert ('<th class="gloss-num">Time (ms)</th> <th class="gloss-num">Shared-memory GB/s</th></tr>') in md
    assert "<caption>day15-bank-conflicts at 16384 blocks x 256 loads</caption>" in md
    assert "gloss-chart-ceiling" not in md and "% of copy" not in md
    assert 'title="day15-bank-conflicts, stride 32 (32-way) over stride 1 (conflict-free) in Time (ms), ' in md
    assert values[-1] == (
        "day15-bank-conflicts/16384 blocks x 256 loads/h200-1 "
        "stride 32 (32-way)/stride 1 (conflict-free) time: 30.0\u00d7"
    )
    assert f"stride 1 (conflict-free) shared_gbps: 17,180{NB}GB/s" in values[2]


def test_placeholder_include_path_is_shown_in_its_real_form() -> None:
    from site_plugins.measured import render

    assert render.shown_flags("--cubin -O3 -arch sm_90 -I{pycuda}/cuda") == (
        "--cubin -O3 -arch sm_90 -I…/site-packages/pycuda/cuda"
    )
