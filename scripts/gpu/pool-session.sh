#!/usr/bin/env bash
# Pools the parts of one GPU session into one calibration and one fidelity measurement. The host's
# speed moves from one run to the next (cuda-graphs' before side took 2.7 to 5.0 ms within one
# session on the H100), so a session alternates calibration rounds and fidelity runs in parts
# (device-run.sh calibrate / fidelity, each part with its own OUT), and both are read from all
# the parts together: each calibration value the median over every round, each lesson side the
# median over every run.
#   bash scripts/gpu/pool-session.sh OUT_DIR DRIVER DATE DEVICE_NAME PART_DIR...
# Each PART_DIR holds calibration-traces.tar.xz and/or fidelity-traces.tar.xz. Writes
# OUT_DIR/calibration.json and OUT_DIR/fidelity.json (lessons with a run in every part).
set -euo pipefail
if [ $# -lt 5 ]; then
  echo "usage: pool-session.sh OUT_DIR DRIVER DATE DEVICE_NAME PART_DIR..." >&2
  exit 2
fi
out=$1 driver=$2 date=$3 device=$4
shift 4
mkdir -p "$out/cal" "$out/fid"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A next
part=0
for dir in "$@"; do
  part=$((part + 1))
  if [ -f "$dir/calibration-traces.tar.xz" ]; then
    mkdir -p "$tmp/c$part" && tar -C "$tmp/c$part" -xJf "$dir/calibration-traces.tar.xz"
    for f in "$tmp/c$part"/cal/*.sstrace; do
      base=$(basename "$f" .sstrace)
      cp "$f" "$out/cal/${base%%.*}.p$part-${base#*.}.sstrace"
    done
  fi
  if [ -f "$dir/fidelity-traces.tar.xz" ]; then
    mkdir -p "$tmp/f$part" && tar -C "$tmp/f$part" -xJf "$dir/fidelity-traces.tar.xz"
    for f in $(cd "$tmp/f$part/fid" && ls | sort -t. -k1,1 -k2,2 -k3,3n); do
      IFS=. read -r lesson side _ _ <<< "$f"
      key=$lesson.$side
      n=${next[$key]:-0}
      cp "$tmp/f$part/fid/$f" "$out/fid/$key.$n.sstrace"
      next[$key]=$((n + 1))
    done
  fi
done
# The fewest runs any lesson side has: every kept lesson is read from that many runs.
reps=$(printf '%s\n' "${next[@]}" | sort -n | head -1)
pnpm -s tsx scripts/gpu/calibration-from-traces.ts "$out/cal" "$driver" "$date" > "$out/calibration.json"
pnpm -s tsx apps/web/scripts/lesson-fidelity.ts collect "$out" "$reps" "$device" "$driver" "$date"
echo "pooled $(ls "$out/cal" | wc -l) calibration traces and $reps runs per lesson side into $out"
