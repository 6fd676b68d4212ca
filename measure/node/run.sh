#!/usr/bin/env bash
# One device call = one command: set up PyCUDA (once per machine), then all | smoke | full | full2 | tests.
#
#   GLOSS_COMMIT=<sha> GLOSS_DIRTY=0|1 [DEADLINE=160] [MEASURE_ARGS="--min-time 0.2 --time-limit 1.0"] \
#       [REPEAT_ARGS="..." (the repeat run's settings; default MEASURE_ARGS)] \
#       bash measure/node/run.sh all|repeat|smoke|full|full2|tests
#
# <sha>: the 40-hex sha of the commit that holds the sources, from `git rev-parse HEAD` on YOUR machine
# after committing, pasted literally into the command (never `$(git rev-parse HEAD)` evaluated here on
# the node): the node's copy of .git may lag the working tree it receives, and a wrong commit makes
# `gloss measure verify` report a provenance problem.
#
# Run from the repository root on the verification node (the lent H200), with the offline PyCUDA
# wheels (or the sdist) in .node/ (see measure/README.md). Never touches the GPU's clocks or settings.
#
# all: the whole suite WITH the Nsight Compute counter pass, then, if DEADLINE (seconds since this
#   script started, default 160) leaves at least REPEAT_MIN seconds (default 45), a timing-only repeat
#   run (--no-counters). Every stage runs under `timeout` so the script ends before DEADLINE, and the
#   results are packed while the run goes, after each stage and at the end, so a kill at any moment
#   still returns what finished: $OUT/results.tar.gz (<node>/*.json of the main run),
#   $OUT/repeat.tar.gz, $OUT/run.log, $OUT/repeat.log, $OUT/ncu.log (ncu's CSV), setup.log on failure.
# smoke | full | full2 | tests: as before (results as $OUT/<node>/<experiment>.json, GPU tests).
# mine: `gloss measure mine $MINE_IDS` (a reader's command; no registered node needed), into $OUT/mine.tar.gz.
set -uo pipefail
mode=${1:?usage: run.sh all|repeat|smoke|full|full2|tests|mine}
node=${NODE:-auto}
if [ "$node" = auto ] && [ "$mode" != mine ]; then  # the registered node whose 'gpu' is the model this machine reports
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  node=$(GPU="$gpu" python3 -c 'import os, yaml; d = yaml.safe_load(open("measure/nodes.yaml"))["nodes"]; print(next((n for n, v in d.items() if v["gpu"] == os.environ["GPU"]), ""))')
  [ -n "$node" ] || { echo "no node in measure/nodes.yaml has gpu '$gpu'; register one (measure/README.md)"; exit 2; }
  echo "node: $node ($gpu)"
fi
out=${OUT:-$PWD/out}
site=${SITE:-/tmp/site}
deadline=${DEADLINE:-160}
repeat_min=${REPEAT_MIN:-45}
reserve=${RESERVE:-6}   # seconds kept for packing after the last stage
min_stage=${MIN_STAGE:-10}  # a stage with fewer seconds left is skipped
work=${WORK:-/tmp}      # the runs' result folders: $work/results, $work/repeat
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1

t0=$(date +%s)
left() { echo $(( deadline - ($(date +%s) - t0) - reserve )); }

# SETUP=installed: PyCUDA and the runner's needs are installed already (a CI runner that installed the
# node extra, .github/workflows/measure.yml); otherwise install from .node/ into $site, once per machine.
if [ "${SETUP:-wheels}" != installed ] && [ ! -d "$site/pycuda" ]; then
  {
    echo "== installing PyCUDA from .node/ into $site"
    if compgen -G ".node/pycuda-*.whl" >/dev/null; then
      python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" .node/*.whl
    else  # no prebuilt wheel: build the sdist (about two minutes)
      python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" .node/*.whl &&
      CUDA_ROOT=/usr/local/cuda python3 -m pip install -q --no-index --no-deps --no-build-isolation \
          --target "$site" .node/pycuda-*.tar.gz
    fi
  } >/tmp/setup.log 2>&1 || { cp /tmp/setup.log "$out/"; echo "PyCUDA setup failed:"; tail -30 /tmp/setup.log; exit 2; }
fi
export PYTHONPATH=$site:$PWD
echo "setup took $(( $(date +%s) - t0 )) s"
python3 -c 'import sys, numpy, yaml, rich, pycuda, pynvml; print(sys.version.split()[0], "numpy", numpy.__version__, "pycuda", pycuda.VERSION_TEXT)' || exit 2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv

