#!/usr/bin/env bash
# Runs ON THE GPU MACHINE from the repository root, with $OUT set and, carried from the build
# machine, .gpu/ (bash ../shared/gpu/prepare.sh) and DIR (build-device.mjs DIR; default .gpuprof).
#   bash DIR/device-run.sh [compare] [overhead] [processes | torchrun killed fork nocuda server-gone] [DIR]
# compare: the C++ and PyTorch examples under `streamscope profile --out` and under nsys
#          (--cuda-graph-trace=node, so graph kernels are counted one by one as ours are);
#          writes *.sstrace and *.nsys.json (nsys_stats.py) into $OUT/results.tar.xz.
# overhead: the PyTorch example sized to ~20 s, plain, under `profile` (through a server on this
#          machine, with the live latency client following it) and under
#          `nsys profile --trace=cuda,nvtx`; loop and process wall times into $OUT/overhead.txt.
# processes: through a server here, torchrun with two workers (one run, two processes), a program
#          killed mid-run, one that forks after CUDA is up, and a server killed mid-run; each
#          run's stored status and reason, and the program's exit status, into $OUT/checks.txt.
set -uo pipefail
: "${OUT:?set OUT to the output folder}"
parts=()
dir=.gpuprof
for arg in "$@"; do
  case "$arg" in
    compare | overhead) parts+=("$arg") ;;
    processes) parts+=(torchrun killed fork nocuda server-gone) ;;
    torchrun | killed | fork | nocuda | server-gone) parts+=("$arg") ;;
    *) dir=$arg ;;
  esac
done
[ ${#parts[@]} -eq 0 ] && parts=(compare overhead torchrun killed fork nocuda server-gone)
ROUNDS=${ROUNDS:-2}          # overhead rounds (plain, profile, nsys), while under ROUND_BUDGET_S
ROUND_BUDGET_S=${ROUND_BUDGET_S:-300}
source .gpu/on-device.sh > /dev/null
P=$(cd "$dir" && pwd)
PY=${PY:-/opt/torch/.venv/bin/python3}
export STREAMSCOPE_COLLECTOR=$P/libstreamscope_inject.so
W=$(mktemp -d)
log=$OUT/log.txt
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$log"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
cd "$W" || exit 1

nsys_node() { # NAME CMD...: nsys with node-level graph tracing, then its SQLite export
  local name=$1
  shift
  timeout 150 env -i HOME=/tmp PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
    "$NSYS" profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --cuda-graph-trace=node \
    --force-overwrite true -o "$name" "$@" >> "$log" 2>&1 &&
    "$NSYS" export --type sqlite --force-overwrite true -o "$name.sqlite" "$name.nsys-rep" > /dev/null 2>&1
}

start_server() { # starts serve-on-device.mjs; sets $server (pid) and $port
  node "$P/serve-on-device.mjs" 0 > serve.out 2>> "$log" &
  server=$!
  for _ in $(seq 100); do grep -q listening serve.out 2> /dev/null && break; sleep 0.1; done
  port=$(sed -n 's/listening \([0-9]*\)/\1/p' serve.out)
}
run_status() { # RUN_TITLE_PREFIX: the stored status and reason of the newest run with that title
  node -e "fetch('http://127.0.0.1:$port/api/traces').then(r => r.json()).then(l => {
    const e = l.find(x => x.title.startsWith(process.argv[1]));
    console.log(e ? JSON.stringify({status: e.status, reason: e.reason, opCount: e.opCount, warnings: e.warnings}) : 'none');
  })" "$1"
}

