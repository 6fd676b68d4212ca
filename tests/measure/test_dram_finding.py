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


UNDETERMINED = "where the extra bytes come from is not determined by these counters"
HEAD_READ = "DRAM read over 10.0\u00a0% more than the declared bytes: "


@pytest.mark.parametrize(
    ("finding", "text", "gbps"),
    [
        (
            DramFinding(True, 0.6, "read"),
            "DRAM read over 10.0\u00a0% fewer bytes than the kernel declares reading: a cache served part of them",
            "so GB/s overstates DRAM traffic",
        ),
        (  # a naive matrix multiply: its loads ask for 2,560 times the declared bytes
            DramFinding(False, 42.1, "read", asked=2560.0),
            HEAD_READ + "the kernel's own global loads asked for at least that many bytes in 32-byte sectors: "
            "sectors used in part, or data loaded more than once",
            "GB/s counts the declared bytes",
        ),
        (  # the naive transpose: loads exactly the declared bytes, stores 4 bytes of each of 32 sectors
            DramFinding(False, 1.17, "read", asked=1.0, partial_stores=8.0),
            HEAD_READ + "more than every sector the kernel's global loads asked for; its global stores write "
            "sectors in part (they touch more sector bytes than they write), and a partly written sector may have "
            "to be read from DRAM to be completed: the likely source, which these counters do not separate",
            "GB/s counts the declared bytes",
        ),
        (  # a pointer chase: one sector per 4-byte load, whole-sector stores, DRAM reads more still
            DramFinding(False, 16.0, "read", asked=8.0, partial_stores=1.0),
            HEAD_READ + "more than every sector the kernel's global loads asked for, and its stores write whole "
            f"sectors: {UNDETERMINED}",
            "GB/s counts the declared bytes",
        ),
        (  # no store counter, or nothing written
            DramFinding(False, 1.5, "read", asked=1.0),
            HEAD_READ + f"more than every sector the kernel's global loads asked for: {UNDETERMINED}",
            "GB/s counts the declared bytes",
        ),
        (
            DramFinding(False, 1.5, "wrote", asked=1.0),
            "DRAM wrote over 10.0\u00a0% more than the declared bytes: more than every sector the kernel's global "
            f"stores touched: {UNDETERMINED}",
            "GB/s counts the declared bytes",
        ),
        (
            DramFinding(False, 1.5, "wrote", asked=4.0),
            "DRAM wrote over 10.0\u00a0% more than the declared bytes: the kernel's own global stores asked for at "
            "least that many bytes in 32-byte sectors: sectors used in part, or data written more than once",
            "GB/s counts the declared bytes",
        ),
        (
            DramFinding(False, 1.2, "wrote"),
            "DRAM wrote over 10.0\u00a0% more than the declared bytes: the counters do not say whether the "
            "kernel's own stores asked for more",
            "GB/s counts the declared bytes",
        ),
    ],
)
def test_the_note_words_come_from_the_rows_counters(finding: DramFinding, text: str, gbps: str) -> None:
    note = dram_note(finding)
    assert note is not None and (note.text, note.gbps) == (text, gbps)


def test_no_finding_no_note() -> None:
    assert dram_note(None) is None


def test_the_cause_of_extra_bytes_comes_from_the_kernels_own_sectors() -> None:
    from measure.nsight.counters import SEC_LD, SEC_ST

    base = {DRAM_RD: float(150 * MB), DRAM_WR: float(100 * MB)}
    # loads asked the L1 for exactly the declared 100 MB, DRAM read 150: not the loads
    found = dram_finding({**base, SEC_LD: 100 * MB / 32}, 100 * MB, 100 * MB)
    assert found == DramFinding(False, 1.5, "read", 1.0) and found.code_asked is False
    # loads asked for three times the declared bytes: they cover the DRAM reads
    found = dram_finding({**base, SEC_LD: 300 * MB / 32}, 100 * MB, 100 * MB)
    assert found is not None and found.code_asked is True
    assert dram_finding(base, 100 * MB, 100 * MB) == DramFinding(False, 1.5, "read", None)
    # the stores touched 8 sector bytes per byte written: partly written sectors
    found = dram_finding({**base, SEC_LD: 100 * MB / 32, SEC_ST: 800 * MB / 32}, 100 * MB, 100 * MB)
    assert found is not None and found.partial_stores == pytest.approx(8.0) and found.stores_partial is True


@pytest.mark.parametrize(
    ("written", "judged"),
    [
        (1.9e6, False),  # 1.9 MB of writes beside 100 MB read: under 2 % of the declared bytes, not judged
        (2.0e6, False),
        (2.5e6, True),  # over 2 %: judged, however small the declared writes
    ],
)
def test_a_few_extra_bytes_against_the_whole_row_are_not_a_finding(written: float, judged: bool) -> None:
    from measure.nsight.counters import SEC_ST

    tiny = {DRAM_RD: float(100 * MB), DRAM_WR: written, SEC_ST: 1056.0}
    found = dram_finding(tiny, 100 * MB, 4224)
    assert (found is not None) == judged
    if found is not None:
        assert (found.what, found.code_asked) == ("wrote", False)
