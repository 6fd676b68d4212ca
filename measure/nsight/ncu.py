"""Nsight Compute's side of the counter pass, as pure functions: the ``ncu`` command line, its CSV, the
probe's manifest, and the mapping of profiled launches to result rows.

The counter pass runs ONE ``ncu`` process over ``python -m measure probe``, which launches every kernel
row of the chosen experiments once, in a declared order, and appends one manifest line per launch
after it returned. ncu writes its CSV (``--csv``, the default "details" page: one line per launch and
metric, columns ``"ID","Process ID","Process Name","Host Name","Kernel Name",...,"Metric Name",
"Metric Unit","Metric Value"``) to ``--log-file``. A launch is matched to its row by position AND by
function name; any difference refuses the whole mapping (:class:`CounterError`): a counter is never
assigned to a row it was not measured on.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

#: ncu settings, and why: clocks left as the timed run has them (``--clock-control none``: ncu would
#: otherwise lock them to base, which the timed rows never run at), caches flushed before every replay
#: pass so each pass sees the cold L2 the timed samples see, values in base units (bytes, ns, Hz).
NCU_OPTIONS = ("--clock-control", "none", "--cache-control", "all", "--csv", "--print-units", "base")

Key = tuple[str, str, str]  # (experiment, kernel id, size label)


class CounterError(ValueError):
    """The counter pass cannot assign counters to rows; the message says why."""


@dataclass(frozen=True)
class ManifestEntry:
    """One launch the probe made, in order."""

    experiment: str
    kernel: str
    size: str
    function: str

    @property
    def key(self) -> Key:
        return (self.experiment, self.kernel, self.size)


@dataclass(frozen=True)
class Profiled:
    """One launch as ncu reported it."""

    id: str
    kernel_name: str
    metrics: dict[str, float]  # every value that reads as a number
    unreadable: dict[str, str]  # metric -> the text ncu printed instead of a number (e.g. "n/a")


def command(
    ncu: str, metrics: Sequence[str], functions: Iterable[str], log_file: str, probe: Sequence[str]
) -> list[str]:
    """The ncu argv: only the named functions are profiled (``--kernel-name regex:``), output to ``log_file``."""
    names = sorted(set(functions))
    pattern = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    return [
        ncu,
        *NCU_OPTIONS,
        "--metrics",
        ",".join(metrics),
        "--kernel-name",
        f"regex:{pattern}",
        "--log-file",
        log_file,
        *probe,
    ]


def version(text: str) -> str:
    """``ncu --version`` output -> e.g. ``2025.3.1.0``; "unknown" when no version is in it."""
    m = re.search(r"Version\s+([0-9][0-9.]*)", text)
    return m.group(1) if m else "unknown"


# --- the manifest ------------------------------------------------------------------------------------


def manifest_line(entry: ManifestEntry) -> str:
    return json.dumps(asdict(entry), sort_keys=True) + "\n"


def read_manifest(text: str) -> list[ManifestEntry]:
    """JSON lines, one per launch. A last line cut short (the probe was killed while writing) is dropped;
    any other line that does not parse is an error."""
    lines = text.splitlines()
    out: list[ManifestEntry] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            out.append(ManifestEntry(**{k: str(data[k]) for k in ("experiment", "kernel", "size", "function")}))
        except (ValueError, KeyError, TypeError) as exc:
            if i == len(lines) and not text.endswith("\n"):
                break
            raise CounterError(f"the probe's manifest line {i} does not read ({exc})") from exc
    return out


# --- the CSV -----------------------------------------------------------------------------------------

_REQUIRED = ("ID", "Kernel Name", "Metric Name", "Metric Value")
_GROUPED = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d*)?$")


def number(text: str) -> float | None:
    """A metric value as ncu prints it ("1234", "1,234,567", "87.5", "1.2e+09"); None if not a number."""
    t = text.strip()
    if _GROUPED.match(t):
        t = t.replace(",", "")
    try:
        v = float(t)
    except ValueError:
        return None
    return v if v == v and v not in (float("inf"), float("-inf")) else None


def parse_csv(text: str) -> list[Profiled]:
    """Every profiled launch in ncu's CSV, in the order ncu lists them (by ID's first appearance).
    Lines before the header (``==PROF==`` notes) and after it that are not CSV records are skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise CounterError("ncu's output has no CSV header (a line starting with \"ID\")")
    header = next(csv.reader([lines[start]]))
    absent = [c for c in _REQUIRED if c not in header]
    if absent:
        raise CounterError(f"ncu's CSV header lacks the column(s) {', '.join(absent)}")
    col = {name: header.index(name) for name in _REQUIRED}
    records = [line for line in lines[start + 1 :] if line.startswith('"')]
    launches: dict[str, Profiled] = {}
    for n, fields in enumerate(csv.reader(io.StringIO("\n".join(records))), 1):
        if len(fields) != len(header):
            raise CounterError(f"ncu's CSV record {n} has {len(fields)} fields, the header {len(header)}")
        lid, name = fields[col["ID"]], fields[col["Kernel Name"]]
        metric, raw = fields[col["Metric Name"]], fields[col["Metric Value"]]
        launch = launches.setdefault(lid, Profiled(lid, name, {}, {}))
        if launch.kernel_name != name:
            raise CounterError(f"ncu's CSV gives launch ID {lid} two kernel names, '{launch.kernel_name}' and '{name}'")
        value = number(raw)
        if value is None:
            launch.unreadable[metric] = raw
        else:
            launch.metrics[metric] = value
    return list(launches.values())


def base_name(kernel_name: str) -> str:
    """``void transpose_naive(float *, const float *, int, int)`` -> ``transpose_naive``."""
    name = kernel_name.split("(", 1)[0].strip()
    return name.removeprefix("void ").strip()


def assign(manifest: Sequence[ManifestEntry], launches: Sequence[Profiled]) -> dict[Key, dict[str, float]]:
    """Each launch's metrics for its row, matched by position and function name; refuses on any mismatch."""
    if len(manifest) != len(launches):
        raise CounterError(
            f"ncu profiled {len(launches)} launch(es) but the probe made {len(manifest)}; no counters were assigned"
        )
    out: dict[Key, dict[str, float]] = {}
    for i, (entry, launch) in enumerate(zip(manifest, launches, strict=True), 1):
        if base_name(launch.kernel_name) != entry.function:
            raise CounterError(
                f"launch {i}: ncu profiled '{launch.kernel_name}' but the probe launched '{entry.function}' for "
                f"{entry.experiment} '{entry.kernel}' at {entry.size}; no counters were assigned"
            )
        if entry.key in out:
            raise CounterError(
                f"launch {i}: the probe launched {entry.experiment} '{entry.kernel}' at {entry.size} twice; "
                "no counters were assigned"
            )
        out[entry.key] = dict(launch.metrics)
    return out
