"""Several verification nodes: a table embed shows each GPU in a tab, ``node=`` shows one, and figures in
prose come from a named node (the entry's ``node:``, else the plugin's default), which the page states."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import plainview as pv

from site_plugins.measured import ResultsView, expand
from site_plugins.measured.model import Result, Row, Table

PATH = "content/terms/t.md"
NB = "\u00a0"
H100 = dataclasses.replace(pv.PROV, node="h100-1", gpu="NVIDIA H100 80GB HBM3", captured="2026-12-05")
# The H100's copy row: its own figures (another GPU), so the tabs can be told apart.
H100_BIG = Table(
    size="8192x8192",
    rows=(
        Row("copy", 0.2, 0.001, 2684.4, None, 100.0, 80.0, id="copy"),
        Row("naive", 0.6, 0.002, 894.8, None, 33.3, 26.7, id="naive", suspect=("a reason only the H100 has",)),
    ),
    ceiling_gbps=2684.4,
)


def two_nodes(default: str | None = "h200-1") -> ResultsView:
    h200 = pv.result()
    h100 = Result("day13-transpose", "h100-1", "fresh", provenance=H100, tables=(H100_BIG,))
    return ResultsView(root=Path("."), results=(h200, h100), nodes=("h100-1", "h200-1"),
                       experiments=("day13-transpose",), default_node=default,
                       gpus={"h200-1": "NVIDIA H200", "h100-1": "NVIDIA H100 80GB HBM3"})


def run(body: str, view: ResultsView, **kw: object) -> tuple[str, list[str], tuple[str, ...]]:
    out = expand(body, path=PATH, first_line=10, view=view, preview=False, **kw)  # type: ignore[arg-type]
    return out.markdown, [str(p) for p in out.problems], out.shown_values


def test_a_table_without_node_shows_every_node_in_a_tab_of_its_own() -> None:
    md, problems, values = run("{{ measured day13-transpose size=8192x8192 rows=copy,naive }}\n", two_nodes())
    assert problems == []
    block = md.strip()
    assert block.startswith('<div class="gloss-measured-nodes" data-experiment="day13-transpose">'
                            '<div class="tabbed-set tabbed-alternate" data-tabs="1:2">')
    # The page's prose node first, and open: the first table a reader sees matches the text.
    assert re.findall(r'<label for="[^"]+" data-node="([^"]+)">([^<]+)</label>', block) == [
        ("h200-1", "NVIDIA H200"), ("h100-1", "NVIDIA H100 80GB HBM3")]
    inputs = re.findall(r"<input[^>]*>", block)
    assert inputs == ['<input checked="checked" id="gloss-measured-1-tab-1" name="gloss-measured-1-tabs" type="radio">',
                      '<input id="gloss-measured-1-tab-2" name="gloss-measured-1-tabs" type="radio">']
    # Each tab: its own provenance sentence, table, notes and chart.
    tabs = block.split('<div class="tabbed-block">')[1:]
    assert len(tabs) == 2
    assert 'data-node="h200-1"' in tabs[0] and "on verification node h200-1." in tabs[0]
    assert 'data-node="h100-1"' in tabs[1] and "NVIDIA H100 80GB HBM3, driver" in tabs[1]
    assert "captured 2026-12-05 on verification node h100-1." in tabs[1]
    assert '<td class="gloss-num">2,684</td>' in tabs[1] and "2,684" not in tabs[0]
    assert "a reason only the H100 has" in tabs[1] and "a reason only the H100 has" not in tabs[0]
    assert all(t.count("<svg") == 1 for t in tabs)
    # Ids stay unique on the page: each chart's carry its tab's number.
    ids = re.findall(r' id="([^"]+)"', block)
    assert len(ids) == len(set(ids)) and "gloss-measured-1-1-t" in ids and "gloss-measured-1-2-t" in ids
    # Sign-off covers both nodes' figures.
    assert f"day13-transpose/8192x8192/h100-1 copy gbps: 2,684{NB}GB/s" in values
    assert any(v.startswith("day13-transpose/8192x8192/h200-1 copy gbps:") for v in values)


def test_the_tab_order_follows_the_pages_node() -> None:
    md, problems, _ = run("{{ measured day13-transpose size=8192x8192 }}\n", two_nodes(), node="h100-1")
    assert problems == []
    labels = re.findall(r'data-node="([^"]+)">[^<]+</label>', md)
    assert labels == ["h100-1", "h200-1"]


def test_node_given_in_the_embed_shows_that_node_only() -> None:
    md, problems, values = run("{{ measured day13-transpose size=8192x8192 node=h100-1 }}\n", two_nodes())
    assert problems == []
    assert "tabbed-set" not in md and md.count("<table>") == 1
    assert 'data-node="h100-1"' in md and "on verification node h100-1." in md and "h200-1" not in md
    assert all("/h100-1 " in v for v in values)


def test_one_node_alone_is_shown_without_tabs() -> None:
    view = dataclasses.replace(two_nodes(), results=(pv.result(),), nodes=("h200-1",))
    md, problems, _ = run("{{ measured day13-transpose size=8192x8192 }}\n", view)
    assert problems == [] and "tabbed-set" not in md and md.count("<table>") == 1


def test_a_stale_node_is_left_out_of_the_tabs() -> None:
    view = two_nodes()
    stale = dataclasses.replace(view.results[1], state="stale")
    md, problems, _ = run("{{ measured day13-transpose size=8192x8192 }}\n",
                          dataclasses.replace(view, results=(view.results[0], stale)))
    assert problems == [] and "tabbed-set" not in md and 'data-node="h200-1"' in md


def test_prose_figures_come_from_the_default_node_and_the_page_says_so() -> None:
    body = "Copy runs at {{ value day13-transpose size=8192x8192 row=copy col=gbps }}.\n"
    md, problems, values = run(body, two_nodes())
    assert problems == []
    said, _, text = md.split("\n")[:3]
    assert said == '<p class="gloss-figures-node" data-search-exclude>Figures in the text: NVIDIA H200 (h200-1).</p>'
    assert 'title="day13-transpose, copy, 8192\u00a0\u00d7\u00a08192, h200-1"' in text
    assert values == (f"day13-transpose/8192x8192/h200-1 copy gbps: 3,835{NB}GB/s",)


def test_an_entry_names_its_own_node_for_its_prose() -> None:
    body = "Copy runs at {{ value day13-transpose size=8192x8192 row=copy col=gbps }}.\n"
    md, problems, values = run(body, two_nodes(), node="h100-1", node_line=4)
    assert problems == []
    assert md.startswith('<p class="gloss-figures-node" data-search-exclude>Figures in the text: '
                         "NVIDIA H100 80GB HBM3 (h100-1).</p>\n\n")
    assert values == (f"day13-transpose/8192x8192/h100-1 copy gbps: 2,684{NB}GB/s",)


def test_a_figure_naming_another_node_is_listed_after_the_pages_own() -> None:
    body = ("H200 {{ value day13-transpose size=8192x8192 row=copy }}, "
            "H100 {{ value day13-transpose size=8192x8192 row=copy node=h100-1 }}.\n")
    md, problems, _ = run(body, two_nodes())
    assert problems == []
    assert md.split("\n")[0] == (
        '<p class="gloss-figures-node" data-search-exclude>Figures in the text: NVIDIA H200 (h200-1); where a '
        "figure&#x27;s tooltip names another node: NVIDIA H100 80GB HBM3 (h100-1).</p>")


def test_without_a_default_node_prose_on_several_nodes_must_choose() -> None:
    _, problems, _ = run("At {{ value day13-transpose size=8192x8192 row=copy }}.\n", two_nodes(default=None))
    assert problems == [
        f"{PATH}:10: experiment 'day13-transpose' has results on several nodes: h100-1 (fresh), h200-1 (fresh); "
        "choose one with node=h100-1, or name the node the page's figures come from with 'node: h100-1' in its "
        "front matter (or the gloss plugin's default_node in mkdocs.yml)"
    ]


def test_an_unknown_node_in_front_matter_is_one_problem_where_it_is_written() -> None:
    body = ("At {{ value day13-transpose size=8192x8192 row=copy }} and "
            "{{ ratio day13-transpose size=8192x8192 num=naive den=copy }}.\n"
            "{{ measured day13-transpose size=8192x8192 }}\n")
    md, problems, values = run(body, two_nodes(), node="h100-2", node_line=4)
    assert problems == [
        f"{PATH}:4: front matter 'node: h100-2' is not a registered verification node; did you mean 'h100-1'? "
        "registered nodes: h100-1, h200-1 (measure/nodes.yaml); or leave 'node:' out to quote h200-1"
    ]
    # Its figures are marked unavailable, never taken from another node; the tables still show every node.
    assert md.count("\u26a0 measured value unavailable") == 2 and "gloss-figures-node" not in md
    assert "tabbed-set" in md and all("copy gbps" not in v or "/8192x8192/" in v for v in values)


def test_a_page_without_prose_figures_says_nothing_about_them() -> None:
    md, problems, _ = run("{{ measured day13-transpose size=8192x8192 }}\n", two_nodes())
    assert problems == [] and "gloss-figures-node" not in md
