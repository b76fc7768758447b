#!/usr/bin/env bash
# Runs ON THE GPU MACHINE, from the repository root, with $OUT set (the device `run` tool's
# output folder). Needs, carried from the build machine: .gpu/ (bash ../shared/gpu/prepare.sh)
# and native/build/ (pnpm install builds the addon; node scripts/gpu/build-device-runner.mjs
# bundles the runner). Writes at most 6 files to $OUT:
#   device-log.txt, probe.json, calibration.json, bench.txt, runs.tar.xz, nsys-agreement.txt
# usage: bash scripts/gpu/device-run.sh [all|nsys|two-gpu]...
set -uo pipefail
: "${OUT:?set OUT to the output folder}"
source .gpu/on-device.sh
runner=native/build/device/device-main.mjs
work=$(mktemp -d)
for part in "${@:-all}"; do
  case "$part" in
    all)
      node "$runner" all "$work" 2>&1 | tee -a "$OUT/device-log.txt"
      cp "$work"/probe.json "$work"/calibration.json "$work"/bench.txt "$OUT"/ 2>/dev/null
      ;;
    nsys)
      # The same workload twice: timed by the executor (CUPTI), and under nsys with the
      # executor's own timing off (one CUPTI subscriber per process).
      for preset in pipeline overlap-blog pinned-vs-pageable; do
        node "$runner" preset "$preset" "$work/$preset.ours.sstrace" auto >> "$OUT/device-log.txt" 2>&1
        node "$runner" export-json "$work/$preset.ours.sstrace" "$work/$preset.ours.json"
        if nsys_profile "$work/nsys-$preset" node "$runner" preset "$preset" "$work/$preset.nsys.sstrace" none; then
          python3 scripts/gpu/nsys-agreement.py "$work/$preset.ours.json" "$work/nsys-$preset.sqlite" >> "$OUT/nsys-agreement.txt" 2>&1
        else
          echo "nsys profile of $preset failed" >> "$OUT/nsys-agreement.txt"
        fi
      done
      ;;
    two-gpu)
      node "$runner" two-gpu "$work/runs" 2>&1 | tee -a "$OUT/device-log.txt"
      ;;
  esac
done
if [ -d "$work/runs" ]; then
  tar -C "$work" -cJf "$OUT/runs.tar.xz" runs
fi
