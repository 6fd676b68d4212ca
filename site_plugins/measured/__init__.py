"""Measurements in pages: table embeds, values in prose, the hand-typed-figure lint, the Measurements page
and the Roofline page (every measured row under each node's measured roofs: roofline.py, rooflinechart.py,
rooflinepage.py).

A page can show only what a fresh, verified result on a registered node says; anything else is a
``path:line: problem; remedy`` whose remedy names the ``gloss measure run`` command.

How to write measurements in an entry
=====================================

Directives are written ``{{ NAME ARGS }}`` on one line, outside code (backticks and fenced blocks are
left alone, so the syntax can be shown in code). Values are bare (``copy``, ``tile[32][33]``,
``8192x8192``) or double-quoted when they hold spaces or commas; lists join values with commas.

Table embed, on a line of its own::

    {{ measured day13-transpose size=8192x8192 }}
    {{ measured day13-transpose size=8192x8192 rows=copy,naive,"tile[32][32]","tile[32][33]" }}
    {{ measured day13-transpose size=2003x3001 rows=naive,tile32-padded cols=time,gbps,pct_copy }}

renders the provenance sentence ("NVIDIA H200, driver 580.159.04, CUDA 13.0 (V13.0.88), built with nvcc
-O3 -arch=sm_90, captured 2026-12-02 on verification node h200-1"), the table (kernel, time in ms,
GB/s or GFLOP/s, % of the copy ceiling; suspect rows marked with their reason), then an SVG bar chart
of the same rows against the copy ceiling. Options:

- ``size=`` the problem size as the result labels it (``2003x3001``); needed when there are several.
- ``node=`` one verification node. Without it the embed shows every node with a fresh result, one
  content tab per GPU (:mod:`site_plugins.measured.tabs`), each with its own provenance sentence, table,
  notes and chart; the tab of the page's prose node comes first.
- ``rows=`` kernels to show, in this order, by label (``tile[32][33]``) or spec id; default all.
- ``cols=`` columns: ``time`` (median, ms), ``iqr`` (ms), ``gbps`` (DRAM, from declared bytes),
  ``shared_gbps`` (shared memory, where the spec declares shared bytes), ``gflops``, ``pct_copy``
  (% of the fastest copy kernel moving the same bytes in the same run; the provenance names it and
  the chart draws the driver memcpy as a second ceiling), ``pct_peak`` (% of theoretical DRAM peak),
  ``pct_shared_peak`` (shared-memory GB/s over what every SM's 32 four-byte banks serve per clock, at
  the median SM clock recorded with the row's samples), ``registers`` (per thread: the compiler's
  count the runner recorded when it loaded the module, or the counter pass's), ``us_per_launch``
  (``kind: launch`` rows: median sample over launches per sample), ``ns_per_step`` and
  ``cycles_per_step`` (sizes that declare a ``steps`` dim, e.g. a pointer chase: the median over the
  steps, and that in SM cycles at the median SM clock recorded with the samples), ``pct_fp32`` (GFLOP/s as % of the
  run's FP32 ceiling, the fastest ceiling row declaring FLOPs; the header names that row and its
  GFLOP/s), and, in tables only, ``pct:ID`` (the experiment's metric as % of row ``ID`` of the same
  experiment and size or of the run's ceilings; header "% of <that row's label>", e.g.
  ``cols=gflops,pct:cublas-sgemm`` gives "% of cuBLAS SGEMM");
  default ``time``, the experiment's metric (``gflops`` if it declares FLOPs, else ``shared_gbps`` if
  it declares shared bytes, else ``gbps``), and ``pct_copy`` for a ``gbps`` experiment. Counter
  columns (results with Nsight Compute counters): ``conflict_ways`` (``_ld``, ``_st``),
  ``sectors_per_req`` (``_ld``, ``_st``), ``global_ld_mb``, ``global_st_mb``, ``l2_mb``, ``dram_mb``,
  ``dram_read_mb``, ``dram_write_mb``,
  ``dram_ratio``, ``occupancy_pct``, ``registers``, ``ktime`` (the kernel's own µs), ``sm_clock_mhz``
  (definitions: :mod:`measure.nsight.counters`). For a launch under 50 µs the time cell also gives the
  kernel's own duration, and the provenance says which time is which.

A sweep, on a line of its own, shows one column of the named rows at every size of the experiment
(or at ``sizes=``), a line per size and a column per row, then a bar per size and row::

    {{ sweep bandwidth-read node=h200-1 rows=cold,warm col=gbps }}
    {{ sweep chase-latency node=h200-1 rows=chase col=ns_per_step sizes="4 KiB","32 MiB" }}

Sizes and kernels are named as the result labels them; quote labels with spaces or commas
(``size="16384 blocks x 256 loads"``, ``rows="copy, float4 x4 grid-stride"``) or use the kernel's
spec id (``rows=padded``). The copy-ceiling rows measured in the same run can be named too.

A value in prose, formatted exactly as in the table, with its unit::

    The padded tile moves {{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }}.
    That is {{ value day13-transpose size=8192x8192 row="tile[32][33]" col=pct_copy }} of copy.

(``row=`` is required; ``col=`` defaults to the experiment's metric.) Figures in prose come from one
node: ``node=`` on the directive, else the entry's front-matter ``node:``, else the gloss plugin's
``default_node`` (mkdocs.yml); a page quoting any says which above its text ("Figures in the text: NVIDIA
H200 (h200-1)."). One Nsight Compute figure, a
derived name above or a raw metric the result holds::

    {{ counter day13-transpose size=8192x8192 row="tile[32][32]" metric=conflict_ways_ld }}   -> 32.0
    {{ counter day13-transpose size=8192x8192 row=naive metric=dram__bytes_read.sum }}

A ratio of two rows::

    {{ ratio day13-transpose size=8192x8192 num="tile[32][33]" den="tile[32][32]" col=gbps }}   -> 1.92×
    {{ ratio day13-transpose size=8192x8192 num=naive den=copy as=percent }}                     -> 31.4 %

A timing value (or ratio) from a row flagged noisy carries the table's mark (``~``, its reason in the
title), as one from a suspect row carries ``⚠``.

A figure quoted from a cited source, shown with a visible marker naming the source (the source must
be one of the entry's ``sources:`` titles when the caller passes them)::

    The H200's HBM3e is rated at {{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }}.

What the driver returned for an observed launch (a spec row of ``kind: observe``), a row's occupancy,
or a limit of the device, as the runner recorded them (inline; see :mod:`site_plugins.measured.observed`)::

    The launch fails with {{ observed shared-limits row=no-optin field=error }}.          -> invalid argument
    It returns {{ observed shared-limits row=no-optin field=error_name }}.                -> CUDA_ERROR_INVALID_VALUE
    With the opt-in it is {{ observed shared-limits row=optin field=launched }}.          -> launched
    {{ observed day16-matmul size=4096x4096 row=regtile field=blocks_per_sm }} blocks per SM   -> 2
    ({{ observed day16-matmul size=4096x4096 row=regtile field=occupancy }} of the warps)      -> 25.0 %
    A block may use {{ observed shared-limits limit=shared_per_block_optin }}.            -> 227 KiB

``field=`` is ``launched``, ``error``, ``error_name``, ``check`` or ``wrong`` (observed rows; the last two
say whether a launch that ran matched its reference and how many elements did not, e.g. for a race kept
on purpose, ``expect: mismatch``), ``blocks_per_sm``,
``warps_per_sm`` or ``occupancy`` (every kernel row); ``limit=`` is one of ``shared_per_block_default``,
``shared_per_block_optin``, ``shared_per_sm``, ``reserved_shared_per_block`` (shown in KiB),
``registers_per_sm``, ``registers_per_block``, ``max_threads_per_sm``, ``max_blocks_per_sm``,
``warp_size``. ``size=`` is needed when the row was launched at several sizes. A missing row, size, field
or limit, and an error asked of a launch that succeeded, are problems like any other.

Any other number followed by a measurement unit (GB/s, TB/s, ms, µs, us, ns, GFLOP/s, TFLOP/s, ...) in a
body is a hand-typed figure and a problem, as are numeric cells of a Markdown table under a header
naming such a unit.

Numbers: one formatter (:mod:`site_plugins.measured.fmt`) for tables, charts and prose: at least three
significant digits, integer digits never rounded away, comma thousands, a no-break space before the
unit (``3,894 GB/s``, ``0.301 ms``, ``97.3 %``, ``1.92×``).

Fail closed: an unknown experiment, no result, a stale, failed, tampered or unregistered-node result,
an unknown size, kernel or column, and malformed directives are problems. The page then shows a
visible banner (tables) or mark (values) instead of any figure; in preview the banner also says what
to run.
"""

from __future__ import annotations

from site_plugins.measured.comparepage import comparison_page
from site_plugins.measured.comparison import PAGE as COMPARISON_PAGE
from site_plugins.measured.expand import DIRECTIVES, Expansion, expand, lint_figures
from site_plugins.measured.load import load_view, load_view_at, results_unchanged, results_version
from site_plugins.measured.model import ResultsView
from site_plugins.measured.page import measurements_page
from site_plugins.measured.rooflinepage import roofline_page

CSS_ASSET = "measured/measured.css"  # under site_plugins/assets/, served as assets/gloss/measured/measured.css

__all__ = [
    "COMPARISON_PAGE",
    "CSS_ASSET",
    "DIRECTIVES",
    "Expansion",
    "ResultsView",
    "comparison_page",
    "expand",
    "lint_figures",
    "load_view",
    "load_view_at",
    "measurements_page",
    "results_unchanged",
    "results_version",
    "roofline_page",
]
