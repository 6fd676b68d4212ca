"""The PyCUDA (and NVML) adapter: the only module that touches the GPU.

Kept thin on purpose: the runner decides what to run and when to stop; this module compiles, moves
memory, launches, flushes the L2, records CUDA events and reads clocks. Importing it needs PyCUDA and
numpy, so only ``gloss measure run`` (and GPU tests) import it, inside the command.

What PyCUDA does not expose (function handles, occupancy, a launch's ``CUresult``) goes through
:mod:`measure.gpu.cudadrv` (ctypes on ``libcuda.so.1``) on a second load of the same cubin: each compiled
module is loaded twice, once by PyCUDA (timed launches) and once by the driver directly (observed
launches and occupancy); the dynamic-shared opt-in and ``__constant__`` data are applied to both.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pycuda
import pycuda.driver as cuda
from pycuda.compiler import compile as nvcc_compile

from measure.gpu.check import POISON_BITS
from measure.gpu.cudadrv import FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, DeviceError, Driver, Observation
from measure.gpu.devicekinds import DeviceKinds
from measure.store.observed import Limits
from measure.store.results import KernelBuild

#: Device attributes (PyCUDA's names) behind each recorded limit.
LIMIT_ATTRIBUTES = {
    "shared_per_block_default": "MAX_SHARED_MEMORY_PER_BLOCK",
    "shared_per_block_optin": "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "shared_per_sm": "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
    "registers_per_sm": "MAX_REGISTERS_PER_MULTIPROCESSOR",
    "registers_per_block": "MAX_REGISTERS_PER_BLOCK",
    "max_threads_per_sm": "MAX_THREADS_PER_MULTIPROCESSOR",
    "max_blocks_per_sm": "MAX_BLOCKS_PER_MULTIPROCESSOR",
    "warp_size": "WARP_SIZE",
    "reserved_shared_per_block": "RESERVED_SHARED_MEMORY_PER_BLOCK",
}

FLUSH_SOURCE = Path(__file__).parents[1] / "flush.cu"


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    pci_bus_id: str
    compute_capability: str
    sm_count: int
    l2_bytes: int
    memory_clock_mhz: int
    bus_width_bits: int
    cuda_driver_version: str
    uuid: str
    driver_release: str
    max_sm_clock_mhz: int
    nvml: str


class Clock:
    """Reads the SM clock through NVML; ``read()`` gives -1 when NVML is unavailable."""

    def __init__(self, pci_bus_id: str) -> None:
        self.status = "available"
        self._handle: Any = None
        self._nvml: Any = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = self._find(pynvml, pci_bus_id)
        except Exception as exc:  # NVML missing or refusing: say so in the result, keep every sample
            self.status = f"unavailable ({type(exc).__name__}: {exc})"
            self._handle = None

    @staticmethod
    def _find(pynvml: Any, pci_bus_id: str) -> Any:
        want = pci_bus_id.lower().split(":", 1)[-1]  # bus:device.function, without the domain
        count = pynvml.nvmlDeviceGetCount()
        for i in range(count):
            handle = pynvml.nvmlDeviceGetHandleByIndex(i)
            bus = pynvml.nvmlDeviceGetPciInfo(handle).busId
            bus = bus.decode() if isinstance(bus, bytes) else bus
            if bus.lower().endswith(want):
                return handle
        raise DeviceError(f"NVML lists no device at PCI {pci_bus_id}")

    def _text(self, value: Any) -> str:
        return value.decode() if isinstance(value, bytes) else str(value)

    def read(self) -> int:
        if self._handle is None:
            return -1
        return int(self._nvml.nvmlDeviceGetClockInfo(self._handle, self._nvml.NVML_CLOCK_SM))

    def max_sm_mhz(self) -> int:
        if self._handle is None:
            return -1
        return int(self._nvml.nvmlDeviceGetMaxClockInfo(self._handle, self._nvml.NVML_CLOCK_SM))

    def uuid(self) -> str:
        return self._text(self._nvml.nvmlDeviceGetUUID(self._handle)) if self._handle is not None else "unknown"

    def driver_release(self) -> str:
        return self._text(self._nvml.nvmlSystemGetDriverVersion()) if self._handle is not None else "unknown"


def nvcc_version(nvcc: str = "nvcc") -> str:
    path = shutil.which(nvcc)
    if path is None:
        raise DeviceError("nvcc is not on PATH; PyCUDA compiles with it (add /usr/local/cuda/bin to PATH)")
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"release [0-9.]+, V([0-9.]+)", out)
    return match.group(1) if match else out.strip().splitlines()[-1]


def versions() -> dict[str, str]:
    return {"pycuda": pycuda.VERSION_TEXT, "numpy": np.__version__, "python": platform.python_version()}


@dataclass
class Module:
    """One compiled .cu file, loaded by PyCUDA and, from the same cubin, by the driver directly."""

    pycuda: Any  # pycuda Module
    handle: int  # CUmodule of the second load (0 when it failed: then ``error`` says why)
    error: str = ""
    # function name -> the opt-in now set on it (absent: its own value). Kept per function, not per
    # Kernel object: two rows of the same function share its attribute on the device.
    opted_in: dict[str, int] = field(default_factory=dict)


@dataclass
class Kernel:
    function: Any  # pycuda Function, prepared
    name: str
    handle: int  # CUfunction in Module.handle (0 when unavailable)
    module: Module
    default_max_dynamic_shared: int  # the function's own attribute value before any opt-in (-1 unknown)


class Device(DeviceKinds):
    """One CUDA context on device 0, one stream, an L2 flush buffer and a pool of events (the other row
    kinds' copies, pipelines, graphs and cuBLAS in :class:`measure.gpu.devicekinds.DeviceKinds`)."""

    def __init__(self, ordinal: int = 0) -> None:
        try:
            cuda.init()
            if cuda.Device.count() == 0:
                raise DeviceError("no CUDA device is present")
            self.dev = cuda.Device(ordinal)
        except cuda.Error as exc:
            raise DeviceError(f"CUDA is not usable here: {exc}") from exc
        self.ctx = self.dev.make_context()
        self.driver = Driver()
        self.stream = cuda.Stream()
        attr = cuda.device_attribute
        major, minor = self.dev.compute_capability()
        pci = self.dev.pci_bus_id()
        self.clock = Clock(pci)
        drv = cuda.get_driver_version()
        self.info = DeviceInfo(
            name=self.dev.name(),
            pci_bus_id=pci,
            compute_capability=f"{major}.{minor}",
            sm_count=self.dev.get_attribute(attr.MULTIPROCESSOR_COUNT),
            l2_bytes=self.dev.get_attribute(attr.L2_CACHE_SIZE),
            memory_clock_mhz=self.dev.get_attribute(attr.MEMORY_CLOCK_RATE) // 1000,  # reported in kHz
            bus_width_bits=self.dev.get_attribute(attr.GLOBAL_MEMORY_BUS_WIDTH),
            cuda_driver_version=f"{drv // 1000}.{drv % 1000 // 10}",
            uuid=self.clock.uuid(),
            driver_release=self.clock.driver_release(),
            max_sm_clock_mhz=self.clock.max_sm_mhz(),
            nvml=self.clock.status,
        )
        self._flush_buf: Any = None
        self._flush_fn: Any = None
        self._flush_n4 = 0
        self._sink: Any = None
        self.flush_bytes = 0
        self._loaded: list[int] = []
        self._kinds_init()

    def close(self) -> None:
        self._kinds_close()
        self._flush_buf = None
        for handle in self._loaded:
            with contextlib.suppress(Exception):  # closing must not hide the results already written
                self.driver.unload(handle)
        self._sink = None
        self.ctx.pop()
        self.ctx.detach()

    # --- compilation ------------------------------------------------------------------------------

    @staticmethod
    def nvcc_version() -> str:
        return nvcc_version()

    @staticmethod
    def versions() -> dict[str, str]:
        return versions()

    @staticmethod
    def nvcc_flags(arch: str, include_dir: str | None = None) -> list[str]:
        """The exact options PyCUDA passes to nvcc (its include path shown as {pycuda}/cuda; the source's
        own folder, where its quoted includes live, repo-relative)."""
        own = [f"-I{include_dir}"] if include_dir else []
        return ["--cubin", "-O3", "-arch", arch, *own, "-I{pycuda}/cuda"]

    def compile(self, source: str, arch: str, include_dir: Path | None = None) -> Module:
        # cache_dir=False: compile every time, so the recorded flags are the ones that built this code.
        # PyCUDA compiles the text in a temporary folder: a quoted include is found through include_dir.
        cubin = nvcc_compile(source, options=["-O3"], arch=arch, no_extern_c=True, cache_dir=False,
                             include_dirs=[str(include_dir)] if include_dir else [])
        module = Module(cuda.module_from_buffer(cubin), 0)
        try:
            module.handle = self.driver.load(cubin)
            self._loaded.append(module.handle)
        except Exception as exc:  # observed launches and occupancy then say why; timing goes on
            module.error = f"{type(exc).__name__}: {exc}"
        return module

    def kernel(self, module: Module, name: str, arg_types: str) -> Kernel:
        fn = module.pycuda.get_function(name)
        fn.prepare(arg_types)
        handle, default = 0, -1
        if module.handle:
            try:
                handle = self.driver.function(module.handle, name)
                default = self.driver.get_attribute(handle, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES)
            except Exception:
                handle = handle or 0
        if default < 0:
            try:
                default = int(fn.get_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES))
            except Exception:
                default = -1
        return Kernel(fn, name, handle, module, default)

    def set_max_dynamic_shared(self, k: Kernel, nbytes: int | None, observed: bool = False) -> str:
        """The opt-in for ``k``, on both loads: set to ``nbytes``; with None, undo an earlier opt-in (a
        function never opted in is left untouched). Returns "" or the refusal that matters for the
        launch that follows: the driver load's for an ``observed`` launch, PyCUDA's for a timed one."""
        if nbytes is None:
            if k.name not in k.module.opted_in or k.default_max_dynamic_shared < 0:
                return ""
            value = k.default_max_dynamic_shared
        else:
            value = nbytes
        pycuda_error = driver_error = ""
        try:
            k.function.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, int(value))
        except Exception as exc:
            pycuda_error = f"{type(exc).__name__}: {exc}"
        if k.handle:
            try:
                status = self.driver.set_attribute(k.handle, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(value))
                driver_error = "" if status.ok else f"cuFuncSetAttribute failed: {status}"
            except Exception as exc:
                driver_error = f"{type(exc).__name__}: {exc}"
        if nbytes is None:
            k.module.opted_in.pop(k.name, None)
        else:
            k.module.opted_in[k.name] = nbytes
        return driver_error if observed else pycuda_error

    def upload_constant(self, k: Kernel, symbol: str, array: Any) -> None:
        """Copy ``array`` into ``__constant__`` ``symbol`` of both loads of ``k``'s module."""
        data = np.ascontiguousarray(array)
        ptr, size = k.module.pycuda.get_global(symbol)
        targets = [(int(ptr), int(size))]
        if k.module.handle:
            targets.append(self.driver.global_symbol(k.module.handle, symbol))
        for address, capacity in targets:
            if data.nbytes > capacity:
                raise DeviceError(
                    f"__constant__ '{symbol}' holds {capacity} bytes, the buffer copied into it has {data.nbytes}"
                )
            cuda.memcpy_htod(address, data)

    def occupancy(self, k: Kernel, block_threads: int, dynamic_shared: int) -> tuple[int, str]:
        """Resident blocks per SM for this configuration, and "" or why it could not be computed."""
        if not k.handle:
            return 0, f"no driver handle for {k.name} ({k.module.error or 'cuModuleGetFunction failed'})"
        blocks, status = self.driver.max_active_blocks(k.handle, block_threads, dynamic_shared)
        return blocks, "" if status.ok else f"cuOccupancyMaxActiveBlocksPerMultiprocessor: {status}"

    def limits(self) -> Limits:
        """The device's launch limits; -1 for an attribute this PyCUDA or driver does not know."""
        values: dict[str, int] = {}
        for field_name, attr_name in LIMIT_ATTRIBUTES.items():
            try:
                values[field_name] = int(self.dev.get_attribute(getattr(cuda.device_attribute, attr_name)))
            except Exception:
                values[field_name] = -1
        return Limits(**values)

    @staticmethod
    def build_info(k: Kernel) -> KernelBuild:
        fn = k.function
        return KernelBuild(
            function=k.name,
            registers=int(fn.num_regs),
            static_shared_bytes=int(fn.shared_size_bytes),
            local_bytes=int(fn.local_size_bytes),
            max_threads_per_block=int(fn.max_threads_per_block),
        )

    # --- memory -----------------------------------------------------------------------------------

    def alloc(self, nbytes: int) -> Any:
        return cuda.mem_alloc(max(nbytes, 4))

    def upload(self, dst: Any, array: Any) -> None:
        cuda.memcpy_htod(dst, np.ascontiguousarray(array))

    def download(self, src: Any, shape: Sequence[int], dtype: Any = np.float32) -> Any:
        out = np.empty(tuple(shape), dtype=dtype)
        cuda.memcpy_dtoh(out, src)
        return out

    def poison(self, buf: Any, n_elements: int) -> None:
        cuda.memset_d32(buf, POISON_BITS, n_elements)

    # --- the L2 flush -----------------------------------------------------------------------------

    def setup_flush(self, nbytes: int) -> None:
        """A zero-filled buffer of ``nbytes`` read by a grid-stride kernel (see measure/flush.cu)."""
        n4 = nbytes // 16
        self._flush_buf = cuda.mem_alloc(n4 * 16)
        cuda.memset_d32(self._flush_buf, 0, n4 * 4)
        self._sink = cuda.mem_alloc(16)
        module = self.compile(
            FLUSH_SOURCE.read_text(encoding="utf-8"), f"sm_{self.info.compute_capability.replace('.', '')}"
        )
        self._flush_fn = module.pycuda.get_function("l2_flush_read")
        self._flush_fn.prepare("PqP")
        self._flush_module = module
        self._flush_n4 = n4
        self.flush_bytes = n4 * 16

    def flush(self) -> None:
        self._flush_fn.prepared_async_call(
            (self.info.sm_count * 8, 1, 1),
            (256, 1, 1),
            self.stream,
            int(self._flush_buf),
            np.int64(self._flush_n4),
            int(self._sink),
        )

    # --- launching and timing ---------------------------------------------------------------------

    def launcher(
        self,
        k: Kernel,
        grid: Sequence[int],
        block: Sequence[int],
        args: Sequence[tuple[str, int] | Any],
        dynamic_shared: int = 0,
    ) -> Callable[[], None]:
        """A launch of ``k`` through PyCUDA; ``args`` are ("P", device pointer) or ("i", int), or values
        PyCUDA takes as they are (an int pointer, an np.int32)."""
        g = (*grid, *([1] * (3 - len(grid))))
        b = (*block, *([1] * (3 - len(block))))
        values = [_arg_value(a) for a in args]
        fn, stream, shared = k.function, self.stream, int(dynamic_shared)

        def launch() -> None:
            fn.prepared_async_call(g, b, stream, *values, shared_size=shared)

        return launch

    def observe(
        self,
        k: Kernel,
        grid: Sequence[int],
        block: Sequence[int],
        args: Sequence[tuple[str, int]],
        dynamic_shared: int = 0,
    ) -> Observation:
        """Launch ``k`` once with cuLaunchKernel and keep what the driver returned, then synchronize.

        A refused launch (e.g. CUDA_ERROR_INVALID_VALUE for too much dynamic shared memory) queues
        nothing and leaves the context usable; an error while the kernel ran is sticky and is what
        synchronizing returns."""
        if not k.handle:
            raise DeviceError(f"no driver handle for {k.name} ({k.module.error or 'cuModuleGetFunction failed'})")
        self.synchronize()
        status = self.driver.launch(k.handle, grid, block, int(dynamic_shared), int(self.stream.handle), args)
        return Observation(status, self.driver.synchronize())

    def memcpy_launcher(self, dst: Any, src: Any, nbytes: int) -> Callable[[], None]:
        stream = self.stream

        def launch() -> None:
            cuda.memcpy_dtod_async(dst, src, nbytes, stream)

        return launch

    def synchronize(self) -> None:
        try:
            self.ctx.synchronize()
        except cuda.Error as exc:
            raise DeviceError(f"the GPU reported an error: {exc}") from exc

    def events(self, n: int) -> list[tuple[Any, Any]]:
        return [(cuda.Event(), cuda.Event()) for _ in range(n)]

    def timed_batch(
        self, launch: Callable[[], None], pairs: Sequence[tuple[Any, Any]], flush: bool = True
    ) -> list[float]:
        """One launch per sample between two events, the L2 flushed before each (outside the events).

        Everything is queued first and synchronized once, so host overhead does not separate the
        samples; each sample's time is still only its own launch.
        """
        stream = self.stream
        for start, end in pairs:
            if flush:
                self.flush()
            start.record(stream)
            launch()
            end.record(stream)
        try:
            pairs[-1][1].synchronize()
        except cuda.Error as exc:
            raise DeviceError(f"the GPU reported an error: {exc}") from exc
        return [start.time_till(end) for start, end in pairs]


def _arg_value(arg: Any) -> Any:
    if isinstance(arg, tuple) and len(arg) == 2 and arg[0] in ("P", "i"):
        return int(arg[1]) if arg[0] == "P" else np.int32(arg[1])
    return arg


__all__ = ["Device", "DeviceError", "DeviceInfo", "Kernel", "Module", "Observation", "nvcc_version", "versions"]


def environment_note() -> str:
    """Where PyCUDA came from, for logs."""
    return f"pycuda {pycuda.VERSION_TEXT} at {os.path.dirname(pycuda.__file__)}"
