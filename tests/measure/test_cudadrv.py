"""measure/cudadrv.py against a stand-in libcuda built here from fake_libcuda.c, whose entry points are
compiled against the real prototypes in cuda.h: the ctypes calls must pass what the driver's ABI expects
(handles, 64-bit pointers, size_t, the kernelParams array) and read back what it writes."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from measure.cudadrv import FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, DeviceError, Driver, Status

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
