"""The CUDA driver calls PyCUDA 2026.1 does not expose, through ctypes on ``libcuda.so.1``.

PyCUDA's ``Function`` and ``Module`` hide their ``CUfunction``/``CUmodule`` handles, its exceptions carry
only a message (``cuLaunchKernel failed: invalid argument``), not the ``CUresult`` code, and it has no
occupancy API. So :class:`Driver` loads the same cubin a second time with ``cuModuleLoadData`` (in the
context PyCUDA made current) and, on those handles, sets function attributes, uploads ``__constant__``
symbols, asks ``cuOccupancyMaxActiveBlocksPerMultiprocessor`` and launches observed kernels with
``cuLaunchKernel``, keeping the driver's own result code and its name and string
(``cuGetErrorName``/``cuGetErrorString``).

Only :mod:`measure.gpu.device` uses this module. It imports nothing GPU-specific at import time (the library
is opened on first use), so tests drive it with a fake library object.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CUDA_SUCCESS = 0
#: CUfunction_attribute values (cuda.h); stable across CUDA releases.
FUNC_MAX_THREADS_PER_BLOCK = 0
FUNC_SHARED_SIZE_BYTES = 1
FUNC_NUM_REGS = 4
FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


class DeviceError(RuntimeError):
    """The device cannot be used as asked (no GPU, wrong GPU, launch failure)."""


@dataclass(frozen=True)
class Status:
    """One driver call's result: its code and the driver's name and string for it."""

    code: int
    name: str  # e.g. "CUDA_ERROR_INVALID_VALUE"; "" for success
    string: str  # e.g. "invalid argument"; "" for success

    @property
    def ok(self) -> bool:
        return self.code == CUDA_SUCCESS

    def __str__(self) -> str:
        return f"{self.name}: {self.string}" if not self.ok else "CUDA_SUCCESS"


@dataclass(frozen=True)
class Observation:
    """What the driver returned for one observed launch and for synchronizing after it."""

    launch: Status
    sync: Status


def _open() -> Any:
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError as exc:
        raise DeviceError(f"the CUDA driver library libcuda.so.1 does not load ({exc})") from exc


class Driver:
    """Driver-API calls on handles PyCUDA does not give out. ``lib`` defaults to ``libcuda.so.1``."""

    def __init__(self, lib: Any = None) -> None:
        self._lib = lib

    @property
    def lib(self) -> Any:
        if self._lib is None:
            self._lib = _open()
        return self._lib

    # --- result codes ------------------------------------------------------------------------------

    def status(self, code: int) -> Status:
        """The driver's name and string for ``code`` (both "" for success)."""
        if code == CUDA_SUCCESS:
            return Status(0, "", "")
        name, string = ctypes.c_char_p(), ctypes.c_char_p()
        rn = self.lib.cuGetErrorName(ctypes.c_int(code), ctypes.byref(name))
        rs = self.lib.cuGetErrorString(ctypes.c_int(code), ctypes.byref(string))
        text_name = name.value.decode() if rn == CUDA_SUCCESS and name.value else f"CUresult {code}"
        text_string = string.value.decode() if rs == CUDA_SUCCESS and string.value else f"unknown error {code}"
        return Status(code, text_name, text_string)

    def _call(self, what: str, code: int) -> None:
        if code != CUDA_SUCCESS:
            raise DeviceError(f"{what} failed: {self.status(code)}")

    # --- modules and functions ---------------------------------------------------------------------

    def load(self, cubin: bytes) -> int:
        """Load ``cubin`` into the current context; the CUmodule handle."""
        module = ctypes.c_void_p()
        image = ctypes.create_string_buffer(cubin, len(cubin))
        self._call("cuModuleLoadData", self.lib.cuModuleLoadData(ctypes.byref(module), image))
        return int(module.value or 0)

    def unload(self, module: int) -> None:
        self.lib.cuModuleUnload(ctypes.c_void_p(module))  # best effort: the context may be gone

    def function(self, module: int, name: str) -> int:
        fn = ctypes.c_void_p()
        code = self.lib.cuModuleGetFunction(ctypes.byref(fn), ctypes.c_void_p(module), name.encode())
        self._call(f"cuModuleGetFunction({name})", code)
        return int(fn.value or 0)

    def get_attribute(self, fn: int, attribute: int) -> int:
        value = ctypes.c_int()
        code = self.lib.cuFuncGetAttribute(ctypes.byref(value), ctypes.c_int(attribute), ctypes.c_void_p(fn))
        self._call(f"cuFuncGetAttribute({attribute})", code)
        return int(value.value)

    def set_attribute(self, fn: int, attribute: int, value: int) -> Status:
        """cuFuncSetAttribute; its status (a refused value is reported, not raised)."""
        code = self.lib.cuFuncSetAttribute(ctypes.c_void_p(fn), ctypes.c_int(attribute), ctypes.c_int(value))
        return self.status(int(code))

    def global_symbol(self, module: int, name: str) -> tuple[int, int]:
        """(device pointer, size in bytes) of a module-scope variable, e.g. a ``__constant__`` array."""
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        code = self.lib.cuModuleGetGlobal_v2(
            ctypes.byref(ptr), ctypes.byref(size), ctypes.c_void_p(module), name.encode()
        )
        self._call(f"cuModuleGetGlobal({name})", code)
        return int(ptr.value), int(size.value)

    # --- occupancy, launches -----------------------------------------------------------------------

    def max_active_blocks(self, fn: int, block_threads: int, dynamic_shared: int) -> tuple[int, Status]:
        """cuOccupancyMaxActiveBlocksPerMultiprocessor: resident blocks per SM (0 with the status on error)."""
        blocks = ctypes.c_int()
        code = self.lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(blocks), ctypes.c_void_p(fn), ctypes.c_int(block_threads), ctypes.c_size_t(dynamic_shared)
        )
        status = self.status(int(code))
        return (int(blocks.value) if status.ok else 0), status

    def launch(
        self,
        fn: int,
        grid: Sequence[int],
        block: Sequence[int],
        dynamic_shared: int,
        stream: int,
        args: Sequence[tuple[str, int]],
    ) -> Status:
        """cuLaunchKernel; ``args`` are ("P", device pointer) or ("i", 32-bit int). Returns its status."""
        g = [*grid, *([1] * (3 - len(grid)))]
        b = [*block, *([1] * (3 - len(block)))]
        held: list[Any] = [ctypes.c_uint64(v) if kind == "P" else ctypes.c_int32(v) for kind, v in args]
        params = (ctypes.c_void_p * max(1, len(held)))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in held])
        code = self.lib.cuLaunchKernel(
            ctypes.c_void_p(fn),
            *[ctypes.c_uint(v) for v in g],
            *[ctypes.c_uint(v) for v in b],
            ctypes.c_uint(dynamic_shared),
            ctypes.c_void_p(stream),
            params,
            None,
        )
        return self.status(int(code))

    def synchronize(self) -> Status:
        return self.status(int(self.lib.cuCtxSynchronize()))

    # --- CUDA graphs (PyCUDA 2026.1 has no stream capture) -----------------------------------------

    def capture(self, stream: int, body: Any) -> tuple[int, int]:
        """Capture what ``body()`` queues on ``stream`` into a graph and instantiate it: (graph, exec).
        Relaxed capture mode (2): other threads' and legacy-stream calls are not policed, only this
        stream's work is recorded."""
        begin = getattr(self.lib, "cuStreamBeginCapture_v2", None) or self.lib.cuStreamBeginCapture
        self._call("cuStreamBeginCapture", begin(ctypes.c_void_p(stream), ctypes.c_int(2)))
        graph = ctypes.c_void_p()
        try:
            body()
        finally:
            code = self.lib.cuStreamEndCapture(ctypes.c_void_p(stream), ctypes.byref(graph))
        self._call("cuStreamEndCapture", code)
        exec_ = ctypes.c_void_p()
        code = self.lib.cuGraphInstantiateWithFlags(ctypes.byref(exec_), graph, ctypes.c_ulonglong(0))
        if code != CUDA_SUCCESS:
            self.lib.cuGraphDestroy(graph)
        self._call("cuGraphInstantiateWithFlags", code)
        return int(graph.value or 0), int(exec_.value or 0)

    def graph_launch(self, exec_: int, stream: int) -> None:
        self._call("cuGraphLaunch", self.lib.cuGraphLaunch(ctypes.c_void_p(exec_), ctypes.c_void_p(stream)))

    def graph_destroy(self, graph: int, exec_: int) -> None:
        self.lib.cuGraphExecDestroy(ctypes.c_void_p(exec_))  # best effort, as unload
        self.lib.cuGraphDestroy(ctypes.c_void_p(graph))
