#!/usr/bin/env bash
# Many-core run (issue 39, "a batch that scales"): the vector env's scaling over cores, Connect
# Four, N=256 against MCTS-100, each setting's core counts in turn within each repeat
# (benchmarks.vector; its tables and JSON files in $OUT):
#
#   1. the targets: all the machine's cores against 1, native and sync, numba's static split
#      (chunk 0) and blocks of one tree handed out as threads finish (chunk 1): the kernel
#      bound >= 12x and native >= 10x of 1 core on 16 cores; the sync vector's ratio;
#   2. the curve: CORES, CORES/2, ..., 2, 1 cores, native, the better chunk size of step 1
#      (CHUNK, default 1);
#   3. the threading layers: workqueue (and tbb where it is installed) against step 1's omp,
#      native, chunk 0 and CHUNK;
#   4. OpenMP's idle threads spinning (OMP_WAIT_POLICY=ACTIVE) against sleeping (PASSIVE).
#
# PARTS (default targets,curve,layers,spinning) picks the steps, in this order.
#
# Run from the repository root, the package importable (pip install -e '.[fast]' gymnasium);
# with the carried folder .whl/ (our dependencies' wheels) they are installed from it first,
# no network needed; SKIP_INSTALL=1 skips that.
#
#   CORES=16 bash benchmarks/scale_device.sh          # results in $OUT
#
# Budget: on 16 cores about 5 minutes (the kernels' first compile, ~1 minute, is cached for
# the later steps): 1-core native steps take ~0.25 s a repeat and sync ~0.9 s, a 256-env
# vector ~2 s to build. STEPS and REPEATS (default 10 and 3) scale it.
set -u
CORES=${CORES:-$(nproc)}
STEPS=${STEPS:-10}
REPEATS=${REPEATS:-3}
CHUNK=${CHUNK:-1}
PARTS=,${PARTS:-targets,curve,layers,spinning},
OUT=${OUT:-/tmp/scale_device_out}
mkdir -p "$OUT"
if [ -z "${SKIP_INSTALL:-}" ] && [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
python3 -m mcts_agents.cli.main warm-up connect_four >/dev/null 2>&1 || true  # compiled once
common=(--games connect_four --num-envs 256 --steps "$STEPS" --repeats "$REPEATS")
bench() {  # bench NAME [ENV=VALUE ...] -- ARGS...: one benchmark run, its output kept
    local name=$1
    shift
    local vars=()
    while [ "$1" != "--" ]; do vars+=("$1"); shift; done
    shift
    echo "## $name ${vars[*]} $*" | tee "$OUT/$name.txt"
    env "${vars[@]}" python3 -m benchmarks.vector "${common[@]}" "$@" --json "$OUT/$name.json" \
        2>&1 | tee -a "$OUT/$name.txt"
}
cat /proc/cpuinfo | grep -m1 "model name" | tee "$OUT/machine.txt"
nproc | tee -a "$OUT/machine.txt"
part() { [[ $PARTS == *,$1,* ]]; }
part targets && bench targets OMP_WAIT_POLICY=PASSIVE -- --cores "$CORES,1" \
    --modes native,sync --chunksizes 0,1
curve=$CORES
c=$CORES
while [ "$c" -gt 1 ]; do c=$((c / 2)); curve="$curve,$c"; done
part curve && bench curve OMP_WAIT_POLICY=PASSIVE -- --cores "$curve" --modes native \
    --chunksizes "$CHUNK"
part layers && bench workqueue NUMBA_THREADING_LAYER=workqueue -- --cores "$CORES,1" \
    --modes native --chunksizes "0,$CHUNK"
if part layers && { python3 -c "import tbb" 2>/dev/null \
    || python3 -c "import numba.np.ufunc.tbbpool" 2>/dev/null; }; then
    bench tbb NUMBA_THREADING_LAYER=tbb -- --cores "$CORES,1" --modes native \
        --chunksizes "0,$CHUNK"
fi
part spinning && bench spinning NUMBA_THREADING_LAYER=omp OMP_WAIT_POLICY=ACTIVE -- \
    --cores "$CORES,1" --modes native,sync --chunksizes "0,$CHUNK"
echo "# done: $OUT"
