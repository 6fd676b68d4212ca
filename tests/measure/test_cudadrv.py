"""measure/gpu/cudadrv.py against a stand-in libcuda built here from fake_libcuda.c, whose entry points are
compiled against the real prototypes in cuda.h: the ctypes calls must pass what the driver's ABI expects
(handles, 64-bit pointers, size_t, the kernelParams array) and read back what it writes."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from measure.gpu.cudadrv import FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, DeviceError, Driver, Status

HERE = Path(__file__).parent


def _cuda_include() -> Path | None:
    nvcc = shutil.which("nvcc")
    candidates = [Path(nvcc).resolve().parent.parent / "include"] if nvcc else []
    candidates.append(Path("/usr/local/cuda/include"))
    return next((c for c in candidates if (c / "cuda.h").is_file()), None)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    include, cc = _cuda_include(), shutil.which("gcc") or shutil.which("cc")
    if include is None or cc is None:
        pytest.skip("needs a C compiler and the CUDA headers (cuda.h)")
    out = tmp_path_factory.mktemp("fakecuda") / "libfakecuda.so"
    subprocess.run(
        [cc, "-shared", "-fPIC", "-Wall", "-Werror", f"-I{include}", "-o", str(out), str(HERE / "fake_libcuda.c")],
        check=True,
    )
    return ctypes.CDLL(str(out))


@pytest.fixture
def drv(lib: ctypes.CDLL) -> Driver:
    lib.fake_set_sync_result(0)
    return Driver(lib)


def test_statuses_carry_the_drivers_name_and_string(drv: Driver) -> None:
    assert drv.status(0) == Status(0, "", "") and drv.status(0).ok
    assert drv.status(1) == Status(1, "CUDA_ERROR_INVALID_VALUE", "invalid argument")
    assert str(drv.status(1)) == "CUDA_ERROR_INVALID_VALUE: invalid argument"
    assert drv.status(99999) == Status(99999, "CUresult 99999", "unknown error 99999")


def test_module_function_and_attributes(drv: Driver) -> None:
    module = drv.load(b"CUBIN and the rest")
    fn = drv.function(module, "stage")
    assert (module, fn) == (0x1234, 0x5678)
    assert drv.get_attribute(fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 49152
    assert drv.set_attribute(fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, 300000).name == "CUDA_ERROR_INVALID_VALUE"
    assert drv.set_attribute(fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536).ok
    assert drv.get_attribute(fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 65536
    assert drv.set_attribute(fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, 49152).ok
    assert drv.global_symbol(module, "weights") == (0xC0FFEE00, 196)
    drv.unload(module)


def test_failures_raise_with_the_drivers_words(drv: Driver) -> None:
    with pytest.raises(DeviceError, match=r"^cuModuleLoadData failed: CUDA_ERROR_INVALID_VALUE: invalid argument$"):
        drv.load(b"not a cubin")
    with pytest.raises(
        DeviceError, match=r"^cuModuleGetFunction\(other\) failed: CUDA_ERROR_NOT_FOUND: named symbol not found$"
    ):
        drv.function(0x1234, "other")


def test_occupancy(drv: Driver) -> None:
    assert drv.max_active_blocks(0x5678, 1024, 0) == (2, Status(0, "", ""))
    assert drv.max_active_blocks(0x5678, 256, 65536)[0] == 0  # above the function's limit: no block fits
    assert drv.max_active_blocks(0x5678, 0, 0) == (0, Status(1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"))


def test_a_launch_passes_grid_block_shared_stream_and_parameters(drv: Driver, lib: ctypes.CDLL) -> None:
    status = drv.launch(0x5678, [4, 2], [32, 8], 1024, 0xABCDEF, [("P", 0x7F0012345678), ("i", -7)])
    assert status.ok
    dims = (ctypes.c_uint * 8)()
    stream, ptr, value = ctypes.c_ulonglong(), ctypes.c_ulonglong(), ctypes.c_int()
    lib.fake_last_launch(dims, ctypes.byref(stream), ctypes.byref(ptr), ctypes.byref(value))
    assert list(dims) == [4, 2, 1, 32, 8, 1, 1024, 1]
    assert (stream.value, ptr.value, value.value) == (0xABCDEF, 0x7F0012345678, -7)


def test_a_refused_launch_returns_its_status(drv: Driver) -> None:
    assert drv.launch(0x5678, [1], [1024], 65536, 0, [("P", 1), ("i", 1)]) == Status(
        1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"
    )
    assert drv.launch(0x5678, [1], [2048], 0, 0, [("P", 1), ("i", 1)]).name == "CUDA_ERROR_INVALID_VALUE"


def test_synchronize_reports_a_sticky_error(drv: Driver, lib: ctypes.CDLL) -> None:
    assert drv.synchronize().ok
    lib.fake_set_sync_result(700)
    assert str(drv.synchronize()) == "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"


# --- measure/gpu/device.py's glue, with PyCUDA replaced by a stub and libcuda by the stand-in -----------------


class _StubFunction:
    def __init__(self, name: str) -> None:
        self.name = name
        self.attributes: dict[int, int] = {8: 49152}
        self.calls: list[tuple[object, ...]] = []
        self.fail_set = False

    def prepare(self, arg_types: str) -> None:
        self.arg_types = arg_types

    def get_attribute(self, attribute: int) -> int:
        return self.attributes[attribute]

    def set_attribute(self, attribute: int, value: int) -> None:
        if self.fail_set or value > 232448:
            raise RuntimeError("cuFuncSetAttribute failed: invalid argument")
        self.attributes[attribute] = value

    def prepared_async_call(self, grid: object, block: object, stream: object, *args: object, **kw: object) -> None:
        self.calls.append((grid, block, stream, args, kw))


class _StubModule:
    def __init__(self) -> None:
        self.functions: dict[str, _StubFunction] = {}

    def get_function(self, name: str) -> _StubFunction:
        return self.functions.setdefault(name, _StubFunction(name))

    def get_global(self, name: str) -> tuple[int, int]:
        if name != "weights":
            raise RuntimeError("cuModuleGetGlobal failed: named symbol not found")
        return 0xBEEF00, 196


@pytest.fixture
def device_module(monkeypatch: pytest.MonkeyPatch) -> object:
    """measure.gpu.device imported against stub pycuda modules (removed again after the test)."""
    import importlib
    import sys
    import types

    copies: list[tuple[int, bytes]] = []
    pycuda = types.ModuleType("pycuda")
    pycuda.VERSION_TEXT = "stub"  # type: ignore[attr-defined]
    driver = types.ModuleType("pycuda.driver")
    driver.Error = type("Error", (Exception,), {})  # type: ignore[attr-defined]
    driver.function_attribute = types.SimpleNamespace(MAX_DYNAMIC_SHARED_SIZE_BYTES=8)  # type: ignore[attr-defined]
    attrs = {
        name: i
        for i, name in enumerate(
            [
                "MAX_SHARED_MEMORY_PER_BLOCK",
                "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
                "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
                "MAX_REGISTERS_PER_MULTIPROCESSOR",
                "MAX_REGISTERS_PER_BLOCK",
                "MAX_THREADS_PER_MULTIPROCESSOR",
                "MAX_BLOCKS_PER_MULTIPROCESSOR",
                "WARP_SIZE",
            ]
        )
    }  # RESERVED_SHARED_MEMORY_PER_BLOCK missing: an older PyCUDA
    driver.device_attribute = types.SimpleNamespace(**attrs)  # type: ignore[attr-defined]
    driver.module_from_buffer = lambda cubin: _StubModule()  # type: ignore[attr-defined]
    driver.memcpy_htod = lambda dst, data: copies.append((int(dst), bytes(data)))  # type: ignore[attr-defined]
    compiler = types.ModuleType("pycuda.compiler")
    compiler.compile = lambda source, **kw: b"CUBIN" + source.encode()  # type: ignore[attr-defined]
    pycuda.driver = driver  # type: ignore[attr-defined]
    pycuda.compiler = compiler  # type: ignore[attr-defined]
    for name, mod in (("pycuda", pycuda), ("pycuda.driver", driver), ("pycuda.compiler", compiler)):
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.delitem(sys.modules, "measure.gpu.device", raising=False)
    module = importlib.import_module("measure.gpu.device")
    monkeypatch.setitem(sys.modules, "measure.gpu.device", module)  # undone: the next import is fresh
    module._copies = copies  # type: ignore[attr-defined]
    return module


def _device(device_module: object, lib: ctypes.CDLL) -> object:
    import types

    lib.fake_set_sync_result(0)
    D = device_module.Device  # type: ignore[attr-defined]
    dev = D.__new__(D)
    dev.driver = Driver(lib)
    dev.stream = types.SimpleNamespace(handle=0x5757)
    dev._loaded = []
    values = {0: 49152, 1: 232448, 2: 233472, 3: 65536, 4: 65536, 5: 2048, 6: 32, 7: 32}
    dev.dev = types.SimpleNamespace(get_attribute=lambda a: values[a])
    dev.synchronize = lambda: None
    return dev


def test_device_compiles_once_and_loads_the_cubin_twice(device_module: object, lib: ctypes.CDLL) -> None:
    dev = _device(device_module, lib)
    module = dev.compile("source", "sm_90")  # type: ignore[attr-defined]
    assert module.handle == 0x1234 and module.error == "" and dev._loaded == [0x1234]  # type: ignore[attr-defined]
    k = dev.kernel(module, "stage", "Pi")  # type: ignore[attr-defined]
    assert (k.handle, k.default_max_dynamic_shared, k.function.arg_types) == (0x5678, 49152, "Pi")
    other = dev.kernel(module, "other", "Pi")  # type: ignore[attr-defined]
    assert other.handle == 0 and other.default_max_dynamic_shared == 49152  # from PyCUDA's own attribute


def test_device_opt_in_timed_and_observed(device_module: object, lib: ctypes.CDLL) -> None:
    dev = _device(device_module, lib)
    k = dev.kernel(dev.compile("source", "sm_90"), "stage", "Pi")  # type: ignore[attr-defined]
    assert dev.set_max_dynamic_shared(k, None) == ""  # never opted in: untouched  # type: ignore[attr-defined]
    assert dev.set_max_dynamic_shared(k, 65536, True) == ""  # type: ignore[attr-defined]
    assert k.function.attributes[8] == 65536 and Driver(lib).get_attribute(0x5678, 8) == 65536
    observation = dev.observe(k, [4], [1024], [("P", 0x1000), ("i", 5)], 65536)  # type: ignore[attr-defined]
    assert observation.launch.ok and observation.sync.ok
    assert dev.occupancy(k, 1024, 65536) == (2, "")  # type: ignore[attr-defined]
    assert dev.set_max_dynamic_shared(k, None) == ""  # back to the function's own limit  # type: ignore[attr-defined]
    assert k.function.attributes[8] == 49152 and Driver(lib).get_attribute(0x5678, 8) == 49152
    refused = dev.observe(k, [4], [1024], [("P", 0x1000), ("i", 5)], 65536)  # type: ignore[attr-defined]
    assert (refused.launch.name, refused.launch.string) == ("CUDA_ERROR_INVALID_VALUE", "invalid argument")
    assert dev.set_max_dynamic_shared(k, 300000, True) == (  # type: ignore[attr-defined]
        "cuFuncSetAttribute failed: CUDA_ERROR_INVALID_VALUE: invalid argument"
    )
    assert dev.set_max_dynamic_shared(k, 300000) == (  # type: ignore[attr-defined]
        "RuntimeError: cuFuncSetAttribute failed: invalid argument"
    )
    dev.set_max_dynamic_shared(k, None)  # type: ignore[attr-defined]


def test_device_timed_launch_passes_the_dynamic_shared_size(device_module: object, lib: ctypes.CDLL) -> None:
    import numpy as np

    dev = _device(device_module, lib)
    k = dev.kernel(dev.compile("source", "sm_90"), "stage", "Pi")  # type: ignore[attr-defined]
    dev.launcher(k, [4, 2], [32, 8], [("P", 0x1000), ("i", 5)], 4096)()  # type: ignore[attr-defined]
    grid, block, stream, args, kw = k.function.calls[-1]
    assert stream.handle == 0x5757
    assert (grid, block, kw) == ((4, 2, 1), (32, 8, 1), {"shared_size": 4096})
    assert args == (0x1000, np.int32(5)) and isinstance(args[1], np.int32)


def test_device_uploads_constants_to_both_loads(device_module: object, lib: ctypes.CDLL) -> None:
    import numpy as np

    dev = _device(device_module, lib)
    k = dev.kernel(dev.compile("source", "sm_90"), "stage", "Pi")  # type: ignore[attr-defined]
    dev.upload_constant(k, "weights", np.ones(49, dtype=np.float32))  # type: ignore[attr-defined]
    assert [addr for addr, _ in device_module._copies] == [0xBEEF00, 0xC0FFEE00]  # type: ignore[attr-defined]
    with pytest.raises(
        DeviceError, match=r"^__constant__ 'weights' holds 196 bytes, the buffer copied into it has 200$"
    ):
        dev.upload_constant(k, "weights", np.ones(50, dtype=np.float32))  # type: ignore[attr-defined]


def test_device_limits(device_module: object, lib: ctypes.CDLL) -> None:
    limits = _device(device_module, lib).limits()  # type: ignore[attr-defined]
    assert (limits.shared_per_block_default, limits.shared_per_block_optin, limits.shared_per_sm) == (
        49152,
        232448,
        233472,
    )
    assert (limits.max_threads_per_sm, limits.max_blocks_per_sm, limits.warp_size) == (2048, 32, 32)
    assert limits.reserved_shared_per_block == -1  # this PyCUDA does not name the attribute


def test_device_timed_launch_takes_plain_values_too(device_module: object, lib: ctypes.CDLL) -> None:
    import numpy as np

    dev = _device(device_module, lib)
    k = dev.kernel(dev.compile("source", "sm_90"), "stage", "Pi")  # type: ignore[attr-defined]
    dev.launcher(k, [4], [256], [0x1000, np.int32(5)])()  # type: ignore[attr-defined]
    assert k.function.calls[-1][3] == (0x1000, np.int32(5)) and k.function.calls[-1][4] == {"shared_size": 0}


def test_device_opt_in_state_belongs_to_the_function(device_module: object, lib: ctypes.CDLL) -> None:
    dev = _device(device_module, lib)
    module = dev.compile("source", "sm_90")  # type: ignore[attr-defined]
    first, second = (dev.kernel(module, "stage", "Pi") for _ in range(2))  # type: ignore[attr-defined]
    assert dev.set_max_dynamic_shared(first, 65536, True) == ""  # type: ignore[attr-defined]
    # Another row of the same function without an opt-in gets the function's own limit back.
    assert dev.set_max_dynamic_shared(second, None, True) == ""  # type: ignore[attr-defined]
    assert Driver(lib).get_attribute(0x5678, 8) == 49152 and second.function.attributes[8] == 49152
    assert module.opted_in == {}
