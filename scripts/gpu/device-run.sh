#!/usr/bin/env bash
# Runs ON THE GPU MACHINE, from the repository root, with $OUT set (the device `run` tool's
# output folder). Needs, carried from the build machine: .gpu/ (bash ../shared/gpu/prepare.sh)
# and native/build/ (pnpm install builds the addon; node scripts/gpu/build-device-runner.mjs
# bundles the runner). Writes at most 6 files to $OUT:
#   device-log.txt, probe.json, calibration.json, bench.txt, runs.tar.xz, nsys-agreement.txt,
#   sanitizer.txt, lessons-gpu.txt (apps/server/scripts/build-device-server.mjs bundles the last)
#   calibration-traces.tar.xz, fidelity.json, fidelity-traces.tar.xz (calibrate, fidelity)
# DEVICE_DIR names the folder of the bundles (default native/build/device). PIN_CPUS (a taskset
# list such as 2-5) runs calibrate and fidelity on those cores only; FIDELITY_REPS (default 5)
# sets fidelity's measured runs per side.
# LESSON_RUNS (default 3) sets how many times the lesson check runs each lesson pair (medians).
# usage: bash scripts/gpu/device-run.sh [all|nsys|sanitize|diagnose|overhead|two-gpu|lessons|calibrate|fidelity|calibrated]...
set -uo pipefail
: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT" # a part's own folder (OUT=$W/c1): every step below appends or copies into it
source .gpu/on-device.sh
device=${DEVICE_DIR:-native/build/device}
runner=$device/device-main.mjs
work=$(mktemp -d)
pin=()
if [ -n "${PIN_CPUS:-}" ]; then pin=(taskset -c "$PIN_CPUS"); fi
for part in "${@:-all}"; do
  case "$part" in
    all)
      node "$runner" all "$work" 2>&1 | tee -a "$OUT/device-log.txt"
      cp "$work"/probe.json "$work"/calibration.json "$work"/bench.txt "$OUT"/ 2>/dev/null
      ;;
    nsys)
      # Nsight Systems and the executor's CUPTI timing cannot share a process (one CUPTI
      # subscriber with drivers before r610), so the same-run comparison times the executor with
      # cudaEvent pairs under nsys; the CUPTI run is compared with nsys (a separate run) and with a
      # second CUPTI run, which shows how much copies move from one run to the next.
      for preset in overlap-blog:variant=sequential pipeline:chunks=1 pipeline pinned-vs-pageable events-vs-device-sync; do
        tag=${preset//[:=,]/-}
        node "$runner" preset "$preset" "$work/$tag.a.sstrace" auto >> "$OUT/device-log.txt" 2>&1
        node "$runner" preset "$preset" "$work/$tag.b.sstrace" auto >> "$OUT/device-log.txt" 2>&1
        node "$runner" export-json "$work/$tag.a.sstrace" "$work/$tag.a.json"
        node "$runner" export-json "$work/$tag.b.sstrace" "$work/$tag.b.json"
        if nsys_profile "$work/nsys-$tag" node "$runner" preset "$preset" "$work/$tag.ev.sstrace" events >> "$OUT/device-log.txt" 2>&1; then
          node "$runner" export-json "$work/$tag.ev.sstrace" "$work/$tag.ev.json"
          echo "== $preset: executor (cudaEvent timing) vs nsys, the same run" >> "$OUT/nsys-agreement.txt"
          python3 scripts/gpu/nsys-agreement.py "$work/$tag.ev.json" "$work/nsys-$tag.sqlite" >> "$OUT/nsys-agreement.txt" 2>&1
          echo "== $preset: executor (CUPTI) vs nsys, separate runs" >> "$OUT/nsys-agreement.txt"
          python3 scripts/gpu/nsys-agreement.py "$work/$tag.a.json" "$work/nsys-$tag.sqlite" >> "$OUT/nsys-agreement.txt" 2>&1
        else
          echo "nsys profile of $preset failed" >> "$OUT/nsys-agreement.txt"
        fi
        if nsys_profile "$work/nsys2-$tag" node "$runner" preset "$preset" "$work/$tag.ev2.sstrace" events >> "$OUT/device-log.txt" 2>&1; then
          echo "== $preset: nsys vs a second nsys run (how much the GPU itself varies)" >> "$OUT/nsys-agreement.txt"
          python3 scripts/gpu/nsys-agreement.py "$work/nsys-$tag.sqlite" "$work/nsys2-$tag.sqlite" >> "$OUT/nsys-agreement.txt" 2>&1
        fi
        echo "== $preset: executor (CUPTI) vs a second executor run" >> "$OUT/nsys-agreement.txt"
        python3 scripts/gpu/nsys-agreement.py "$work/$tag.a.json" "$work/$tag.b.json" >> "$OUT/nsys-agreement.txt" 2>&1
      done
      ;;
    calibrate)
      # Every calibration benchmark (packages/executor/src/calibrate/benchmarks.ts), traces kept.
      DRIVER_VERSION=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1) \
        "${pin[@]}" node "$runner" calibrate "$work" 2>&1 | tee -a "$OUT/device-log.txt"
      cp "$work/calibration.json" "$OUT/" 2>/dev/null
      tar -C "$work" -cJf "$OUT/calibration-traces.tar.xz" cal
      ;;
    fidelity)
      # Every lesson's before and after workload through the real server on this GPU: a warm-up,
      # then 5 measured runs each (apps/web/scripts/lesson-fidelity.ts, bundled beside the runner).
      "${pin[@]}" node "$device/serve-on-device.mjs" 0 > "$work/fserve.out" 2> "$work/fserve.err" &
      fserver=$!
      for _ in $(seq 1 150); do grep -q '^listening' "$work/fserve.out" && break; sleep 0.2; done
      fport=$(awk '/^listening/ {print $2}' "$work/fserve.out")
      GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) \
        DRIVER_VERSION=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1) \
        timeout 480 node --experimental-websocket "$device/lesson-fidelity.mjs" measure "http://127.0.0.1:$fport" "$work" "${FIDELITY_REPS:-5}" 2>&1 | tee -a "$OUT/device-log.txt"
      kill "$fserver"
      tail -5 "$work/fserve.err" >> "$OUT/device-log.txt"
      cp "$work/fidelity.json" "$OUT/" 2>/dev/null
      tar -C "$work" -cJf "$OUT/fidelity-traces.tar.xz" fid
      ;;
    calibrated)
      # A 2-round calibration of this GPU in the device server's data dir: the server offers it as
      # "this GPU (calibrated)" (as `streamscope serve --data DIR` does); runs on it through the API.
      DRIVER_VERSION=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1) \
        CALIBRATE_ROUNDS=${CALIBRATE_ROUNDS:-2} node "$runner" calibrate "$work/ccal" >> "$OUT/device-log.txt" 2>&1
      mkdir -p "$work/cdata" && cp "$work/ccal/calibration.json" "$work/cdata/" && cp "$work/ccal/calibration.json" "$OUT/"
      DATA_DIR="$work/cdata" node "$device/serve-on-device.mjs" 0 > "$work/cserve.out" 2> "$work/cserve.err" &
      cserver=$!
      for _ in $(seq 1 150); do grep -q '^listening' "$work/cserve.out" && break; sleep 0.2; done
      cport=$(awk '/^listening/ {print $2}' "$work/cserve.out")
      case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
        *H200*) shipped=h200 ;;
        *) shipped=h100 ;;
      esac
      node scripts/gpu/calibrated-profile-check.mjs "$cport" "$shipped" 2>&1 | tee "$OUT/calibrated-check.txt"
      kill "$cserver"
      ;;
    lessons)
      # Every lesson's GPU path as the page runs it, against the real server on this GPU.
      node "$device/serve-on-device.mjs" 0 > "$work/serve.out" 2> "$work/serve.err" &
      server=$!
      for _ in $(seq 1 150); do grep -q '^listening' "$work/serve.out" && break; sleep 0.2; done
      port=$(awk '/^listening/ {print $2}' "$work/serve.out")
      case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" in
        *H200*) profile=h200 ;;
        *) profile=h100 ;;
      esac
      gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
      timeout 420 node --experimental-websocket "$device/lesson-gpu-check.mjs" "http://127.0.0.1:$port" "$profile" cuda "$gpus" "${LESSON_RUNS:-3}" > "$OUT/lessons-gpu.txt" 2>&1
      echo "lesson check exit $?" >> "$OUT/lessons-gpu.txt"
      kill "$server"
      tail -5 "$work/serve.err" >> "$OUT/lessons-gpu.txt"
      ;;
    sanitize)
      # Leak and race checks of the executor child (compute-sanitizer follows child processes).
      sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
      for tool in memcheck racecheck; do
        timeout 240 "$sanitizer" --tool "$tool" --target-processes all --leak-check full \
          node "$runner" preset pipeline "$work/sanitize-$tool.sstrace" auto > "$work/sanitize-$tool.txt" 2>&1
        echo "== $tool (exit $?)" >> "$OUT/sanitizer.txt"
        grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|Error|error" "$work/sanitize-$tool.txt" | head -20 >> "$OUT/sanitizer.txt"
      done
      ;;
    diagnose)
      node "$runner" diagnose 2>&1 | tee -a "$OUT/device-log.txt"
      ;;
    overhead)
      node "$runner" overhead 2>&1 | tee -a "$OUT/device-log.txt"
      ;;
    two-gpu)
      node "$runner" two-gpu "$work/runs" 2>&1 | tee -a "$OUT/device-log.txt"
      ;;
  esac
done
if [ -d "$work/runs" ]; then
  tar -C "$work" -cJf "$OUT/runs.tar.xz" runs
fi
