"""Tiny real sites built with mkdocs in tmp_path: measured tables, values, the lint and every failure mode.

Result files are written through ``measure.store.results`` (see measuredkit); staleness and tampering are
produced for real by editing the .cu file or a raw sample.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import measuredkit as kit
import pytest
from mkdocs.exceptions import Abort
from sitekit import build_site, make_site

from measure.store import results

PREVIEW = "preview: true"  # entries here are unsigned; preview shows drafts (and still warns)
NB = "\u00a0"

TERM = """---
title: What is tiling in CUDA?
definition: Tiling stages a piece of an array in shared memory.
sources:
  - title: NVIDIA H200 datasheet
    url: https://example.org/h200
---

The padded tile moves {{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }},
{{ ratio day13-transpose size=8192x8192 num="tile[32][33]" den="tile[32][32]" }} the unpadded tile and
{{ value day13-transpose size=8192x8192 row="tile[32][33]" col=pct_copy }} of copy. The memory is rated at
{{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }}.

## Measured

{{ measured day13-transpose size=8192x8192 }}
"""

OTHER = """---
title: What is a bank conflict in CUDA?
definition: A bank conflict serialises shared-memory accesses.
---

Padding by one column removes the conflict.
"""

EMBED_LINE = 16  # file line of the table embed in TERM
VALUE_LINE = 9  # file line of the first value reference


def files(term: str = TERM) -> dict[str, str]:
    return {
        "content/index.md": "# Home\n\nSee [tiling](terms/tiling.md).\n",
        "content/terms/tiling.md": term,
        "content/terms/bank-conflict.md": OTHER,
    }


def site_with(tmp_path: Path, term: str = TERM, **project: object) -> Path:
    kit.make_project(tmp_path, **project)  # type: ignore[arg-type]
    return make_site(tmp_path, files(term), plugin_options=PREVIEW)


def page(site: Path, uri: str) -> str:
    return (site / uri).read_text(encoding="utf-8")


def text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_fresh_result_renders_provenance_table_chart_and_values(tmp_path: Path) -> None:
    site = build_site(site_with(tmp_path))  # strict: any warning would abort
    html = page(site, "terms/tiling/index.html")
    prose = text_of(html[html.index("The padded tile") : html.index('<h2 id="measured"')])
    assert re.sub(r"[ \n]+", " ", prose).strip() == (
        f"The padded tile moves 3,703{NB}GB/s, 1.86\u00d7 the unpadded tile and 96.6{NB}% of copy. "
        "The memory is rated at 4.8 TB/s[NVIDIA H200 datasheet]."
    )
    block = html[html.index('<div class="gloss-measured"') :]
    assert (
        block.index(
            "NVIDIA H200, driver 580.159.04, CUDA 13.0 (V13.0.88), built with nvcc -O3 -arch=sm_90, "
            "captured 2026-12-02 on verification node h200-1."
        )
        < block.index("<table>")
        < block.index("<svg")
    )
    assert (
        '<tr><td class="gloss-kernel"><code>tile[32][33]</code></td> <td class="gloss-num" data-label="Time '
        '(ms)">0.145</td> '
        '<td class="gloss-num" data-label="GB/s">3,703</td> <td class="gloss-num" data-label="% of copy">96.6</td></tr>'
    ) in block
    assert '<svg class="gloss-chart" role="img" aria-labelledby="gloss-measured-1-t gloss-measured-1-d"' in block
    assert "<script" not in block[: block.index("</svg>")]
    # The stylesheet that gives the chart the theme's palette is served and linked.
    assert (site / "assets/gloss/measured/measured.css").is_file()
    assert 'href="../../assets/gloss/measured/measured.css"' in html


def test_measurements_page_lists_every_experiment_with_its_state_and_pages(tmp_path: Path) -> None:
    site = build_site(site_with(tmp_path))
    html = page(site, "measurements/index.html")
    row = re.search(r'<tr id="day13-transpose-h200-1">.*?</tr>', html, re.S)
    assert row is not None
    cells = [text_of(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(0), re.S)]
    assert cells == ["day13-transpose", "h200-1", "NVIDIA H200", "2026-12-02", "fresh", "What is tiling in CUDA?"]
    assert '<a href="../terms/tiling/"' in row.group(0)


STALE = (
    "result of experiment 'day13-transpose' on node 'h200-1' is stale: code/day13/transpose.cu changed since "
    "it was measured (sha256 {old} recorded, {new} now); re-run `gloss measure run day13-transpose --node h200-1`"
)


def _stale(root: Path) -> str:
    from measure.experiment.spec import sha256_file

    old = sha256_file(root / kit.CU)[:12]
    (root / kit.CU).write_text(kit.SOURCE + "// a later edit\n", encoding="utf-8")
    return STALE.format(old=old, new=sha256_file(root / kit.CU)[:12])


def _tampered(root: Path) -> str:
    kit.tamper_one_sample(root)
    return (
        "result of experiment 'day13-transpose' on node 'h200-1' was tampered with: row 'naive' at 8192x8192: "
        "the summary does not recompute from its raw samples (mean_ms: stored 0.48991090909090906, recomputed "
        "0.46768272727272725); re-run `gloss measure run day13-transpose --node h200-1`; "
        "result files are written only by the runner"
    )


def _failed(root: Path) -> str:
    kit.write(root, kit.make_result(root, failed={"tile32": "12 elements still hold the poison"}))
    return (
        "result of experiment 'day13-transpose' on node 'h200-1' failed: kernel 'tile32' at 2003x3001 did not "
        "match its reference (12 elements still hold the poison) (and 1 more; see `gloss measure verify`); "
        "fix it in code/day13/transpose.cu, then re-run `gloss measure run day13-transpose --node h200-1`"
    )


def _unregistered(root: Path) -> str:
    (root / "measure/results/h200-1/day13-transpose.json").rename(root / "x.json")
    kit.write(root, kit.make_result(root, node="a100-x"))
    return (
        "result of experiment 'day13-transpose' on node 'a100-x' comes from an unregistered node: node 'a100-x' "
        "is not in measure/nodes.yaml; register it there, or re-run `gloss measure run day13-transpose --node "
        "NAME` on a registered node (h200-1)"
    )


def _missing(root: Path) -> str:
    (root / "measure/results/h200-1/day13-transpose.json").unlink()
    return (
        "experiment 'day13-transpose' has no result on node 'h200-1'; run `gloss measure run day13-transpose "
        "--node h200-1` on the verification node and commit measure/results/h200-1/day13-transpose.json"
    )


def _result_file_problems(root: Path) -> list[str]:
    """The build also reports each result's own problems at the result file (or spec), embedded or not."""
    problems = [str(p) for p in results.load_all(root).problems()]
    assert problems  # every failure mode here is a problem of the result set too
    return problems


