"""Before a node run: ask ncu once for every extra metric the chosen experiments declare (one launch of
a ceilings kernel), and print the experiment ids whose metrics this ncu knows.

One unknown metric name makes ncu refuse the whole counter pass (every result of the run would then be
incomplete), so an experiment naming one is left out of the run, and the names are printed on stderr.

    python3 measure/node/metric_check.py NODE ID... > ids.txt
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from measure.experiment.spec import load_specs


def main(argv: list[str]) -> int:
    node, ids = argv[0], argv[1:]
    declared, _ = load_specs(Path("."))
    extras = {i: sorted({m for k in declared[i].experiment.kernels for m in k.counters}) for i in ids}
    wanted = sorted({m for ms in extras.values() for m in ms})
    bad: set[str] = set()
    if wanted:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [
                "ncu",
                "--clock-control",
                "none",
                "--launch-count",
                "1",
                "--metrics",
                ",".join(wanted),
                sys.executable,
                "-m",
                "measure",
                "probe",
                "ceilings-fp32",
                "--node",
                node,
                "--manifest",
                f"{tmp}/m.jsonl",
            ]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
                out = p.stdout + p.stderr
            except (subprocess.TimeoutExpired, OSError) as exc:
                out = ""
                print(f"metric check: ncu did not answer ({exc}); keeping every experiment", file=sys.stderr)
        for line in out.splitlines():
            if any(w in line for w in ("ERROR", "Error", "Failed", "failed", "not found", "invalid", "Invalid")):
                bad |= {m for m in wanted if m.split(".")[0] in line}
        if bad or "==ERROR==" in out:
            print(out[-3000:], file=sys.stderr)
    keep = [i for i in ids if not set(extras[i]) & bad]
    print(
        f"metric check: {len(wanted)} extra metrics; refused: {sorted(bad) or 'none'}; "
        f"left out: {sorted(set(ids) - set(keep)) or 'none'}",
        file=sys.stderr,
    )
    print(" ".join(keep))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
