"""The DRAM bytes check: reads and writes judged apart, and which direction marks a row suspect."""

from __future__ import annotations

import pytest

from measure.counters import DRAM_RD, DRAM_WR, DramFinding, dram_finding
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
        (100 * MB, 120 * MB, DramFinding(False, 1.2, "wrote")),
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
        "more than the declared bytes: it reads some data more than once; GB/s counts the declared bytes)"
    )
    assert dram_note(DramFinding(False, 1.17, "read", False)) == (
        "DRAM read 1.17\u00d7 the declared bytes (more than 10.0\u00a0% more: the kernel's global loads ask for "
        "no more than the declared bytes, so the extra reads are the memory system's, not re-reads by the code; "
        "GB/s counts the declared bytes)"
    )
    assert dram_note(DramFinding(False, 1.2, "wrote")) == (
        "DRAM wrote 1.20\u00d7 the declared bytes (more than 10.0\u00a0% more: the kernel writes some data more "
        "than once; GB/s counts the declared bytes)"
    )
    assert dram_note(None) == ""


def test_the_cause_of_extra_reads_comes_from_the_kernels_own_load_sectors() -> None:
    from measure.counters import SEC_LD

    base = {DRAM_RD: float(150 * MB), DRAM_WR: float(100 * MB)}
    # loads asked the L1 for exactly the declared 100 MB: the extra DRAM reads are not the code's re-reads
    exact = dram_finding({**base, SEC_LD: 100 * MB / 32}, 100 * MB, 100 * MB)
    assert exact == DramFinding(False, 1.5, "read", False)
    # loads asked for three times the declared bytes: the code re-reads
    again = dram_finding({**base, SEC_LD: 300 * MB / 32}, 100 * MB, 100 * MB)
    assert again == DramFinding(False, 1.5, "read", True)
    assert dram_finding(base, 100 * MB, 100 * MB) == DramFinding(False, 1.5, "read", None)
