"""The counter pass of ``gloss measure run``: one ``ncu`` process over the probe, before any timing.

:func:`collect` finds ncu, asks its version, runs ``ncu ... python -m measure probe ...`` under a time
limit (the whole process group is killed past it), then parses the CSV and the probe's manifest and
assigns each launch's metrics to its row (:mod:`measure.nsight.ncu`). It never raises for a pass that went
wrong: it returns the reason in :attr:`CounterPass.error <measure.store.results.CounterPass>`, which makes
every result of the run ``incomplete`` (never silently without counters). Needs no PyCUDA itself.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from measure.experiment.spec import Declared
from measure.nsight import counters as C
from measure.nsight import ncu
from measure.store.resultformat import CounterPass, Result, Row


@dataclass(frozen=True)
class Settings:
    """``gloss measure run``'s counter options (``--no-counters``, ``--ncu``, ``--counter-time-limit``,
    ``--ncu-log``)."""

    enabled: bool = True
    ncu: str | None = None
    time_limit_s: float = 120.0
    log_file: Path | None = None


@dataclass(frozen=True)
class Outcome:
    info: CounterPass
    counters: dict[ncu.Key, dict[str, float]] = field(default_factory=dict)

    def for_row(self, experiment: str, kernel: str, size: str) -> dict[str, float] | None:
        return self.counters.get((experiment, kernel, size))


def plan(chosen: Sequence[Declared], arch: str) -> tuple[list[str], list[str]]:
    """The metrics to ask for (the arch's default set and every chosen spec's extras) and the functions
    the probe launches."""
    metrics = C.metrics_for(arch, [m for d in chosen for m in C.extras_of(d.experiment.kernels).values()])
    functions = [k.function for d in chosen for k in d.experiment.kernels if k.kind == "kernel" and k.function]
    return metrics, functions


def attach(result: Result, outcome: Outcome | None, is_ceilings: bool) -> Result:
    """The result with its kernel rows' counters and the pass's record (unchanged without a pass). The
    ceilings experiment's rows are also its ceilings; other results carry the ceilings' own counters."""
    if outcome is None:
        return result

    def fill(r: Row) -> Row:  # a ceiling row names its own experiment (there may be several)
        exp = r.experiment or result.experiment
        return replace(r, counters=outcome.for_row(exp, r.kernel, r.size)) if r.kind == "kernel" else r

    ceilings = [fill(r) for r in result.ceilings] if is_ceilings else result.ceilings
    return replace(result, rows=[fill(r) for r in result.rows], ceilings=ceilings, counter_pass=outcome.info)


def find_ncu(given: str | None) -> str | None:
    if given:
        return given if Path(given).is_file() else shutil.which(given)
    return shutil.which("ncu") or next(
        (p for p in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu") if Path(p).is_file()), None
    )


def probe_command(root: Path, node: str, manifest: Path, ids: Sequence[str], python: str = sys.executable) -> list[str]:
    return [python, "-m", "measure", "--root", str(root), "probe", "--node", node, "--manifest", str(manifest), *ids]


def _tail(path: Path, n: int = 3) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    errors = [ln for ln in lines if ln.startswith("==ERROR==")]
    return " | ".join((errors or lines)[-n:])[:400]


def collect(
    root: Path,
    node: str,
    ids: Sequence[str],
    metrics: Sequence[str],
    functions: Sequence[str],
    *,
    ncu_path: str | None = None,
    time_limit_s: float = 120.0,
    log_file: Path | None = None,
    python: str = sys.executable,
) -> Outcome:
    """Counters for every kernel row of ``ids`` (in that order, as the probe launches them)."""
    exe = find_ncu(ncu_path)
    if exe is None:
        return Outcome(CounterPass("unknown", [], list(metrics), "ncu is not on PATH (Nsight Compute)"))
    if not metrics:
        return Outcome(CounterPass("unknown", [], [], "no metrics to collect for this architecture"))
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
        ncu_version = ncu.version(out.stdout + out.stderr)
    except (OSError, subprocess.SubprocessError):
        ncu_version = "unknown"
    with tempfile.TemporaryDirectory(prefix="gloss-counters-") as tmp:
        log = log_file or Path(tmp) / "ncu.log"
        manifest = Path(tmp) / "manifest.jsonl"
        argv = ncu.command(exe, metrics, functions, str(log), probe_command(root, node, manifest, ids, python))
        info = CounterPass(ncu_version, argv, list(metrics), "")
        env = {**os.environ, "LC_ALL": "C", "PYTHONUNBUFFERED": "1"}
        console = Path(tmp) / "console.txt"  # ncu's and the probe's own output
        try:
            with console.open("w", encoding="utf-8") as sink:
                proc = subprocess.Popen(
                    argv, cwd=root, env=env, start_new_session=True, stdout=sink, stderr=subprocess.STDOUT
                )
        except OSError as exc:
            return Outcome(_failed(info, f"ncu did not start ({exc})"))
        try:
            rc = proc.wait(timeout=time_limit_s)
        except subprocess.TimeoutExpired:
            return Outcome(_failed(info, f"ncu did not finish within {time_limit_s:g} s"))
        finally:  # past the limit, or this process is being stopped (SIGTERM): never leave ncu running
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            said = console.read_text(encoding="utf-8", errors="replace") if console.is_file() else ""
            print(said, end="" if said.endswith("\n") or not said else "\n", flush=True)
        try:
            text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
            if '"ID"' not in text and '"ID"' in said:  # the CSV went to ncu's console, not its log file
                text += said
                log.write_text(text, encoding="utf-8")
            entries = ncu.read_manifest(manifest.read_text(encoding="utf-8") if manifest.is_file() else "")
            counters = ncu.assign(entries, ncu.parse_csv(text))
        except (OSError, ncu.CounterError) as exc:
            why = f"{exc}" + (f"; ncu exited with {rc}: {_tail(log)}" if rc != 0 else "")
            return Outcome(_failed(info, why))
        if rc != 0:  # what was mapped is real; rows the probe never reached stay without counters
            print(f"counter pass: ncu exited with {rc} after {len(entries)} launch(es): {_tail(log)}", flush=True)
        return Outcome(info, counters)


def _failed(info: CounterPass, why: str) -> CounterPass:
    return CounterPass(info.ncu_version, info.command, info.metrics, why[:500])
