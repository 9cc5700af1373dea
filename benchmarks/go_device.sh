#!/usr/bin/env bash
# Device run (issue 42, part 3): our GTP engine at a fixed number of simulations a move
# (default 15,000) against GNU Go 3.8 level 10 on 9x9 (komi 7.5, Chinese rules,
# --capture-all-dead, colours alternating), WORKERS games at a time, each game's two engines
# pinned to one core; prints the score with its 95% Wilson interval and the machine's
# simulations a second. Run from the repository root with the carried folder .whl/ (the
# wheels of our dependencies; gnugo_*.deb, libreadline8_*.deb, libtinfo6_*.deb from Debian
# bookworm): no network is needed.
#
#   GAMES=60 WORKERS=14 SIMS=15000 bash benchmarks/go_device.sh     # results in $OUT
#
# Budget: on the 2-core VM (loaded) a game at 15,000 simulations took 14-83 s, 45 s on average
# (our 22-37 moves at 0.5-1 s, GNU Go's at 0.3-0.6 s; a lost game ends in our resignation). At
# ~9.3k simulations/s a process (2.5x slower cores) a game is ~85 s, so 60 games on 14 cores
# are ~6 minutes of games plus the last round's tail and the setup (pip, GNU Go, the kernels'
# compile: ~1.5 min): about 9 minutes. So no game starts after STOP_AFTER seconds of games
# (default 240; those playing finish): about 40-45 games in under 8 minutes. GAMES=60
# STOP_AFTER=0 plays all 60 (about 9 minutes).
# SIMS=0 MOVE_TIME=2 plays at MOVE_TIME seconds a move instead (the engine's clock).
# SKIP_INSTALL=1: the dependencies are installed already.
set -u
GAMES=${GAMES:-60}
WORKERS=${WORKERS:-14}
SIMS=${SIMS:-15000}
MOVE_TIME=${MOVE_TIME:-2}
KERNEL=${KERNEL:-}  # our GoOptions, e.g. KERNEL=defend=1 (benchmarks.go --kernel)
STOP_AFTER=${STOP_AFTER:-240}
OUT=${OUT:-/tmp/go_device_out}
mkdir -p "$OUT"
start=$(date +%s)
if [ -z "${SKIP_INSTALL:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
fi
# GNU Go from its .deb files, unpacked into a prefix (dpkg-deb, or Python where there is none)
prefix=/tmp/gnugo
mkdir -p "$prefix"
for deb in .whl/gnugo_*.deb .whl/libreadline8_*.deb .whl/libtinfo6_*.deb; do
    [ -f "$deb" ] || continue
    if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$deb" "$prefix" || exit 1
    else
        python3 - "$deb" "$prefix" <<'EOF' || exit 1
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"!<arch>\n", "not a .deb"
at = 8
while at < len(data):
    name, size = data[at:at + 16].decode().strip(), int(data[at + 48:at + 58])
    body = data[at + 60:at + 60 + size]
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(body)).extractall(sys.argv[2])
    at += 60 + size + (size & 1)
EOF
    fi
done
libs="$prefix/lib/x86_64-linux-gnu:$prefix/usr/lib/x86_64-linux-gnu"
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$libs" "$prefix/usr/games/gnugo" \
    > "$prefix/gnugo.sh"
chmod +x "$prefix/gnugo.sh"
export GNUGO="$prefix/gnugo.sh"
"$GNUGO" --version | head -1 || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nproc
lscpu | grep -E "Model name|^CPU\(s\)"
python3 -c "import numba, numpy; print('numba', numba.__version__, 'numpy', numpy.__version__)"
# compile Go's kernels once into numba's cache, before the engines start
python3 -c "from mcts_agents.compiled.go_searcher import warm_up; warm_up()" || exit 1
echo "ready: $(( $(date +%s) - start )) s"
python3 -m benchmarks.go --no-speed --games "$GAMES" --workers "$WORKERS" --level 10 \
    --simulations "$SIMS" --move-time "$MOVE_TIME" --stop-after "$STOP_AFTER" \
    --out "$OUT/go_gnugo_$([ "$SIMS" = 0 ] && echo "${MOVE_TIME}s" || echo "$SIMS").jsonl" \
    --kernel "$KERNEL" \
    | python3 -c "
import json, sys
for line in sys.stdin:
    if line.startswith('{'):
        r = json.loads(line)
        print(r['index'], 'ours', 'black' if r['black'] == 'ours' else 'white',
              'won' if r['ours_won'] else 'lost', r['score'], r['moves'], 'moves',
              r['seconds'], 's', r.get('sims_per_s'), 'sims/s in game', r['rate'], 'sims/s empty')
    else:
        print(line, end='')
"
echo "done: $(( $(date +%s) - start )) s"
