"""What a result records about launches besides times: the device's limits, each kernel row's
occupancy and an observed launch's outcome (part of the result format; see :mod:`measure.store.results`).

Pure dataclasses and arithmetic: :mod:`measure.gpu.device` reads the raw numbers from the driver, the runner
stores them, pages show them (``{{ observed }}``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

#: Limits reported in KiB on pages (byte counts of shared memory).
SHARED_LIMITS = ("shared_per_block_default", "shared_per_block_optin", "shared_per_sm", "reserved_shared_per_block")


@dataclass(frozen=True)
class Limits:
    """The device's launch limits, read from its attributes (-1 where the driver did not say)."""

    shared_per_block_default: int  # bytes a block may use without the opt-in (MAX_SHARED_MEMORY_PER_BLOCK)
    shared_per_block_optin: int  # bytes a block may use after the opt-in (..._PER_BLOCK_OPTIN)
    shared_per_sm: int  # bytes of shared memory per multiprocessor
    registers_per_sm: int
    registers_per_block: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    warp_size: int
    reserved_shared_per_block: int = -1  # bytes the system keeps per block (RESERVED_SHARED_MEMORY_PER_BLOCK)

    @staticmethod
    def names() -> list[str]:
        return [f.name for f in fields(Limits)]


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks and warps per multiprocessor for one row's launch configuration, from
    cuOccupancyMaxActiveBlocksPerMultiprocessor (registers, shared memory and block size all count)."""

    block_threads: int
    dynamic_shared_bytes: int
    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    pct: float  # warps_per_sm over max_warps_per_sm, in percent
    error: str = ""  # "" or the driver's refusal (then blocks_per_sm is 0)


def occupancy(
    block_threads: int, dynamic_shared: int, blocks_per_sm: int, limits: Limits, error: str = ""
) -> Occupancy:
    """The record for ``blocks_per_sm`` resident blocks of ``block_threads`` threads."""
    warp = limits.warp_size if limits.warp_size > 0 else 32
    warps = blocks_per_sm * -(-block_threads // warp)
    max_warps = limits.max_threads_per_sm // warp if limits.max_threads_per_sm > 0 else 0
    pct = 100.0 * warps / max_warps if max_warps > 0 else 0.0
    return Occupancy(block_threads, dynamic_shared, blocks_per_sm, warps, max_warps, pct, error)


@dataclass(frozen=True)
class Outcome:
    """What the driver returned for an observed launch (a ``kind: observe`` row)."""

    launched: bool  # cuLaunchKernel returned CUDA_SUCCESS
    error_name: str  # the refusal's name, e.g. "CUDA_ERROR_INVALID_VALUE"; after a launch, the first error
    # reported when synchronizing on it; "" when there was none
    error_string: str  # the driver's string for it, e.g. "invalid argument"; "" when there was none
    max_dynamic_shared_set: int | None = None  # the opt-in applied before the launch (None: none asked)
    opt_in_error: str = ""  # "" or the driver's refusal of that opt-in
