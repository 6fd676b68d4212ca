"""``gloss measure run``: compile, check, time, write. Runs on a verification node only.

For each run: refuse unless the device is the named node's GPU; measure the copy ceilings first;
then for each experiment, size and kernel: fill inputs with fresh random numbers, poison the outputs,
launch once and compare with the numpy reference (a failed check is recorded and the row is never
timed); then time it cold (the L2 flushed before every sample, outside the events), one launch per
sample, in batches, until the stopping rule holds or the row's time limit passes. Every raw sample is
kept with the SM clock read around its batch. Each experiment's result is written atomically when
it is complete.
"""

from __future__ import annotations

import datetime as dt
import math
import socket
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from measure.experiment.includes import included_files
from measure.experiment.nodes import Node
from measure.experiment.spec import Declared, Experiment, evaluate, sha256_file
from measure.experiment.spec import Kernel as KernelSpec
from measure.nsight import counters as C
from measure.run import counterpass
from measure.run.progress import Reporter
from measure.run.rowrun import Options, Rows, error_text
from measure.store import results as R
from measure.store import stats

if TYPE_CHECKING:  # the device module needs PyCUDA; tests drive the runner with a fake device
    from measure.gpu.device import Device, Kernel

__all__ = ["Options", "Provenance0", "Runner", "run"]


@dataclass(frozen=True)
class Measured:
    """One experiment's rows as measured, before they are summarized against the run's ceilings."""

    declared: Declared
    prov: R.Provenance
    error: str
    builds: list[R.KernelBuild]
    rows: list[R.Row]


