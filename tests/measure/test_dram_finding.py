"""The DRAM bytes check: reads and writes judged apart, and which direction marks a row suspect."""

from __future__ import annotations

import pytest

from measure.nsight.counters import DRAM_RD, DRAM_WR, DramFinding, dram_finding
from site_plugins.measured.load import dram_note

MB = 1_000_000


@pytest.mark.parametrize(
    ("read", "written", "expected"),
    [
        # exactly the declared bytes: nothing to say
        (100 * MB, 100 * MB, None),
        # writes still in the L2 when the kernel ends are not judged (day 20's 0.85 of the writes)
        (100 * MB, 70 * MB, None),
        # within the tolerance either way
        (91 * MB, 100 * MB, None),
        (109 * MB, 109 * MB, None),
        # a cache served part of the declared reads: GB/s overstates DRAM traffic
        (60 * MB, 100 * MB, DramFinding(True, 0.6, "read")),
        # re-reads (a naive matrix multiply): a note, not a suspect row
        (4200 * MB, 100 * MB, DramFinding(False, 42.0, "read")),
        # sectors written more than once
        (100 * MB, 120 * MB, DramFinding(False, 1.2, "wrote")),  # no store counters: cause unknown
    ],
)
def test_dram_finding(read: int, written: int, expected: DramFinding | None) -> None:
    found = dram_finding({DRAM_RD: float(read), DRAM_WR: float(written)}, 100 * MB, 100 * MB)
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert (found.suspect, found.what) == (expected.suspect, expected.what)
        assert found.ratio == pytest.approx(expected.ratio)


def test_no_counters_or_no_dram_metrics_say_nothing() -> None:
    assert dram_finding(None, 1, 1) is None
    assert dram_finding({DRAM_RD: 5.0}, 100, 100) is None


def test_the_note_words_are_the_interface() -> None:
    assert dram_note(DramFinding(True, 0.6, "read")) == (
        "DRAM read 0.600\u00d7 the bytes the kernel declares reading (more than 10.0\u00a0% fewer: a cache served "
        "part of them, so GB/s overstates DRAM traffic)"
    )
    assert dram_note(DramFinding(False, 42.1, "read", True)) == (
        "DRAM read 42.1\u00d7 the declared bytes (more than 10.0\u00a0% more: the kernel's global loads ask for "
        "more than the declared bytes: data moved more than once, or sectors used in part; GB/s counts the "
        "declared bytes)"
    )
    assert dram_note(DramFinding(False, 1.17, "read", False)) == (
        "DRAM read 1.17\u00d7 the declared bytes (more than 10.0\u00a0% more: more than every sector the "
        "kernel's global loads asked for, so the extra bytes are the memory system's, not the code's; GB/s "
        "counts the declared bytes)"
    )
    assert dram_note(DramFinding(False, 600.0, "wrote", False)) == (
        "DRAM wrote 600\u00d7 the declared bytes (more than 10.0\u00a0% more: more than every sector the "
        "kernel's global stores asked for, so the extra bytes are the memory system's, not the code's; GB/s "
        "counts the declared bytes)"
    )
    assert dram_note(DramFinding(False, 1.2, "wrote")) == (
        "DRAM wrote 1.20\u00d7 the declared bytes (more than 10.0\u00a0% more: the counters do not say whether "
        "the kernel's own stores asked for more; GB/s counts the declared bytes)"
    )
    assert dram_note(None) == ""


def test_the_cause_of_extra_bytes_comes_from_the_kernels_own_sectors() -> None:
    from measure.nsight.counters import SEC_LD, SEC_ST

    base = {DRAM_RD: float(150 * MB), DRAM_WR: float(100 * MB)}
    # loads asked the L1 for exactly the declared 100 MB, DRAM read 150: the excess is not the code's
    assert dram_finding({**base, SEC_LD: 100 * MB / 32}, 100 * MB, 100 * MB) == DramFinding(False, 1.5, "read", False)
    # loads asked for three times the declared bytes: they cover the DRAM reads
    assert dram_finding({**base, SEC_LD: 300 * MB / 32}, 100 * MB, 100 * MB) == DramFinding(False, 1.5, "read", True)
    assert dram_finding(base, 100 * MB, 100 * MB) == DramFinding(False, 1.5, "read", None)
    # a few bytes declared, one sector stored per block, megabytes written back during the kernel
    tiny = {DRAM_RD: float(100 * MB), DRAM_WR: 2.4e6, SEC_ST: 1056.0}
    assert dram_finding(tiny, 100 * MB, 4224) == DramFinding(False, 2.4e6 / 4224, "wrote", False)
