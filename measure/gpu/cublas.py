"""cuBLAS through ctypes: find ``libcublas.so``, make one handle, run one GEMM. Only
:mod:`measure.gpu.devicekinds` uses it, on a verification node.

No Python package is required (nvidia-cublas, cupy or cuda-bindings may be installed, but the runner does
not import them): the library file is looked for with ``ctypes.util.find_library``, in the CUDA
toolkit's ``lib64``, and in the ``nvidia/cu13/lib`` or ``nvidia/cublas/lib`` folder of any site-packages
directory (where the nvidia-cublas wheel puts it). The file actually mapped into the process (read back
from ``/proc/self/maps``) and ``cublasGetVersion`` are recorded in every result that used it.

Enumeration values are cuBLAS's stable ABI (cublas_api.h, library_types.h): CUBLAS_OP_N = 0,
CUDA_R_32F = 0, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_GEMM_DEFAULT = -1, CUBLAS_DEFAULT_MATH = 0.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import glob
import os
import site
import sys
from dataclasses import dataclass
from typing import Any

from measure.gpu.cudadrv import DeviceError

OP_N = 0
R_32F = 0
COMPUTE_32F_FAST_TF32 = 77
GEMM_DEFAULT = -1
DEFAULT_MATH = 0
#: Workspace handed to cuBLAS (NVIDIA recommends 32 MiB on Hopper), so it never allocates while timed.
WORKSPACE_BYTES = 32 << 20


def candidates() -> list[str]:
    """Every libcublas.so* file or name to try, in order."""
    out: list[str] = []
    found = ctypes.util.find_library("cublas")
    if found:
        out.append(found)
    roots = [os.environ.get("CUDA_ROOT", ""), os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]
    dirs = [os.path.join(r, "lib64") for r in roots if r]
    sites = [*sys.path, *site.getsitepackages()]
    dirs += [os.path.join(s, "nvidia", sub, "lib") for s in sites if s for sub in ("cu13", "cublas")]
    for d in dirs:
        out += sorted(glob.glob(os.path.join(d, "libcublas.so*")), reverse=True)  # libcublas.so.13 before .so
    return list(dict.fromkeys(out))


def _mapped(fragment: str) -> str:
    """The path of the mapped file whose name contains ``fragment`` (what the loader really chose)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[-1].strip()
                if fragment in os.path.basename(path):
                    return path
    except OSError:
        pass
    return ""


def load() -> tuple[Any, str]:
    """The loaded library and the file it came from; DeviceError naming every place tried."""
    tried: list[str] = []
    for cand in candidates():
        folder = os.path.dirname(cand)
        if folder:  # a wheel's libcublas needs libcublasLt from the same folder
            for lt in sorted(glob.glob(os.path.join(folder, "libcublasLt.so*")), reverse=True)[:1]:
                with contextlib.suppress(OSError):  # then libcublas says what it lacks
                    ctypes.CDLL(lt, mode=ctypes.RTLD_GLOBAL)
        try:
            lib = ctypes.CDLL(cand)
        except OSError as exc:
            tried.append(f"{cand} ({exc})")
            continue
        return lib, _mapped("libcublas.so") or os.path.realpath(cand)
    raise DeviceError(
        "libcublas.so was not found (tried: " + ("; ".join(tried) or "no candidates") + "); install the "
        "CUDA toolkit's cuBLAS or the nvidia-cublas wheel"
    )


@dataclass
class Cublas:
    """One handle bound to one stream, with its workspace."""

    lib: Any
    path: str
    handle: ctypes.c_void_p
    version: int

    def check(self, what: str, status: int) -> None:
        if status != 0:
            name = f"status {status}"
            getter = getattr(self.lib, "cublasGetStatusName", None)
            if getter is not None:
                getter.restype = ctypes.c_char_p
                name = (getter(ctypes.c_int(status)) or b"").decode() or name
            raise DeviceError(f"{what} failed: {name}")

    def gemm(self, math: str, m: int, n: int, k: int, c: int, a: int, b: int) -> Any:
        """A callable running row-major C (m x n) = A (m x k) @ B (k x n), all float32, as the
        column-major C^T = B^T A^T: (n, m, k), B (ld n), A (ld k), C (ld n)."""
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        h, lib, i = self.handle, self.lib, ctypes.c_int
        pa, pb, pc = ctypes.c_void_p(a), ctypes.c_void_p(b), ctypes.c_void_p(c)
        ops = (i(OP_N), i(OP_N), i(n), i(m), i(k))
        if math == "fp32":

            def run() -> None:
                self.check(
                    "cublasSgemm_v2",
                    lib.cublasSgemm_v2(h, *ops, ctypes.byref(alpha), pb, i(n), pa, i(k), ctypes.byref(beta), pc, i(n)),
                )

            return run
        typ = i(R_32F)

        def run_ex() -> None:
            self.check(
                "cublasGemmEx",
                lib.cublasGemmEx(
                    h,
                    *ops,
                    ctypes.byref(alpha),
                    pb,
                    typ,
                    i(n),
                    pa,
                    typ,
                    i(k),
                    ctypes.byref(beta),
                    pc,
                    typ,
                    i(n),
                    i(COMPUTE_32F_FAST_TF32),
                    i(GEMM_DEFAULT),
                ),
            )

        return run_ex

    def destroy(self) -> None:
        self.lib.cublasDestroy_v2(self.handle)


def create(stream: int, workspace: int) -> Cublas:
    """Load cuBLAS, create a handle on ``stream`` with ``workspace`` (WORKSPACE_BYTES at that address)."""
    lib, path = load()
    handle = ctypes.c_void_p()
    cb = Cublas(lib, path, handle, 0)
    cb.check("cublasCreate_v2", lib.cublasCreate_v2(ctypes.byref(handle)))
    cb.check("cublasSetStream_v2", lib.cublasSetStream_v2(handle, ctypes.c_void_p(stream)))
    cb.check(
        "cublasSetWorkspace_v2",
        lib.cublasSetWorkspace_v2(handle, ctypes.c_void_p(workspace), ctypes.c_size_t(WORKSPACE_BYTES)),
    )
    cb.check("cublasSetMathMode", lib.cublasSetMathMode(handle, ctypes.c_int(DEFAULT_MATH)))
    version = ctypes.c_int()
    cb.check("cublasGetVersion_v2", lib.cublasGetVersion_v2(handle, ctypes.byref(version)))
    cb.version = int(version.value)
    return cb
