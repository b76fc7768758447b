#!/usr/bin/env bash
# Run ON THE GPU MACHINE from the project root (see ../shared/gpu/README.md):
#   bash scripts/gpu-record/record.sh     (it sources .gpu/on-device.sh itself)
# Records the fixtures of packages/importers, scrubs them and packs them into $OUT.
set -uo pipefail
source .gpu/on-device.sh
here=scripts/gpu-record
work=/tmp/rec && rm -rf "$work" && mkdir -p "$work"
cp "$here"/*.py "$work"/ && cd "$work" || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__)'
"$NSYS" --version
nsys_profile train python3 train.py || echo "train failed"
nsys_profile many python3 many.py || echo "many failed"
nsys_profile graph python3 graph.py || echo "graph failed"
python3 train.py --kineto kineto-raw.json > kineto.log 2>&1 || { echo "kineto failed"; tail kineto.log; }
python3 scrub-kineto.py kineto-raw.json train.kineto.json
nsys_scrub train.json train.sqlite many.json many.sqlite graph.json graph.sqlite
python3 scrub-extra.py train.json train.sqlite many.json many.sqlite graph.json graph.sqlite
ls -la
# Nothing unscrubbed leaves: only the scrubbed exports are packed.
tar -cJf "$OUT/fixtures.tar.xz" train.json train.sqlite graph.json graph.sqlite train.kineto.json many.json many.sqlite
ls -la "$OUT"