FAILURES = {
    "stale": _stale,
    "tampered": _tampered,
    "failed": _failed,
    "unregistered": _unregistered,
    "missing": _missing,
}


@pytest.mark.parametrize("mode", list(FAILURES))
def test_each_failure_mode_fails_the_strict_build_and_shows_a_banner_in_preview(
    tmp_path: Path, expect_warnings: object, mode: str
) -> None:
    root = site_with(tmp_path)
    words = FAILURES[mode](root)
    lines = [VALUE_LINE, VALUE_LINE + 1, VALUE_LINE + 2, EMBED_LINE]
    expect_warnings.add(*(f"content/terms/tiling.md:{n}: {words}" for n in lines))  # type: ignore[attr-defined]
    expect_warnings.add(*_result_file_problems(root))  # type: ignore[attr-defined]
    with pytest.raises(Abort):
        build_site(root)
    site = build_site(root, strict=False)  # as `make serve` does: the page still renders
    html = page(site, "terms/tiling/index.html")
    assert '<div class="admonition danger gloss-measured-problem" role="alert">' in html
    assert "Measurement not shown: day13-transpose" in html
    assert "<table>" not in html and "gloss-chart" not in html and "3,703" not in html
    assert html.count('<mark class="gloss-measured-problem"') == 3
    measurements = page(site, "measurements/index.html")
    state = {"unregistered": "unregistered node"}.get(mode, mode)
    assert f'">{state}</span>' in measurements