@dataclass(frozen=True)
class Provenance0:
    """What the caller knows (the node has no git history): commit and dirty flag."""

    git_commit: str = "unknown"
    git_dirty: bool | None = None


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Runner:
    def __init__(
        self,
        root: Path,
        node_name: str,
        node: Node,
        device: Device,
        options: Options,
        prov0: Provenance0,
        out_dir: Path,
    ) -> None:
        self.root = root
        self.node_name = node_name
        self.node = node
        self.dev = device
        self.opt = options
        self.prov0 = prov0
        self.out_dir = out_dir
        self.run_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:6]
        self.run_started = utc_now()
        self.nvcc = device.nvcc_version()
        self.versions = device.versions()
        self.limits = device.limits()
        info = device.info
        min_clock = int(options.throttle_fraction * info.max_sm_clock_mhz) if info.max_sm_clock_mhz > 0 else 0
        # Read at least four times the L2, never less than 256 MiB.
        flush = max(4 * info.l2_bytes, 256 << 20)
        self.settings = R.Settings(
            min_samples=options.min_samples,
            min_gpu_time_s=options.min_gpu_time_s,
            max_rel_stdev=options.max_rel_stdev,
            row_time_limit_s=options.row_time_limit_s,
            warmup_launches=options.warmup_launches,
            batch_size=options.max_batch,
            l2_flush_bytes=flush,
            throttle_fraction=options.throttle_fraction,
            min_sm_clock_mhz=min_clock,
            seed=options.seed,
        )
        device.setup_flush(flush)
        self.rows = Rows(device, options, self.settings, self.limits, device.events(options.max_batch))

    # --- provenance -------------------------------------------------------------------------------

    def provenance(self, d: Declared, started: str) -> R.Provenance:
        info = self.dev.info
        return R.Provenance(
            node=self.node_name,
            gpu_name=info.name,
            gpu_uuid=info.uuid,
            pci_bus_id=info.pci_bus_id,
            compute_capability=info.compute_capability,
            sm_count=info.sm_count,
            l2_bytes=info.l2_bytes,
            memory_clock_mhz=info.memory_clock_mhz,
            bus_width_bits=info.bus_width_bits,
            theoretical_peak_gbps=stats.theoretical_peak_gbps(info.memory_clock_mhz, info.bus_width_bits),
            max_sm_clock_mhz=info.max_sm_clock_mhz,
            nvml=info.nvml,
            driver_release=info.driver_release,
            cuda_driver_version=info.cuda_driver_version,
            nvcc_version=self.nvcc,
            nvcc_flags=self.dev.nvcc_flags(self.node.arch, str(Path(d.source_path).parent)),
            pycuda_version=self.versions["pycuda"],
            numpy_version=self.versions["numpy"],
            python_version=self.versions["python"],
            hostname=socket.gethostname(),
            git_commit=self.prov0.git_commit,
            git_dirty=self.prov0.git_dirty,
            source_path=d.source_path,
            source_sha256=sha256_file(self.root / d.source_path),
            source_includes=included_files(self.root, d.source_path)[0] or None,
            spec_path=d.spec_path,
            spec_sha256=sha256_file(self.root / d.spec_path),
            run_id=self.run_id,
            run_started_utc=self.run_started,
            started_utc=started,
            finished_utc=utc_now(),
            limits=self.limits,
        )

    # --- one experiment ---------------------------------------------------------------------------

    def run_experiment(self, d: Declared, ceilings: list[R.Row] | None, report: Reporter) -> R.Result:
        """Measure ``d`` and judge its rows against ``ceilings``; None: ``d`` is the run's only ceilings
        experiment, its rows are the ceilings."""
        measured = self.measure(d, report)
        if ceilings is None:
            return self.finish_ceilings([measured])[0]
        return self.finish(measured, ceilings)

    def measure(self, d: Declared, report: Reporter) -> Measured:
        """Compile and run every row of ``d``; rows not yet summarized."""
        started = utc_now()
        exp = d.experiment
        source = (self.root / d.source_path).read_text(encoding="utf-8")
        prov = self.provenance(d, started)  # hashes taken before compiling: what was compiled
        error = ""
        builds: list[R.KernelBuild] = []
        rows: list[R.Row] = []
        try:
            module = self.dev.compile(source, self.node.arch, (self.root / d.source_path).parent)
            kernels: dict[str, Kernel | str] = {}
            for k in exp.kernels:
                if k.function is not None:
                    try:  # a function that does not load fails its rows, not the experiment
                        kernels[k.id] = kernel = self.dev.kernel(module, k.function, _arg_types(exp, k))
                    except Exception as exc:
                        kernels[k.id] = error_text(exc)
                        continue
                    if all(b.function != k.function for b in builds):
                        builds.append(self.dev.build_info(kernel))
            for size in exp.sizes:
                rows += self.run_size(exp, size.label, dict(size.dims), kernels, report)
        except Exception as exc:  # record the failure: a result that says why it broke
            error = error_text(exc)
            report.note(f"  ! {exp.id}: {error}")
        libraries = self.dev.libraries() if any(k.kind == "cublas" for k in exp.kernels) else {}
        prov = replace(prov, finished_utc=utc_now(), libraries=libraries)
        return Measured(d, prov, error, builds, rows)

    def finish_ceilings(self, measured: list[Measured]) -> list[R.Result]:
        """The ceilings experiments' results: every one carries all their rows as its ceilings, each
        row's copy figure against the best copy among them all."""
        summarized = [[R.recompute_row(r, m.prov, self.settings, math.nan) for r in m.rows] for m in measured]
        best = R.copy_ceiling_gbps([r for rows in summarized for r in rows])
        final = [
            [R.recompute_row(r, m.prov, self.settings, best) for r in rows]
            for m, rows in zip(measured, summarized, strict=True)
        ]
        ceilings = [r for rows in final for r in rows]
        return [self._result(m, rows, ceilings) for m, rows in zip(measured, final, strict=True)]

    def finish(self, m: Measured, ceilings: list[R.Row]) -> R.Result:
        best = R.copy_ceiling_gbps(ceilings)
        return self._result(m, [R.recompute_row(r, m.prov, self.settings, best) for r in m.rows], ceilings)

    def _result(self, m: Measured, rows: list[R.Row], ceilings: list[R.Row]) -> R.Result:
        failed = bool(m.error) or any(r.failed for r in rows)
        return R.Result(
            schema_version=R.SCHEMA_VERSION,
            experiment=m.declared.id,
            title=m.declared.experiment.title,
            node=self.node_name,
            status="failed" if failed else "ok",
            error=m.error,
            provenance=m.prov,
            settings=self.settings,
            builds=m.builds,
            ceilings=ceilings,
            rows=rows,
        )

    def run_size(
        self,
        exp: Experiment,
        label: str,
        dims: dict[str, int],
        kernels: dict[str, Kernel | str],
        report: Reporter,
    ) -> list[R.Row]:
        shapes = {b.name: tuple(evaluate(s, dims) for s in b.shape) for b in exp.buffers}
        elem = 4
        bufs = {name: self.dev.alloc(int(np.prod(shape)) * elem) for name, shape in shapes.items()}
        working_set = sum(int(np.prod(s)) * elem for s in shapes.values())
        rows: list[R.Row] = []
        try:
            for k in exp.kernels:
                report.start(f"{exp.id} {k.label} @ {label}")
                env = {**dims, **k.params}
                row = replace(self.rows.declared_row(k, label, env, dims, working_set), experiment=exp.id)
                try:  # one row's failure is recorded in that row; the others still run
                    row = self.rows.run_row(exp, k, row, env, shapes, bufs, kernels.get(k.id))
                except Exception as exc:
                    failed = R.Check(False, k.tolerance, None, None, 0, error_text(exc))
                    row = replace(row, samples=None, check=failed)
                rows.append(row)
                report.done(_row_line(exp.id, row))
        finally:
            for b in bufs.values():
                b.free()
        return rows

