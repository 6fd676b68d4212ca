"""A fake device for TESTS ONLY: the runner's whole path (check, timing, observed launches, occupancy,
``__constant__`` uploads, the dynamic-shared opt-in, host transfers, pipelines, repeated launches and
cuBLAS GEMMs) on the CPU, with no PyCUDA and no GPU.

Kernels are Python functions over numpy buffers, registered by name. The fake follows the driver's
rules the runner depends on: a launch asking for more dynamic shared memory than the function's limit
(48 KiB by default, raised by the opt-in up to the device's opt-in maximum) or more than 1024 threads
per block is refused with ``CUDA_ERROR_INVALID_VALUE`` / ``invalid argument``, which a timed launch
raises and an observed launch returns; a ``__constant__`` upload larger than its symbol is refused.
Times are made up (``time_ms`` per launch). Never use it to produce a result that is committed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from measure.gpu.check import POISON_BITS
from measure.gpu.cudadrv import DeviceError, Observation, Status
from measure.store.observed import Limits
from measure.store.results import KernelBuild

#: The H200's limits (sm_90), as its driver reports them.
H200_LIMITS = Limits(
    shared_per_block_default=49152,
    shared_per_block_optin=232448,
    shared_per_sm=233472,
    registers_per_sm=65536,
    registers_per_block=65536,
    max_threads_per_sm=2048,
    max_blocks_per_sm=32,
    warp_size=32,
    reserved_shared_per_block=1024,
)
INVALID_VALUE = Status(1, "CUDA_ERROR_INVALID_VALUE", "invalid argument")
OK = Status(0, "", "")

#: A fake kernel: (device, grid, block, integer arguments) -> None, writing through ``device.array``.
Body = Callable[["FakeDevice", Sequence[int], Sequence[int], Sequence[int]], None]


@dataclass(frozen=True)
class FakeInfo:
    name: str = "NVIDIA H200"
    pci_bus_id: str = "00000000:00:00.0"
    compute_capability: str = "9.0"
    sm_count: int = 132
    l2_bytes: int = 62914560
    memory_clock_mhz: int = 3201
    bus_width_bits: int = 6016
    cuda_driver_version: str = "13.0"
    uuid: str = "GPU-fake"
    driver_release: str = "fake"
    max_sm_clock_mhz: int = 1980
    nvml: str = "available"


class FakeClock:
    def read(self) -> int:
        return 1980


class FakeBuffer:
    def __init__(self, device: FakeDevice, address: int, nbytes: int) -> None:
        self.device, self.address = device, address
        self.data = np.zeros(max(nbytes, 4) // 4, dtype=np.uint32)

    def __int__(self) -> int:
        return self.address

    def free(self) -> None:
        self.device.buffers.pop(self.address, None)


@dataclass
class FakeModule:
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    # function name -> its dynamic shared memory limit now (absent: the default). Per function, as on
    # the device: two rows of one function share it.
    max_dynamic: dict[str, int] = field(default_factory=dict)


@dataclass
class FakeKernel:
    name: str
    body: Body
    module: FakeModule
    default_max_dynamic_shared: int
    registers: int = 32

    @property
    def max_dynamic_shared(self) -> int:
        return self.module.max_dynamic.get(self.name, self.default_max_dynamic_shared)


class FakeDevice:
    """Implements what :mod:`measure.run.runner` asks of :class:`measure.gpu.device.Device`."""

    def __init__(
        self,
        kernels: dict[str, Body],
        constant_sizes: dict[str, int] | None = None,
        limits: Limits = H200_LIMITS,
        time_ms: float = 0.05,
        fallback: Body | None = None,
    ) -> None:
        self.info = FakeInfo()
        self.fallback = fallback  # the body of every function not in ``kernels`` (None: it does not load)
        self.clock = FakeClock()
        self.bodies = kernels
        self.constant_sizes = constant_sizes or {}
        self._limits = limits
        self.time_ms = time_ms
        self.buffers: dict[int, FakeBuffer] = {}
        self._next = 0x10000
        self.launches: list[tuple[str, int]] = []  # (function, dynamic shared bytes) of every launch that ran
        self.closed = False
        self.running: FakeKernel | None = None
        self.copies: list[tuple[str, bool]] = []  # (direction, pinned) of every host copy
        self.pipeline_streams: list[int] = []  # the stream of every pipeline chunk run
        self.repeat_modes: list[str] = []  # the mode of every repeated-launch sample
        self.repeat_streams: list[int] = []  # and the streams it was spread over
        self.gemms: list[str] = []  # the math of every GEMM
        self.flushed: list[bool] = []  # per timed sample: whether the L2 was flushed since the last timed one
        self.include_dirs: list[Path | None] = []  # the include folder of every compile
        # What the fake gets wrong, for tests of the check: any of "h2d", "d2h", "gemm" (one element off).
        self.wrong: set[str] = set()
        self._flush_pending = False

    # --- what the runner reads ---------------------------------------------------------------------

    @staticmethod
    def nvcc_version() -> str:
        return "fake"

    @staticmethod
    def versions() -> dict[str, str]:
        return {"pycuda": "fake", "numpy": np.__version__, "python": "fake"}

    @staticmethod
    def nvcc_flags(arch: str, include_dir: str | None = None) -> list[str]:
        return ["-O3", "-arch", arch, *([f"-I{include_dir}"] if include_dir else [])]

    def limits(self) -> Limits:
        return self._limits

    def close(self) -> None:
        self.closed = True

    # --- modules and kernels -----------------------------------------------------------------------

    def compile(self, source: str, arch: str, include_dir: Path | None = None) -> FakeModule:
        self.include_dirs.append(include_dir)
        return FakeModule()

    def kernel(self, module: FakeModule, name: str, arg_types: str) -> FakeKernel:
        body = self.bodies.get(name, self.fallback)
        if body is None:
            raise DeviceError(f"cuModuleGetFunction failed: named symbol not found ({name})")
        return FakeKernel(name, body, module, self._limits.shared_per_block_default)

    @staticmethod
    def build_info(k: FakeKernel) -> KernelBuild:
        return KernelBuild(k.name, k.registers, 0, 0, 1024)

    def set_max_dynamic_shared(self, k: FakeKernel, nbytes: int | None, observed: bool = False) -> str:
        if nbytes is None:
            k.module.max_dynamic.pop(k.name, None)
            return ""
        if nbytes > self._limits.shared_per_block_optin:
            return f"cuFuncSetAttribute failed: {INVALID_VALUE}"
        k.module.max_dynamic[k.name] = nbytes
        return ""

    def upload_constant(self, k: FakeKernel, symbol: str, array: Any) -> None:
        data = np.ascontiguousarray(array)
        capacity = self.constant_sizes.get(symbol)
        if capacity is None:
            raise DeviceError(f"cuModuleGetGlobal failed: named symbol not found ({symbol})")
        if data.nbytes > capacity:
            raise DeviceError(
                f"__constant__ '{symbol}' holds {capacity} bytes, the buffer copied into it has {data.nbytes}"
            )
        k.module.constants[symbol] = data.copy()

    def occupancy(self, k: FakeKernel, block_threads: int, dynamic_shared: int) -> tuple[int, str]:
        lim = self._limits
        if block_threads > 1024 or dynamic_shared > k.max_dynamic_shared:
            return 0, ""
        by_threads = lim.max_threads_per_sm // block_threads
        by_regs = lim.registers_per_sm // (k.registers * block_threads)
        per_block = dynamic_shared + lim.reserved_shared_per_block
        by_shared = lim.shared_per_sm // per_block
        return min(lim.max_blocks_per_sm, by_threads, by_regs, by_shared), ""

    # --- memory ------------------------------------------------------------------------------------

    def alloc(self, nbytes: int) -> FakeBuffer:
        buf = FakeBuffer(self, self._next, nbytes)
        self.buffers[buf.address] = buf
        self._next += (nbytes + 0xFFFF) // 0x10000 * 0x10000 + 0x10000
        return buf

    def array(self, address: int) -> np.ndarray:
        """The float32 view of memory from ``address`` to the end of its buffer (what a fake kernel reads
        and writes; an address inside a buffer, e.g. a pipeline's chunk, gives the rest of it)."""
        for base, buf in self.buffers.items():
            if base <= address < base + buf.data.nbytes:
                return buf.data[(address - base) // 4 :].view(np.float32)
        raise DeviceError(f"fake device: no buffer holds address {address:#x}")

    def constant(self, symbol: str) -> np.ndarray:
        """What the running kernel's module holds in ``__constant__`` ``symbol`` (KeyError: never uploaded)."""
        assert self.running is not None, "only a running fake kernel reads constants"
        return self.running.module.constants[symbol]

    def upload(self, dst: FakeBuffer, array: Any) -> None:
        flat = np.ascontiguousarray(array, dtype=np.float32).reshape(-1)
        dst.data[: flat.size] = flat.view(np.uint32)

    def download(self, src: FakeBuffer, shape: Sequence[int], dtype: Any = np.float32) -> Any:
        n = math.prod(shape)
        return src.data[:n].view(np.float32).reshape(tuple(shape)).copy()

    def poison(self, buf: FakeBuffer, n_elements: int) -> None:
        buf.data[:n_elements] = POISON_BITS

    # --- launches ----------------------------------------------------------------------------------

    def _refusal(self, k: FakeKernel, block: Sequence[int], dynamic_shared: int) -> Status:
        if math.prod(block) > 1024 or dynamic_shared > k.max_dynamic_shared:
            return INVALID_VALUE
        return OK

    def _run(
        self, k: FakeKernel, grid: Sequence[int], block: Sequence[int], args: Sequence[tuple[str, int]], dyn: int
    ) -> None:
        self.launches.append((k.name, dyn))
        self.running = k
        k.body(self, grid, block, [v for _, v in args])

    def launcher(
        self,
        k: FakeKernel,
        grid: Sequence[int],
        block: Sequence[int],
        args: Sequence[tuple[str, int]],
        dynamic_shared: int = 0,
    ) -> Callable[[], None]:
        def launch() -> None:
            status = self._refusal(k, block, dynamic_shared)
            if not status.ok:
                raise DeviceError(f"cuLaunchKernel failed: {status.string}")
            self._run(k, grid, block, args, dynamic_shared)

        return launch

    def observe(
        self,
        k: FakeKernel,
        grid: Sequence[int],
        block: Sequence[int],
        args: Sequence[tuple[str, int]],
        dynamic_shared: int = 0,
    ) -> Observation:
        status = self._refusal(k, block, dynamic_shared)
        if status.ok:
            self._run(k, grid, block, args, dynamic_shared)
        return Observation(status, OK)

    def memcpy_launcher(self, dst: FakeBuffer, src: FakeBuffer, nbytes: int) -> Callable[[], None]:
        def launch() -> None:
            dst.data[: nbytes // 4] = src.data[: nbytes // 4]

        return launch

    def synchronize(self) -> None:
        pass

    # --- the other row kinds: host copies, pipelines, repeated launches, cuBLAS ----------------------

    @staticmethod
    def host_array(shape: Sequence[int], pinned: bool) -> np.ndarray:
        return np.empty(tuple(shape), np.float32)

    def copy_launcher(self, direction: str, device: FakeBuffer, host: np.ndarray, pinned: bool) -> Callable[[], None]:
        flat = host.reshape(-1)

        def launch() -> None:
            self.copies.append((direction, pinned))
            if direction == "h2d":
                self.array(int(device))[: flat.size] = flat
                if "h2d" in self.wrong:
                    self.array(int(device))[0] += 1.0
            else:
                flat[:] = self.array(int(device))[: flat.size]
                if "d2h" in self.wrong:
                    flat[-1] += 1.0

        return launch

    def pipeline_launcher(
        self, k: FakeKernel, block: Sequence[int], dynamic: int, n_streams: int, chunks: Sequence[Any]
    ) -> Callable[[], None]:
        def launch() -> None:
            for ch in chunks:
                self.pipeline_streams.append(ch.stream)
                for dptr, host in ch.h2d:
                    self.array(dptr)[: host.size] = host
                self.launcher(k, ch.grid, block, ch.args, dynamic)()
                for host, dptr in ch.d2h:
                    host[:] = self.array(dptr)[: host.size]

        return launch

    def repeat_launcher(
        self,
        k: FakeKernel,
        grid: Sequence[int],
        block: Sequence[int],
        args: Sequence[tuple[str, int]],
        dynamic: int,
        mode: str,
        count: int,
        streams: int = 1,
    ) -> Callable[[], None]:
        one = self.launcher(k, grid, block, args, dynamic)

        def launch() -> None:
            self.repeat_modes.append(mode)
            self.repeat_streams.append(streams)
            for _ in range(count):
                one()

        return launch

    def gemm_launcher(
        self, math: str, m: int, n: int, k: int, c: FakeBuffer, a: FakeBuffer, b: FakeBuffer
    ) -> Callable[[], None]:
        def launch() -> None:
            self.gemms.append(math)
            left = self.array(int(a))[: m * k].reshape(m, k)
            right = self.array(int(b))[: k * n].reshape(k, n)
            out = (left @ right).astype(np.float32).reshape(-1)
            if "gemm" in self.wrong:
                out[0] += 1.0
            self.array(int(c))[: m * n] = out

        return launch

    def libraries(self) -> dict[str, str]:
        return {"cublas": "fake/libcublas.so", "cublas_version": "0"} if self.gemms else {}

    # --- timing ------------------------------------------------------------------------------------

    def setup_flush(self, nbytes: int) -> None:
        self.flush_bytes = nbytes

    def flush(self) -> None:
        self._flush_pending = True

    def events(self, n: int) -> list[tuple[None, None]]:
        return [(None, None)] * n

    def timed_batch(self, launch: Callable[[], None], pairs: Sequence[Any], flush: bool = True) -> list[float]:
        for _ in pairs:
            if flush:
                self.flush()
            self._timed_launch(launch)
        return [self.time_ms] * len(pairs)

    def _timed_launch(self, launch: Callable[[], None]) -> None:
        self.flushed.append(self._flush_pending)
        self._flush_pending = False
        launch()


#: ``gloss measure mine`` opens this fake instead of the GPU when the variable is set: TESTS ONLY (the
#: command's whole path in CI, which has no GPU). Its value is the device to pretend to be,
#: ``NAME@COMPUTE_CAPABILITY`` (``NVIDIA GeForce RTX 4090@8.9``).
FAKE_DEVICE_ENV = "GLOSS_FAKE_DEVICE"


def copy_body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    """A kernel ``(dst, src, n)`` that copies ``n`` elements: every function of :func:`from_env`'s device."""
    dst, src, n = args[:3]
    dev.array(dst)[:n] = dev.array(src)[:n]


def from_env(value: str) -> FakeDevice:
    """The fake device :data:`FAKE_DEVICE_ENV` names; every function copies (:func:`copy_body`)."""
    name, _, cc = value.rpartition("@")
    if not name or not cc.replace(".", "").isdigit():
        example = "NVIDIA GeForce RTX 4090@8.9"
        raise DeviceError(f"{FAKE_DEVICE_ENV}='{value}' is not NAME@COMPUTE_CAPABILITY, e.g. '{example}'")
    dev = FakeDevice({}, fallback=copy_body)
    dev.info = FakeInfo(name=name, compute_capability=cc, uuid="GPU-fake-local")
    return dev
