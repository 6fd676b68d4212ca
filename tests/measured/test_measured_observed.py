"""``{{ observed }}``: an observed launch's error, a row's occupancy and a device limit in prose, from a
fresh result written by the results module (tiny real sites in tmp_path); every problem verbatim."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from mkdocs.exceptions import Abort
from sitekit import build_site, make_site

from measure.testing import synthetic as T
from site_plugins.measured.expand import DIRECTIVES

NB = "\u00a0"
PATH = "content/terms/invalid-argument.md"

OBSERVED = """\
  - id: no-optin
    label: 64 KiB, no opt-in
    kind: observe
    function: toy_copy
    block: [1024]
    grid: ["cdiv(n, 1024)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: optin
    label: 64 KiB, opt-in
    kind: observe
    function: toy_copy
    block: [1024]
    grid: ["cdiv(n, 1024)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    max_dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""

TERM = """---
title: What does "invalid argument" mean in CUDA?
definition: The driver refuses a launch whose configuration the device cannot run.
---

Without the opt-in the launch returns {{ observed toy-copy size=1M row=no-optin field=error_name }}
("{{ observed toy-copy size=1M row=no-optin field=error }}"); with it the kernel is
{{ observed toy-copy size=1M row=optin field=launched }}. A block may use
{{ observed toy-copy limit=shared_per_block_default }} by default and
{{ observed toy-copy limit=shared_per_block_optin }} after the opt-in, of
{{ observed toy-copy limit=shared_per_sm }} per SM; an SM holds
{{ observed toy-copy limit=max_threads_per_sm }} threads. The copy keeps
{{ observed toy-copy size=64M row=copy field=blocks_per_sm }} blocks
({{ observed toy-copy size=64M row=copy field=occupancy }} of the warps) resident per SM.
"""


def project(root: Path, term: str = TERM) -> Path:
    T.write_fixture_repo(root)
    spec = root / "code" / "toy" / "experiment.yaml"
    spec.write_text(spec.read_text() + OBSERVED)
    outcomes = {("no-optin", size): T.REFUSED for size in ("1M", "64M")}
    T.write(root, T.make_result(root, outcomes=outcomes))
    files = {"content/index.md": "# Home\n", PATH: term}
    return make_site(root, files, plugin_options="preview: true")


def text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_observed_values_render_from_the_result(tmp_path: Path) -> None:
    site = build_site(project(tmp_path))  # strict: any warning would abort
    html = (site / "terms/invalid-argument/index.html").read_text(encoding="utf-8")
    text = re.sub(r"[ \t\n]+", " ", text_of(html))
    assert 'returns CUDA_ERROR_INVALID_VALUE ("invalid argument"); with it the kernel is launched.' in text
    assert f"use 48{NB}KiB by default and 227{NB}KiB after the opt-in, of 228{NB}KiB per SM" in text
    assert "an SM holds 2,048 threads" in text
    assert f"keeps 8 blocks (100{NB}% of the warps) resident per SM" in text
    assert '<code class="gloss-observed" title="64 KiB, no opt-in at 1M, measured on test-node">' in html


@pytest.mark.parametrize(
    ("directive", "message"),
    [
        (
            "{{ observed toy-copy size=1M row=no-optn field=error }}",
            "experiment 'toy-copy' has no launched row 'no-optn'; did you mean 'no-optin'? rows: copy, slow, "
            "no-optin, optin",
        ),
        (
            "{{ observed toy-copy row=no-optin field=error }}",
            "row 'no-optin' of experiment 'toy-copy' was launched at several sizes: 1M, 64M; choose one with size=64M",
        ),
        (
            "{{ observed toy-copy size=1MB row=no-optin field=error }}",
            "row 'no-optin' of experiment 'toy-copy' has no size '1MB'; did you mean '1M'? sizes: 1M, 64M",
        ),
        (
            "{{ observed toy-copy size=1M row=optin field=error }}",
            "row '64 KiB, opt-in' of experiment 'toy-copy' at 1M launched without an error, so there is no error "
            "to show; show field=launched, or name the row whose launch the driver refused",
        ),
        (
            "{{ observed toy-copy size=1M row=copy field=error_name }}",
            "row 'copy' of experiment 'toy-copy' at 1M is not an observed launch (kind 'observe'), so it records no "
            "error_name; its fields: blocks_per_sm, warps_per_sm, occupancy; observed rows: no-optin, optin",
        ),
        (
            "{{ observed toy-copy size=1M row=optin field=errors }}",
            "unknown field 'errors' in '{{ observed }}'; did you mean 'error'? fields: launched, error, error_name, "
            "check, wrong, blocks_per_sm, warps_per_sm, occupancy",
        ),
        (
            "{{ observed toy-copy limit=shared_per_block }}",
            "unknown limit 'shared_per_block' in '{{ observed }}'; did you mean 'shared_per_block_optin'? limits: "
            "shared_per_block_default, shared_per_block_optin, shared_per_sm, registers_per_sm, registers_per_block, "
            "max_threads_per_sm, max_blocks_per_sm, warp_size, reserved_shared_per_block",
        ),
        (
            "{{ observed toy-copy row=optin }}",
            "'{{ observed }}' needs row= and field=, or limit=; write it as "
            "{{ observed shared-limits row=no-optin field=error }}",
        ),
        (
            "{{ observed toy-copy limit=warp_size row=optin }}",
            "'{{ observed }}' with limit= takes no row= (a limit belongs to the device); write "
            "{{ observed EXPERIMENT limit=NAME }}",
        ),
        (
            "{{ observed toy-cpy limit=warp_size }}",
            "unknown experiment 'toy-cpy'; did you mean 'toy-copy'? declared experiments: toy-copy (specs live next "
            "to the code under code/)",
        ),
    ],
)
def test_a_missing_row_field_or_limit_fails_the_build(
    tmp_path: Path, expect_warnings: object, directive: str, message: str
) -> None:
    term = TERM + f"\nAnd {directive}.\n"
    line = len(term.split("\n")) - 1  # the directive's file line
    expect_warnings.add(f"{PATH}:{line}: {message}")  # type: ignore[attr-defined]
    with pytest.raises(Abort):
        build_site(project(tmp_path, term))


def test_a_result_that_is_not_fresh_shows_no_observation(tmp_path: Path, expect_warnings: object) -> None:
    root = project(tmp_path)
    result = root / "measure/results/test-node/toy-copy.json"
    result.write_text(result.read_text().replace('"invalid argument"', '"too much shared memory"'))
    site = build_site(root, strict=False)
    html = (site / "terms/invalid-argument/index.html").read_text(encoding="utf-8")
    assert "too much shared memory" not in html and 'class="gloss-observed"' not in html
    expect_warnings.add(  # type: ignore[attr-defined]
        *[w for w in _tamper_warnings(root)]
    )


def _tamper_warnings(root: Path) -> list[str]:
    from measure.store import results as R
    from site_plugins.files.messages import Problem

    entry = R.load_all(root).get("toy-copy", "test-node")
    assert entry.state == "tampered"
    first: Problem = entry.problems[0]
    problem = first.problem.removeprefix("tampered: ")
    lines = [i + 1 for i, text in enumerate(TERM.split("\n")) if "{{ observed" in text]
    per_line = {n: TERM.split("\n")[n - 1].count("{{ observed") for n in lines}
    out = []
    for n, count in per_line.items():
        out += [
            f"{PATH}:{n}: result of experiment 'toy-copy' on node 'test-node' was tampered with: {problem}; "
            f"{first.remedy}"
        ] * count
    out.append(str(first))
    return out


def test_the_directive_is_known_to_the_form_check() -> None:
    assert "observed" in DIRECTIVES
