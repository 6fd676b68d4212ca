"""Running one row: the correctness check, cold timing, an observed launch and occupancy.

The runner (:mod:`measure.run.runner`) walks experiments and sizes; :class:`Rows` does what one row needs:
fill inputs with fresh random numbers (then the row's ``__constant__`` data), poison the outputs,
launch once and compare with the numpy reference; then either time it (kind ``kernel`` and ``memcpy``)
or, for kind ``observe``, keep what the driver returned for that one launch. Every kernel row records
its occupancy for its block size and dynamic shared memory, after the row's opt-in is applied.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from measure.experiment import references
from measure.experiment.spec import DEVICE_SM_COUNT, Experiment, evaluate
from measure.experiment.spec import Kernel as KernelSpec
from measure.gpu import check as checks
from measure.gpu.cudadrv import DeviceError, Observation
from measure.run import rowkinds
from measure.store import observed, stats
from measure.store import results as R

if TYPE_CHECKING:  # the device module needs PyCUDA; tests drive this with a fake device
    from measure.gpu.device import Device, Kernel


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


class Rows:
    """One row at a time on one device, with the run's settings and the device's limits."""

    def __init__(
        self, device: Device, options: Options, settings: R.Settings, limits: observed.Limits, pairs: list[Any]
    ) -> None:
        self.dev = device
        self.opt = options
        self.settings = settings
        self.limits = limits
        self.pairs = pairs
        self.rng_counter = 0

    def declared_row(
        self, k: KernelSpec, label: str, env: dict[str, int], dims: dict[str, int], working_set: int
    ) -> R.Row:
        """The row as the spec declares it at this size, not yet checked."""
        grid_env = {**env, DEVICE_SM_COUNT: self.dev.info.sm_count}
        # A pipeline's grid is per chunk: the runner records the first chunk's once it has cut them.
        timed_launch = k.function is not None and k.kind != "pipeline"
        launch = R.Launch([evaluate(g, grid_env) for g in k.grid], list(k.block)) if timed_launch else None
        return R.Row(
            kernel=k.id,
            label=k.label,
            kind=k.kind,
            function=k.function or "",
            size=label,
            dims=dims,
            launch=launch,
            bytes_read=evaluate(k.bytes_read, env),
            bytes_written=evaluate(k.bytes_written, env),
            flops=evaluate(k.flops, env) if k.flops else None,
            shared_bytes=evaluate(k.shared_bytes, env) if k.shared_bytes else None,
            working_set_bytes=working_set,
            check=R.Check(False, k.tolerance, None, None, 0, "not run"),
            launches=k.launch.count if k.launch is not None else None,
            setup=rowkinds.setup_of(k),
        )

    def run_row(
        self,
        exp: Experiment,
        k: KernelSpec,
        row: R.Row,
        env: dict[str, int],
        shapes: dict[str, tuple[int, ...]],
        bufs: dict[str, Any],
        kernel: Kernel | str | None,
    ) -> R.Row:
        if k.kind == "memcpy":
            dst, src = k.args
            launch = self.dev.memcpy_launcher(bufs[dst], bufs[src], int(np.prod(shapes[dst])) * 4)
            return self.check_and_time(exp, k, row, env, shapes, bufs, rowkinds.Plan(launch), None)
        if k.kind == "cublas":
            return self.check_and_time(exp, k, row, env, shapes, bufs, rowkinds.cublas(self.dev, k, env, bufs), None)
        if k.kind == "transfer":
            plan = rowkinds.transfer(self.dev, k, shapes, bufs)
            return self.check_and_time(exp, k, row, env, shapes, bufs, plan, None)
        if kernel is None or isinstance(kernel, str):
            raise DeviceError(f"function '{k.function}' did not load: {kernel or 'not compiled'}")
        launch_cfg = row.launch or R.Launch([], list(k.block))  # a pipeline's grid comes per chunk
        dynamic = evaluate(k.dynamic_shared, env) if k.dynamic_shared else 0
        opt_in = evaluate(k.max_dynamic_shared, env) if k.max_dynamic_shared is not None else None
        # The row's own opt-in, or the function's own limit back (rows do not depend on their order).
        opt_in_error = self.dev.set_max_dynamic_shared(kernel, opt_in, k.kind == "observe")
        row = replace(row, occupancy=self.occupancy(kernel, launch_cfg.block, dynamic))
        args: list[tuple[str, int]] = []  # a pipeline's args are per chunk (measure.run.rowkinds)
        if k.kind != "pipeline":
            args = [("P", int(bufs[a])) if a in bufs else ("i", evaluate(a, env)) for a in k.args]
        grid, block = launch_cfg.grid, launch_cfg.block
        if k.kind == "observe":
            launch_args = (grid, block, args, dynamic)
            return self.observe_row(exp, k, row, env, shapes, bufs, kernel, launch_args, opt_in, opt_in_error)
        if opt_in_error:
            what = f"the opt-in to {opt_in} bytes" if opt_in is not None else "restoring the function's own limit"
            raise DeviceError(f"{what} of dynamic shared memory was refused: {opt_in_error}")
        if k.kind == "pipeline":
            plan = rowkinds.pipeline(self.dev, exp, k, kernel, env, shapes, bufs, block, dynamic)
            row = replace(row, launch=R.Launch(plan.grid, list(block)))
        elif k.kind == "launch":
            plan = rowkinds.launches(self.dev, k, kernel, grid, block, args, dynamic)
        else:
            plan = rowkinds.Plan(self.dev.launcher(kernel, grid, block, args, dynamic))
        return self.check_and_time(exp, k, row, env, shapes, bufs, plan, kernel)

    def check_and_time(
        self,
        exp: Experiment,
        k: KernelSpec,
        row: R.Row,
        env: dict[str, int],
        shapes: dict[str, tuple[int, ...]],
        bufs: dict[str, Any],
        plan: rowkinds.Plan,
        kernel: Kernel | None,
    ) -> R.Row:
        check = self.check(exp, k, env, shapes, bufs, plan.launch, kernel, plan=plan)
        row = replace(row, check=check)
        if not check.passed:
            return row
        times, clocks = self.time(plan.launch, flush=k.l2 == "cold")
        return replace(row, samples=R.Samples(times_ms=times, sm_clock_mhz=clocks))

    def observe_row(
        self,
        exp: Experiment,
        k: KernelSpec,
        row: R.Row,
        env: dict[str, int],
        shapes: dict[str, tuple[int, ...]],
        bufs: dict[str, Any],
        kernel: Kernel,
        launch_args: tuple[list[int], list[int], list[tuple[str, int]], int],
        opt_in: int | None,
        opt_in_error: str,
    ) -> R.Row:
        """Launch once, keep what the driver returned; check the output only if the kernel ran."""
        seen: list[Observation] = []

        def launch() -> None:
            seen.append(self.dev.observe(kernel, *launch_args))

        def refused() -> bool:
            return bool(seen) and not seen[0].launch.ok

        try:
            check = self.check(exp, k, env, shapes, bufs, launch, kernel, refused)
        except Exception as exc:  # e.g. the kernel faulted: the outcome below still says what happened
            check = R.Check(False, k.tolerance, None, None, 0, error_text(exc))
        if not seen:
            return replace(row, check=check)
        first = seen[0]
        error = first.launch if not first.launch.ok else first.sync
        outcome = observed.Outcome(first.launch.ok, error.name, error.string, opt_in, opt_in_error)
        return replace(row, check=check, outcome=outcome)

    def occupancy(self, kernel: Kernel, block: Sequence[int], dynamic: int) -> observed.Occupancy:
        threads = math.prod(block)
        try:
            blocks, error = self.dev.occupancy(kernel, threads, dynamic)
        except Exception as exc:
            blocks, error = 0, error_text(exc)
        return observed.occupancy(threads, dynamic, blocks, self.limits, error)

    def check(
        self,
        exp: Experiment,
        k: KernelSpec,
        env: dict[str, int],
        shapes: dict[str, tuple[int, ...]],
        bufs: dict[str, Any],
        launch: Callable[[], None],
        kernel: Kernel | None,
        refused: Callable[[], bool] = lambda: False,
        plan: rowkinds.Plan | None = None,
    ) -> R.Check:
        """Fresh random inputs (never zeros), poisoned outputs, the row's ``__constant__`` data, one
        launch, compare every output. A launch the driver ``refused`` (observed rows) is not checked."""
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
        for symbol, buffer in k.constants.items():  # after the inputs, before any launch (check and timing)
            assert kernel is not None
            self.dev.upload_constant(kernel, symbol, inputs[buffer])
        if plan is not None:  # host copies of the inputs, poisoned host outputs (transfers, pipelines)
            plan.on_inputs(inputs)
        self.dev.synchronize()
        launch()
        if refused():
            return R.Check(False, k.tolerance, None, None, 0, "not run: the driver refused the launch")
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
            host = plan.outputs.get(name) if plan is not None else None
            got = host.reshape(shapes[name]).copy() if host is not None else self.dev.download(bufs[name], shapes[name])
            result = checks.compare(got, expected[name], k.tolerance)
            if not result.passed:
                return replace(result, message=f"{name}: {result.message}")
        # All outputs passed: report the worst of them.
        return result

    def time(self, launch: Callable[[], None], flush: bool = True) -> tuple[list[float], list[int]]:
        """Samples of one launch each; ``flush`` False (a row declared ``l2: warm``): no L2 flush
        before the warm-up launches nor before any sample, so each finds the previous launch's lines."""
        opt = self.opt
        for _ in range(opt.warmup_launches):
            if flush:
                self.dev.flush()
            launch()
        self.dev.synchronize()
        # Size batches from one timed warm sample, so a batch is about batch_target_s of GPU time.
        probe = self.dev.timed_batch(launch, self.pairs[:1], flush)[0]
        batch = int(min(opt.max_batch, max(1, opt.batch_target_s * 1000.0 / max(probe, 1e-3))))
        times: list[float] = []
        clocks: list[int] = []
        rule = self.settings.rule()
        deadline = time.monotonic() + opt.row_time_limit_s
        while True:
            before = self.dev.clock.read()
            # Events measure in float32 milliseconds; keep each as its shortest decimal (half the
            # bytes of a double's repr in the JSON, and the same float32 when read back).
            batch_times = [float(str(np.float32(t))) for t in self.dev.timed_batch(launch, self.pairs[:batch], flush)]
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


def error_text(exc: BaseException) -> str:
    lines = f"{type(exc).__name__}: {exc}".splitlines()
    return (lines[0] if lines else type(exc).__name__)[:500]

