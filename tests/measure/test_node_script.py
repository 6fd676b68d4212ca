"""measure/node/run.sh, mode ``all``, against fakes of python3 (pip, the runner) and nvidia-smi: the
stages, their time limits, the repeat run only when time is left, and the archives packed so that a run
stopped at its limit still returns the experiments that finished."""

from __future__ import annotations

import os
import stat
import subprocess
import tarfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "measure" / "node" / "run.sh"

# A fake python3: pip makes the site, -c prints versions, `-m measure run` writes one result per
# "experiment" (every 0.2 s) into --out/<node>/, MAIN_EXPERIMENTS of them, and logs its argv.
FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then mkdir -p "$SITE/pycuda"; echo "pip $*" >> "$LOG_ARGS"; exit 0; fi
if [ "$1" = "-c" ]; then echo "3.12 numpy x pycuda y"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "measure" ] && [ "$3" = "mine" ]; then
  echo "measure $*" >> "$LOG_ARGS"; mkdir -p measure/local/local-gpu; echo "{}" > measure/local/local-gpu/toy.json
  echo "toy on your GPU beside our verification nodes:"; exit 0
fi
if [ "$1" = "-m" ] && [ "$2" = "measure" ]; then
  echo "measure $*" >> "$LOG_ARGS"
  out=""; prev=""; n=$MAIN_EXPERIMENTS
  for a in "$@"; do [ "$prev" = "--out" ] && out=$a; [ "$a" = "--no-counters" ] && n=2; prev=$a; done
  mkdir -p "$out/h200-1"
  for i in $(seq 1 "$n"); do sleep 0.2; echo "{\\"n\\": $i}" > "$out/h200-1/exp$i.json"; echo "wrote exp$i"; done
  exit 0
fi
exit 3
"""


@pytest.fixture
def fake(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("python3", FAKE_PYTHON), ("nvidia-smi", "#!/usr/bin/env bash\necho fake-smi\n")):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755 | stat.S_IXUSR)
    node = tmp_path / "repo" / ".node"
    node.mkdir(parents=True)
    (node / "pycuda-2026.1-cp312-cp312-linux_x86_64.whl").write_text("")
    return {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "SITE": str(tmp_path / "site"),
        "OUT": str(tmp_path / "out"),
        "WORK": str(tmp_path / "work"),
        "LOG_ARGS": str(tmp_path / "argv.log"),
        "MAIN_EXPERIMENTS": "3",
        "MEASURE_ARGS": "--min-time 0.2 --time-limit 1.0",
        "RESERVE": "1",
        "NODE": "h200-1",  # named: the fake nvidia-smi reports no GPU model for NODE=auto to look up
    }


def run(fake: dict[str, str], tmp_path: Path, mode: str = "all", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), mode],
        cwd=tmp_path / "repo",
        env={**os.environ, **fake, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def members(path: Path) -> list[str]:
    with tarfile.open(path) as tar:
        return sorted(tar.getnames())


def test_all_runs_the_suite_with_counters_then_a_timing_only_repeat(fake: dict[str, str], tmp_path: Path) -> None:
    proc = run(fake, tmp_path, DEADLINE="60", REPEAT_MIN="5")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = tmp_path / "out"
    assert members(out / "results.tar.gz") == ["h200-1", "h200-1/exp1.json", "h200-1/exp2.json", "h200-1/exp3.json"]
    assert members(out / "repeat.tar.gz") == ["h200-1", "h200-1/exp1.json", "h200-1/exp2.json"]
    argv = (tmp_path / "argv.log").read_text().splitlines()
    assert argv[0].startswith("pip -m pip install -q --no-index --no-deps --no-compile --target")
    main, repeat = argv[1], argv[2]
    assert "--min-time 0.2 --time-limit 1.0 --ncu-log " + str(out / "ncu.log") in main
    assert main.endswith("--ncu-log " + str(out / "ncu.log")) and "--no-counters" not in main
    assert repeat.endswith("--min-time 0.2 --time-limit 1.0 --no-counters")
    assert "wrote exp3" in (out / "run.log").read_text() and "wrote exp2" in (out / "repeat.log").read_text()


def test_no_repeat_when_the_deadline_leaves_too_little(fake: dict[str, str], tmp_path: Path) -> None:
    proc = run(fake, tmp_path, DEADLINE="20", REPEAT_MIN="30")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "out" / "repeat.tar.gz").exists()
    assert "== repeat: skipped" in (tmp_path / "out" / "repeat.log").read_text()


def test_a_run_stopped_at_the_deadline_still_returns_what_finished(fake: dict[str, str], tmp_path: Path) -> None:
    # 60 experiments at 0.2 s each cannot finish in a 4 s deadline: timeout stops the run, the archive
    # holds the experiments written before that, and the script ends in time.
    proc = run(fake, tmp_path, DEADLINE="4", REPEAT_MIN="30", MAIN_EXPERIMENTS="60", MIN_STAGE="1")
    assert proc.returncode == 124, proc.stdout + proc.stderr
    got = members(tmp_path / "out" / "results.tar.gz")
    assert 2 <= len(got) - 1 < 60
    assert "== main: stopped by its time limit" in (tmp_path / "out" / "run.log").read_text()


def test_a_runner_with_pycuda_installed_skips_the_set_up(fake: dict[str, str], tmp_path: Path) -> None:
    """SETUP=installed (the CI workflow, after `pip install -e '.[node]'`): no pip from .node/, same stages."""
    proc = run(fake, tmp_path, DEADLINE="60", REPEAT_MIN="5", SETUP="installed")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    argv = (tmp_path / "argv.log").read_text().splitlines()
    assert [a.split()[0] for a in argv] == ["measure", "measure"]
    assert members(tmp_path / "out" / "results.tar.gz")[0] == "h200-1"


def test_mine_runs_the_readers_command_on_the_node(fake: dict[str, str], tmp_path: Path) -> None:
    """`run.sh mine`: gloss measure mine as a reader types it (no node lookup), its results packed for $OUT."""
    env = {k: v for k, v in fake.items() if k != "NODE"}
    proc = run(env, tmp_path, "mine", MINE_IDS="toy copy-ceilings", SETUP="installed")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    argv = (tmp_path / "argv.log").read_text().splitlines()
    assert argv == ["measure -m measure mine toy copy-ceilings --min-time 0.2 --time-limit 1.0"]
    assert members(tmp_path / "out" / "mine.tar.gz") == [".", "./local-gpu", "./local-gpu/toy.json"]
    assert "beside our verification nodes" in (tmp_path / "out" / "mine.log").read_text()
