#!/usr/bin/env bash
# One device call = one command: set up PyCUDA (once per machine), then smoke | full | tests.
#
#   GLOSS_COMMIT=<sha> GLOSS_DIRTY=0|1 bash measure/node/run.sh smoke|full|full2|tests
#
# Run from the repository root on the verification node (the lent H200), with the offline PyCUDA
# wheels and sdist in .node/ (see measure/README.md). Writes everything under $OUT (default ./out):
# run.log, pytest.log (setup.log only when the set-up fails) and the result files as
# $OUT/<node>/<experiment>.json; full2 adds repeat.log and repeat.tar (a second run's results).
# Never touches the GPU's clocks or settings.
set -uo pipefail
mode=${1:?usage: run.sh smoke|full|full2|tests}
node=${NODE:-h200-1}
out=${OUT:-$PWD/out}
site=/tmp/site
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1

t0=$(date +%s)
if [ ! -d "$site/pycuda" ]; then
  {
    echo "== installing PyCUDA from .node/ into $site"
    python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" .node/*.whl &&
    CUDA_ROOT=/usr/local/cuda python3 -m pip install -q --no-index --no-deps --no-build-isolation \
        --target "$site" .node/pycuda-*.tar.gz
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

rc=0
case $mode in
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
  *) echo "unknown mode $mode"; exit 2 ;;
esac
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
echo "done in $(( $(date +%s) - t0 )) s, rc=$rc"
exit $rc
