"""Directive syntax and resolution: every malformed or unresolvable directive gives its exact message."""

from __future__ import annotations

import plainview as pv
import pytest

from site_plugins.measured import expand
from site_plugins.measured.syntax import parse

PATH = "content/terms/t.md"
EXAMPLE_MEASURED = '{{ measured day13-transpose size=8192x8192 rows=copy,"tile[32][33]" }}'
EXAMPLE_VALUE = '{{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }}'
EXAMPLE_CITED = '{{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }}'

CASES = [
    (
        "{{ mesured day13-transpose }}",
        "unknown directive '{{ mesured }}'; did you mean 'measured'? "
        "directives: measured, value, ratio, counter, cited, cited-table, example, observed, sweep",
    ),
    (
        "{{ measured }}",
        "'{{ measured }}' needs an experiment id as its one positional argument, got 0; "
        f"write it as {EXAMPLE_MEASURED}",
    ),
    (
        "{{ measured a b }}",
        "'{{ measured }}' needs an experiment id as its one positional argument, got 2; "
        f"write it as {EXAMPLE_MEASURED}",
    ),
    (
        "{{ measured day13-transpose row=copy }}",
        "unknown option 'row' in '{{ measured }}'; did you mean 'rows'? options: size, node, rows, cols",
    ),
    (
        "{{ value day13-transpose row=a,b }}",
        "option 'row' in '{{ value }}' takes one value, got 2; give one value; quote it if it contains a comma",
    ),
    (
        "{{ value day13-transpose col=gbs row=copy }}",
        "unknown column 'gbs' in '{{ value }}'; did you mean 'gbps'? "
        "columns: time, iqr, gbps, shared_gbps, gflops, pct_copy, pct_peak, pct_shared_peak, pct_fp32, "
        "us_per_launch, ns_per_step, cycles_per_step, conflict_ways_ld, conflict_ways_st, conflict_ways, "
        "sectors_per_req_ld, sectors_per_req_st, "
        "sectors_per_req, global_ld_mb, global_st_mb, "
        "l2_mb, dram_read_mb, dram_write_mb, dram_mb, dram_ratio, occupancy_pct, registers, ktime, sm_clock_mhz",
    ),
    ("{{ value day13-transpose }}", f"'{{{{ value }}}}' needs row=; write it as {EXAMPLE_VALUE}"),
    (
        "{{ ratio day13-transpose num=a den=b as=x }}",
        "option 'as' in '{{ ratio }}' must be times or percent, got 'x'; write as=times (1.92×) or as=percent (52.1 %)",
    ),
    (
        '{{ value day13-transpose row="copy }}',
        "unterminated quote in '{{ value day13-transpose row=\"copy }}'; close the value with a double quote (\")",
    ),
    (
        "{{ value day13-transpose row= }}",
        "option 'row' has an empty value in '{{ value day13-transpose row= }}'; "
        'write a value after "=" (quote it if it has spaces or commas)',
    ),
    (
        '{{ value day13-transpose row=a"b" }}',
        "unexpected '\"' in '{{ value day13-transpose row=a\"b\" }}'; "
        "separate arguments with spaces and quote values that contain spaces or quotes",
    ),
    (
        "{{ }}",
        "empty or malformed directive '{{ }}'; write {{ NAME ARGS }} with NAME one of "
        "measured, value, ratio, counter, cited, cited-table, example, observed, sweep",
    ),
    (
        "{{ value day13-transpose size=1 size=2 row=a }}",
        "option 'size' given twice in '{{ value day13-transpose size=1 size=2 row=a }}'; keep only one of them",
    ),
    ("x {{ value day13-transpose row=copy", "unclosed '{{'; end the directive with '}}' on the same line"),
    (
        "a {{ measured day13-transpose size=8192x8192 }} b",
        "'{{ measured }}' must stand alone on its line; put the table embed on a line of its own",
    ),
    ('{{ cited "4.8 TB/s" }}', f"'{{{{ cited }}}}' needs source=; write it as {EXAMPLE_CITED}"),
    (
        '{{ cited source="x" }}',
        "'{{ cited }}' needs the figure as the source states it as its one positional argument, got 0; "
        f"write it as {EXAMPLE_CITED}",
    ),
    (
        "{{ measured day13-transpos }}",
        "unknown experiment 'day13-transpos'; did you mean 'day13-transpose'? "
        "declared experiments: day13-transpose, day16-matmul (specs live next to the code under code/)",
    ),
    (
        "{{ measured day13-transpose }}",
        "experiment 'day13-transpose' has several sizes: 8192x8192, 2003x3001; choose one with size=2003x3001",
    ),
    (
        "{{ measured day13-transpose size=8192 }}",
        "experiment 'day13-transpose' has no size '8192'; did you mean '8192x8192'? "
        "sizes measured: 8192x8192, 2003x3001",
    ),
    (
        "{{ measured day13-transpose size=8192x8192 rows=copy,tile33 }}",
        "experiment 'day13-transpose' has no kernel 'tile33'; did you mean 'tile32'? kernels: copy, naive, "
        "tile[32][32] (tile32), tile[32][33] (tile32-padded); ceilings: cudaMemcpy D2D (memcpy)",
    ),
    (
        "{{ measured day13-transpose size=8192x8192 cols=gflops }}",
        "experiment 'day13-transpose' has no GFLOP/s figures; "
        "columns with figures: time, iqr, gbps, pct_copy, pct_peak",
    ),
    (
        "{{ value day16-matmul size=4096 row=naive col=pct_copy }}",
        "kernel 'naive' of experiment 'day16-matmul' has no % of copy figure; "
        "columns with figures: time, iqr, gbps, gflops",
    ),
    (
        "{{ ratio day16-matmul num=naive den=smem col=pct_peak }}",
        "kernel 'naive' of experiment 'day16-matmul' has no % of peak figure; "
        "columns with figures: time, iqr, gbps, gflops",
    ),
    (
        "{{ measured day13-transpose node=a100 size=8192x8192 }}",
        "node 'a100' is not a registered verification node; registered nodes: h200-1 (measure/nodes.yaml)",
    ),
]


