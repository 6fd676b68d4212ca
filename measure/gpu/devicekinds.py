"""The PyCUDA side of the row kinds beyond one kernel launch: host memory and host<->device copies,
copy-kernel-copy pipelines over several streams, repeated launches (back to back, as one CUDA graph,
or synchronized each time) and cuBLAS GEMMs. A mixin of :class:`measure.gpu.device.Device` (which holds the
context, the runner's stream and the driver), kept apart so each module stays one concern.

Every callable returned here queues its work so that the runner's events on ``self.stream`` bracket all
of it: pageable copies (``cuMemcpyHtoD``/``DtoH``) go to the legacy default stream, which waits for the
runner's (blocking) stream and is waited for by it; a pipeline forks its streams from an event on
``self.stream`` and joins them back before returning.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pycuda.driver as cuda

from measure.gpu import cublas
from measure.gpu.cudadrv import DeviceError


class DeviceKinds:
    stream: Any
    driver: Any
    ctx: Any
    _cublas: cublas.Cublas | None = None
    _cublas_workspace: Any = None
    _graphs: list[tuple[int, int]]
    _streams: list[Any]

    def _kinds_init(self) -> None:
        self._graphs = []
        self._streams = []

    def _kinds_close(self) -> None:
        for graph, exec_ in self._graphs:
            with contextlib.suppress(Exception):  # closing must not hide the results already written
                self.driver.graph_destroy(graph, exec_)
        if self._cublas is not None:
            with contextlib.suppress(Exception):
                self._cublas.destroy()
        self._cublas = None
        self._cublas_workspace = None
        self._streams = []

    # --- host memory and copies --------------------------------------------------------------------

    @staticmethod
    def host_array(shape: Sequence[int], pinned: bool) -> Any:
        """float32 host memory: page-locked (cuMemHostAlloc, through PyCUDA) or an ordinary numpy array."""
        return cuda.pagelocked_empty(tuple(shape), np.float32) if pinned else np.empty(tuple(shape), np.float32)

    def copy_launcher(self, direction: str, device: Any, host: Any, pinned: bool) -> Callable[[], None]:
        """One copy of ``host.nbytes``: pinned ones async on the runner's stream, pageable ones with the
        synchronous call (legacy default stream; the host waits for it)."""
        stream, dptr = self.stream, int(device)
        if direction == "h2d":
            if pinned:
                return lambda: cuda.memcpy_htod_async(dptr, host, stream)
            return lambda: cuda.memcpy_htod(dptr, host)
        if pinned:
            return lambda: cuda.memcpy_dtoh_async(host, dptr, stream)
        return lambda: cuda.memcpy_dtoh(host, dptr)

    # --- pipelines ---------------------------------------------------------------------------------

    def pipeline_launcher(
        self, k: Any, block: Sequence[int], dynamic: int, n_streams: int, chunks: Sequence[Any]
    ) -> Callable[[], None]:
        """Each chunk's copies in, launch and copies out on stream ``chunk.stream``; the streams start
        after everything queued on the runner's stream and it waits for all of them."""
        streams = [cuda.Stream() for _ in range(n_streams)]
        self._streams += streams  # kept alive for the run
        no_timing = cuda.event_flags.DISABLE_TIMING
        fork = cuda.Event(no_timing)
        joins = [cuda.Event(no_timing) for _ in streams]
        b = (*block, *([1] * (3 - len(block))))
        plans = []
        for ch in chunks:
            g = (*ch.grid, *([1] * (3 - len(ch.grid))))
            values = [int(v) if kind == "P" else np.int32(v) for kind, v in ch.args]
            plans.append((streams[ch.stream], ch.h2d, g, values, ch.d2h))
        fn, main, shared = k.function, self.stream, int(dynamic)

        def launch() -> None:
            fork.record(main)
            for s in streams:
                s.wait_for_event(fork)
            for s, h2d, g, values, d2h in plans:
                for dptr, host in h2d:
                    cuda.memcpy_htod_async(dptr, host, s)
                fn.prepared_async_call(g, b, s, *values, shared_size=shared)
                for host, dptr in d2h:
                    cuda.memcpy_dtoh_async(host, dptr, s)
            for s, join in zip(streams, joins, strict=True):
                join.record(s)
                main.wait_for_event(join)

        return launch

    # --- repeated launches -------------------------------------------------------------------------

    def repeat_launcher(
        self,
        k: Any,
        grid: Sequence[int],
        block: Sequence[int],
        args: Sequence[tuple[str, int]],
        dynamic: int,
        mode: str,
        count: int,
        streams: int = 1,
    ) -> Callable[[], None]:
        """``count`` launches per call: 'stream' back to back from Python (PyCUDA's prepared call, so the
        host's issue rate is part of what is measured), 'graph' one cuGraphLaunch of a graph captured
        once with all ``count`` launches, 'sync' each launch followed by a context synchronize. With
        ``streams`` > 1 (mode 'stream'), launch i goes on stream i % streams, forked from an event on the
        runner's stream and joined back to it, so the kernels may run at the same time."""
        if streams > 1:
            return self._spread_launcher(k, grid, block, args, dynamic, count, streams)
        one = self.launcher(k, grid, block, args, dynamic)  # type: ignore[attr-defined]
        if mode == "graph":

            def body() -> None:
                for _ in range(count):
                    one()

            graph, exec_ = self.driver.capture(int(self.stream.handle), body)
            self._graphs.append((graph, exec_))
            handle = int(self.stream.handle)
            return lambda: self.driver.graph_launch(exec_, handle)
        if mode == "sync":
            ctx = self.ctx

            def synced() -> None:
                for _ in range(count):
                    one()
                    ctx.synchronize()

            return synced

        def back_to_back() -> None:
            for _ in range(count):
                one()

        return back_to_back

    def _spread_launcher(
        self,
        k: Any,
        grid: Sequence[int],
        block: Sequence[int],
        args: Sequence[tuple[str, int]],
        dynamic: int,
        count: int,
        n_streams: int,
    ) -> Callable[[], None]:
        streams = [cuda.Stream() for _ in range(n_streams)]
        self._streams += streams  # kept alive for the run
        no_timing = cuda.event_flags.DISABLE_TIMING
        fork = cuda.Event(no_timing)
        joins = [cuda.Event(no_timing) for _ in streams]
        g = (*grid, *([1] * (3 - len(grid))))
        b = (*block, *([1] * (3 - len(block))))
        values = [int(v) if kind == "P" else np.int32(v) for kind, v in args]
        order = [streams[i % n_streams] for i in range(count)]
        fn, main, shared = k.function, self.stream, int(dynamic)

        def launch() -> None:
            fork.record(main)
            for s in streams:
                s.wait_for_event(fork)
            for s in order:
                fn.prepared_async_call(g, b, s, *values, shared_size=shared)
            for s, join in zip(streams, joins, strict=True):
                join.record(s)
                main.wait_for_event(join)

        return launch

    # --- cuBLAS ------------------------------------------------------------------------------------

    def gemm_launcher(self, math: str, m: int, n: int, k: int, c: Any, a: Any, b: Any) -> Callable[[], None]:
        if self._cublas is None:  # one handle per run, on the runner's stream, with its own workspace
            self._cublas_workspace = cuda.mem_alloc(cublas.WORKSPACE_BYTES)
            self._cublas = cublas.create(int(self.stream.handle), int(self._cublas_workspace))
        run: Callable[[], None] = self._cublas.gemm(math, m, n, k, int(c), int(a), int(b))
        return run

    def libraries(self) -> dict[str, str]:
        """What the run's cuBLAS is: the file loaded and cublasGetVersion (empty before any GEMM)."""
        if self._cublas is None:
            return {}
        return {"cublas": self._cublas.path, "cublas_version": str(self._cublas.version)}


__all__ = ["DeviceError", "DeviceKinds"]
