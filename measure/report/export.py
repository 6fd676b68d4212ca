"""Results in the formats other benchmark tools read (pure): Google Benchmark's JSON and Bencher's BMF.

Each timed row becomes one benchmark named ``EXPERIMENT/KERNEL/SIZE@NODE``. Both formats carry the
median time; Google Benchmark's as an aggregate named "median" (its compare tool reads aggregates), BMF's
as the ``latency`` measure in nanoseconds with the quartiles as its bounds. Rates are added where the
spec declares the work: bytes per second and FLOP per second (Google Benchmark's ``bytes_per_second``
and ``items_per_second``; BMF measures ``bandwidth`` in GB/s and ``flops`` in GFLOP/s). Failed and
observed rows have no time and are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from measure.store.resultformat import Result, Row

FORMATS = ("google-benchmark", "bmf")


def _name(result: Result, row: Row) -> str:
    return f"{result.experiment}/{row.kernel}/{row.size}@{result.node}"


def _timed(results: Iterable[Result]) -> list[tuple[Result, Row]]:
    out = []
    for result in results:
        for row in [*result.ceilings, *result.rows]:
            if row.kind != "observe" and row.summary is not None and not row.failed:
                out.append((result, row))
    return out


def google_benchmark(results: list[Result]) -> dict[str, Any]:
    """Google Benchmark's ``--benchmark_format=json`` layout: a context and one median aggregate per row."""
    first = results[0].provenance if results else None
    context: dict[str, Any] = {
        "date": first.finished_utc if first else "",
        "host_name": first.hostname if first else "",
        "node": results[0].node if results else "",
        "executable": "gloss measure run",
        "num_cpus": 0,
        "mhz_per_cpu": 0,
        "cpu_scaling_enabled": False,
        "caches": [],
        "library_build_type": "release",
        "gpu": first.gpu_name if first else "",
    }
    benchmarks = []
    for i, (result, row) in enumerate(_timed(results)):
        s = row.summary
        assert s is not None
        name = _name(result, row)
        bench: dict[str, Any] = {
            "name": f"{name}_median",
            "family_index": i,
            "per_family_instance_index": 0,
            "run_name": name,
            "run_type": "aggregate",
            "repetitions": s.n_kept,
            "threads": 1,
            "aggregate_name": "median",
            "aggregate_unit": "time",
            "iterations": s.n_kept,
            "real_time": s.median_ms,
            "cpu_time": s.median_ms,
            "time_unit": "ms",
        }
        seconds = s.median_ms / 1e3
        moved = row.bytes_read + row.bytes_written
        if moved:
            bench["bytes_per_second"] = moved / seconds
        if row.flops:
            bench["items_per_second"] = row.flops / seconds
        benchmarks.append(bench)
    return {"context": context, "benchmarks": benchmarks}


def bmf(results: list[Result]) -> dict[str, Any]:
    """Bencher Metric Format: {benchmark: {measure: {value, lower_value, upper_value}}}."""
    out: dict[str, Any] = {}
    for result, row in _timed(results):
        s = row.summary
        assert s is not None
        measures: dict[str, Any] = {
            "latency": {"value": s.median_ms * 1e6, "lower_value": s.q1_ms * 1e6, "upper_value": s.q3_ms * 1e6},
        }
        moved = row.bytes_read + row.bytes_written
        if moved:
            measures["bandwidth"] = {
                "value": moved / s.median_ms / 1e6,
                "lower_value": moved / s.q3_ms / 1e6,
                "upper_value": moved / s.q1_ms / 1e6,
            }
        if row.flops:
            measures["flops"] = {
                "value": row.flops / s.median_ms / 1e6,
                "lower_value": row.flops / s.q3_ms / 1e6,
                "upper_value": row.flops / s.q1_ms / 1e6,
            }
        out[_name(result, row)] = measures
    return out


def export(results: list[Result], fmt: str) -> dict[str, Any]:
    if fmt == "google-benchmark":
        return google_benchmark(results)
    if fmt == "bmf":
        return bmf(results)
    raise ValueError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")
