"""The counter pass without a GPU: ncu's CSV (details page, as ``--csv --print-units base`` writes it),
the probe's manifest, the mapping of launches to rows (refused on any mismatch), the ncu command line,
and the whole pass against a fake ``ncu`` executable."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from measure.nsight import ncu
from measure.nsight.counters import DEFAULT_METRICS, metrics_for
from measure.run import counterpass

HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
    '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
)


def record(lid: int, kernel: str, metric: str, unit: str, value: str, block: str = "(32, 8, 1)") -> str:
    return (
        f'"{lid}","4242","python3","127.0.0.1","{kernel}","1","7","{block}","(94, 63, 1)","0","9.0",'
        f'"Command line profiler metrics","{metric}","{unit}","{value}"'
    )


SAMPLE = "\n".join(
    [
        "==PROF== Connected to process 4242 (/usr/bin/python3.12)",
        '==PROF== Profiling "transpose_naive" - 0: 0%....50%....100% - 9 passes',
        '==PROF== Profiling "transpose_padded" - 1: 0%....50%....100% - 9 passes',
        "==PROF== Disconnected from process 4242",
        HEADER,
        record(0, "transpose_naive", "dram__bytes_read.sum", "byte", "24,048,036"),
        record(0, "transpose_naive", "gpu__time_duration.sum", "ns", "31,648"),
        record(0, "transpose_naive", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "81.93"),
        record(0, "transpose_naive", "sm__cycles_elapsed.avg.per_second", "Hz", "1.98e+09"),
        record(1, "transpose_padded", "dram__bytes_read.sum", "byte", "24048036"),
        record(1, "transpose_padded", "gpu__time_duration.sum", "ns", "n/a"),
    ]
)


def test_the_csv_gives_each_launch_its_metrics_in_base_units() -> None:
    launches = ncu.parse_csv(SAMPLE)
    assert [(p.id, p.kernel_name) for p in launches] == [("0", "transpose_naive"), ("1", "transpose_padded")]
    assert launches[0].metrics == {
        "dram__bytes_read.sum": 24048036.0,
        "gpu__time_duration.sum": 31648.0,
        "sm__warps_active.avg.pct_of_peak_sustained_active": 81.93,
        "sm__cycles_elapsed.avg.per_second": 1.98e9,
    }
    assert launches[1].metrics == {"dram__bytes_read.sum": 24048036.0}
    assert launches[1].unreadable == {"gpu__time_duration.sum": "n/a"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("==PROF== nothing was profiled\n", "ncu's output has no CSV header (a line starting with \"ID\")"),
        ('"ID","Kernel Name","Metric Value"\n', "ncu's CSV header lacks the column(s) Metric Name"),
        (HEADER + '\n"0","4242","python3"\n', "ncu's CSV record 1 has 3 fields, the header 15"),
        (
            HEADER + "\n" + record(0, "a", "m", "byte", "1") + "\n" + record(0, "b", "m", "byte", "1"),
            "ncu's CSV gives launch ID 0 two kernel names, 'a' and 'b'",
        ),
    ],
)
def test_a_csv_that_does_not_read_is_refused(text: str, message: str) -> None:
    with pytest.raises(ncu.CounterError) as err:
        ncu.parse_csv(text)
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("text", "value"),
    [("1234", 1234.0), ("1,234,567", 1234567.0), ("87.5", 87.5), ("1.2e+09", 1.2e9), ("n/a", None), ("9,00", None)],
)
def test_numbers_as_ncu_prints_them(text: str, value: float | None) -> None:
    assert ncu.number(text) == value


def entry(exp: str, kernel: str, size: str, function: str) -> ncu.ManifestEntry:
    return ncu.ManifestEntry(exp, kernel, size, function)


MANIFEST = [
    entry("day13-transpose", "naive", "2003x3001", "transpose_naive"),
    entry("day13-transpose", "tile32-padded", "2003x3001", "transpose_padded"),
]


def test_launches_map_to_rows_by_order_and_function_name() -> None:
    got = ncu.assign(MANIFEST, ncu.parse_csv(SAMPLE))
    assert set(got) == {("day13-transpose", "naive", "2003x3001"), ("day13-transpose", "tile32-padded", "2003x3001")}
    assert got[("day13-transpose", "naive", "2003x3001")]["gpu__time_duration.sum"] == 31648.0


def test_a_demangled_name_matches_its_function() -> None:
    text = HEADER + "\n" + record(0, "void transpose_naive(float *, const float *, int, int)", "m", "byte", "1")
    assert ncu.assign(MANIFEST[:1], ncu.parse_csv(text)) == {("day13-transpose", "naive", "2003x3001"): {"m": 1.0}}


def test_a_launch_in_another_order_is_refused_not_misassigned() -> None:
    with pytest.raises(ncu.CounterError) as err:
        ncu.assign(list(reversed(MANIFEST)), ncu.parse_csv(SAMPLE))
    assert str(err.value) == (
        "launch 1: ncu profiled 'transpose_naive' but the probe launched 'transpose_padded' for day13-transpose "
        "'tile32-padded' at 2003x3001; no counters were assigned"
    )


def test_a_missing_or_extra_launch_is_refused() -> None:
    with pytest.raises(ncu.CounterError) as err:
        ncu.assign(MANIFEST[:1], ncu.parse_csv(SAMPLE))
    assert str(err.value) == "ncu profiled 2 launch(es) but the probe made 1; no counters were assigned"


def test_the_same_row_twice_is_refused() -> None:
    with pytest.raises(ncu.CounterError) as err:
        ncu.assign([MANIFEST[0], MANIFEST[0]], ncu.parse_csv(SAMPLE.replace("transpose_padded", "transpose_naive")))
    assert str(err.value) == (
        "launch 2: the probe launched day13-transpose 'naive' at 2003x3001 twice; no counters were assigned"
    )


def test_the_manifest_round_trips_and_a_line_cut_short_at_the_end_is_dropped() -> None:
    text = "".join(ncu.manifest_line(e) for e in MANIFEST)
    assert ncu.read_manifest(text) == MANIFEST
    assert ncu.read_manifest(text + '{"experiment": "x", "ker') == MANIFEST
    with pytest.raises(ncu.CounterError) as err:
        ncu.read_manifest("not json\n" + text)
    assert str(err.value).startswith("the probe's manifest line 1 does not read (")


def test_the_command_profiles_only_the_named_functions_with_the_declared_settings() -> None:
    argv = ncu.command("ncu", ["a.sum", "b.sum"], ["f2", "f1", "f2"], "/tmp/x.log", ["python3", "-m", "measure"])
    assert argv == [
        "ncu",
        "--clock-control",
        "none",
        "--cache-control",
        "all",
        "--csv",
        "--print-units",
        "base",
        "--metrics",
        "a.sum,b.sum",
        "--kernel-name",
        "regex:^(f1|f2)$",
        "--log-file",
        "/tmp/x.log",
        "python3",
        "-m",
        "measure",
    ]
    banner = "NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 3654)"
    assert ncu.version(banner) == "2025.3.1.0" and ncu.version("") == "unknown"


def test_extras_come_after_the_default_set_once_each() -> None:
    got = metrics_for("sm_90", [["x.sum", "dram__bytes_read.sum"], ["x.sum", "y.sum"]])
    assert got == [*DEFAULT_METRICS["sm_90"], "x.sum", "y.sum"]
    assert metrics_for("sm_75", [["x.sum"]]) == ["x.sum"]


# --- the whole pass against a fake ncu ---------------------------------------------------------------

FAKE_NCU = """\
import json, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (build 1)")
    sys.exit(0)
