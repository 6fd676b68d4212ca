"""``{{ sweep }}``: one column of an experiment's rows at every size, as a table and a chart (pure: plain
result data in, Markdown out)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import plainview as pv

from site_plugins.measured import expand

PATH = "content/terms/x.md"
NB = "\u00a0"


def run(body: str) -> tuple[str, list[str], tuple[str, ...]]:
    out = expand(body, path=PATH, first_line=1, view=pv.view(), preview=False)
    return out.markdown, [str(p) for p in out.problems], out.shown_values


def test_a_sweep_has_a_line_per_size_and_a_column_per_row_and_a_bar_for_each() -> None:
    md, problems, values = run("Before.\n{{ sweep day13-transpose rows=copy,naive col=gbps }}\nAfter.\n")
    assert problems == []
    before, block, after = md.split("\n\n")
    assert before == "Before." and after == "After.\n"
    assert block.startswith('<div class="gloss-measured gloss-sweep" data-experiment="day13-transpose" '
                            'data-node="h200-1"><p class="gloss-measured-provenance" data-search-exclude>NVIDIA H200')
    assert "<caption>day13-transpose: GB/s by size</caption>" in block
    assert ('<thead><tr><th>Size</th> <th class="gloss-num">copy</th> <th class="gloss-num">naive</th></tr></thead>'
            in block)
    # Sizes in the result's order; the small size's rows are suspect (their working set fits in the L2).
    big, small = f"8192{NB}\u00d7{NB}8192", f"2003{NB}\u00d7{NB}3001"
    assert f'<tr><td>{big}</td> <td class="gloss-num">3,835</td> <td class="gloss-num">1,096</td></tr>' in block
    assert f'<tr><td>{small}</td> <td class="gloss-num" title="suspect: working set fits in L2">2,404' in block
    svg = ET.fromstring(re.search(r"<svg.*?</svg>", block).group(0))  # type: ignore[union-attr]
    assert len(svg.findall("{http://www.w3.org/2000/svg}rect")) == 4
    assert values[1:] == (
        f"day13-transpose/h200-1 8192x8192 copy gbps: 3,835{NB}GB/s",
        f"day13-transpose/h200-1 8192x8192 naive gbps: 1,096{NB}GB/s",
        f"day13-transpose/h200-1 2003x3001 copy gbps: 2,404{NB}GB/s",
        f"day13-transpose/h200-1 2003x3001 naive gbps: 802{NB}GB/s",
    )


def test_a_sweep_may_name_its_sizes() -> None:
    md, problems, _ = run("{{ sweep day13-transpose rows=copy sizes=2003x3001 col=time }}\n")
    assert problems == [] and "<td>2003\u00a0\u00d7\u00a03001</td>" in md and "8192\u00a0\u00d7\u00a08192" not in md


def test_sweep_problems_name_what_exists() -> None:
    cases = {
        "{{ sweep day13-transpose rows=copy sizes=4096x4096 col=gbps }}": (
            "content/terms/x.md:1: experiment 'day13-transpose' has no size '4096x4096'; sizes: 8192x8192, "
            "2003x3001"
        ),
        "{{ sweep day13-transpose rows=cpy col=gbps }}": "content/terms/x.md:1: experiment 'day13-transpose' has "
        "no kernel 'cpy'; did you mean 'copy'? kernels: copy, naive, tile[32][32] (tile32), tile[32][33] "
        "(tile32-padded); ceilings: cudaMemcpy D2D (memcpy)",
        "{{ sweep day13-transpose rows=copy col=gflops }}": "content/terms/x.md:1: experiment 'day13-transpose' "
        "has no GFLOP/s figures; choose a column its rows have, e.g. col=time",
        "{{ sweep day13-transpose rows=copy }}": "content/terms/x.md:1: '{{ sweep }}' needs col=; write it as "
        "{{ sweep chase-latency node=h200-1 rows=chase col=ns_per_step }}",
        "A sweep {{ sweep day13-transpose rows=copy col=gbps }} in a sentence.": "content/terms/x.md:1: "
        "'{{ sweep }}' must stand alone on its line; put the table embed on a line of its own",
    }
    for body, problem in cases.items():
        _, problems, _ = run(body + "\n")
        assert problems == [problem], body
