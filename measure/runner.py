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
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from measure import check as checks
from measure import counterpass, references, stats
from measure import counters as C
from measure import results as R
from measure.device import Device, DeviceError, Kernel, nvcc_version, versions
from measure.nodes import Node
from measure.progress import Reporter
from measure.spec import DEVICE_SM_COUNT, Declared, Experiment, evaluate, sha256_file
from measure.spec import Kernel as KernelSpec


@dataclass(frozen=True)
class Options:
    min_samples: int = 10
    min_gpu_time_s: float = 0.5
    max_rel_stdev: float = 0.005
    row_time_limit_s: float = 3.0
    warmup_launches: int = 5
    batch_target_s: float = 0.025
    max_batch: int = 512
    throttle_fraction: float = 0.75
    seed: int = 20261202


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
        self.nvcc = nvcc_version()
        self.versions = versions()
        self.rng_counter = 0
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
        self.pairs = device.events(options.max_batch)

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
            nvcc_flags=Device.nvcc_flags(self.node.arch),
            pycuda_version=self.versions["pycuda"],
            numpy_version=self.versions["numpy"],
            python_version=self.versions["python"],
            hostname=socket.gethostname(),
            git_commit=self.prov0.git_commit,
            git_dirty=self.prov0.git_dirty,
            source_path=d.source_path,
            source_sha256=sha256_file(self.root / d.source_path),
            spec_path=d.spec_path,
            spec_sha256=sha256_file(self.root / d.spec_path),
            run_id=self.run_id,
            run_started_utc=self.run_started,
            started_utc=started,
            finished_utc=utc_now(),
        )

    # --- one experiment ---------------------------------------------------------------------------

    def run_experiment(self, d: Declared, ceilings: list[R.Row] | None, report: Reporter) -> R.Result:
        started = utc_now()
        exp = d.experiment
        source = (self.root / d.source_path).read_text(encoding="utf-8")
        prov = self.provenance(d, started)  # hashes taken before compiling: what was compiled
        error = ""
        builds: list[R.KernelBuild] = []
        rows: list[R.Row] = []
        try:
            module = self.dev.compile(source, self.node.arch)
            kernels: dict[str, Kernel] = {}
            for k in exp.kernels:
                if k.kind == "kernel" and k.function is not None:
                    kernels[k.id] = self.dev.kernel(module, k.function, _arg_types(exp, k))
                    if all(b.function != k.function for b in builds):
                        builds.append(Device.build_info(kernels[k.id]))
            for size in exp.sizes:
                rows += self.run_size(exp, size.label, dict(size.dims), kernels, report)
        except (DeviceError, Exception) as exc:  # record the failure: a result that says why it broke
            error = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
            report.note(f"  ! {exp.id}: {error}")
        prov = replace(prov, finished_utc=utc_now())
        if ceilings is None:  # this IS the ceilings experiment: its rows are the ceilings
            rows = R.recompute_ceilings(rows, prov, self.settings)
            ceiling_rows = rows
        else:
            ceiling_rows = ceilings
            best = R.copy_ceiling_gbps(ceiling_rows)
            rows = [R.recompute_row(r, prov, self.settings, best) for r in rows]
        failed = bool(error) or any(not r.check.passed for r in rows)
        return R.Result(
            schema_version=R.SCHEMA_VERSION,
            experiment=exp.id,
            title=exp.title,
            node=self.node_name,
            status="failed" if failed else "ok",
            error=error,
            provenance=prov,
            settings=self.settings,
            builds=builds,
            ceilings=ceiling_rows,
            rows=rows,
        )

    def run_size(
        self, exp: Experiment, label: str, dims: dict[str, int], kernels: dict[str, Kernel], report: Reporter
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
                row = self.run_row(exp, k, label, env, dims, shapes, bufs, kernels.get(k.id), working_set)
                rows.append(row)
                report.done(_row_line(exp.id, row))
        finally:
            for b in bufs.values():
                b.free()
        return rows

    def run_row(
        self,
        exp: Experiment,
        k: KernelSpec,
        label: str,
        env: dict[str, int],
        dims: dict[str, int],
        shapes: dict[str, tuple[int, ...]],
        bufs: dict[str, Any],
        kernel: Kernel | None,
        working_set: int,
    ) -> R.Row:
        grid_env = {**env, DEVICE_SM_COUNT: self.dev.info.sm_count}
        launch_cfg = R.Launch([evaluate(g, grid_env) for g in k.grid], list(k.block)) if k.kind == "kernel" else None
        if k.kind == "memcpy":
            dst, src = k.args
            nbytes = int(np.prod(shapes[dst])) * 4
            launch = self.dev.memcpy_launcher(bufs[dst], bufs[src], nbytes)
        else:
            assert kernel is not None and launch_cfg is not None
            args = [int(bufs[a]) if a in bufs else np.int32(evaluate(a, env)) for a in k.args]
            launch = self.dev.launcher(kernel, launch_cfg.grid, launch_cfg.block, args)
        row = R.Row(
            kernel=k.id,
            label=k.label,
            kind=k.kind,
            function=k.function or "",
            size=label,
            dims=dims,
            launch=launch_cfg,
            bytes_read=evaluate(k.bytes_read, env),
            bytes_written=evaluate(k.bytes_written, env),
            flops=evaluate(k.flops, env) if k.flops else None,
            shared_bytes=evaluate(k.shared_bytes, env) if k.shared_bytes else None,
            working_set_bytes=working_set,
            check=R.Check(False, k.tolerance, None, None, 0, "not run"),
        )
        check = self.check(exp, k, env, shapes, bufs, launch)
        row = replace(row, check=check)
        if not check.passed:
            return row
        times, clocks = self.time(launch)
        return replace(row, samples=R.Samples(times_ms=times, sm_clock_mhz=clocks))

    def check(
        self,
        exp: Experiment,
        k: KernelSpec,
        env: dict[str, int],
        shapes: dict[str, tuple[int, ...]],
        bufs: dict[str, Any],
        launch: Callable[[], None],
    ) -> R.Check:
        """Fresh random inputs (never zeros), poisoned outputs, one launch, compare every output."""
        self.rng_counter += 1
        rng = np.random.default_rng([self.opt.seed, self.rng_counter])
        inputs: dict[str, Any] = {}
        for b in exp.buffers:
            if b.role == "input":
                data = rng.random(shapes[b.name], dtype=np.float32) * 2.0 - 1.0
                inputs[b.name] = data.astype(np.float32, copy=False)
                self.dev.upload(bufs[b.name], inputs[b.name])
            else:
                self.dev.poison(bufs[b.name], int(np.prod(shapes[b.name])))
        self.dev.synchronize()
        launch()
        self.dev.synchronize()
        expected = references.REFERENCES[k.reference](inputs, env)
        outputs = [b.name for b in exp.buffers if b.role == "output"]
        if set(expected) != set(outputs):
            return R.Check(
                False,
                k.tolerance,
                None,
                None,
                0,
                f"reference '{k.reference}' returned {sorted(expected)}, the outputs are {sorted(outputs)}",
            )
        for name in outputs:
            got = self.dev.download(bufs[name], shapes[name])
            result = checks.compare(got, expected[name], k.tolerance)
            if not result.passed:
                return replace(result, message=f"{name}: {result.message}")
        # All outputs passed: report the worst of them.
        return result

    def time(self, launch: Callable[[], None]) -> tuple[list[float], list[int]]:
        opt = self.opt
        for _ in range(opt.warmup_launches):
            self.dev.flush()
            launch()
        self.dev.synchronize()
        # Size batches from one timed warm sample, so a batch is about batch_target_s of GPU time.
        probe = self.dev.timed_batch(launch, self.pairs[:1])[0]
        batch = int(min(opt.max_batch, max(1, opt.batch_target_s * 1000.0 / max(probe, 1e-3))))
        times: list[float] = []
        clocks: list[int] = []
        rule = self.settings.rule()
        deadline = time.monotonic() + opt.row_time_limit_s
        while True:
            before = self.dev.clock.read()
            # Events measure in float32 milliseconds; keep each as its shortest decimal (half the
            # bytes of a double's repr in the JSON, and the same float32 when read back).
            batch_times = [float(str(np.float32(t))) for t in self.dev.timed_batch(launch, self.pairs[:batch])]
            after = self.dev.clock.read()
            clock = min(before, after)
            times += batch_times
            clocks += [clock] * len(batch_times)
            kept = [
                t
                for t, keep in zip(times, stats.kept_mask(clocks, self.settings.min_sm_clock_mhz), strict=True)
                if keep
            ]
            if stats.converged(kept, rule) or time.monotonic() > deadline:
                break
        if not kept:
            raise DeviceError(
                f"every one of {len(times)} samples ran below {self.settings.min_sm_clock_mhz} MHz (throttled)"
            )
        return times, clocks


def _arg_types(exp: Experiment, k: KernelSpec) -> str:
    buffers = {b.name for b in exp.buffers}
    return "".join("P" if a in buffers else "i" for a in k.args)


def _row_line(exp_id: str, row: R.Row) -> str:
    if not row.check.passed:
        return f"  {exp_id:22} {row.label:38} {row.size:24} CHECK FAILED: {row.check.message}"
    s = row.samples
    assert s is not None
    med = stats.median(s.times_ms)
    bw = stats.gbps(row.bytes_read + row.bytes_written, med)
    extra = f" {stats.gflops(row.flops, med):9.1f} GFLOP/s" if row.flops else ""
    return (
        f"  {exp_id:22} {row.label:38} {row.size:24} {med * 1000:10.2f} us {bw:8.1f} GB/s{extra}"
        f"  n={len(s.times_ms)} rsd={stats.rel_stdev(s.times_ms) * 100:.2f}%"
    )


def counter_pass(
    root: Path, node_name: str, chosen: list[Declared], cc: str, settings: counterpass.Settings | None
) -> counterpass.Outcome | None:
    """The counter pass before any timing; None when counters were not asked for (``--no-counters``)."""
    if settings is None or not settings.enabled:
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
) -> int:
    """Run the ceilings and then ``ids`` (all declared experiments when empty); 0 when every check passed.
    The counter pass (one ncu process over every kernel row) runs first, so each result file is written
    once, complete, when its experiment's timing ends."""
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
        ceiling = [d for d in declared.values() if d.experiment.ceilings]
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
        ceiling_rows: list[R.Row] | None = None
        t0 = time.monotonic()
        with Reporter(total) as report:
            for d in chosen:
                result = runner.run_experiment(d, None if d.experiment.ceilings else (ceiling_rows or []), report)
                result = counterpass.attach(result, outcome, d.experiment.ceilings)
                if d.experiment.ceilings:
                    ceiling_rows = list(result.ceilings)
                path = out_dir / node_name / f"{d.id}.json"
                R.write_result(path, result)
                ok = ok and result.status == "ok"
                report.note(f"wrote {path} ({result.status})")
        print(f"suite wall time {time.monotonic() - t0:.1f} s (after setup)", flush=True)
        return 0 if ok else 1
    finally:
        device.close()