for part in "${parts[@]}"; do
  case "$part" in
    compare)
      say "multi_thread: streamscope profile"
      timeout 120 node "$P/cli.mjs" profile --out multi_thread.sstrace -- "$P/multi_thread" 20 >> "$log" 2>&1
      say "exit $?"
      say "multi_thread: nsys"
      nsys_node mt-nsys "$P/multi_thread" 20 && python3 "$P/nsys_stats.py" mt-nsys.sqlite > multi_thread.nsys.json
      say "exit $?"
      say "torch_streams: streamscope profile"
      timeout 180 node "$P/cli.mjs" profile --out torch_streams.sstrace -- "$PY" "$P/torch_streams.py" --steps 60 >> "$log" 2>&1
      say "exit $?"
      say "torch_streams: nsys"
      nsys_node torch-nsys "$PY" "$P/torch_streams.py" --steps 60 && python3 "$P/nsys_stats.py" torch-nsys.sqlite > torch_streams.nsys.json
      say "exit $?"
      tar cJf "$OUT/results.tar.xz" ./*.sstrace ./*.nsys.json 2>> "$log"
      ;;
    overhead)
      # Size the run to about 20 s of loop on this GPU.
      ms=$("$PY" "$P/torch_streams.py" --steps 200 | sed -n 's/.*loop \([0-9.]*\) ms.*/\1/p')
      steps=$("$PY" -c "print(max(200, int(200 * 20000 / float('${ms:-1000}'))))")
      say "calibration: 200 steps in ${ms} ms; overhead runs use ${steps} steps"
      start_server
      for round in $(seq "$ROUNDS"); do
        [ "$round" -gt 1 ] && [ $(($(date +%s) - t0)) -gt "$ROUND_BUDGET_S" ] && break
        start=$(now_ms)
        line=$("$PY" "$P/torch_streams.py" --steps "$steps")
        say "round $round plain: $line; process $(($(now_ms) - start)) ms" | tee -a "$OUT/overhead.txt"
        node "$P/profile-latency.mjs" "http://127.0.0.1:$port" > "latency-$round.json" 2>> "$log" &
        client=$!
        start=$(now_ms)
        line=$(node "$P/cli.mjs" profile --server "http://127.0.0.1:$port" -- "$PY" "$P/torch_streams.py" --steps "$steps" 2>> "$log")
        say "round $round profile: $line; process $(($(now_ms) - start)) ms" | tee -a "$OUT/overhead.txt"
        wait "$client"
        say "round $round delivery latency: $(cat "latency-$round.json")" | tee -a "$OUT/overhead.txt"
        start=$(now_ms)
        line=$(env -i HOME=/tmp PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" "$NSYS" profile --trace=cuda,nvtx \
          --sample=none --cpuctxsw=none --force-overwrite true -o "ovh-$round" "$PY" "$P/torch_streams.py" --steps "$steps" 2>> "$log" | grep torch_streams)
        say "round $round nsys: $line; process $(($(now_ms) - start)) ms" | tee -a "$OUT/overhead.txt"
      done
      kill "$server" 2> /dev/null
      base=""
      ;;
    torchrun | killed | fork | nocuda | server-gone)
      [ -z "${base:-}" ] && start_server && base="http://127.0.0.1:$port"
      check() { say "$1: $2; run $(run_status "$3")" | tee -a "$OUT/checks.txt"; }
      ;;&
    torchrun)
      out=$(timeout 120 node "$P/cli.mjs" profile --server "$base" --name two-workers -- \
        "$PY" -m torch.distributed.run --standalone --nproc-per-node 2 "$P/torch_streams.py" --steps 30 2>> "$log")
      check "torchrun, 2 workers" "exit $?, $(echo "$out" | grep -c torch_streams) workers printed" two-workers
      ;;
    killed)
      node "$P/cli.mjs" profile --server "$base" --name killed -- "$PY" "$P/torch_streams.py" --steps 1000000 >> "$log" 2>&1 &
      cli=$!
      sleep 12
      kill -KILL "$(pgrep -P "$cli")"
      wait "$cli"
      check "killed with SIGKILL" "profile exit $?" killed
      ;;
    fork)
      out=$(timeout 120 node "$P/cli.mjs" profile --server "$base" --name forks -- "$PY" "$P/fork_after_cuda.py" 2>> "$log")
      check "fork after CUDA" "exit $?, $out" forks
      ;;
    nocuda)
      out=$(timeout 120 node "$P/cli.mjs" profile --server "$base" --name nocuda -- "$PY" -c "print('no cuda')" 2>&1 | tail -1)
      check "no CUDA" "$out" nocuda
      ;;
    server-gone)
      STREAMSCOPE_PROFILE_RECONNECT_MS=2000 timeout 120 node "$P/cli.mjs" profile --server "$base" --name server-gone -- \
        "$PY" "$P/torch_streams.py" --steps 6000 > gone.out 2> gone.err &
      cli=$!
      sleep 12
      kill -KILL "$server"
      base=""
      wait "$cli"
      say "server killed mid-run: profile exit $?; program: $(cat gone.out); collector and CLI said: $(grep streamscope gone.err | tr '\n' '|')" | tee -a "$OUT/checks.txt"
      ;;
  esac
done
say "done"