def test_unknown_experiment(tmp_path: Path, expect_warnings: object) -> None:
    term = TERM.replace("{{ measured day13-transpose size=8192x8192 }}", "{{ measured day13-transpos }}")
    expect_warnings.add(  # type: ignore[attr-defined]
        f"content/terms/tiling.md:{EMBED_LINE}: unknown experiment 'day13-transpos'; did you mean 'day13-transpose'? "
        "declared experiments: day13-transpose (specs live next to the code under code/)"
    )
    with pytest.raises(Abort):
        build_site(site_with(tmp_path, term))


def test_hand_typed_figure_fails_the_build_and_the_cited_escape_does_not(
    tmp_path: Path, expect_warnings: object
) -> None:
    term = TERM.replace("Padding", "Padding").replace("## Measured", "A transpose takes 0.15 ms here.\n\n## Measured")
    expect_warnings.add(  # type: ignore[attr-defined]
        "content/terms/tiling.md:14: hand-typed figure '0.15 ms'; take it from a result with "
        "{{ value EXPERIMENT row=KERNEL col=COLUMN }} (or {{ ratio ... }}), or quote a cited source with "
        '{{ cited "0.15 ms" source="SOURCE TITLE" }}'
    )
    with pytest.raises(Abort):
        build_site(site_with(tmp_path, term))


def test_cited_source_must_be_listed_in_the_front_matter(tmp_path: Path, expect_warnings: object) -> None:
    term = TERM.replace('source="NVIDIA H200 datasheet"', 'source="A blog"')
    expect_warnings.add(  # type: ignore[attr-defined]
        "content/terms/tiling.md:12: cited source 'A blog' is not one of this entry's sources; add it under "
        "'sources:' in the front matter or name one of: 'NVIDIA H200 datasheet'"
    )
    with pytest.raises(Abort):
        build_site(site_with(tmp_path, term))


def test_material_theme_renders_the_banner_as_an_admonition(tmp_path: Path, expect_warnings: object) -> None:
    root = site_with(tmp_path)
    words = _missing(root)
    expect_warnings.add(
        *(
            f"content/terms/tiling.md:{n}: {words}"  # type: ignore[attr-defined]
            for n in (VALUE_LINE, VALUE_LINE + 1, VALUE_LINE + 2, EMBED_LINE)
        ),
        *_result_file_problems(root),
    )
    make_site(tmp_path, files(), theme="material", plugin_options=PREVIEW)
    html = page(build_site(root, strict=False), "terms/tiling/index.html")
    assert '<div class="admonition danger gloss-measured-problem" role="alert"><p class="admonition-title">' in html
    assert "assets/gloss/measured/measured.css" in html


def test_a_pending_experiment_is_no_problem_until_a_page_embeds_it(tmp_path: Path, expect_warnings: object) -> None:
    """`pending: true` marks a spec written before any node ran it: the build and verify accept it, and
    an embed of it fails exactly as an embed of a missing result does."""
    root = site_with(tmp_path)
    spec = root / "code/day13/experiment.yaml"
    spec.write_text(spec.read_text().replace("\ntitle:", "\npending: true\ntitle:", 1))
    words = _missing(root)
    assert results.load_all(root).problems() == []
    lines = [VALUE_LINE, VALUE_LINE + 1, VALUE_LINE + 2, EMBED_LINE]
    expect_warnings.add(*(f"content/terms/tiling.md:{n}: {words}" for n in lines))  # type: ignore[attr-defined]
    with pytest.raises(Abort):
        build_site(root)
    measurements = page(build_site(root, strict=False), "measurements/index.html")
    assert '">pending (not yet run)</span>' in measurements
