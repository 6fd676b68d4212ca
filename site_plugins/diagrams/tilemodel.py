"""The tile-lifecycle model: one thread block transposing one tile through shared memory.

Pure arithmetic, no drawing: which shared-memory bank each tile cell lives in, which banks a warp's
32 lanes touch in each phase and how many ways they conflict, which elements the bounds guards skip in
an edge tile, and the sentence a reader (or a screen reader) gets for each step. The SVG
(:mod:`site_plugins.diagrams.figure`) and the page script draw from these numbers; nothing is drawn by hand.

Conventions (those of ``code/day13-shared-memory/transpose.cu``): the tile is ``float
tile[tile][tile + pad]``, 4-byte words, 32 banks. The block has ``tile × block_y`` threads
(``blockDim.x`` is the tile's side, ``blockDim.y`` the code's ``ROWS_PER_PASS``), so each thread handles
``tile / block_y`` rows, one per pass: in pass ``p`` thread (tx, ty) loads ``tile[ty + p·block_y][tx]``
and later reads ``tile[tx][ty + p·block_y]`` for its store. Thread (tx, ty) has linear id
``ty * tile + tx`` and warps are 32 consecutive ids. Each block transposes one tile, so one barrier
separates the loads from the reads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

BANKS = 32
WARP = 32
STEPS = ("load", "barrier", "store")
TILE_SIZES = (8, 16, 32)
BLOCK_Y = 8  # transpose.cu's ROWS_PER_PASS (blockDim.y)


def article(n: int) -> str:
    """"a" or "an" before the number ``n`` as it is read aloud: an 8, an 11, an 18, an 80, an 800, an
    11,000, an 18,000,000; a 1, a 16, a 32, a 100."""
    lead = abs(n)
    while lead >= 1000:  # the group read first: 18,000 is "eighteen thousand"
        lead //= 1000
    return "an" if lead in (11, 18) or str(lead).startswith("8") else "a"


@dataclass(frozen=True)
class TileState:
    tile: int = 32
    pad: int = 0
    step: int = 0  # index into STEPS
    cut_x: int = 0  # columns of the tile past the matrix's right edge (an edge tile when > 0)
    cut_y: int = 0  # rows of the tile past the matrix's bottom edge
    guard_barrier: bool = False  # the bounds guard wraps the barrier too (the bug)
    block_y: int = BLOCK_Y  # threads per block in y; the block is tile × block_y threads

    @property
    def width(self) -> int:  # tile row length in words, padding included
        return self.tile + self.pad

    @property
    def valid_x(self) -> int:
        return max(1, self.tile - self.cut_x)

    @property
    def valid_y(self) -> int:
        return max(1, self.tile - self.cut_y)

    @property
    def block(self) -> tuple[int, int]:
        """(blockDim.x, blockDim.y): a block never has more rows of threads than the tile has rows."""
        return self.tile, min(self.block_y, self.tile)

    @property
    def rows_per_thread(self) -> int:
        return self.tile // self.block[1]

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1]


def barriers() -> int:
    return STEPS.count("barrier")


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
    bx = state.block[0]
    ids = range(warp * WARP, min(state.threads, (warp + 1) * WARP))
    return [(i % bx, i // bx) for i in ids]


def load_on(state: TileState, tx: int, row: int) -> bool:
    """Whether the load guard lets the thread in column ``tx`` copy tile row ``row``: the element lies
    inside the matrix."""
    return tx < state.valid_x and row < state.valid_y


def store_on(state: TileState, tx: int, row: int) -> bool:
    """Whether the store guard lets the thread in column ``tx`` write output row ``row`` (and so read
    ``tile[tx][row]``): the output tile is the transpose, so the roles of the two edges swap."""
    return row < state.valid_x and tx < state.valid_y


@dataclass(frozen=True)
class Access:
    """One warp's shared-memory access in one pass of one phase."""

    cells: tuple[tuple[int, int], ...]  # (row, col) of the tile, lane order
    banks: tuple[int, ...]  # lane order
    ways: int


def warp_access(state: TileState, warp: int = 0, pass_: int = 0) -> Access | None:
    """Warp ``warp``'s shared-memory access in pass ``pass_`` of the current step (None at a barrier):
    the load writes ``tile[ty + p·block_y][tx]``, the store reads ``tile[tx][ty + p·block_y]`` (inside the
    store guard, as in the code)."""
    name = STEPS[state.step]
    by = state.block[1]
    rows = [(tx, ty + pass_ * by) for tx, ty in warp_threads(state, warp)]
    if name == "load":
        cells = tuple((r, tx) for tx, r in rows if load_on(state, tx, r))
    elif name == "store":
        cells = tuple((tx, r) for tx, r in rows if store_on(state, tx, r))
    else:
        return None
    banks = tuple(bank(state, r, c) for r, c in cells)
    return Access(cells, banks, ways(r * state.width + c for r, c in cells))


