#!/usr/bin/env bash
# Run ON THE GPU MACHINE from the project root: bash scripts/gpu-record/record-extra.sh
# Two more real fixtures: two processes on one GPU, and a CUDA graph traced node by node
# (--cuda-graph-trace=node). Scrubbed like record.sh, packed into $OUT.
set -uo pipefail
source .gpu/on-device.sh
here=scripts/gpu-record
work=/tmp/rec2 && rm -rf "$work" && mkdir -p "$work"
cp "$here"/*.py "$work"/ && cd "$work" || exit 1
nsys_profile multi python3 multi.py || echo "multi failed"
env -i HOME=/tmp PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" "$NSYS" profile --trace=cuda,nvtx \
  --sample=none --cpuctxsw=none --cuda-graph-trace=node --force-overwrite true -o graphnode \
  python3 graph.py > graphnode.profile.log 2>&1 || tail -20 graphnode.profile.log
"$NSYS" export --type json --force-overwrite true -o graphnode.json graphnode.nsys-rep > /dev/null 2>&1
"$NSYS" export --type sqlite --force-overwrite true -o graphnode.sqlite graphnode.nsys-rep > /dev/null 2>&1
nsys_scrub multi.json multi.sqlite graphnode.json graphnode.sqlite
python3 scrub-extra.py multi.json multi.sqlite graphnode.json graphnode.sqlite
ls -la
tar -cJf "$OUT/extra.tar.xz" multi.json multi.sqlite graphnode.json graphnode.sqlite