@pytest.mark.parametrize(("line", "message"), CASES, ids=[c[0] for c in CASES])
def test_each_bad_directive_has_its_message(line: str, message: str) -> None:
    out = expand(f"Intro.\n\n{line}\n", path=PATH, first_line=7, view=pv.view(), preview=False)
    assert [str(p) for p in out.problems] == [f"{PATH}:9: {message}"]
    assert out.shown_values == ()
    # No figure is ever shown for a broken directive; the directive stays visible, marked.
    assert "gloss-measured-problem" in out.markdown


def test_quoted_values_lists_and_escapes() -> None:
    d = parse(' measured x rows=copy,"tile[32][33]","a, \\"b\\"" size=8x8 ', 3, 0, 10)
    assert d.name == "measured"
    assert d.positional == ("x",)
    assert d.options == {"rows": ("copy", "tile[32][33]", 'a, "b"'), "size": ("8x8",)}
    assert d.line == 3


def test_directives_in_code_are_left_alone() -> None:
    body = (
        "Write `{{ value day13-transpose row=copy }}` to quote a value.\n"
        "\n"
        "```markdown\n"
        "{{ measured nope }}\n"
        "{{ value nope row=x }} costs 3 ms\n"
        "```\n"
        "\n"
        "~~~~\n"
        "{{ mesured }}\n"
        "~~~~\n"
        "<!-- {{ measured hidden }} and 5 ms\n"
        "still a comment -->\n"
        "Done in ``code with ` and 4 ms``.\n"
    )
    out = expand(body, path=PATH, first_line=1, view=pv.view(), preview=True)
    assert out.problems == []
    assert out.markdown == body
    assert out.experiments == ()


def test_problems_carry_file_lines_in_page_order() -> None:
    body = "{{ value nope row=a }}\n\ntext\n{{ value day13-transpose size=8192x8192 row=zz }}\n"
    out = expand(body, path=PATH, first_line=12, view=pv.view(), preview=False)
    assert [(p.line, p.problem) for p in out.problems] == [
        (12, "unknown experiment 'nope'"),
        (15, "experiment 'day13-transpose' has no kernel 'zz'"),
    ]
    assert out.experiments == ("nope", "day13-transpose")