def warp_passes(state: TileState, warp: int = 0) -> list[Access]:
    """The warp's access in every pass of the current step (empty at a barrier)."""
    out = [warp_access(state, warp, p) for p in range(state.rows_per_thread)]
    return [a for a in out if a is not None]


def skipped(state: TileState) -> int:
    """Elements of the tile that the guards skip (past the matrix's edge; the same count at the load and,
    transposed, at the store)."""
    return state.tile * state.tile - state.valid_x * state.valid_y


def absent_threads(state: TileState) -> int:
    """Threads with no element to load at all (column past the edge, or even their first row past it):
    the ones an early return, or a guard around the barrier, keeps from the barrier."""
    bx, by = state.block
    return sum(1 for ty in range(by) for tx in range(bx) if not load_on(state, tx, ty))


def summary(state: TileState) -> str:
    """The figure's numbers, stated on it: block shape, rows per thread, barriers per tile."""
    bx, by = state.block
    rpt, n = state.rows_per_thread, barriers()
    return (f"block {bx}×{by} threads, {rpt} row{'s' if rpt != 1 else ''} each, "
            f"{n} barrier{'s' if n != 1 else ''} per tile")


def _lanes_text(acc: Access) -> str:
    distinct = len(set(acc.banks))
    n = len(acc.banks)
    if acc.ways == 1:
        return f"its {n} lanes hit {distinct} different banks: no conflict"
    busiest = Counter(acc.banks).most_common(1)[0][0]
    return (f"its {n} lanes hit only {distinct} bank{'s' if distinct != 1 else ''} "
            f"(bank {busiest} serves {acc.ways} of them): {article(acc.ways)} {acc.ways}-way conflict, the "
            f"access takes {acc.ways} wavefronts instead of 1")


def _passes_text(state: TileState) -> str:
    rpt, by = state.rows_per_thread, state.block[1]
    return "in one pass" if rpt == 1 else f"in {rpt} passes, {by} rows apart"


def _worst(state: TileState) -> str:
    accs = warp_passes(state)
    if not accs:
        return ""
    head = "warp 0" if len(accs) == 1 else "warp 0 in its first pass"
    text = f"{head}: {_lanes_text(accs[0])}"
    others = {a.ways for a in accs[1:]}
    if others and others != {accs[0].ways}:
        text += f" (its other passes: {', '.join(f'{w}-way' if w > 1 else 'no conflict' for w in sorted(others))})"
    elif others:
        text += ", and the same in every pass"
    return text


def describe(state: TileState) -> str:
    """The step's sentence, as shown under the figure and announced to screen readers."""
    t, name = state.tile, STEPS[state.step]
    bx, by = state.block
    head = f"Step {state.step + 1} of {len(STEPS)}, {name}: "
    decl = f"tile[{t}][{state.width}]"
    per_warp = max(1, WARP // bx)
    rows = "one row" if per_warp == 1 else f"{per_warp} rows"
    row, when = ("ty", "") if state.rows_per_thread == 1 else (f"ty + {by}p", " in pass p")
    if name == "load":
        text = (f"the {bx}×{by} threads copy the input tile into {decl} {_passes_text(state)}; thread (tx, ty) "
                f"copies in[y][x] into tile[{row}][tx]{when}, so each warp reads {rows} of the input "
                f"(coalesced) and writes {rows} of the tile; {_worst(state)}.")
        off = skipped(state)
        if off:
            text += (f" The load guard skips the {off} elements past the matrix edge (columns {state.valid_x} and "
                     f"up, rows {state.valid_y} and up of this edge tile).")
    elif name == "barrier":
        n = barriers()
        text = (f"__syncthreads() holds every thread of the block until all loads have landed in the tile; "
                f"{'it is the only barrier' if n == 1 else f'one of {n} barriers'}: each block transposes one "
                "tile and never refills it.")
        gone = absent_threads(state)
        if state.guard_barrier and gone:
            text += (f" But here the bounds guard encloses the barrier: the {gone} threads with nothing to load "
                     "never reach it, so the block hangs or the others go on and read tile cells nobody wrote.")
    else:
        text = (f"thread (tx, ty) reads tile[tx][{row}] of {decl}{when} and writes it to the output, so a "
                f"warp walks down a column of the tile and writes a row of the output (coalesced); "
                f"{_worst(state)}.")
        off = skipped(state)
        if off:
            text += (f" The store guard skips the {off} elements whose transposed position lies past the edge "
                     f"(rows {state.valid_x} and up, columns {state.valid_y} and up of the output tile).")
        if state.guard_barrier and absent_threads(state):
            text += " Cells that no thread loaded hold garbage, and the threads reading them write it out."
    return head + text