run_suite() {  # $1: extra options
  # shellcheck disable=SC2086
  python3 -m measure run --node "$node" --out "$out" $1 2>&1 | tee "$out/run.log"
  return "${PIPESTATUS[0]}"
}
run_gpu_tests() {
  python3 -m pytest tests/measure -m gpu -q -p no:cacheprovider --confcutdir=tests/measure 2>&1 | tee "$out/pytest.log"
  return "${PIPESTATUS[0]}"
}
pack() {  # $1: results folder, $2: archive name in $OUT; written whole, then renamed
  [ -d "$1/$node" ] || return 0
  tar -C "$1" -czf "$out/.$2.tmp" "$node" && mv -f "$out/.$2.tmp" "$out/$2"
}
staged() {  # $1: stage name, $2: results folder, $3: archive, $4: log, $5...: measure run options
  local name=$1 dir=$2 archive=$3 log=$4; shift 4
  local limit; limit=$(left)
  if [ "$limit" -lt "$min_stage" ]; then echo "== $name: skipped, ${limit} s left before the deadline" | tee -a "$out/$log"; return 1; fi
  echo "== $name: up to ${limit} s" | tee -a "$out/$log"
  mkdir -p "$dir"
  ( while sleep 10; do pack "$dir" "$archive"; done ) >/dev/null 2>&1 &  # keep the archive current meanwhile
  local packer=$!
  # shellcheck disable=SC2086
  timeout -k 5 "$limit" python3 -m measure run --node "$node" --out "$dir" $MEASURE_ARGS "$@" 2>&1 | tee -a "$out/$log"
  local rc=${PIPESTATUS[0]}
  kill "$packer" 2>/dev/null; wait "$packer" 2>/dev/null
  pack "$dir" "$archive"
  echo "== $name: rc=$rc after $(( $(date +%s) - t0 )) s" | tee -a "$out/$log"
  [ "$rc" = 124 ] && echo "== $name: stopped by its time limit; the archive holds what finished" | tee -a "$out/$log"
  return "$rc"
}

MEASURE_ARGS=${MEASURE_ARGS:-}
rc=0
case $mode in
  all)   staged main "$work/results" results.tar.gz run.log --ncu-log "$out/ncu.log" || rc=$?
         if [ "$(left)" -ge "$repeat_min" ]; then
           MEASURE_ARGS=${REPEAT_ARGS:-$MEASURE_ARGS} staged repeat "$work/repeat" repeat.tar.gz repeat.log --no-counters || { r=$?; [ "$rc" = 0 ] && rc=$r; }
         else
           echo "== repeat: skipped, $(left) s left (needs $repeat_min)" | tee -a "$out/repeat.log"
         fi ;;
  repeat) # a timing-only run (no counters) into repeat.tar.gz, of REPEAT_IDS (default: every experiment),
         # for when the main run and its repeat do not fit one call
         # shellcheck disable=SC2086
         MEASURE_ARGS=${REPEAT_ARGS:-$MEASURE_ARGS} staged repeat "$work/repeat" repeat.tar.gz repeat.log --no-counters ${REPEAT_IDS:-} || rc=$? ;;
  smoke) run_suite "--time-limit 0.3 --min-time 0.05" || rc=$?; run_gpu_tests || rc=$? ;;
  full)  run_suite "" || rc=$?; run_gpu_tests || rc=$? ;;
  full2) # GPU tests first (they check every day-13 kernel at the ragged size), then two independent
         # runs of the whole suite (run-to-run agreement); the second comes back as a tar
         run_gpu_tests || rc=$?
         run_suite "" || rc=$?
         mkdir -p /tmp/repeat
         python3 -m measure run --node "$node" --out /tmp/repeat/results 2>&1 | tee "$out/repeat.log"
         [ "${PIPESTATUS[0]}" = 0 ] || rc=1
         tar -C /tmp/repeat/results -cf "$out/repeat.tar" "$node" ;;
  tests) run_gpu_tests || rc=$? ;;
  mine)  # what a reader runs on their own GPU (README, "Run this on your GPU"), on this one: MINE_IDS
         # (default: every experiment) into measure/local/, packed as $OUT/mine.tar.gz, log in mine.log
         # shellcheck disable=SC2086
         python3 -m measure mine ${MINE_IDS:-} $MEASURE_ARGS 2>&1 | tee "$out/mine.log"
         rc=${PIPESTATUS[0]}
         if [ -d measure/local ]; then tar -C measure/local -czf "$out/mine.tar.gz" .; fi ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
echo "done in $(( $(date +%s) - t0 )) s, rc=$rc"
exit $rc
