"""The tile-lifecycle model: one thread block transposing one tile through shared memory.

Pure arithmetic, no drawing: which shared-memory bank each tile cell lives in, which banks a warp's
32 lanes touch in each phase and how many ways they conflict, which threads the bounds guards switch
off in an edge tile, and the sentence a reader (or a screen reader) gets for each step. The SVG
(:mod:`site_plugins.diagrams`) and the page script draw from these numbers; nothing is drawn by hand.

Conventions (those of ``code/day13-shared-memory/transpose.cu``): the block has ``tile × tile``
threads, thread (tx, ty) has linear id ``ty * tile + tx`` and warps are 32 consecutive ids; the tile
is ``float tile[tile][tile + pad]``, 4-byte words, 32 banks; the load writes ``tile[ty][tx]``, the
read-out reads ``tile[tx][ty]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

BANKS = 32
WARP = 32
STEPS = ("load", "barrier", "compute", "barrier", "store")
TILE_SIZES = (8, 16, 32)


@dataclass(frozen=True)
class TileState:
    tile: int = 32
    pad: int = 0
    step: int = 0  # index into STEPS
    cut_x: int = 0  # columns of the tile past the matrix's right edge (an edge tile when > 0)
    cut_y: int = 0  # rows of the tile past the matrix's bottom edge
    guard_barrier: bool = False  # the bounds guard wraps the barrier too (the bug)

    @property
    def width(self) -> int:  # tile row length in words, padding included
        return self.tile + self.pad

    @property
    def valid_x(self) -> int:
        return max(1, self.tile - self.cut_x)

    @property
    def valid_y(self) -> int:
        return max(1, self.tile - self.cut_y)


def bank(state: TileState, row: int, col: int) -> int:
    """The bank of ``tile[row][col]``."""
    return (row * state.width + col) % BANKS


def ways(addresses: Iterable[int]) -> int:
    """Conflict degree of one warp access: the most distinct words any one bank must serve (1 = none;
    lanes reading the same word share one broadcast)."""
    per_bank = Counter(a % BANKS for a in set(addresses))
    return max(per_bank.values(), default=1)


def warp_threads(state: TileState, warp: int = 0) -> list[tuple[int, int]]:
    """(tx, ty) of each lane of a warp, lane order."""
    n = state.tile * state.tile
    ids = range(warp * WARP, min(n, (warp + 1) * WARP))
    return [(i % state.tile, i // state.tile) for i in ids]


def load_on(state: TileState, tx: int, ty: int) -> bool:
    """Whether the load guard lets thread (tx, ty) read the input: its element lies inside the matrix."""
    return tx < state.valid_x and ty < state.valid_y


def store_on(state: TileState, tx: int, ty: int) -> bool:
    """Whether the store guard lets thread (tx, ty) write: the output tile is the transpose, so the
    roles of the two edges swap."""
    return tx < state.valid_y and ty < state.valid_x


@dataclass(frozen=True)
class Access:
    """One warp's shared-memory access in one phase."""

    cells: tuple[tuple[int, int], ...]  # (row, col) of the tile, lane order
    banks: tuple[int, ...]  # lane order
    ways: int


def warp_access(state: TileState, warp: int = 0) -> Access | None:
    """Warp ``warp``'s shared-memory access in the current step (None in a barrier step)."""
    name = STEPS[state.step]
    threads = warp_threads(state, warp)
    if name == "load":
        cells = tuple((ty, tx) for tx, ty in threads if load_on(state, tx, ty))
    elif name in ("compute", "store"):
        on = store_on if name == "store" else (lambda s, x, y: True)
        cells = tuple((tx, ty) for tx, ty in threads if on(state, tx, ty))
    else:
        return None
    banks = tuple(bank(state, r, c) for r, c in cells)
    return Access(cells, banks, ways(r * state.width + c for r, c in cells))


def switched_off(state: TileState, phase: str) -> int:
    on = load_on if phase == "load" else store_on
    t = state.tile
    return sum(1 for ty in range(t) for tx in range(t) if not on(state, tx, ty))


def _lanes_text(acc: Access) -> str:
    distinct = len(set(acc.banks))
    n = len(acc.banks)
    if acc.ways == 1:
        return f"warp 0's {n} lanes hit {distinct} different banks: no conflict"
    busiest = Counter(acc.banks).most_common(1)[0][0]
    return (f"warp 0's {n} lanes hit only {distinct} bank{'s' if distinct != 1 else ''} "
            f"(bank {busiest} serves {acc.ways} of them): a {acc.ways}-way conflict, the access is replayed "
            f"{acc.ways} times")


def describe(state: TileState) -> str:
    """The step's sentence, as shown under the figure and announced to screen readers."""
    t, name = state.tile, STEPS[state.step]
    head = f"Step {state.step + 1} of {len(STEPS)}, {name}: "
    acc = warp_access(state)
    decl = f"tile[{t}][{state.width}]"
    if name == "load":
        text = (f"every row of the tile arrives at once; thread (tx, ty) copies in[y][x] into {decl}[ty][tx], "
                f"so a warp reads a row of the input (coalesced) and writes a row of the tile; "
                f"{_lanes_text(acc)}." if acc else "")
        off = switched_off(state, "load")
        if off:
            text += (f" The load guard switches off {off} threads whose element lies past the matrix edge "
                     f"(columns {state.valid_x} and up, rows {state.valid_y} and up of this edge tile).")
    elif name == "barrier":
        first = state.step == 1
        text = ("__syncthreads() holds every thread of the block until all loads have landed in the tile."
                if first else
                "the second __syncthreads() keeps the tile intact until every thread has read its element; "
                "a loop over tiles would overwrite it next.")
        off = switched_off(state, "load")
        if state.guard_barrier and off:
            text += (f" But here the bounds guard encloses the barrier: the {off} switched-off threads never reach "
                     "it, so the block hangs or the others go on and read tile cells nobody wrote.")
    elif name == "compute":
        text = (f"thread (tx, ty) reads {decl}[tx][ty], so a warp walks down a column of the tile; "
                f"{_lanes_text(acc)}." if acc else "")
    else:
        text = (f"the column each warp read is written as a row of the output, so the global stores coalesce; "
                f"{_lanes_text(acc)}." if acc else "")
        off = switched_off(state, "store")
        if off:
            text += (f" The store guard switches off {off} threads whose transposed element lies past the edge "
                     f"(rows {state.valid_x} and up, columns {state.valid_y} and up of the output tile).")
        if state.guard_barrier and switched_off(state, "load"):
            text += " Cells that no thread loaded hold garbage, and the threads reading them write it out."
    return head + text
