"""The GPU comparison from plain result data: rows matched across nodes, the generated page and the
"On the two GPUs" line under a table embed (with the link to the page)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import plainview as pv

from site_plugins.measured import ResultsView, comparison_page, expand
from site_plugins.measured.comparison import all_pairs, embed_line, nodes
from site_plugins.measured.model import Result, Row, Table

NB = "\u00a0"
MIB = 1024 * 1024
H200 = dataclasses.replace(pv.PROV, l2_bytes=60 * MIB)
H100 = dataclasses.replace(pv.PROV, node="h100-1", gpu="NVIDIA H100 80GB HBM3", l2_bytes=50 * MIB)


def row(label: str, ms: float, dram: float, id_: str, kind: str = "kernel") -> Row:
    return Row(label, ms, 0.001, 1000.0 / ms, None, None, None, id=id_, kind=kind, counters={"dram_mb": dram},
               sm_clock_mhz=1980.0)


def table(copy_gbps: float, rows: tuple[Row, ...]) -> Table:
    ceiling = Row("copy, float4", 0.13, 0.001, copy_gbps, None, 100.0, 80.0, id="vector4")
    return Table(size="8192x8192", rows=rows, ceilings=(ceiling,))


ON_H200 = table(4000.0, (row("copy", 0.100, 536.0, "copy"), row("naive", 0.500, 600.0, "naive"),
                         row("tile[32][32]", 0.300, 540.0, "tile32")))
# The H100: copy as much slower as its copies (bandwidth), naive with 1.5x the DRAM bytes (L2), the tile alike.
ON_H100 = table(3000.0, (row("copy", 0.133, 537.0, "copy"), row("naive", 0.700, 900.0, "naive"),
                         row("tile[32][32]", 0.305, 541.0, "tile32")))


def view(default: str = "h200-1") -> ResultsView:
    results = (Result("day13-transpose", "h200-1", "fresh", provenance=H200, tables=(ON_H200,)),
               Result("day13-transpose", "h100-1", "fresh", provenance=H100, tables=(ON_H100,)))
    return ResultsView(root=Path("."), results=results, nodes=("h100-1", "h200-1"), experiments=("day13-transpose",),
                       default_node=default, gpus={"h200-1": "NVIDIA H200", "h100-1": "NVIDIA H100 80GB HBM3"})


def test_rows_are_matched_by_experiment_size_and_kernel_and_given_a_reason() -> None:
    assert nodes(view()) == ("h100-1", "h200-1")
    assert nodes(view(default="h100-1")) == ("h200-1", "h100-1")
    pairs = all_pairs(view(), "h100-1", "h200-1")["day13-transpose"]
    assert [(p.id, p.verdict.reason, round(p.verdict.ratio, 2)) for p in pairs] == [
        ("copy", "bandwidth", 1.33), ("naive", "dram-bytes", 1.4), ("tile32", "same", 1.02)]


def test_one_node_has_nothing_to_compare() -> None:
    one = dataclasses.replace(view(), results=view().results[:1], nodes=("h200-1",))
    assert nodes(one) is None and embed_line(one, "day13-transpose", None, None, "x.md") == ""
    assert comparison_page(one) is None


def test_the_page_lists_each_row_with_its_ratio_and_the_counter_behind_its_reason() -> None:
    page = comparison_page(view())
    assert page is not None and page.startswith("# GPU comparison\n")
    assert "| node | h200-1 | h100-1 |" in page
    assert f"| L2 (as recorded by the runner) | 60.0{NB}MiB | 50.0{NB}MiB |" in page
    assert f"| fastest copy kernel (best run) | 4,000{NB}GB/s | 3,000{NB}GB/s |" in page
    assert "3 rows in 1 experiments: within 10 % 1, more DRAM traffic (L2 size) 1, DRAM bandwidth 1." in page
    assert "## day13-transpose { #day13-transpose }" in page
    assert "| Kernel | H100 / H200 | Reason | H200 (ms) | H100 (ms) |" in page
    assert "| copy | 1.33\u00d7 | DRAM bandwidth (1) | 0.100 | 0.133 |" in page
    assert "| naive | 1.40\u00d7 | more DRAM traffic (L2 size) (2) | 0.500 | 0.700 |" in page
    assert "| tile&#91;32&#93;&#91;32&#93; | 1.02\u00d7 | within 10 % | 0.300 | 0.305 |" in page
    assert ("2. the H100 moved 1.50\u00d7 the DRAM bytes of the H200 (Nsight Compute "
            "dram&#95;&#95;bytes&#95;read.sum + "
            f"dram&#95;&#95;bytes&#95;write.sum): less of the data stayed in its 50.0{NB}MiB L2 (60.0{NB}MiB on the "
            "H200)") in page


def test_a_table_on_both_gpus_gets_a_line_linking_to_the_comparison() -> None:
    out = expand("{{ measured day13-transpose }}\n", path="content/terms/t.md", first_line=1, view=view(),
                 preview=False, comparison="../gpu-comparison.md")
    assert out.problems == []
    line = out.markdown.strip().split("\n")[-1]
    assert line == (
        f"**On the two GPUs:** 2 of 3 rows differ by more than 10{NB}% (time on the H100 over time on the H200). "
        "DRAM bandwidth: copy 1.33\u00d7; more DRAM traffic (L2 size): naive 1.40\u00d7. The counters behind each "
        "reason: [GPU comparison](../gpu-comparison.md#day13-transpose).")


def test_no_line_where_the_shown_rows_agree_or_one_node_is_asked_for() -> None:
    kw = {"path": "content/terms/t.md", "first_line": 1, "view": view(), "preview": False,
          "comparison": "../gpu-comparison.md"}
    same = expand("{{ measured day13-transpose rows=tile32 }}\n", **kw)  # type: ignore[arg-type]
    assert "On the two GPUs" not in same.markdown and "tabbed-set" in same.markdown
    one = expand("{{ measured day13-transpose node=h100-1 }}\n", **kw)  # type: ignore[arg-type]
    assert "On the two GPUs" not in one.markdown
    plain = expand("{{ measured day13-transpose }}\n", path="content/index.md", first_line=1, view=view(),
                   preview=False)
    assert "On the two GPUs" not in plain.markdown


def test_the_line_keeps_the_embeds_indentation() -> None:
    out = expand("!!! note\n\n    {{ measured day13-transpose }}\n", path="content/terms/t.md", first_line=1,
                 view=view(), preview=False, comparison="../gpu-comparison.md")
    assert "\n    **On the two GPUs:**" in out.markdown
