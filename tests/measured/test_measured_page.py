"""The generated Measurements page (pure: plain result data in, Markdown out)."""

from __future__ import annotations

from pathlib import Path

import plainview as pv

from site_plugins.files.messages import Problem
from site_plugins.measured import measurements_page
from site_plugins.measured.model import Result, ResultsView

SENTENCE = (
    "NVIDIA H200, driver 580.159.04, CUDA 13.0 (V13.0.88), built with nvcc -O3 -arch=sm_90, "
    "captured 2026-12-02 on verification node h200-1"
)


def test_every_experiment_with_node_gpu_date_state_and_embedding_pages() -> None:
    stale = Result(
        "day15-banks",
        "h200-1",
        "stale",
        provenance=pv.PROV,
        problem="code/day15/banks.cu changed since it was measured",
        remedy="re-run `gloss measure run day15-banks --node h200-1`",
    )
    missing = Result(
        "day16-matmul",
        "h200-1",
        "missing",
        problem="experiment 'day16-matmul' has no result on node 'h200-1'",
        remedy="run `gloss measure run day16-matmul --node h200-1` on that node",
    )
    view = pv.view(
        pv.result(), stale, missing, experiments=("day13-transpose", "day15-banks", "day16-matmul", "day17-x")
    )
    view.setup_problems = (Problem("code/day17/experiment.yaml", 3, "'sizes' is empty", "declare at least one size"),)
    md = measurements_page(
        view,
        {
            "day13-transpose": [
                ("What is tiling in CUDA?", "terms/tiling.md"),
                ("Day 13: [shared] memory", "lessons/day13-shared-memory.md"),
            ]
        },
    )
    lines = md.split("\n")
    assert lines[0] == "# Measurements"
    rows = [line for line in lines if line.startswith("<tr markdown")]
    assert rows == [
        '<tr markdown="1" id="day13-transpose-h200-1"><td><code>day13-transpose</code></td>'
        f'<td title="{SENTENCE}">h200-1</td><td>NVIDIA H200</td><td>2026-12-02</td>'
        '<td><span class="gloss-state gloss-state--fresh">fresh</span></td><td markdown="span" data-search-exclude>'
        "[What is tiling in CUDA?](terms/tiling.md), [Day 13: \\[shared\\] memory](lessons/day13-shared-memory.md)"
        "</td></tr>",
        '<tr markdown="1" id="day15-banks-h200-1"><td><code>day15-banks</code></td>'
        f'<td title="{SENTENCE}">h200-1</td><td>NVIDIA H200</td><td>2026-12-02</td>'
        '<td><span class="gloss-state gloss-state--stale" title="code/day15/banks.cu changed since it was measured; '
        're-run `gloss measure run day15-banks --node h200-1`">stale</span></td>'
        '<td markdown="span" data-search-exclude>no page</td></tr>',
        '<tr markdown="1" id="day16-matmul-h200-1"><td><code>day16-matmul</code></td><td>h200-1</td>'
        '<td>\u2014</td><td>\u2014</td><td><span class="gloss-state gloss-state--missing" '
        'title="experiment &#x27;day16-matmul&#x27; has no result on node &#x27;h200-1&#x27;; '
        'run `gloss measure run day16-matmul --node h200-1` on that node">missing</span></td>'
        '<td markdown="span" data-search-exclude>no page</td></tr>',
        '<tr markdown="1" id="day17-x"><td><code>day17-x</code></td><td>\u2014</td><td>\u2014</td><td>\u2014</td>'
        '<td><span class="gloss-state gloss-state--missing">missing</span></td>'
        '<td markdown="span" data-search-exclude>no page</td></tr>',
    ]
    todo = lines[lines.index("## What to do") + 2 :]
    assert todo[:3] == [
        "- `day15-banks` on h200-1 (stale): code/day15/banks.cu changed since it was measured; "
        "re-run `gloss measure run day15-banks --node h200-1`",
        "- `day16-matmul` on h200-1 (missing): experiment 'day16-matmul' has no result on node 'h200-1'; "
        "run `gloss measure run day16-matmul --node h200-1` on that node",
        "- code/day17/experiment.yaml:3: 'sizes' is empty; declare at least one size",
    ]


def test_an_empty_project_says_so() -> None:
    md = measurements_page(ResultsView(root=Path(".")), {})
    assert md.endswith("No experiment is declared yet.\n")
    assert "<table" not in md and "What to do" not in md


def test_an_experiment_embedded_by_many_pages_names_the_first_twenty() -> None:
    pages = [(f"What is t{i}?", f"terms/t{i}.md") for i in range(1000)]
    md = measurements_page(pv.view(pv.result(), experiments=("day13-transpose",)), {"day13-transpose": pages})
    row = next(line for line in md.split("\n") if line.startswith("<tr markdown"))
    assert row.endswith('<td markdown="span" data-search-exclude>'
                        + ", ".join(f"[What is t{i}?](terms/t{i}.md)" for i in range(20))
                       + " and 980 more pages</td></tr>")
