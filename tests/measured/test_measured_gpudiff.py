"""The reason a row's time differs between two GPUs: a table of recorded figures and the verdict each gets."""

from __future__ import annotations

import pytest

from site_plugins.measured.gpudiff import Side, classify, short

H100, H200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
NB = "\u00a0"


def side(gpu: str, time_ms: float, dram: float | None = 100.0, clock: float | None = 1980.0,
         kind: str = "kernel") -> Side:
    return Side(gpu, time_ms, kind=kind, dram_mb=dram, sm_clock_mhz=clock, l2_mib=50.0 if gpu == H100 else 60.0)


CASES = [
    # (name, H100 side, H200 side, copy ratio, reason, words)
    ("within ten percent", side(H100, 1.09), side(H200, 1.0), 1.33, "same", ""),
    ("a faster H100 within ten percent", side(H100, 0.91), side(H200, 1.0), 1.33, "same", ""),
    ("host transfer", side(H100, 0.78, None, None, "transfer"), side(H200, 1.0, None, None, "transfer"), 1.33,
     "host", "a transfer row: its time is spent on the host link or in launching, which the kernel counters "
     "recorded here do not measure"),
    ("more DRAM bytes on the smaller L2", side(H100, 1.21, dram=258.0), side(H200, 1.0), 1.33, "dram-bytes",
     f"the H100 moved 2.58\u00d7 the DRAM bytes of the H200 (Nsight Compute dram__bytes_read.sum + "
     f"dram__bytes_write.sum): less of the data stayed in its 50.0{NB}MiB L2 (60.0{NB}MiB on the H200)"),
    ("DRAM bytes win over a matching copy ratio", side(H100, 1.33, dram=120.0), side(H200, 1.0), 1.33,
     "dram-bytes", None),
    ("same bytes, tracks the copies", side(H100, 1.30), side(H200, 1.0), 1.33, "bandwidth",
     "the same DRAM bytes (within 10 %) on both, and each node's fastest copy kernel in the same run differs by "
     "1.33\u00d7: the row tracks DRAM bandwidth"),
    ("ten percent off the copy ratio still tracks it", side(H100, 1.20), side(H200, 1.0), 1.33, "bandwidth", None),
    ("slower by less than the copies", side(H100, 1.15), side(H200, 1.0), 1.33, "below-copy",
     "the same DRAM bytes (within 10 %) on both; the fastest copies differ by 1.33\u00d7, more than this row: "
     "DRAM bandwidth accounts for at most part of the difference"),
    ("a slower SM clock", side(H100, 1.25, clock=1584.0), side(H200, 1.0, clock=1980.0), 1.33, "clock",
     f"the SM clock recorded with the samples was 1,584{NB}MHz on the H100 and 1,980{NB}MHz on the H200, a "
     "ratio of 1.25\u00d7"),
    ("a clock difference that does not match the time", side(H100, 1.25, clock=1880.0), side(H200, 1.0), 1.33,
     "bandwidth", None),
    ("slower than the copies", side(H100, 1.60), side(H200, 1.0), 1.33, "unexplained",
     f"the same DRAM bytes (within 10 %); SM clocks 1,980 and 1,980{NB}MHz; fastest copies differ by "
     "1.33\u00d7: the counters recorded here do not account for it"),
    ("a faster H100 kernel", side(H100, 0.80), side(H200, 1.0), 1.33, "unexplained", None),
    ("no counters", side(H100, 1.30, dram=None, clock=None), side(H200, 1.0, dram=None, clock=None), 1.33,
     "unexplained", "no DRAM counters; fastest copies differ by 1.33\u00d7: the counters recorded here do not "
     "account for it"),
    ("no copy figure", side(H100, 1.30), side(H200, 1.0), None, "unexplained", None),
    ("the driver's memcpy", side(H100, 1.37, None, kind="memcpy"), side(H200, 1.0, None, kind="memcpy"), 1.35,
     "bandwidth", "the driver's copy (no counters of its own) differs as the fastest copy kernels in the same run "
     "do (1.35\u00d7)"),
    ("a memcpy far from the copies", side(H100, 1.9, None, kind="memcpy"), side(H200, 1.0, None, kind="memcpy"),
     1.35, "unexplained", None),
]


@pytest.mark.parametrize(("name", "a", "b", "copy", "reason", "words"), CASES, ids=[c[0] for c in CASES])
def test_classify(name: str, a: Side, b: Side, copy: float | None, reason: str, words: str | None) -> None:
    verdict = classify(a, b, copy)
    assert verdict.reason == reason
    assert verdict.ratio == pytest.approx(a.time_ms / b.time_ms)
    if words is not None:
        assert verdict.why == words


def test_short_names() -> None:
    assert short(H100) == "H100" and short(H200) == "H200"
    assert short("NVIDIA GeForce RTX 4090") == "GeForce RTX 4090"
    assert short("Tesla V100-SXM2-16GB") == "Tesla V100-SXM2-16GB"
