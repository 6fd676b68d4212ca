"""The runner's counter pass end to end on the CPU: the fake device times the rows, a fake ``ncu``
stands in for ncu and the probe (it writes the manifest the probe would write for the run's order, and
ncu's CSV), and the results come out with counters on every kernel row, judged fresh; a mapping that
does not hold leaves every result incomplete, with the reason."""

from __future__ import annotations

import stat
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.nsight.counters import DEFAULT_METRICS
from measure.run import counterpass, runner
from measure.store import results as R
from measure.testing import synthetic as T
from measure.testing.fakedevice import FakeDevice

SPEC = """\
id: toy-small
title: A small copy for tests
source: toy.cu
element: float32
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: 4K, dims: {n: 4096}}
  - {label: 8K, dims: {n: 8192}}
kernels:
  - id: copy
    label: copy
    function: toy_copy
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, n]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: slow
    label: slow copy
    function: toy_slow
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, n]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
    counters: [lts__t_sectors_srcunit_tex_op_read.sum]
"""


# Stands in for `ncu ... python -m measure probe ...`: the manifest the probe writes for the ids it is
# given (kernel rows, sizes outer, kernels inner) and ncu's CSV for the same launches.
FAKE_NCU = """\
import json, sys
from pathlib import Path
args = sys.argv[1:]
if args == ["--version"]:
    print("Version 2025.3.1.0")
    sys.exit(0)
sys.path.insert(0, {repo!r})
from measure.experiment.spec import load_specs
probe = args.index("probe")
root = Path(args[args.index("--root") + 1])
manifest = args[args.index("--manifest") + 1]
ids = [a for a in args[probe + 5:]]
log = args[args.index("--log-file") + 1]
metrics = args[args.index("--metrics") + 1].split(",")
declared, _ = load_specs(root)
launches = [(i, k.id, s.label, k.function) for i in ids for s in declared[i].experiment.sizes
            for k in declared[i].experiment.kernels if k.kind == "kernel"]
if {swap!r}:
    launches[0], launches[1] = launches[1], launches[0]
with open(manifest, "w") as m, open(log, "w") as out:
    out.write('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\\n')
    for n, (e, k, s, f) in enumerate(launches):
        m.write(json.dumps({{"experiment": e, "kernel": k, "size": s, "function": f}}) + "\\n")
    if {swap!r}:
        launches[0], launches[1] = launches[1], launches[0]
    for n, (e, k, s, f) in enumerate(launches):
        for metric in metrics:
            out.write('"%d","%s","%s","byte","%d"\\n' % (n, f, metric, 1000 + n))
"""

QUICK = runner.Options(min_samples=3, min_gpu_time_s=0.0, row_time_limit_s=0.5, warmup_launches=1, max_batch=4)
EXTRA = "lts__t_sectors_srcunit_tex_op_read.sum"


def copy_body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def make_repo(tmp_path: Path) -> Path:
    T.write_fixture_repo(tmp_path)
    (tmp_path / "code" / "toy" / "experiment.yaml").write_text(SPEC)
    T.write_small_ceilings(tmp_path, "16K", 16384)
    return tmp_path


def fake_ncu(tmp_path: Path, swap: bool = False) -> str:
    path = tmp_path / "fake-ncu"
    repo = str(Path(__file__).resolve().parents[2])
    path.write_text(f"#!{sys.executable}\n" + FAKE_NCU.format(repo=repo, swap=swap))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def run(root: Path, settings: counterpass.Settings) -> int:
    declared, problems = load_specs(root)
    assert problems == []
    nodes, _ = load_nodes(root)
    device = FakeDevice({"toy_copy": copy_body, "toy_slow": copy_body, "copy_kernel": copy_body})
    out = root / R.RESULTS_DIR
    return runner.run(
        root, "test-node", nodes["test-node"], declared, [], QUICK, runner.Provenance0(), out, settings, device=device
    )


def test_every_kernel_row_gets_its_counters_and_the_results_are_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path)
    assert run(root, counterpass.Settings(ncu=fake_ncu(tmp_path), log_file=tmp_path / "ncu.log")) == 0
    printed = capsys.readouterr().out
    assert "counter pass: 19 metrics, 3 functions, under ncu ..." in printed
    assert "counter pass: 5 rows with counters" in printed
    rs = R.load_all(root)
    toy, ceilings = rs.get("toy-small", "test-node"), rs.get("copy-ceilings", "test-node")
    assert (toy.state, ceilings.state) == ("fresh", "fresh"), toy.problems + ceilings.problems
    assert toy.result is not None and ceilings.result is not None
    cp = toy.result.counter_pass
    assert cp is not None and cp.error == "" and cp.ncu_version == "2025.3.1.0"
    assert cp.metrics == [*DEFAULT_METRICS["sm_90"], EXTRA]
    got = {(r.kernel, r.size): (r.counters or {}).get("gpu__time_duration.sum") for r in toy.result.rows}
    # launch order: the ceilings' copy kernel (0), then toy-small at 4K (1, 2) and at 8K (3, 4)
    assert got == {("copy", "4K"): 1001.0, ("slow", "4K"): 1002.0, ("copy", "8K"): 1003.0, ("slow", "8K"): 1004.0}
    memcpy, copy = ceilings.result.rows
    assert memcpy.counters is None and copy.counters is not None and copy.counters[EXTRA] == 1000.0
    assert toy.result.ceilings == ceilings.result.ceilings  # every result carries the ceilings' own counters


def test_a_mapping_that_does_not_hold_leaves_every_result_incomplete(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert run(root, counterpass.Settings(ncu=fake_ncu(tmp_path, swap=True))) == 0
    entry = R.load_all(root).get("toy-small", "test-node")
    assert entry.state == "incomplete"
    assert [str(p) for p in entry.problems] == [
        "measure/results/test-node/toy-small.json:1: incomplete: the counter pass failed (launch 1: ncu profiled "
        "'copy_kernel' but the probe launched 'toy_copy' for toy-small 'copy' at 4K; no counters were assigned); "
        "fix it, then re-run `gloss measure run toy-small --node test-node`"
    ]
    assert entry.result is not None and all(r.counters is None for r in entry.result.rows)


def test_no_counters_is_recorded_and_not_incomplete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path)
    assert run(root, counterpass.Settings(enabled=False)) == 0
    assert "counter pass: not requested (--no-counters)" in capsys.readouterr().out
    entry = R.load_all(root).get("toy-small", "test-node")
    assert entry.state == "fresh" and entry.result is not None and entry.result.counter_pass is None