def _arg_types(exp: Experiment, k: KernelSpec) -> str:
    buffers = {b.name for b in exp.buffers}
    return "".join("P" if a in buffers else "i" for a in k.args)


def _row_line(exp_id: str, row: R.Row) -> str:
    if row.outcome is not None:
        o = row.outcome
        what = "launched" if o.launched else "REFUSED"
        err = f" {o.error_name} ({o.error_string})" if o.error_name else ""
        check = "output ok" if row.check.passed else f"check: {row.check.message}"
        return f"  {exp_id:22} {row.label:38} {row.size:24} {what}{err}; {check}"
    if not row.check.passed:
        return f"  {exp_id:22} {row.label:38} {row.size:24} CHECK FAILED: {row.check.message}"
    s = row.samples
    assert s is not None
    med = stats.median(s.times_ms)
    bw = stats.gbps(R.bytes_moved(row), med)
    extra = f" {stats.gflops(row.flops, med):9.1f} GFLOP/s" if row.flops else ""
    if row.launches:
        extra += f" {med * 1000 / row.launches:8.3f} us/launch"
    return (
        f"  {exp_id:22} {row.label:38} {row.size:24} {med * 1000:10.2f} us {bw:8.1f} GB/s{extra}"
        f"  n={len(s.times_ms)} rsd={stats.rel_stdev(s.times_ms) * 100:.2f}%"
    )


def counter_pass(
    root: Path, node_name: str, chosen: list[Declared], cc: str, settings: counterpass.Settings | None
) -> counterpass.Outcome | None:
    """The counter pass before any timing; None when counters were not asked for (``--no-counters``)."""
    if settings is None:
        print("counter pass: not collected (timings only)", flush=True)
        return None
    if not settings.enabled:
        print("counter pass: not requested (--no-counters)", flush=True)
        return None
    metrics, functions = counterpass.plan(chosen, C.arch_of(cc))
    t0 = time.monotonic()
    print(f"counter pass: {len(metrics)} metrics, {len(set(functions))} functions, under ncu ...", flush=True)
    outcome = counterpass.collect(
        root,
        node_name,
        [d.id for d in chosen],
        metrics,
        functions,
        ncu_path=settings.ncu,
        time_limit_s=settings.time_limit_s,
        log_file=settings.log_file,
    )
    said = outcome.info.error or f"{len(outcome.counters)} rows with counters"
    print(f"counter pass: {said} ({time.monotonic() - t0:.1f} s, ncu {outcome.info.ncu_version})", flush=True)
    return outcome