mode = {mode!r}
log = args[args.index("--log-file") + 1]
manifest = args[args.index("--manifest") + 1]
metrics = args[args.index("--metrics") + 1].split(",")
launches = [("e1", "k1", "S", "f1"), ("e1", "k2", "S", "f2")]
if mode == "hang":
    import time; time.sleep(60)
with open(manifest, "w") as m:
    for e, k, s, f in launches:
        m.write(json.dumps({{"experiment": e, "kernel": k, "size": s, "function": f}}) + "\\n")
header = {header!r}
print("probe: e1: 2 launch(es)")
out = sys.stdout if mode == "stdout" else open(log, "w")
out.write("==PROF== Connected to process 1\\n" + header + "\\n")
for i, (e, k, s, f) in enumerate(launches):
    name = "f9" if mode == "swap" and i == 1 else f
    for j, metric in enumerate(metrics):
        out.write('"%d","1","python3","h","%s","1","7","(256, 1, 1)","(9, 1, 1)","0","9.0","m","%s","byte","%d"\\n'
                  % (i, name, metric, 1000 * (i + 1) + j))
out.flush()
sys.exit(3 if mode == "exit" else 0)
"""


def fake_ncu(tmp_path: Path, mode: str) -> str:
    path = tmp_path / "ncu"
    path.write_text(f"#!{sys.executable}\n" + FAKE_NCU.format(mode=mode, header=HEADER))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def collect(tmp_path: Path, mode: str, **kw: object) -> counterpass.Outcome:
    exe = fake_ncu(tmp_path, mode)
    return counterpass.collect(tmp_path, "h200-1", ["e1"], ["a.sum", "b.sum"], ["f1", "f2"], ncu_path=exe, **kw)  # type: ignore[arg-type]


def test_the_pass_assigns_every_launch_and_records_how(tmp_path: Path) -> None:
    out = collect(tmp_path, "ok", log_file=tmp_path / "ncu.log")
    assert out.info.error == "" and out.info.ncu_version == "2025.3.1.0" and out.info.metrics == ["a.sum", "b.sum"]
    assert out.info.command[1:10] == [
        *("--clock-control", "none", "--cache-control", "all", "--csv", "--print-units", "base"),
        *("--metrics", "a.sum,b.sum"),
    ]
    assert out.info.command[-6:-1] == ["probe", "--node", "h200-1", "--manifest", out.info.command[-2]]
    assert out.for_row("e1", "k1", "S") == {"a.sum": 1000.0, "b.sum": 1001.0}
    assert out.for_row("e1", "k2", "S") == {"a.sum": 2000.0, "b.sum": 2001.0}
    assert (tmp_path / "ncu.log").read_text().startswith("==PROF==")


def test_a_csv_on_ncus_console_instead_of_its_log_file_is_read_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = collect(tmp_path, "stdout", log_file=tmp_path / "ncu.log")
    assert out.info.error == "" and out.for_row("e1", "k2", "S") == {"a.sum": 2000.0, "b.sum": 2001.0}
    assert (tmp_path / "ncu.log").read_text().count('"ID"') == 1
    assert "probe: e1: 2 launch(es)" in capsys.readouterr().out  # the probe's own lines reach the run's log


def test_a_mismatch_is_recorded_as_the_pass_error_and_nothing_is_assigned(tmp_path: Path) -> None:
    out = collect(tmp_path, "swap")
    assert out.counters == {}
    assert out.info.error == (
        "launch 2: ncu profiled 'f9' but the probe launched 'f2' for e1 'k2' at S; no counters were assigned"
    )


def test_a_pass_past_its_time_limit_is_killed_and_recorded(tmp_path: Path) -> None:
    out = collect(tmp_path, "hang", time_limit_s=1.0)
    assert out.counters == {} and out.info.error == "ncu did not finish within 1 s"


def test_no_ncu_is_recorded_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(counterpass, "find_ncu", lambda given: None)
    out = counterpass.collect(tmp_path, "n", ["e1"], ["a.sum"], ["f1"])
    assert out.info.error == "ncu is not on PATH (Nsight Compute)" and out.counters == {}


def test_a_nonzero_exit_keeps_what_was_mapped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = collect(tmp_path, "exit")
    assert out.info.error == "" and len(out.counters) == 2
    assert "counter pass: ncu exited with 3 after 2 launch(es)" in capsys.readouterr().out