def run(
    root: Path,
    node_name: str,
    node: Node,
    declared: dict[str, Declared],
    ids: Sequence[str],
    options: Options,
    prov0: Provenance0,
    out_dir: Path,
    counter_settings: counterpass.Settings | None = None,
    device: Device | None = None,
) -> int:
    """Run the ceilings and then ``ids`` (all declared experiments when empty); 0 when every check passed.
    The counter pass (one ncu process over every kernel row) runs first, so each result file is written
    once, complete, when its experiment's timing ends. ``device`` defaults to the node's GPU (tests pass
    :class:`measure.testing.fakedevice.FakeDevice`)."""
    if device is None:
        from measure.gpu.device import Device  # PyCUDA: only on a verification node

        device = Device()
    try:
        info = device.info
        if info.name != node.gpu:
            print(
                f"gloss measure run: the device is '{info.name}', but node '{node_name}' must be '{node.gpu}'; "
                "run on that node, or name the node this device belongs to"
            )
            return 2
        want_cc = node.arch.removeprefix("sm_").rstrip("a")
        have_cc = info.compute_capability.replace(".", "")
        if want_cc != have_cc:
            print(
                f"gloss measure run: node '{node_name}' builds for {node.arch}, but the device has compute "
                f"capability {info.compute_capability}; fix 'arch' in measure/nodes.yaml"
            )
            return 2
        runner = Runner(root, node_name, node, device, options, prov0, out_dir)
        ceiling = sorted((d for d in declared.values() if d.experiment.ceilings), key=lambda d: d.id)
        chosen = [declared[i] for i in ids] if ids else sorted(declared.values(), key=lambda d: d.id)
        chosen = ceiling + [d for d in chosen if not d.experiment.ceilings]
        total = sum(len(d.experiment.sizes) * len(d.experiment.kernels) for d in chosen)
        print(
            f"run {runner.run_id} on {node_name}: {info.name} ({info.pci_bus_id}, cc {info.compute_capability}, "
            f"{info.sm_count} SMs, L2 {info.l2_bytes >> 20} MiB, driver {info.driver_release}, "
            f"CUDA {info.cuda_driver_version}, NVML {info.nvml}); L2 flush {runner.settings.l2_flush_bytes >> 20} MiB, "
            f"throttle below {runner.settings.min_sm_clock_mhz} MHz",
            flush=True,
        )
        outcome = counter_pass(root, node_name, chosen, info.compute_capability, counter_settings)
        ok = True
        t0 = time.monotonic()
        with Reporter(total) as report:

            def write(result: R.Result) -> None:
                nonlocal ok
                path = out_dir / node_name / f"{result.experiment}.json"
                R.write_result(path, result)
                ok = ok and result.status == "ok"
                report.note(f"wrote {path} ({result.status})")

            # Every ceilings experiment first; their results are written once all of them are measured,
            # so each carries every ceiling of the run.
            measured = [runner.measure(d, report) for d in ceiling]
            ceiling_results = [counterpass.attach(r, outcome, True) for r in runner.finish_ceilings(measured)]
            ceiling_rows = [r for res in ceiling_results for r in res.rows]
            for result in ceiling_results:
                write(replace(result, ceilings=ceiling_rows))
            for d in chosen[len(ceiling) :]:
                result = runner.finish(runner.measure(d, report), ceiling_rows)
                write(counterpass.attach(result, outcome, False))
        print(f"suite wall time {time.monotonic() - t0:.1f} s (after setup)", flush=True)
        return 0 if ok else 1
    finally:
        device.close()
